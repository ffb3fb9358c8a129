// A sweep point on the write-up's board (transformer-tpu-int4, alias seed):
// the model job through its firmware (build/fw/seed-model.elf, run by
// model/seed-run.ts with its windows split at prefill_done()), next to
// model/seed-analytic.ts's busy clocks split the same way. The board's
// firmware has no platform knobs and decodes one sequence; which shapes it
// takes is model/seed-fit.ts's.

import type { PhasePrediction } from '../../model/analytic.ts';
import type { Job, Model, ModelDims } from '../../model/format.ts';
import { runGoldenBatch } from '../../model/golden.ts';
import { predictSeedBusy, type SeedLayerBounds } from '../../model/seed-analytic.ts';
import { runOnSeed, SEED_MODEL_ELF } from '../../model/seed-run.ts';
import type { CounterSnapshot } from '../../periph/counters.ts';
import type { MeasuredPhase, ModelPoint, RunRecord } from './runs.ts';

/** The firmware a seed point runs (the results' fingerprint covers it). */
export const SEED_SWEEP_ELFS: readonly string[] = [SEED_MODEL_ELF];

/**
 * What the firmware does after prefill_done() that a prefill-only run's one
 * window holds and a split run's prefill window does not: the two 4-byte
 * words of the run's end (GENERATED and STATUS, model.c main), each a spill of
 * 2·4 + 3 DMA clocks (docs/seed-board.md §5, DMA spill 2·bytes + 3).
 */
const DONE_WORDS_DMA = 2 * (2 * 4 + 3);

/** Why a predicted run is "-" on this board: the seed CPU's issue-cost model is not part of this build. */
export const SEED_RUN_UNPREDICTED = 'run clocks are not predicted on this board yet (its CPU issue-cost model is still to come): "-"';

const phase = (name: string, mxu: number, vpu: number, dma: number): PhasePrediction =>
  ({ name, mxu, vpu, dma, lowerBound: Math.max(mxu, vpu, dma), bytesIn: 0, bytesOut: 0, runClocks: null });

/**
 * The busy clocks of a seed job per window: one window "prefill" when the run
 * generated one token (its counters run pulse to DONE), else "prefill" (up to
 * prefill_done()) and "decode" (the rest). The bound of a window is its
 * busiest unit.
 */
export function predictSeedPhases(dims: ModelDims, bounds: SeedLayerBounds[], promptLength: number, generated: number, variant: number): PhasePrediction[] {
  const first = predictSeedBusy(dims, bounds, promptLength, 1, variant);
  if (generated <= 1) return [phase('prefill', first.mxu, first.vpu, first.dma)];
  const all = predictSeedBusy(dims, bounds, promptLength, generated, variant);
  const pre = phase('prefill', first.mxu, first.vpu, first.dma - DONE_WORDS_DMA);
  return [pre, phase('decode', all.mxu - pre.mxu, all.vpu - pre.vpu, all.dma - pre.dma)];
}

const measuredOf = (name: string, c: CounterSnapshot): MeasuredPhase =>
  ({ name, cycles: c.cycles, mxu: c.mxuBusy, vpu: c.vpuBusy, dma: c.dmaBusy, idle: c.idle, overlap: c.overlap });

/** Runs a model point's job on the seed board and predicts its windows; with `check`, compares its tokens with the golden model's. */
export function runSeedPoint(key: string, p: ModelPoint, model: Model, job: Job): RunRecord {
  if (p.config !== undefined) throw new Error('the transformer-tpu-int4 board runs as built: a point on it takes no platform override');
  const r = runOnSeed(model, job, { splitPrefill: true });
  const windows = r.windows.length ? r.windows : [r.result.counters];
  const names = ['prefill', 'decode'];
  const record: RunRecord = {
    key, point: p, measured: windows.map((c, i) => measuredOf(names[i], c)),
    predicted: predictSeedPhases(p.dims, model.layers, job.prompt.length, r.generated, job.variant),
    emulatedClocks: r.result.clocks, wallMs: r.wallMs,
  };
  if (p.check) record.tokensCorrect = JSON.stringify(runGoldenBatch(model, job)[0].tokens) === JSON.stringify(r.tokens);
  return record;
}
