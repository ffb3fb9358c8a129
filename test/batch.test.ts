// Batched decode: B sequences decoded together, each weight tile loaded once
// per step for the whole batch. Each sequence must compute exactly what it
// computes alone (the golden model), and the analytic model must predict the
// busy clocks of the batched schedule exactly.

import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { predict } from '../model/analytic.ts';
import type { Job, ModelDims } from '../model/format.ts';
import { runGoldenBatch } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { MODEL_ELF, runOnEmulator } from '../model/run.ts';
import { defaultConfig } from '../emu/config.ts';
import { SPAD32_ELFS } from '../scripts/sweep/runs.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';

const DIMS: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 16 };
const model = randomModel(DIMS, 3);
const batchJob = (b: number, variant: number, steps = 3): Job => {
  const prompts = Array.from({ length: b }, (_, s) => randomPrompt(DIMS, 5, 10 + s));
  return { prompt: prompts[0], prompts, decodeSteps: steps, variant };
};

beforeAll(() => { if (!existsSync(MODEL_ELF) || !existsSync(SPAD32_ELFS.model)) buildFirmware(); });

describe('batched decode', () => {
  for (const variant of [0, 7, 15]) {
    for (const b of [2, 8, 9]) {
      it(`B = ${b}, variant ${variant}: every sequence = golden; busy clocks = analytic model`, () => {
        const job = batchJob(b, variant);
        const run = runOnEmulator(model, job);
        const golden = runGoldenBatch(model, job);
        expect(run.sequences.length).toBe(b);
        run.sequences.forEach((seq, s) => {
          expect(seq.tokens).toEqual(golden[s].tokens);
          expect(seq.logits.map((l) => Array.from(l))).toEqual(golden[s].logits.map((l) => Array.from(l)));
          for (let l = 0; l < DIMS.layers; l++) {
            expect(Buffer.from(seq.kCache[l]).equals(Buffer.from(golden[s].kCache[l]))).toBe(true);
            expect(Buffer.from(seq.vCache[l]).equals(Buffer.from(golden[s].vCache[l]))).toBe(true);
          }
        });
        const p = predict(DIMS, job).phases;
        expect(run.windows.length).toBe(2);
        run.windows.forEach((w, i) => {
          expect([w.mxuBusy, w.vpuBusy, w.dmaBusy]).toEqual([p[i].mxu, p[i].vpu, p[i].dma]);
        });
      });
    }
  }

  it('a batch of one is the single-prompt job, clock for clock', () => {
    const prompt = randomPrompt(DIMS, 5, 10);
    const single = runOnEmulator(model, { prompt, decodeSteps: 3, variant: 15 });
    const one = runOnEmulator(model, { prompt, prompts: [prompt], decodeSteps: 3, variant: 15 });
    expect(one.result.clocks).toBe(single.result.clocks);
    expect(one.tokens).toEqual(single.tokens);
  });

  it('per decode step, eight sequences cost far less than eight single ones; a ninth opens a new 8-row pass', () => {
    const decode = (b: number) => runOnEmulator(model, batchJob(b, 15)).windows[1];
    const [d1, d8, d9] = [decode(1), decode(8), decode(9)];
    // Weight tiles are loaded once per step and one 8-row MXU pass covers rows 1-8; only
    // the per-sequence parts (embedding, attention over its own cache) grow with B.
    expect(d8.mxuBusy).toBeLessThan(2 * d1.mxuBusy);
    expect(d8.dmaBusy).toBeLessThan(2.5 * d1.dmaBusy);
    expect(d9.mxuBusy - d8.mxuBusy).toBeGreaterThan(d1.mxuBusy / 2); // every weight matmul takes a second pass
  });

  it('rejects batches the firmware cannot hold', () => {
    expect(() => runOnEmulator(model, { ...batchJob(2, 0), prompts: [[1, 2], [3]] })).toThrow(/same length/);
    expect(() => runOnEmulator(model, batchJob(65, 0, 1))).toThrow(/1 to 64 sequences/);
  });
});

describe('the firmware built for a 32 KiB scratchpad (the what-if)', () => {
  const config = defaultConfig();
  config.tpu.spadKiB = 32;
  const dims: ModelDims = { d: 64, dFF: 128, heads: 2, layers: 1, vocab: 16, maxSeq: 48 };
  const m = randomModel(dims, 5);
  for (const variant of [0, 3, 7, 15]) {
    it(`variant ${variant}: tokens, logits and caches = golden; busy clocks = the analytic model's 32 KiB plan`, () => {
      const prompts = [randomPrompt(dims, 40, 1), randomPrompt(dims, 40, 2)];
      for (const job of [{ prompt: prompts[0], decodeSteps: 4, variant }, { prompt: prompts[0], prompts, decodeSteps: 4, variant }] as Job[]) {
        const run = runOnEmulator(m, job, { config, elfPath: SPAD32_ELFS.model });
        const golden = runGoldenBatch(m, job);
        run.sequences.forEach((seq, s) => {
          expect(seq.tokens).toEqual(golden[s].tokens.slice(0, seq.tokens.length));
          expect(seq.logits.map((l) => Array.from(l))).toEqual(golden[s].logits.slice(0, seq.logits.length).map((l) => Array.from(l)));
          expect(Buffer.from(seq.kCache[0]).equals(Buffer.from(golden[s].kCache[0]))).toBe(true);
        });
        const p = predict(dims, job, config).phases;
        run.windows.forEach((w, i) => expect([w.mxuBusy, w.vpuBusy, w.dmaBusy]).toEqual([p[i].mxu, p[i].vpu, p[i].dma]));
      }
    });
  }

  it('the 32 KiB plan costs more DMA than the 64 KiB one where A blocks no longer fit (40 rows of K = 512: 32 per 8 KiB block)', () => {
    const wide: ModelDims = { ...dims, dFF: 512 };
    const mw = randomModel(wide, 5);
    const job: Job = { prompt: randomPrompt(wide, 40, 1), decodeSteps: 0, variant: 3 };
    const small = runOnEmulator(mw, job, { config, elfPath: SPAD32_ELFS.model }).windows[0];
    const big = runOnEmulator(mw, job).windows[0];
    expect(small.dmaBusy).toBeGreaterThan(big.dmaBusy);
    expect(small.mxuBusy).toBe(big.mxuBusy);
  });
});
