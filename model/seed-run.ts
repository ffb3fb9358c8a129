// Runs a model job on the write-up's board (transformer-tpu-int4, alias seed): the blob of
// model/format.ts with the output head transposed beside it (W_OUT_T, for the
// VPU's DOT logits) at SRAM offset 0, build/fw/seed-model.elf
// (firmware-c/seed-model/model.c) in the 16 KB firmware RAM, one run from the
// run pulse to DONE, and the results read back from the SRAM. The numbers are
// model/golden-seed.ts's (= model/golden.ts's for every model the seed can
// compute).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withFigures, type BoardRunResult, type Machine } from '../boards/machine.ts';
import { StopReason } from '../emu/cpu.ts';
import { DEFAULT_MAX_CYCLES } from '../emu/machine.ts';
import { runObserved } from '../emu/observe/observer.ts';
import { subtractCounters, type CounterSnapshot } from '../periph/counters.ts';
import type { Job, Model } from './format.ts';
import type { RunOptions } from './emulator-job.ts';
import { firmwareMissing } from './run.ts';
import { PrefillMark, prefillAddress, readSeedBack, seedMachineFor as seedMachineWith, type SeedRun } from './seed-job.ts';

export { SEED_VARIANT, SEED_VARIANT_ALL, seedVariantName, transposedHead } from './format.ts';
// The job's halves without files (the playground's worker runs them): model/seed-job.ts.
export { buildSeedBlob, PrefillMark, prefillAddress, readSeedBack, SEED_MODEL_BOARD, type SeedRun } from './seed-job.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The transformer for the seed board, built by `make -C firmware-c`. */
export const SEED_MODEL_ELF = join(root, 'build', 'fw', 'seed-model.elf');

/** A seed-board machine with the program (build/fw/seed-model.elf, or opts.elfPath, or `image`) and the job's blob loaded. */
export function seedMachineFor(model: Model, job: Job, opts: RunOptions = {}, image?: Uint8Array): ReturnType<typeof seedMachineWith> {
  return seedMachineWith(model, job, opts, image ?? readImage(opts.elfPath ?? SEED_MODEL_ELF));
}

function readImage(elf: string): Uint8Array {
  try {
    return readFileSync(elf);
  } catch {
    throw firmwareMissing(elf);
  }
}

/**
 * Runs `job` on the seed board and reads GENERATED, OUT_TOKENS, LOGITS,
 * STATUS and the K/V caches back. The seed's ten counters (one window, run
 * pulse to DONE) are result.seedCounters. Throws ModelRunError unless DONE
 * got 0 and STATUS is 1.
 */
export function runOnSeed(model: Model, job: Job, opts: RunOptions & { splitPrefill?: boolean } = {}): SeedRun {
  const image = readImage(opts.elfPath ?? SEED_MODEL_ELF);
  const { m, layout } = seedMachineFor(model, job, { ...opts, elfPath: undefined }, image);
  const observers = opts.observers ?? [];
  const maxCycles = opts.maxCycles ?? DEFAULT_MAX_CYCLES;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let result: BoardRunResult, prefill: CounterSnapshot | null = null;
  if (!opts.splitPrefill) result = withFigures(runObserved(m, maxCycles, observers));
  else if (observers.length === 0) ({ result, prefill } = runToPrefill(m, prefillAddress(image), maxCycles));
  else {
    const mark = new PrefillMark(prefillAddress(image));
    result = withFigures(runObserved(m, maxCycles, [mark, ...observers]));
    prefill = mark.counters;
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const run = readSeedBack(m, model, job, layout, result, wallMs, (cpu.user + cpu.system) / 1000);
  if (prefill && run.tokens.length > 1) run.windows = [prefill, subtractCounters(result.counters, prefill)];
  return run;
}

/**
 * The free-running run with the prefill's counters taken on the way, as the stepped PrefillMark
 * takes them (after prefill_done()'s first instruction ran, the TPU brought to that
 * instruction's end as the Stepper does): the CPU stops at a breakpoint there
 * (Cpu.setBreakpoint), runs that one instruction, the counters are read, and the run goes on
 * at full speed.
 */
function runToPrefill(m: Machine, addr: number, maxCycles: number): { result: BoardRunResult; prefill: CounterSnapshot | null } {
  m.cpu.setBreakpoint(addr);
  let reason = m.advance(maxCycles);
  let prefill: CounterSnapshot | null = null;
  if (reason === StopReason.BREAK) {
    const launch = m.cpu.cycle;
    m.cpu.setBreakpoint(-1);
    reason = m.runCpu(maxCycles, 1);
    prefill = m.devices.wholeRun(reason === StopReason.LIMIT ? m.cpu.cycle : launch);
    if (reason === StopReason.LIMIT) reason = m.advance(maxCycles);
  }
  m.cpu.setBreakpoint(-1);
  return { result: withFigures(m.finishRun(reason)), prefill };
}
