// Exit statuses of `picotpu run`. 0..255 is the guest's EXIT value; the
// emulator's own outcomes sit at 160..166, above every value a firmware EXIT of
// 0..127 produces and clear of the shell's 128+signal codes for common signals.

export const EXIT = {
  /** CPU trap: ebreak, ecall, illegal instruction, misaligned access or fetch. */
  TRAP: 160,
  /** Access to an unmapped address (data or instruction fetch). */
  BUS_ERROR: 161,
  /** --max-cycles reached before the guest wrote EXIT. */
  CYCLE_LIMIT: 162,
  /** A TPU error with --strict (malformed command, port conflict). */
  TPU_ERROR: 163,
  /** The program file is not a loadable RV32 ELF, or a --sram file does not fit. */
  BAD_PROGRAM: 164,
  /** Bad command line or config file. */
  USAGE: 165,
  /** A defect in picotpu itself. */
  INTERNAL: 166,
  /** `picotpu eval`: the firmware on the emulated TPU produced tokens or logits other than the golden model's. */
  MISMATCH: 167,
} as const;
