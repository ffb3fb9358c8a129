// `picotpu debug <elf>`: the gdb-like debugger (emu/debug/debugger.ts) on
// node:readline. Commands come one per line from standard input, so a script
// piped in gives a transcript (each command is echoed after the prompt when
// standard input is not a terminal); docs/debugging.md is the user's guide.

import { createInterface } from 'node:readline';
import type { Debugger } from '../emu/debug/debugger.ts';
import { DEFAULT_MAX_CYCLES } from '../emu/machine.ts';
import { boardOptions, buildMachine, type BoardArgs } from './board-options.ts';
import { boardsOption, maxCyclesOption } from './options.ts';
import { attachedMachine, checkAttach } from './run-boards.ts';
import type { AddCommand } from './common.ts';

export interface DebugOptions extends BoardArgs {
  maxCycles: number;
  /** N boards on the link's ring (cli/run-boards.ts). */
  boards?: number;
  /** With --boards N, the one to debug. */
  attach?: string;
}

const PROMPT = '(picotpu) ';
/** Commands an empty line repeats at a terminal, as in gdb. */
const REPEATABLE = /^(s|si|step|stepi|n|ni|next|nexti|c|continue|x)\b/;

export const addDebug: AddCommand = (y, done) => y.command(
  'debug <elf>',
  'Debug a firmware ELF: breakpoints, stepping, registers, memory, TPU queues (gdb-like; commands on standard input, see docs/debugging.md)',
  (y) => boardOptions(y)
    .option('max-cycles', { type: 'string', default: DEFAULT_MAX_CYCLES, coerce: maxCyclesOption, describe: 'the program stops (cycle limit) at this clock (a positive integer)' })
    .option('boards', { type: 'string', coerce: boardsOption, describe: 'N boards on the link\'s ring (docs/hardware.md §5.12): debug board --attach K (0..N-1), the others run underneath' })
    .option('attach', { type: 'string', describe: 'with --boards N: the board to debug, K (0..N-1; default 0)' }),
  async (args) => {
    done(await debugCommand({ ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[] } as DebugOptions));
  },
);

/** `picotpu debug`: reads commands until `quit` or the end of standard input. Returns the exit status (0). */
export async function debugCommand(o: DebugOptions): Promise<number> {
  // Standard input carries the debugger's commands, not console input.
  checkAttach(o);
  const create = () => (o.boards !== undefined ? attachedMachine({ ...o, boards: o.boards }, o.maxCycles) : buildMachine(o, false));
  const first = create(); // bad ELF or options: the CLI's one-line error and exit status
  const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const write = (s: string | Uint8Array) => { process.stdout.write(s); };
  // The debugger loads when its command runs (cli/main.ts start-up stays small).
  const { Debugger } = await import('../emu/debug/debugger.ts');
  const dbg: Debugger = new Debugger(first, create, write, { maxCycles: o.maxCycles, program: o.elf });
  const rl = createInterface({
    input: process.stdin,
    output: tty ? process.stdout : undefined,
    terminal: tty,
    historySize: 200,
    completer: tty ? (line: string) => dbg.complete(line) : undefined,
  });
  rl.on('SIGINT', () => {
    if (dbg.busy) dbg.interrupt();
    else { write('^C\n'); rl.prompt(); }
  });
  dbg.banner();
  const prompt = () => { if (tty) { rl.setPrompt(PROMPT); rl.prompt(); } else write(PROMPT); };
  prompt();
  let last = '';
  let quit = false;
  for await (const raw of rl) {
    let line = raw.trim();
    if (!tty) write(`${raw}\n`);
    // An empty line repeats step/next/continue; after x it examines the next units.
    if (line === '' && tty) line = REPEATABLE.test(last) ? (/^x\b/.test(last) ? 'x' : last) : '';
    if (line !== '') last = line;
    if (await dbg.execute(line)) { quit = true; break; }
    prompt();
  }
  if (!quit) write('\n'); // end of input: finish the last prompt's line
  rl.close();
  return 0;
}
