// Exit statuses of `picotpu run`. 0..255 is the guest's EXIT value; the
// emulator's own outcomes sit at 160..166, above every value a firmware EXIT of
// 0..127 produces and clear of the shell's 128+signal codes for common signals.
// One table: EXIT and the help text (exitStatusText) are derived from it, and
// docs/hardware.md §7 describes it (test/exit-status.test.ts holds them equal).

export const EXIT_STATUSES = [
  { name: 'TRAP', value: 160, brief: 'trap', doc: 'CPU trap: ebreak, ecall, illegal instruction, misaligned access or fetch.' },
  { name: 'BUS_ERROR', value: 161, brief: 'bus error', doc: 'Access to an unmapped address (data or instruction fetch).' },
  { name: 'CYCLE_LIMIT', value: 162, brief: 'cycle limit', doc: '--max-cycles reached before the guest wrote EXIT.' },
  { name: 'TPU_ERROR', value: 163, brief: 'TPU error (--strict)', doc: 'A TPU error with --strict (malformed command, port conflict), or a TPU deadlock.' },
  { name: 'BAD_PROGRAM', value: 164, brief: 'bad program or SRAM file', doc: 'The program file is not a loadable RV32 ELF, or a --sram file does not fit.' },
  { name: 'USAGE', value: 165, brief: 'bad command line or config', doc: 'Bad command line or config file.' },
  { name: 'INTERNAL', value: 166, brief: 'internal error', doc: 'A defect in picotpu itself.' },
  // Not a `picotpu run` outcome: only `picotpu eval` exits with it.
  {
    name: 'MISMATCH', value: 167, brief: 'the TPU disagrees with the golden model (eval)',
    doc: '`picotpu eval`: the firmware on the emulated TPU produced tokens or logits other than the golden model\'s.',
  },
] as const;

export type ExitName = (typeof EXIT_STATUSES)[number]['name'];

export const EXIT = Object.fromEntries(EXIT_STATUSES.map((s) => [s.name, s.value])) as { readonly [K in ExitName]: number };

/** The statuses `picotpu run` can end with besides the guest's own. */
const RUN_STATUSES = EXIT_STATUSES.filter((s) => s.name !== 'MISMATCH');

/** The help epilogue of `picotpu run`: every status of the table, in order. */
export function exitStatusText(): string {
  return `Exit status: the guest's EXIT value (0-255); ${RUN_STATUSES.map((s) => `${s.value} ${s.brief}`).join(', ')}.`;
}
