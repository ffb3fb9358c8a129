// Trains the int4 addition transformer (docs/addition.md) with TensorFlow.js
// on its wasm backend, quantization-aware: the forward pass is the firmware's
// arithmetic exactly (model/golden.ts) — int4 weights, int4 activations,
// requantization R(acc, s) = sat4((acc + 2^(s−1)) >> s), ReLU attention,
// the residual's saturation — computed on float32 tensors that hold integers
// (every sum stays far below 2^24, so float32 is exact). Gradients pass the
// rounding straight through (and are cut where a value saturates), so the
// model trained is the model the TPU runs, with nothing lost at export.
//
//   npx tsx scripts/train.ts --seed 1 --steps 4000 --out models/adder.ptm
//
// Deterministic from --seed: the batch of step k comes from its own seeded
// generator, so a run resumed from a checkpoint (--resume) continues exactly.

import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs'; // registers the gradients (tfjs-core alone has none)
import '@tensorflow/tfjs-backend-wasm';
import cliProgress from 'cli-progress';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import {
  ANSWER_LEN, DECODE_STEPS, DIGITS, SUM_DIGITS, encodeAnswer, encodePrompt, heldOutProblems, MAX_SEQ, problemKey, PROMPT_LEN,
  TOKEN, trainingProblem, VOCAB, type Problem,
} from '../model/addition.ts';
import { buildBlob, type LayerShifts, type Model, type ModelDims } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { mulberry32 } from '../model/random.ts';

/** Worker threads get the command line of the main thread. */
const ARGS: string[] = isMainThread ? hideBin(process.argv) : (workerData as { args: string[] }).args;
const argv = yargs(ARGS)
  .option('workers', { type: 'number', default: Math.min(2, availableParallelism()), describe: 'data-parallel worker threads (each takes an equal share of every batch)' })
  .option('seed', { type: 'number', default: 1, describe: 'seed of the initial weights and of every batch' })
  .option('steps', { type: 'number', default: 4000, describe: 'optimizer steps' })
  .option('batch', { type: 'number', default: 32, describe: 'problems per step' })
  .option('lr', { type: 'number', default: 0.02, describe: 'peak Adam learning rate, in int4 units per step' })
  .option('warmup', { type: 'number', default: 100, describe: 'steps of linear learning-rate warm-up' })
  .option('eval-every', { type: 'number', default: 250, describe: 'steps between held-out evaluations and checkpoints' })
  .option('eval-size', { type: 'number', default: 256, describe: 'held-out problems per evaluation' })
  .option('ckpt', { type: 'string', default: 'build/train/adder', describe: 'checkpoint directory' })
  .option('resume', { type: 'boolean', default: false, describe: 'continue from the checkpoint in --ckpt' })
  .option('leak', { type: 'number', default: 0.1, describe: 'gradient factor where a value saturates (0: cut)' })
  .option('shift-o', { type: 'number', default: 4, describe: 'requantization shift of the attention output P·V' })
  .option('float', { type: 'boolean', default: false, describe: 'diagnostic: no rounding anywhere (the architecture in float; not exportable)' })
  .option('init-out', { type: 'number', default: 0.5, describe: 'initial spread of the residual branches\' output weights (Wo, W2), in int4 units: small, so the stream starts as the embedding' })
  .option('tie-qk', { type: 'boolean', default: false, describe: 'initialise each layer\'s Wk equal to its Wq, so attention starts out favouring similar positions (same digit index)' })
  .option('init-segment', { type: 'number', default: 2, describe: 'initial spread of the segment embedding, in int4 units' })
  .option('shift-s', { type: 'number', default: 4, describe: 'requantization shift of the attention scores q·k (larger: sparser attention at the start)' })
  .option('init-tok', { type: 'number', default: 2, describe: 'initial spread of the token embedding, in int4 units' })
  .option('final-eval', { type: 'number', default: 1000, describe: 'held-out problems of the teacher-forced evaluation written to the .json' })
  .option('aux', { type: 'number', default: 0, describe: 'weight of the auxiliary column-sum and carry losses (training only; 0: off)' })
  .option('aux-until', { type: 'number', default: 0.5, describe: 'the auxiliary weight falls linearly to 0 at this fraction of --steps' })
  .option('clip-factor', { type: 'number', default: 0, describe: 'clip a step\'s gradient norm to this many times its running average (0: off); guards against single bad batches' })
  .option('export', { choices: ['best', 'last'] as const, default: 'best' as const, describe: 'export the checkpoint with the best held-out exact match (ties: token accuracy), or the last weights' })
  .option('analyze', { type: 'boolean', default: false, describe: 'load the checkpoint in --ckpt and print held-out accuracy per answer position, then stop' })
  .option('out', { type: 'string', default: 'models/adder.ptm', describe: 'the trained model blob' })
  .strict()
  .parseSync();

