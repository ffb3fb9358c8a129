// The facts the firmware (C) and the host (the predictor, the sweeps, the
// calibration) share, written once: the kernels' buffer and chunk constants
// and the what-if builds. scripts/gen-regs.ts generates from this table
// firmware-c/include/kernel_constants.h and firmware-c/builds.mk, and
// test/regs.test.ts fails when either is stale; what each variant bit needs
// besides itself to act, which docs/model-format.md quotes (npm run gen:docs)
// and test/variant-needs.test.ts holds the firmware to.

import type { PlatformConfig } from '../emu/config.ts';
import { VARIANT } from './format.ts';

export interface KernelConstant {
  value: number;
  /** The C file(s) that use it and why it has this value. */
  doc: string;
  /** A build may set it with -D (an experiment): the header defines it only where unset. */
  overridable?: boolean;
}

/** The kernels' constants (firmware-c/kernels/, firmware-c/model/model.c), as the predictor transcribes them. */
export const KERNEL_CONSTANTS = {
  PANEL_CHUNK_BYTES: {
    value: 1024, overridable: true,
    doc: 'panel.c: bytes of B per DMA command (at most): a few tiles, so that the MXU\'s work on the last chunk (the drain) stays short',
  },
  PANEL_AHEAD_BUFFER: { value: 5, doc: 'panel.c: matmul_panel_ahead\'s buffer (region 8, clear of attention_decode\'s 0-7)' },
  STREAM_CHUNK_BYTES: {
    value: 2048, overridable: true,
    doc: 'panel.c, stream_ffn.c: bytes of B per stream chunk (at most): the MXU is as busy as the DMA in a stream, and larger chunks cost fewer commands',
  },
  STREAM_BUFFERS: { value: 7, doc: 'panel.c, stream_ffn.c: the ring of one-region B buffers of matmul_stream (regions 9-15)' },
  STREAM_AHEAD: { value: 2, doc: 'panel.c, stream_ffn.c: chunks loaded ahead of the one the MXU works on' },
  STREAM_MAX_ROWS: { value: 64, doc: 'panel.c matmul_stream_fits: the most rows one matmul_stream call takes (A in four regions)' },
  RELU_BLOCKS_MAX: { value: 8, doc: 'stream_ffn.c: the ReLU\'d hidden blocks FFN_ON_CHIP keeps in the scratchpad, at most' },
  LONG_BLOCK_ROWS: { value: 64, doc: 'model.c: LONG_CONTEXT\'s weight matmuls go by blocks of this many rows (the stream kernels\' most)' },
} as const satisfies Record<string, KernelConstant>;

export const PANEL_CHUNK_BYTES = KERNEL_CONSTANTS.PANEL_CHUNK_BYTES.value;
export const PANEL_AHEAD_BUFFER = KERNEL_CONSTANTS.PANEL_AHEAD_BUFFER.value;
export const STREAM_CHUNK_BYTES = KERNEL_CONSTANTS.STREAM_CHUNK_BYTES.value;
export const STREAM_BUFFERS = KERNEL_CONSTANTS.STREAM_BUFFERS.value;
export const STREAM_AHEAD = KERNEL_CONSTANTS.STREAM_AHEAD.value;
export const STREAM_MAX_ROWS = KERNEL_CONSTANTS.STREAM_MAX_ROWS.value;
export const RELU_BLOCKS_MAX = KERNEL_CONSTANTS.RELU_BLOCKS_MAX.value;
export const LONG_BLOCK_ROWS = KERNEL_CONSTANTS.LONG_BLOCK_ROWS.value;

/**
 * Tiles per B chunk (panel.c panel_chunk, matmul_stream_fits, stream_init): the largest power of two
 * whose K × `row4`-byte tiles fit `limit` bytes.
 */
export function chunkTiles(k: number, limit: number, row4: number): number {
  let chunk = 1;
  for (let bytes = k * row4; 2 * bytes <= limit; bytes *= 2) chunk *= 2;
  return chunk;
}

