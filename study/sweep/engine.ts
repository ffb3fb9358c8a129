// The sweep engine: runs an experiment's points on worker threads (one per
// core), appends each finished run to a JSON-lines file, and on the next
// start skips every point already there — so an interrupted sweep resumes
// where it stopped. A record is kept only if it was made by the same
// firmware and emulator (a fingerprint of build/fw/*.elf and of this format),
// so stale results never mix with fresh ones. Runs are deterministic; the
// order they finish in does not matter because reports read them by key.

import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { runPoint, SWEEP_ELFS, type RunPoint, type RunRecord } from './runs.ts';

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
}

/** Identifies the firmware and record format the results were made with. */
export function fingerprint(): string {
  const h = createHash('sha256').update(`format ${RECORD_FORMAT}\n`);
  for (const elf of SWEEP_ELFS) {
    if (!existsSync(elf)) throw new Error(`${elf} is missing: build the firmware with \`make -C firmware-c\``);
    h.update(readFileSync(elf));
  }
  return h.digest('hex').slice(0, 16);
}

interface Line { fingerprint: string; record: RunRecord }

/** The records already in `file` made by this firmware, by key. */
export function readRecords(file: string, fp: string): Map<string, RunRecord> {
  const out = new Map<string, RunRecord>();
  if (!existsSync(file)) return out;
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.trim()) continue;
    let line: Line;
    try { line = JSON.parse(text) as Line; } catch { continue; } // a line cut short by an interruption
    if (line.fingerprint === fp && line.record?.key) out.set(line.record.key, line.record);
  }
  return out;
}

/** Runs every planned point not yet in the file; returns all records in plan order. */
export async function sweep(plan: PlannedRun[], o: SweepOptions): Promise<RunRecord[]> {
  const keys = new Set<string>();
  for (const p of plan) { if (keys.has(p.key)) throw new Error(`duplicate sweep key ${p.key}`); keys.add(p.key); }
  const fp = fingerprint();
  mkdirSync(dirname(o.file), { recursive: true });
  if (o.fresh) rmSync(o.file, { force: true });
  const have = readRecords(o.file, fp);
  const todo = plan.filter((p) => !have.has(p.key));
  let done = plan.length - todo.length;
  o.onProgress?.({ done, total: plan.length, key: '' });
  const finish = (r: RunRecord) => {
    appendFileSync(o.file, `${JSON.stringify({ fingerprint: fp, record: r } satisfies Line)}\n`);
    have.set(r.key, r);
    o.onProgress?.({ done: ++done, total: plan.length, key: r.key });
  };
  const jobs = Math.min(o.jobs ?? availableParallelism(), todo.length);
  if (jobs <= 1) for (const p of todo) finish(runPoint(p.key, p.point));
  else await runOnWorkers(todo, jobs, finish);
  return plan.map((p) => have.get(p.key)!);
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
  let next = 0;
  const workers = Array.from({ length: jobs }, startWorker);
  try {
    await Promise.all(workers.map((w) => new Promise<void>((resolve, reject) => {
      const give = () => {
        if (next >= todo.length) { resolve(); return; }
        const p = todo[next++];
        w.postMessage(p);
      };
      w.on('message', (m: { ok: true; record: RunRecord } | { ok: false; key: string; error: string }) => {
        if (!m.ok) { reject(new Error(`sweep point ${m.key}: ${m.error}`)); return; }
        finish(m.record);
        give();
      });
      w.on('error', reject);
      w.on('exit', (code) => { if (code !== 0) reject(new Error(`sweep worker exited with ${code}`)); });
      give();
    })));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