export const DIMS: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: VOCAB, maxSeq: MAX_SEQ };
const { d, dFF, heads, layers } = DIMS;
const dh = d / heads;
/** Fixed shifts, chosen for the spreads of the initial weights (σ ≈ 2) and activations (σ ≈ 2.5–3). */
const SHIFTS: LayerShifts = { q: 5, k: 5, v: 5, s: argv['shift-s'], o: argv['shift-o'], a: 5, f1: 5, f2: 5 };
const BOUND = 8; // hardtanh bound of both residual adds: the int4 range itself
const INIT_SIGMA = 2;
/** Positions of one training sequence: the prompt and the answer but its last token. */
const SEQ = PROMPT_LEN + ANSWER_LEN - 1; // 96
/** The answer's tokens are predicted at positions PROMPT_LEN−1 .. SEQ−1. */
const FIRST_PREDICTION = PROMPT_LEN - 1;

// ---- Quantizers (custom gradients: straight through, cut where saturated) ----

type Unary = (x: tf.Tensor) => tf.Tensor;
/** tf.customGrad with the loose typing its variadic signature needs. */
const custom = <F>(f: (...args: never[]) => unknown): F => tf.customGrad(f as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as F;

/** y = clip(floor(acc·2^−s + ½), lo, 7): the platform's requantization, with ReLU when lo = 0. */
function requantizer(s: number, lo: number) {
  const scale = 2 ** -s;
  return custom<Unary>((acc: tf.Tensor, save: tf.GradSaveFunc) => {
    const u = tf.mul(acc, scale);
    save([u]);
    return {
      value: tf.clipByValue(tf.floor(tf.add(u, 0.5)), lo, 7),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const inside = tf.logicalAnd(tf.greaterEqual(saved[0], lo - 0.5), tf.less(saved[0], 7.5));
        return tf.mul(dy, tf.where(inside, scale, scale * LEAK));
      },
    };
  });
}
const requantizers = new Map<string, ReturnType<typeof requantizer>>();
function R(acc: tf.Tensor, s: number, lo = -8): tf.Tensor {
  if (argv.float) return lo === 0 ? tf.relu(tf.mul(acc, 2 ** -s)) : tf.mul(acc, 2 ** -s);
  const key = `${s}/${lo}`;
  if (!requantizers.has(key)) requantizers.set(key, requantizer(s, lo));
  return requantizers.get(key)!(acc);
}

const LEAK = argv.leak;
/** clip(x, lo, hi) whose gradient leaks (×LEAK) where x saturates, so a saturated residual stream still learns. */
function saturate(lo: number, hi: number) {
  return custom<Unary>((x: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x]);
    return {
      value: tf.clipByValue(x, lo, hi),
      gradFunc: (dy: tf.Tensor, [sx]: tf.Tensor[]) =>
        tf.mul(dy, tf.where(tf.logicalAnd(tf.greaterEqual(sx, lo), tf.lessEqual(sx, hi)), 1, LEAK)),
    };
  });
}
const residualSat = saturate(-Math.min(BOUND, 8), Math.min(BOUND, 7));
const embedSat = saturate(-8, 7);

/** The int4 weight a latent weight stands for: clip(round(w), −8, 7), gradient straight through. */
const int4Weight = custom<Unary>((w: tf.Tensor) => ({
  value: argv.float ? tf.clone(w) : tf.clipByValue(tf.round(w), -8, 7),
  gradFunc: (dy: tf.Tensor) => dy,
}));

/**
 * a·b for 2-D tensors, its gradients also as plain products of explicit
 * transposes: the wasm backend's XNNPACK path is ten times faster than its
 * transposed and batched matmuls.
 */
const mm = custom<(a: tf.Tensor, b: tf.Tensor) => tf.Tensor>((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor, [sa, sb]: tf.Tensor[]) => [
      tf.matMul(dy as tf.Tensor2D, tf.transpose(sb) as tf.Tensor2D),
      tf.matMul(tf.transpose(sa) as tf.Tensor2D, dy as tf.Tensor2D),
    ],
  };
});

// ---- Parameters ----

/**
 * The positional embedding is trained as the sum of a digit-significance
 * embedding and a segment embedding ("Abacus" embeddings, McLeish et al.
 * 2024): position p's digit index is the significance of the digit it holds
 * (a_i at i, b_i at 32 + i) or, in the answer, of the digit it predicts (the
 * position holding s_{i−1} predicts s_i: index i), so that every digit an
 * answer digit depends on shares its index or the one below. The exported
 * table is an ordinary int4 [max_seq, d] pos_emb: the sum, quantized; the
 * firmware and the golden model see nothing else.
 */
const DIGIT_INDICES = MAX_SEQ - PROMPT_LEN + 2;
const SEGMENT = { A: 0, B: 1, ANSWER: 2, PLUS: 3 } as const;
const SEGMENTS = 4;
function positionCodes(): { digit: Int32Array; segment: Int32Array } {
  const digit = new Int32Array(MAX_SEQ), segment = new Int32Array(MAX_SEQ);
  for (let p = 0; p < MAX_SEQ; p++) {
    if (p < DIGITS) { digit[p] = p; segment[p] = SEGMENT.A; }
    else if (p === DIGITS) { digit[p] = DIGITS; segment[p] = SEGMENT.PLUS; }
    else if (p < PROMPT_LEN - 1) { digit[p] = p - DIGITS - 1; segment[p] = SEGMENT.B; }
    else { digit[p] = p - (PROMPT_LEN - 1); segment[p] = SEGMENT.ANSWER; }
  }
  return { digit, segment };
}
const CODES = positionCodes();

