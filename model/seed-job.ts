// The write-up's board's model job without files or host timing (the
// playground's worker runs it as model/seed-run.ts does): the blob of
// model/format.ts with the output head transposed beside it (W_OUT_T, for the
// VPU's DOT logits) at SRAM offset 0, the machine with the program and blob
// loaded, the prefill mark at prefill_done(), and the results read back from
// the SRAM.

import { Machine, type BoardRunResult } from '../boards/machine.ts';
import { ElfError, parseElf } from '../emu/elf.ts';
import type { RunObserver } from '../emu/observe/observer.ts';
import type { StepInfo } from '../emu/stepper.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { SRAM_SIZE } from '../periph/sram.ts';
import { buildBlob, headerOffset, LayoutError, packInt4, transposedHead, type Job, type Layout, type Model } from './format.ts';
import { checkRun, sramView, type EmulatorRun, type RunOptions } from './emulator-job.ts';
import { seedIncompatibility } from './golden-seed.ts';

/** The board this firmware is built for (boards/registry.ts). */
export const SEED_MODEL_BOARD = 'transformer-tpu-int4';

const align64 = (n: number) => (n + 63) & ~63;

/** buildBlob's image with W_OUT_T appended (64-byte aligned) and BLOB_END after it. */
export function buildSeedBlob(model: Model, job: Job): { bytes: Uint8Array; layout: Layout } {
  const why = seedIncompatibility(model);
  if (why) throw new Error(`the seed board cannot compute this model exactly: ${why}`);
  const { bytes: base, layout } = buildBlob(model, job);
  const at = align64(base.length), end = at + (model.dims.vocab * model.dims.d) / 2;
  if (end > SRAM_SIZE) throw new LayoutError(`the model, its buffers and the transposed head need ${end} bytes of SRAM, more than the board's ${SRAM_SIZE}`);
  const bytes = new Uint8Array(end);
  bytes.set(base);
  packInt4(transposedHead(model), bytes, at);
  const dv = sramView(bytes);
  dv.setUint32(headerOffset('W_OUT_T'), at, true);
  dv.setUint32(headerOffset('BLOB_END'), end, true);
  return { bytes, layout };
}

/** A seed-board machine with the program and the job's blob loaded. */
export function seedMachineFor(model: Model, job: Job, opts: Pick<RunOptions, 'reference' | 'onMachine'>, image: Uint8Array): { m: Machine; layout: Layout } {
  const { bytes, layout } = buildSeedBlob(model, job);
  const m = new Machine(undefined, { board: SEED_MODEL_BOARD, reference: opts.reference ?? false });
  m.loadElf(image);
  m.loadSram(bytes, 0);
  opts.onMachine?.(m);
  return { m, layout };
}

/** Tokens, logits and caches of a finished run, read back from the SRAM (as model/emulator-job.ts does for picotpu). */
export function readSeedBack(m: Machine, model: Model, job: Job, layout: Layout, result: BoardRunResult, wallMs: number, cpuMs: number): SeedRun {
  const sram = m.sramBytes;
  const dv = sramView(sram);
  const status = dv.getUint32(headerOffset('STATUS'), true);
  checkRun('seed model run', result, status, '');
  const generated = dv.getUint32(headerOffset('GENERATED'), true);
  const { vocab, d } = model.dims;
  if (generated < 1 || generated > job.decodeSteps + 1) throw new Error(`seed model run: GENERATED is ${generated}, not 1..${job.decodeSteps + 1}`);
  const tokens = Array.from(sram.subarray(layout.outTokens, layout.outTokens + generated));
  const logits = tokens.map((_, i) => {
    const row = new Int32Array(vocab);
    for (let j = 0; j < vocab; j++) row[j] = dv.getInt32(layout.logits + (i * vocab + j) * 4, true);
    return row;
  });
  const bytes = ((job.prompt.length + generated - 1) * d) / 2;
  const kCache = layout.layers.map((l) => sram.slice(l.kCache, l.kCache + bytes));
  const vCache = layout.layers.map((l) => sram.slice(l.vCache, l.vCache + bytes));
  const copy = sram.slice();
  return {
    tokens, logits, kCache, vCache, status, result, windows: [], sramBytes: copy, sram: copy, wallMs, cpuMs, generated,
    sequences: [{ tokens, logits, kCache, vCache }],
  };
}

/**
 * A run on the write-up's board: its result carries the board's ten counters
 * (result.seedCounters); with `splitPrefill`, `windows` are the prefill (the
 * counters as they stood at the firmware's prefill_done()) and the rest of the
 * run (decode), whose sum is the whole run pulse..DONE window.
 */
export interface SeedRun extends EmulatorRun { result: BoardRunResult }

/** Watches for the firmware's prefill_done() and takes the board's counters (PLATFORM.md §7 shape) as they are there. */
export class PrefillMark implements RunObserver {
  counters: CounterSnapshot | null = null;
  constructor(private readonly addr: number) {}
  step(info: StepInfo, m: Machine): void {
    if (this.counters || info.pc !== this.addr) return;
    this.counters = m.devices.wholeRun(info.clockBefore);
  }
  finish(): void {}
}

/** The address of the firmware's prefill_done() (where a run's prefill counters are taken). */
export function prefillAddress(image: Uint8Array): number {
  const sym = parseElf(image).symbols.lookup('prefill_done');
  if (!sym) throw new ElfError('the seed model program has no prefill_done symbol: rebuild it with `make -C firmware-c`');
  return sym.addr;
}
