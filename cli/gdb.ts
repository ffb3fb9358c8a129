// `picotpu gdb <elf>`: serves a firmware ELF to GDB over the remote serial
// protocol (emu/debug/gdb-server.ts), one connection on 127.0.0.1.

import { SIGNAL_STATUS } from './run-control.ts';
import { boardOptions, buildMachine, UsageError } from './board-options.ts';
import { boardsOption, maxCyclesOption } from './options.ts';
import { attachedMachine, checkAttach } from './run-boards.ts';
import { DEFAULT_BOARDS_MAX_CYCLES } from '../boards/registry.ts';
import { EXIT } from '../emu/exit-status.ts';
import { say, StdoutClosed, writeAllSync, type AddCommand } from './common.ts';

export const addGdb: AddCommand = (y, done) => y.command(
  'gdb <elf>',
  'Serve a firmware ELF to GDB (remote serial protocol on 127.0.0.1, one connection): target remote 127.0.0.1:PORT',
  (y) => boardOptions(y)
    .option('port', { type: 'number', default: 1234, describe: 'TCP port on 127.0.0.1 (0: any free port, printed)' })
    .option('max-cycles', { type: 'string', coerce: maxCyclesOption, describe: 'stop (SIGXCPU) at this clock (a positive integer); default: never' })
    .option('boards', { type: 'string', coerce: boardsOption, describe: 'N boards on the link\'s ring (docs/hardware.md §5.12): serve board --attach K (0..N-1), the others run underneath' })
    .option('attach', { type: 'string', describe: 'with --boards N: the board to serve, K (0..N-1; default 0)' }),
  async (args) => {
    // The server loads when its command runs (cli/main.ts start-up stays small).
    const { GdbServerError, serveGdb } = await import('../emu/debug/gdb-server.ts');
    const o = { ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[], attach: args.attach as string | undefined };
    checkAttach({ attach: o.attach, boards: args.boards as number | undefined });
    const machine = args.boards !== undefined
      ? attachedMachine({ ...o, boards: args.boards as number }, (args.maxCycles as number | undefined) ?? DEFAULT_BOARDS_MAX_CYCLES)
      : buildMachine(o);
    // The guest's console reader gone: end the session quietly, as the other commands do (141); a full disk: one line, 165.
    machine.bus.console.setSink((bytes) => {
      try { writeAllSync(1, bytes); } catch (e) {
        if (e instanceof StdoutClosed) process.exit(SIGNAL_STATUS.SIGPIPE);
        say((e as Error).message);
        process.exit(EXIT.USAGE);
      }
    });
    done(await serveGdb(machine, { port: args.port, maxCycles: args.maxCycles, log: say }).catch((e: unknown) => {
      throw e instanceof GdbServerError ? new UsageError(e.message) : e;
    }));
  },
);