/** The int4 pos_emb [max_seq, d]: clip(round(digit_emb[digit(p)] + segment_emb[segment(p)])), straight through. */
function positionTable(p: Params): tf.Tensor {
  const digit = mm(tf.oneHot(tf.tensor1d(CODES.digit, 'int32'), DIGIT_INDICES), p.digitEmb);
  const segment = mm(tf.oneHot(tf.tensor1d(CODES.segment, 'int32'), SEGMENTS), p.segmentEmb);
  return int4Weight(tf.add(digit, segment));
}

interface LayerParams { wq: tf.Variable; wk: tf.Variable; wv: tf.Variable; wo: tf.Variable; w1: tf.Variable; w2: tf.Variable }
interface Params { tokEmb: tf.Variable; digitEmb: tf.Variable; segmentEmb: tf.Variable; wOut: tf.Variable; logitScale: tf.Variable; auxSum: tf.Variable; auxCarry: tf.Variable; layers: LayerParams[] }

function initParams(seed: number): Params {
  const rnd = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const weight = (name: string, shape: [number, number], sigma = INIT_SIGMA) => {
    const v = new Float32Array(shape[0] * shape[1]);
    for (let i = 0; i < v.length; i++) v[i] = Math.max(-8.4, Math.min(7.4, sigma * gauss()));
    return tf.variable(tf.tensor2d(v, shape), true, name);
  };
  return {
    tokEmb: weight('tok_emb', [VOCAB, d], argv['init-tok']),
    digitEmb: weight('digit_emb', [DIGIT_INDICES, d]),
    segmentEmb: weight('segment_emb', [SEGMENTS, d], argv['init-segment']),
    wOut: weight('w_out', [d, VOCAB]),
    logitScale: tf.variable(tf.scalar(Math.log(1 / 32)), true, 'logit_scale'),
    auxSum: tf.variable(tf.mul(tf.randomNormal([d, AUX_SUMS], 0, 1, 'float32', seed), 0.05), true, 'aux_sum'),
    auxCarry: tf.variable(tf.mul(tf.randomNormal([d, 2], 0, 1, 'float32', seed + 1), 0.05), true, 'aux_carry'),
    layers: Array.from({ length: layers }, (_, l) => {
      const wq = weight(`l${l}.wq`, [d, d]);
      const wk = argv['tie-qk'] ? tf.variable(wq.clone(), true, `l${l}.wk`) : weight(`l${l}.wk`, [d, d]);
      return {
        wq, wk, wv: weight(`l${l}.wv`, [d, d]),
        wo: weight(`l${l}.wo`, [d, d], argv['init-out']), w1: weight(`l${l}.w1`, [d, dFF]), w2: weight(`l${l}.w2`, [dFF, d], argv['init-out']),
      };
    }),
  };
}

const allVariables = (p: Params): tf.Variable[] =>
  [p.tokEmb, p.digitEmb, p.segmentEmb, p.wOut, p.logitScale, p.auxSum, p.auxCarry, ...p.layers.flatMap((l) => [l.wq, l.wk, l.wv, l.wo, l.w1, l.w2])];
const weightVariables = (p: Params) => allVariables(p).filter((v) => v !== p.logitScale && v !== p.auxSum && v !== p.auxCarry);

// ---- The forward pass: model/golden.ts, batched over sequences and positions ----

let causalMask: tf.Tensor | null = null;
function causal(L: number): tf.Tensor {
  if (!causalMask) causalMask = tf.keep(tf.linalg.bandPart(tf.ones([L, L]), -1, 0));
  return causalMask;
}

/** [B·L, d] → [B·heads, L, dh] */
const splitHeads = (x: tf.Tensor, B: number, L: number) =>
  tf.reshape(tf.transpose(tf.reshape(x, [B, L, heads, dh]), [0, 2, 1, 3]), [B * heads, L, dh]);
const joinHeads = (x: tf.Tensor, B: number, L: number) =>
  tf.reshape(tf.transpose(tf.reshape(x, [B, heads, L, dh]), [0, 2, 1, 3]), [B * L, d]);

/**
 * Integer logits (as floats) of the answer positions of `tokens` [B, L]:
 * [B·ANSWER_LEN, vocab]. (Embeddings are looked up as one-hot products and
 * positions sliced: the wasm backend has no gradient kernel for gather.)
 */
/** x at the answer rows, [B·ANSWER_LEN, d]. */
const answerRowsOf = (x: tf.Tensor, B: number, L: number) =>
  tf.reshape(tf.slice(tf.reshape(x, [B, L, d]), [0, FIRST_PREDICTION, 0], [B, ANSWER_LEN, d]), [B * ANSWER_LEN, d]);

