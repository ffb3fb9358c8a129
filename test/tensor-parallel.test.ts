// The sharded golden check (model/tensor-parallel.ts): Megatron-style sharding
// over N boards with the ring AllReduce (reduce-scatter int32, requant +
// residual on the own chunk, all-gather int4) gives runGolden's tokens,
// logits and caches exactly, on the bench model and on random models.
import { describe, expect, it } from 'vitest';
import { runGolden } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { allReduceResidual, allReduceTraffic, runSharded, shardingError } from '../model/tensor-parallel.ts';
import { BASE_DIMS } from '../study/bench.ts';
import type { ModelDims } from '../model/format.ts';

function same(dims: ModelDims, seed: number, P: number, steps: number, boards: number) {
  const m = randomModel(dims, seed);
  const job = { prompt: randomPrompt(dims, P, seed + 1), decodeSteps: steps, variant: 0 };
  const g = runGolden(m, job), s = runSharded(m, job, boards);
  expect(s.tokens).toEqual(g.tokens);
  expect(s.logits).toEqual(g.logits);
  expect(s.kCache).toEqual(g.kCache);
  expect(s.vCache).toEqual(g.vCache);
}

describe('sharded golden model', () => {
  for (const n of [1, 2, 4]) {
    it(`equals runGolden on the bench model for N = ${n}`, () => same({ ...BASE_DIMS, maxSeq: 24 }, 1, 12, 6, n));
    it(`equals runGolden on random models for N = ${n}`, () => {
      for (const seed of [3, 7]) same({ d: 64, dFF: 128, heads: 8, layers: 2, vocab: 24, maxSeq: 16 }, seed, 5, 4, n);
    });
  }
  it('8 boards need 8 heads: the bench model has 4', () => {
    expect(shardingError(BASE_DIMS, 8)).toMatch(/4 heads do not split over 8 boards/);
    expect(shardingError(BASE_DIMS, 4)).toBeNull();
    same({ d: 64, dFF: 128, heads: 8, layers: 1, vocab: 16, maxSeq: 8 }, 5, 4, 2, 8);
  });
  it('the AllReduce sums with int32 wrap-around (a wrong sum fails)', () => {
    const big = 0x7fffffff;
    const x = new Int8Array(4);
    allReduceResidual([Int32Array.of(big, 0, 0, 0), Int32Array.of(2, 0, 0, 0)], x, 28, 8);
    // (2^31 − 1) + 2 wraps to −2^31 + 1: R(·, 28) = −8, not +7.
    expect(x[0]).toBe(-8);
  });
  it('counts the bytes one board sends: (N−1) int32 chunks and (N−1) int4 chunks', () => {
    expect(allReduceTraffic(128, 1, 4, 16)).toEqual({ messages: 6, bytes: 3 * (32 * 4 + 16) });
    expect(allReduceTraffic(128, 64, 2, 16)).toEqual({ messages: 8, bytes: 64 * (64 * 4 + 32) });
    expect(allReduceTraffic(128, 5, 1, 16)).toEqual({ messages: 0, bytes: 0 });
  });
});
