// The fuzz suite's explore classes (docs/robustness.md): seeded property
// tests (fast-check) that throw malformed input at what explore and the queue
// read from outside, and accept only the documented outcomes:
//   grids    a valid grid with 1-4 fields replaced by random JSON or removed:
//            parsed and expanded, or refused with a GridError (165), never
//            another exception; every point it classifies "run" passes the
//            queue worker's own check;
//   results  a results file of valid records, damaged records, random JSON,
//            cut lines and random bytes: readRecords never throws and returns
//            only records of this build that pass the record check;
//   jobs     random queue jobs (valid ones with 1-3 fields replaced or
//            removed, and random JSON) through a real redis-server to a
//            spawned worker: each completes with a valid record or fails with
//            one line ("bad job: ..." or the point's error), and the worker
//            keeps running and still runs a good job after them.
// The seed is printed: FUZZ_SEED=n reproduces a campaign, FUZZ_SCALE=k runs k
// times the budgets; under CI (no FUZZ_SEED) the seed is fixed.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { expandGrid, GridError, MAX_GRID_POINTS, parseGrid } from '../study/explore/grid.ts';
import { hasRedisServer, startRedis } from '../study/explore/local-redis.ts';
import { checkRecord, checkRunnable } from '../study/explore/point-check.ts';
import { QUEUE_NAME } from '../study/explore/queue.ts';
import { fingerprint, readRecords } from '../study/sweep/engine.ts';
import { elfsOfBoards, recordShapeError, runPoint } from '../study/sweep/runs.ts';
import { fuzzScale, fuzzSeed } from './helpers/fuzz-kit.ts';
import { CLI, root } from './helpers/cli-process.ts';

/** CI runs one fixed campaign (33); a developer's run draws a seed (printed) unless FUZZ_SEED names one. */
const SEED = fuzzSeed(33);
const SCALE = fuzzScale();
console.log(`fuzz-explore: seed ${SEED} (reproduce with FUZZ_SEED=${SEED}), scale ${SCALE}`);

const BUDGET = {
  grids: { cases: 1500, seconds: 4 },
  results: { cases: 400, seconds: 3 },
  jobs: { cases: 2, seconds: 20 },
} as const;
type ClassName = keyof typeof BUDGET;

const tally = new Map<ClassName, Map<string, number>>();
const count = (cls: ClassName, outcome: string) => {
  const t = tally.get(cls) ?? new Map<string, number>();
  t.set(outcome, (t.get(outcome) ?? 0) + 1);
  tally.set(cls, t);
};
afterAll(() => {
  console.log([`fuzz-explore: seed ${SEED}, scale ${SCALE}`, ...[...tally].map(([cls, t]) => `fuzz ${cls}: ${[...t].map(([k, n]) => `${k} ${n}`).join(', ')}`)].join('\n'));
});

async function campaign<T>(cls: ClassName, arb: fc.Arbitrary<T>, check: (v: T) => void | Promise<void>): Promise<void> {
  const b = BUDGET[cls];
  await fc.assert(fc.asyncProperty(arb, async (v) => { await check(v); }), {
    seed: (SEED ^ (Object.keys(BUDGET).indexOf(cls) * 0x9e3779b1)) | 0,
    numRuns: Math.max(1, Math.round(b.cases * SCALE)),
    interruptAfterTimeLimit: b.seconds * SCALE * 1000,
    markInterruptAsFailure: false,
  });
}

// ---- mutations of a JSON value ----

