// picotpu explore with the board as an axis: the grid's `board` (a name, an
// alias or a list), points on the write-up's board checked by the one point
// schema (its variants, its firmware's fit, no platform override), run through
// its firmware, and the report grouped by board — while a grid on picotpu
// alone keeps its keys, its fingerprint and its report byte for byte.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEED_VARIANT } from '../model/format.ts';
import { explore, loadGrid } from '../study/explore/explore.ts';
import { expandGrid, GridError, parseGrid } from '../study/explore/grid.ts';
import { checkRunnable, PointError, pointStatus } from '../study/explore/point-check.ts';
import { fingerprint } from '../study/sweep/engine.ts';
import { predictedPhase } from '../study/sweep/experiments.ts';
import { boardSets, elfsOfBoards, runPoint, SWEEP_ELFS, type ModelPoint } from '../study/sweep/runs.ts';
import { SEED_SWEEP_ELFS } from '../study/sweep/seed-points.ts';

const root = join(import.meta.dirname, '..');
const SMALL = { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 };
const grid = (extra: object) => JSON.stringify({ workloads: [{ kind: 'model', dims: 'small', promptLength: 8, decodeSteps: 2 }], ...extra });

describe('a grid\'s board', () => {
  it('takes a name, an alias or a list, and resolves each to the registry name', () => {
    expect(parseGrid(grid({}), 'g').boards).toEqual(['picotpu']);
    expect(parseGrid(grid({ board: 'seed' }), 'g').boards).toEqual(['transformer-tpu-int4']);
    expect(parseGrid(grid({ board: ['seed', 'picotpu'] }), 'g').boards).toEqual(['transformer-tpu-int4', 'picotpu']);
  });

  it('refuses a bad board in one line naming it', () => {
    const cases: [unknown, string][] = [
      ['tpu9', 'board: unknown board "tpu9" (boards: picotpu, transformer-tpu-int4, seed)'],
      [['picotpu', 'tpu9'], 'board[1]: unknown board "tpu9"'],
      [['seed', 'transformer-tpu-int4'], 'board[1]: the board transformer-tpu-int4 is already in the list'],
      [[], 'board must be a board\'s name or a non-empty list of them'],
      [42, 'board must be a board\'s name, got 42'],
    ];
    for (const [board, why] of cases) {
      let thrown: unknown;
      try { parseGrid(grid({ board }), 'g'); } catch (e) { thrown = e; }
      expect(thrown, JSON.stringify(board)).toBeInstanceOf(GridError);
      expect((thrown as Error).message, JSON.stringify(board)).toContain(why);
    }
  });

  it('picotpu alone: the same points and keys as a grid without board', () => {
    const axes = { variant: [7, 15], tpuWait: [0, 2] };
    const plain = expandGrid(parseGrid(grid({ axes }), 'g')).points, named = expandGrid(parseGrid(grid({ axes, board: 'picotpu' }), 'g')).points;
    expect(named.map((p) => [p.key, p.board])).toEqual(plain.map((p) => [p.key, 'picotpu']));
    expect(named.map((p) => p.run)).toEqual(plain.map((p) => p.run));
  });

  it('the write-up\'s board runs as built: each workload once per variant; other variants have no build there, a batch does not fit', () => {
    const g = parseGrid(JSON.stringify({
      board: ['picotpu', 'seed'], axes: { variant: [7, 2047], tpuWait: [0, 2] },
      workloads: [{ kind: 'model', dims: 'small', promptLength: 8, decodeSteps: 2, batch: [1, 2] }, { kind: 'matmul', m: 8, k: 64, n: 64 }],
    }), 'g');
    const { points } = expandGrid(g);
    const seed = points.filter((p) => p.board === 'transformer-tpu-int4');
    expect(points.filter((p) => p.board === 'picotpu')).toHaveLength(3 * 2 * 2);
    expect(seed.map((p) => `${p.key}: ${p.status.kind}`)).toEqual([
      'model d32 ff64 h2 L1 V16 S32 P8 D2 v7 on transformer-tpu-int4: run',
      'model d32 ff64 h2 L1 V16 S32 P8 D2 v2047 on transformer-tpu-int4: no firmware build',
      'model d32 ff64 h2 L1 V16 S32 P8 D2 B2 v7 on transformer-tpu-int4: does not fit',
      'model d32 ff64 h2 L1 V16 S32 P8 D2 B2 v2047 on transformer-tpu-int4: no firmware build',
      'mm 8x64x64 v7 on transformer-tpu-int4: no firmware build',
      'mm 8x64x64 v2047 on transformer-tpu-int4: no firmware build',
    ]);
    expect(seed[0].run).toEqual({ kind: 'model', dims: SMALL, promptLength: 8, decodeSteps: 2, variant: 7, check: true, board: 'transformer-tpu-int4' });
    expect(seed[2].status).toEqual({ kind: 'does not fit', why: 'its firmware decodes one sequence (batch 1), not a batch of 2' });
    expect(seed[4].status).toEqual({ kind: 'no firmware build', why: 'variant 7 has bits the transformer-tpu-int4 matmul benchmark does not have (its variants are 0..1)' });
    expect(pointStatus({ ...(seed[4].run as object), variant: 1 } as ModelPoint)).toEqual({ kind: 'run' });
    // Without a variant axis, the board's every variant bit.
    const every = Object.values(SEED_VARIANT).reduce((a, b) => a | b, 0);
    expect(expandGrid(parseGrid(grid({ board: 'seed' }), 'g')).points.map((p) => p.key)).toEqual([`model d32 ff64 h2 L1 V16 S32 P8 D2 v${every} on transformer-tpu-int4`]);
  });

  it('an exclusion may name the board (by any of its names); on the seed board one naming a platform knob matches nothing', () => {
    const keys = (exclude: object[]) => expandGrid(parseGrid(grid({ board: ['picotpu', 'seed'], axes: { variant: [0, 7], tpuWait: [0, 2] }, exclude }), 'g')).points
      .map((p) => p.key.replace('model d32 ff64 h2 L1 V16 S32 P8 D2 ', '').replace(/ mxu8 spad64 q8 (wait\d) sram1\/2 shift2 mul-none/, ' $1'));
    expect(keys([{ board: 'seed', variant: 0 }])).toEqual(['v0 wait0', 'v0 wait2', 'v7 wait0', 'v7 wait2', 'v7 on transformer-tpu-int4']);
    expect(keys([{ board: 'picotpu' }])).toEqual(['v0 on transformer-tpu-int4', 'v7 on transformer-tpu-int4']);
    expect(keys([{ tpuWait: 2 }])).toEqual(['v0 wait0', 'v7 wait0', 'v0 on transformer-tpu-int4', 'v7 on transformer-tpu-int4']);
    expect(keys([{ variant: 7 }])).toEqual(['v0 wait0', 'v0 wait2', 'v0 on transformer-tpu-int4']);
    expect(() => parseGrid(grid({ exclude: [{ board: 'tpu9' }] }), 'g')).toThrow('exclude[0].board: unknown board "tpu9"');
  });

  it('a job from the queue: a seed point is checked like any other — its board, no override, its variants and fit', () => {
    const point = { kind: 'model', dims: SMALL, promptLength: 8, decodeSteps: 2, variant: 7, board: 'transformer-tpu-int4' };
    expect(checkRunnable({ key: 'k', point }).point).toEqual(point);
    const bad: [object, RegExp][] = [
      [{ ...point, board: 'tpu9' }, /^board must name a board with model firmware \(picotpu, transformer-tpu-int4\), got "tpu9"$/],
      [{ ...point, board: 'seed' }, /^board must name a board with model firmware/],
      [{ ...point, config: { tpuWait: 0 } }, /^a point on the transformer-tpu-int4 board takes no platform override \(config\)/],
      [{ ...point, variant: 64 }, /^no firmware build: variant 64 has bits the transformer-tpu-int4 firmware does not have/],
      [{ ...point, promptLength: 30, decodeSteps: 8 }, /^does not fit: prompt_len \+ decode_steps exceeds max_seq$/],
    ];
    for (const [p, why] of bad) {
      let thrown: unknown;
      try { checkRunnable({ key: 'k', point: p }); } catch (e) { thrown = e; }
      expect(thrown, JSON.stringify(p)).toBeInstanceOf(PointError);
      expect((thrown as Error).message, JSON.stringify(p)).toMatch(why);
    }
    expect(pointStatus({ ...point, board: 'picotpu', variant: 15 } as ModelPoint)).toEqual({ kind: 'run' });
  });

  it('the fingerprint covers the grid\'s boards\' firmware, in one order: picotpu alone keeps the sweeps\' fingerprint', () => {
    expect(elfsOfBoards(['picotpu'])).toEqual(SWEEP_ELFS);
    expect(elfsOfBoards(['transformer-tpu-int4', 'picotpu'])).toEqual([...SWEEP_ELFS, ...SEED_SWEEP_ELFS]);
    expect(fingerprint(elfsOfBoards(['picotpu']))).toBe(fingerprint());
    expect(boardSets()).toEqual([['picotpu'], ['picotpu', 'transformer-tpu-int4'], ['transformer-tpu-int4']]);
  });

  it('the bundled grid over both boards runs points on each and reports some on the seed board as not run', () => {
    const { points, grid: g } = loadGrid(join(root, 'study/explore/boards-grid.json'));
    expect(g.boards).toEqual(['picotpu', 'transformer-tpu-int4']);
    for (const board of g.boards) expect(points.some((p) => p.board === board && p.status.kind === 'run'), board).toBe(true);
    expect(points.some((p) => p.board === 'transformer-tpu-int4' && p.status.kind !== 'run')).toBe(true);
  });
});

