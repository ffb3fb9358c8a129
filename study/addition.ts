// The addition model's demo without the host's files: the problem from its
// text, the model checked to be an addition model, the job of one problem,
// the solution and the demo's result and report (formatDemo). `picotpu demo`
// (study/addition-run.ts) and the browser playground (web/) both use these, so
// the page prints what the command prints.

import { defaultConfig } from '../emu/config.ts';
import { formatReport, sumCounters, type CounterSnapshot } from '../periph/counters.ts';
import {
  decodeAnswer, DECODE_STEPS, DIGITS, encodePrompt, fullWidthProblem, parseProblem, PROMPT_LEN, sumOf, TOKEN, VOCAB, type Problem,
} from '../model/addition.ts';
import type { EmulatorRun } from '../model/emulator-job.ts';
import { BEST_VARIANT, LayoutError, planLayout, readModel, variantName, type Job, type Model } from '../model/format.ts';
import { DEFAULT_TARGET, type ModelTarget } from '../model/targets.ts';
import { mulberry32 } from '../model/random.ts';
import { groupDigits } from './group-digits.ts';

/**
 * The kernel variant the TPU runs by default: every optimisation bit
 * (BEST_VARIANT, 4095), the fastest (docs/study.md §7). Of the first 32
 * variants 31 was the fastest on the addition job (a 64-token prefill and
 * 32 decode steps): 36.5 M clocks against 36.6 M for the next best (23, no
 * wait tokens) and 53.8 M for the base variant.
 */
export const ADDER_VARIANT = BEST_VARIANT; // 4095

/** The model blob is missing or is not an addition model. */
export class AdderModelError extends Error {
  override name = 'AdderModelError';
}

/**
 * The model blob's bytes read and checked to be an addition model that fits
 * the board with an addition job's buffers (what demo and eval run); `shown`
 * names the blob in the one-line AdderModelError.
 */
export function readAdder(bytes: Uint8Array, shown: string): Model {
  let model: Model;
  try {
    model = readModel(bytes);
  } catch (e) {
    throw new AdderModelError(`${shown}: ${(e as Error).message}`);
  }
  const { vocab, maxSeq } = model.dims;
  if (vocab !== VOCAB || maxSeq < PROMPT_LEN + DECODE_STEPS) {
    throw new AdderModelError(
      `${shown} is not an addition model: vocab ${vocab} and max_seq ${maxSeq}, it needs vocab ${VOCAB} and max_seq ≥ ${PROMPT_LEN + DECODE_STEPS}`,
    );
  }
  try {
    planLayout(model.dims, adderJob({ a: '0', b: '0' }));
  } catch (e) {
    if (e instanceof LayoutError) throw new AdderModelError(`${shown}: ${e.message}`);
    throw e;
  }
  return model;
}

/** The job of one problem: its prompt, up to DECODE_STEPS decode steps, stopping after END. */
export function adderJob(p: Problem, variant = 0): Job {
  return { prompt: encodePrompt(p), decodeSteps: DECODE_STEPS, variant, stopToken: TOKEN.END };
}

export interface Solution {
  problem: Problem;
  /** The tokens generated: the prefill's, then one per decode step (up to and including END). */
  tokens: number[];
  /** The logits each token was chosen from. */
  logits: Int32Array[];
  /** decodeAnswer(tokens): the number written, or null when the tokens are not digits followed by END. */
  answer: string | null;
  /** sumOf(problem). */
  expected: string;
  correct: boolean;
}

export interface TpuSolution extends Solution { run: EmulatorRun }

export function solution(problem: Problem, tokens: number[], logits: Int32Array[]): Solution {
  const answer = decodeAnswer(tokens);
  const expected = sumOf(problem);
  return { problem, tokens, logits, answer, expected, correct: answer === expected };
}

export class DemoInputError extends Error {}

