// Nothing in explore, sweep or the queue crashes, hangs or misleads on bad
// input: malformed grid entries are refused naming the entry (165), a grid's
// size is refused before it is expanded, points no firmware build can run are
// classified; damaged results files, a results path that is a directory or a
// device, a grid file without end, output directories under /proc and a full
// standard output are one line each; a queue worker fails a bad job with its
// reason and goes on, its thread pool survives a point that kills a thread;
// the coordinator goes on past a result that is not a record, escapes what
// workers say, and says one line when Redis goes away and one when it is back.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { EXIT } from '../emu/exit-status.ts';
import { MATMUL_MAX_K } from '../model/run.ts';
import { OutputError } from '../emu/observe/output-file.ts';
import { expandGrid, parseGrid } from '../study/explore/grid.ts';
import { freePort, hasRedisServer } from '../study/explore/local-redis.ts';
import { QUEUE_NAME, runOnQueue } from '../study/explore/queue.ts';
import { fingerprint, PointPool, readRecords, type PlannedRun } from '../study/sweep/engine.ts';
import { runPoint, type MatmulPoint } from '../study/sweep/runs.ts';
import { CLI, root, runCli } from './helpers/cli-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'picotpu-explore-robust-'));
const MM = { kind: 'matmul', m: 8, k: 8, n: 8 };
const SMALL = { kind: 'model', dims: 'small', promptLength: 4, decodeSteps: 1 };
const grid = (g: object) => JSON.stringify({ workloads: [MM], ...g });
const load = (text: string) => expandGrid(parseGrid(text, 'g'));

/** One line on standard error, starting with picotpu:, no stack. */
const oneLine = (stderr: string) => {
  expect(stderr.split('\n').filter(Boolean), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^picotpu: /);
  expect(stderr).not.toMatch(/\n\s+at |internal error/);
};