describe.sequential('explore over both boards', () => {
  it('runs each board\'s points on its firmware, busy exact on the seed board, and groups the report by board', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-explore-boards-'));
    const file = join(dir, 'two.json');
    writeFileSync(file, JSON.stringify({ name: 'two', board: ['picotpu', 'seed'], workloads: [{ kind: 'model', dims: 'small', promptLength: 8, decodeSteps: 2 }], axes: { variant: [0, 7] } }));
    const r = await explore({ gridFile: file, results: dir, docs: dir, jobs: 1 });
    const lines = readFileSync(r.resultsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => l.fingerprint))).toEqual(new Set([fingerprint(elfsOfBoards(['picotpu', 'transformer-tpu-int4']))]));
    for (const { record } of lines.filter((l) => l.record.point.board)) {
      for (const m of record.measured) {
        const p = predictedPhase(record, m.name);
        expect([p.mxu, p.vpu, p.dma], `${record.key} ${m.name}`).toEqual([m.mxu, m.vpu, m.dma]);
      }
    }
    const md = readFileSync(join(dir, 'explore-two.md'), 'utf8');
    expect(md).toContain('grid two: 4 points on picotpu and transformer-tpu-int4 (4 run, 0 with no firmware build, 0 that do not fit)');
    expect(md).toContain('tokens: 4 of 4 model points equal the golden model\'s');
    expect(md).toContain('## Every point on picotpu');
    expect(md).toContain('## Every point on transformer-tpu-int4');
    expect(md).toMatch(/## The boards compared\n\n```\nworkload +\| best on picotpu \| best on transformer-tpu-int4 \|/);
    expect(md).toMatch(/the variant that pays most for full on transformer-tpu-int4: 7 instead of 0 runs \d+\.\d\dx faster/);
  }, 120_000);

  it('a grid on the seed board alone: its table and variants, no FPGA front, no comparison', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-explore-boards-'));
    const file = join(dir, 'one.json');
    writeFileSync(file, JSON.stringify({ name: 'one', board: 'seed', workloads: [{ kind: 'model', dims: 'small', promptLength: 8, decodeSteps: 1 }], axes: { variant: [0, 7] } }));
    const r = await explore({ gridFile: file, results: dir, docs: dir, jobs: 1 });
    expect(r.report!.text).toContain('== Every point on transformer-tpu-int4 ==');
    expect(r.report!.text).toMatch(/the variant that pays most for full on transformer-tpu-int4: \d instead of \d runs \d+\.\d\dx faster \(geometric mean over 1 workload\)/);
    for (const absent of ['Pareto', 'The boards compared', 'knob']) expect(r.report!.markdown).not.toContain(absent);
  }, 60_000);

  it('a grid with board "picotpu" writes the same report as one without', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-explore-boards-'));
    const body = { workloads: [{ kind: 'matmul', m: 8, k: 64, n: 64 }], axes: { tpuWait: [0, 2] } };
    const reports: string[] = [];
    for (const [name, extra] of [['plain', {}], ['named', { board: 'picotpu' }]] as const) {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ name: 'same', ...body, ...extra }));
      await explore({ gridFile: file, results: join(dir, name), docs: join(dir, name), jobs: 1 });
      reports.push(readFileSync(join(dir, name, 'explore-same.md'), 'utf8'));
    }
    expect(reports[1]).toBe(reports[0]);
    expect(reports[0]).not.toContain('transformer-tpu-int4');
  }, 60_000);

  it('picotpu explore: an unknown board in a grid is one line and exit 165', () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-explore-boards-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, grid({ board: ['picotpu', 'tpu9'] }));
    const r = spawnSync(process.execPath, ['bin/picotpu.cjs', 'explore', file, '--results', dir, '--docs', dir], { encoding: 'utf8' });
    expect(r.status).toBe(165);
    expect(r.stderr.trim().split('\n')).toEqual([`picotpu: grid ${file}: board[1]: unknown board "tpu9" (boards: picotpu, transformer-tpu-int4, seed)`]);
    expect(r.stdout).toBe('');
  });
});

