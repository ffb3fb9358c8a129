// `picotpu explore GRID.json`: expands the grid, runs its runnable points on
// the sweep engine (local worker threads, resumable, fingerprinted) or
// through a Redis queue (queue.ts), and writes the report: a table per point,
// the Pareto front and its SVG, and which knob pays most.

import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { makeDirectories } from '../../emu/observe/output-file.ts';
import { checkResultsFile, fingerprint, readRecords, sweep, type PlannedRun, type SweepProgress } from '../sweep/engine.ts';
import { elfsOfBoards } from '../sweep/runs.ts';
import { expandGrid, GridError, parseGrid, type Grid, type GridPoint } from './grid.ts';
import { runOnQueue, type QueueProgress } from './queue.ts';
import { exploreReport, type ExploreReport } from './report.ts';

export interface ExploreOptions {
  gridFile: string;
  /** The grid file's text, when the caller has read it (the command line reads it with a bound on its size). */
  gridText?: string;
  /** Directory of the JSON-lines results (the file is <name>.jsonl). */
  results: string;
  /** Where explore-<name>.md and figures/explore-<name>-pareto.svg go. */
  docs: string;
  jobs?: number;
  fresh?: boolean;
  /** A redis:// URL: run through the queue instead of local threads. */
  queue?: string;
  onProgress?: (p: SweepProgress | QueueProgress) => void;
  /** Through the queue: a point failed (the report goes on without it). */
  onFailure?: (key: string, reason: string) => void;
  /** Through the queue: the connection to Redis lost or back, one line each. */
  onConnection?: (line: string) => void;
  /** Damaged lines of the results file, in one line. */
  warn?: (line: string) => void;
  signal?: AbortSignal;
}

export interface ExploreResult {
  grid: Grid; points: GridPoint[]; report: ExploreReport | null; resultsFile: string;
  /** The keys of the points that failed on the queue. */
  failed: string[];
}

/** Reads and expands a grid file, or its text when the caller has read it (GridError on a bad one, naming the file). */
export function loadGrid(file: string, text?: string): { grid: Grid; points: GridPoint[]; excluded: number } {
  if (text === undefined) {
    try { text = readFileSync(file, 'utf8'); } catch (e) { throw new GridError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`); }
  }
  try {
    const grid = parseGrid(text, basename(file).replace(/\.json$/, ''));
    return { grid, ...expandGrid(grid) };
  } catch (e) { throw e instanceof GridError ? new GridError(`${file}: ${e.message}`) : e; }
}

/** The runnable points as the engine's plan. */
export const planOf = (points: readonly GridPoint[]): PlannedRun[] => points.filter((p) => p.status.kind === 'run').map((p) => ({ key: p.key, point: p.run }));

/** Runs the grid (or, stopped through the signal, returns report null) and writes the report. */
export async function explore(o: ExploreOptions): Promise<ExploreResult> {
  const { grid, points, excluded } = loadGrid(o.gridFile, o.gridText);
  const plan = planOf(points);
  const resultsFile = join(o.results, `${grid.name}.jsonl`);
  makeDirectories(o.results);
  const failed: string[] = [];
  // The results are fingerprinted by the firmware of the grid's boards (a grid on picotpu alone: its builds, as the sweeps).
  const elfs = elfsOfBoards(grid.boards), fp = fingerprint(elfs);
  if (o.queue) {
    if (o.fresh) writeFileSync(resultsFile, '');
    const onFailure = (key: string, reason: string) => { failed.push(key); o.onFailure?.(key, reason); };
    const done = await runOnQueue(plan, { url: o.queue, file: resultsFile, onProgress: o.onProgress, onFailure, onConnection: o.onConnection, warn: o.warn, signal: o.signal, fingerprint: fp });
    if (!done) return { grid, points, report: null, resultsFile, failed };
  } else {
    await sweep(plan, { file: resultsFile, jobs: o.jobs, fresh: o.fresh, onProgress: o.onProgress, warn: o.warn, elfs });
  }
  const report = exploreReport(grid, points, readRecords(resultsFile, fp), fp, excluded);
  makeDirectories(join(o.docs, 'figures'));
  // vega loads only here (its 1.5 MB would slow every command's start).
  const { renderSvg } = await import('../sweep/render.ts');
  writeFileSync(join(o.docs, `explore-${grid.name}.md`), report.markdown);
  writeFileSync(join(o.docs, 'figures', `explore-${grid.name}-pareto.svg`), await renderSvg(report.spec));
  return { grid, points, report, resultsFile, failed };
}