function forward(p: Params, tokens: tf.Tensor2D, taps?: tf.Tensor[]): tf.Tensor2D {
  const [B, L] = tokens.shape;
  const tok = mm(tf.oneHot(tf.reshape(tokens, [B * L]), VOCAB), int4Weight(p.tokEmb));
  const pos = tf.slice(positionTable(p), [0, 0], [L, d]);
  let x = tf.reshape(embedSat(tf.add(tf.reshape(tok, [B, L, d]), pos)), [B * L, d]);
  const mask = causal(L);
  for (const w of p.layers) {
    const s = SHIFTS;
    const q = R(mm(x, int4Weight(w.wq)), s.q);
    const k = R(mm(x, int4Weight(w.wk)), s.k);
    const v = R(mm(x, int4Weight(w.wv)), s.v);
    const scores = tf.matMul(splitHeads(q, B, L), splitHeads(k, B, L), false, true);
    const pAtt = tf.mul(R(scores, s.s, 0), mask);
    const att = joinHeads(R(tf.matMul(pAtt, splitHeads(v, B, L)), s.o), B, L);
    const proj = R(mm(att, int4Weight(w.wo)), s.a);
    x = residualSat(tf.add(x, proj));
    const hidden = R(mm(x, int4Weight(w.w1)), s.f1, 0);
    const ffn = R(mm(hidden, int4Weight(w.w2)), s.f2);
    x = residualSat(tf.add(x, ffn));
    taps?.push(answerRowsOf(x, B, L));
  }
  return mm(answerRowsOf(x, B, L), int4Weight(p.wOut)) as tf.Tensor2D;
}

// ---- Data ----

const heldOut = heldOutProblems(1000);
const heldOutKeys = new Set(heldOut.map(problemKey));

/** Step k's problems: from their own generator, never one of the held-out set. */
function batchProblems(seed: number, step: number, n: number): Problem[] {
  const rnd = mulberry32((Math.imul(seed, 0x9e3779b1) ^ Math.imul(step + 1, 0x85ebca6b)) >>> 0);
  const out: Problem[] = [];
  while (out.length < n) {
    const p = trainingProblem(rnd);
    if (!heldOutKeys.has(problemKey(p))) out.push(p);
  }
  return out;
}

/** Inputs [B, SEQ] (prompt and answer but its last token) and the answer tokens [B, ANSWER_LEN]. */
function encodeBatch(ps: Problem[]): { inputs: Int32Array; answers: Int32Array; sums: Int32Array; carries: Int32Array } {
  const inputs = new Int32Array(ps.length * SEQ), answers = new Int32Array(ps.length * ANSWER_LEN);
  const sums = new Int32Array(ps.length * ANSWER_LEN), carries = new Int32Array(ps.length * ANSWER_LEN);
  ps.forEach((p, i) => {
    const prompt = encodePrompt(p);
    const seq = [...prompt, ...encodeAnswer(p)];
    inputs.set(seq.slice(0, SEQ), i * SEQ);
    answers.set(seq.slice(PROMPT_LEN), i * ANSWER_LEN);
    let carry = 0;
    for (let j = 0; j < ANSWER_LEN; j++) {
      const column = j < DIGITS ? prompt[j] + prompt[DIGITS + 1 + j] : 0;
      sums[i * ANSWER_LEN + j] = column;
      carries[i * ANSWER_LEN + j] = carry;
      carry = column + carry >= 10 ? 1 : 0;
    }
  });
  return { inputs, answers, sums, carries };
}

/**
 * Auxiliary targets (training only; the heads are not exported): at the
 * position that predicts s_i, the column sum a_i + b_i (0..18) read out after
 * the first layer and the carry into digit i after the second. The digit
 * s_i = (a_i + b_i + c_i) mod 10 is independent of a_i alone and of b_i
 * alone, so the main loss gives attention no first-order signal to gather
 * them (a parity-like plateau); the column sum and the carry do.
 */
const AUX_SUMS = 19;

function answerLogits(p: Params, inputs: Int32Array, B: number): tf.Tensor2D {
  return forward(p, tf.tensor2d(inputs, [B, SEQ], 'int32'));
}

/** The lowest index among equal maxima, as model/golden.ts's argmax. */
function argmaxRows(logits: Float32Array, rows: number): Int32Array {
  const out = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    let best = 0;
    for (let j = 1; j < VOCAB; j++) if (logits[r * VOCAB + j] > logits[r * VOCAB + best]) best = j;
    out[r] = best;
  }
  return out;
}

interface Score { tokenAcc: number; exact: number }

