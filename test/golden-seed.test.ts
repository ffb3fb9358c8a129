// The seed board's golden model (model/golden-seed.ts, the seed's own
// arithmetic) equals picotpu's (model/golden.ts) on random models and on the
// trained adder: tokens, logits and KV caches. That is what lets one model
// blob serve both boards. A model the seed cannot compute exactly (a shift
// beyond 4 bits, a hardtanh bound other than 7 or 8) is refused with the reason.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readModel, type Job, type Model } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { runSeedGolden, seedIncompatibility, seedRq } from '../model/golden-seed.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { adderJob } from '../study/addition.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADDER = join(root, 'models', 'adder.ptm');

function expectSame(model: Model, job: Job): void {
  const a = runGolden(model, job), b = runSeedGolden(model, job);
  expect(b.tokens).toEqual(a.tokens);
  expect(b.logits).toEqual(a.logits);
  expect(b.kCache).toEqual(a.kCache);
  expect(b.vCache).toEqual(a.vCache);
}

describe('the seed arithmetic', () => {
  it('narrows as vpu.sv/mxu.sv do: round half up, no rounding term at n = 0, clip to lo..7', () => {
    expect(seedRq(23, 1, 2, -8)).toBe(6); // (23 + 2) >> 2
    expect(seedRq(-23, 1, 2, -8)).toBe(-6); // floor(-21 / 4)
    expect(seedRq(-22, 1, 2, -8)).toBe(-5); // -20 / 4
    expect(seedRq(9, 1, 0, -8)).toBe(7);
    expect(seedRq(-9, 1, 0, -8)).toBe(-8);
    expect(seedRq(-9, 1, 0, -7)).toBe(-7);
    expect(seedRq(5, 3, 1, -8)).toBe(7); // (15 + 1) >> 1 = 8, clipped
  });
});

describe('one model, both boards: the seed golden model equals runGolden', () => {
  const shapes = [
    { d: 16, dFF: 32, heads: 2, layers: 2, vocab: 16, maxSeq: 32 },
    { d: 32, dFF: 64, heads: 4, layers: 1, vocab: 8, maxSeq: 24 },
    { d: 24, dFF: 40, heads: 3, layers: 2, vocab: 16, maxSeq: 40 },
  ];
  for (const [i, dims] of shapes.entries()) {
    it(`random model ${i} (d ${dims.d}, d_ff ${dims.dFF}, ${dims.heads} heads, ${dims.layers} layers), three prompts`, () => {
      for (let s = 0; s < 3; s++) {
        const model = randomModel(dims, 100 + 10 * i + s);
        const P = 1 + ((s * 7 + i * 5) % 17);
        expectSame(model, { prompt: randomPrompt(dims, P, s + 1), decodeSteps: Math.min(6, dims.maxSeq - P), variant: 0 });
      }
    });
  }

  it.skipIf(!existsSync(ADDER))('the trained adder (models/adder.ptm) on two problems', () => {
    const adder = readModel(new Uint8Array(readFileSync(ADDER)));
    expect(seedIncompatibility(adder)).toBeNull();
    expectSame(adder, adderJob({ a: '1234', b: '5678' }));
    expectSame(adder, { ...adderJob({ a: '9999999999999999999999999999999', b: '1' }), decodeSteps: 5 });
  });

  it('refuses what the seed cannot compute, saying why', () => {
    const dims = { d: 16, dFF: 16, heads: 2, layers: 1, vocab: 8, maxSeq: 16 };
    const m = randomModel(dims, 1);
    m.layers[0].shifts.f2 = 16;
    expect(seedIncompatibility(m)).toMatch(/shift f2 = 16 .*0\.\.15/);
    m.layers[0].shifts.f2 = 4; m.layers[0].bound2 = 5;
    expect(() => runSeedGolden(m, { prompt: [1, 2], decodeSteps: 1, variant: 0 })).toThrow(/hardtanh bound 5/);
  });
});
