// The MXU-size what-if (docs/hardware.md §5.5): the firmware built for a
// 16×16 MXU (build/fw/*-mxu16.elf, -DTPU_MXU_DIM=16) on a platform with
// mxuDim = 16 must compute exactly what the golden model computes, and the
// analytic model, with D taken from the config, must predict its busy clocks
// exactly. The as-built pair (8×8 firmware, 8×8 MXU) is covered elsewhere.

import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE_DIMS } from '../study/bench.ts';
import { defaultConfig } from '../emu/config.ts';
import { predict, predictMatmul } from '../model/predict/analytic.ts';
import { BEST_VARIANT, type Job, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { ModelRunError, runMatmulOnEmulator, runOnEmulator, type EmulatorRun } from '../model/run.ts';
import { MXU16_ELFS } from '../study/sweep/runs.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';
import { expectGolden, expectPredicted } from './helpers/model-checks.ts';

const mxu16 = () => {
  const c = defaultConfig();
  c.tpu.mxuDim = 16;
  return c;
};

const SMALL: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 48 };
const BENCH: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 1, vocab: 16, maxSeq: 128 };

function jobOf(dims: ModelDims, b: number, P: number, steps: number, variant: number): Job {
  const prompts = Array.from({ length: b }, (_, s) => randomPrompt(dims, P, 20 + s));
  return b > 1 ? { prompt: prompts[0], prompts, decodeSteps: steps, variant } : { prompt: prompts[0], decodeSteps: steps, variant };
}

const expectPredicted16 = (dims: ModelDims, run: EmulatorRun, job: Job) => expectPredicted(dims, run, job, mxu16());

beforeAll(() => { if (!existsSync(MXU16_ELFS.model) || !existsSync(MXU16_ELFS.mmbench)) buildFirmware(); });