/** Per-token accuracy and exact-match rate (all 33 answer tokens right, so greedy decoding gives the answer). */
function score(pred: Int32Array, answers: Int32Array, B: number): Score {
  let right = 0, exact = 0;
  for (let b = 0; b < B; b++) {
    let all = true;
    for (let i = 0; i < ANSWER_LEN; i++) {
      const ok = pred[b * ANSWER_LEN + i] === answers[b * ANSWER_LEN + i];
      right += ok ? 1 : 0;
      all &&= ok;
    }
    exact += all ? 1 : 0;
  }
  return { tokenAcc: right / (B * ANSWER_LEN), exact: exact / B };
}

function evaluate(p: Params, problems: Problem[]): Score {
  let tokenAcc = 0, exact = 0;
  const chunk = 64;
  for (let i = 0; i < problems.length; i += chunk) {
    const ps = problems.slice(i, i + chunk);
    const { inputs, answers } = encodeBatch(ps);
    const logits = tf.tidy(() => answerLogits(p, inputs, ps.length));
    const pred = argmaxRows(logits.dataSync() as Float32Array, ps.length * ANSWER_LEN);
    logits.dispose();
    const s = score(pred, answers, ps.length);
    tokenAcc += s.tokenAcc * ps.length;
    exact += s.exact * ps.length;
  }
  return { tokenAcc: tokenAcc / problems.length, exact: exact / problems.length };
}

// ---- Checkpoints ----

/** What the driver carries between steps, saved with each checkpoint so a resumed run continues exactly. */
interface RunState { gradNormEma: number; best: { step: number; exact: number; tokenAcc: number } | null }

interface Checkpoint { step: number; seed: number; elapsedMs: number; run?: RunState; variables: { name: string; shape: number[] }[]; optimizer: { name: string; shape: number[] }[] }

async function saveCheckpoint(dir: string, step: number, elapsedMs: number, run: RunState, p: Params, opt: tf.AdamOptimizer): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const vars = allVariables(p);
  const optWeights = await opt.getWeights();
  const tensors = [...vars.map((v) => ({ name: v.name, tensor: v as tf.Tensor })), ...optWeights];
  const sizes = tensors.map((t) => t.tensor.size);
  const data = new Float32Array(sizes.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const t of tensors) { data.set(await t.tensor.data() as Float32Array, at); at += t.tensor.size; }
  const meta: Checkpoint = {
    step, seed: argv.seed, elapsedMs, run,
    variables: vars.map((v) => ({ name: v.name, shape: v.shape })),
    optimizer: optWeights.map((w) => ({ name: w.name, shape: w.tensor.shape })),
  };
  writeFileSync(`${dir}/weights.tmp`, Buffer.from(data.buffer));
  writeFileSync(`${dir}/checkpoint.tmp`, JSON.stringify(meta));
  renameSync(`${dir}/weights.tmp`, `${dir}/weights.bin`);
  renameSync(`${dir}/checkpoint.tmp`, `${dir}/checkpoint.json`);
}

async function loadCheckpoint(dir: string, p: Params, opt: tf.AdamOptimizer): Promise<Checkpoint> {
  const meta = JSON.parse(readFileSync(`${dir}/checkpoint.json`, 'utf8')) as Checkpoint;
  if (meta.seed !== argv.seed) throw new Error(`checkpoint was trained with seed ${meta.seed}, not ${argv.seed}`);
  const raw = readFileSync(`${dir}/weights.bin`);
  const data = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  let at = 0;
  const take = (shape: number[]) => { const n = shape.reduce((a, b) => a * b, 1); const t = tf.tensor(data.slice(at, at + n), shape); at += n; return t; };
  const vars = allVariables(p);
  meta.variables.forEach((m, i) => { const t = take(m.shape); vars[i].assign(t); t.dispose(); });
  await opt.setWeights(meta.optimizer.map((m) => ({ name: m.name, tensor: take(m.shape) })));
  return meta;
}

// ---- Export ----

function intValues(w: tf.Variable): Int8Array {
  return int4Values(tf.tidy(() => int4Weight(w)));
}

function int4Values(q: tf.Tensor): Int8Array {
  const v = Int8Array.from(q.dataSync() as Float32Array);
  q.dispose();
  return v;
}

export function exportModel(p: Params): Model {
  return {
    dims: DIMS, tokEmb: intValues(p.tokEmb), posEmb: int4Values(tf.tidy(() => positionTable(p))), wOut: intValues(p.wOut),
    layers: p.layers.map((l) => ({
      wq: intValues(l.wq), wk: intValues(l.wk), wv: intValues(l.wv), wo: intValues(l.wo), w1: intValues(l.w1), w2: intValues(l.w2),
      shifts: { ...SHIFTS }, bound1: BOUND, bound2: BOUND,
    })),
  };
}

/**
 * The exported model must compute what training computed: the golden model's
 * logits (model/golden.ts, the firmware's arithmetic) at the last prompt
 * position and at the last answer position, against the training forward's.
 */
