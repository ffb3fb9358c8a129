// Runs a model job (or one matmul) on the emulated machine: builds the blob,
// loads build/fw/model.elf (mmbench.elf) and the blob at SRAM offset 0,
// runs, and reads the results back from the SRAM.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { describeStop, Machine, type RunResult } from '../emu/machine.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { buildBlob, headerOffset, MATMUL_FIELDS, MATMUL_MAGIC, type Job, type Model } from './format.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MODEL_ELF = join(root, 'build', 'fw', 'model.elf');
export const MMBENCH_ELF = join(root, 'build', 'fw', 'mmbench.elf');

export interface RunOptions { reference?: boolean; config?: PlatformConfig; elfPath?: string; maxCycles?: number }

export interface EmulatorRun {
  tokens: number[]; logits: Int32Array[]; kCache: Uint8Array[]; vCache: Uint8Array[];
  status: number; result: RunResult; windows: CounterSnapshot[]; sram: Uint8Array; wallMs: number;
}

export class ModelRunError extends Error {
  constructor(message: string, readonly result: RunResult) { super(message); }
}

function runMachine(elf: string, blob: Uint8Array, opts: RunOptions): { m: Machine; result: RunResult; wallMs: number } {
  const m = new Machine(opts.config ?? defaultConfig(), { reference: opts.reference ?? false });
  m.loadElf(readFileSync(elf));
  m.loadSram(blob, 0);
  const t0 = performance.now();
  const result = m.run(opts.maxCycles ?? 2_000_000_000);
  return { m, result, wallMs: performance.now() - t0 };
}

const windowsOf = (r: RunResult): CounterSnapshot[] => (r as RunResult & { windows?: CounterSnapshot[] }).windows ?? [];

export function runOnEmulator(model: Model, job: Job, opts: RunOptions = {}): EmulatorRun {
  const { bytes, layout } = buildBlob(model, job);
  const { m, result, wallMs } = runMachine(opts.elfPath ?? MODEL_ELF, bytes, opts);
  const sram = m.bus.sram.bytes;
  const dv = new DataView(sram.buffer, sram.byteOffset, sram.byteLength);
  const status = dv.getUint32(headerOffset('STATUS'), true);
  if (result.reason !== 'exit' || result.exit !== 0 || status !== 1) {
    throw new ModelRunError(`model run failed: ${describeStop(result)}, status ${status}`, result);
  }
  const generated = dv.getUint32(headerOffset('GENERATED'), true);
  const { vocab, d } = model.dims;
  const tokens = Array.from(sram.subarray(layout.outTokens, layout.outTokens + generated));
  const logits = tokens.map((_, i) => {
    const row = new Int32Array(vocab);
    for (let j = 0; j < vocab; j++) row[j] = dv.getInt32(layout.logits + (i * vocab + j) * 4, true);
    return row;
  });
  const positions = job.prompt.length + generated - 1;
  const rows = (off: number) => sram.slice(off, off + (positions * d) / 2);
  return {
    tokens, logits, status, result, windows: windowsOf(result), sram: sram.slice(), wallMs,
    kCache: layout.layers.map((l) => rows(l.kCache)), vCache: layout.layers.map((l) => rows(l.vCache)),
  };
}

export interface MatmulRun { result: RunResult; windows: CounterSnapshot[]; c: Uint8Array; wallMs: number }

/** One C = R(A·B) through build/fw/mmbench.elf (A, B deterministic, shift 4). */
export function runMatmulOnEmulator(shape: { m: number; k: number; n: number }, variant: number, opts: RunOptions = {}): MatmulRun {
  const { m, k, n } = shape;
  const header = 64, a = header, b = a + Math.ceil((m * k) / 2 / 64) * 64, c = b + Math.ceil((k * n) / 2 / 64) * 64;
  const end = c + (m * n) / 2;
  const blob = new Uint8Array(end);
  const dv = new DataView(blob.buffer);
  const off = (name: string) => MATMUL_FIELDS.find((f) => f.name === name)!.offset;
  const put = (name: string, v: number) => dv.setUint32(off(name), v, true);
  put('MAGIC', MATMUL_MAGIC); put('M', m); put('K', k); put('N', n); put('VARIANT', variant); put('SHIFT', 4);
  put('A', a); put('B', b); put('C', c);
  let s = 12345;
  for (let i = a; i < c; i++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; blob[i] = s >>> 24; }
  const { m: machine, result, wallMs } = runMachine(opts.elfPath ?? MMBENCH_ELF, blob, opts);
  const sram = machine.bus.sram.bytes;
  const status = new DataView(sram.buffer, sram.byteOffset).getUint32(off('STATUS'), true);
  if (result.reason !== 'exit' || result.exit !== 0 || status !== 1) {
    throw new ModelRunError(`matmul run failed: ${describeStop(result)}, status ${status}`, result);
  }
  return { result, windows: windowsOf(result), c: sram.slice(c, end), wallMs };
}
