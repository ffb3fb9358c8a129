// Past one machine: a grid's points as BullMQ jobs on a Redis server. The
// coordinator (`picotpu explore GRID --queue URL`) enqueues one job per point
// (job id = the point's key, so enqueueing again is a no-op), collects each
// finished record into the same JSON-lines file the local engine writes, and
// can be stopped and restarted at any time: finished jobs wait in Redis until
// a coordinator collects them. A worker (`picotpu worker --queue URL`) runs
// jobs on the sweep engine's thread pool and refuses a job made for other
// firmware; the refusal is the job's failure reason, which the coordinator
// prints and stops on, so a result set never mixes two builds.
// bullmq and ioredis load only when a queue is used.

import { hostname } from 'node:os';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { appendRecords, fingerprint, PointPool, readRecords, type PlannedRun } from '../sweep/engine.ts';
import type { RunRecord } from '../sweep/runs.ts';

/** The queue every coordinator and worker of this format uses. */
export const QUEUE_NAME = 'picotpu-explore';

/** The Redis server cannot be reached (or refused the connection's credentials). */
export class QueueUnreachable extends Error {}
/** A worker refused a job: its firmware fingerprint differs from the coordinator's. */
export class QueueRefused extends Error {}
/** A bad --queue URL. */
export class QueueUrlError extends Error {}

interface JobData { fingerprint: string; run: PlannedRun }
interface JobResult { fingerprint: string; worker: string; record: RunRecord }

/** The URL without its password, for messages. */
export function shownUrl(url: string): string {
  try { const u = new URL(url); if (u.password) u.password = '***'; return u.toString(); } catch { return url; }
}

/** Checks the URL's form: redis:// or rediss:// (TLS), host, optional port, /DB. */
export function checkQueueUrl(url: string): void {
  let u: URL;
  try { u = new URL(url); } catch { throw new QueueUrlError(`--queue must be a URL redis://[USER:PASSWORD@]HOST:PORT/DB (rediss:// for TLS), got ${JSON.stringify(url)}`); }
  if (!['redis:', 'rediss:'].includes(u.protocol) || !u.hostname) throw new QueueUrlError(`--queue must be a redis:// or rediss:// URL with a host, got ${JSON.stringify(shownUrl(url))}`);
  if (u.pathname && u.pathname !== '/' && !/^\/\d+$/.test(u.pathname)) throw new QueueUrlError(`--queue's path is a database number (/0), got ${JSON.stringify(u.pathname)}`);
}

/**
 * One connection for BullMQ; first a probe that fails in seconds, not a client
 * that retries forever. `pipelined`: the commands issued in one turn of the
 * event loop go to Redis in one write (ioredis's auto-pipelining), so the
 * coordinator's batch of result reads, or of removals, is one round trip. The
 * worker's connection does without: it sends one command at a time anyway,
 * and BullMQ's workers are not tested with it.
 */
async function connect(url: string, pipelined = false): Promise<Redis> {
  checkQueueUrl(url);
  const { Redis } = await import('ioredis');
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5000, enableOfflineQueue: false });
  let cause: Error | null = null; // the socket's error (ECONNREFUSED …); connect() itself only says the connection closed
  probe.on('error', (e: Error) => { cause ??= e; });
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    throw new QueueUnreachable(`cannot reach the queue at ${shownUrl(url)}: ${(cause ?? (e as Error)).message}`);
  } finally {
    probe.disconnect();
  }
  const client = new Redis(url, { maxRetriesPerRequest: null, enableAutoPipelining: pipelined });
  client.on('error', () => {}); // ioredis reconnects; BullMQ's calls wait for it
  return client;
}

export interface QueueProgress { done: number; total: number; failed: number; workers: number; key: string }

export interface CoordinatorOptions {
  url: string;
  /** The JSON-lines results file (the local engine's). */
  file: string;
  onProgress?: (p: QueueProgress) => void;
  /** Aborting stops collecting (finished jobs stay in Redis for the next start). */
  signal?: AbortSignal;
  /** The firmware fingerprint the jobs carry (default: this build's). */
  fingerprint?: string;
}

/**
 * Enqueues every planned point not yet in the file and collects results until
 * each is recorded. Returns the records in plan order, or null when stopped
 * through the signal. A point that fails on its last attempt is an error
 * naming it, a refused job a QueueRefused.
 *
 * Results are collected a batch at a time, every COLLECT_EVERY_MS: one read of
 * the finished job ids, the new ones' return values read together, one append
 * to the results file, then their jobs removed from Redis. (Listening to the
 * queue's event stream instead costs the coordinator a read and five parsed
 * events for every job.) A job leaves Redis only after its record is in the
 * file, so a coordinator stopped at any moment loses nothing: the next start
 * collects the job again, or only removes it if its record is in.
 */
