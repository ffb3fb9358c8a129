// `picotpu debug <elf>`: the gdb-like debugger (emu/debug/debugger.ts), its
// commands read from standard input (docs/debugging.md).

import type { DebugOptions } from '../emu/debug/debugger.ts';
import { DEFAULT_MAX_CYCLES } from '../emu/machine.ts';
import { boardOptions } from './board-options.ts';
import { maxCyclesOption } from './options.ts';
import type { AddCommand } from './common.ts';

export const addDebug: AddCommand = (y, done) => y.command(
  'debug <elf>',
  'Debug a firmware ELF: breakpoints, stepping, registers, memory, TPU queues (gdb-like; commands on standard input, see docs/debugging.md)',
  (y) => boardOptions(y)
    .option('max-cycles', { type: 'string', default: DEFAULT_MAX_CYCLES, coerce: maxCyclesOption, describe: 'the program stops (cycle limit) at this clock (a positive integer)' }),
  async (args) => {
    // The debugger loads when its command runs (cli/main.ts start-up stays small).
    const { debugCommand } = await import('../emu/debug/debugger.ts');
    done(await debugCommand({ ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[] } as DebugOptions));
  },
);
