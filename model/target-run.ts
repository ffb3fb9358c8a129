// Runs a model job on a board's firmware (model/targets.ts): the one place
// that knows which host-side runner reads back which firmware's results.

import type { Job, Model } from './format.ts';
import type { EmulatorRun, RunOptions } from './emulator-job.ts';
import { MODEL_ELF, runOnEmulator } from './run.ts';
import { runOnSeed, SEED_MODEL_BOARD, SEED_MODEL_ELF } from './seed-run.ts';
import type { ModelTarget } from './targets.ts';

export interface TargetRunOptions extends RunOptions {
  /** Split a run whose board has one counter window into prefill and decode (PERF_CTRL windows need no split). */
  splitPrefill?: boolean;
}

interface Runner { elf: string; run(model: Model, job: Job, opts: TargetRunOptions): EmulatorRun }

const RUNNERS: Record<string, Runner> = {
  picotpu: { elf: MODEL_ELF, run: (model, job, opts) => runOnEmulator(model, job, opts) },
  [SEED_MODEL_BOARD]: { elf: SEED_MODEL_ELF, run: (model, job, opts) => runOnSeed(model, job, opts) },
};

function runnerOf(target: ModelTarget): Runner {
  const r = RUNNERS[target.board];
  if (!r) throw new Error(`internal: no runner for the ${target.board} board's model firmware`);
  return r;
}

/** The firmware file a target's runs load. */
export const targetElf = (target: ModelTarget): string => runnerOf(target).elf;

/** Runs `job` on the target's board and reads the results back; throws ModelRunError if the run fails. */
export const runOnTarget = (target: ModelTarget, model: Model, job: Job, opts: TargetRunOptions = {}): EmulatorRun =>
  runnerOf(target).run(model, job, opts);