/** What a field may become: edge numbers, wrong types, empty and nested values. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, 0, -1, -5, 1, 7, 8, 16, 64, 1e8, 1e9, 2 ** 30, 2 ** 53, 0.5, 'x', '', 'small', 'base', 'none', 'model', 'matmul', 'seed', 'picotpu', true, false, [], {}, [null], [1], ['8']),
  fc.integer({ min: -1000, max: 100_000 }),
  fc.double({ noNaN: false }),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer({ min: -2, max: 64 }), { maxLength: 4 }),
  fc.dictionary(fc.constantFrom('d', 'dFF', 'heads', 'layers', 'vocab', 'maxSeq', 'kind', 'm', '__proto__'), fc.integer({ min: -1, max: 128 }), { maxKeys: 6 }),
);

type Path = (string | number)[];
function pathsOf(v: unknown, at: Path = []): Path[] {
  if (typeof v !== 'object' || v === null) return [at];
  const keys = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  return [at, ...keys.flatMap((k) => pathsOf((v as Record<string | number, unknown>)[k], [...at, k]))];
}

interface Mutation { pick: number; remove: boolean; value: unknown }
/** Half the values are near the valid ones (small counts, multiples of 8), so that many mutants still run. */
const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(), remove: fc.boolean(),
  value: fc.oneof(junk, fc.integer({ min: 0, max: 16 }), fc.constantFrom(8, 16, 24, 32, 64, 128)),
});

/** The base with each mutation applied: the picked field (any depth) replaced by the value, or removed. */
function mutate<T>(base: T, ms: Mutation[]): unknown {
  let v: unknown = structuredClone(base);
  for (const m of ms) {
    const paths = pathsOf(v);
    const path = paths[m.pick % paths.length];
    if (!path.length) { v = m.value; continue; }
    const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v) as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (m.remove && !Array.isArray(parent)) delete parent[last]; else parent[last] = structuredClone(m.value);
  }
  return v;
}

// ---- grids ----

const BASE_GRID = {
  name: 'fuzz', objective: 'full',
  workloads: [
    { kind: 'model', dims: { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 }, promptLength: [4, 8], decodeSteps: 2, batch: [1, 2] },
    { kind: 'matmul', m: [8, 16], k: 64, n: [8, 64] },
  ],
  axes: { variant: [0, 15], mxuDim: [8, 16], spadKiB: [32, 64], tpuWait: [0, 2], multiply: ['none', 'fast'] },
  exclude: [{ mxuDim: 16, spadKiB: 32 }],
  board: ['picotpu', 'transformer-tpu-int4'],
};

describe('fuzz: explore grids', () => {
  it('parsed and expanded, or one GridError; every runnable point passes the worker\'s check', async () => {
    await campaign('grids', fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => {
      const text = JSON.stringify(mutate(BASE_GRID, ms)) ?? 'undefined';
      let points;
      try {
        points = expandGrid(parseGrid(text, 'fuzz')).points;
      } catch (e) {
        if (!(e instanceof GridError)) throw new Error(`${text}: ${(e as Error).stack}`);
        expect(e.message).not.toContain('\n');
        count('grids', 'refused (165)');
        return;
      }
      expect(points.length).toBeLessThanOrEqual(MAX_GRID_POINTS);
      for (const p of points) {
        expect(['run', 'no firmware build', 'does not fit']).toContain(p.status.kind);
        if (p.status.kind === 'run') checkRunnable({ key: p.key, point: p.run });
      }
      count('grids', points.some((p) => p.status.kind === 'run') ? 'expanded' : 'expanded, nothing to run');
    });
  });
});

// ---- results files ----

describe('fuzz: results files', () => {
  const fp = '0123456789abcdef';
  const dir = mkdtempSync(join(tmpdir(), 'picotpu-fuzz-results-'));
  const record = runPoint('mm 8x8x8', { kind: 'matmul', m: 8, k: 8, n: 8, variant: 15 });
  const line = fc.oneof(
    fc.constant(JSON.stringify({ fingerprint: fp, record })),
    fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => JSON.stringify(mutate({ fingerprint: fp, record }, ms)) ?? ''),
    junk.map((v) => JSON.stringify(v) ?? ''),
    fc.tuple(fc.constant(JSON.stringify({ fingerprint: fp, record })), fc.nat()).map(([l, n]) => l.slice(0, n % l.length)),
    fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  let n = 0;
  it('readRecords never throws and returns only records that pass the check', async () => {
    await campaign('results', fc.array(line, { maxLength: 8 }), (lines) => {
      const file = join(dir, `r${n++}.jsonl`);
      writeFileSync(file, lines.join('\n'));
      let warned = 0;
      const got = readRecords(file, fp, () => { warned++; });
      expect(warned).toBeLessThanOrEqual(1);
      for (const r of got.values()) expect(recordShapeError(r)).toBeNull();
      count('results', `${got.size ? 'records kept' : 'no record'}${warned ? ', one warning' : ''}`);
    });
  });
});

