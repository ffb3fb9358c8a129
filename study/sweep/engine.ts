// The sweep engine: runs an experiment's points on worker threads (one per
// core), appends each finished run to a JSON-lines file, and on the next
// start skips every point already there — so an interrupted sweep resumes
// where it stopped. A record is kept only if it was made by the same
// firmware and emulator (a fingerprint of build/fw/*.elf and of this format),
// so stale results never mix with fresh ones. Runs are deterministic; the
// order they finish in does not matter because reports read them by key.

import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { errnoText, makeDirectories, OutputError } from '../../emu/observe/output-file.ts';
import { programSha256 } from '../../model/predict/calibration.ts';
import { firmwareMissing } from '../../model/run.ts';
import { recordShapeError, runPoint, SWEEP_ELFS, type RunPoint, type RunRecord } from './runs.ts';

/** Bump when RunRecord's meaning changes. */
const RECORD_FORMAT = 2;

export interface PlannedRun { key: string; point: RunPoint }

export interface SweepProgress { done: number; total: number; key: string }

export interface SweepOptions {
  /** The JSON-lines results file. */
  file: string;
  /** Worker threads (default: all cores; 0 or 1 runs in this thread). */
  jobs?: number;
  /** Discard earlier results. */
  fresh?: boolean;
  onProgress?: (p: SweepProgress) => void;
  /** Lines of the results file that are not records, said in one line (readRecords). */
  warn?: (line: string) => void;
  /** The firmware the plan runs, which the results' fingerprint covers (default: picotpu's builds, runs.ts SWEEP_ELFS). */
  elfs?: readonly string[];
}

/**
 * Identifies the firmware and record format the results were made with: the
 * program images (model/predict/calibration.ts programSha256), not the ELF files,
 * whose debug sections name the folder they were built in, so that two
 * checkouts of one commit agree.
 */
export function fingerprint(elfs: readonly string[] = SWEEP_ELFS): string {
  const h = createHash('sha256').update(`format ${RECORD_FORMAT}\n`);
  for (const elf of elfs) {
    if (!existsSync(elf)) throw firmwareMissing(elf);
    h.update(programSha256(readFileSync(elf)));
  }
  return h.digest('hex').slice(0, 16);
}

interface Line { fingerprint: string; record: RunRecord }

/**
 * The largest results file read back (bytes): far above what the largest grid
 * (100,000 points of about 1 KB each) writes, and below the longest string the
 * JavaScript engine holds.
 */
export const MAX_RESULTS_BYTES = 256 * 1024 * 1024;

/** A results file is absent or a regular file; else OutputError (one line, 165). Returns whether it exists. */
export function checkResultsFile(file: string): boolean {
  let st;
  try { st = statSync(file); } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new OutputError(`cannot read the results file ${file}: ${errnoText(e)}`);
  }
  if (st.isDirectory()) throw new OutputError(`the results file ${file} is a directory`);
  if (!st.isFile()) throw new OutputError(`the results file ${file} is not a regular file`);
  return true;
}

/**
 * The records already in `file` made by this firmware, by key. The last line
 * cut short by an interruption is skipped; so is a line that is not a record
 * (damaged by hand, another tool's), which `warn` hears of in one line: its
 * point simply runs again.
 */
export function readRecords(file: string, fp: string, warn?: (line: string) => void): Map<string, RunRecord> {
  const out = new Map<string, RunRecord>();
  if (!checkResultsFile(file)) return out;
  const size = statSync(file).size;
  if (size > MAX_RESULTS_BYTES) throw new OutputError(`the results file ${file} has ${size} bytes, more than the ${MAX_RESULTS_BYTES} read back: start afresh with --fresh or another --results`);
  const lines = readFileSync(file, 'utf8').split('\n');
  let last = lines.length - 1;
  while (last >= 0 && !lines[last].trim()) last--;
  let bad = 0, first = '';
  for (const [i, text] of lines.entries()) {
    if (!text.trim()) continue;
    let line: unknown;
    try { line = JSON.parse(text); } catch {
      // The last line cut short by an interruption says nothing; a line that is not JSON before it is damage.
      if (i !== last) { bad++; first ||= `line ${i + 1}: not JSON`; }
      continue;
    }
    const l = line as Partial<Line> | null;
    if (typeof l !== 'object' || l === null || Array.isArray(l) || typeof l.fingerprint !== 'string') {
      bad++;
      first ||= `line ${i + 1}: not an object {fingerprint, record}`;
      continue;
    }
    if (l.fingerprint !== fp) continue; // another build's
    const why = recordShapeError(l.record);
    if (why) { bad++; first ||= `line ${i + 1}: ${why}`; continue; }
    out.set(l.record!.key, l.record!);
  }
  if (bad) warn?.(`${bad} line${bad > 1 ? 's' : ''} of ${file} ${bad > 1 ? 'are not records' : 'is not a record'} (${first}): ignored, ${bad > 1 ? 'their points run' : 'its point runs'} again`);
  return out;
}

/** Appends one finished run to a results file (the one line format every engine, local or queued, writes). */
export function appendRecord(file: string, fp: string, record: RunRecord): void {
  appendRecords(file, fp, [record]);
}

/** Appends finished runs in one write (the queue's coordinator writes a batch at a time). */
export function appendRecords(file: string, fp: string, records: RunRecord[]): void {
  appendFileSync(file, records.map((record) => `${JSON.stringify({ fingerprint: fp, record } satisfies Line)}\n`).join(''));
}