describe('grids: malformed entries are refused naming the entry', () => {
  const cases: [string, string, RegExp][] = [
    ['a null workload', JSON.stringify({ workloads: [null] }), /^workloads\[0\] must be an object/],
    ['a model workload without dims', JSON.stringify({ workloads: [{ kind: 'model', promptLength: 4, decodeSteps: 1 }] }), /^workloads\[0\]\.dims is missing/],
    ['dims null', JSON.stringify({ workloads: [{ ...SMALL, dims: null }] }), /^workloads\[0\]\.dims is missing/],
    ['dims {}', JSON.stringify({ workloads: [{ ...SMALL, dims: {} }] }), /^workloads\[0\]: dims\.d is missing/],
    ['dims as strings', JSON.stringify({ workloads: [{ ...SMALL, dims: { d: '32', dFF: '64', heads: '2', layers: '1', vocab: '16', maxSeq: '32' } }] }), /^workloads\[0\]: dims\.d must be an integer ≥ 1, got "32"/],
    ['an unknown named dims', JSON.stringify({ workloads: [{ ...SMALL, dims: 'constructor' }] }), /^workloads\[0\]\.dims: unknown model dims "constructor"/],
    ['exclude [null]', grid({ exclude: [null] }), /^exclude\[0\] must be an object naming at least one field, got null/],
    ['exclude [1]', grid({ exclude: [1] }), /^exclude\[0\] must be an object naming at least one field, got 1/],
    ['exclude [{}]', grid({ exclude: [{}] }), /^exclude\[0\] must be an object naming at least one field/],
    ['an exclusion value that is a list', grid({ exclude: [{ m: [8] }] }), /^exclude\[0\]\.m must be a number, true, false or a string/],
    ['matmul m 0', JSON.stringify({ workloads: [{ ...MM, m: 0 }] }), /^workloads\[0\]\.m: m must be an integer ≥ 1, got 0/],
    ['matmul k 7', JSON.stringify({ workloads: [{ ...MM, k: 7 }] }), /^workloads\[0\]\.k: k must be an integer 8\.\.1024, got 7/],
    ['matmul k 12 in a list', JSON.stringify({ workloads: [{ ...MM, k: [8, 12] }] }), /^workloads\[0\]\.k\[1\]: k and n must be multiples of 8/],
    ['matmul m = k = n = 2^30', JSON.stringify({ workloads: [{ ...MM, m: 2 ** 30, k: 2 ** 30, n: 2 ** 30 }] }), /^workloads\[0\]\.m: a 1073741824x8x8 matmul's operands need \d+ bytes of SRAM/],
    ['matmul operands past the SRAM together', JSON.stringify({ workloads: [{ ...MM, m: 512, k: 1024, n: [8, 512] }] }), /^workloads\[0\]: a 512x1024x512 matmul's operands need \d+ bytes of SRAM/],
    ['a negative prompt length', JSON.stringify({ workloads: [{ ...SMALL, promptLength: -1 }] }), /^workloads\[0\]\.promptLength: promptLength must be an integer ≥ 1, got -1/],
    ['an empty list', JSON.stringify({ workloads: [{ ...SMALL, decodeSteps: [] }] }), /^workloads\[0\]\.decodeSteps must be a value or a non-empty list/],
    ['tpuWait "x"', grid({ axes: { tpuWait: ['x'] } }), /^axes\.tpuWait\[0\]: tpuWait must be an integer 0\.\.1000, got "x"/],
    ['tpuWait -5', grid({ axes: { tpuWait: [2, -5] } }), /^axes\.tpuWait\[1\]: tpuWait must be an integer 0\.\.1000, got -5/],
    ['variant -1', grid({ axes: { variant: [-1] } }), /^axes\.variant\[0\]: variant must be an integer 0\.\.\d+, got -1/],
    ['queueDepth 1e9', grid({ axes: { queueDepth: [1e9] } }), /^axes\.queueDepth\[0\]: queueDepth must be an integer 0\.\.1000/],
    ['barrelShifter "yes"', grid({ axes: { barrelShifter: ['yes'] } }), /^axes\.barrelShifter\[0\]: barrelShifter must be true or false/],
    ['axes null', grid({ axes: null }), /^axes must be an object/],
  ];
  it.each(cases)('%s', (_name, text, why) => {
    let thrown: unknown;
    try { load(text); } catch (e) { thrown = e; }
    expect((thrown as Error)?.constructor.name).toBe('GridError');
    expect((thrown as Error).message).toMatch(why);
  });

  it('a 10^12-point grid is refused before it is expanded; a 10^5-point grid is not', () => {
    const hundred = (from: number) => Array.from({ length: 100 }, (_, i) => from + i);
    const huge = grid({ axes: { queueDepth: hundred(1), tpuWait: hundred(0), variant: hundred(0), mxuDim: Array(100).fill(8), spadKiB: Array(100).fill(64), barrelShifter: Array(100).fill(false) } });
    const t0 = performance.now();
    expect(() => parseGrid(huge, 'g')).toThrow('the grid has 1,000,000,000,000 points, more than the 100,000 a grid may have');
    expect(performance.now() - t0).toBeLessThan(1000);
    const tenTo5 = parseGrid(grid({ axes: { queueDepth: hundred(1), tpuWait: hundred(0), variant: Array.from({ length: 10 }, (_, i) => i) } }), 'g');
    expect(tenTo5.axes.variant).toHaveLength(10);
  });

  it('points no firmware build can run are classified before anything runs: a 16 KiB scratchpad, a 16x16 MXU with k = 8, a batch of 10^8', () => {
    const { points } = load(JSON.stringify({ workloads: [MM, { ...SMALL, batch: [1, 1e8] }], axes: { spadKiB: [16, 64], mxuDim: [8, 16] } }));
    const status = (key: RegExp) => points.filter((p) => key.test(p.key)).map((p) => p.status);
    for (const s of status(/spad16/)) expect(s).toMatchObject({ kind: 'no firmware build', why: expect.stringContaining('16 KiB scratchpad') });
    expect(status(/^mm .* mxu16 spad64/)).toEqual([{ kind: 'does not fit', why: 'the 16x16 MXU\'s build takes k and n in multiples of 16' }]);
    expect(status(/B100000000 .* mxu8 spad64/)).toEqual([{ kind: 'does not fit', why: 'a batch holds 1 to 64 sequences, not 100000000' }]);
    expect(status(/^model .* D1 v15 mxu8 spad64/)).toEqual([{ kind: 'run' }]);
  });

  it('the largest k is mmbench.c\'s (its header check)', () => {
    expect(readFileSync(join(root, 'firmware-c/model/mmbench.c'), 'utf8')).toContain(`k > ${MATMUL_MAX_K} ||`);
  });

  it('a bad grid on the command line: one line, 165; explore /dev/zero is refused after a bounded read', async () => {
    const file = join(dir, 'null-workload.json');
    writeFileSync(file, JSON.stringify({ workloads: [null] }));
    const r = await runCli(['explore', file, '--results', join(dir, 'r0')], { timeoutMs: 30_000 });
    expect(r.status).toBe(EXIT.USAGE);
    expect(r.stderr).toBe(`picotpu: grid ${file}: workloads[0] must be an object {"kind": "model" or "matmul", ...}, got null\n`);
    const z = await runCli(['explore', '/dev/zero', '--results', join(dir, 'r0')], { timeoutMs: 30_000 });
    expect(z.status).toBe(EXIT.USAGE);
    expect(z.stderr).toBe('picotpu: grid /dev/zero: cannot read it: more than the 1048576 bytes allowed\n');
  });
});

describe('results files', () => {
  const fp = '0123456789abcdef';
  const record = runPoint('mm', { kind: 'matmul', m: 8, k: 8, n: 8, variant: 15 });

  it('a null line, a record lacking predicted, one whose measured is not a list and a line that is not JSON are ignored with one warning; a truncated last line silently', () => {
    const file = join(dir, 'damaged.jsonl');
    const { predicted: _p, ...noPredicted } = { ...record, key: 'no predicted' };
    const lines = ['null', JSON.stringify({ fingerprint: fp, record: noPredicted }), JSON.stringify({ fingerprint: fp, record: { ...record, key: 'bad measured', measured: 5 } }),
      'not JSON {', JSON.stringify({ fingerprint: fp, record }), '{"fingerprint": "01'];
    writeFileSync(file, lines.join('\n'));
    const warnings: string[] = [];
    const got = readRecords(file, fp, (w) => warnings.push(w));
    expect([...got.keys()]).toEqual(['mm']);
    expect(warnings).toEqual([`4 lines of ${file} are not records (line 1: not an object {fingerprint, record}): ignored, their points run again`]);
  });

  it('a results path that is a directory or a device is one line', () => {
    const d = join(dir, 'a-directory.jsonl');
    mkdirSync(d);
    expect(() => readRecords(d, fp)).toThrow(new OutputError(`the results file ${d} is a directory`));
    const z = join(dir, 'zero.jsonl');
    symlinkSync('/dev/zero', z);
    expect(() => readRecords(z, fp)).toThrow(new OutputError(`the results file ${z} is not a regular file`));
  });

  it('on the command line: explore and sweep with a results directory in the way, a results file linked to /dev/zero: one line, 165', async () => {
    const gridFile = join(dir, 'tiny.json');
    writeFileSync(gridFile, JSON.stringify({ name: 'tiny', workloads: [MM] }));
    const inTheWay = join(dir, 'in-the-way');
    mkdirSync(join(inTheWay, 'tiny.jsonl'), { recursive: true });
    mkdirSync(join(inTheWay, 'ladder.small.jsonl'), { recursive: true });
    const zero = join(dir, 'zero');
    mkdirSync(zero);
    symlinkSync('/dev/zero', join(zero, 'tiny.jsonl'));
    const runs = await Promise.all([
      runCli(['explore', gridFile, '--results', inTheWay, '--docs', inTheWay], { timeoutMs: 30_000 }),
      runCli(['sweep', 'ladder', '--small', '--results', inTheWay], { timeoutMs: 30_000 }),
      runCli(['explore', gridFile, '--results', zero, '--docs', zero], { timeoutMs: 30_000 }),
    ]);
    expect(runs.map((r) => r.status)).toEqual([EXIT.USAGE, EXIT.USAGE, EXIT.USAGE]);
    runs.forEach((r) => oneLine(r.stderr));
    expect(runs[0].stderr).toBe(`picotpu: the results file ${join(inTheWay, 'tiny.jsonl')} is a directory\n`);
    expect(runs[2].stderr).toBe(`picotpu: the results file ${join(zero, 'tiny.jsonl')} is not a regular file\n`);
  });
});

describe('output paths and standard output', () => {
  const gridFile = join(dir, 'tiny-out.json');
  beforeAll(() => writeFileSync(gridFile, JSON.stringify({ name: 'tiny-out', workloads: [MM] })));

  it('--results and --docs under /proc fail at once with one line (recursive mkdir spins on procfs)', async () => {
    const runs = await Promise.all([
      runCli(['explore', gridFile, '--results', '/proc/picotpu/results'], { timeoutMs: 20_000 }),
      runCli(['explore', gridFile, '--results', join(dir, 'r1'), '--docs', '/proc/picotpu'], { timeoutMs: 20_000 }),
      runCli(['sweep', 'ladder', '--small', '--results', '/proc/picotpu/results'], { timeoutMs: 20_000 }),
      runCli(['sweep', 'ladder', '--small', '--results', join(dir, 'r1'), '--docs', '/proc/picotpu/docs'], { timeoutMs: 20_000 }),
    ]);
    expect(runs.map((r) => r.status)).toEqual([EXIT.USAGE, EXIT.USAGE, EXIT.USAGE, EXIT.USAGE]);
    runs.forEach((r) => oneLine(r.stderr));
    expect(runs[0].stderr).toBe('picotpu: cannot write --results /proc/picotpu/results: no such directory (ENOENT)\n');
  });

  /** The command with standard output on /dev/full. */
  const toFull = (args: string[]) => new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [CLI, ...args], { cwd: root, stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => { stderr += b; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stderr }); });
  });

  it('explore and sweep with standard output on /dev/full: one line, 165', async () => {
    const runs = await Promise.all([
      toFull(['explore', gridFile, '--results', join(dir, 'full'), '--docs', join(dir, 'full'), '--jobs', '1']),
      toFull(['sweep', 'ladder', '--small', '--results', join(dir, 'full'), '--jobs', '1']),
    ]);
    for (const r of runs) {
      expect(r.status).toBe(EXIT.USAGE);
      expect(r.stderr.split('\n').filter(Boolean).at(-1)).toBe('picotpu: cannot write standard output: no space left on device (ENOSPC)');
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
  });
});