describe('the 16×16 MXU build', () => {
  const small = randomModel(SMALL, 5);
  // Prompts shorter than a tile, one tile and a bit, and over two tiles; every variant of the ladder and LEAN.
  for (const variant of [0, 1, 3, 7, 15, 17]) {
    for (const P of [5, 16, 37]) {
      it(`variant ${variant}, prompt ${P}: tokens and logits = golden; busy clocks = analytic`, () => {
        const job = jobOf(SMALL, 1, P, 3, variant);
        const run = runOnEmulator(small, job, { config: mxu16(), elfPath: MXU16_ELFS.model });
        expectGolden(small, run, job);
        expectPredicted16(SMALL, run, job);
      });
    }
  }

  // The best variant's LONG_CONTEXT kernels step by TILE_ROW4 = 8 bytes a tile here: a prompt of several query blocks
  // (T = 256, d = 128) and one of a part-filled last block (250 rows, one head of 64).
  for (const [dims, P] of [[{ ...BENCH, maxSeq: 256 }, 256], [{ d: 64, dFF: 128, heads: 1, layers: 1, vocab: 16, maxSeq: 256 }, 250]] as const) {
    it(`the best variant, prompt ${P} (d ${dims.d}): tokens and logits = golden; busy clocks = analytic`, () => {
      const m = randomModel(dims, 1);
      const job = jobOf(dims, 1, P, 256 - P, BEST_VARIANT); // decode steps up to max_seq
      const run = runOnEmulator(m, job, { config: mxu16(), elfPath: MXU16_ELFS.model });
      expectGolden(m, run, job);
      expectPredicted16(dims, run, job);
    });
  }

  for (const b of [2, 9, 17]) {
    it(`batched decode, B = ${b}: every sequence = golden; busy clocks = analytic`, () => {
      const job = jobOf(SMALL, b, 6, 2, 15);
      const run = runOnEmulator(small, job, { config: mxu16(), elfPath: MXU16_ELFS.model });
      expectGolden(small, run, job);
      expectPredicted16(SMALL, run, job);
    });
  }

  it('the benchmark layer (d 128, d_ff 512, 4 heads): golden and analytic; the MXU works less than at 8×8, the DMA moves the same bytes', () => {
    const m = randomModel(BENCH, 2);
    const job = jobOf(BENCH, 1, 32, 2, 15);
    const run = runOnEmulator(m, job, { config: mxu16(), elfPath: MXU16_ELFS.model });
    expectGolden(m, run, job);
    expectPredicted16(BENCH, run, job);
    const base = runOnEmulator(m, job);
    const [pre16, pre8] = [run.windows[0], base.windows[0]];
    // 64×… tiles: a quarter of the tiles, each with a longer skew and write-back.
    expect(pre16.mxuBusy).toBeLessThan(pre8.mxuBusy / 2);
    // The DMA moves the same bytes (hardware.md §5.4: 1 clock a byte in, 2 out); 16-column tiles need no more commands,
    // so the 16×16 run's DMA busy is the 8×8 run's less a whole number of command setups (not a tolerance fitted to a run).
    const [p16, p8] = [predict(BENCH, job, mxu16()).phases[0], predict(BENCH, job).phases[0]];
    expect(pre8.dmaBusy).toBe(p8.dma);
    expect({ in: p16.bytesIn, out: p16.bytesOut }).toEqual({ in: p8.bytesIn, out: p8.bytesOut });
    const fewer = pre8.dmaBusy - pre16.dmaBusy, setup = defaultConfig().tpu.dmaSetup;
    expect(fewer).toBeGreaterThanOrEqual(0);
    expect(fewer % setup).toBe(0);
  });

  // The real dims (study/bench.ts BASE_DIMS: 4 layers, d 128), a 64-token prompt as the sweep runs it.
  for (const variant of [0, 15]) {
    it(`the real dims, variant ${variant}, prompt 64 + 2 steps: golden and analytic; MXU busy below the 8×8 run's`, () => {
      const m = randomModel(BASE_DIMS, 1);
      const job = jobOf(BASE_DIMS, 1, 64, 2, variant);
      const run = runOnEmulator(m, job, { config: mxu16(), elfPath: MXU16_ELFS.model });
      expectGolden(m, run, job);
      expectPredicted16(BASE_DIMS, run, job);
      const base = runOnEmulator(m, job);
      run.windows.forEach((w, i) => expect(w.mxuBusy, `window ${i}`).toBeLessThan(base.windows[i].mxuBusy));
    });
  }

  it('mmbench: single matmuls = the analytic model (M = 1, M = 64, ragged M)', () => {
    for (const [m, k, n] of [[1, 128, 128], [64, 128, 512], [13, 64, 48], [100, 512, 128]]) {
      for (const variant of [0, 1, 17]) {
        const r = runMatmulOnEmulator({ m, k, n }, variant, { config: mxu16(), elfPath: MXU16_ELFS.mmbench });
        const w = r.windows[0], p = predictMatmul({ m, k, n }, variant, mxu16());
        expect({ mxu: w.mxuBusy, vpu: w.vpuBusy, dma: w.dmaBusy }, `${m}x${k}x${n} v${variant}`).toEqual({ mxu: p.mxu, vpu: p.vpu, dma: p.dma });
      }
    }
  });

  it('the analytic model: one 16×16 MATMUL is setup + (ACCUMULATE ? 16 : 0) + K + 30 + 16', () => {
    // A 16×128×16 matmul is one tile: one MATMUL with K = 128.
    expect(predictMatmul({ m: 16, k: 128, n: 16 }, 0, mxu16()).mxu).toBe(2 + 128 + 30 + 16);
    expect(predictMatmul({ m: 8, k: 128, n: 8 }, 0).mxu).toBe(2 + 128 + 14 + 8);
    const c = mxu16();
    c.tpu.mxuDim = 32;
    expect(() => predictMatmul({ m: 16, k: 128, n: 16 }, 0, c)).toThrow(/8 or 16/);
  });

  it('on an 8×8 platform the 16×16 build refuses the job with one line; an MXU size not built is a config error', () => {
    const m = randomModel(SMALL, 5);
    const job = jobOf(SMALL, 1, 5, 1, 0);
    expect(() => runOnEmulator(m, job, { elfPath: MXU16_ELFS.model })).toThrow(ModelRunError);
    expect(() => runOnEmulator(m, job, { elfPath: MXU16_ELFS.model })).toThrow(/STATUS 2 \(bad header\): model: built for a 16x16 MXU; the TPU's CONFIG.ARRAY_DIM differs/);
    expect(() => runMatmulOnEmulator({ m: 16, k: 32, n: 16 }, 0, { elfPath: MXU16_ELFS.mmbench })).toThrow(/mmbench: built for a 16x16 MXU/);
    // On its own platform the same job runs.
    expect(runOnEmulator(m, job, { config: mxu16(), elfPath: MXU16_ELFS.model }).result.exit).toBe(0);
    // Dimensions the 8×8 build takes but 16-wide tiles cannot (docs/model-format.md §1).
    const odd = (dims: ModelDims) => () => runOnEmulator(randomModel(dims, 1), jobOf(dims, 1, 5, 1, 0), { config: mxu16(), elfPath: MXU16_ELFS.model });
    expect(odd({ ...SMALL, maxSeq: 40 })).toThrow(/bad max_seq \(not a multiple of the MXU tile\)/);
    expect(odd({ ...SMALL, d: 24, heads: 1 })).toThrow(/bad dimensions/);
    expect(odd({ ...SMALL, heads: 4 })).toThrow(/bad head count/);
    expect(runOnEmulator(randomModel({ ...SMALL, maxSeq: 40 }, 1), jobOf({ ...SMALL, maxSeq: 40 }, 1, 5, 1, 0)).result.exit).toBe(0);
    // An MXU size the platform does not have is refused by the config: one line, exit 165.
    const r = spawnSync(process.execPath, ['bin/picotpu.cjs', 'run', MXU16_ELFS.mmbench, '--set', 'mxuDim=12'], { encoding: 'utf8' });
    expect(r.status).toBe(165);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/mxuDim must be 8 \(as built\) or 16/);
  });
});