/** Runs every planned point not yet in the file; returns all records in plan order. */
export async function sweep(plan: PlannedRun[], o: SweepOptions): Promise<RunRecord[]> {
  const keys = new Set<string>();
  for (const p of plan) { if (keys.has(p.key)) throw new Error(`duplicate sweep key ${p.key}`); keys.add(p.key); }
  const fp = fingerprint(o.elfs);
  makeDirectories(dirname(o.file));
  checkResultsFile(o.file);
  if (o.fresh) rmSync(o.file, { force: true });
  const have = readRecords(o.file, fp, o.warn);
  const todo = plan.filter((p) => !have.has(p.key));
  let done = plan.length - todo.length;
  o.onProgress?.({ done, total: plan.length, key: '' });
  const finish = (r: RunRecord) => {
    appendRecord(o.file, fp, r);
    have.set(r.key, r);
    o.onProgress?.({ done: ++done, total: plan.length, key: r.key });
  };
  const jobs = Math.min(o.jobs ?? availableParallelism(), todo.length);
  if (jobs <= 1) for (const p of todo) finish(runHere(p));
  else await runOnWorkers(todo, jobs, finish);
  return plan.map((p) => have.get(p.key)!);
}

/** Runs a point in this thread; its failure names it as a worker thread's does. */
function runHere(p: PlannedRun): RunRecord {
  try {
    return runPoint(p.key, p.point);
  } catch (e) {
    throw new Error(`sweep point ${p.key}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A worker thread running runs.ts, one point per message: in the compiled
 * distribution (npm run build defines PICOTPU_COMPILED) dist/sweep-worker.mjs,
 * which sits beside this code's chunk; from the sources, worker.ts under tsx's loader.
 */
function startWorker(): Worker {
  if (process.env.PICOTPU_COMPILED === '1') return new Worker(new URL('./sweep-worker.mjs', import.meta.url));
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)}); })`;
  return new Worker(code, { eval: true });
}

async function runOnWorkers(todo: PlannedRun[], jobs: number, finish: (r: RunRecord) => void): Promise<void> {
  const pool = new PointPool(jobs);
  let next = 0;
  const lane = async () => { while (next < todo.length) finish(await pool.run(todo[next++])); };
  try {
    await Promise.all(Array.from({ length: jobs }, lane));
  } finally {
    await pool.close();
  }
}

type Reply = { ok: true; record: RunRecord } | { ok: false; key: string; error: string };
interface Waiting { resolve: (r: RunRecord) => void; reject: (e: Error) => void }

/**
 * Worker threads that each run one point at a time: run() hands a point to an
 * idle thread (or waits for one) and resolves with its record. The sweep
 * engine and a queue worker (study/explore/queue.ts) both run points on it,
 * so the event loop stays free while the emulator works. `ahead`: points
 * posted to a thread beyond the one it runs; a thread then starts its next
 * point the moment it finishes one, without waiting for this event loop to
 * take the result and post the next (which a queue worker's event loop, busy
 * with Redis, may not do at once).
 */
export class PointPool {
  private readonly threads: Worker[] = [];
  /** Per thread, the points posted to it, oldest (the running one) first: its replies come in that order. */
  private readonly posted = new Map<Worker, Waiting[]>();
  private readonly queued: { p: PlannedRun; w: Waiting }[] = [];
  private closing = false;
  /** Threads that died since the last reply: past a few, every new thread dies too (it cannot start), and the pool gives up. */
  private deaths = 0;
  private failure: Error | null = null;

  constructor(readonly threadCount: number, private readonly ahead = 0) {
    for (let i = 0; i < threadCount; i++) this.add();
  }

  run(p: PlannedRun): Promise<RunRecord> {
    return new Promise((resolve, reject) => {
      if (this.closing) { reject(new Error('sweep worker pool closed')); return; }
      if (this.failure) { reject(this.failure); return; }
      this.queued.push({ p, w: { resolve, reject } });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    const all = this.threads.splice(0);
    await Promise.all(all.map((w) => w.terminate()));
  }

  /** Posts queued points to the least loaded threads, up to 1 + ahead each. */
  private dispatch(): void {
    while (this.queued.length) {
      let best: Worker | null = null;
      for (const w of this.threads) if (this.posted.get(w)!.length <= this.ahead && (!best || this.posted.get(w)!.length < this.posted.get(best)!.length)) best = w;
      if (!best) return;
      const { p, w: waiting } = this.queued.shift()!;
      this.posted.get(best)!.push(waiting);
      best.postMessage(p);
    }
  }

  private add(): void {
    const w = startWorker();
    this.threads.push(w);
    this.posted.set(w, []);
    let error: Error | null = null;
    w.on('message', (m: Reply) => {
      this.deaths = 0;
      const waiting = this.posted.get(w)!.shift()!;
      if (m.ok) waiting.resolve(m.record); else waiting.reject(new Error(`sweep point ${m.key}: ${m.error}`));
      this.dispatch();
    });
    w.on('error', (e: Error) => { error = e; });
    // A thread that dies (out of memory, an exception that escaped) fails only the points it held: another takes its place.
    w.on('exit', (code) => {
      const held = this.posted.get(w) ?? [];
      this.posted.delete(w);
      const at = this.threads.indexOf(w);
      if (at >= 0) this.threads.splice(at, 1);
      const why = error ?? new Error(`sweep worker exited with ${code}`);
      for (const waiting of held) waiting.reject(why);
      if (this.closing) return;
      if (++this.deaths > this.threadCount + 2) {
        this.failure = why;
        for (const q of this.queued.splice(0)) q.w.reject(why);
        return;
      }
      this.add();
      this.dispatch();
    });
  }
}