describe('the thread pool', () => {
  it('a point that throws in the thread\'s own handler, or kills its thread, does not poison the pool', async () => {
    const pool = new PointPool(1);
    const good: PlannedRun = { key: 'good', point: { kind: 'matmul', m: 8, k: 8, n: 8, variant: 15 } };
    try {
      await expect(pool.run(null as unknown as PlannedRun)).rejects.toThrow();
      await expect(pool.run({ key: 'no point', point: null as unknown as MatmulPoint })).rejects.toThrow(/^sweep point no point: /);
      expect((await pool.run(good)).key).toBe('good');
      // A thread that dies under its point (here: terminated) fails that point only; a new thread takes the next.
      const running = pool.run({ key: 'dies', point: { kind: 'matmul', m: 64, k: 512, n: 128, variant: 15 } });
      await (pool as unknown as { threads: { terminate(): Promise<number> }[] }).threads[0].terminate();
      await expect(running).rejects.toThrow('sweep worker exited with 1');
      expect((await pool.run(good)).key).toBe('good');
    } finally {
      await pool.close();
    }
  });
});

// ---- the queue, on a real redis-server ----

const noRedis = skipWhenMissing(hasRedisServer(), 'explore-robust.test.ts', 'redis-server', 'install: bash toolchain/ensure-toolchain.sh --with-test-tools');

