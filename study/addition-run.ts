// The addition model at work (docs/addition.md): loading models/adder.ptm,
// solving a problem with the golden model or with the firmware on the
// emulated TPU, and the two commands built on that — `picotpu eval` (held-out
// accuracy, and the TPU held to the golden model token for token) and
// `picotpu demo` (one problem, with the PLATFORM.md §7 reports).
//
// runEval() / runDemo() run, formatEval() / formatDemo() print, evalJson()
// is eval's --json document; the CLI (cli/main.ts) only parses options.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { variantName } from '../model/format.ts';
import {
  ADDER_VARIANT, AdderModelError, adderJob, demoResultOf, readAdder, solution, type DemoResult, type Solution, type TpuSolution,
} from './addition.ts';
import { defaultConfig } from '../emu/config.ts';
import { shownPath } from '../emu/observe/output-file.ts';
import { sumCounters } from '../periph/counters.ts';
import { SRAM_SIZE } from '../periph/sram.ts';
import {
  DIGITS, encodeAnswer, HELD_OUT_SEED, heldOutStream, problemKey, SUM_DIGITS, type Problem,
} from '../model/addition.ts';
import type { Model } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { runOnEmulator, type RunOptions } from '../model/run.ts';
import { runOnTarget, type TargetRunOptions } from '../model/target-run.ts';
import { DEFAULT_TARGET, type ModelTarget } from '../model/targets.ts';

export { shownPath };
export {
  ADDER_VARIANT, AdderModelError, adderJob, DemoInputError, demoProblem, formatDemo, randomProblem, readAdder, tokenName,
  type DemoResult, type Solution, type TpuSolution,
} from './addition.ts';
import { groupDigits } from './group-digits.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The trained model blob, written by scripts/train.ts. */
export const ADDER_MODEL = join(root, 'models', 'adder.ptm');


/** Largest model blob read: the SRAM it is loaded into holds no more (a device without end is refused, not read whole). */
export const MAX_MODEL_BYTES = SRAM_SIZE;

/**
 * Reads and checks the addition model blob (default models/adder.ptm). `read`
 * reads the file; the command line passes its bounded read (cli/addition.ts),
 * whose error code 'too-big' says the file holds more than MAX_MODEL_BYTES.
 */
export function loadAdder(path = ADDER_MODEL, read: (path: string) => Uint8Array = (p) => readFileSync(p)): Model {
  let bytes: Uint8Array;
  try {
    bytes = read(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'too-big') throw new AdderModelError(`cannot read ${shownPath(path)}: ${(e as Error).message} (a model blob must fit the 512 KiB SRAM)`);
    if (code === 'ENOENT') {
      throw new AdderModelError(
        `${shownPath(path)} is missing: train the model with \`npm run train\` (scripts/train.ts, see docs/addition.md), or give a blob with --model`,
      );
    }
    throw new AdderModelError(`cannot read ${shownPath(path)}: ${code === 'EISDIR' ? 'is a directory' : code ?? (e as Error).message}`);
  }
  return readAdder(bytes, shownPath(path));
}

/** The problem through the golden model (model/golden.ts). */
export function solveGolden(model: Model, problem: Problem): Solution {
  const g = runGolden(model, adderJob(problem));
  return solution(problem, g.tokens, g.logits);
}

/** The problem through build/fw/model.elf on the emulated board; throws ModelRunError if the run fails. */
export function solveOnTpu(model: Model, problem: Problem, variant: number = ADDER_VARIANT, opts: RunOptions = {}): TpuSolution {
  const run = runOnEmulator(model, adderJob(problem, variant), opts);
  return { ...solution(problem, run.tokens, run.logits), run };
}

/** Sum digits in place (of SUM_DIGITS) in free-running generation; a missing digit is wrong. */
export function digitsRight(s: Solution): number {
  const want = encodeAnswer(s.problem);
  let n = 0;
  for (let i = 0; i < SUM_DIGITS; i++) if (s.tokens[i] === want[i]) n++;
  return n;
}

