// The schedule model of the write-up's board (model/seed-schedule.ts): predicted run clocks
// of seed-model.elf against the emulator's, within SEED_RUN_BOUND_PCT, on jobs no
// calibration job ran (scripts/calibrate-seed-issue.ts counts its paths on other shapes):
// small shapes of every variant, the bench's prefill rows, one full inference and the
// trained adder, which stops at its END token; chained.c's flows (CHAINED's decode,
// PIPELINED's prefill, model/seed-ring.ts) within SEED_CHAINED_RUN_BOUND_PCT on d 64 and
// d 32 jobs and the bench's rows. Busy clocks are exact, and the prefill window and the
// lower bound split where the firmware's prefill_done() splits the run.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEED_BEST_VARIANT, SEED_VARIANT, type Job, type Model, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runOnSeed, SEED_VARIANT_ALL } from '../model/seed-run.ts';
import { predictSeedBusy } from '../model/seed-analytic.ts';
import { predictSeedRun, seedTerms, type SeedTerms } from '../model/seed-schedule.ts';
import { adderJob, loadAdder, randomProblem } from '../study/addition-run.ts';
import { SEED_EXPERIMENTS } from '../study/seed-bench.ts';
import { alignSeedTrace, traceSeedJob } from '../scripts/seed-issue-trace.ts';
import { SEED_CHAINED_RUN_BOUND_PCT, SEED_RUN_BOUND_PCT, SEED_STREAMED_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';

/** The bench's shape (study/bench.ts BASE_DIMS): the write-up's. */
const BASE: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 };
const errPct = (predicted: number, measured: number) => (100 * (predicted - measured)) / measured;

/** Runs the job, predicts it, holds busy exact and the run (and its prefill window) within the bound; returns the errors. */
function expectPredicted(model: Model, job: Job, variant: number, bound = SEED_RUN_BOUND_PCT): { run: number; prefill: number | null } {
  const r = runOnSeed(model, { ...job, variant }, { splitPrefill: true });
  const c = r.result.seedCounters!;
  const p = predictSeedRun(model.dims, model.layers, job.prompt.length, r.generated, variant, job.decodeSteps);
  expect(p, 'no prediction').not.toBeNull();
  expect({ mxu: p!.mxu, vpu: p!.vpu, dma: p!.dma }).toEqual({ mxu: c.mxu, vpu: c.vpu, dma: c.dma });
  expect(p!.lowerBound, "the busy tally's lower bound").toBe(predictSeedBusy(model.dims, model.layers, job.prompt.length, r.generated, variant).lowerBound);
  const run = errPct(p!.runClocks, c.run);
  expect(Math.abs(run), `run ${c.run}, predicted ${p!.runClocks}`).toBeLessThanOrEqual(bound);
  if (!r.windows.length) {
    expect(p!.lowerBound).toBe(Math.max(c.mxu, c.vpu, c.dma));
    return { run, prefill: null };
  }
  const w = r.windows[0], pre = p!.phases[0];
  expect({ mxu: pre.mxu, vpu: pre.vpu, dma: pre.dma }).toEqual({ mxu: w.mxuBusy, vpu: w.vpuBusy, dma: w.dmaBusy });
  expect(pre.lowerBound).toBe(Math.max(w.mxuBusy, w.vpuBusy, w.dmaBusy));
  expect(p!.phases[1].runClocks + pre.runClocks).toBe(p!.runClocks);
  const prefill = errPct(pre.runClocks, w.cycles);
  expect(Math.abs(prefill), `prefill ${w.cycles}, predicted ${pre.runClocks}`).toBeLessThanOrEqual(bound);
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

  for (const variant of [7, SEED_BEST_VARIANT]) {
    it(`the bench's T = 256 row (one layer, streamed prefill), variant ${variant}`, () => {
      // The best variant: CHAINED's chained_run refuses the shape (its scores' room) and returns to model.c.
      const t256: ModelDims = { ...BASE, layers: 1, maxSeq: 256 };
      expectPredicted(randomModel(t256, 1), { prompt: randomPrompt(t256, 256, 1), decodeSteps: 0, variant }, variant, SEED_STREAMED_RUN_BOUND_PCT);
    }, 30_000);
  }

  it("the bench's full inference, double-buffered: 64 + 64", () => {
    expectPredicted(randomModel(BASE, 1), { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 64, variant: 1 }, 1);
  }, 60_000);

  // chained.c's flows (model/seed-ring.ts): the pump's choices follow the units' schedule.
  const CHAINED_VARIANTS = [SEED_VARIANT.CHAINED, SEED_VARIANT.PIPELINED, SEED_VARIANT.CHAINED | SEED_VARIANT.PIPELINED, 7 | SEED_VARIANT.CHAINED, 7 | SEED_VARIANT.PIPELINED, SEED_BEST_VARIANT];
  const jobs: { dims: ModelDims; prompt: number; steps: number }[] = [
    { dims: narrow, prompt: 23, steps: 3 },
    { dims: narrow, prompt: 40, steps: 6 },
    { dims: { d: 32, dFF: 128, heads: 2, layers: 3, vocab: 16, maxSeq: 64 }, prompt: 17, steps: 5 },
    { dims: { d: 32, dFF: 128, heads: 2, layers: 3, vocab: 16, maxSeq: 64 }, prompt: 56, steps: 0 },
  ];
  for (const job of jobs) {
    for (const variant of CHAINED_VARIANTS) {
      it(`variant ${variant}: d ${job.dims.d}, ${job.dims.layers} layers, prompt ${job.prompt} + ${job.steps} decode steps (chained.c's stream)`, () => {
        const seed = 90 + variant + job.prompt;
        expectPredicted(randomModel(job.dims, seed), { prompt: randomPrompt(job.dims, job.prompt, seed), decodeSteps: job.steps, variant, stopToken: 255 }, variant, SEED_CHAINED_RUN_BOUND_PCT);
      });
    }
  }

  for (const variant of [7 | SEED_VARIANT.CHAINED, SEED_BEST_VARIANT]) {
    it(`the bench's prefill (64 tokens, 4 layers), variant ${variant}`, () => {
      expectPredicted(randomModel(BASE, 1), { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 0, variant }, variant, SEED_CHAINED_RUN_BOUND_PCT);
    });
    it(`the bench's full inference, variant ${variant}: 64 + 63`, () => {
      expectPredicted(randomModel(BASE, 1), { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 63, variant }, variant, SEED_CHAINED_RUN_BOUND_PCT);
    }, 60_000);
  }

  const ADDER = join(import.meta.dirname, '..', 'models', 'adder.ptm');
  it.skipIf(!existsSync(ADDER))('the trained adder (models/adder.ptm), fused: decoding stops at END', () => {
    const job = adderJob(randomProblem(3), 3);
    expectPredicted(loadAdder(ADDER), job, 3);
  }, 60_000);
});

