// `picotpu sweep --board seed`: the scaling experiments on the write-up's
// board at their small scale — every point a job its firmware takes, every
// busy-clock prediction equal to the measurement in each window, figures drawn
// by Vega-Lite, its own document with a one-line reason for each experiment
// the board cannot run — bad input as one line and exit 165, and the sweep
// documents in docs/ made by the firmware built today.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedModelMisfit } from '../model/seed-fit.ts';
import { pointStatus } from '../study/explore/point-check.ts';
import { fingerprint, sweep } from '../study/sweep/engine.ts';
import { findExperiment, predictedPhase, worstRunError, type Scale } from '../study/sweep/experiments.ts';
import { measuredPhase } from '../study/sweep/charts.ts';
import { SEED_SWEEP_SMALL_RUN_BOUND_PCT } from './helpers/prediction-bounds.ts';
import { renderSvg, specWarnings } from '../study/sweep/render.ts';
import { errorPct, runPoint, SWEEP_ELFS, type MatmulPoint, type ModelPoint, type RunRecord } from '../study/sweep/runs.ts';
import { predictSeedMatmul, runSeedMatmul, seedMatmulMisfit } from '../study/sweep/seed-matmul.ts';
import { SEED_EXPERIMENTS } from '../study/sweep/seed-experiments.ts';
import { SEED_SWEEP_ELFS } from '../study/sweep/seed-points.ts';
import { runSweep } from '../study/sweep/sweep.ts';
import { marksOf, seriesColors } from './helpers/figure-marks.ts';

const runnable = SEED_EXPERIMENTS.filter((e) => !e.unavailable);

describe('the seed sweep plans', () => {
  it.each(['small', 'full'] as Scale[])('every %s point is a model job on the seed board that its firmware takes', (scale) => {
    for (const e of runnable) {
      const plan = e.plan(scale);
      expect(plan.length, e.name).toBeGreaterThan(0);
      for (const { key, point } of plan) {
        expect(point.kind === 'model' || point.kind === 'matmul', key).toBe(true);
        const p = point as ModelPoint | MatmulPoint;
        expect(p.board, key).toBe('transformer-tpu-int4');
        if (p.kind === 'model') expect(seedModelMisfit(p.dims, p.promptLength, p.decodeSteps, p.batch ?? 1), `${e.name} ${key}`).toBeNull();
        else expect(seedMatmulMisfit(p), `${e.name} ${key}`).toBeNull();
        expect(pointStatus(p), `${e.name} ${key}`).toEqual({ kind: 'run' });
      }
    }
  });

  it('the experiments the board cannot run have empty plans and one-line reasons', () => {
    const out = SEED_EXPERIMENTS.filter((e) => e.unavailable);
    expect(out.map((e) => e.name)).toEqual(['what-if', 'multi-device']);
    for (const e of out) {
      expect(e.plan('full')).toEqual([]);
      expect(e.unavailable).not.toContain('\n');
      expect(e.report([], 'full').markdown).toBe(`## ${e.title}\n\nNot run on this board: ${e.unavailable}.\n`);
    }
  });
});

describe('the seed board\'s mmbench', () => {
  it.each([[{ m: 136, k: 512, n: 64 }, 0], [{ m: 136, k: 512, n: 64 }, 1], [{ m: 8, k: 1024, n: 8 }, 1], [{ m: 72, k: 64, n: 1024 }, 1]] as const)(
    '%o variant %d: C is the seed\'s arithmetic\'s, busy clocks as predicted (row blocks, the largest panel, the widest C)', (shape, variant) => {
      const r = runSeedMatmul(shape, variant), p = predictSeedMatmul(shape);
      expect(r.correct).toBe(true);
      expect({ mxu: r.counters.mxuBusy, vpu: r.counters.vpuBusy, dma: r.counters.dmaBusy }).toEqual({ mxu: p.mxu, vpu: 0, dma: p.dma });
    });

  it('refuses what mmbench.c refuses, in one line', () => {
    expect(seedMatmulMisfit({ m: 8, k: 1032, n: 8 })).toMatch(/a weight panel of K = 1032 rows \(4128 bytes\) exceeds its 4096-byte bank/);
    expect(seedMatmulMisfit({ m: 1, k: 64, n: 64 })).toMatch(/multiples of 8/);
    expect(() => runSeedMatmul({ m: 1, k: 64, n: 64 }, 1)).toThrow(/cannot run 1x64x64: M, K and N must be multiples of 8/);
  });
});

