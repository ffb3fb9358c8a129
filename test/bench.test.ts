// `picotpu bench` (study/bench.ts): the fast experiments, through the library
// functions and through the CLI, held to the analytic model.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MATMUL_RUN_BOUND_PCT, MODEL_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';
import { benchJson, EXPERIMENTS, formatBench, predictionError, RANDOM_SEED, runBench, summarize, summaryTable } from '../study/bench.ts';
import { EXIT } from '../emu/exit-status.ts';
import { predictMatmul } from '../model/predict/analytic.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runOnEmulator } from '../model/run.ts';

// PLATFORM.md §7, line by line.
const REPORT_SHAPE = [
  /^run \d+ clocks \d+\.\d{3} ms @ 12 MHz$/,
  /^MXU busy \d+ \d+\.\d%$/,
  /^VPU busy \d+ \d+\.\d%$/,
  /^DMA busy \d+ \d+\.\d%$/,
  /^no unit busy \(issue overhead\) \d+ \d+\.\d%$/,
  /^producer stalled on a full queue \d+ \d+\.\d%$/,
  /^two or more units busy \d+ \d+\.\d%$/,
];

describe('picotpu bench', () => {
  const b = runBench({ only: ['prefill, base', 'prefill, double-buffered'] });

  it('runs exactly the selected experiments, each a single prefill window', () => {
    expect(b.experiments.map((e) => e.name)).toEqual(['prefill, base', 'prefill, double-buffered']);
    for (const e of b.experiments) {
      expect(e.windows).toHaveLength(1);
      expect(e.windows[0].label).toBe('prefill');
      expect(e.counters).toEqual(e.windows[0].counters);
      expect(e.seed).toEqual(EXPERIMENTS.find((x) => x.name === e.name)!.seed);
    }
  });

  it('emulatedClocks is the whole run\'s clock count: the same job run on its own stops at that clock', () => {
    const e = b.experiments[0];
    const job = { prompt: randomPrompt(e.dims!, e.job!.promptLength, RANDOM_SEED), decodeSteps: e.job!.decodeSteps, variant: e.variant };
    const alone = runOnEmulator(randomModel(e.dims!, RANDOM_SEED), job);
    expect(e.emulatedClocks).toBe(alone.result.clocks);
    expect(e.windows.map((w) => w.counters)).toEqual(alone.windows);
    expect(b.emulatedClocks).toBe(b.experiments[0].emulatedClocks + b.experiments[1].emulatedClocks);
  });

  it('predicts MXU, VPU and DMA busy exactly', () => {
    for (const e of b.experiments) {
      expect(e.counters.mxuBusy).toBe(e.prediction.total.mxu);
      expect(e.counters.vpuBusy).toBe(e.prediction.total.vpu);
      expect(e.counters.dmaBusy).toBe(e.prediction.total.dma);
      expect(predictionError(e.prediction.total.mxu, e.counters.mxuBusy)).toBe(0);
      expect(e.counters.cycles).toBeGreaterThanOrEqual(e.prediction.total.lowerBound);
    }
  });

  it('the sequencer experiments run on the sequencer what-if (their `set`), the best variant with VARIANT.SEQUENCER', () => {
    const seq = EXPERIMENTS.filter((e) => e.name.endsWith(', sequencer'));
    expect(seq.map((e) => e.name)).toEqual(['full inference, sequencer', 'prefill, sequencer']);
    for (const e of seq) expect(e.set).toEqual({ sequencer: 1, seqListKiB: 32 });
    expect(EXPERIMENTS.filter((e) => e.set).length).toBe(2); // every other row runs the board as built
    const [p] = runBench({ only: ['prefill, sequencer'] }).experiments;
    expect(p.variantName).toMatch(/long context\+sequencer$/);
    expect({ mxu: p.counters.mxuBusy, dma: p.counters.dmaBusy, vpu: p.counters.vpuBusy }).toEqual({ mxu: p.prediction.total.mxu, dma: p.prediction.total.dma, vpu: p.prediction.total.vpu });
  });

  it('double buffering takes fewer run clocks than the base kernels', () => {
    const [base, db] = b.experiments;
    expect(db.counters.cycles).toBeLessThan(base.counters.cycles);
    const d = summarize(b.experiments).find((x) => x.name.startsWith('double buffering speed-up, prefill'))!;
    expect(d.ours).toBeCloseTo(base.counters.cycles / db.counters.cycles, 10);
    expect(d.seed).toBeCloseTo(3719516 / 3372036, 10);
  });

  it('prints §7 reports, one summary table with both rows, and the speed', () => {
    const text = formatBench(b);
    const lines = text.split('\n');
    for (const e of b.experiments) {
      const at = lines.findIndex((l) => l.startsWith(`== ${e.name} (`));
      expect(at).toBeGreaterThanOrEqual(0);
      REPORT_SHAPE.forEach((re, i) => expect(lines[at + 1 + i]).toMatch(re));
      expect(lines[at + 1]).toBe(`run ${e.counters.cycles} clocks ${((e.counters.cycles / 12e6) * 1000).toFixed(3)} ms @ 12 MHz`);
    }
    const table = summaryTable(b.experiments).trimEnd().split('\n');
    expect(table).toHaveLength(4);
    expect(table[0]).toMatch(/^experiment +\| run clocks \| pred run \(err %\) \| seed run \| MXU busy \| pred MXU \(err %\) \| DMA busy \| pred DMA \(err %\) \| run \/ lower bound$/);
    // Aligned: every row has its separators at the header's columns.
    const bars = (l: string) => [...l].flatMap((c, i) => (c === '|' ? [i] : []));
    for (const row of table.slice(1)) expect(bars(row)).toEqual(bars(table[0]));
    expect(table[2]).toMatch(/^prefill, base +\| +\d+ \| +\d+ \([+-]\d\.\d\d%\) \| +3719516 \|/);
    expect(table[3]).toMatch(/^prefill, double-buffered +\| +\d+ \| +\d+ \([+-]\d\.\d\d%\) \| +3372036 \|/);
    expect(text).toContain(table.join('\n'));
    expect(text).toMatch(/\nwall \d+\.\d{3} s, \d+ emulated clocks, \d+\.\d{2} M clocks\/s\n$/);
  });

  it('JSON mode is one document with the experiments and derived figures', () => {
    const j = JSON.parse(benchJson(b));
    expect(j.experiments.map((e: { name: string }) => e.name)).toEqual(['prefill, base', 'prefill, double-buffered']);
    expect(j.experiments[0]).toMatchObject({ variant: 0, dims: { d: 128, layers: 4 }, job: { promptLength: 64, decodeSteps: 0 } });
    expect(j.experiments[0].counters).toEqual(b.experiments[0].counters);
    expect(j.experiments[0].prediction.total.mxu).toBe(b.experiments[0].prediction.total.mxu);
    expect(j.derived.length).toBeGreaterThan(0);
  });

  it('CLI: --json prints only JSON on stdout; bad options and failed runs exit with the documented status', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/picotpu.cjs', 'bench', ...args], { encoding: 'utf8' });
    const ok = cli('--only', 'prefill, base', '--json');
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).experiments).toHaveLength(1);
    expect(ok.stderr).toBe('');
    const bad = cli('--matmul', '64x12');
    expect(bad.status).toBe(EXIT.USAGE);
    expect(bad.stdout).toBe('');
    const limited = cli('--only', 'prefill, base', '--max-cycles', '1000');
    expect(limited.status).toBe(EXIT.CYCLE_LIMIT);
    expect(limited.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(limited.stdout).toBe('');
  });

  it(`--matmul 64x128x128 matches predictMatmul exactly (busy) and within ${MATMUL_RUN_BOUND_PCT} % (run clocks)`, () => {
    const m = runBench({ matmul: [{ m: 64, k: 128, n: 128 }] });
    expect(m.experiments).toHaveLength(1);
    const [e] = m.experiments;
    const p = predictMatmul({ m: 64, k: 128, n: 128 }, 1);
    expect(e.prediction.total).toEqual(p);
    expect(e.counters.mxuBusy).toBe(p.mxu);
    expect(e.counters.dmaBusy).toBe(p.dma);
    expect(Math.abs(predictionError(p.runClocks!, e.counters.cycles))).toBeLessThan(MATMUL_RUN_BOUND_PCT);
    expect(JSON.parse(benchJson(m)).experiments[0].prediction.total.runClocks).toBe(p.runClocks);
    expect(summaryTable(m.experiments)).toMatch(new RegExp(`\\| +${p.runClocks} \\([+-]\\d+\\.\\d\\d%\\) \\|`));
    expect(formatBench(m)).toContain('matmul 64x128x128, double-buffered');
  });

  it(`a model experiment carries its predicted run clocks per window and in total, within ${MODEL_RUN_BOUND_PCT} %`, () => {
    const m = runBench({ only: ['prefill, FFN on chip'] });
    const [e] = m.experiments, total = e.prediction.total.runClocks!;
    expect(e.prediction.phases.map((p) => p.runClocks)).toEqual([total]);
    expect(Math.abs(predictionError(total, e.counters.cycles))).toBeLessThan(MODEL_RUN_BOUND_PCT);
    expect(JSON.parse(benchJson(m)).experiments[0].prediction.total.runClocks).toBe(total);
    expect(summaryTable(m.experiments)).toMatch(new RegExp(`\\| +${total} \\([+-]\\d+\\.\\d\\d%\\) \\|`));
  });
});
