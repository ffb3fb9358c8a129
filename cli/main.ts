// `picotpu` command line: wires each command (one file each: run, gdb, debug,
// bench, sweep, explore, worker, eval, demo) into yargs and maps what a command throws to one
// line and an exit status. A command's module is imported only when it runs
// (or --help lists them all), so a start loads the code of one command. The guest's console goes to standard output
// unchanged; everything the emulator itself says goes to standard error, one
// line per event, and the exit status is the guest's EXIT value or one of
// emu/exit-status.ts.

import yargs, { type MiddlewareFunction } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { BoardError } from '../emu/board.ts';
import { ConfigError } from '../emu/config.ts';
import { ElfError } from '../emu/elf.ts';
import { EXIT, exitStatusText } from '../emu/exit-status.ts';
import { InputReadError } from '../emu/console-input.ts';
import { discardAllOutputs, OutputError } from '../emu/observe/output-file.ts';
import { UsageError } from './board-options.ts';
import { SIGNAL_STATUS } from './run-control.ts';
import { checkBooleanValues } from './options.ts';
import { guardStandardStreams, say, StdoutClosed, type AddCommand } from './common.ts';

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
 * A yargs middleware refusing a boolean option given a value it does not
 * understand. yargs passes the command's own parser as a second argument,
 * which its types leave out; its options name the command's booleans.
 */
function booleanValuesChecked(argv: string[]): MiddlewareFunction {
  const check = (_args: unknown, y: { getOptions(): { boolean: string[] } }) => checkBooleanValues(argv, y.getOptions().boolean);
  return check as unknown as MiddlewareFunction;
}

export async function main(argv: string[]): Promise<number> {
  guardStandardStreams();
  let status = 0;
  const done = (s: number) => { status = s; };
  let parser = yargs(argv)
    .scriptName('picotpu')
    .usage('$0 <command> [options]');
  for (const add of await commandsFor(argv)) parser = add(parser, done);
  parser = parser
    // Before any handler: the command's own boolean options are known here.
    .middleware(booleanValuesChecked(argv), true)
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
    if (e instanceof ConfigError || e instanceof UsageError || e instanceof BoardError) { say(e.message); return EXIT.USAGE; }
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