describe("seed walk: model.c's commands and polls, in order", () => {
  const ALL_BITS = Object.values(SEED_VARIANT).reduce((a, b) => a | b, 0);
  // Against the reference models' trace: every commit store's unit, and the retired-count reads of each wait_until.
  const small: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 8, maxSeq: 32 };
  it('every variant (chained.c\'s flows included: the pump\'s choices read from the trace), a prompt of two row blocks and two decode steps, both bounds on each layer', () => {
    for (let variant = 0; variant <= ALL_BITS; variant++) {
      const model = randomModel(small, 60 + variant);
      model.layers[0].bound1 = 7; model.layers[1].bound2 = 8;
      const job: Job = { prompt: randomPrompt(small, 12, 60 + variant), decodeSteps: 2, variant, stopToken: 255 };
      expect(() => alignSeedTrace(model, 12, variant, traceSeedJob(model, job)), `variant ${variant}`).not.toThrow();
    }
  });

  it('a walk that leaves out a poll parts from the trace', () => {
    const model = randomModel(small, 60);
    const t = traceSeedJob(model, { prompt: randomPrompt(small, 12, 60), decodeSteps: 0, variant: 0 });
    // The first wait's reads (the header's DMA), all of them: the trace of a firmware that does not wait there.
    const first = t.trace.findIndex((a) => !a.commit), next = t.trace.findIndex((a, i) => i > first && a.commit);
    const withoutIt = { ...t, trace: [...t.trace.slice(0, first), ...t.trace.slice(next)] };
    expect(() => alignSeedTrace(model, 12, 0, withoutIt)).toThrow(/is not the trace's/);
  });
});

describe("seed schedule: every row of bench --board seed", () => {
  it('has a prediction (every variant bit, every plan: resident, streamed, pipelined, chained)', () => {
    const missing = SEED_EXPERIMENTS.filter((e) => predictSeedRun(e.dims, randomModel(e.dims, 1).layers, e.promptLength, e.decodeSteps + 1, e.variant, e.decodeSteps) === null);
    expect(missing.map((e) => e.name)).toEqual([]);
    expect(SEED_EXPERIMENTS.some((e) => (e.variant & SEED_VARIANT.CHAINED) !== 0 && e.decodeSteps > 0)).toBe(true);
    expect(SEED_EXPERIMENTS.some((e) => (e.variant & SEED_VARIANT.PIPELINED) !== 0 && e.decodeSteps === 0)).toBe(true);
  });
});

