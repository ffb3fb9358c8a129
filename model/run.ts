// Runs a model job (or one matmul) on the emulated machine from the host's
// files: loads build/fw/model.elf (mmbench.elf) and the blob at SRAM offset 0,
// runs in one go, and reads the results back from the SRAM (the job's two
// halves, without files, are model/emulator-job.ts).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_CYCLES, type Machine, type RunResult } from '../emu/machine.ts';
import { ElfError } from '../emu/elf.ts';
import { runObserved } from '../emu/observe/observer.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { MATMUL_FIELDS, MATMUL_MAGIC, type Job, type Model } from './format.ts';
import {
  checkRun, finishJob, machineWith, sramView, startJob, windowsOf, type EmulatorRun, type RunOptions,
} from './emulator-job.ts';

export { ModelRunError, type EmulatorRun, type RunOptions, type SequenceOutput } from './emulator-job.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The model program (firmware-c/model/model.c), built by `make -C firmware-c`. */
export const MODEL_ELF = join(root, 'build', 'fw', 'model.elf');
/** The single-matmul benchmark (firmware-c/model/mmbench.c). */
export const MMBENCH_ELF = join(root, 'build', 'fw', 'mmbench.elf');

/** A firmware build the host needs is not there: a bad program (164), one line saying how to build it. */
export function firmwareMissing(elf: string): ElfError {
  return new ElfError(`${elf} is missing: build the firmware with \`make -C firmware-c\``);
}

/** The program's bytes, or the one line saying how to build it. */
function readImage(elf: string): Uint8Array {
  try {
    return readFileSync(elf);
  } catch {
    throw firmwareMissing(elf);
  }
}

/** Runs a loaded machine to its stop, timing it: wall time and this process's CPU time. */
function timedRun(m: Machine, opts: RunOptions): { result: RunResult; wallMs: number; cpuMs: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = runObserved(m, opts.maxCycles ?? DEFAULT_MAX_CYCLES, opts.observers ?? []);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return { result, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * Runs `job` on the emulated board: the blob (buildBlob) at SRAM offset 0,
 * build/fw/model.elf, then reads GENERATED, OUT_TOKENS, LOGITS, STATUS and the
 * K/V caches back from the SRAM. Throws ModelRunError unless the program
 * exited with 0 and STATUS = 1.
 */
export function runOnEmulator(model: Model, job: Job, opts: RunOptions = {}): EmulatorRun {
  const started = startJob(model, job, () => readImage(opts.elfPath ?? MODEL_ELF), opts);
  const { result, wallMs, cpuMs } = timedRun(started.m, opts);
  return finishJob(started, result, wallMs, cpuMs);
}

export interface MatmulRun { result: RunResult; windows: CounterSnapshot[]; c: Uint8Array; wallMs: number; cpuMs: number }

/** One C = R(A·B) through build/fw/mmbench.elf (A, B deterministic, shift 4). */
const matmulFieldOffset = (name: string) => MATMUL_FIELDS.find((f) => f.name === name)!.offset;

/** mmbench.c's largest k (its header check). */
export const MATMUL_MAX_K = 1024;

/** Where mmbench's A, B and C go in the SRAM, and the end of C (bytes): sizes only, nothing allocated. */
export function matmulLayout(shape: { m: number; k: number; n: number }): { a: number; b: number; c: number; end: number } {
  const { m, k, n } = shape;
  const header = 64, a = header, b = a + Math.ceil((m * k) / 2 / 64) * 64, c = b + Math.ceil((k * n) / 2 / 64) * 64;
  return { a, b, c, end: c + (m * n) / 2 };
}

/** mmbench's job: its header and pseudo-random A and B at SRAM offset 0; C (the result) is bytes c..end. */
export function matmulJob(shape: { m: number; k: number; n: number }, variant: number): { blob: Uint8Array; c: number; end: number } {
  const { m, k, n } = shape;
  const { a, b, c, end } = matmulLayout(shape);
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
  const machine = machineWith(readImage(opts.elfPath ?? MMBENCH_ELF), blob, opts);
  const { result, wallMs, cpuMs } = timedRun(machine, opts);
  const sram = machine.sramBytes;
  checkRun('matmul run', result, sramView(sram).getUint32(off('STATUS'), true), machine.bus.console.capturedText());
  return { result, windows: windowsOf(result), c: sram.slice(c, end), wallMs, cpuMs };
}