export async function runOnQueue(plan: PlannedRun[], o: CoordinatorOptions): Promise<RunRecord[] | null> {
  const fp = o.fingerprint ?? fingerprint();
  const have = readRecords(o.file, fp);
  const pending = new Set(plan.filter((p) => !have.has(p.key)).map((p) => p.key));
  const workers = new Set<string>();
  let failed = 0;
  const progress = (key: string) => o.onProgress?.({ done: plan.length - pending.size, total: plan.length, failed, workers: workers.size, key });
  progress('');
  if (!pending.size) return plan.map((p) => have.get(p.key)!);
  const connection = await connect(o.url, true);
  const { Queue } = await import('bullmq');
  const queue: Queue<JobData, JobResult> = new Queue(QUEUE_NAME, { connection });
  const byKey = new Map(plan.map((p) => [p.key, p]));
  const ours = (ids: string[]) => ids.filter((id) => byKey.has(id));
  const jobsOf = async (ids: string[]) => (await Promise.all(ids.map((id) => queue.getJob(id)))).filter((j) => j !== undefined);
  const requeue = async (id: string) => {
    await queue.remove(id).catch(() => 0);
    await queue.add(id, { fingerprint: fp, run: byKey.get(id)! }, jobOptions(id));
  };

  /** What a coordinator stopped before finished left: retry the failed, replace jobs made for other firmware, add the missing; the finished are collected next. */
  const enqueue = async () => {
    const [failedIds, waiting] = await Promise.all([queue.getRanges(['failed'], 0, -1), queue.getRanges(['waiting', 'delayed', 'prioritized', 'waiting-children'], 0, -1)]);
    const isFailed = new Set(failedIds);
    for (const job of await jobsOf(ours([...failedIds, ...waiting]).filter((id) => pending.has(id)))) {
      if (job.data.fingerprint !== fp) await requeue(job.id!);
      else if (isFailed.has(job.id!)) await job.retry('failed');
    }
    await addMissing();
  };

  /**
   * One batch: the jobs finished since the last, recorded and removed; a point
   * failed on its last attempt (or refused) is thrown. `leftovers`: also
   * remove finished jobs whose records are already in the file (a stopped
   * coordinator's), which only the first batch does, so that a coordinator
   * never takes a result another one, running at the same time, still needs.
   */
  const collect = async (leftovers: boolean) => {
    const [finished, failedIds] = await Promise.all([queue.getRanges(['completed'], 0, -1), queue.getRanges(['failed'], 0, -1)]);
    const records: RunRecord[] = [], recorded: string[] = [];
    for (const job of await jobsOf(ours(finished).filter((id) => pending.has(id) || leftovers))) {
      const id = job.id!;
      if (!pending.has(id)) { recorded.push(id); continue; }
      // A job's result carries the fingerprint it was made with (a worker only runs jobs of its own build).
      const result = parsed(job.returnvalue);
      if (!result || result.fingerprint !== fp) { await requeue(id); continue; }
      records.push(result.record);
      recorded.push(id);
      have.set(id, result.record);
      pending.delete(id);
      workers.add(result.worker);
      progress(id);
    }
    if (records.length) appendRecords(o.file, fp, records);
    await Promise.all(recorded.map((id) => queue.remove(id).catch(() => 0)));
    for (const job of await jobsOf(ours(failedIds).filter((id) => pending.has(id)))) {
      const reason = job.failedReason ?? 'no reason given';
      if (/^refused by worker /.test(reason)) throw new QueueRefused(`point ${job.id}: ${reason}`);
      failed++;
      progress(job.id!);
      throw new Error(`sweep point ${job.id}: ${reason}`);
    }
  };

  /** Adds the points that have no job in Redis: not yet enqueued, or gone (another coordinator of the same points collected them, or someone removed them). Adding a job that exists is a no-op. */
  const addMissing = async () => {
    const there = new Set(await queue.getRanges(['active', 'completed', 'delayed', 'failed', 'prioritized', 'waiting', 'waiting-children'], 0, -1));
    const missing = [...pending].filter((key) => !there.has(key)).map((key) => byKey.get(key)!);
    if (missing.length) await queue.addBulk(missing.map((p) => ({ name: p.key, data: { fingerprint: fp, run: p }, opts: jobOptions(p.key) })));
  };

  const collectAll = async (): Promise<RunRecord[] | null> => {
    await enqueue();
    for (let batch = 0; ; batch++) {
      await collect(batch === 0);
      if (!pending.size) return plan.map((p) => have.get(p.key)!);
      if (o.signal?.aborted) return null;
      if (batch % MISSING_CHECK_EVERY === MISSING_CHECK_EVERY - 1) await addMissing();
      await pause(COLLECT_EVERY_MS, o.signal);
    }
  };

  // Stopping does not wait for Redis (it may be gone already); a batch cut short is collected again by the next start.
  const stopped = new Promise<null>((resolve) => {
    if (o.signal?.aborted) resolve(null);
    o.signal?.addEventListener('abort', () => resolve(null), { once: true });
  });
  const collecting = collectAll();
  collecting.catch(() => {}); // after a stop, its end (an error from the closed connection, at worst) is of no interest
  try {
    return await Promise.race([collecting, stopped]);
  } finally {
    await closeWithin(() => queue.close());
    connection.disconnect();
  }
}