describe('seed schedule: what it does not predict, and a check that can fail', () => {
  it('a job load_header refuses (200 prompt rows with decode steps: the resident plan outgrows a bank, the streamed one has no decode) predicts nothing', () => {
    const t256: ModelDims = { ...BASE, layers: 1, maxSeq: 256 };
    expect(predictSeedRun(t256, randomModel(t256, 1).layers, 200, 3, 3, 2)).toBeNull();
    expect(predictSeedRun(t256, randomModel(t256, 1).layers, 200, 1, 3, 0)).not.toBeNull();
  });

  it('a path no calibration job took predicts nothing', () => {
    const t = seedTerms();
    const without: SeedTerms = { paths: new Map([...t.paths].filter(([k]) => !k.startsWith('flash.'))), polls: t.polls };
    expect(predictSeedRun(BASE, randomModel(BASE, 1).layers, 64, 1, 7, 0, without)).toBeNull();
    expect(predictSeedRun(BASE, randomModel(BASE, 1).layers, 64, 1, 3, 0, without)).not.toBeNull();
  });

  it("chained.c's paths are the table's too: without the pipelined prefill's, its jobs predict nothing", () => {
    const t = seedTerms();
    const without: SeedTerms = { paths: new Map([...t.paths].filter(([k]) => !/^pf[a-z0-9]*\./.test(k))), polls: t.polls };
    expect(predictSeedRun(BASE, randomModel(BASE, 1).layers, 64, 1, SEED_BEST_VARIANT, 0, without)).toBeNull();
    expect(predictSeedRun(BASE, randomModel(BASE, 1).layers, 64, 1, 7 | SEED_VARIANT.CHAINED, 0, without)).not.toBeNull();
  });

  it("a wrong table misses chained.c's flows: its paths (the pump's, the ring's consumer's) 10 % faster", () => {
    const model = randomModel(BASE, 1);
    const t = seedTerms();
    const ring = /^(wf|ci|rm|rmp|pkv|ds|fs|fse|c|ca|cah|cr|fc|fch|ec|cs|pf|pf0|pfs0|pfs|pfa|pfv|pr|cvpu)\./;
    const fast: SeedTerms = { paths: new Map([...t.paths].map(([k, p]) => [k, ring.test(k) ? { clocks: 0.9 * p.clocks, perCount: p.perCount.map((x) => 0.9 * x) } : p])), polls: t.polls };
    for (const steps of [0, 63]) {
      const r = runOnSeed(model, { prompt: randomPrompt(BASE, 64, 1), decodeSteps: steps, variant: SEED_BEST_VARIANT });
      const right = predictSeedRun(BASE, model.layers, 64, r.generated, SEED_BEST_VARIANT, steps)!, wrong = predictSeedRun(BASE, model.layers, 64, r.generated, SEED_BEST_VARIANT, steps, fast)!;
      const measured = r.result.seedCounters!.run;
      expect(Math.abs(errPct(right.runClocks, measured)), `${steps} decode steps`).toBeLessThanOrEqual(SEED_CHAINED_RUN_BOUND_PCT);
      expect(Math.abs(errPct(wrong.runClocks, measured)), `${steps} decode steps`).toBeGreaterThan(SEED_CHAINED_RUN_BOUND_PCT);
    }
  }, 60_000);

  it('a wrong table misses: the poll loop at half its period, the CPU paths 10 % faster', () => {
    const model = randomModel(BASE, 1);
    const measured = runOnSeed(model, { prompt: randomPrompt(BASE, 64, 1), decodeSteps: 0, variant: 0 }).result.seedCounters!.run;
    const t = seedTerms();
    const fastPolls: SeedTerms = { paths: t.paths, polls: new Map([...t.polls].map(([k, v]) => [k, v / 2])) };
    const fastCpu: SeedTerms = { paths: new Map([...t.paths].map(([k, p]) => [k, { clocks: 0.9 * p.clocks, perCount: p.perCount.map((x) => 0.9 * x) }])), polls: t.polls };
    for (const wrong of [fastPolls, fastCpu]) {
      const p = predictSeedRun(BASE, model.layers, 64, 1, 0, 0, wrong)!;
      expect(Math.abs(errPct(p.runClocks, measured))).toBeGreaterThan(SEED_RUN_BOUND_PCT);
    }
  });
});
