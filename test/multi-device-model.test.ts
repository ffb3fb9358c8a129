// The tensor-parallel model (build/fw/model_tp.elf) on the multi-board
// machine: tokens, logits and each board's K/V cache columns equal the golden
// model's for N = 1, 2, 4; the analytic prediction (model/predict/tp-program.ts) of
// the link busy clocks is exact and of the run clocks within 1 % (test/helpers/prediction-bounds.ts), on a job
// the calibration (scripts/calibrate-tp-issue.ts) did not run.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TP_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';
import { EXIT } from '../emu/exit-status.ts';
import { defaultConfig, applyOverrides } from '../emu/config.ts';
import { runGolden } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { allReduceTraffic } from '../model/tensor-parallel.ts';
import { predictTpRun, ringPlan } from '../model/predict/tp-program.ts';
import { cacheColumns, runTpBoards } from '../model/tp-run.ts';
import type { Job, ModelDims } from '../model/format.ts';

const DIMS: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 2, vocab: 16, maxSeq: 64 };
const model = randomModel(DIMS, 3);
const job = (variant: number): Job => ({ prompt: randomPrompt(DIMS, 21, 4), decodeSteps: 3, variant, stopToken: 255 });

describe('tensor-parallel model on N boards', () => {
  for (const n of [1, 2, 4]) {
    for (const variant of [0, 31]) {
      it(`N = ${n}, variant ${variant}: golden-exact, link busy exact, run clocks within ${TP_RUN_BOUND_PCT} %`, () => {
        const j = job(variant), g = runGolden(model, j), r = runTpBoards(model, j, n), cw = DIMS.d / n;
        for (const [k, b] of r.boards.entries()) {
          expect(b.tokens).toEqual(g.tokens);
          expect(b.logits).toEqual(g.logits);
          b.kColumns.forEach((c, l) => expect(c).toEqual(cacheColumns(g.kCache[l], DIMS.d, k * cw, cw)));
          b.vColumns.forEach((c, l) => expect(c).toEqual(cacheColumns(g.vCache[l], DIMS.d, k * cw, cw)));
        }
        const p = predictTpRun(DIMS, j, n)!;
        expect(p).not.toBeNull();
        // Link: every board sends the textbook ring's 2(N−1) chunks per AllReduce block (int32 then int4), 2 AllReduces a layer.
        const rows = ringPlan(DIMS.d, n).rows, per = (m: number) => allReduceTraffic(DIMS.d, m, n, rows);
        const prefill = per(21), step = per(1), ars = 2 * DIMS.layers;
        const messages = ars * (prefill.messages + 3 * step.messages), bytes = ars * (prefill.bytes + 3 * step.bytes);
        const busy = messages * defaultConfig().tpu.linkSetup + bytes * defaultConfig().tpu.linkClocksPerByte;
        const predicted = { messages: p[0].link.messages + p[1].link.messages, bytes: p[0].link.bytes + p[1].link.bytes, busy: p[0].link.busy + p[1].link.busy };
        expect(predicted).toEqual({ messages, bytes, busy });
        for (const b of r.boards) expect(b.link).toEqual(predicted);
        p.forEach((w, i) => {
          const measured = Math.max(...r.boards.map((b) => b.windows[i].cycles));
          expect(100 * Math.abs(w.runClocks / measured - 1)).toBeLessThan(TP_RUN_BOUND_PCT);
          // Per-board compute busy: every board does the same sharded work.
          for (const b of r.boards) expect([b.windows[i].mxuBusy, b.windows[i].vpuBusy, b.windows[i].dmaBusy]).toEqual([w.mxu, w.vpu, w.dma]);
        });
      });
    }
  }
  it(`N = 8 on an 8-head model: golden-exact on every board, within ${TP_RUN_BOUND_PCT} %`, () => {
    const dims: ModelDims = { ...DIMS, heads: 8, layers: 1 }, m8 = randomModel(dims, 9);
    const j: Job = { prompt: randomPrompt(dims, 19, 2), decodeSteps: 2, variant: 31, stopToken: 255 };
    const g = runGolden(m8, j), r = runTpBoards(m8, j, 8), p = predictTpRun(dims, j, 8)!;
    for (const b of r.boards) { expect(b.tokens).toEqual(g.tokens); expect(b.logits).toEqual(g.logits); }
    p.forEach((w, i) => expect(Math.abs(w.runClocks / Math.max(...r.boards.map((b) => b.windows[i].cycles)) - 1) * 100).toBeLessThan(TP_RUN_BOUND_PCT));
  });
  it('the link check can fail: a prediction for another link setup is not the measured busy', () => {
    const j = job(31), r = runTpBoards(model, j, 2);
    const p = predictTpRun(DIMS, j, 2, applyOverrides(defaultConfig(), { linkSetup: 3 }))!;
    expect(p[0].link.busy + p[1].link.busy).not.toBe(r.boards[0].link.busy);
  });
  it('gives the same clocks whatever the host interleaving (slice size, board order)', () => {
    const j = job(31), a = runTpBoards(model, j, 4), b = runTpBoards(model, j, 4, { schedule: { quantum: 777, order: 'shuffle', seed: 5 } });
    expect(b.clocks).toBe(a.clocks);
    expect(b.boards.map((x) => x.windows)).toEqual(a.boards.map((x) => x.windows));
    expect(b.boards.map((x) => x.tokens)).toEqual(a.boards.map((x) => x.tokens));
  });
  it('CLI: bench --devices N --json; a model that does not shard and a clock limit exit with the documented status', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/picotpu.cjs', 'bench', ...args], { encoding: 'utf8' });
    const ok = cli('--devices', '2', '--json');
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe('');
    const j = JSON.parse(ok.stdout);
    expect(j.boards).toHaveLength(2);
    expect(j.tokensCorrect && j.logitsCorrect && j.cachesCorrect && j.linkExact).toBe(true);
    expect(j.boards[0].link.busy).toBe(j.linkPredicted.busy);
    expect(j.totalClocks).toBeGreaterThan(0);
    for (const w of j.windows) expect(Math.abs(w.errorPct)).toBeLessThan(5);
    const eight = cli('--devices', '8');
    expect(eight.status).toBe(EXIT.USAGE);
    expect(eight.stderr).toMatch(/4 heads do not split over 8 boards/);
    const limited = cli('--devices', '2', '--max-cycles', '1000');
    expect(limited.status).toBe(EXIT.CYCLE_LIMIT);
    expect(limited.stdout).toBe('');
  });
});
