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

import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { appendRecords, fingerprint, PointPool, readRecords, type PlannedRun } from '../sweep/engine.ts';
import { boardSets, elfsOfBoards, type RunRecord } from '../sweep/runs.ts';
import { checkRecord, checkRunnable, PointError } from './point-check.ts';

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

/** A firmware fingerprint as engine.ts fingerprint() makes it. */
const FINGERPRINT = /^[0-9a-f]{16}$/;

/**
 * Text from Redis (job ids, failure reasons, worker names) as one printable
 * line: control characters, newlines and escape sequences shown as \n or
 * \xNN, so nothing a worker or a crafted job says can move the cursor,
 * colour the terminal or pass for a line of its own.
 */
export function printable(s: unknown): string {
  return String(s).replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : c > '\xff' ? `\\u${c.charCodeAt(0).toString(16)}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/** A job's data as a worker gets it: the fingerprint, or the one-line reason the job is not one of ours. */
function jobFingerprint(data: unknown): string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new PointError(`a job's data must be an object {fingerprint, run}, got ${data === null ? 'null' : Array.isArray(data) ? 'a list' : typeof data}`);
  const fp = (data as { fingerprint?: unknown }).fingerprint;
  if (typeof fp !== 'string' || !FINGERPRINT.test(fp)) throw new PointError(`a job's fingerprint must be 16 hexadecimal digits, got ${printable(JSON.stringify(fp) ?? 'nothing')}`);
  return fp;
}

/** A finished job's return value as the coordinator reads it: a result of this build, or the one-line reason it is not a result. */
function jobResult(v: unknown, key: string): JobResult {
  let x = v;
  if (typeof v === 'string') { try { x = JSON.parse(v); } catch { throw new PointError('its return value is not JSON'); } }
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new PointError('its return value is not an object {fingerprint, worker, record}');
  const r = x as Record<string, unknown>;
  if (typeof r.fingerprint !== 'string' || typeof r.worker !== 'string') throw new PointError('its return value has no fingerprint or worker');
  checkRecord(r.record, key);
  return r as unknown as JobResult;
}

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

/**
 * Reports the connection's state changes, one line each: lost (with the
 * socket's error) and back. ioredis reconnects on its own and BullMQ's calls
 * wait for it; every failed attempt in between says nothing more.
 */
function watchConnection(client: Redis, url: string, say: ((line: string) => void) | undefined): void {
  let down = false;
  client.on('error', (e: Error) => {
    if (down) return;
    down = true;
    say?.(`lost the queue at ${shownUrl(url)} (${printable(e.message)}): waiting for it to come back`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    say?.(`the queue at ${shownUrl(url)} is back`);
  });
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
  /** A point failed (its worker failed it, or returned something that is not its record): collecting goes on without it. */
  onFailure?: (key: string, reason: string) => void;
  /** One line when the connection to Redis is lost, one when it is back. */
  onConnection?: (line: string) => void;
  /** Damaged lines of the results file, in one line (engine.ts readRecords). */
  warn?: (line: string) => void;
}

/**
 * Enqueues every planned point not yet in the file and collects results until
 * each is recorded or has failed. Returns the records in plan order (without
 * the failed points'), or null when stopped through the signal. A point that
 * fails on its last attempt, or whose result is not its record, is reported
 * through onFailure and left out; a refused job is a QueueRefused.
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
  const have = readRecords(o.file, fp, o.warn);
  const pending = new Set(plan.filter((p) => !have.has(p.key)).map((p) => p.key));
  const workers = new Set<string>();
  let failed = 0;
  const progress = (key: string) => o.onProgress?.({ done: plan.length - pending.size - failed, total: plan.length, failed, workers: workers.size, key });
  const fail = (key: string, reason: string) => {
    pending.delete(key);
    failed++;
    o.onFailure?.(key, reason);
    progress(key);
  };
  progress('');
  if (!pending.size) return plan.map((p) => have.get(p.key)!);
  const connection = await connect(o.url, true);
  watchConnection(connection, o.url, o.onConnection);
  const { Queue } = await import('bullmq');
  const queue: Queue<JobData, JobResult> = new Queue(QUEUE_NAME, { connection });
  queue.on('error', () => {}); // said once per state change by watchConnection (without a listener, BullMQ prints every attempt's stack)
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
      let result: JobResult;
      try { result = jobResult(job.returnvalue, id); } catch (e) {
        // Removed from Redis, so that the next start runs it again.
        fail(id, `the result is not a record of the point: ${(e as Error).message}`);
        recorded.push(id);
        continue;
      }
      if (result.fingerprint !== fp) { await requeue(id); continue; }
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
      const reason = printable(job.failedReason ?? 'no reason given');
      if (/^refused by worker /.test(reason)) throw new QueueRefused(`point ${printable(job.id)}: ${reason}`);
      // It stays failed in Redis: the next start retries it.
      fail(job.id!, reason);
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
      if (!pending.size) return plan.filter((p) => have.has(p.key)).map((p) => have.get(p.key)!);
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
  /** One line when the connection to Redis is lost, one when it is back. */
  onConnection?: (line: string) => void;
  signal?: AbortSignal;
}

