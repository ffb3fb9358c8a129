// The schedule model (model/issue-cost.ts, model/schedule.ts) against the
// emulator: mmbench.elf on --matmul shapes nobody picked (M, K, N multiples
// of 8 up to 512, every one fits the SRAM) and variants drawn at random,
// seeded (the seed is printed; PICOTPU_SEED repeats a draw), must run within
// 5 % of the predicted run clocks. Also the libgcc cost formulas against
// their instruction counts.

import { describe, expect, it } from 'vitest';
import { matmulProgramKind, mulsi3Clocks, predictMatmulRun, udivsi3Clocks } from '../model/issue-cost.ts';
import { POLL_LOOP_CLOCKS, Schedule } from '../model/schedule.ts';
import { mulberry32 } from '../model/random.ts';
import { runMatmulOnEmulator } from '../model/run.ts';
import { predictionError } from '../study/bench.ts';

const DRAWS = 8;
/** The largest error the model may make on a random shape (issue #16). */
const TOLERANCE_PCT = 5;

describe('schedule model', () => {
  it('runs commands back to back, holds tokens, stalls a PUSH on a full queue and polls in 15-clock steps', () => {
    // Every path costs 1 clock; queues of 2 (hardware.md §5.3: start at push + 1 or the predecessor's end + 1).
    const s = new Schedule(2);
    const path = { issue: 1, firstRead: 1, afterRead: 1 };
    s.push(0, 10, path); // pushed at 1, runs 2..11
    const second = s.push(0, 10, path); // pushed at 2, runs 12..21
    s.push(1, 5, path, second); // pushed at 3, its token holds it to 22..26
    s.push(0, 10, path); // pushed at 4, runs 22..31
    s.push(0, 10, path); // two wait: acknowledged at 13 (DMA #2 started at 12), runs 32..41
    s.push(0, 10, path); // acknowledged at 23, runs 42..51
    s.drain(1); // the CPU polls for the MXU command (ended at 26): reads at 23 + 2 = 25, 40 (sees it)
    const r = s.finish({ issue: 0, firstRead: 2, afterRead: 3 });
    expect(r.runClocks).toBe(25 + POLL_LOOP_CLOCKS + 3);
    expect(r.stallClocks).toBe((13 - 5) + (23 - 14));
  });

  it('libgcc multiply and divide cost what their instructions cost (hardware.md §1.2)', () => {
    // __mulsi3: call + li + mv + ret = 15; per multiplier bit and/beqz/[add]/srli/slli/bnez.
    expect(mulsi3Clocks(0)).toBe(15 + (3 + 5 + 5 + 5 + 3));
    expect(mulsi3Clocks(6)).toBe(15 + (3 + 5 + 5 + 5 + 5) + (3 + 3 + 3 + 5 + 5 + 5) + (3 + 3 + 3 + 5 + 5 + 3));
    // __udivsi3(8, 2): entry 18, two doublings 18 + 16, li 3, quotient bits 1, 0, 0: 24 + 20 + 18, ret 6, jal 3.
    expect(udivsi3Clocks(8, 2)).toBe(18 + 18 + 16 + 3 + 24 + 20 + 18 + 6 + 3);
  });
});

describe('predicted run clocks of random --matmul shapes', () => {
  // A fixed default so CI is repeatable; PICOTPU_SEED draws others (docs/study.md §8).
  const seed = Number(process.env.PICOTPU_SEED ?? 20261204);
  const rnd = mulberry32(seed);
  // Half the draws small (M ≤ 64: the panel and stream kernels take them), half anywhere up to 512.
  const dim = (most = 64) => 8 * (1 + Math.floor(rnd() * most));
  it(`stay within ${TOLERANCE_PCT} % of the measured run (seed ${seed})`, () => {
    console.log(`issue-cost: random shapes, seed ${seed} (PICOTPU_SEED=${seed} repeats them)`);
    let worst = 0;
    for (let i = 0; i < DRAWS; i++) {
      const shape = { m: i % 2 ? dim(8) : dim(), k: dim(), n: dim() };
      const variant = Math.floor(rnd() * 1024);
      const measured = runMatmulOnEmulator(shape, variant).windows[0].cycles;
      const predicted = predictMatmulRun(shape, variant)!;
      const err = predictionError(predicted, measured);
      console.log(`  ${shape.m}x${shape.k}x${shape.n} variant ${variant} (${matmulProgramKind(shape, variant)}): run ${measured}, predicted ${predicted} (${err.toFixed(2)} %)`);
      worst = Math.max(worst, Math.abs(err));
      expect(Math.abs(err), `${shape.m}x${shape.k}x${shape.n} variant ${variant}`).toBeLessThan(TOLERANCE_PCT);
    }
    console.log(`  largest error ${worst.toFixed(2)} %`);
  });
});