/** The demo's problem from its argument: one clear line (DemoInputError) when it is not "a+b" of 1..31 digits each. */
export function demoProblem(text: string): Problem {
  const m = /^\s*([0-9]+)\s*\+\s*([0-9]+)\s*$/.exec(text);
  if (!m) throw new DemoInputError(`"${text}" is not an addition problem: give "a+b", two numbers of 1 to ${DIGITS} decimal digits, e.g. 123456789+987654321`);
  for (const x of [m[1], m[2]]) {
    if (x.length > DIGITS) throw new DemoInputError(`"${text}": ${x.length}-digit operand; the model adds numbers of at most ${DIGITS} digits`);
  }
  // parseProblem accepts exactly what passed the checks above.
  return parseProblem(text)!;
}

/** The demo's random problem: two 31-digit operands from mulberry32(seed). */
export const randomProblem = (seed: number): Problem => fullWidthProblem(mulberry32(seed));

export interface DemoResult {
  problem: Problem;
  /** The seed the problem was drawn from, null when it was given. */
  seed: number | null;
  modelPath: string;
  variant: number;
  solution: TpuSolution;
  /** The PERF_CTRL windows: prefill, decode (when a decode step ran), and their sum. */
  prefill: CounterSnapshot;
  decode: CounterSnapshot | null;
  total: CounterSnapshot;
  clockHz: number;
  /** The board and its model firmware the problem ran on. */
  target: ModelTarget;
}

/** The demo's result from the problem's run on the TPU: its PERF_CTRL windows (prefill, decode) and their sum. */
export function demoResultOf(
  problem: Problem, seed: number | null, modelPath: string, variant: number, solution: TpuSolution, target: ModelTarget = DEFAULT_TARGET,
): DemoResult {
  const w = solution.run.windows.length ? solution.run.windows : [solution.run.result.counters];
  return {
    problem, seed, modelPath, variant, solution, target,
    prefill: w[0], decode: w[1] ?? null, total: sumCounters(w), clockHz: defaultConfig().clockHz,
  };
}

const group = groupDigits;

export function formatDemo(r: DemoResult): string {
  const { problem: p, solution: s } = r;
  const out: string[] = [];
  const drawn = r.seed === null ? '' : `   (drawn at random, seed 0x${r.seed.toString(16).padStart(8, '0')}; pass "a+b" to choose one)`;
  out.push(`problem   ${p.a} + ${p.b}${drawn}\n`);
  const t = r.target;
  out.push(`model     ${r.modelPath} on ${t.firmware}${t.boardLabel}, variant ${r.variant} (${t.variantName(r.variant)})\n`);
  out.push(`prompt    ${encodePrompt(p).map(tokenName).join(' ')}\n`);
  out.push(`generated ${s.tokens.map(tokenName).join(' ')}   (${s.tokens.length} tokens, least significant digit first)\n`);
  out.push(`sum       ${s.answer ?? '(the firmware did not write a number followed by END)'}\n`);
  out.push(`expected  ${s.expected}\n`);
  out.push(`correct   ${s.correct ? 'yes' : 'NO'}\n\n`);
  const decodeSteps = s.tokens.length - 1;
  out.push(`== prefill: ${PROMPT_LEN} prompt tokens, the first sum digit ==\n`, formatReport(r.prefill, r.clockHz));
  if (r.decode) out.push(`\n== decode: ${decodeSteps} steps, one token each ==\n`, formatReport(r.decode, r.clockHz));
  out.push(`\n== whole run: ${t.wholeRun} ==\n`, formatReport(r.total, r.clockHz));
  const res = s.run.result, sec = s.run.wallMs / 1000;
  out.push(`\nwall ${sec.toFixed(3)} s for ${group(res.clocks)} emulated clocks (${t.runSpan}): `
    + `${(res.clocks / sec / 1e6).toFixed(1)} M clocks/s, ${(res.clocks / r.clockHz / sec).toFixed(2)}x real time on the ${r.clockHz / 1e6} MHz board\n`);
  return out.join('');
}

/** How a token prints: its digit, "+", "=" or "END". */
export function tokenName(t: number): string {
  if (t <= 9) return String(t);
  return t === TOKEN.PLUS ? '+' : t === TOKEN.EQUALS ? '=' : t === TOKEN.END ? 'END' : `<${t}>`;
}