/** A what-if build of the one-board programs (build/fw/<program>-<name>.elf). */
export interface FirmwareBuild {
  name: string;
  /** What it is built for, in a sentence's words. */
  about: string;
  /** The Makefile variable builds.mk sets, and its value: the compiler flags that make this build. */
  makeVariable: string;
  flags: string;
  /** Whether a board needs this build: the kernels are compiled for one scratchpad plan, one MXU size and one ISA. */
  needed: (c: PlatformConfig) => boolean;
  /** Whether scripts/calibrate-issue.ts counts mmbench's terms on it (the rv32im mmbench is not calibrated). */
  matmulCalibrated: boolean;
}

/** The what-if builds (firmware-c/Makefile through builds.mk), in the calibration tables' order. */
export const FIRMWARE_BUILDS: readonly FirmwareBuild[] = [
  {
    name: 'rv32im', about: 'a core with the M extension (ENABLE_MUL or ENABLE_FAST_MUL)', makeVariable: 'MUL_ARCH',
    // -mno-div: ENABLE_MUL/ENABLE_FAST_MUL bring multiplies only; divides stay libgcc calls (ENABLE_DIV is another what-if).
    flags: '-march=rv32im -mabi=ilp32 -mno-div',
    needed: (c) => c.cpu.ENABLE_MUL || c.cpu.ENABLE_FAST_MUL, matmulCalibrated: false,
  },
  { name: 'mxu16', about: 'a 16×16 MXU (tpu.h TPU_MXU_DIM)', makeVariable: 'MXU16_FLAGS', flags: '-DTPU_MXU_DIM=16', needed: (c) => c.tpu.mxuDim === 16, matmulCalibrated: true },
  { name: 'spad32', about: 'a 32 KiB scratchpad (kernels.h SP_KIB)', makeVariable: 'SPAD32_FLAGS', flags: '-DSP_KIB=32', needed: (c) => c.tpu.spadKiB === 32, matmulCalibrated: true },
];

/** The ELF file name of `program` (model, mmbench) in a build ('' the as-built one). */
export const buildElfName = (program: string, build: string) => (build ? `${program}-${build}.elf` : `${program}.elf`);

/** The builds a board needs: none for the as-built firmware; more than one is a board no build serves. */
export const buildsNeeded = (c: PlatformConfig): FirmwareBuild[] => FIRMWARE_BUILDS.filter((b) => b.needed(c));

export type VariantBitName = keyof typeof VARIANT;

/**
 * What a variant bit needs besides itself to act (model.c's flows and the kernels' *_fits): without any
 * one of these, the firmware runs as if the bit were clear. The bits not named need nothing.
 */
export const VARIANT_NEEDS: Readonly<Partial<Record<VariantBitName, number>>> = {
  HEADS: VARIANT.PANEL,
  STREAM: VARIANT.PANEL,
  BLOCK_ATTN: VARIANT.PANEL | VARIANT.STREAM,
  CHAIN: VARIANT.PANEL,
  FFN_ON_CHIP: VARIANT.PANEL | VARIANT.STREAM,
  LONG_CONTEXT: VARIANT.PANEL | VARIANT.STREAM | VARIANT.FFN_ON_CHIP | VARIANT.TOKENS,
  SEQUENCER: VARIANT.PANEL | VARIANT.HEADS | VARIANT.STREAM | VARIANT.CHAIN,
};

/** A bit with everything it needs: the variant in which `bit` acts (where its shapes fit). */
export const withNeeds = (bit: VariantBitName) => VARIANT[bit] | (VARIANT_NEEDS[bit] ?? 0);

/** The names of the bits in a mask, in VARIANT's order: "PANEL, STREAM and TOKENS". */
export function bitNames(mask: number): string {
  const names = (Object.keys(VARIANT) as VariantBitName[]).filter((k) => mask & VARIANT[k]).sort((a, b) => VARIANT[a] - VARIANT[b]);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
