// The scaling sweeps on their small instances: every busy-clock prediction
// within 5 % of the emulator's measurement, resumable JSON-lines results,
// worker threads giving the same records as one thread, and figures drawn by
// Vega-Lite (one colour per series for its prediction and its measurement,
// bars on categorical axes) that render to the same SVG bytes every time.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isBuiltin } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_SMALL_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';
import { PointPool, readRecords, fingerprint, sweep } from '../study/sweep/engine.ts';
import { crossover, EXPERIMENTS, findExperiment, predictedPhase, table, worstBusyError, worstRunError } from '../study/sweep/experiments.ts';
import { BOUND, chartSpec, logTicks, MEASURED, powersOfTwo, PREDICTED_RUN, type Chart } from '../study/sweep/charts.ts';
import { renderSvg, specWarnings } from '../study/sweep/render.ts';
import { legendLabels, madeByVega, marksOf, seriesColors, tickLabels } from './helpers/figure-marks.ts';
import { runSweep } from '../study/sweep/sweep.ts';
import { configFor, firmwareFor, MXU16_ELFS, RV32IM_ELFS, SWEEP_ELFS, type ModelPoint, type RunRecord } from '../study/sweep/runs.ts';
import { BEST_VARIANT, VARIANT } from '../model/format.ts';
import { firmwareTag } from '../model/predict/issue-cost.ts';
import { MODELLED_BITS } from '../model/predict/model-program.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';

const lineChart: Chart = {
  title: 'a <test> & more', seriesTitle: 'series', x: { title: 'x', log: true }, y: { title: 'y', log: true },
  rows: [
    { series: 'A', kind: BOUND, x: 1, y: 2 }, { series: 'A', kind: BOUND, x: 10, y: 20 }, { series: 'A', kind: BOUND, x: 1000, y: 2000 },
    { series: 'A', kind: MEASURED, x: 1, y: 2.1 }, { series: 'A', kind: MEASURED, x: 10, y: 19 }, { series: 'A', kind: MEASURED, x: 0, y: 5 }, // x = 0 cannot sit on a log axis
    { series: 'B', kind: PREDICTED_RUN, x: 1, y: 3 }, { series: 'B', kind: PREDICTED_RUN, x: 10, y: 30 }, { series: 'B', kind: MEASURED, x: 10, y: 31 },
  ],
};

/** The Node modules a source file loads at run time, directly or through its relative imports (type-only imports are erased). */
function nodeImportsOf(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const out: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(/^import\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gms)) {
    if (m[1]) continue;
    const spec = m[2];
    if (spec.startsWith('.')) out.push(...nodeImportsOf(join(dirname(file), spec), seen));
    else if (spec.startsWith('node:') || isBuiltin(spec)) out.push(`${file}: ${spec}`);
  }
  return out;
}

