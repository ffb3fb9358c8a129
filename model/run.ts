// Runs a model job (or one matmul) on the emulated machine: builds the blob,
// loads build/fw/model.elf (mmbench.elf) and the blob at SRAM offset 0,
// runs, and reads the results back from the SRAM.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { DEFAULT_MAX_CYCLES, describeStop, Machine, type RunResult } from '../emu/machine.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { buildBlob, headerOffset, jobPrompts, MATMUL_FIELDS, MATMUL_MAGIC, type Job, type Model } from './format.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The model program (firmware-c/model/model.c), built by `make -C firmware-c`. */
export const MODEL_ELF = join(root, 'build', 'fw', 'model.elf');
/** The single-matmul benchmark (firmware-c/model/mmbench.c). */
export const MMBENCH_ELF = join(root, 'build', 'fw', 'mmbench.elf');

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

function runMachine(elf: string, blob: Uint8Array, opts: RunOptions): { m: Machine; result: RunResult; wallMs: number; cpuMs: number } {
  let image: Uint8Array;
  try {
    image = readFileSync(elf);
  } catch {
    throw new Error(`${elf} is missing: build the firmware with \`make -C firmware-c\``);
  }
  const m = new Machine(opts.config ?? defaultConfig(), { reference: opts.reference ?? false });
  m.loadElf(image);
  m.loadSram(blob, 0);
  opts.onMachine?.(m);
  // The firmware prints only when it refuses a job: that line goes into ModelRunError.
  m.bus.console.captureOutput(true);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = m.run(opts.maxCycles ?? DEFAULT_MAX_CYCLES);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return { m, result, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** The closed PERF_CTRL windows of a run, in order. */
const windowsOf = (r: RunResult): CounterSnapshot[] => r.windows ?? [];

const sramView = (sram: Uint8Array) => new DataView(sram.buffer, sram.byteOffset, sram.byteLength);

function checkRun(what: string, result: RunResult, status: number, printed: string): void {
  if (result.reason !== 'exit' || result.exit !== 0 || status !== 1) {
    const why = status === 2 ? ' (bad header)' : status === 3 ? ' (TPU error)' : status === 0 ? ' (never written)' : '';
    const said = printed.trim().split('\n').at(-1);
    throw new ModelRunError(`${what} failed: ${describeStop(result)}; STATUS ${status}${why}${said ? `: ${said}` : ''}`, result);
  }
}

/**
 * Runs `job` on the emulated board: the blob (buildBlob) at SRAM offset 0,
 * build/fw/model.elf, then reads GENERATED, OUT_TOKENS, LOGITS, STATUS and the
 * K/V caches back from the SRAM. Throws ModelRunError unless the program
 * exited with 0 and STATUS = 1.
 */
export function runOnEmulator(model: Model, job: Job, opts: RunOptions = {}): EmulatorRun {
  const { bytes, layout } = buildBlob(model, job);
  const { m, result, wallMs, cpuMs } = runMachine(opts.elfPath ?? MODEL_ELF, bytes, opts);
  const sram = m.bus.sram.bytes;
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

export interface MatmulRun { result: RunResult; windows: CounterSnapshot[]; c: Uint8Array; wallMs: number; cpuMs: number }

/** One C = R(A·B) through build/fw/mmbench.elf (A, B deterministic, shift 4). */
const matmulFieldOffset = (name: string) => MATMUL_FIELDS.find((f) => f.name === name)!.offset;

/** mmbench's job: its header and pseudo-random A and B at SRAM offset 0; C (the result) is bytes c..end. */
export function matmulJob(shape: { m: number; k: number; n: number }, variant: number): { blob: Uint8Array; c: number; end: number } {
  const { m, k, n } = shape;
  const header = 64, a = header, b = a + Math.ceil((m * k) / 2 / 64) * 64, c = b + Math.ceil((k * n) / 2 / 64) * 64;
  const end = c + (m * n) / 2;
  const blob = new Uint8Array(end);
  const dv = new DataView(blob.buffer);
  const put = (name: string, v: number) => dv.setUint32(matmulFieldOffset(name), v, true);
  put('MAGIC', MATMUL_MAGIC); put('M', m); put('K', k); put('N', n); put('VARIANT', variant); put('SHIFT', 4);
  put('A', a); put('B', b); put('C', c);
  let s = 12345;
  for (let i = a; i < c; i++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; blob[i] = s >>> 24; }
  return { blob, c, end };
}

export function runMatmulOnEmulator(shape: { m: number; k: number; n: number }, variant: number, opts: RunOptions = {}): MatmulRun {
  const { blob, c, end } = matmulJob(shape, variant);
  const off = matmulFieldOffset;
  const { m: machine, result, wallMs, cpuMs } = runMachine(opts.elfPath ?? MMBENCH_ELF, blob, opts);
  const sram = machine.bus.sram.bytes;
  checkRun('matmul run', result, sramView(sram).getUint32(off('STATUS'), true), machine.bus.console.capturedText());
  return { result, windows: windowsOf(result), c: sram.slice(c, end), wallMs, cpuMs };
}