/** How often the coordinator collects finished jobs: a few ms of latency per batch, against a read per job. */
const COLLECT_EVERY_MS = 25;
/** Every this many batches (about 2 s), it looks for points whose jobs have gone missing. */
const MISSING_CHECK_EVERY = 80;

/** Waits ms, or less if the signal aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How long a close may wait for Redis (gone, when a cluster stops it first) before the connection is simply dropped. */
const CLOSE_GRACE_MS = 5000;

/** Runs a graceful close; if Redis does not answer in time, the forced one (if any), without waiting for it. */
async function closeWithin(close: () => Promise<unknown>, force?: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS); });
  const outcome = await Promise.race([close().catch(() => 'failed'), late]);
  clearTimeout(timer);
  if (outcome === 'late' && force) void force().catch(() => {});
}

/** A completed event's return value: the object, or its JSON text (BullMQ versions differ). */
const parsed = (v: unknown): JobResult | undefined => (typeof v === 'string' ? JSON.parse(v) as JobResult : v as JobResult | undefined);

/** Job id = point key; a few attempts for a point whose worker died (stalled jobs come back on their own). */
const jobOptions = (key: string) => ({ jobId: key, attempts: 3, backoff: { type: 'fixed', delay: 200 }, removeOnComplete: false, removeOnFail: false });

export interface WorkerOptions {
  url: string;
  /** Points run at once (worker threads). */
  concurrency: number;
  /** BullMQ's lock on an active job and the check for stalled jobs (ms): a dead worker's job returns to the queue within about their sum. */
  lockDuration?: number;
  stalledInterval?: number;
  /** One line per job started and finished. */
  log: (line: string) => void;
  signal?: AbortSignal;
}

/** Points a worker's thread holds beyond the one it runs (PointPool's `ahead`). */
const POINTS_AHEAD = 1;

/** Runs jobs until the signal aborts; throws QueueRefused after refusing a job made for other firmware. */
export async function runWorker(o: WorkerOptions): Promise<void> {
  const fp = fingerprint();
  const name = `${hostname()}:${process.pid}`;
  const connection = await connect(o.url);
  const { Worker, UnrecoverableError } = await import('bullmq');
  const pool = new PointPool(o.concurrency, POINTS_AHEAD);
  let refusal: QueueRefused | null = null;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => { stop = resolve; });
  const worker: Worker<JobData, JobResult> = new Worker(QUEUE_NAME, async (job) => {
    if (job.data.fingerprint !== fp) {
      const why = `refused by worker ${name}: its firmware fingerprint ${fp} differs from the coordinator's ${job.data.fingerprint} (build the same firmware on both: make -C firmware-c)`;
      refusal = new QueueRefused(`point ${job.id}: ${why}`);
      stop();
      throw new UnrecoverableError(why);
    }
    o.log(`start ${job.id}`);
    const record = await pool.run(job.data.run);
    o.log(`done ${job.id} (${record.wallMs.toFixed(0)} ms)`);
    return { fingerprint: fp, worker: name, record };
  }, {
    // Jobs enough for every thread's running and next point, and one more: the
    // next job is fetched from Redis while the threads run, and a thread
    // starts its next point without waiting for this event loop, so no thread
    // waits for the queue's round trip or for Redis traffic on the event loop
    // (a dead worker's waiting jobs return to the queue like its running ones).
    connection, concurrency: o.concurrency * (1 + POINTS_AHEAD) + 1, maxStalledCount: 2,
    ...(o.lockDuration ? { lockDuration: o.lockDuration } : {}), ...(o.stalledInterval ? { stalledInterval: o.stalledInterval } : {}),
  });
  worker.on('error', () => {}); // connection trouble: BullMQ retries
  o.signal?.addEventListener('abort', stop, { once: true });
  o.log(`worker ${name} on ${shownUrl(o.url)}, ${o.concurrency} at a time, firmware fingerprint ${fp}`);
  try {
    await stopped;
  } finally {
    await closeWithin(() => worker.close(), () => worker.close(true));
    await pool.close();
    connection.disconnect();
  }
  if (refusal) throw refusal;
}