describe('figures (Vega-Lite, rendered by vega)', () => {
  it('draws a series in one colour: its prediction as a line, its measurement as points; legends name series and line kinds', async () => {
    const svg = await renderSvg(chartSpec(lineChart));
    const marks = marksOf(svg);
    const of = (series: string, role: string) => marks.filter((m) => m.series === series && m.role === role);
    expect(of('A', 'line mark').map((m) => m.kind)).toEqual([BOUND]);
    expect(of('A', 'point').map((m) => m.kind)).toEqual([MEASURED, MEASURED]); // the x = 0 point is left out
    expect(of('B', 'line mark').map((m) => m.kind)).toEqual([PREDICTED_RUN]);
    expect(of('B', 'point')).toHaveLength(1);
    const colors = seriesColors(marks);
    expect(colors.get('A')).not.toBe(colors.get('B'));
    expect(svg).toContain('stroke-dasharray="6,4"'); // the predicted run is dashed
    expect(legendLabels(svg)).toEqual(['A', 'B', BOUND, PREDICTED_RUN]);
    expect(svg).toContain('a &lt;test&gt; &amp; more');
    // A log axis labels its powers of ten.
    expect(tickLabels(svg)).toEqual(expect.arrayContaining(['1', '10', '100', '1000']));
    expect(specWarnings(chartSpec(lineChart))).toEqual([]);
  });

  it('draws categories as bars (measurements) with a mark across each (predictions), every label written', async () => {
    const cats = ['base', '+fusion', 'a platform change with a long name'];
    const chart: Chart = {
      title: 't', seriesTitle: 'run', x: { title: 'variant' }, y: { title: 'speed-up', zero: true }, categories: cats, reference: 1,
      rows: cats.flatMap((c, i) => [
        { series: 'prefill', kind: MEASURED, x: c, y: 1 + i }, { series: 'prefill', kind: BOUND, x: c, y: 1.5 + i },
        { series: 'decode', kind: MEASURED, x: c, y: 1 + i / 2 }, { series: 'decode', kind: PREDICTED_RUN, x: c, y: 1.1 + i / 2 },
      ]),
    };
    for (const horizontal of [false, true]) {
      const spec = chartSpec({ ...chart, horizontal });
      const svg = await renderSvg(spec);
      const marks = marksOf(svg);
      expect(marks.filter((m) => m.role === 'bar').map((m) => `${m.series} ${m.kind}`).sort()).toEqual([...Array(3).fill('decode measured'), ...Array(3).fill('prefill measured')]);
      expect(marks.filter((m) => m.role === 'point').map((m) => m.kind).sort()).toEqual([...Array(3).fill(BOUND), ...Array(3).fill(PREDICTED_RUN)]);
      expect(marks.some((m) => m.role === 'line mark')).toBe(false); // categories are never joined by lines
      seriesColors(marks);
      expect(tickLabels(svg)).toEqual(expect.arrayContaining(cats));
      expect(specWarnings(spec)).toEqual([]);
    }
  });

  it('labels a log axis at every power of ten and the round numbers a short range needs', () => {
    expect(logTicks(32, 512)).toEqual([50, 70, 100, 200, 300, 500]); // 1.2 decades: 100 labelled, and enough between
    expect(logTicks(0.5, 256)).toEqual([0.5, 1, 2, 5, 10, 20, 50, 100, 200]);
    expect(logTicks(1000, 5e7)).toEqual([1000, 3000, 1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7, 3e7]);
    expect(powersOfTwo(64)).toEqual([1, 2, 4, 8, 16, 32, 64]);
  });

  it('builds its specs without Node: charts.ts and what it imports at run time name no Node module (the playground imports it)', () => {
    expect(nodeImportsOf('study/sweep/charts.ts')).toEqual([]);
    expect(nodeImportsOf('study/sweep/experiments.ts')).not.toEqual([]); // the check finds them where they are
  });

  it('renders the same spec to the same bytes, whatever was rendered before (clip ids restart, text widths estimated)', async () => {
    const spec = chartSpec({ ...lineChart, panelTitle: 'panel', rows: lineChart.rows.map((r, i) => ({ ...r, panel: `p${i % 2}` })) });
    const first = await renderSvg(spec);
    await renderSvg(chartSpec(lineChart));
    expect(await renderSvg(spec)).toBe(first);
    expect(first).toContain('clip-path="url(#clip1)"');
  });
});

describe('helpers', () => {
  it('finds the batch where MXU busy reaches DMA busy between sweep points', () => {
    // MXU 10, 30; DMA 20, 20 at batches 8, 16: equal at 12.
    expect(crossover([[8, 10, 20], [16, 30, 20]])).toBeCloseTo(12, 10);
    expect(crossover([[1, 1, 10], [2, 2, 10]])).toBeNaN();
  });

  it('runs the multiply what-if on the rv32im build, and no build changes two things at once', () => {
    for (const multiply of ['mul', 'fast'] as const) {
      const c = configFor({ multiply });
      expect([c.cpu.ENABLE_MUL, c.cpu.ENABLE_FAST_MUL]).toEqual([multiply === 'mul', multiply === 'fast']);
      expect(firmwareFor(c)).toEqual(RV32IM_ELFS);
    }
    expect(SWEEP_ELFS).toContain(RV32IM_ELFS.model);
    expect(firmwareFor(configFor({ mxuDim: 16 }))).toEqual(MXU16_ELFS);
    expect(() => firmwareFor(configFor({ multiply: 'fast', spadKiB: 32 }))).toThrow(/more than one/);
  });

  it('the full ladder adds one variant bit per rung up to the best variant; the what-ifs run on it too', () => {
    const vs = [...new Set(findExperiment('ladder')!.plan('full').map((p) => (p.point as ModelPoint).variant))];
    expect(vs[0]).toBe(0);
    expect(vs.at(-1)).toBe(BEST_VARIANT);
    for (let i = 1; i < vs.length; i++) {
      const added = vs[i] & ~vs[i - 1];
      expect(vs[i] & vs[i - 1]).toBe(vs[i - 1]); // keeps every technique of the rung before
      expect(added & (added - 1)).toBe(0); // and adds one (fusion's rung, 3, adds bit 2)
    }
    const whatIf = findExperiment('what-if')!.plan('full');
    expect(whatIf.map((p) => p.key)).toEqual(expect.arrayContaining(['ENABLE_MUL (rv32im)', 'ENABLE_FAST_MUL (rv32im)', 'as built, best', 'ENABLE_FAST_MUL (rv32im), best']));
    // Half run the best variant; the sequencer what-if's best run adds VARIANT.SEQUENCER (the lists need asking for).
    const best = whatIf.filter((p) => p.key.endsWith(', best'));
    expect(best).toHaveLength(whatIf.length / 2);
    for (const p of best) expect((p.point as ModelPoint).variant).toBe(p.key.startsWith('command sequencer') ? BEST_VARIANT | VARIANT.SEQUENCER : BEST_VARIANT);
  });

  it('formats a table with aligned columns', () => {
    expect(table(['a', 'bb'], [['x', '1'], ['yy', '22']])).toBe('a  | bb\n---|---\nx  |  1\nyy | 22');
  });
});

