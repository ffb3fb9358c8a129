// A model job on a Machine, without the host's files: the blob (buildBlob) at
// SRAM offset 0 and the model program's image loaded (startJob), and after
// the run the results read back from the SRAM (finishJob). model/run.ts runs
// a job in one go from build/fw/model.elf; the browser playground (web/) runs
// the same two halves with the machine advanced in slices between them, so
// both give the same clocks, counters and tokens.

import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { describeStop, type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import type { RunObserver } from '../emu/observe/observer.ts';
import { buildBlob, headerOffset, jobPrompts, type Job, type Layout, type Model } from './format.ts';

export interface RunOptions {
  /** Literal clock-by-clock reference models of the TPU units. */
  reference?: boolean;
  config?: PlatformConfig;
  /** Another build of the program (default MODEL_ELF / MMBENCH_ELF). */
  elfPath?: string;
  /** Clock limit of the run (default DEFAULT_MAX_CYCLES). */
  maxCycles?: number;
  /** Called with the machine before it runs (e.g. to switch on the TPU's command records). */
  onMachine?: (m: Machine) => void;
  /** Run observers that watch every instruction (the issue-cost calibrations count instruction clocks per path); the clocks are the same. */
  observers?: RunObserver[];
}

export interface EmulatorRun {
  /** Sequence 0's tokens: OUT_TOKENS[0..GENERATED) for a single-prompt job. */
  tokens: number[];
  /** Sequence 0's logits: LOGITS rows 0..GENERATED−1 for a single-prompt job. */
  logits: Int32Array[];
  /** Sequence 0, per layer: K / V cache bytes of the positions processed (prompt_len + GENERATED − 1 rows of d/2 bytes). */
  kCache: Uint8Array[];
  vCache: Uint8Array[];
  /** The header's STATUS word (1: done). */
  status: number;
  result: RunResult;
  /** The closed PERF_CTRL windows: prefill, then decode when there were decode steps. */
  windows: CounterSnapshot[];
  /** A copy of the whole SRAM after the run. */
  sramBytes: Uint8Array;
  /** The same copy as sramBytes (older name). */
  sram: Uint8Array;
  /** Host milliseconds the emulation took: wall time, and this process's CPU time (user + system). */
  wallMs: number;
  cpuMs: number;
  /** The header's GENERATED: 1 + the decode steps run (for a batch, the longest sequence's token count). */
  generated: number;
  /** Per sequence of the batch (one entry for a single-prompt job): the same as tokens … vCache; sequences[0] is those fields. */
  sequences: SequenceOutput[];
}

/**
 * One sequence's results: its SEQ_GENERATED (GENERATED for one sequence) = n tokens,
 * their logits, and per layer its K / V rows of positions 0..prompt_len + n − 2
 * gathered from the interleaved caches (row stride d/2), as runGolden gives them.
 */
export interface SequenceOutput { tokens: number[]; logits: Int32Array[]; kCache: Uint8Array[]; vCache: Uint8Array[] }

/** A model or matmul run that did not end with exit 0 and STATUS = 1; `result` says how it stopped. */
export class ModelRunError extends Error {
  constructor(message: string, readonly result: RunResult) {
    super(message);
    this.name = 'ModelRunError';
  }
}

/** A job loaded on its machine, not yet run. */
export interface StartedJob { m: Machine; model: Model; job: Job; layout: Layout }

/** Lays out the blob of `job` (may throw LayoutError); then loadImage() gives the program's bytes. */
export function startJob(model: Model, job: Job, loadImage: () => Uint8Array, opts: RunOptions = {}): StartedJob {
  const { bytes, layout } = buildBlob(model, job);
  const m = machineWith(loadImage(), bytes, opts);
  return { m, model, job, layout };
}

/** A machine with `image` loaded and `blob` at SRAM offset 0, the console captured. */
export function machineWith(image: Uint8Array, blob: Uint8Array, opts: RunOptions): Machine {
  const m = new Machine(opts.config ?? defaultConfig(), { reference: opts.reference ?? false });
  m.loadElf(image);
  m.loadSram(blob, 0);
  opts.onMachine?.(m);
  // The firmware prints only when it refuses a job: that line goes into ModelRunError.
  m.bus.console.captureOutput(true);
  return m;
}

/** The closed PERF_CTRL windows of a run, in order. */
export const windowsOf = (r: RunResult): CounterSnapshot[] => r.windows ?? [];

export const sramView = (sram: Uint8Array) => new DataView(sram.buffer, sram.byteOffset, sram.byteLength);

export function checkRun(what: string, result: RunResult, status: number, printed: string): void {
  if (result.reason !== 'exit' || result.exit !== 0 || status !== 1) {
    const why = status === 2 ? ' (bad header)' : status === 3 ? ' (TPU error)' : status === 0 ? ' (never written)' : '';
    const said = printed.trim().split('\n').at(-1);
    throw new ModelRunError(`${what} failed: ${describeStop(result)}; STATUS ${status}${why}${said ? `: ${said}` : ''}`, result);
  }
}

/**
 * Reads GENERATED, OUT_TOKENS, LOGITS, STATUS and the K/V caches of a
 * finished job back from the SRAM. Throws ModelRunError unless the program
 * exited with 0 and STATUS = 1.
 */
export function finishJob(started: StartedJob, result: RunResult, wallMs: number, cpuMs: number): EmulatorRun {
  const { m, model, job, layout } = started;
  const sram = m.sramBytes;
  const dv = sramView(sram);
  const status = dv.getUint32(headerOffset('STATUS'), true);
  checkRun('model run', result, status, m.bus.console.capturedText());
  const generated = dv.getUint32(headerOffset('GENERATED'), true);
  if (generated < 1 || generated > job.decodeSteps + 1) {
    throw new ModelRunError(`model run: GENERATED is ${generated}, not 1..${job.decodeSteps + 1}`, result);
  }
  const { vocab, d } = model.dims;
  const B = jobPrompts(job).length, P = jobPrompts(job)[0].length, rs = d / 2, steps1 = job.decodeSteps + 1;
  // Tokens recorded per sequence: SEQ_GENERATED for a batch, GENERATED for one sequence.
  const counts = B === 1 ? [generated] : Array.from({ length: B }, (_, s) => dv.getUint32(layout.seqGenerated + 4 * s, true));
  counts.forEach((n, s) => {
    if (n < 1 || n > generated) throw new ModelRunError(`model run: sequence ${s} generated ${n} tokens, not 1..GENERATED = ${generated}`, result);
  });
  if (Math.max(...counts) !== generated) throw new ModelRunError(`model run: GENERATED is ${generated}, no sequence generated that many`, result);
  const sequences = Array.from({ length: B }, (_, s): SequenceOutput => {
    const n = counts[s], positions = P + n - 1;
    const tokensAt = layout.outTokens + s * steps1, logitsAt = layout.logits + s * steps1 * vocab * 4;
    const tokens = Array.from(sram.subarray(tokensAt, tokensAt + n));
    const logits = tokens.map((_, i) => {
      const row = new Int32Array(vocab);
      for (let j = 0; j < vocab; j++) row[j] = dv.getInt32(logitsAt + (i * vocab + j) * 4, true);
      return row;
    });
    // The caches interleave the sequences position by position (one sequence: plain rows);
    // a sequence's result is the positions it processed up to its last recorded token.
    const rows = (off: number) => {
      const out = new Uint8Array(positions * rs);
      for (let t = 0; t < positions; t++) out.set(sram.subarray(off + (t * B + s) * rs, off + (t * B + s + 1) * rs), t * rs);
      return out;
    };
    return { tokens, logits, kCache: layout.layers.map((l) => rows(l.kCache)), vCache: layout.layers.map((l) => rows(l.vCache)) };
  });
  const copy = sram.slice();
  const first = sequences[0];
  return {
    tokens: first.tokens, logits: first.logits, status, result, windows: windowsOf(result), sramBytes: copy, sram: copy, wallMs, cpuMs,
    kCache: first.kCache, vCache: first.vCache, generated, sequences,
  };
}