/** Points a worker's thread holds beyond the one it runs (PointPool's `ahead`). */
const POINTS_AHEAD = 1;

/** Runs jobs until the signal aborts; throws QueueRefused after refusing a job made for other firmware. */
export async function runWorker(o: WorkerOptions): Promise<void> {
  const fp = fingerprint();
  // A grid over several boards fingerprints all their firmware: every set of boards whose builds are here is accepted.
  const accepted = new Set(boardSets().map(elfsOfBoards).filter((elfs) => elfs.every((e) => existsSync(e))).map((elfs) => fingerprint(elfs)));
  accepted.add(fp);
  const name = `${hostname()}:${process.pid}`;
  const connection = await connect(o.url);
  watchConnection(connection, o.url, o.onConnection);
  const { Worker, UnrecoverableError } = await import('bullmq');
  const pool = new PointPool(o.concurrency, POINTS_AHEAD);
  let refusal: QueueRefused | null = null;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => { stop = resolve; });
  // A log that cannot be written (standard output full or closed) stops the worker, which then ends with that error, instead of failing every job.
  let logFailure: unknown = null;
  const log = (line: string) => {
    if (logFailure !== null) return;
    try { o.log(line); } catch (e) { logFailure = e; stop(); }
  };
  const worker: Worker<JobData, JobResult> = new Worker(QUEUE_NAME, async (job) => {
    const id = printable(job.id);
    // A job is input: checked with the grid's own schema before anything runs; a bad one fails with its reason, and the worker goes on.
    let run: PlannedRun;
    try {
      const jobFp = jobFingerprint(job.data);
      if (!accepted.has(jobFp)) {
        const why = `refused by worker ${name}: its firmware fingerprint ${fp} differs from the coordinator's ${jobFp} (build the same firmware on both: make -C firmware-c)`;
        refusal = new QueueRefused(`point ${id}: ${why}`);
        stop();
        throw new UnrecoverableError(why);
      }
      run = checkRunnable(job.data.run);
    } catch (e) {
      if (!(e instanceof PointError)) throw e;
      log(`bad job ${id}: ${printable(e.message)}`);
      throw new UnrecoverableError(`bad job: ${e.message}`);
    }
    log(`start ${id}`);
    const record = await pool.run(run);
    log(`done ${id} (${record.wallMs.toFixed(0)} ms)`);
    return { fingerprint: job.data.fingerprint, worker: name, record };
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
  log(`worker ${name} on ${shownUrl(o.url)}, ${o.concurrency} at a time, firmware fingerprint ${fp}`);
  try {
    await stopped;
  } finally {
    await closeWithin(() => worker.close(), () => worker.close(true));
    await pool.close();
    connection.disconnect();
  }
  if (logFailure !== null) throw logFailure;
  if (refusal) throw refusal;
}
