// The analytic busy clocks of the seed firmware (model/seed-analytic.ts, from
// the seed's timing rules in docs/seed-board.md §5) equal the seed's measured
// mxu, vpu and dma counters exactly, for every variant of the ladder, at the
// write-up's shape: d 128, d_ff 512, 4 heads, 4 layers, a 64-token prompt and
// decode steps against the KV cache (all 64 of them for the full ladder's top);
// the chained decode and the pipelined prefill also on small shapes, and when
// a stop token ends the decode (its prefetch of the next step is then part of
// the count); the streamed prefill (T = 256) too.

import { describe, expect, it } from 'vitest';
import { runGolden } from '../model/golden.ts';
import { SEED_BEST_VARIANT, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { predictSeedBusy, streamedPrefill } from '../model/seed-analytic.ts';
import { runOnSeed, SEED_VARIANT, seedVariantName } from '../model/seed-run.ts';

const WRITE_UP = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 };

function expectPredicted(variant: number, decodeSteps: number, seed: number): void {
  const model = randomModel(WRITE_UP, seed);
  const r = runOnSeed(model, { prompt: randomPrompt(WRITE_UP, 64, seed), decodeSteps, variant });
  const c = r.result.seedCounters!;
  const p = predictSeedBusy(WRITE_UP, model.layers, 64, r.generated, variant);
  expect({ mxu: c.mxu, vpu: c.vpu, dma: c.dma }).toEqual({ mxu: p.mxu, vpu: p.vpu, dma: p.dma });
}

/** The write-up's bits (0-7), the chained decode and the pipelined prefill alone, and every bit. */
const VARIANTS = [0, 1, 2, 3, 4, 5, 6, 7, SEED_VARIANT.CHAINED, SEED_VARIANT.PIPELINED, SEED_BEST_VARIANT];

describe('seed kernels: measured busy = analytic busy at the write-up\'s shape', () => {
  for (const variant of VARIANTS) {
    it(`variant ${variant} (${seedVariantName(variant)}): prefill of 64 and 2 decode steps`, () => expectPredicted(variant, 2, 40 + variant));
  }
  it('the best rung: prefill of 64 and all 64 decode steps', () => expectPredicted(SEED_BEST_VARIANT, 64, 99), 60_000);
});

describe('the chained decode and the pipelined prefill: measured busy = analytic busy on small shapes, with and without a stop token', () => {
  const SMALL: { dims: ModelDims; prompt: number; steps: number }[] = [
    { dims: { d: 16, dFF: 32, heads: 2, layers: 2, vocab: 16, maxSeq: 32 }, prompt: 11, steps: 5 },
    { dims: { d: 24, dFF: 16, heads: 3, layers: 1, vocab: 8, maxSeq: 16 }, prompt: 1, steps: 6 },
    { dims: { d: 32, dFF: 64, heads: 4, layers: 1, vocab: 16, maxSeq: 24 }, prompt: 8, steps: 4 },
  ];
  for (const variant of [SEED_VARIANT.CHAINED, SEED_VARIANT.PIPELINED, SEED_BEST_VARIANT]) {
    it(`variant ${variant} (${seedVariantName(variant)})`, () => {
      SMALL.forEach(({ dims, prompt, steps }, i) => {
        const model = randomModel(dims, 50 + i);
        const job = { prompt: randomPrompt(dims, prompt, i), decodeSteps: steps, variant };
        // The stop token: the golden model's third token, so the run stops after two decode steps.
        for (const stopToken of [undefined, runGolden(model, job).tokens[2]]) {
          const r = runOnSeed(model, { ...job, stopToken });
          const c = r.result.seedCounters!;
          const p = predictSeedBusy(dims, model.layers, prompt, r.generated, variant, steps);
          expect({ mxu: c.mxu, vpu: c.vpu, dma: c.dma }, `shape ${i}, stop ${stopToken}`).toEqual({ mxu: p.mxu, vpu: p.vpu, dma: p.dma });
        }
      });
    });
  }
});

describe('the streamed prefill: measured busy = analytic busy', () => {
  const cases: { dims: ModelDims; prompt: number; variants: number[] }[] = [
    // The write-up's T = 256 row: one layer, standard attention and FlashAttention.
    { dims: { d: 128, dFF: 512, heads: 4, layers: 1, vocab: 16, maxSeq: 256 }, prompt: 256, variants: [3, 7] },
    { dims: { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 200 }, prompt: 150, variants: [0, 1, 2, 4, SEED_BEST_VARIANT] },
  ];
  for (const { dims, prompt, variants } of cases) {
    it(`d ${dims.d}, ${dims.layers} layer(s), a ${prompt}-token prompt: variants ${variants.join(', ')}`, () => {
      expect(streamedPrefill(dims, prompt, 0)).toBe(true);
      for (const variant of variants) {
        const model = randomModel(dims, 7 + variant);
        const r = runOnSeed(model, { prompt: randomPrompt(dims, prompt, variant), decodeSteps: 0, variant });
        const c = r.result.seedCounters!;
        const p = predictSeedBusy(dims, model.layers, prompt, r.generated, variant, 0);
        expect({ mxu: c.mxu, vpu: c.vpu, dma: c.dma }, `variant ${variant}`).toEqual({ mxu: p.mxu, vpu: p.vpu, dma: p.dma });
      }
    });
  }
});