describe.sequential('seed experiments, small instances', () => {
  const records = new Map<string, RunRecord[]>();
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-seed-'));
    for (const e of runnable) records.set(e.name, await sweep(e.plan('small'), { file: join(dir, `${e.name}.jsonl`), jobs: 1, elfs: SEED_SWEEP_ELFS }));
  }, 120_000);

  for (const e of runnable) {
    it(`${e.name}: every window's busy clocks equal the prediction, its run clocks within the seed's bound`, () => {
      const rs = records.get(e.name)!;
      const wrong = rs.flatMap((r) => r.measured.flatMap((m) => {
        const p = predictedPhase(r, m.name);
        const pred = { mxu: p.mxu, vpu: p.vpu, dma: p.dma }, measured = { mxu: m.mxu, vpu: m.vpu, dma: m.dma };
        return JSON.stringify(pred) === JSON.stringify(measured) ? [] : [{ key: r.key, phase: m.name, pred, measured }];
      }));
      expect(wrong).toEqual([]);
      // Prefill and decode apart wherever the run decoded.
      for (const r of rs) expect(r.measured.map((m) => m.name), r.key).toEqual(r.point.kind === 'matmul' ? ['matmul'] : r.point.decodeSteps ? ['prefill', 'decode'] : ['prefill']);
      // model/seed-schedule.ts covers every window of every variant (model.c's flows, and chained.c's through
      // model/seed-ring.ts): its "-" are exactly mmbench's.
      const run = worstRunError(rs);
      console.log(`  ${e.name}: largest run-clock error ${run.worst.toFixed(3)} %`);
      const uncovered = rs.filter((r) => r.predicted.some((p) => p.runClocks === null)).map((r) => r.key);
      expect(uncovered).toEqual(rs.filter((r) => r.point.kind === 'matmul').map((r) => r.key));
      expect(run.worst).toBeLessThanOrEqual(SEED_SWEEP_SMALL_RUN_BOUND_PCT);
      const report = e.report(rs, 'small');
      expect(report.markdown).toContain(report.text);
      expect(report.text).toMatch(/largest busy-clock prediction error \(MXU, VPU, DMA, every run\): 0\.00%/);
    });

    it(`${e.name}: figures draw each series in one colour`, async () => {
      const report = e.report(records.get(e.name)!, 'small');
      for (const f of report.figures) {
        expect(f.file.startsWith('seed-'), f.file).toBe(true);
        expect(specWarnings(f.spec), f.file).toEqual([]);
        const marks = marksOf(await renderSvg(f.spec));
        seriesColors(marks);
        expect(marks.some((m) => m.kind === 'measured'), f.file).toBe(true);
        expect(report.markdown).toContain(`figures/${f.file}`);
      }
    });
  }

  it('batched decode runs batch 1 and says why no more; context runs the write-up\'s T = 256 at d = 128 (streamed)', () => {
    const batched = SEED_EXPERIMENTS.find((e) => e.name === 'batched-decode')!.report(records.get('batched-decode')!, 'small');
    expect(batched.text).toContain('batches above 1: not run — its firmware decodes one sequence (batch 1), not a batch of 2');
    const context = SEED_EXPERIMENTS.find((e) => e.name === 'context')!;
    expect(context.plan('full').map((p) => p.key)).toEqual(expect.arrayContaining(['d128 T256 v3', 'd128 T256 v7']));
    expect(context.report(records.get('context')!, 'small').text).not.toContain('not run');
  });
});

