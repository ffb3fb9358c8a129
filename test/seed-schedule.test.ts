// The schedule model of the write-up's board (model/seed-schedule.ts): predicted run clocks
// of seed-model.elf against the emulator's, within SEED_RUN_BOUND_PCT, on jobs no
// calibration job ran (scripts/calibrate-seed-issue.ts counts its paths on other shapes):
// small shapes of every variant, the bench's prefill rows, one full inference and the
// trained adder, which stops at its END token. Busy clocks are exact, and the prefill
// window and the lower bound split where the firmware's prefill_done() splits the run.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job, Model, ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runOnSeed, SEED_VARIANT_ALL } from '../model/seed-run.ts';
import { predictSeedBusy } from '../model/seed-analytic.ts';
import { predictSeedRun, seedTerms, type SeedTerms } from '../model/seed-schedule.ts';
import { adderJob, loadAdder, randomProblem } from '../study/addition-run.ts';
import { SEED_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';

/** The bench's shape (study/bench.ts BASE_DIMS): the write-up's. */
const BASE: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 };
const errPct = (predicted: number, measured: number) => (100 * (predicted - measured)) / measured;

/** Runs the job, predicts it, holds busy exact and the run (and its prefill window) within the bound; returns the errors. */
function expectPredicted(model: Model, job: Job, variant: number): { run: number; prefill: number | null } {
  const r = runOnSeed(model, { ...job, variant }, { splitPrefill: true });
  const c = r.result.seedCounters!;
  const p = predictSeedRun(model.dims, model.layers, job.prompt.length, r.generated, variant);
  expect(p, 'no prediction').not.toBeNull();
  expect({ mxu: p!.mxu, vpu: p!.vpu, dma: p!.dma }).toEqual({ mxu: c.mxu, vpu: c.vpu, dma: c.dma });
  expect(p!.lowerBound, "the busy tally's lower bound").toBe(predictSeedBusy(model.dims, model.layers, job.prompt.length, r.generated, variant).lowerBound);
  const run = errPct(p!.runClocks, c.run);
  expect(Math.abs(run), `run ${c.run}, predicted ${p!.runClocks}`).toBeLessThanOrEqual(SEED_RUN_BOUND_PCT);
  if (!r.windows.length) {
    expect(p!.lowerBound).toBe(Math.max(c.mxu, c.vpu, c.dma));
    return { run, prefill: null };
  }
  const w = r.windows[0], pre = p!.phases[0];
  expect({ mxu: pre.mxu, vpu: pre.vpu, dma: pre.dma }).toEqual({ mxu: w.mxuBusy, vpu: w.vpuBusy, dma: w.dmaBusy });
  expect(pre.lowerBound).toBe(Math.max(w.mxuBusy, w.vpuBusy, w.dmaBusy));
  expect(p!.phases[1].runClocks + pre.runClocks).toBe(p!.runClocks);
  const prefill = errPct(pre.runClocks, w.cycles);
  expect(Math.abs(prefill), `prefill ${w.cycles}, predicted ${pre.runClocks}`).toBeLessThanOrEqual(SEED_RUN_BOUND_PCT);
  return { run, prefill };
}

describe('seed schedule: predicted run clocks within the bound', () => {
  const narrow: ModelDims = { d: 64, dFF: 256, heads: 4, layers: 2, vocab: 16, maxSeq: 64 };
  for (let variant = 0; variant <= SEED_VARIANT_ALL; variant++) {
    it(`variant ${variant}: d 64, 4 heads, prompt 23 + 3 decode steps (a shape no calibration job ran)`, () => {
      expectPredicted(randomModel(narrow, 50 + variant), { prompt: randomPrompt(narrow, 23, 50 + variant), decodeSteps: 3, variant, stopToken: 255 }, variant);
    });
  }

  for (const variant of [0, 1, 3, 7]) {
    it(`the bench's prefill (64 tokens, 4 layers), variant ${variant}`, () => {
      expectPredicted(randomModel(BASE, 1), { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 0, variant }, variant);
    });
  }

  it("the bench's full inference, double-buffered: 64 + 64", () => {
    expectPredicted(randomModel(BASE, 1), { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 64, variant: 1 }, 1);
  }, 60_000);

  const ADDER = join(import.meta.dirname, '..', 'models', 'adder.ptm');
  it.skipIf(!existsSync(ADDER))('the trained adder (models/adder.ptm), fused: decoding stops at END', () => {
    const job = adderJob(randomProblem(3), 3);
    expectPredicted(loadAdder(ADDER), job, 3);
  }, 60_000);
});

describe('seed schedule: what it does not predict, and a check that can fail', () => {
  it('a shape load_header refuses (T = 256 in one layer: the scores outgrow a bank) predicts nothing', () => {
    const t256: ModelDims = { ...BASE, layers: 1, maxSeq: 256 };
    expect(predictSeedRun(t256, randomModel(t256, 1).layers, 256, 1, 3)).toBeNull();
  });

  it('a path no calibration job took predicts nothing', () => {
    const t = seedTerms();
    const without: SeedTerms = { paths: new Map([...t.paths].filter(([k]) => !k.startsWith('flash.'))), polls: t.polls };
    expect(predictSeedRun(BASE, randomModel(BASE, 1).layers, 64, 1, 7, without)).toBeNull();
    expect(predictSeedRun(BASE, randomModel(BASE, 1).layers, 64, 1, 3, without)).not.toBeNull();
  });

  it('a wrong table misses: the poll loop at half its period, the CPU paths 10 % faster', () => {
    const model = randomModel(BASE, 1);
    const measured = runOnSeed(model, { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 0, variant: 0 }).result.seedCounters!.run;
    const t = seedTerms();
    const fastPolls: SeedTerms = { paths: t.paths, polls: new Map([...t.polls].map(([k, v]) => [k, v / 2])) };
    const fastCpu: SeedTerms = { paths: new Map([...t.paths].map(([k, p]) => [k, { clocks: 0.9 * p.clocks, perCount: p.perCount.map((x) => 0.9 * x) }])), polls: t.polls };
    for (const wrong of [fastPolls, fastCpu]) {
      const p = predictSeedRun(BASE, model.layers, 64, 1, 0, wrong)!;
      expect(Math.abs(errPct(p.runClocks, measured))).toBeGreaterThan(SEED_RUN_BOUND_PCT);
    }
  });
});