function checkExport(p: Params, model: Model, problems: Problem[]): void {
  const { inputs } = encodeBatch(problems);
  const logits = tf.tidy(() => answerLogits(p, inputs, problems.length));
  const ours = logits.dataSync() as Float32Array;
  logits.dispose();
  problems.forEach((_, b) => {
    const seq = Array.from(inputs.subarray(b * SEQ, (b + 1) * SEQ));
    for (const [len, row] of [[PROMPT_LEN, 0], [SEQ, ANSWER_LEN - 1]] as const) {
      const golden = runGolden(model, { prompt: seq.slice(0, len), decodeSteps: 0, variant: 0 }).logits[0];
      for (let j = 0; j < VOCAB; j++) {
        const mine = ours[(b * ANSWER_LEN + row) * VOCAB + j];
        if (mine !== golden[j]) throw new Error(`export check: problem ${b}, position ${len - 1}, logit ${j}: training says ${mine}, golden model ${golden[j]}`);
      }
    }
  });
}

// ---- Training ----

function learningRate(step: number): number {
  if (step < argv.warmup) return (argv.lr * (step + 1)) / argv.warmup;
  const t = (step - argv.warmup) / Math.max(1, argv.steps - argv.warmup);
  return argv.lr * (0.05 + 0.95 * 0.5 * (1 + Math.cos(Math.PI * Math.min(1, t))));
}

/** One copy of the model and optimizer; every replica applies the same averaged gradients, so all stay identical. */
class Trainer {
  readonly params = initParams(argv.seed);
  readonly opt = tf.train.adam(argv.lr, 0.9, 0.98, 1e-6);
  private readonly vars = allVariables(this.params);
  private readonly weights = weightVariables(this.params);

  /** Gradients of the mean loss over this shard of step `step`'s batch. */
  gradients(step: number, shard: number, shards: number): GradResult {
    const all = batchProblems(argv.seed, step, argv.batch);
    const per = argv.batch / shards;
    const ps = all.slice(shard * per, (shard + 1) * per);
    const { inputs, answers, sums, carries } = encodeBatch(ps);
    let pred: Int32Array = new Int32Array(0);
    const auxWeight = argv.aux * Math.max(0, 1 - step / (argv['aux-until'] * argv.steps));
    const { value, grads } = tf.variableGrads(() => {
      const taps: tf.Tensor[] = [];
      const logits = forward(this.params, tf.tensor2d(inputs, [ps.length, SEQ], 'int32'), taps);
      pred = argmaxRows(logits.dataSync() as Float32Array, ps.length * ANSWER_LEN);
      const labels = tf.oneHot(tf.tensor1d(answers, 'int32'), VOCAB);
      let loss = tf.losses.softmaxCrossEntropy(labels, tf.mul(logits, tf.exp(this.params.logitScale))) as tf.Scalar;
      if (auxWeight > 0) {
        const sumLoss = tf.losses.softmaxCrossEntropy(tf.oneHot(tf.tensor1d(sums, 'int32'), AUX_SUMS), tf.matMul(taps[0], this.params.auxSum));
        const carryLoss = tf.losses.softmaxCrossEntropy(tf.oneHot(tf.tensor1d(carries, 'int32'), 2), tf.matMul(taps[1], this.params.auxCarry));
        loss = tf.add(loss, tf.mul(tf.add(sumLoss, carryLoss), auxWeight)) as tf.Scalar;
      }
      return loss;
    }, this.vars);
    const loss = value.dataSync()[0];
    // A variable the loss does not reach (an auxiliary head once its weight is 0) gets a zero gradient.
    const out = this.vars.map((v) => (grads[v.name] ? Float32Array.from(grads[v.name].dataSync() as Float32Array) : new Float32Array(v.size)));
    value.dispose();
    for (const g of Object.values(grads)) g.dispose();
    return { loss, acc: score(pred, answers, ps.length).tokenAcc, grads: out };
  }

  apply(grads: Float32Array[], lr: number): void {
    (this.opt as unknown as { learningRate: number }).learningRate = lr;
    tf.tidy(() => {
      this.opt.applyGradients(Object.fromEntries(this.vars.map((v, i) => [v.name, tf.tensor(grads[i], v.shape)])) as unknown as Parameters<tf.AdamOptimizer["applyGradients"]>[0]);
    });
    tf.tidy(() => { for (const w of this.weights) w.assign(tf.clipByValue(w, -8.45, 7.45)); });
  }

  async handle(m: Request): Promise<unknown> {
    switch (m.type) {
      case 'grads': return this.gradients(m.step, m.shard, m.shards);
      case 'apply': this.apply(m.grads, m.lr); return null;
      case 'eval': return evaluate(this.params, heldOut.slice(0, m.n));
      case 'save': await saveCheckpoint(m.dir, m.step, m.elapsedMs, m.run, this.params, this.opt); return null;
      case 'load': return loadCheckpoint(m.dir, this.params, this.opt);
      case 'export': {
        const model = exportModel(this.params);
        checkExport(this.params, model, heldOut.slice(0, 8));
        return model;
      }
    }
  }
}

