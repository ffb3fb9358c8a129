// The analytic busy clocks of the seed firmware (model/seed-analytic.ts, from
// the seed's timing rules in docs/seed-board.md §5) equal the seed's measured
// mxu, vpu and dma counters exactly, for every variant of the ladder, at the
// write-up's shape: d 128, d_ff 512, 4 heads, 4 layers, a 64-token prompt and
// decode steps against the KV cache (all 64 of them for the full ladder's top).

import { describe, expect, it } from 'vitest';
import { randomModel, randomPrompt } from '../model/random.ts';
import { predictSeedBusy } from '../model/seed-analytic.ts';
import { runOnSeed, SEED_VARIANT_ALL, seedVariantName } from '../model/seed-run.ts';

const WRITE_UP = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 };

function expectPredicted(variant: number, decodeSteps: number, seed: number): void {
  const model = randomModel(WRITE_UP, seed);
  const r = runOnSeed(model, { prompt: randomPrompt(WRITE_UP, 64, seed), decodeSteps, variant });
  const c = r.result.seedCounters!;
  const p = predictSeedBusy(WRITE_UP, model.layers, 64, r.generated, variant);
  expect({ mxu: c.mxu, vpu: c.vpu, dma: c.dma }).toEqual({ mxu: p.mxu, vpu: p.vpu, dma: p.dma });
}

describe('seed kernels: measured busy = analytic busy at the write-up\'s shape', () => {
  for (let variant = 0; variant <= SEED_VARIANT_ALL; variant++) {
    it(`variant ${variant} (${seedVariantName(variant)}): prefill of 64 and 2 decode steps`, () => expectPredicted(variant, 2, 40 + variant));
  }
  it('all variant bits: prefill of 64 and all 64 decode steps', () => expectPredicted(SEED_VARIANT_ALL, 64, 99), 60_000);
});
