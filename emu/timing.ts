// Clocks per instruction on PicoRV32 with a memory that answers in the clock
// it is asked (the look-ahead interface on BRAM). Every number here was measured
// on picorv32.v under Verilator; test/rtl/ holds the programs and the measured
// clocks, and test/cpu-timing.test.ts holds the emulator to them.

import type { CpuFeatures } from './config.ts';
import type { TimingClass } from './isa.ts';

// The clock of an instruction is the clock at which PicoRV32 launches it
// (launch_next_insn: decode done, execution starts); clock 0 is the first
// rising edge at which resetn is sampled high. An instruction's clocks (CPI)
// run from its launch to the next launch.

/** Launch clock of the first instruction (its fetch handshake is one clock earlier). */
export const FIRST_LAUNCH_CLOCK = 3;

/**
 * Clocks from an instruction's launch to its data handshake (loads and
 * stores) when the target answers at once; a slower target adds its wait
 * clocks. This is the clock at which a store becomes visible to a device.
 */
export const DATA_ACCESS_OFFSET = 4;

/** A store's data handshake: one clock later with a single-ported register file (rs2 is read first). */
export function storeAccessOffset(f: CpuFeatures): number {
  return DATA_ACCESS_OFFSET + (f.ENABLE_REGS_DUALPORT ? 0 : 1);
}

/** rdcycle returns the clock count of its own launch clock + 1. */
export const RDCYCLE_OFFSET = 1;

/** rdinstret returns the instructions launched so far, itself included: retired + 1. */
export const RDINSTRET_OFFSET = 1;

/**
 * Clocks from a trapping instruction's launch to the clock `trap` goes high.
 * With a PCPI unit present (any of ENABLE_MUL, ENABLE_FAST_MUL, ENABLE_DIV) an
 * illegal instruction is first offered to PCPI, which times out after 16 clocks.
 */
export function trapClocks(kind: 'illegal' | 'ebreak' | 'misaligned-load' | 'misaligned-store' | 'misaligned-jal' | 'misaligned-branch' | 'misaligned-jalr', f: CpuFeatures): number {
  const second = f.ENABLE_REGS_DUALPORT ? 0 : 1;
  const pcpi = f.ENABLE_MUL || f.ENABLE_FAST_MUL || f.ENABLE_DIV;
  switch (kind) {
    case 'illegal': return pcpi ? 20 + second : 3;
    // Measured: one more only when a PCPI unit and a single read port come together.
    case 'ebreak': return pcpi ? 3 + second : 3;
    case 'misaligned-load': return 5;
    case 'misaligned-store': return 5 + second;
    case 'misaligned-jal': return 4;
    case 'misaligned-branch': return 6 + second;
    case 'misaligned-jalr': return 6;
  }
}

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
 * COMPRESSED_ISA: a 32-bit instruction at a halfword address straddles two
 * words and costs one clock more, charged to the instruction before it (whose
 * prefetch it is): PicoRV32 takes its low half from the 16-bit buffer
 * (prefetched_high_word) but fetches the second word only once the core asks
 * for the instruction (mem_la_use_prefetched_high_word needs mem_do_rinst), so
 * the prefetch ends one clock later, and with it a load's or store's data
 * handshake. The same holds for the target of a jump or taken branch (the
 * buffer is cleared by the branch, the word is fetched, then the second), and
 * a taken branch also pays for a straddling fall-through, which it prefetched
 * before the branch resolved. Jumps do not prefetch their fall-through.
 */
export const STRADDLE_EXTRA = 1;

/**
 * Extra clocks of a shift by `n` without BARREL_SHIFTER: TWO_STAGE_SHIFT moves
 * four places per clock while at least four remain, then one place per clock.
 */
export function shiftSteps(n: number, f: CpuFeatures): number {
  return f.BARREL_SHIFTER ? 0 : (n >>> 2) + (n & 3);
}

// ---------------------------------------------------------------------------
// The seed board's CPU bus (memInterface 'axi-lite'): picorv32_axi
// (picorv32 + picorv32_axi_adapter) in front of the seed's cpu_subsys
// AXI4-Lite slave, which answers every fetch and data access: one
// outstanding transaction, one clock of read latency (rd_wait), bvalid the
// clock after aw_got && w_got. Measured on that RTL (test/rtl/seed/): every
// bus transaction of the native interface's timeline ends AXI_TRANSACTION_EXTRA
// clocks later (AR/AW in the clock mem_valid is first seen, rvalid/bvalid one
// clock after, the native handshake one clock after that), and one that the
// core issues in the clock the previous one completes (a straddling jump
// target's second word) waits AXI_CHAINED_EXTRA more, because the adapter
// clears its ack flags only the clock after xfer_done. A compressed
// instruction in the upper half of a word the core already holds
// (prefetched_high_word) needs no transaction and costs what it costs on the
// native interface.

/** Clocks each bus transaction adds over the native interface's zero-wait BRAM. */
export const AXI_TRANSACTION_EXTRA = 2;

/**
 * A taken branch to a halfword target whose fall-through is word-aligned, and
 * whose fall-through word's upper half has low bits 11, fetches the target's
 * word(s) twice on the AXI bus (measured on the seed's RTL; the native
 * interface never shows it). Derived from picorv32.v: the fall-through
 * prefetch is still outstanding when the branch moves next_pc to the target,
 * so when it completes mem_la_firstword (next_pc[1]) already holds and
 * mem_rdata_latched shows that upper half; its low bits 11 read as the start
 * of a 32-bit instruction, mem_done stays low and the fetch machinery runs
 * again for the target. On the native interface the prefetch completes
 * before next_pc moves. Each word fetched again costs a whole transaction,
 * its wait and its turnaround.
 */
export const AXI_REFETCH_PER_WORD = 4;

/**
 * An instruction whose next word is prefetched during its execution (no data
 * access, next instruction word-aligned) takes the longer of its native clocks
 * and the fetch: classClocks.alu + AXI_TRANSACTION_EXTRA (rdcycle and fast mul
 * are then no slower than an add). Every other transaction adds in series.
 */

/** Clocks a transaction issued in the same clock the previous one completes adds on top. */
export const AXI_CHAINED_EXTRA = 1;

/**
 * Clocks from the bus's view of a data access (the native handshake clock) back
 * to the edge at which the seed's slave acts on it: a store is performed
 * (bvalid set; a commit pushes its command), a read samples its data (rvalid
 * set). The native handshake follows one clock later.
 */
export const AXI_SLAVE_ACT_OFFSET = 1;

/** A read through the seed's scratchpad window (a[31:28] = 9) waits one clock more: rd_wait 1 → 2 → rvalid. */
export const SEED_WINDOW_READ_EXTRA = 1;
