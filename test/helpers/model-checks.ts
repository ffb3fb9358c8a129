// Checks shared by the model tests: a run against the golden model, and its
// PERF_CTRL windows against the analytic model.

import { expect } from 'vitest';
import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import { predict } from '../../model/predict/analytic.ts';
import type { Job, Model, ModelDims } from '../../model/format.ts';
import { runGoldenBatch } from '../../model/golden.ts';
import type { EmulatorRun } from '../../model/run.ts';

const arr = (l: Int32Array) => Array.from(l);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Every sequence of the run = the golden model run on its prompt alone: tokens, logits and KV caches. */
export function expectGolden(m: Model, run: EmulatorRun, job: Job): void {
  const golden = runGoldenBatch(m, job);
  expect(run.result.tpuErrors).toEqual([]);
  expect(run.sequences.length).toBe(golden.length);
  run.sequences.forEach((seq, s) => {
    expect(seq.tokens, `sequence ${s}`).toEqual(golden[s].tokens);
    expect(seq.logits.map(arr), `sequence ${s}`).toEqual(golden[s].logits.map(arr));
    for (let l = 0; l < m.dims.layers; l++) {
      expect(same(seq.kCache[l], golden[s].kCache[l]), `sequence ${s} K layer ${l}`).toBe(true);
      expect(same(seq.vCache[l], golden[s].vCache[l]), `sequence ${s} V layer ${l}`).toBe(true);
    }
  });
  // Sequence 0 keeps the single-job fields.
  expect(run.tokens).toEqual(run.sequences[0].tokens);
  expect(run.generated).toBe(Math.max(...golden.map((g) => g.tokens.length)));
}

/** The measured PERF_CTRL windows = the analytic model's phases, unit by unit; no run beats its bound. */
export function expectPredicted(dims: ModelDims, run: EmulatorRun, job: Job, config: PlatformConfig = defaultConfig()): void {
  const p = predict(dims, job, config).phases;
  expect(run.windows.length).toBe(p.length);
  run.windows.forEach((w, i) => {
    expect({ mxu: w.mxuBusy, vpu: w.vpuBusy, dma: w.dmaBusy }, p[i].name).toEqual({ mxu: p[i].mxu, vpu: p[i].vpu, dma: p[i].dma });
    expect(w.cycles).toBeGreaterThanOrEqual(p[i].lowerBound);
  });
}
