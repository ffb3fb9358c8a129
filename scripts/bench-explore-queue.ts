// The queue's overhead per job (docs/explore.md, not a timed test): the same
// tiny matmul points through one `picotpu worker` process (one thread) on a
// throwaway loopback redis-server, and on one local worker thread of the
// sweep engine, timed from the first point to the last (process starts left
// out), five rounds interleaved after a warm-up; the median difference per
// point.
//   npx tsx scripts/bench-explore-queue.ts [POINTS]
// With `local` or `queue` after POINTS it runs only that side's rounds, for
// counting what a job costs in CPU time and context switches, which a loaded
// machine disturbs less than wall time: the difference between two counts,
//   perf stat -e task-clock,context-switches npx tsx scripts/bench-explore-queue.ts 480 queue
// and the same with 40 points, over 5 × 440 jobs.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PointPool, type PlannedRun } from '../study/sweep/engine.ts';
import { startRedis } from '../study/explore/local-redis.ts';
import { runOnQueue } from '../study/explore/queue.ts';

const n = Number(process.argv[2] ?? 240);
const only = process.argv[3] as 'local' | 'queue' | undefined;
const dir = mkdtempSync(join(tmpdir(), 'picotpu-bench-queue-'));
const redis = await startRedis();
const worker = spawn(process.execPath, ['bin/picotpu.cjs', 'worker', '--queue', redis.url, '--concurrency', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise<void>((resolve) => worker.stdout!.on('data', (b: Buffer) => { if (b.toString().includes('fingerprint')) resolve(); }));

/** n points of a few milliseconds: distinct keys, each a fresh job. */
const plan = (round: number, where: string): PlannedRun[] => Array.from({ length: n }, (_, i) => ({
  key: `bench ${where} ${round} ${i}`, point: { kind: 'matmul', m: 8, k: 64, n: 64, variant: 1, config: { queueDepth: 1 + (i % 30), tpuWait: i % 8 } },
}));

const perPoint: number[] = [];
const pool = new PointPool(1);
// Warm both paths first (JIT, the worker's thread, BullMQ's scripts).
for (const p of plan(-1, 'warm').slice(0, 20)) await pool.run(p);
await runOnQueue(plan(-1, 'warm').slice(0, 20), { url: redis.url, file: join(dir, 'warm.jsonl') });
const ROUNDS = 5;
const runLocal = async (round: number) => { for (const p of plan(round, 'local')) await pool.run(p); };
const runQueued = (round: number) => runOnQueue(plan(round, 'queue'), { url: redis.url, file: join(dir, `queue-${round}.jsonl`) });
for (let round = 0; round < ROUNDS; round++) {
  let t0 = performance.now();
  if (only !== 'queue') await runLocal(round);
  const local = performance.now() - t0;
  t0 = performance.now();
  if (only !== 'local') await runQueued(round);
  const queued = performance.now() - t0;
  if (only) continue;
  perPoint.push((queued - local) / n);
  console.log(`round ${round + 1}: ${n} points, local thread ${(local / 1000).toFixed(2)} s, one queue worker ${(queued / 1000).toFixed(2)} s: ${((queued - local) / n).toFixed(2)} ms per job`);
}
perPoint.sort((a, b) => a - b);
if (!only) console.log(`queue overhead per job (median of ${ROUNDS} rounds): ${perPoint[ROUNDS >> 1].toFixed(2)} ms`);
await pool.close();
worker.kill('SIGTERM');
redis.stop();
rmSync(dir, { recursive: true, force: true });
