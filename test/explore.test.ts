// picotpu explore: grids (expansion, points with no firmware build or that do
// not fit), the FPGA estimate, the Pareto front, and the BullMQ queue on a real
// redis-server: two worker processes give the local engine's records point for
// point, a worker killed mid-job loses nothing, a coordinator stopped and
// started again re-runs nothing, a worker of other firmware is refused with
// its message, and an unreachable server is one line and exit status 168.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { EXIT } from '../emu/exit-status.ts';
import { fpgaCost } from '../study/explore/cost.ts';
import { loadGrid, planOf } from '../study/explore/explore.ts';
import { expandGrid, parseGrid, type Knobs } from '../study/explore/grid.ts';
import { QUEUE_NAME, QueueRefused, runOnQueue } from '../study/explore/queue.ts';
import { paretoFront } from '../study/explore/report.ts';
import { appendRecord, fingerprint, readRecords, sweep } from '../study/sweep/engine.ts';
import type { RunRecord } from '../study/sweep/runs.ts';
import { CLI, root, runCli } from './helpers/cli-process.ts';
import { marksOf, seriesColors } from './helpers/figure-marks.ts';
import { freePort, hasRedisServer, startRedis, type RedisServer } from '../study/explore/local-redis.ts';

const AS_BUILT: Knobs = { variant: 15, mxuDim: 8, spadKiB: 64, queueDepth: 8, tpuWait: 2, sramReadClocksPerByte: 1, sramWriteClocksPerByte: 2, barrelShifter: false, multiply: 'none' };

describe('explore grids', () => {
  it('expands every combination, drops the exclusions, and classifies points with no firmware build and that do not fit', () => {
    const g = parseGrid(JSON.stringify({
      workloads: [{ kind: 'model', dims: 'small', promptLength: [8, 30], decodeSteps: 4 }],
      axes: { mxuDim: [8, 16], spadKiB: [32, 64] }, exclude: [{ mxuDim: 16, spadKiB: 64, promptLength: 8 }],
    }), 'g');
    const { points, excluded } = expandGrid(g);
    expect(excluded).toBe(1);
    expect(points).toHaveLength(7);
    const kinds = (k: string) => points.filter((p) => p.status.kind === k).map((p) => p.key.replace(/ q8.*/, '').replace('model d32 ff64 h2 L1 V16 S32 ', ''));
    expect(kinds('run')).toEqual(['P8 D4 v15 mxu8 spad32', 'P8 D4 v15 mxu8 spad64']);
    expect(kinds('no firmware build')).toEqual(['P8 D4 v15 mxu16 spad32', 'P30 D4 v15 mxu16 spad32']);
    expect(kinds('does not fit')).toEqual(['P30 D4 v15 mxu8 spad32', 'P30 D4 v15 mxu8 spad64', 'P30 D4 v15 mxu16 spad64']);
  });

  it('refuses a bad grid in one line', () => {
    expect(() => parseGrid('{"workloads": [], "axes": {}}', 'g')).toThrow('workloads must be a non-empty list');
    expect(() => parseGrid('{"workloads": [{"kind": "matmul", "m": 8, "k": 8, "n": 8}], "axes": {"mxuSize": [8]}}', 'g')).toThrow('unknown axis "mxuSize"');
    expect(() => expandGrid(parseGrid('{"workloads": [{"kind": "matmul", "m": 8, "k": 8, "n": 8}], "axes": {"queueDepth": [0]}}', 'g'))).toThrow('queueDepth must be 1..255');
  });

  it('the bundled example grid has at least 200 points to run', () => {
    const { points } = loadGrid(join(root, 'study/explore/example-grid.json'));
    expect(points.filter((p) => p.status.kind === 'run').length).toBeGreaterThanOrEqual(200);
  });
});

describe('the FPGA estimate and the Pareto front', () => {
  it('counts the platform as built as docs/hardware.md §9 does', () => {
    // 16 scratchpad regions of 4 KiB + 16 tiles of program BRAM; 64 PEs, one DSP48E1 each; LUTs: core + TPU + three 8-deep command queues (7 × 32 bits each, 64 deep per LUT).
    expect(fpgaCost(AS_BUILT)).toMatchObject({ bram36: 32, dsp48: 64, pes: 64, luts: 1_800 + 4_000 + 3 * 224, fits: true });
    // 16×16: 256 PEs, the 90 DSPs hold 90, the other 166 are LUTs.
    expect(fpgaCost({ ...AS_BUILT, mxuDim: 16, spadKiB: 32 })).toMatchObject({ bram36: 24, dsp48: 90, luts: 1_800 + 8_000 + 166 * 40 + 672 });
  });

  it('keeps per workload the designs no cheaper design beats, and only those that fit', () => {
    const row = (key: string, cost: number, objective: number, fits = true, workload = 'w') => ({ key, workload, cost, objective, fits });
    expect(paretoFront([row('a', 1, 100), row('b', 2, 120), row('c', 2, 80), row('d', 3, 80), row('e', 4, 10, false), row('f', 0.5, 1, true, 'other')])).toEqual(['a', 'c', 'f']);
  });
});

