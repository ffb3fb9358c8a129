// Clocks per instruction on PicoRV32 with a memory that answers in the clock
// it is asked (the look-ahead interface on BRAM). Every number here was measured
// on picorv32.v under Verilator; test/rtl/ holds the programs and the measured
// clocks, and test/cpu-timing.test.ts holds the emulator to them.

import type { CpuFeatures } from './config.ts';
import type { TimingClass } from './isa.ts';

/** Clocks from reset release to the handshake of the first instruction fetch. */
export const FIRST_FETCH_CLOCK = 4;

/**
 * Clocks from an instruction's fetch handshake to its data handshake (loads and
 * stores): the clock at which a store becomes visible to a device.
 */
export const DATA_ACCESS_OFFSET = 2;

/**
 * rdcycle returns the clock count at this offset from its own fetch handshake
 * (the counter counts clocks since reset release).
 */
export const RDCYCLE_OFFSET = 2;

/** Base clocks of each timing class, before wait clocks and shift steps. */
export function classClocks(f: CpuFeatures): Record<TimingClass, number> {
  // A single-ported register file reads rs2 in an extra clock.
  const second = f.ENABLE_REGS_DUALPORT ? 0 : 1;
  return {
    alu: 3,
    alu2: 3 + second,
    shifti: f.BARREL_SHIFTER ? 3 : 4,
    shift: (f.BARREL_SHIFTER ? 3 : 4) + second,
    branch: 3 + second, // not taken; a taken branch adds TAKEN_BRANCH_EXTRA
    jal: 3,
    jalr: 6,
    load: 5,
    store: 5 + second,
    counter: 4,
    fence: 3 + second, // measured: PicoRV32 reads rs2 for it too
    trap: 0,
    mul: (f.ENABLE_FAST_MUL ? 6 : 40) + second,
    mulh: (f.ENABLE_FAST_MUL ? 6 : 72) + second,
    div: 40 + second,
  };
}

/** Extra clocks of a taken branch over a not-taken one. */
export const TAKEN_BRANCH_EXTRA = 2;

/**
 * Extra clocks of a shift by `n` without BARREL_SHIFTER: TWO_STAGE_SHIFT moves
 * four places per clock while at least four remain, then one place per clock.
 */
export function shiftSteps(n: number, f: CpuFeatures): number {
  return f.BARREL_SHIFTER ? 0 : (n >>> 2) + (n & 3);
}