export const sameTokens = (a: number[], b: number[]) => a.length === b.length && a.every((t, i) => t === b[i]);
export const sameLogits = (a: Int32Array[], b: Int32Array[]) =>
  a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((v, j) => v === b[i][j]));

/** The problem through the model firmware of `target`'s board; throws ModelRunError if the run fails. */
export function solveOnTarget(target: ModelTarget, model: Model, problem: Problem, variant: number = ADDER_VARIANT, opts: TargetRunOptions = {}): TpuSolution {
  const run = runOnTarget(target, model, adderJob(problem, variant), opts);
  return { ...solution(problem, run.tokens, run.logits), run };
}

// ---- picotpu eval ----

export interface EvalOptions {
  /** Held-out problems through the golden model (default 1000). */
  n?: number;
  /** The first `tpu` of them through the firmware on the emulated TPU (default 20, at most n). */
  tpu?: number;
  variant?: number;
  run?: RunOptions;
  /** The board (and its model firmware) of the TPU runs (default picotpu's). */
  target?: ModelTarget;
  /** Called before each problem of a phase and once at its end (done === total). */
  onProgress?: (phase: 'golden' | 'tpu', done: number, total: number) => void;
}

export interface WrongAnswer { problem: string; expected: string; answer: string | null }

export interface Disagreement {
  problem: string;
  /** Index of the first token that differs (or where one sequence ends), null when only logits differ. */
  firstToken: number | null;
  golden: number[];
  tpu: number[];
  logitsAgree: boolean;
}

export interface EvalResult {
  modelPath: string;
  variant: number;
  target: ModelTarget;
  golden: {
    problems: number; exact: number; digits: number; digitsTotal: number;
    wrong: WrongAnswer[]; wallMs: number;
  };
  tpu: {
    problems: number; tokensAgree: number; logitsAgree: number; exact: number;
    /** Per problem: clocks from reset to EXIT, and of the PERF_CTRL windows (prefill + decode). */
    clocks: number[]; windowClocks: number[];
    /** Host milliseconds of the emulation, per problem. */
    wallMs: number[];
    disagreements: Disagreement[];
  };
  clockHz: number;
  wallMs: number;
}

export class EvalUsageError extends Error {}

/**
 * Most held-out problems `eval -n` takes: the golden model solves a few per
 * second on one core, so this is hours of work already; beyond it is refused
 * (165) rather than left to run for years.
 */
export const MAX_EVAL_PROBLEMS = 100_000;