describe('the explore reports in docs/ are this firmware\'s (rerun the grid when this fails)', () => {
  it.each([['docs/explore-example.md', 'study/explore/example-grid.json'], ['docs/explore-boards.md', 'study/explore/boards-grid.json']])('%s', (doc, gridFile) => {
    const text = readFileSync(join(root, doc), 'utf8');
    const { grid: g, points } = loadGrid(join(root, gridFile));
    expect(text, `node bin/picotpu.cjs explore ${gridFile} --docs docs`).toContain(`firmware fingerprint ${fingerprint(elfsOfBoards(g.boards))}`);
    expect(text).toContain(`grid ${g.name}: ${points.length} points`);
    expect(text).not.toMatch(/not run yet/);
  });

  it('docs/explore-boards.md: the small model\'s rows on each board are what the points give today', () => {
    const text = readFileSync(join(root, 'docs/explore-boards.md'), 'utf8').split('\n');
    const { points } = loadGrid(join(root, 'study/explore/boards-grid.json'));
    const mine = points.filter((p) => p.status.kind === 'run' && p.key.startsWith('model d32 ff64 h2 L1 V16 S32 P16 D8 v7 ') && (p.board !== 'picotpu' || p.key.includes(' wait2 ')));
    expect(mine.map((p) => p.board)).toEqual(['picotpu', 'transformer-tpu-int4']);
    for (const p of mine) {
      const r = runPoint(p.key, p.run);
      const row = text.find((l) => l.startsWith(`${p.key} `));
      expect(row, p.key).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim());
      const total = r.measured.reduce((a, m) => a + m.cycles, 0);
      expect(cells[1], `${p.key}: node bin/picotpu.cjs explore study/explore/boards-grid.json --docs docs`).toBe(total.toLocaleString('en-US'));
    }
  }, 60_000);
});
