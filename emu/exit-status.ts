// Exit statuses of `picotpu run`. 0..255 is the guest's EXIT value; the
// emulator's own outcomes sit at 160..166 (and 130/141/143 for signals), above every value a firmware EXIT of
// 0..127 produces and clear of the shell's 128+signal codes for common signals.
// One table: EXIT and the help text (exitStatusText) are derived from it, and
// docs/hardware.md §7 describes it (test/exit-status.test.ts holds them equal).

export const EXIT_STATUSES = [
  { name: 'TRAP', value: 160, brief: 'trap', doc: 'CPU trap: ebreak, ecall, illegal instruction, misaligned access or fetch.' },
  { name: 'BUS_ERROR', value: 161, brief: 'bus error', doc: 'Access to an unmapped address (data or instruction fetch).' },
  { name: 'CYCLE_LIMIT', value: 162, brief: 'cycle limit', doc: '--max-cycles reached before the guest wrote EXIT.' },
  { name: 'TPU_ERROR', value: 163, brief: 'TPU error (--strict)', doc: 'A TPU error with --strict (malformed command, port conflict), or a TPU deadlock.' },
  { name: 'BAD_PROGRAM', value: 164, brief: 'bad program or SRAM file', doc: 'The program file is not a loadable RV32 ELF, or a program or --sram file cannot be read or does not fit.' },
  {
    name: 'USAGE', value: 165, brief: 'bad command line, config, input or output file',
    doc: 'Bad command line or config file, an --input-file that cannot be opened, or an output file that cannot be created or written.',
  },
  { name: 'INTERNAL', value: 166, brief: 'internal error', doc: 'A defect in picotpu itself.' },
  // The shell's 128 + signal: the run stopped at a slice boundary, its output files finished and marked (cli/run-control.ts).
  { name: 'INTERRUPTED', value: 130, brief: 'interrupted (SIGINT)', doc: 'SIGINT: output files are finished and marked as interrupted.' },
  { name: 'STDOUT_CLOSED', value: 141, brief: 'standard output closed', doc: 'Standard output\'s reader went away (EPIPE): the run stops without a word.' },
  { name: 'TERMINATED', value: 143, brief: 'terminated (SIGTERM)', doc: 'SIGTERM: as SIGINT.' },
  // Not a `picotpu run` outcome: only `picotpu eval` exits with it.
  {
    name: 'MISMATCH', value: 167, brief: 'the TPU disagrees with the golden model (eval)',
    doc: '`picotpu eval`: the firmware on the emulated TPU produced tokens or logits other than the golden model\'s.',
  },
  // Only `picotpu explore --queue` and `picotpu worker` exit with these.
  {
    name: 'QUEUE_UNREACHABLE', value: 168, brief: 'the queue\'s Redis server cannot be reached (explore, worker)',
    doc: '`picotpu explore --queue`, `picotpu worker`: the Redis server of --queue cannot be reached or refuses the URL\'s credentials.',
  },
  {
    name: 'QUEUE_REFUSED', value: 169, brief: 'a queue worker refused a job made for other firmware (explore, worker)',
    doc: '`picotpu explore --queue`, `picotpu worker`: a worker\'s firmware fingerprint differs from the coordinator\'s, so it refused the job.',
  },
  {
    name: 'POINTS_FAILED', value: 170, brief: 'points of the grid failed on the queue (explore)',
    doc: '`picotpu explore --queue`: points failed on a worker, or a worker returned something that is not their record; the report has the others.',
  },
] as const;

export type ExitName = (typeof EXIT_STATUSES)[number]['name'];

export const EXIT = Object.fromEntries(EXIT_STATUSES.map((s) => [s.name, s.value])) as { readonly [K in ExitName]: number };

/** The statuses only other commands end with (eval, explore, worker). */
export const OTHER_COMMAND_STATUSES: readonly ExitName[] = ['MISMATCH', 'QUEUE_UNREACHABLE', 'QUEUE_REFUSED', 'POINTS_FAILED'];

/** The statuses `picotpu run` can end with besides the guest's own. */
const RUN_STATUSES = EXIT_STATUSES.filter((s) => !OTHER_COMMAND_STATUSES.includes(s.name));

/** The help epilogue of `picotpu run`: every status of the table, in order. */
export function exitStatusText(): string {
  return `Exit status: the guest's EXIT value (0-255); ${RUN_STATUSES.map((s) => `${s.value} ${s.brief}`).join(', ')}.`;
}