describe.sequential('experiments, small instances', () => {
  let dir: string;
  const records = new Map<string, RunRecord[]>();

  beforeAll(async () => {
    if (!SWEEP_ELFS.every((e) => existsSync(e))) buildFirmware();
    dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-'));
    for (const e of EXPERIMENTS) records.set(e.name, await sweep(e.plan('small'), { file: join(dir, `${e.name}.jsonl`), jobs: 1 }));
  });

  for (const e of EXPERIMENTS) {
    it(`${e.name}: every busy-clock prediction equals the measurement`, () => {
      const rs = records.get(e.name)!;
      expect(rs.length).toBe(e.plan('small').length);
      const wrong = rs.flatMap((r) => r.measured.flatMap((m) => {
        const p = predictedPhase(r, m.name);
        const pred = { mxu: p.mxu, vpu: p.vpu, dma: p.dma }, measured = { mxu: m.mxu, vpu: m.vpu, dma: m.dma };
        return JSON.stringify(pred) === JSON.stringify(measured) ? [] : [{ point: r.point, phase: m.name, pred, measured }];
      }));
      expect(wrong).toEqual([]);
      expect(worstBusyError(rs)).toBe(0);
      // The schedule model's run clocks (docs/study.md §8.3): within their bounds (test/helpers/prediction-bounds.ts) wherever it covers the run, and it covers every
      // run but a board no term table covers (firmwareTag: two build knobs at once, another CPU change) and variant bits it does not transcribe.
      const { worst } = worstRunError(rs);
      console.log(`  ${e.name}: largest run-clock error ${worst.toFixed(2)} %`);
      expect(worst).toBeLessThan(SWEEP_SMALL_RUN_BOUND_PCT);
      const uncovered = rs.filter((r) => r.predicted.some((p) => p.runClocks === null || p.runClocks === undefined));
      const explained = (r: RunRecord) => (r.point.config && firmwareTag(configFor(r.point.config)) === null) || (r.point.kind === 'model' && (r.point.variant & ~MODELLED_BITS) !== 0);
      expect(uncovered.filter((r) => !explained(r)).map((r) => r.key)).toEqual([]);
    });

    it(`${e.name}: figures draw each series in one colour, its predictions and its measurements`, async () => {
      const report = e.report(records.get(e.name)!, 'small');
      expect(report.figures.length).toBeGreaterThan(0);
      for (const f of report.figures) {
        expect(specWarnings(f.spec), f.file).toEqual([]);
        const marks = marksOf(await renderSvg(f.spec));
        seriesColors(marks);
        expect(marks.some((m) => m.kind === MEASURED), f.file).toBe(true);
        expect(marks.some((m) => m.kind !== MEASURED), f.file).toBe(true);
        // A categorical figure (the ladder, the what-ifs) draws bars, never lines.
        const bars = marks.some((m) => m.role === 'bar');
        expect(marks.some((m) => m.role === 'line mark'), f.file).toBe(!bars);
        expect(report.markdown).toContain(`figures/${f.file}`);
      }
      expect(report.markdown).toContain(report.text);
    });
  }
});