// ---- the queue ----

const needRedis = skipWhenMissing(hasRedisServer(), 'explore.test.ts', 'redis-server', 'install: bash toolchain/ensure-toolchain.sh --with-test-tools');

/** 16 small points; the base variant's are the slow ones (a few hundred ms), long enough to kill a worker inside. */
const QUEUE_GRID = {
  name: 'queue-test', objective: 'full',
  workloads: [{ kind: 'model', dims: 'small', promptLength: 8, decodeSteps: 2 }],
  axes: { variant: [0, 2047], mxuDim: [8, 16], queueDepth: [1, 8], tpuWait: [0, 2] },
};

interface Proc { child: ChildProcess; out: string; err: string; exit: Promise<number | null> }
function start(args: string[], onOut?: (p: Proc) => void): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, out: '', err: '', exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (b: Buffer) => { p.out += b; onOut?.(p); });
  child.stderr!.on('data', (b: Buffer) => { p.err += b; });
  return p;
}
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { fingerprint: string; record: RunRecord });
const sansWall = (r: RunRecord) => ({ ...r, wallMs: 0 });
const until = async (cond: () => boolean | Promise<boolean>, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!(await cond())) { if (Date.now() > end) throw new Error(`timed out waiting for ${what}`); await new Promise((r) => setTimeout(r, 25)); }
};

