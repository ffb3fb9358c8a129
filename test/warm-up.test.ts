// The picotpu board's warm-up (boards/picotpu/warm-up.ts) runs before the first
// board of every process is built, on a scratch board of the default
// configuration: it must end as it says, or every picotpu run would stop.

import { describe, expect, it } from 'vitest';
import { StopReason, TrapKind } from '../emu/cpu.ts';
import { runWarmUp, WARM_UP_ROUNDS } from '../boards/picotpu/warm-up.ts';

describe('the picotpu warm-up', () => {
  it('ends at its EBREAK with every unit\'s commands done and none dropped, as it does run an instruction at a time', () => {
    const { cpu, tpu, stop } = runWarmUp();
    expect(stop).toBe(StopReason.TRAP);
    expect(cpu.trapKind).toBe(TrapKind.EBREAK);
    expect(tpu.units.map((u) => u.done)).toEqual([WARM_UP_ROUNDS, WARM_UP_ROUNDS, WARM_UP_ROUNDS]);
    expect(tpu.errors).toEqual([]);
    // Each round closes a PERF_CTRL window.
    expect(tpu.windows).toHaveLength(WARM_UP_ROUNDS);
    // Run an instruction at a time, the CPU skips no poll iteration: the same clocks and instructions.
    const stepped = runWarmUp(true);
    expect([stepped.stop, stepped.cpu.cycle, stepped.cpu.instret]).toEqual([stop, cpu.cycle, cpu.instret]);
    expect(stepped.tpu.units.map((u) => u.done)).toEqual([WARM_UP_ROUNDS, WARM_UP_ROUNDS, WARM_UP_ROUNDS]);
  });
});
