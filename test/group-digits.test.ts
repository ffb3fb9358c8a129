// groupDigits (study/group-digits.ts) prints what Math.round(n).toLocaleString('en-US')
// prints, byte for byte, without loading Intl's number formatting.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupDigits } from '../study/group-digits.ts';

const intl = (n: number) => Math.round(n).toLocaleString('en-US');

describe('groupDigits', () => {
  it('matches toLocaleString on the edges: zero, signs, each group boundary, rounding, the exponent range, NaN and infinities', () => {
    const edges = [0, -0, 0.4, -0.4, 0.5, -0.5, 1.5, -1.5, 999, 1000, -1000, 999_999, 1_000_000, 16_650_046, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 60,
      1e20, 999_999_999_999_999_999_999, 1e21, -1e21, 1e300, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity];
    for (const n of edges) expect(groupDigits(n), String(n)).toBe(intl(n));
    expect(groupDigits(16_650_046)).toBe('16,650,046');
  });

  it('matches toLocaleString on random integers and doubles', () => {
    fc.assert(fc.property(fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.maxSafeInteger(), fc.double()), (n) => {
      expect(groupDigits(n)).toBe(intl(n));
    }), { seed: 0x5eed, numRuns: 5000 });
  });
});
