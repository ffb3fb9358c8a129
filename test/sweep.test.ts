// The scaling sweeps on their small instances: every busy-clock prediction
// within 5 % of the emulator's measurement, resumable JSON-lines results,
// worker threads giving the same records as one thread, and SVG figures that
// parse and carry their series.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_SMALL_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';
import { PointPool, readRecords, fingerprint, sweep } from '../study/sweep/engine.ts';
import { crossover, EXPERIMENTS, findExperiment, predictedPhase, table, worstBusyError, worstRunError } from '../study/sweep/experiments.ts';
import { plotSvg } from '../study/sweep/plot.ts';
import { runSweep } from '../study/sweep/sweep.ts';
import { configFor, firmwareFor, MXU16_ELFS, RV32IM_ELFS, SWEEP_ELFS, type ModelPoint, type RunRecord } from '../study/sweep/runs.ts';
import { BEST_VARIANT, VARIANT } from '../model/format.ts';
import { firmwareTag } from '../model/issue-cost.ts';
import { MODELLED_BITS } from '../model/model-program.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });

/** The series groups of an SVG: name, kind and number of points drawn. */
function seriesOf(svg: string): { name: string; kind: string; points: number }[] {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = parser.parse(svg) as { svg: { g: { class: string; 'data-series'?: string; 'data-kind'?: string; 'data-points'?: string }[] } };
  return doc.svg.g.filter((g) => g.class === 'series').map((g) => ({ name: g['data-series']!, kind: g['data-kind']!, points: Number(g['data-points']) }));
}

describe('plot', () => {
  it('writes a parseable SVG with one group per series, lines and points', () => {
    const svg = plotSvg({
      title: 'a <test> & more', xLabel: 'x', yLabel: 'y', xLog: true, yLog: true,
      series: [
        { name: 'predicted', kind: 'line', points: [[1, 2], [10, 20], [100, 200]] },
        { name: 'measured', kind: 'points', points: [[1, 2.1], [10, 19], [0, 5]] }, // x = 0 cannot sit on a log axis
      ],
    });
    const s = seriesOf(svg);
    expect(s).toEqual([{ name: 'predicted', kind: 'line', points: 3 }, { name: 'measured', kind: 'points', points: 2 }]);
    expect(svg).toContain('<path d="M');
    expect((svg.match(/<circle /g) ?? []).length).toBe(2 + 1); // two markers and one legend dot
  });

  it('draws categorical axes with every label', () => {
    const svg = plotSvg({ title: 't', xLabel: 'x', yLabel: 'y', xCategories: ['base', '+fusion'], series: [{ name: 'm', kind: 'points', points: [[0, 1], [1, 2]] }] });
    expect(svg).toContain('>base<');
    expect(svg).toContain('>+fusion<');
    expect(svg).not.toContain('rotate(-40');
  });

  it('slants category labels that would overlap, and widens the figure for a long legend', () => {
    const cats = Array.from({ length: 11 }, (_, i) => `platform change number ${i}`);
    const points: [number, number][] = cats.map((_, i) => [i, 1]);
    const svg = plotSvg({ title: 't', xLabel: 'x', yLabel: 'y', xCategories: cats, series: [{ name: 'm', kind: 'points', points }] });
    expect((svg.match(/transform="rotate\(-40 /g) ?? []).length).toBe(11);
    const size = (x: string) => x.match(/<svg [^>]*width="(\d+)" height="(\d+)"/)!.slice(1).map(Number);
    const plain = plotSvg({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 'm', kind: 'points', points }] });
    expect(size(svg)[1]).toBeGreaterThan(size(plain)[1]);
    const long = plotSvg({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 'a series name far longer than the legend column', kind: 'points', points }] });
    expect(size(long)[0]).toBeGreaterThan(size(plain)[0]);
    expect(size(plain)).toEqual([720, 440]);
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

    it(`${e.name}: figures parse and carry predicted lines and measured points`, () => {
      const report = e.report(records.get(e.name)!, 'small');
      expect(report.figures.length).toBeGreaterThan(0);
      for (const f of report.figures) {
        const s = seriesOf(f.svg);
        expect(s.some((x) => x.kind === 'line' && x.points >= 2)).toBe(true);
        expect(s.some((x) => x.kind === 'points' && x.points >= 1)).toBe(true);
        for (const x of s) expect(report.markdown).toContain(`figures/${f.file}`), expect(x.name.length).toBeGreaterThan(0);
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
    expect(seriesOf(readFileSync(join(dir, 'docs', 'figures', 'ladder.svg'), 'utf8')).length).toBe(6); // bound, measured and predicted run, prefill and full
    await expect(runSweep({ experiment: 'nope', results: dir, docs: dir, print: () => {} })).rejects.toThrow(/unknown experiment "nope"/);
  });

  it('picotpu sweep: a bad experiment or --jobs is one line and exit 165', () => {
    for (const args of [['nope'], ['ladder', '--jobs', '0']]) {
      const r = spawnSync(process.execPath, ['bin/picotpu.mjs', 'sweep', ...args], { encoding: 'utf8' });
      expect(r.status).toBe(165);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });
});
