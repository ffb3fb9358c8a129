// The predictor pushes the firmware's commands, in the firmware's order: model/predict/model-program.ts's
// transcription of model.c against model.elf's trace (model/predict/command-order.ts), on small jobs that
// take every flow — the tiled ladder, the panel/stream flows, batched decode, LONG_CONTEXT's row
// blocks and the sequencer's recorded and replayed decode — and issue-cost.ts's transcription of
// mmbench's kernels (tiled, panel, stream; the 16×16-MXU and 32 KiB builds) on small shapes, and
// tp-program.ts's transcription of model_tp.c on 1, 2 and 4 boards. A firmware change the transcription
// does not follow fails here, before the calibration (scripts/calibrate-model-issue.ts) would.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { VARIANT, type ModelDims } from '../model/format.ts';
import {
  firmwareMatmulOrder, firmwareOrder, firmwareTpOrder, orderDifferences, predictorMatmulOrder, predictorOrder, predictorTpOrder, type OrderJob,
} from '../model/predict/command-order.ts';
import { matmulProgramKind } from '../model/predict/issue-cost.ts';
import { MXU16_ELFS, SPAD32_ELFS } from '../study/sweep/runs.ts';
import { LONG_CONTEXT_NEEDS } from '../model/predict/model-program.ts';
import { SEQUENCER_SET } from '../study/bench.ts';

const SMALL: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 };
const LADDER = [0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095];

const check = (job: OrderJob, cfg = defaultConfig()) =>
  orderDifferences(predictorOrder(job, cfg), firmwareOrder(job, cfg), `variant ${job.variant}, prompt ${job.prompt} + ${job.steps}${job.batch ? `, batch ${job.batch}` : ''}`);

describe("the predictor's command order is model.elf's", () => {
  it('on the variant ladder (d 32, one layer, prompt 9 + 2 steps)', () => {
    for (const variant of LADDER) expect(check({ dims: SMALL, prompt: 9, steps: 2, variant })).toEqual([]);
  });

  it('on batched decode (batch 3) and two layers', () => {
    for (const variant of [0, 15, 4095]) {
      expect(check({ dims: SMALL, prompt: 4, steps: 1, batch: 3, variant })).toEqual([]);
      expect(check({ dims: { ...SMALL, layers: 2 }, prompt: 5, steps: 1, variant })).toEqual([]);
    }
  });

  it("on LONG_CONTEXT's row blocks (prompt 70: two blocks, the last of 6 rows)", () => {
    const dims = { ...SMALL, maxSeq: 128 };
    for (const bits of [0, VARIANT.DOUBLE_BUFFER | VARIANT.LEAN]) {
      expect(check({ dims, prompt: 70, steps: 1, variant: LONG_CONTEXT_NEEDS | VARIANT.HEADS | bits })).toEqual([]);
    }
  });

  it("on the sequencer's recorded and replayed decode", () => {
    const cfg = defaultConfig();
    cfg.tpu.sequencer = SEQUENCER_SET.sequencer;
    cfg.tpu.seqListKiB = SEQUENCER_SET.seqListKiB;
    expect(check({ dims: SMALL, prompt: 6, steps: 3, variant: 4095 | VARIANT.SEQUENCER }, cfg)).toEqual([]);
  });

  it("on mmbench's kernels: tiled, panel and stream, and the tiled kernel of the 16×16-MXU and 32 KiB builds", () => {
    const kinds = new Set<string>();
    for (const [sh, variant] of [
      [{ m: 24, k: 64, n: 40 }, 0], [{ m: 24, k: 64, n: 40 }, 25], [{ m: 8, k: 512, n: 24 }, 9],
      [{ m: 4, k: 64, n: 136 }, VARIANT.PANEL | 25], [{ m: 16, k: 64, n: 136 }, VARIANT.STREAM | VARIANT.PANEL | 9],
    ] as const) {
      kinds.add(matmulProgramKind(sh, variant));
      expect(orderDifferences(predictorMatmulOrder(sh, variant), firmwareMatmulOrder(sh, variant), `${sh.m}x${sh.k}x${sh.n} variant ${variant}`)).toEqual([]);
    }
    expect([...kinds].sort()).toEqual(['panel', 'stream', 'tiled']);
    const mxu16 = defaultConfig(), spad32 = defaultConfig();
    mxu16.tpu.mxuDim = 16;
    spad32.tpu.spadKiB = 32;
    for (const [cfg, elf, sh] of [[mxu16, MXU16_ELFS.mmbench, { m: 24, k: 64, n: 48 }], [spad32, SPAD32_ELFS.mmbench, { m: 136, k: 512, n: 16 }]] as const) {
      expect(orderDifferences(predictorMatmulOrder(sh, 1, cfg), firmwareMatmulOrder(sh, 1, cfg, elf), `${elf} ${sh.m}x${sh.k}x${sh.n}`)).toEqual([]);
    }
  });

  it("on model_tp.elf's boards (1, 2 and 4 boards; d 64, one layer)", () => {
    const dims: ModelDims = { d: 64, dFF: 128, heads: 4, layers: 1, vocab: 16, maxSeq: 32 };
    for (const boards of [1, 2, 4]) for (const variant of [0, 31]) {
      const job = { dims, prompt: 6, steps: 1, variant }, predicted = predictorTpOrder(job, boards);
      firmwareTpOrder(job, boards).forEach((windows, b) => {
        expect(orderDifferences(predicted, windows, `variant ${variant}, ${boards} boards, board ${b}`)).toEqual([]);
      });
    }
  });

  it('tells another order from the firmware\'s: a variant\'s transcription against another variant\'s run', () => {
    const job = { dims: SMALL, prompt: 9, steps: 2, variant: VARIANT.DOUBLE_BUFFER };
    const other = orderDifferences(predictorOrder({ ...job, variant: 0 }), firmwareOrder(job), 'variant 0 against 1');
    expect(other.length).toBeGreaterThan(0);
    expect(orderDifferences([['DMA', 'MXU']], [['DMA', 'VPU']], 'x')).toEqual(['x, window 0: push 1 goes to VPU in the firmware, MXU in the model']);
    expect(orderDifferences([['DMA']], [['DMA', 'VPU']], 'x')).toEqual(['x, window 0: the model pushes 1 commands, the firmware 2']);
  });
});