export function runEval(model: Model, modelPath: string, o: EvalOptions = {}): EvalResult {
  const n = o.n ?? 1000, tpuN = o.tpu ?? 20, variant = o.variant ?? ADDER_VARIANT, target = o.target ?? DEFAULT_TARGET;
  if (!Number.isSafeInteger(n) || n < 1) throw new EvalUsageError(`--n must be a positive integer, got ${n}`);
  if (n > MAX_EVAL_PROBLEMS) throw new EvalUsageError(`--n must be at most ${MAX_EVAL_PROBLEMS} (docs/hardware.md §7), got ${n}`);
  if (!Number.isSafeInteger(tpuN) || tpuN < 0) throw new EvalUsageError(`--tpu must be an integer ≥ 0, got ${tpuN}`);
  if (tpuN > n) throw new EvalUsageError(`--tpu ${tpuN} is more than --n ${n}: the TPU runs the first --tpu of the --n problems`);
  const t0 = performance.now();
  // Streamed: only the first tpuN problems and solutions are kept (for the TPU runs), and the wrong answers.
  const problems: Problem[] = [];
  const golden: Solution[] = [];
  const wrong: WrongAnswer[] = [];
  let digits = 0, i = 0;
  for (const p of heldOutStream(n)) {
    o.onProgress?.('golden', i, n);
    const s = solveGolden(model, p);
    if (i < tpuN) { problems.push(p); golden.push(s); }
    if (!s.correct) wrong.push({ problem: problemKey(s.problem), expected: s.expected, answer: s.answer });
    digits += digitsRight(s);
    i++;
  }
  o.onProgress?.('golden', n, n);
  const goldenMs = performance.now() - t0;
  const tpu: EvalResult['tpu'] = {
    problems: tpuN, tokensAgree: 0, logitsAgree: 0, exact: 0, clocks: [], windowClocks: [], wallMs: [], disagreements: [],
  };
  for (let i = 0; i < tpuN; i++) {
    o.onProgress?.('tpu', i, tpuN);
    const t = solveOnTarget(target, model, problems[i], variant, o.run);
    const g = golden[i];
    const tokensAgree = sameTokens(t.tokens, g.tokens), logitsAgree = sameLogits(t.logits, g.logits);
    if (tokensAgree) tpu.tokensAgree++;
    if (logitsAgree) tpu.logitsAgree++;
    if (t.correct) tpu.exact++;
    if (!tokensAgree || !logitsAgree) {
      let first: number | null = null;
      if (!tokensAgree) {
        first = 0;
        while (first < Math.min(t.tokens.length, g.tokens.length) && t.tokens[first] === g.tokens[first]) first++;
      }
      tpu.disagreements.push({ problem: problemKey(problems[i]), firstToken: first, golden: g.tokens, tpu: t.tokens, logitsAgree });
    }
    tpu.clocks.push(t.run.result.clocks);
    // A board with one counter window (run pulse to DONE) has no PERF_CTRL windows: its whole run.
    tpu.windowClocks.push(t.run.windows.length ? sumCounters(t.run.windows).cycles : t.run.result.counters.cycles);
    tpu.wallMs.push(t.run.wallMs);
  }
  if (tpuN) o.onProgress?.('tpu', tpuN, tpuN);
  return {
    modelPath, variant, target,
    golden: {
      problems: n, exact: n - wrong.length,
      digits, digitsTotal: n * SUM_DIGITS,
      wrong, wallMs: goldenMs,
    },
    tpu, clockHz: defaultConfig().clockHz, wallMs: performance.now() - t0,
  };
}

/** Whether every TPU run gave the golden model's tokens and logits. */
export const evalAgrees = (r: EvalResult) => r.tpu.disagreements.length === 0;

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(2) : '0.00');
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const group = groupDigits;

function clockLine(clocks: number[], wallMs: number[], clockHz: number, runSpan: string): string {
  const mean = sum(clocks) / clocks.length;
  const s = sum(wallMs) / 1000;
  return `emulated clocks per problem (${runSpan}): mean ${group(mean)}, min ${group(Math.min(...clocks))}, max ${group(Math.max(...clocks))}`
    + ` = ${(mean / clockHz).toFixed(3)} s on the ${clockHz / 1e6} MHz board\n`
    + `wall per TPU problem ${(s / clocks.length).toFixed(3)} s: ${(sum(clocks) / s / 1e6).toFixed(1)} M clocks/s, `
    + `${(sum(clocks) / clockHz / s).toFixed(2)}x real time\n`;
}