interface GradResult { loss: number; acc: number; grads: Float32Array[] }
type Request =
  | { type: 'grads'; step: number; shard: number; shards: number }
  | { type: 'apply'; grads: Float32Array[]; lr: number }
  | { type: 'eval'; n: number }
  | { type: 'save'; dir: string; step: number; elapsedMs: number; run: RunState }
  | { type: 'load'; dir: string }
  | { type: 'export' };

interface Replica { call<T>(m: Request): Promise<T>; close(): Promise<void> }

async function startBackend(): Promise<void> {
  await tf.setBackend('wasm');
  await tf.ready();
}

async function localReplica(): Promise<Replica> {
  await startBackend();
  const t = new Trainer();
  return { call: async <T>(m: Request) => (await t.handle(m)) as T, close: async () => {} };
}

/** A Trainer in a worker thread (this file, run again under tsx's loader). */
function workerReplica(): Promise<Replica> {
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const w = new Worker(code, { eval: true, workerData: { args: ARGS } });
  let pending: ((v: unknown) => void) | null = null;
  let failed: ((e: Error) => void) | null = null;
  w.on('message', (msg: { ok: boolean; value?: unknown; error?: string }) => {
    const [res, rej] = [pending, failed];
    pending = failed = null;
    if (msg.ok) res?.(msg.value); else rej?.(new Error(msg.error));
  });
  w.on('error', (e) => { failed?.(e); });
  const replica: Replica = {
    call: <T>(m: Request) => new Promise<T>((res, rej) => {
      pending = res as (v: unknown) => void;
      failed = rej;
      w.postMessage(m);
    }),
    close: async () => { await w.terminate(); },
  };
  return replica.call<null>({ type: 'eval', n: 0 }).then(() => replica);
}

async function workerMain(): Promise<void> {
  await startBackend();
  const t = new Trainer();
  parentPort!.on('message', (m: Request) => {
    t.handle(m).then(
      (value) => {
        const transfer = m.type === 'grads' ? (value as GradResult).grads.map((g) => g.buffer) : [];
        parentPort!.postMessage({ ok: true, value }, transfer as ArrayBuffer[]);
      },
      (e: Error) => parentPort!.postMessage({ ok: false, error: e.message }),
    );
  });
}

/** Held-out accuracy of each answer position (s0 … s31, END), from the checkpoint. */
async function analyze(): Promise<void> {
  await startBackend();
  const t = new Trainer();
  const meta = await loadCheckpoint(argv.ckpt, t.params, t.opt);
  const ps = heldOut.slice(0, argv['eval-size']);
  const { inputs, answers } = encodeBatch(ps);
  const logits = tf.tidy(() => answerLogits(t.params, inputs, ps.length));
  const pred = argmaxRows(logits.dataSync() as Float32Array, ps.length * ANSWER_LEN);
  const right = new Array<number>(ANSWER_LEN).fill(0);
  for (let b = 0; b < ps.length; b++) for (let i = 0; i < ANSWER_LEN; i++) right[i] += pred[b * ANSWER_LEN + i] === answers[b * ANSWER_LEN + i] ? 1 : 0;
  console.log(`step ${meta.step}: accuracy per answer position (%)`);
  console.log(right.map((r, i) => `${i === SUM_DIGITS ? 'END' : `s${i}`} ${((100 * r) / ps.length).toFixed(0)}`).join('  '));
}

