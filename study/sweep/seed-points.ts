// A sweep point on the write-up's board (transformer-tpu-int4, alias seed):
// the model job through its firmware (build/fw/seed-model.elf, run by
// model/seed-run.ts with its windows split at prefill_done()), next to
// model/seed-schedule.ts's prediction of the same windows (run clocks, busy
// clocks, the bound) or, where that has no calibrated path, model/
// seed-analytic.ts's busy clocks and bound per window. The board's
// firmware has no platform knobs and decodes one sequence; which shapes it
// takes is model/seed-fit.ts's.

import type { PhasePrediction } from '../../model/predict/analytic.ts';
import type { Job, Model, ModelDims } from '../../model/format.ts';
import { runGoldenBatch } from '../../model/golden.ts';
import { SEED_DMA, SEED_MXU, SEED_VPU, walkSeedJob, type SeedLayerBounds, type SeedSink } from '../../model/seed-analytic.ts';
import { predictSeedRun } from '../../model/seed-schedule.ts';
import { runOnSeed, SEED_MODEL_ELF } from '../../model/seed-run.ts';
import type { CounterSnapshot } from '../../periph/counters.ts';
import type { MatmulPoint, MeasuredPhase, ModelPoint, RunRecord } from './runs.ts';
import { predictSeedMatmul, runSeedMatmul, SEED_MMBENCH_ELF, seedMatmulMisfit } from './seed-matmul.ts';

/** The firmware seed points run (the results' fingerprint covers them). */
export const SEED_SWEEP_ELFS: readonly string[] = [SEED_MODEL_ELF, SEED_MMBENCH_ELF];

/** Why a predicted run is "-" on this board. */
export const SEED_RUN_UNPREDICTED = 'the run-clock model (model/seed-schedule.ts) has no calibrated path for it';

const phase = (name: string, w: { mxu: number; vpu: number; dma: number; lowerBound: number }, runClocks: number | null): PhasePrediction =>
  ({ name, mxu: w.mxu, vpu: w.vpu, dma: w.dma, lowerBound: w.lowerBound, bytesIn: 0, bytesOut: 0, runClocks });

/**
 * The busy clocks and bounds per window when the run clocks are not
 * predicted: the walk of model/seed-analytic.ts cut at prefill_done(), each
 * window's bound the sum over its forward passes of the pass's busiest unit.
 */
class WindowTally implements SeedSink {
  readonly windows = [{ mxu: 0, vpu: 0, dma: 0, lowerBound: 0 }, { mxu: 0, vpu: 0, dma: 0, lowerBound: 0 }];
  private at = 0;
  private readonly passBusy = [0, 0, 0];
  pass(): void { this.closePass(); }
  command(unit: number, busy: number): void {
    this.passBusy[unit] += busy;
    const w = this.windows[this.at];
    if (unit === SEED_MXU) w.mxu += busy; else if (unit === SEED_VPU) w.vpu += busy; else if (unit === SEED_DMA) w.dma += busy;
  }
  wait(): void {}
  cpu(): void {}
  mark(what: 'prefill' | 'done'): void {
    this.closePass();
    if (what === 'prefill') this.at = 1;
  }
  private closePass(): void {
    this.windows[this.at].lowerBound += Math.max(...this.passBusy);
    this.passBusy.fill(0);
  }
}

/**
 * The prediction of a seed job per window: one window "prefill" when the run
 * generated one token (its counters run pulse to DONE), else "prefill" (up to
 * prefill_done()) and "decode" (the rest). Busy clocks and bounds always; run
 * clocks from model/seed-schedule.ts where it covers the job, else null.
 */
export function predictSeedPhases(dims: ModelDims, bounds: SeedLayerBounds[], promptLength: number, generated: number, variant: number): PhasePrediction[] {
  const run = predictSeedRun(dims, bounds, promptLength, generated, variant);
  if (run) return generated <= 1 ? [phase('prefill', run, run.runClocks)] : [phase('prefill', run.phases[0], run.phases[0].runClocks), phase('decode', run.phases[1], run.phases[1].runClocks)];
  const t = new WindowTally();
  walkSeedJob(dims, bounds, promptLength, generated, variant, t);
  if (generated > 1) return [phase('prefill', t.windows[0], null), phase('decode', t.windows[1], null)];
  const [a, b] = t.windows;
  return [phase('prefill', { mxu: a.mxu + b.mxu, vpu: a.vpu + b.vpu, dma: a.dma + b.dma, lowerBound: a.lowerBound + b.lowerBound }, null)];
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

/** Why a matmul point does not run on the seed board's mmbench, or null. */
export const seedMatmulPointMisfit = (p: MatmulPoint): string | null => seedMatmulMisfit(p);

/** Runs a matmul point on the seed board (build/fw/seed/mmbench.elf) and predicts its busy clocks; a C that is not the seed's arithmetic's fails the point. */
export function runSeedMatmulPoint(key: string, p: MatmulPoint): RunRecord {
  if (p.config !== undefined) throw new Error('the transformer-tpu-int4 board runs as built: a point on it takes no platform override');
  const r = runSeedMatmul(p, p.variant);
  if (!r.correct) throw new Error(`the seed board's ${p.m}x${p.k}x${p.n} matmul wrote a C other than the seed's arithmetic's`);
  return { key, point: p, measured: [measuredOf('matmul', r.counters)], predicted: [predictSeedMatmul(p)], emulatedClocks: r.clocks, wallMs: r.wallMs };
}
