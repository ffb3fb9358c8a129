// One int4 matmul on the write-up's board for the seed roofline:
// build/fw/seed/mmbench.elf (firmware-c/seed/mmbench.c) with A, B and C
// row-major in the SRAM after its header, C checked against the seed's
// arithmetic (model/golden-seed.ts seedRq), and its busy clocks counted from
// the firmware's commands and the seed's timing rules (docs/seed-board.md §5:
// DMA fill one clock a byte, spill 2·bytes + 3; MXU MM K + 25).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Machine, withFigures } from '../../boards/machine.ts';
import { DEFAULT_MAX_CYCLES } from '../../emu/machine.ts';
import { runObserved } from '../../emu/observe/observer.ts';
import type { PhasePrediction } from '../../model/predict/analytic.ts';
import { packInt4, unpackInt4 } from '../../model/format.ts';
import { seedRq } from '../../model/golden-seed.ts';
import { mulberry32 } from '../../model/random.ts';
import { firmwareMissing } from '../../model/run.ts';
import { SEED_MODEL_BOARD } from '../../model/seed-job.ts';
import { SEED_MODEL_ELF } from '../../model/seed-run.ts';
import type { CounterSnapshot } from '../../periph/counters.ts';
import { SRAM_SIZE } from '../../periph/sram.ts';

/** The seed board's matmul benchmark, built by `make -C firmware-c` beside the transformer (build/fw/seed/). */
export const SEED_MMBENCH_ELF = join(dirname(SEED_MODEL_ELF), 'seed', 'mmbench.elf');

/** mmbench.c's header words, in order (its enum H_*). */
const HEADER = ['m', 'k', 'n', 'variant', 'a', 'b', 'c', 'shift'] as const;
/** mmbench.c's scratchpad rooms: A's row block, C's row block, one weight panel. */
const ROOM = { a: 0x8000, c: 0x4000, panel: 0x1000 } as const;
/** The VARIANT bits mmbench.c acts on: double buffering. */
export const SEED_MMBENCH_VARIANTS = 1;
/** The requant shift of C (clocks do not depend on it). */
const SHIFT = 6;

const align64 = (n: number) => (n + 63) & ~63;

export interface SeedMatmulShape { m: number; k: number; n: number }

/** Where the header, A, B and C sit in the SRAM, and where they end. */
function layoutOf({ m, k, n }: SeedMatmulShape): { a: number; b: number; c: number; end: number } {
  const a = 64, b = align64(a + (m * k) / 2), c = align64(b + (k * n) / 2);
  return { a, b, c, end: c + (m * n) / 2 };
}

/** Why mmbench.c refuses a shape (DONE 1) or its operands do not fit the SRAM, or null. */
export function seedMatmulMisfit(s: SeedMatmulShape): string | null {
  const { m, k, n } = s;
  if (m < 8 || m % 8 || k % 8 || n % 8 || k < 8 || n < 8) return `M, K and N must be multiples of 8 (the seed MXU's tile), got ${m}x${k}x${n}`;
  if (4 * k > ROOM.panel) return `a weight panel of K = ${k} rows (${4 * k} bytes) exceeds its ${ROOM.panel}-byte bank`;
  if (4 * k > ROOM.a || 4 * n > ROOM.c) return `an 8-row block of A or C exceeds its room in the scratchpad`;
  const { end } = layoutOf(s);
  if (end > SRAM_SIZE) return `a ${m}x${k}x${n} matmul's operands need ${end} bytes of SRAM, more than the board's ${SRAM_SIZE}`;
  return null;
}

/** mmbench.c's rows per block: the most whole 8-row groups whose A and C fit their rooms. */
function rowsPerBlock({ m, k, n }: SeedMatmulShape): number {
  let rb = 0;
  while (rb < m && ((rb + 8) * k) / 2 <= ROOM.a && ((rb + 8) * n) / 2 <= ROOM.c) rb += 8;
  return rb;
}

/** Busy clocks, the bound (the busiest unit) and the bytes the DMA moves, from mmbench.c's commands. */
export function predictSeedMatmul(s: SeedMatmulShape): PhasePrediction {
  const { m, k, n } = s, rb = rowsPerBlock(s);
  let mxu = 0, dma = 4 * HEADER.length, bytesIn = 0, bytesOut = 0;
  for (let r0 = 0; r0 < m; r0 += rb) {
    const rows = Math.min(rb, m - r0);
    const a = (rows * k) / 2, panel = 4 * k, c = (rows * n) / 2;
    dma += a + (n / 8) * panel + 2 * c + 3;
    bytesIn += a + (n / 8) * panel;
    bytesOut += c;
    mxu += (n / 8) * (rows / 8) * (k + 25);
  }
  return { name: 'matmul', mxu, vpu: 0, dma, lowerBound: Math.max(mxu, dma), bytesIn, bytesOut, runClocks: null };
}

export interface SeedMatmulRun { counters: CounterSnapshot; clocks: number; correct: boolean; wallMs: number }

/** Runs one matmul on the seed board; throws when the firmware refuses it or ends otherwise than with DONE 0. */
export function runSeedMatmul(s: SeedMatmulShape, variant: number, seed = 1): SeedMatmulRun {
  const why = seedMatmulMisfit(s);
  if (why) throw new Error(`the seed board's mmbench cannot run ${s.m}x${s.k}x${s.n}: ${why}`);
  const { m, k, n } = s, rnd = mulberry32(seed);
  const int4 = (count: number) => Int8Array.from({ length: count }, () => Math.floor(rnd() * 15) - 7);
  const A = int4(m * k), B = int4(k * n);
  const at = layoutOf(s);
  const sram = new Uint8Array(at.end);
  const dv = new DataView(sram.buffer);
  const values: Record<(typeof HEADER)[number], number> = { m, k, n, variant, a: at.a, b: at.b, c: at.c, shift: SHIFT };
  HEADER.forEach((f, i) => dv.setUint32(4 * i, values[f], true));
  packInt4(A, sram, at.a);
  packInt4(B, sram, at.b);
  let image: Uint8Array;
  try { image = readFileSync(SEED_MMBENCH_ELF); } catch { throw firmwareMissing(SEED_MMBENCH_ELF); }
  const machine = new Machine(undefined, { board: SEED_MODEL_BOARD, reference: false });
  machine.loadElf(image);
  machine.loadSram(sram, 0);
  const t0 = performance.now();
  const result = withFigures(runObserved(machine, DEFAULT_MAX_CYCLES, []));
  const wallMs = performance.now() - t0;
  if (result.reason !== 'exit' || result.exit !== 0) throw new Error(`the seed board's mmbench ${m}x${k}x${n} stopped with ${result.reason} ${result.exit}`);
  const C = unpackInt4(machine.sramBytes, at.c, m * n);
  let correct = true;
  for (let r = 0; r < m && correct; r++) {
    for (let j = 0; j < n; j++) {
      let acc = 0;
      for (let i = 0; i < k; i++) acc += A[r * k + i] * B[i * n + j];
      if (C[r * n + j] !== seedRq(acc, 1, SHIFT, -8)) { correct = false; break; }
    }
  }
  return { counters: result.counters, clocks: result.clocks, correct, wallMs };
}