// ---- queue jobs through a real redis-server ----

const noRedis = skipWhenMissing(hasRedisServer(), 'fuzz-explore.test.ts', 'redis-server', 'install: bash toolchain/ensure-toolchain.sh --with-test-tools');

describe.skipIf(noRedis)('fuzz: queue jobs', () => {
  it('each job completes with a valid record or fails with one line; the worker goes on', async () => {
    const redis = await startRedis();
    const { Queue } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE_NAME, { connection });
    const worker = spawn(process.execPath, [CLI, 'worker', '--queue', redis.url, '--concurrency', '1'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    worker.stderr!.on('data', (b: Buffer) => { err += b; });
    const fp = fingerprint();
    const valid = [
      { fingerprint: fp, run: { key: 'mm', point: { kind: 'matmul', m: 8, k: 8, n: 8, variant: 15, config: { tpuWait: 2, queueDepth: 8 } } } },
      { fingerprint: fp, run: { key: 'model', point: { kind: 'model', dims: { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 }, promptLength: 4, decodeSteps: 1, variant: 15, check: true } } },
      // A point of a grid over both boards carries both boards' fingerprint.
      { fingerprint: fingerprint(elfsOfBoards(['picotpu', 'transformer-tpu-int4'])), run: { key: 'seed model', point: { kind: 'model', dims: { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 }, promptLength: 4, decodeSteps: 1, variant: 7, check: true, board: 'transformer-tpu-int4' } } },
    ];
    const job = fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(...valid) },
      { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...valid), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([v, ms]) => mutate(v, ms)) },
      { weight: 1, arbitrary: junk },
    );
    let id = 0;
    const settle = async (ids: string[]) => {
      const end = Date.now() + 120_000;
      for (;;) {
        const states = await Promise.all(ids.map((i) => queue.getJobState(i)));
        if (states.every((s) => s === 'completed' || s === 'failed')) return states;
        if (Date.now() > end || worker.exitCode !== null) throw new Error(`jobs did not settle: ${states.join(', ')}; worker ${worker.exitCode}: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await campaign('jobs', fc.array(job, { minLength: 10, maxLength: 20 }), async (jobs) => {
        const ids = jobs.map(() => `fuzz ${id++}`);
        await queue.addBulk(jobs.map((data, i) => ({ name: ids[i], data: data as never, opts: { jobId: ids[i], attempts: 1 } })));
        const states = await settle(ids);
        for (const [i, state] of states.entries()) {
          const j = (await queue.getJob(ids[i]))!;
          if (state === 'completed') {
            checkRecord(j.returnvalue.record);
            count('jobs', 'completed');
          } else {
            expect(j.failedReason).not.toMatch(/[\n\x1b]/);
            expect(j.failedReason).toMatch(/^(bad job: |sweep point )/);
            count('jobs', j.failedReason.startsWith('bad job: ') ? 'bad job' : 'point failed');
          }
        }
        // The worker still runs a good job after them.
        const good = `fuzz ${id++}`;
        await queue.add(good, { ...valid[0], run: { ...valid[0].run, key: good } } as never, { jobId: good });
        expect(await settle([good])).toEqual(['completed']);
        expect(worker.exitCode, err).toBeNull();
      });
    } finally {
      worker.kill('SIGKILL');
      await queue.close();
      connection.disconnect();
      redis.stop();
    }
  }, 300_000);
});
