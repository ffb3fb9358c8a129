// `picotpu sweep <experiment>`: a scaling experiment on all cores (the engine
// and experiments are study/sweep/), its tables on standard output, a progress
// bar on a terminal's standard error.

import { EXIT } from '../emu/exit-status.ts';
import { checkOutputDirectory, outputErrorOf } from '../emu/observe/output-file.ts';
import { BoardError, boardNamed } from '../boards/registry.ts';
import { EXPERIMENT_NAMES, runSweep, sweepDocOf, SweepUsageError, SWEEP_BOARDS } from '../study/sweep/sweep.ts';
import { sweepElfsOf } from '../study/sweep/runs.ts';
import { UsageError } from './board-options.ts';
import { ensureModelElf, progressBar, say, writeAllSync, type AddCommand } from './common.ts';

export interface SweepCliOptions { experiment: string; jobs?: number; fresh: boolean; small: boolean; results: string; docs: string; board?: string }

export const addSweep: AddCommand = (y, done) => y.command(
  'sweep <experiment>',
  `Run a scaling experiment on all cores (resumable), print its table, write its SVG figures and rebuild docs/scaling.md; experiments: ${EXPERIMENT_NAMES.join(', ')}, all`,
  (y) => y
    .positional('experiment', { type: 'string', describe: `${EXPERIMENT_NAMES.join(' | ')} | all` })
    .option('jobs', { type: 'number', describe: 'worker threads (default: one per core)' })
    .option('fresh', { type: 'boolean', default: false, describe: 'discard earlier results instead of resuming' })
    .option('small', { type: 'boolean', default: false, describe: 'the small instances the tests use (seconds, not minutes)' })
    .option('results', { type: 'string', default: 'build/sweep', describe: 'directory of the JSON-lines results' })
    .option('docs', { type: 'string', describe: 'directory of scaling.md and figures/ (default docs; with --small, <results>/small-docs, so the small instances never overwrite the study)' })
    .option('board', { type: 'string', default: 'picotpu', describe: `the board swept: ${SWEEP_BOARDS.join(' | ')} (alias seed: the write-up's board, build/fw/seed-model.elf; its document is scaling-seed.md)` }),
  async (args) => {
    done(await sweepCommand({
      experiment: args.experiment as string, jobs: args.jobs, fresh: args.fresh, small: args.small, results: args.results,
      docs: args.docs ?? (args.small ? `${args.results}/small-docs` : 'docs'), board: args.board,
    }));
  },
);

/** The registry name of the board --board names (an alias too); an unknown board is a usage error. */
function boardOf(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  try { return boardNamed(name).name; } catch (e) { if (e instanceof BoardError) throw new UsageError(e.message); throw e; }
}

export async function sweepCommand(o: SweepCliOptions): Promise<number> {
  if (o.jobs !== undefined && !(Number.isInteger(o.jobs) && o.jobs >= 1)) throw new UsageError(`--jobs must be a positive integer, got ${o.jobs}`);
  const board = boardOf(o.board);
  let doc: string;
  try { doc = sweepDocOf(board); } catch (e) { if (e instanceof SweepUsageError) throw new UsageError(e.message); throw e; }
  checkOutputDirectory(o.results, '--results');
  checkOutputDirectory(o.docs, '--docs');
  if (!ensureModelElf([...sweepElfsOf(board)])) return EXIT.BAD_PROGRAM;
  const bar = await progressBar(Boolean(process.stderr.isTTY), 'sweep {experiment} [{bar}] {value}/{total} {key} | {eta_formatted} left');
  let current = '';
  const t0 = performance.now();
  try {
    await runSweep({
      experiment: o.experiment, jobs: o.jobs, fresh: o.fresh, scale: o.small ? 'small' : 'full', results: o.results, docs: o.docs, board,
      print: (text) => { bar?.stop(); current = ''; writeAllSync(1, Buffer.from(`${text}\n`)); },
      warn: (line) => { bar?.stop(); current = ''; say(line); },
      onProgress: (experiment, p) => {
        if (!bar) return;
        if (current !== experiment) { bar.start(p.total, p.done, { experiment, key: p.key }); current = experiment; } else bar.update(p.done, { experiment, key: p.key });
      },
    });
  } catch (e) {
    if (e instanceof SweepUsageError) throw new UsageError(e.message);
    if (e instanceof Error && /is missing: build the firmware/.test(e.message)) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof Error && /^sweep point /.test(e.message)) { say(e.message); return EXIT.INTERNAL; }
    throw outputErrorOf(e) ?? e;
  } finally {
    bar?.stop();
  }
  say(`sweep ${o.experiment}: ${((performance.now() - t0) / 1000).toFixed(1)} s; figures and ${o.docs}/${doc} written`);
  return 0;
}
