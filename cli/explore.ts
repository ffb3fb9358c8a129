// `picotpu explore GRID.json`: a design-space exploration (study/explore/):
// every point of a user's grid on all cores, or through a Redis queue with
// --queue; its report on standard output, explore-<name>.md and the Pareto SVG
// in --docs, a progress bar on a terminal's standard error.

import { EXIT } from '../emu/exit-status.ts';
import { checkOutputDirectory, outputErrorOf } from '../emu/observe/output-file.ts';
import { explore } from '../study/explore/explore.ts';
import { GridError, MAX_GRID_BYTES } from '../study/explore/grid.ts';
import { checkQueueUrl, printable, QueueRefused, QueueUnreachable, QueueUrlError } from '../study/explore/queue.ts';
import { boardSets, elfsOfBoards } from '../study/sweep/runs.ts';
import { UsageError } from './board-options.ts';
import { BoundedReadError, readBounded } from './bounded-read.ts';
import { ensureModelElf, progressBar, say, writeAllSync, type AddCommand } from './common.ts';

export interface ExploreCliOptions { grid: string; jobs?: number; fresh: boolean; results: string; docs: string; queue?: string }

export const addExplore: AddCommand = (y, done) => y.command(
  'explore <grid>',
  'Run a design-space grid (JSON: workloads, platform axes, exclusions, objective) on all cores or through a Redis queue (resumable); print each point, the Pareto front of clocks against FPGA cost and the knob that pays most; write explore-<name>.md and its SVG',
  (y) => y
    .positional('grid', { type: 'string', describe: 'the grid file (study/explore/example-grid.json is one)' })
    .option('jobs', { type: 'number', describe: 'worker threads (default: one per core)' })
    .option('fresh', { type: 'boolean', default: false, describe: 'discard earlier results instead of resuming' })
    .option('results', { type: 'string', default: 'build/explore', describe: 'directory of the JSON-lines results (<name>.jsonl)' })
    .option('docs', { type: 'string', default: 'build/explore', describe: 'directory of explore-<name>.md and figures/' })
    .option('queue', { type: 'string', describe: 'redis://[USER:PASSWORD@]HOST:PORT/DB (rediss:// for TLS): enqueue the points for `picotpu worker`s instead of running them here' }),
  async (args) => {
    done(await exploreCommand({ grid: args.grid as string, jobs: args.jobs, fresh: args.fresh, results: args.results, docs: args.docs, queue: args.queue }));
  },
);

/** What the queue commands throw, as one line and an exit status (null: not theirs). */
export function queueErrorStatus(e: unknown): number | null {
  if (e instanceof QueueUnreachable) { say(e.message); return EXIT.QUEUE_UNREACHABLE; }
  if (e instanceof QueueRefused) { say(e.message); return EXIT.QUEUE_REFUSED; }
  if (e instanceof QueueUrlError) throw new UsageError(e.message);
  return null;
}

/**
 * SIGINT and SIGTERM abort the returned signal instead of killing the process
 * (the command closes its connections and ends itself); a second signal ends
 * the process at once.
 */
export function abortOnSignals(): { signal: AbortSignal; status: () => number | null; release: () => void } {
  const ac = new AbortController();
  let status: number | null = null;
  const on = (s: number) => () => {
    if (status !== null) process.exit(s);
    status = s;
    ac.abort();
  };
  const int = on(EXIT.INTERRUPTED), term = on(EXIT.TERMINATED);
  process.on('SIGINT', int);
  process.on('SIGTERM', term);
  return { signal: ac.signal, status: () => status, release: () => { process.off('SIGINT', int); process.off('SIGTERM', term); } };
}

/** The grid file's text, read with a bound on its size (a device without end, /dev/zero, is refused at once). */
function readGrid(file: string): string {
  try {
    return Buffer.from(readBounded(file, MAX_GRID_BYTES)).toString('utf8');
  } catch (e) {
    if (e instanceof BoundedReadError) throw new UsageError(`grid ${file}: cannot read it: ${e.message}`);
    throw e;
  }
}

export async function exploreCommand(o: ExploreCliOptions): Promise<number> {
  if (o.jobs !== undefined && !(Number.isInteger(o.jobs) && o.jobs >= 1)) throw new UsageError(`--jobs must be a positive integer, got ${o.jobs}`);
  if (o.queue !== undefined) { try { checkQueueUrl(o.queue); } catch (e) { queueErrorStatus(e); } }
  const gridText = readGrid(o.grid);
  checkOutputDirectory(o.results, '--results');
  checkOutputDirectory(o.docs, '--docs');
  // Every board's model firmware a grid may name (one make builds them all).
  if (!ensureModelElf(elfsOfBoards(boardSets().flat()))) return EXIT.BAD_PROGRAM;
  const bar = await progressBar(Boolean(process.stderr.isTTY),
    o.queue ? 'explore [{bar}] {value}/{total} | failed {failed} | workers {workers} | {eta_formatted} left' : 'explore [{bar}] {value}/{total} {key} | {eta_formatted} left');
  let started = false;
  const t0 = performance.now();
  // Through the queue, Ctrl-C stops collecting and closes the connection; the local engine is simply killed (it resumes).
  const signals = o.queue ? abortOnSignals() : null;
  let result;
  try {
    result = await explore({
      gridFile: o.grid, gridText, results: o.results, docs: o.docs, jobs: o.jobs, fresh: o.fresh, queue: o.queue, signal: signals?.signal,
      onProgress: (p) => {
        if (!bar) return;
        const payload = { key: p.key, failed: 'failed' in p ? p.failed : 0, workers: 'workers' in p ? p.workers : 0 };
        if (!started) { bar.start(p.total, p.done, payload); started = true; } else bar.update(p.done, payload);
      },
      onFailure: (key, reason) => say(`point ${printable(key)} failed: ${reason}`),
      onConnection: say, warn: say,
    });
  } catch (e) {
    if (e instanceof GridError) throw new UsageError(`grid ${e.message}`);
    const status = queueErrorStatus(e);
    if (status !== null) return status;
    if (e instanceof Error && /is missing: build the firmware/.test(e.message)) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof Error && /^sweep point /.test(e.message)) { say(e.message); return EXIT.INTERNAL; }
    throw outputErrorOf(e) ?? e;
  } finally {
    bar?.stop();
    signals?.release();
  }
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  if (!result.report) {
    say(`explore ${result.grid.name}: stopped after ${seconds} s; finished points are in ${result.resultsFile} or wait in the queue: run the same command again to go on`);
    return signals?.status() ?? EXIT.INTERRUPTED;
  }
  writeAllSync(1, Buffer.from(`${result.report.text}\n`));
  say(`explore ${result.grid.name}: ${result.points.length} points, ${seconds} s; ${o.docs}/explore-${result.grid.name}.md and figures/explore-${result.grid.name}-pareto.svg written`);
  if (result.failed.length) {
    say(`explore ${result.grid.name}: ${result.failed.length} points failed (above) and are not in the report: run the same command again to retry them`);
    return EXIT.POINTS_FAILED;
  }
  return 0;
}