describe.skipIf(needRedis)('explore through a BullMQ queue on redis-server', () => {
  let redis: RedisServer;
  const dir = mkdtempSync(join(tmpdir(), 'picotpu-explore-'));
  const gridFile = join(dir, 'queue-test.json');
  const workers: Proc[] = [];
  beforeAll(async () => {
    writeFileSync(gridFile, JSON.stringify(QUEUE_GRID));
    redis = await startRedis();
  });
  afterAll(() => {
    for (const w of workers) w.child.kill('SIGKILL');
    redis?.stop();
  });
  // Small lock and stalled-check times so a killed worker's job comes back in about a second.
  const workerArgs = () => ['worker', '--queue', redis.url, '--concurrency', '1', '--lock-duration', '1000', '--stalled-interval', '500'];

  it('two workers give the local engine\'s records point for point, through a SIGKILLed worker and a restarted coordinator', async () => {
    const { points } = loadGrid(gridFile);
    const plan = planOf(points);
    expect(plan.length).toBeGreaterThanOrEqual(12);
    const local = await sweep(plan, { file: join(dir, 'local.jsonl'), jobs: 2 });

    let killed: string | null = null;
    const killInside = (p: Proc) => {
      const m = /^start (.* v0 .*)$/m.exec(p.out);
      if (!killed && m) { killed = m[1]; p.child.kill('SIGKILL'); }
    };
    workers.push(start(workerArgs(), killInside), start(workerArgs(), killInside));
    const results = join(dir, 'queued');
    const args = ['explore', gridFile, '--queue', redis.url, '--results', results, '--docs', results];
    const file = join(results, 'queue-test.jsonl');
    const first = start(args);
    await until(() => existsSync(file) && lines(file).length >= 3, 60_000, 'three recorded points');
    first.child.kill('SIGINT');
    expect(await first.exit).toBe(EXIT.INTERRUPTED);
    expect(first.err).toMatch(/stopped after .* run the same command again to go on/);
    const second = start(args);
    expect(await second.exit, second.err).toBe(0);

    // Every point once, each record the local engine's but for the host time it took.
    const got = lines(file);
    expect(got.map((l) => l.record.key).sort()).toEqual(plan.map((p) => p.key).sort());
    expect(got.every((l) => l.fingerprint === fingerprint())).toBe(true);
    const byKey = new Map(got.map((l) => [l.record.key, l.record]));
    for (const r of local) expect(sansWall(byKey.get(r.key)!)).toEqual(sansWall(r));
    // The killed worker started a job and never finished it; the other one did, and no point ran twice.
    expect(killed).not.toBeNull();
    const dead = workers.find((w) => w.child.signalCode === 'SIGKILL')!, alive = workers.find((w) => w !== dead)!;
    expect(dead.out).toContain(`start ${killed}`);
    expect(dead.out).not.toContain(`done ${killed}`);
    expect(alive.out).toContain(`done ${killed}`);
    const done = [...`${dead.out}${alive.out}`.matchAll(/^done (.*) \(\d+ ms\)$/gm)].map((m) => m[1]);
    expect(done.sort()).toEqual(plan.map((p) => p.key).sort());
    expect(readFileSync(join(results, 'explore-queue-test.md'), 'utf8')).toContain('the knob that pays most for full');
    const svg = readFileSync(join(results, 'figures', 'explore-queue-test-pareto.svg'), 'utf8');
    // One colour for the workload: every point it ran (points) and its Pareto front (a line).
    const marks = marksOf(svg);
    expect([...seriesColors(marks).keys()]).toEqual(['model d32 ff64 h2 L1 V16 S32 P8 D2']);
    expect(marks.filter((m) => m.role === 'point')).toHaveLength(plan.length);
    expect(marks.filter((m) => m.role === 'line mark').map((m) => m.kind)).toEqual(['Pareto front']);
  });

  it('a restarted coordinator removes a job whose record the stopped one wrote but did not remove, without running it again', async () => {
    const alive = workers.find((w) => w.child.exitCode === null && w.child.signalCode === null)!;
    const { points } = loadGrid(gridFile);
    const [left, next] = planOf(points).slice(0, 2).map((p) => ({ ...p, key: `${p.key} leftover` }));
    const file = join(dir, 'leftover.jsonl');
    // What a coordinator stopped between writing a batch and removing its jobs leaves: the job finished in Redis, its record in the file.
    const { Queue } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE_NAME, { connection });
    try {
      await queue.add(left.key, { fingerprint: fingerprint(), run: left }, { jobId: left.key });
      await until(async () => (await queue.getJobState(left.key)) === 'completed', 30_000, 'the leftover job');
      const job = await queue.getJob(left.key);
      appendRecord(file, fingerprint(), job!.returnvalue.record);

      const records = await runOnQueue([left, next], { url: redis.url, file });
      expect(records!.map((r) => r.key)).toEqual([left.key, next.key]);
      expect(await queue.getJob(left.key)).toBeUndefined();
      expect(await queue.getJob(next.key)).toBeUndefined();
      expect(alive.out.split(`done ${left.key} `).length - 1).toBe(1);
      expect(lines(file).map((l) => l.record.key)).toEqual([left.key, next.key]);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }, 60_000);

  it('two coordinators of the same points at once both finish, each with every record', async () => {
    const { points } = loadGrid(gridFile);
    const plan = planOf(points).slice(0, 4).map((p) => ({ ...p, key: `${p.key} twice` }));
    // Each collects and removes the jobs it sees finish; the other adds the ones it missed again.
    const [a, b] = await Promise.all(['a', 'b'].map((n) => runOnQueue(plan, { url: redis.url, file: join(dir, `twice-${n}.jsonl`) })));
    expect(a!.map((r) => r.key)).toEqual(plan.map((p) => p.key));
    expect(b!.map(sansWall)).toEqual(a!.map(sansWall));
  }, 60_000);

  it('a worker of other firmware refuses the job, and the coordinator stops with its message', async () => {
    const alive = workers.find((w) => w.child.exitCode === null && w.child.signalCode === null)!;
    const { points } = loadGrid(gridFile);
    const refused = runOnQueue(planOf(points).slice(0, 1), { url: redis.url, file: join(dir, 'other.jsonl'), fingerprint: '0123456789abcdef' });
    await expect(refused).rejects.toThrow(QueueRefused);
    await expect(refused).rejects.toThrow(/refused by worker \S+: its firmware fingerprint [0-9a-f]{16} differs from the coordinator's 0123456789abcdef/);
    expect(await alive.exit).toBe(EXIT.QUEUE_REFUSED);
    expect(alive.err).toMatch(/^picotpu: point .*: refused by worker .* differs from the coordinator's 0123456789abcdef/);
    expect(readRecords(join(dir, 'other.jsonl'), '0123456789abcdef').size).toBe(0);
  }, 60_000);

  it('an unreachable server is one line and exit status 168', async () => {
    const port = await freePort();
    for (const cmd of [['explore', gridFile, '--results', join(dir, 'none')], ['worker']]) {
      const r = await runCli([...cmd, '--queue', `redis://127.0.0.1:${port}/0`], { timeoutMs: 30_000 });
      expect(r.status).toBe(EXIT.QUEUE_UNREACHABLE);
      expect(r.stderr).toBe(`picotpu: cannot reach the queue at redis://127.0.0.1:${port}/0: connect ECONNREFUSED 127.0.0.1:${port}\n`);
    }
    const bad = await runCli(['worker', '--queue', 'http://127.0.0.1/0'], { timeoutMs: 30_000 });
    expect(bad.status).toBe(EXIT.USAGE);
  });
});