async function main(): Promise<void> {
  if (argv.analyze) return analyze();
  const n = argv.workers;
  if (!(Number.isInteger(n) && n >= 1 && argv.batch % n === 0)) throw new Error(`--workers ${n} must divide --batch ${argv.batch}`);
  const replicas = n === 1 ? [await localReplica()] : await Promise.all(Array.from({ length: n }, workerReplica));
  const bestDir = `${argv.ckpt}/best`;
  let step = 0, elapsedBefore = 0;
  let run: RunState = { gradNormEma: NaN, best: null };
  if (argv.resume && existsSync(`${argv.ckpt}/checkpoint.json`)) {
    const metas = await Promise.all(replicas.map((r) => r.call<Checkpoint>({ type: 'load', dir: argv.ckpt })));
    step = metas[0].step;
    elapsedBefore = metas[0].elapsedMs;
    run = metas[0].run ?? run;
    run.gradNormEma ??= NaN; // JSON has no NaN
    console.log(`resumed from ${argv.ckpt} at step ${step}`);
  }
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar({ format: 'train [{bar}] {value}/{total} | loss {loss} | token acc {acc} | held-out exact {exact} | {eta_formatted} left', etaBuffer: 50 }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(argv.steps, step, { loss: '-', acc: '-', exact: '-' });
  const t0 = performance.now();
  let lastExact = '-';
  let emaLoss = NaN, emaAcc = NaN;
  for (; step < argv.steps; step++) {
    const parts = await Promise.all(replicas.map((r, shard) => r.call<GradResult>({ type: 'grads', step, shard, shards: n })));
    const grads = parts[0].grads.map((g, i) => {
      const sum = Float32Array.from(g);
      for (let w = 1; w < n; w++) { const o = parts[w].grads[i]; for (let j = 0; j < sum.length; j++) sum[j] += o[j]; }
      for (let j = 0; j < sum.length; j++) sum[j] /= n;
      return sum;
    });
    clipGradients(grads, run);
    const lr = learningRate(step);
    await Promise.all(replicas.map((r) => r.call<null>({ type: 'apply', grads, lr })));
    const l = parts.reduce((a, p) => a + p.loss, 0) / n, acc = parts.reduce((a, p) => a + p.acc, 0) / n;
    emaLoss = Number.isNaN(emaLoss) ? l : 0.98 * emaLoss + 0.02 * l;
    emaAcc = Number.isNaN(emaAcc) ? acc : 0.98 * emaAcc + 0.02 * acc;
    const done = step + 1;
    if (done % argv['eval-every'] === 0 || done === argv.steps) {
      const s = await replicas[0].call<Score>({ type: 'eval', n: argv['eval-size'] });
      lastExact = `${(100 * s.exact).toFixed(1)}%`;
      const elapsed = elapsedBefore + performance.now() - t0;
      const better = !run.best || s.exact > run.best.exact || (s.exact === run.best.exact && s.tokenAcc > run.best.tokenAcc);
      if (better) {
        run.best = { step: done, exact: s.exact, tokenAcc: s.tokenAcc };
        await replicas[0].call<null>({ type: 'save', dir: bestDir, step: done, elapsedMs: elapsed, run });
      }
      await replicas[0].call<null>({ type: 'save', dir: argv.ckpt, step: done, elapsedMs: elapsed, run });
      const line = `step ${done}: loss ${emaLoss.toFixed(4)}, token acc ${(100 * emaAcc).toFixed(2)}%, held-out token acc ${(100 * s.tokenAcc).toFixed(3)}%, exact ${lastExact}${better ? ' (best)' : ''}, ${(elapsed / 60000).toFixed(1)} min`;
      if (bar) process.stderr.write(`\r\x1b[K${line}\n`); else console.log(line);
    }
    bar?.update(done, { loss: emaLoss.toFixed(4), acc: `${(100 * emaAcc).toFixed(2)}%`, exact: lastExact });
  }
  bar?.stop();
  const elapsedMs = elapsedBefore + performance.now() - t0;
  // Export the best evaluated weights, not the last: a late unstable stretch must not cost the run.
  if (argv.export === 'best' && run.best && run.best.step !== argv.steps) {
    await replicas[0].call<Checkpoint>({ type: 'load', dir: bestDir });
    console.log(`exporting the best checkpoint: step ${run.best.step} (held-out exact ${(100 * run.best.exact).toFixed(1)}%)`);
  }
  const model = await replicas[0].call<Model>({ type: 'export' });
  const finalN = Math.min(heldOut.length, argv['final-eval']);
  const final = await replicas[0].call<Score>({ type: 'eval', n: finalN });
  await Promise.all(replicas.map((r) => r.close()));
  const { bytes } = buildBlob(model, { prompt: encodePrompt(heldOut[0]), decodeSteps: DECODE_STEPS, variant: 0, stopToken: TOKEN.END });
  mkdirSync(dirname(argv.out), { recursive: true });
  writeFileSync(argv.out, bytes);
  const info = {
    command: `npx tsx scripts/train.ts ${ARGS.join(' ')}`.trim(),
    seed: argv.seed, steps: argv.steps, batch: argv.batch, workers: n, lr: argv.lr, trainingMinutes: +(elapsedMs / 60000).toFixed(1),
    exportedStep: argv.export === 'best' ? run.best?.step ?? argv.steps : argv.steps,
    heldOut: { problems: finalN, tokenAccuracy: s4(final.tokenAcc), exactMatch: s4(final.exact) },
  };
  writeFileSync(argv.out.replace(/\.ptm$/, '') + '.json', `${JSON.stringify(info, null, 2)}\n`);
  console.log(`wrote ${argv.out} (${bytes.length} bytes); ${info.trainingMinutes} min; held-out exact match ${(100 * final.exact).toFixed(1)}% of ${finalN}`);
}

const s4 = (x: number) => +x.toFixed(4);

/** Scale the step's gradients down to clip-factor × the running mean norm when they exceed it (then update the mean). */
function clipGradients(grads: Float32Array[], run: RunState): void {
  if (!(argv['clip-factor'] > 0)) return;
  let sq = 0;
  for (const g of grads) for (let j = 0; j < g.length; j++) sq += g[j] * g[j];
  const norm = Math.sqrt(sq);
  const limit = argv['clip-factor'] * run.gradNormEma;
  if (norm > limit) { const k = limit / norm; for (const g of grads) for (let j = 0; j < g.length; j++) g[j] *= k; }
  const seen = Math.min(norm, Number.isNaN(limit) ? norm : limit);
  run.gradNormEma = Number.isNaN(run.gradNormEma) ? seen : 0.98 * run.gradNormEma + 0.02 * seen;
}

if (isMainThread) await main(); else await workerMain();