describe.sequential('sweep --board seed', () => {
  it('worker threads give the same records as one thread (determinism)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-seed-'));
    const plan = SEED_EXPERIMENTS.find((e) => e.name === 'ladder')!.plan('small');
    const one = await sweep(plan, { file: join(dir, 'a.jsonl'), jobs: 1, elfs: SEED_SWEEP_ELFS });
    const two = await sweep(plan, { file: join(dir, 'b.jsonl'), jobs: 2, elfs: SEED_SWEEP_ELFS });
    const strip = (rs: RunRecord[]) => rs.map(({ wallMs: _w, ...r }) => r);
    expect(strip(two)).toEqual(strip(one));
  }, 60_000);

  it('writes scaling-seed.md beside scaling.md, never over it: its sections, the reasons, its fingerprint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-sweep-seed-'));
    const printed: string[] = [];
    await runSweep({ experiment: 'ladder', board: 'transformer-tpu-int4', scale: 'small', jobs: 1, results: join(dir, 'r'), docs: join(dir, 'docs'), print: (t) => printed.push(t) });
    const doc = readFileSync(join(dir, 'docs', 'scaling-seed.md'), 'utf8');
    expect(() => readFileSync(join(dir, 'docs', 'scaling.md'))).toThrow();
    expect(doc).toContain(`firmware fingerprint \`${fingerprint(SEED_SWEEP_ELFS)}\` (build/fw/seed-model.elf; \`picotpu sweep --board seed\``);
    expect(doc).toContain('![The optimisation ladder (transformer-tpu-int4)](figures/seed-ladder.svg)');
    expect(doc).toContain('Not run yet with this firmware: `picotpu sweep context --board seed`');
    expect(doc).toContain('## Platform what-ifs\n\nNot run on this board: the board runs as its RTL is built');
    expect(doc).toContain(printed[0].split('\n').slice(1).join('\n').trim());
  });

  it('bad input is one line and exit 165: an experiment the board cannot run, an unknown board', () => {
    const cases: [string[], RegExp][] = [
      [['what-if', '--board', 'seed'], /^picotpu: what-if does not run on the transformer-tpu-int4 board: the board runs as its RTL is built/],
      [['multi-device', '--board', 'transformer-tpu-int4'], /^picotpu: multi-device does not run on the transformer-tpu-int4 board: the board has no board-to-board link/],
      [['ladder', '--board', 'tpu9'], /^picotpu: unknown board "tpu9" \(boards: picotpu, transformer-tpu-int4, seed\)/],
    ];
    for (const [args, line] of cases) {
      const r = spawnSync(process.execPath, ['bin/picotpu.cjs', 'sweep', ...args, '--results', mkdtempSync(join(tmpdir(), 'picotpu-sweep-seed-'))], { encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(165);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(line);
      expect(r.stdout).toBe('');
    }
  });
});

describe('the sweep documents in docs/ are this firmware\'s (rerun the sweep when this fails)', () => {
  // One row of each document's context table, run again: its measured and predicted clocks are today's (the
  // fingerprint covers the firmware; this covers the emulator and the predictions too, at a fraction of a second).
  it.each([
    ['docs/scaling.md', 'd=64 T=32', findExperiment('context')!, 'picotpu sweep all'],
    ['docs/scaling-seed.md', 'd=128 T=16', SEED_EXPERIMENTS.find((e) => e.name === 'context')!, 'picotpu sweep all --board seed'],
  ] as const)('%s: its context row %s is what the sweep gives today', (file, row, experiment, command) => {
    const [d, t] = /^d=(\d+) T=(\d+)$/.exec(row)!.slice(1).map(Number);
    const points = experiment.plan('full').filter((p) => p.key.startsWith(`d${d} T${t} `));
    expect(points).toHaveLength(2);
    const [standard, flash] = points.map((p) => runPoint(p.key, p.point));
    const cells = (r: RunRecord) => {
      const m = measuredPhase(r, 'prefill'), run = predictedPhase(r, 'prefill').runClocks!;
      return { clocks: m.cycles.toLocaleString('en-US'), run: `${Math.round(run).toLocaleString('en-US')} (${errorPct(run, m.cycles) >= 0 ? '+' : ''}${errorPct(run, m.cycles).toFixed(2)}%)` };
    };
    const s = cells(standard), f = cells(flash);
    const line = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith(`${row} `));
    expect(line, `${file} has no row ${row}`).toBeDefined();
    const got = line!.split('|').map((c) => c.trim());
    expect([got[1], got[2], got.at(-2), got.at(-1)], `${file} is stale: ${command}`).toEqual([s.clocks, f.clocks, s.run, f.run]);
  }, 60_000);

  it.each([
    ['docs/scaling.md', SWEEP_ELFS, 'picotpu sweep all'],
    ['docs/scaling-seed.md', SEED_SWEEP_ELFS, 'picotpu sweep all --board seed'],
  ] as const)('%s', (file, elfs, command) => {
    const doc = readFileSync(file, 'utf8');
    const fp = /firmware fingerprint `([0-9a-f]{16})`/.exec(doc)?.[1];
    expect(fp, `${file} names no fingerprint`).toBeDefined();
    expect(fp, `${file} was made by other firmware: ${command}`).toBe(fingerprint(elfs));
    expect(doc, `${file} has experiments not run: ${command}`).not.toContain('Not run yet');
  });
});