interface Server { port: number; url: string; child: ChildProcess; stop(): Promise<void> }
async function redisOn(port: number): Promise<Server> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const { Redis } = await import('ioredis');
  for (let i = 0; ; i++) {
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    probe.on('error', () => {});
    try { await probe.connect(); await probe.ping(); probe.disconnect(); break; } catch { probe.disconnect(); }
    if (i > 200) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return { port, url: `redis://127.0.0.1:${port}/0`, child, stop: async () => { child.kill('SIGKILL'); await exited; } };
}

const until = async (cond: () => boolean | Promise<boolean>, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!(await cond())) { if (Date.now() > end) throw new Error(`timed out waiting for ${what}`); await new Promise((r) => setTimeout(r, 25)); }
};

describe.skipIf(noRedis)('the queue takes a job as input', () => {
  let redis: Server;
  beforeAll(async () => { redis = await redisOn(await freePort()); });
  afterAll(async () => { await redis?.stop(); });

  const queueOf = async (url: string) => {
    const { Queue } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const connection = new Redis(url, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE_NAME, { connection });
    return { queue, close: async () => { await queue.close(); connection.disconnect(); } };
  };

  it('a worker fails each bad job with one reason and goes on: no fingerprint, run null, queueDepth 1e9, tpuWait "x" and -5, variant -1, a negative m, huge dims, batch 1e8', async () => {
    const fp = fingerprint();
    const mm = { kind: 'matmul', m: 8, k: 8, n: 8, variant: 15 };
    const small = { kind: 'model', dims: { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 }, promptLength: 4, decodeSteps: 1, variant: 15 };
    const job = (key: string, point: object) => ({ fingerprint: fp, run: { key, point } });
    const bad: [string, unknown, RegExp][] = [
      ['plain string', 'a plain string', /^bad job: a job's data must be an object \{fingerprint, run\}, got string$/],
      ['run null', { fingerprint: fp, run: null }, /^bad job: a job's run must be an object \{key, point\}, got null$/],
      ['queueDepth 1e9', job('q', { ...mm, config: { queueDepth: 1e9 } }), /^bad job: queueDepth must be an integer 0\.\.1000, got 1000000000$/],
      ['tpuWait x', job('w', { ...mm, config: { tpuWait: 'x' } }), /^bad job: tpuWait must be an integer 0\.\.1000, got "x"$/],
      ['tpuWait -5', job('w5', { ...mm, config: { tpuWait: -5 } }), /^bad job: tpuWait must be an integer 0\.\.1000, got -5$/],
      ['variant -1', job('v', { ...mm, variant: -1 }), /^bad job: variant must be an integer 0\.\.\d+, got -1$/],
      ['m -8', job('m', { ...mm, m: -8 }), /^bad job: m must be an integer ≥ 1, got -8$/],
      ['huge dims', job('d', { ...small, dims: { d: 2 ** 20, dFF: 2 ** 20, heads: 1, layers: 2 ** 20, vocab: 2 ** 20, maxSeq: 2 ** 20 } }), /^bad job: does not fit: the layers' weights alone need \d+ bytes/],
      ['batch 1e8', job('b', { ...small, batch: 1e8 }), /^bad job: does not fit: a batch holds 1 to 64 sequences, not 100000000$/],
    ];
    const { queue, close } = await queueOf(redis.url);
    const worker = spawn(process.execPath, [CLI, 'worker', '--queue', redis.url, '--concurrency', '1'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    worker.stdout!.on('data', (b: Buffer) => { out += b; });
    worker.stderr!.on('data', (b: Buffer) => { err += b; });
    try {
      for (const [name, data] of bad) await queue.add(name, data as never, { jobId: name, attempts: 1 });
      await queue.add('good', job('good', mm) as never, { jobId: 'good' });
      await until(async () => (await queue.getJobState('good')) === 'completed', 60_000, 'the good job');
      for (const [name, , why] of bad) {
        await until(async () => (await queue.getJobState(name)) === 'failed', 30_000, `job ${name} to fail`);
        expect((await queue.getJob(name))!.failedReason, name).toMatch(why);
      }
      expect((await queue.getJob('good'))!.returnvalue.record.key).toBe('good');
      expect(worker.exitCode, err).toBeNull();
      expect(out).toMatch(/^bad job plain string: a job's data must be an object/m);
    } finally {
      worker.kill('SIGTERM');
      await close();
    }
  }, 120_000);

  it('a worker with standard output on /dev/full ends at once: one line, 165', async () => {
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [CLI, 'worker', '--queue', redis.url, '--concurrency', '1'], { cwd: root, stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    let err = '';
    child.stderr!.on('data', (b: Buffer) => { err += b; });
    const status = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('close', (s) => { clearTimeout(timer); resolve(s); });
    });
    expect(status).toBe(EXIT.USAGE);
    expect(err).toBe('picotpu: cannot write standard output: no space left on device (ENOSPC)\n');
  }, 60_000);

  it('the coordinator goes on past a result that is not JSON, a record whose measured is not a list and a failure reason with a newline and an escape sequence: one escaped line each, the others reported, 170', async () => {
    const gridFile = join(dir, 'garbage.json');
    writeFileSync(gridFile, JSON.stringify({ name: 'garbage', workloads: [{ kind: 'matmul', m: [8, 16, 24, 32], k: 8, n: 8 }] }));
    const { Worker } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const fp = fingerprint();
    // A worker of the same build that answers badly for three of the four points.
    const liar = new Worker(QUEUE_NAME, async (job) => {
      const run = job.data.run as PlannedRun & { point: MatmulPoint };
      if (run.point.m === 8) return 'this is { not JSON';
      if (run.point.m === 16) return { fingerprint: fp, worker: 'liar', record: { ...runPoint(run.key, run.point), measured: 5 } };
      if (run.point.m === 24) throw new Error('first line\n\x1b[31msecond line in red');
      return { fingerprint: fp, worker: 'liar', record: runPoint(run.key, run.point) };
    }, { connection, concurrency: 4 });
    liar.on('error', () => {});
    try {
      const results = join(dir, 'garbage');
      const r = await runCli(['explore', gridFile, '--queue', redis.url, '--results', results, '--docs', results], { timeoutMs: 60_000 });
      expect(r.status, r.stderr).toBe(EXIT.POINTS_FAILED);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines.filter((l) => /^picotpu: point mm 8x8x8 .* failed: the result is not a record of the point: its return value is not JSON$/.test(l))).toHaveLength(1);
      expect(lines.filter((l) => /^picotpu: point mm 16x8x8 .* failed: the result is not a record of the point: record .*: measured must be a list$/.test(l))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('point mm 24x8x8') && l.endsWith('failed: first line\\n\\x1b[31msecond line in red'))).toHaveLength(1);
      expect(r.stderr).not.toContain('\x1b');
      expect(lines.at(-1)).toBe('picotpu: explore garbage: 3 points failed (above) and are not in the report: run the same command again to retry them');
      expect(r.stdout.toString()).toMatch(/4 points \(1 run, .* 3 not run yet\)/);
      expect(readFileSync(join(results, 'garbage.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    } finally {
      await liar.close();
      connection.disconnect();
    }
  }, 90_000);

  it('Redis going away and coming back is one line each, no stack', async () => {
    const server = await redisOn(await freePort());
    const gridFile = join(dir, 'nobody.json');
    writeFileSync(gridFile, JSON.stringify({ name: 'nobody', workloads: [MM] }));
    const child = spawn(process.execPath, [CLI, 'explore', gridFile, '--queue', server.url, '--results', join(dir, 'nobody')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (b: Buffer) => { err += b; });
    const exited = new Promise<number | null>((resolve) => child.on('close', (s) => resolve(s)));
    let again: Server | null = null;
    try {
      const { queue, close } = await queueOf(server.url);
      await until(async () => (await queue.getJobCounts('waiting')).waiting === 1, 30_000, 'the job enqueued');
      await close();
      await server.stop();
      await until(() => /lost the queue/.test(err), 30_000, 'the line saying Redis is gone');
      await new Promise((r) => setTimeout(r, 1500)); // several reconnection attempts
      again = await redisOn(server.port);
      await until(() => /is back/.test(err), 30_000, 'the line saying Redis is back');
      child.kill('SIGINT');
      expect(await exited).toBe(EXIT.INTERRUPTED);
      const lines = err.split('\n').filter(Boolean);
      expect(lines[0]).toMatch(new RegExp(`^picotpu: lost the queue at ${server.url} \\(.+\\): waiting for it to come back$`));
      expect(lines[1]).toBe(`picotpu: the queue at ${server.url} is back`);
      expect(lines).toHaveLength(3); // and the line saying it stopped
      expect(err).not.toMatch(/Error:|\n\s+at /);
    } finally {
      child.kill('SIGKILL');
      await again?.stop();
    }
  }, 90_000);
});
