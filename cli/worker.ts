// `picotpu worker --queue URL`: runs `picotpu explore --queue` jobs from a
// Redis queue on this machine's cores (study/explore/queue.ts) until SIGINT or
// SIGTERM; one line per job on standard output.

import { EXIT } from '../emu/exit-status.ts';
import { runWorker } from '../study/explore/queue.ts';
import { boardSets, elfsOfBoards } from '../study/sweep/runs.ts';
import { UsageError } from './board-options.ts';
import { ensureModelElf, say, writeAllSync, type AddCommand } from './common.ts';
import { abortOnSignals, queueErrorStatus } from './explore.ts';
import { availableParallelism } from 'node:os';

export interface WorkerCliOptions { queue: string; concurrency?: number; lockDuration?: number; stalledInterval?: number }

export const addWorker: AddCommand = (y, done) => y.command(
  'worker',
  'Run `picotpu explore --queue` jobs from a Redis queue on this machine until SIGINT or SIGTERM; refuses jobs made for other firmware',
  (y) => y
    .option('queue', { type: 'string', demandOption: true, describe: 'redis://[USER:PASSWORD@]HOST:PORT/DB (rediss:// for TLS)' })
    .option('concurrency', { type: 'number', describe: 'points at once, one thread each (default: one per core)' })
    .option('lock-duration', { type: 'number', describe: 'ms a running job stays locked without renewal (BullMQ lockDuration; default 30000): a killed worker\'s job returns to the queue after about this' })
    .option('stalled-interval', { type: 'number', describe: 'ms between checks for stalled jobs (BullMQ stalledInterval; default 30000)' }),
  async (args) => {
    done(await workerCommand({ queue: args.queue, concurrency: args.concurrency, lockDuration: args.lockDuration, stalledInterval: args.stalledInterval }));
  },
);

const positive = (name: string, v: number | undefined) => {
  if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw new UsageError(`${name} must be a positive integer, got ${v}`);
};

export async function workerCommand(o: WorkerCliOptions): Promise<number> {
  positive('--concurrency', o.concurrency);
  positive('--lock-duration', o.lockDuration);
  positive('--stalled-interval', o.stalledInterval);
  // Every board's model firmware a grid may name (one make builds them all).
  if (!ensureModelElf(elfsOfBoards(boardSets().flat()))) return EXIT.BAD_PROGRAM;
  const signals = abortOnSignals();
  try {
    await runWorker({
      url: o.queue, concurrency: o.concurrency ?? availableParallelism(), lockDuration: o.lockDuration, stalledInterval: o.stalledInterval,
      log: (line) => writeAllSync(1, Buffer.from(`${line}\n`)), onConnection: say, signal: signals.signal,
    });
  } catch (e) {
    const status = queueErrorStatus(e);
    if (status !== null) return status;
    throw e;
  } finally {
    signals.release();
  }
  return 0;
}
