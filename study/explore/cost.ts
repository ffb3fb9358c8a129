// An estimate of what a configuration costs on the Cmod A7's FPGA, the
// XC7A35T: 36-Kb block RAM tiles, DSP48E1 slices and LUTs, and one number to
// rank designs by — the mean of the three shares of the device (so a smaller
// scratchpad and a smaller array both count). It is an estimate, counted the way
// docs/hardware.md §9 says — not a synthesis result.

import type { Knobs } from './grid.ts';

/** The XC7A35T's resources (Xilinx DS180). */
export const XC7A35T = { bram36: 50, dsp48: 90, luts: 20_800 } as const;

/** Bytes of data a 36-Kb tile holds as a byte-wide memory (4096 × 9, the ninth bit unused). */
const BRAM_TILE_BYTES = 4096;
/** The program BRAM: 64 KiB (docs/hardware.md §2). */
const PROGRAM_BRAM_KIB = 64;
/** A PE built from LUTs when the DSPs run out: a 4×4-bit multiplier (about 16) and its accumulator adder (about 24). */
const LUTS_PER_LUT_PE = 40;
/** PicoRV32 with the dual-port register file and the two-stage shifter (its README's "regular" core, rounded up). */
const CPU_LUTS = 1_800;
/** The single-cycle barrel shifter: a 32-bit, 5-level shifter. */
const BARREL_SHIFTER_LUTS = 200;
/** picorv32_pcpi_mul: a shift-add multiplier in LUTs. */
const PCPI_MUL_LUTS = 250;
/** picorv32_pcpi_fast_mul: one 33×33 multiply, four DSP48E1, and its glue. */
const PCPI_FAST_MUL = { dsp: 4, luts: 100 };
/** The TPU's control, DMA, VPU, register block and the MXU's operand and accumulator registers at 8×8. */
const TPU_BASE_LUTS = 4_000;
/** One queued command: ARG0–ARG5 and the PUSH word, 7 × 32 bits, in distributed RAM (one LUT holds 64 × 1 bit). */
const COMMAND_BITS = 7 * 32;
const UNIT_QUEUES = 3;

export interface FpgaCost {
  bram36: number; dsp48: number; luts: number;
  /** MXU processing elements (mxuDim²). */
  pes: number;
  /** The mean of the three shares of the XC7A35T, 0..1 (the Pareto front's cost axis). */
  share: number;
  /** Every resource within the device. */
  fits: boolean;
}

/** The estimate for one point's knobs. */
export function fpgaCost(k: Knobs): FpgaCost {
  const spadKiB = k.spadKiB as number, dim = k.mxuDim as number, depth = k.queueDepth as number;
  // One tile per 4 KiB scratchpad region (a region is one tile, so region ports are tile ports) and per 4 KiB of program BRAM.
  const bram36 = Math.ceil((spadKiB * 1024) / BRAM_TILE_BYTES) + Math.ceil((PROGRAM_BRAM_KIB * 1024) / BRAM_TILE_BYTES);
  const pes = dim * dim;
  const cpuDsp = k.multiply === 'fast' ? PCPI_FAST_MUL.dsp : 0;
  // One PE per DSP48E1 while they last (an int4 MAC in a DSP's pre-adder and multiplier); the rest in LUTs.
  const peDsp = Math.min(pes, XC7A35T.dsp48 - cpuDsp);
  const dsp48 = peDsp + cpuDsp;
  const queueLuts = UNIT_QUEUES * Math.ceil(depth / 64) * COMMAND_BITS;
  const luts = CPU_LUTS + (k.barrelShifter ? BARREL_SHIFTER_LUTS : 0) + (k.multiply === 'mul' ? PCPI_MUL_LUTS : 0) + (k.multiply === 'fast' ? PCPI_FAST_MUL.luts : 0)
    + TPU_BASE_LUTS * (dim / 8) + (pes - peDsp) * LUTS_PER_LUT_PE + queueLuts;
  const shares = [bram36 / XC7A35T.bram36, dsp48 / XC7A35T.dsp48, luts / XC7A35T.luts];
  return { bram36, dsp48, luts, pes, share: (shares[0] + shares[1] + shares[2]) / 3, fits: shares.every((s) => s <= 1) };
}
