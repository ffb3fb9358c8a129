// `picotpu` command line: wires each command (one file each: run, gdb, debug,
// bench, sweep, explore, worker, eval, demo) into yargs and maps what a command throws to one
// line and an exit status. A command's module is imported only when it runs
// (or --help lists them all), so a start loads the code of one command. The guest's console goes to standard output
// unchanged; everything the emulator itself says goes to standard error, one
// line per event, and the exit status is the guest's EXIT value or one of
// emu/exit-status.ts.

import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { ConfigError } from '../emu/config.ts';
import { ElfError } from '../emu/elf.ts';
import { EXIT, exitStatusText } from '../emu/exit-status.ts';
import { InputReadError } from '../emu/console-input.ts';
import { discardAllOutputs, OutputError } from '../emu/observe/output-file.ts';
import { UsageError } from './board-options.ts';
import { SIGNAL_STATUS } from './run-control.ts';
import { say, StdoutClosed, type AddCommand } from './common.ts';

/** The commands, in the order --help lists them: each name and the import of the module that adds it. */
const COMMANDS: { name: string; load: () => Promise<AddCommand> }[] = [
  { name: 'run', load: async () => (await import('./run.ts')).addRun },
  { name: 'gdb', load: async () => (await import('./gdb.ts')).addGdb },
  { name: 'debug', load: async () => (await import('./debug.ts')).addDebug },
  { name: 'bench', load: async () => (await import('./bench.ts')).addBench },
  { name: 'sweep', load: async () => (await import('./sweep.ts')).addSweep },
  { name: 'explore', load: async () => (await import('./explore.ts')).addExplore },
  { name: 'worker', load: async () => (await import('./worker.ts')).addWorker },
  { name: 'eval', load: async () => (await import('./eval.ts')).addEval },
  { name: 'demo', load: async () => (await import('./demo.ts')).addDemo },
];

/** The commands to register: the one named first on the command line, or every one (--help, no command, an unknown one). */
async function commandsFor(argv: string[]): Promise<AddCommand[]> {
  const named = COMMANDS.find((c) => c.name === argv[0]);
  return Promise.all((named ? [named] : COMMANDS).map((c) => c.load()));
}

/**
 * Standard output's or standard error's reader has gone (`picotpu debug ... | head`):
 * end quietly with 141, as a tool killed by SIGPIPE would (`run` stops its run the same way, cli/run-control.ts).
 */
let pipesWatched = false;

function quietOnClosedPipes(): void {
  // Once per process: main() may run many times in one (the tests), and a listener per run is a leak.
  if (pipesWatched) return;
  pipesWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(141);
      throw e;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipes();
  let status = 0;
  const done = (s: number) => { status = s; };
  let parser = yargs(argv)
    .scriptName('picotpu')
    .usage('$0 <command> [options]');
  for (const add of await commandsFor(argv)) parser = add(parser, done);
  parser = parser
    .demandCommand(1, 'give a command: picotpu run <elf>')
    .strict()
    .epilogue(exitStatusText())
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    });
  // yargs renders the whole help of every command it runs, in case showHelp() follows (it never
  // does here): tens of milliseconds of every run. Skip it; --help still renders.
  const internals = parser as unknown as { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } };
  internals.getInternalMethods().getUsageInstance().cacheHelpMessage = () => {};
  try {
    await parser.parseAsync();
  } catch (e) {
    discardAllOutputs();
    if (e instanceof StdoutClosed) return SIGNAL_STATUS.SIGPIPE;
    if (e instanceof OutputError) { say(e.message); return EXIT.USAGE; }
    if (e instanceof InputReadError) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof ElfError) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof ConfigError || e instanceof UsageError) { say(e.message); return EXIT.USAGE; }
    if (e instanceof Error && e.name === 'YError') { say(e.message); return EXIT.USAGE; }
    say(`internal error: ${(e as Error).stack ?? e}`);
    return EXIT.INTERNAL;
  }
  return status;
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  main(hideBin(process.argv)).then((code) => {
    process.exitCode = code;
  });
}