export function formatEval(r: EvalResult, model: Model): string {
  const d = model.dims, g = r.golden, t = r.tpu;
  const out: string[] = [];
  out.push(`model ${r.modelPath}: d=${d.d} dFF=${d.dFF} heads=${d.heads} layers=${d.layers} vocab=${d.vocab} maxSeq=${d.maxSeq}\n`);
  out.push(`held-out problems: the first ${g.problems} from seed 0x${HELD_OUT_SEED.toString(16).toUpperCase().padStart(8, '0')}, two ${DIGITS}-digit operands each\n\n`);
  out.push(`== golden model (model/golden.ts), ${g.problems} problems ==\n`);
  out.push(`exact match ${g.exact}/${g.problems} (${pct(g.exact, g.problems)}%)\n`);
  out.push(`digits right ${g.digits}/${g.digitsTotal} (${pct(g.digits, g.digitsTotal)}%; free-running, ${SUM_DIGITS} per problem)\n`);
  for (const w of g.wrong.slice(0, 5)) out.push(`  wrong: ${w.problem} = ${w.expected}, model wrote ${w.answer ?? '(not a number)'}\n`);
  if (g.wrong.length > 5) out.push(`  ... and ${g.wrong.length - 5} more\n`);
  out.push(`wall ${(g.wallMs / 1000).toFixed(1)} s (${(g.wallMs / g.problems).toFixed(1)} ms per problem)\n`);
  if (t.problems) {
    const tg = r.target;
    out.push(`\n== TPU: ${tg.firmware} on the emulated board${tg.boardLabel}, variant ${r.variant} (${tg.variantName(r.variant)}), the first ${t.problems} problems ==\n`);
    out.push(`tokens identical to the golden model's: ${t.tokensAgree}/${t.problems}; logits identical: ${t.logitsAgree}/${t.problems}\n`);
    out.push(`exact match ${t.exact}/${t.problems} (${pct(t.exact, t.problems)}%)\n`);
    for (const x of t.disagreements.slice(0, 5)) {
      out.push(x.firstToken === null
        ? `  DISAGREES: ${x.problem}: same tokens, different logits\n`
        : `  DISAGREES: ${x.problem}: first differing token ${x.firstToken}: golden ${x.golden.join(' ')}; TPU ${x.tpu.join(' ')}\n`);
    }
    out.push(clockLine(t.clocks, t.wallMs, r.clockHz, r.target.runSpan));
    out.push(evalAgrees(r) ? 'the TPU agrees with the golden model on every problem\n' : `the TPU DISAGREES with the golden model on ${t.disagreements.length} of ${t.problems} problems\n`);
  }
  out.push(`\nwall ${(r.wallMs / 1000).toFixed(1)} s\n`);
  return out.join('');
}

/** eval's --json document. */
export function evalJson(r: EvalResult, model: Model): string {
  const g = r.golden, t = r.tpu;
  const s = sum(t.wallMs) / 1000;
  return JSON.stringify({
    model: r.modelPath, dims: model.dims,
    heldOut: { seed: HELD_OUT_SEED, problems: g.problems },
    golden: {
      problems: g.problems, exact: g.exact, exactMatch: g.exact / g.problems,
      digits: g.digits, digitsTotal: g.digitsTotal, digitAccuracy: g.digits / g.digitsTotal,
      wrong: g.wrong, wallMs: g.wallMs,
    },
    tpu: {
      board: r.target.board, problems: t.problems, variant: r.variant, variantName: r.target.variantName(r.variant),
      tokensAgree: t.tokensAgree, logitsAgree: t.logitsAgree, agrees: evalAgrees(r),
      exact: t.exact, exactMatch: t.problems ? t.exact / t.problems : null,
      clocks: t.clocks, windowClocks: t.windowClocks, wallMs: t.wallMs,
      meanClocks: t.problems ? sum(t.clocks) / t.problems : null,
      clocksPerSecond: t.problems ? sum(t.clocks) / s : null,
      disagreements: t.disagreements,
    },
    clockHz: r.clockHz, wallMs: r.wallMs,
  }, null, 2) + '\n';
}

// ---- picotpu demo ----

/**
 * A seed drawn afresh every invocation, independent of the clock: from Math.random, which V8
 * seeds from the system's random source when the process starts. (node:crypto's randomBytes
 * would load the crypto module, about 3 ms of the demo's start, for four bytes of a problem.)
 */
export const freshSeed = (): number => Math.floor(Math.random() * 2 ** 32);

export function runDemo(
  model: Model, modelPath: string, problem: Problem, seed: number | null, variant = ADDER_VARIANT, run: RunOptions = {}, target: ModelTarget = DEFAULT_TARGET,
): DemoResult {
  return demoResultOf(problem, seed, modelPath, variant, solveOnTarget(target, model, problem, variant, { ...run, splitPrefill: true }), target);
}
