// Batched decode: B sequences decoded together, each weight tile loaded once
// per step for the whole batch. Each sequence must compute exactly what it
// computes alone (the golden model), and the analytic model must predict the
// busy clocks of the batched schedule exactly.

import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { Machine } from '../boards/machine.ts';
import { predict, predictDecodeStep } from '../model/predict/analytic.ts';
import { buildBlob, headerOffset, type Job, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { MODEL_ELF, runOnEmulator } from '../model/run.ts';
import { SPAD32_ELFS } from '../study/sweep/runs.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';
import { expectGolden, expectPredicted } from './helpers/model-checks.ts';

const DIMS: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 16 };
const model = randomModel(DIMS, 3);
const P = 5;
const promptOf = (s: number) => randomPrompt(DIMS, P, 10 + s);
const batchJob = (b: number, variant: number, steps = 3): Job => {
  const prompts = Array.from({ length: b }, (_, s) => promptOf(s));
  return { prompt: prompts[0], prompts, decodeSteps: steps, variant };
};

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

beforeAll(() => { if (!existsSync(MODEL_ELF) || !existsSync(SPAD32_ELFS.model)) buildFirmware(); });

describe('batched decode', () => {
  for (const variant of [0, 7, 15]) {
    for (const b of [1, 2, 8, 9]) {
      it(`B = ${b}, variant ${variant}: every sequence = golden; busy clocks = analytic model`, () => {
        const job = batchJob(b, variant);
        const run = runOnEmulator(model, job);
        expectGolden(model, run, job);
        expectPredicted(DIMS, run, job);
      });
    }
  }

  it('a batch of one is the single-prompt job: the same blob byte for byte, the same clocks and windows', () => {
    const prompt = promptOf(0);
    for (const variant of [0, 15]) {
      const single: Job = { prompt, decodeSteps: 3, variant };
      const one: Job = { prompt, prompts: [prompt], decodeSteps: 3, variant };
      expect(same(buildBlob(model, one).bytes, buildBlob(model, single).bytes)).toBe(true);
      expect(new DataView(buildBlob(model, single).bytes.buffer).getUint32(headerOffset('BATCH'), true)).toBe(0);
      const a = runOnEmulator(model, single), b = runOnEmulator(model, one);
      expect(b.result.clocks).toBe(a.result.clocks);
      expect(b.windows).toEqual(a.windows);
      expect(b.tokens).toEqual(a.tokens);
      expect(same(b.sram, a.sram)).toBe(true);
      expect(predict(DIMS, one)).toEqual(predict(DIMS, single));
    }
  });

  it('the header says BATCH = B and where the per-sequence counts go; the caches interleave the sequences', () => {
    const job = batchJob(3, 15);
    const { bytes, layout } = buildBlob(model, job);
    const h = (name: string) => new DataView(bytes.buffer).getUint32(headerOffset(name), true);
    expect(h('BATCH')).toBe(3);
    expect(h('SEQ_GENERATED')).toBe(layout.seqGenerated);
    expect(layout.seqGenerated).toBeGreaterThan(0);
    expect(layout.layers[0].vCache - layout.layers[0].kCache).toBeGreaterThanOrEqual((3 * DIMS.maxSeq * DIMS.d) / 2);
    expect(layout.rows).toBe(8);
    const run = runOnEmulator(model, job);
    // Position t of sequence s is cache row t·B + s.
    const rs = DIMS.d / 2, k = layout.layers[1].kCache;
    for (let s = 0; s < 3; s++) {
      for (let t = 0; t < P + 3; t++) {
        const row = run.sram.subarray(k + (t * 3 + s) * rs, k + (t * 3 + s + 1) * rs);
        expect(same(row, run.sequences[s].kCache[1].subarray(t * rs, (t + 1) * rs))).toBe(true);
      }
    }
  });

  describe('stop token: a stopped sequence keeps being computed but records nothing; all stopped ends decoding', () => {
    // Free runs (6 steps) of prompts 0..8 (seeds 10..18), token by token:
    //   0: 11 13 8 11 7 11 3    1: 0 11 3 2 7 11 3    2: 0 11 3 2 15 0 7
    //   3: 11 3 4 2 15 3 13     4: 0 11 0 2 15 3 4    5: 11 13 5 2 7 14 3
    //   6: 11 1 9 11 0 15 3     7: 0 11 3 2 7 11 3    8: 9 13 3 2 7 15 0
    const cases: { name: string; seqs: number[]; stop: number; generated: number; windows: number }[] = [
      { name: 'some stop, one never does: every step runs', seqs: [0, 1, 2, 3, 4, 5, 6, 7, 8], stop: 2, generated: 7, windows: 2 },
      { name: 'all stopped after step 1 (one at its first token): decoding ends', seqs: [0, 1, 2, 4, 6, 7], stop: 11, generated: 2, windows: 2 },
      { name: 'every first token is the stop token: no decode window', seqs: [1, 2, 4, 7], stop: 0, generated: 1, windows: 1 },
    ];
    for (const c of cases) {
      for (const variant of [0, 15]) {
        it(`${c.name}, variant ${variant}`, () => {
          const prompts = c.seqs.map(promptOf);
          const job: Job = { prompt: prompts[0], prompts, decodeSteps: 6, variant, stopToken: c.stop };
          const run = runOnEmulator(model, job);
          expectGolden(model, run, job);
          expect(run.generated).toBe(c.generated);
          expect(run.windows.length).toBe(c.windows);
          const counts = run.sequences.map((s) => s.tokens.length);
          for (const [s, seq] of run.sequences.entries()) {
            expect(seq.tokens.slice(0, -1), `sequence ${s}`).not.toContain(c.stop);
            if (seq.tokens.length < c.generated) expect(seq.tokens.at(-1)).toBe(c.stop);
          }
          if (c.generated === 7) expect(new Set(counts).size).toBeGreaterThan(1);
          // The steps that ran cost what the analytic model says they cost.
          expectPredicted(DIMS, run, { ...job, decodeSteps: run.generated - 1, stopToken: undefined });
        });
      }
    }
  });

  describe('per decode step: the weights stream once for the batch, the MXU works in 8-row passes', () => {
    // One layer of d = 64, d_ff = 128: prompts of 4 tokens, 2 decode steps.
    const dims: ModelDims = { d: 64, dFF: 128, heads: 2, layers: 1, vocab: 16, maxSeq: 16 };
    const m = randomModel(dims, 4);
    const prompt = 4, steps = 2;
    const weightBytes = (dims.layers * (4 * dims.d * dims.d + 2 * dims.d * dims.dFF)) / 2 + (dims.d * dims.vocab) / 2;
    for (const variant of [0, 15]) {
      it(`variant ${variant}: B = 1, 8, 9, 16`, () => {
        const rows = [1, 8, 9, 16].map((b) => {
          const prompts = Array.from({ length: b }, (_, s) => randomPrompt(dims, prompt, 20 + s));
          const job: Job = { prompt: prompts[0], prompts, decodeSteps: steps, variant };
          const run = runOnEmulator(m, job);
          expectPredicted(dims, run, job);
          const parts = Array.from({ length: steps }, (_, i) => predictDecodeStep(dims, b, prompt + i, variant));
          // The decode phase is the sum of its steps.
          const phase = predict(dims, job).phases[1];
          expect(parts.reduce((s, p) => s + p.total.dma, 0)).toBe(phase.dma);
          expect(parts.reduce((s, p) => s + p.total.mxu, 0)).toBe(phase.mxu);
          // Each step loads every weight tile exactly once, whatever the batch.
          for (const p of parts) expect(p.weightBytes).toBe(weightBytes);
          const weightDma = parts.reduce((s, p) => s + p.weightDma, 0) / steps;
          const w = run.windows[1];
          const perSeq = (f: 'dma' | 'mxu') => parts.reduce((s, p) => s + p.perSequence[f], 0);
          return {
            b, dma: w.dmaBusy / steps, mxu: w.mxuBusy / steps, weightDma,
            // What the B rows share: the measured window less each sequence's embedding and attention.
            sharedDma: (w.dmaBusy - perSeq('dma')) / steps, sharedMxu: (w.mxuBusy - perSeq('mxu')) / steps,
          };
        });
        const [r1] = rows;
        for (const r of rows) {
          // MXU: the weight matmuls take ceil(B/8) passes of 8 rows.
          expect(r.sharedMxu).toBe(Math.ceil(r.b / 8) * r1.sharedMxu);
          // DMA: the weight stream is the same for every batch and most of the shared traffic;
          // what grows with B is the activation rows' traffic.
          expect(r.weightDma).toBe(r1.weightDma);
          expect(r.sharedDma).toBeGreaterThanOrEqual(r1.sharedDma);
          expect(r1.weightDma).toBeGreaterThan(r1.sharedDma / 2);
        }
        const at = (b: number) => rows.find((r) => r.b === b)!;
        expect(at(8).sharedDma).toBeLessThan(2 * r1.sharedDma);
        expect(at(8).dma).toBeLessThan(2 * r1.dma); // eight sequences for less than twice the DMA of one
        expect(at(16).dma / 16).toBeLessThan(r1.dma / 4); // per sequence, a quarter of the cost or less
        expect(at(9).mxu - at(8).mxu).toBeGreaterThanOrEqual(r1.sharedMxu); // a ninth row opens a second pass
        expect(at(8).mxu - r1.mxu).toBeLessThan(r1.sharedMxu); // rows 2..8 ride in the first
      });
    }
  });

  it('rejects batches the firmware cannot hold', () => {
    expect(() => runOnEmulator(model, { ...batchJob(2, 0), prompts: [[1, 2], [3]] })).toThrow(/same length/);
    expect(() => runOnEmulator(model, batchJob(65, 0, 1))).toThrow(/1 to 64 sequences/);
    // The firmware's own check: BATCH > 64, or a batch with nowhere to put its counts.
    for (const [batch, counts] of [[65, true], [2, false]] as const) {
      const { bytes } = buildBlob(model, batchJob(2, 0));
      const dv = new DataView(bytes.buffer);
      dv.setUint32(headerOffset('BATCH'), batch, true);
      if (!counts) dv.setUint32(headerOffset('SEQ_GENERATED'), 0, true);
      const mach = new Machine(defaultConfig());
      mach.loadElf(readFileSync(MODEL_ELF));
      mach.loadSram(bytes, 0);
      mach.bus.console.captureOutput(true);
      expect(mach.run(10_000_000).exit).toBe(2);
      expect(mach.bus.console.capturedText()).toBe('model: bad batch\n');
      expect(new DataView(mach.sramBytes.buffer).getUint32(headerOffset('STATUS'), true)).toBe(2);
    }
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
        expectGolden(m, run, job);
        expectPredicted(dims, run, job, config);
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