describe.sequential('engine', () => {
  it('resumes: a second sweep runs nothing new; a cut-off last line is run again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-'));
    const file = join(dir, 'ladder.jsonl');
    const plan = findExperiment('ladder')!.plan('small');
    const first = await sweep(plan, { file, jobs: 1 });
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBe(plan.length);
    let started = -1;
    const again = await sweep(plan, { file, jobs: 1, onProgress: (p) => { if (started < 0) started = p.done; } });
    expect(started).toBe(plan.length);
    expect(again).toEqual(first);
    // An interrupted write leaves half a line: that point runs again, the rest are kept.
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 40)}`);
    expect(readRecords(file, fingerprint()).size).toBe(plan.length - 1);
    const third = await sweep(plan, { file, jobs: 1 });
    expect(third.map((r) => r.measured)).toEqual(first.map((r) => r.measured));
  });

  it('worker threads give the same records as one thread (determinism)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-'));
    const plan = findExperiment('what-if')!.plan('small');
    const one = await sweep(plan, { file: join(dir, 'a.jsonl'), jobs: 1 });
    const two = await sweep(plan, { file: join(dir, 'b.jsonl'), jobs: 2 });
    const strip = (rs: RunRecord[]) => rs.map(({ wallMs: _w, ...r }) => r);
    expect(strip(two)).toEqual(strip(one));
  });

  it('multi-board runs give the same records on one host thread and on two (issue #20)', async () => {
    // The pool's thread count is the host's: each board of a point is interleaved by boards/picotpu/ring.ts's
    // scheduler on its thread, and neither the pool nor the interleaving may change a clock or a byte.
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-'));
    const plan = findExperiment('multi-device')!.plan('small');
    expect(plan.length).toBeGreaterThanOrEqual(2);
    const one = await sweep(plan, { file: join(dir, 'a.jsonl'), jobs: 1 });
    const two = await sweep(plan, { file: join(dir, 'b.jsonl'), jobs: 2 });
    const strip = (rs: RunRecord[]) => rs.map(({ wallMs: _w, ...r }) => r);
    expect(strip(two)).toEqual(strip(one));
    expect(one.every((r) => r.tokensCorrect === true)).toBe(true);
  });

  it('a pool that posts points ahead to its thread gives each point its own record, in the order asked', async () => {
    const plan = Array.from({ length: 5 }, (_, i) => ({ key: `ahead ${i}`, point: { kind: 'matmul' as const, m: 8, k: 64, n: 64, variant: 1, config: { tpuWait: i } } }));
    const strip = ({ wallMs: _w, ...r }: RunRecord) => r;
    const one = new PointPool(1), ahead = new PointPool(1, 2);
    try {
      const want: RunRecord[] = [];
      for (const p of plan) want.push(await one.run(p));
      const got = await Promise.all(plan.map((p) => ahead.run(p)));
      expect(got.map((r) => r.key)).toEqual(plan.map((p) => p.key));
      expect(got.map(strip)).toEqual(want.map(strip));
      expect(new Set(want.map((r) => r.measured[0].cycles)).size).toBeGreaterThan(1); // the points differ, so a mix-up shows
    } finally {
      await Promise.all([one.close(), ahead.close()]);
    }
  });

  it('rebuilds scaling.md from complete results and names the experiments not yet run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-'));
    const printed: string[] = [];
    await runSweep({ experiment: 'ladder', scale: 'small', jobs: 1, results: join(dir, 'results'), docs: join(dir, 'docs'), print: (t) => printed.push(t) });
    const doc = readFileSync(join(dir, 'docs', 'scaling.md'), 'utf8');
    expect(doc).toContain('## The optimisation ladder');
    expect(doc).toContain('![The optimisation ladder](figures/ladder.svg)');
    expect(doc).toContain('picotpu sweep roofline'); // not run
    const table = printed[0].split('\n').slice(1).join('\n').trim();
    expect(doc).toContain(table); // the document's numbers are the printed ones
    const ladder = marksOf(readFileSync(join(dir, 'docs', 'figures', 'ladder.svg'), 'utf8'));
    const plan = findExperiment('ladder')!.plan('small');
    expect(ladder.filter((m) => m.role === 'bar')).toHaveLength(plan.length); // one bar a run: prefill and full inference of each variant
    expect([...seriesColors(ladder).keys()]).toEqual(['prefill', 'full inference']);
    await expect(runSweep({ experiment: 'nope', results: dir, docs: dir, print: () => {} })).rejects.toThrow(/unknown experiment "nope"/);
  });

  it('every figure in docs/figures is drawn by vega, and scaling.md shows each one sweep makes', () => {
    const figures = readdirSync('docs/figures').filter((f) => f.endsWith('.svg'));
    expect(figures.length).toBeGreaterThan(0);
    expect(figures.filter((f) => !madeByVega(readFileSync(join('docs/figures', f), 'utf8')))).toEqual([]);
    const doc = readFileSync('docs/scaling.md', 'utf8');
    const linked = [...doc.matchAll(/\]\(figures\/([^)]+\.svg)\)/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.filter((f) => !figures.includes(f))).toEqual([]);
  });

  it('picotpu sweep: a bad experiment or --jobs is one line and exit 165', () => {
    for (const args of [['nope'], ['ladder', '--jobs', '0']]) {
      const r = spawnSync(process.execPath, ['bin/picotpu.cjs', 'sweep', ...args], { encoding: 'utf8' });
      expect(r.status).toBe(165);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });
});
