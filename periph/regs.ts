// The TPU's register map and command encodings: the one table where offsets,
// fields, opcodes, flags and error codes live. The TypeScript constants below
// are derived from it, firmware-c/include/tpu_regs.h is generated from it
// (scripts/gen-regs.ts), and docs/hardware.md describes it; a test fails when
// the generated header is stale.

export interface Field {
  readonly name: string;
  readonly lsb: number;
  readonly width: number;
  readonly doc: string;
}

export interface Register {
  readonly name: string;
  readonly offset: number;
  readonly access: 'R' | 'W' | 'RW' | 'R/W1C';
  readonly doc: string;
  readonly fields?: readonly Field[];
}

/** A command's field packed into one staging register. */
export interface ArgField extends Field {
  /** Staging register index: 0..4 (ARG5 is the wait token of every command). */
  readonly arg: number;
}

export interface Opcode {
  readonly name: string;
  readonly value: number;
  readonly doc: string;
}

export interface UnitSpec {
  readonly name: 'DMA' | 'MXU' | 'VPU' | 'SEQ' | 'LINK';
  /** Unit number in wait tokens and in ERROR. */
  readonly id: number;
  readonly base: number;
  readonly opcodes: readonly Opcode[];
  readonly flags: readonly { name: string; bit: number; doc: string }[];
  readonly args: readonly ArgField[];
}

export const TPU_BASE = 0x2000_0000;
export const TPU_ID_VALUE = 0x5450_5531; // "TPU1"

export const GLOBAL_REGS: readonly Register[] = [
  { name: 'ID', offset: 0x000, access: 'R', doc: 'reads 0x54505531 ("TPU1")' },
  {
    name: 'CONFIG', offset: 0x004, access: 'R', doc: 'the platform configuration, one byte each',
    fields: [
      { name: 'ARRAY_DIM', lsb: 0, width: 8, doc: 'MXU array dimension D (8 as built; 16 with mxuDim = 16)' },
      { name: 'QUEUE_DEPTH', lsb: 8, width: 8, doc: 'command FIFO depth of each unit' },
      { name: 'SPAD_KIB', lsb: 16, width: 8, doc: 'scratchpad size in KiB' },
      { name: 'REGION_KIB', lsb: 24, width: 8, doc: 'scratchpad region size in KiB' },
    ],
  },
  { name: 'PERF_CTRL', offset: 0x008, access: 'W', doc: '1: zero the counters and start counting; 0: stop (freeze)' },
  {
    name: 'ERROR', offset: 0x00c, access: 'R/W1C', doc: 'first error since cleared (0: none); any non-zero write clears it and every STATUS error bit',
    fields: [
      { name: 'CODE', lsb: 0, width: 8, doc: 'error code (TPU_ERR_*)' },
      { name: 'UNIT', lsb: 8, width: 4, doc: 'unit number (1 DMA, 2 MXU, 3 VPU, 4 SEQ, 5 LINK)' },
      { name: 'SERIAL', lsb: 12, width: 20, doc: 'the command\'s serial: the unit\'s ISSUED count before it was pushed (BAD_ENTRY: the entry\'s index in its list)' },
    ],
  },
  { name: 'CYCLES_LO', offset: 0x010, access: 'R', doc: 'clocks counted, low word' },
  { name: 'CYCLES_HI', offset: 0x014, access: 'R', doc: 'clocks counted, high word' },
  { name: 'MXU_BUSY', offset: 0x018, access: 'R', doc: 'clocks the MXU executed a command' },
  { name: 'VPU_BUSY', offset: 0x01c, access: 'R', doc: 'clocks the VPU executed a command' },
  { name: 'DMA_BUSY', offset: 0x020, access: 'R', doc: 'clocks the DMA executed a command' },
  { name: 'IDLE', offset: 0x024, access: 'R', doc: 'clocks with no unit busy (issue overhead)' },
  { name: 'STALL', offset: 0x028, access: 'R', doc: 'clocks the CPU waited on a PUSH to a full queue' },
  { name: 'OVERLAP', offset: 0x02c, access: 'R', doc: 'clocks with two or more units busy' },
  { name: 'DEP_WAIT', offset: 0x030, access: 'R', doc: 'clocks in which at least one unit waited on a wait token' },
];

export const UNIT_REGS: readonly Register[] = [
  { name: 'ARG0', offset: 0x00, access: 'RW', doc: 'staging register 0 (keeps its value)' },
  { name: 'ARG1', offset: 0x04, access: 'RW', doc: 'staging register 1' },
  { name: 'ARG2', offset: 0x08, access: 'RW', doc: 'staging register 2' },
  { name: 'ARG3', offset: 0x0c, access: 'RW', doc: 'staging register 3' },
  { name: 'ARG4', offset: 0x10, access: 'RW', doc: 'staging register 4' },
  {
    name: 'ARG5', offset: 0x14, access: 'RW', doc: 'wait token: the command starts only once that unit\'s DONE has reached the ticket',
    fields: [
      { name: 'TICKET', lsb: 0, width: 30, doc: 'DONE count to wait for' },
      { name: 'UNIT', lsb: 30, width: 2, doc: 'unit to wait on (0: no token)' },
    ],
  },
  {
    name: 'PUSH', offset: 0x18, access: 'W', doc: 'enqueue {ARG0..ARG5, this value}; stalls the bus while the FIFO is full',
    fields: [
      { name: 'OPCODE', lsb: 0, width: 8, doc: 'the unit\'s opcode' },
      { name: 'FLAGS', lsb: 8, width: 8, doc: 'the opcode\'s flags' },
    ],
  },
  {
    name: 'STATUS', offset: 0x1c, access: 'R', doc: 'unit state',
    fields: [
      { name: 'BUSY', lsb: 0, width: 1, doc: 'a command is executing' },
      { name: 'QUEUED', lsb: 8, width: 8, doc: 'commands waiting in the FIFO' },
      { name: 'ERROR', lsb: 16, width: 1, doc: 'this unit dropped a command since ERROR was cleared' },
    ],
  },
  { name: 'ISSUED', offset: 0x20, access: 'R', doc: 'commands pushed so far' },
  { name: 'DONE', offset: 0x24, access: 'R', doc: 'commands finished (or dropped) so far' },
];

const f = (name: string, arg: number, lsb: number, width: number, doc: string): ArgField => ({ name, arg, lsb, width, doc });

export const UNITS: readonly UnitSpec[] = [
  {
    name: 'DMA', id: 1, base: 0x100,
    opcodes: [
      { name: 'LOAD', value: 1, doc: 'SRAM → scratchpad, 1 clock per byte' },
      { name: 'STORE', value: 2, doc: 'scratchpad → SRAM, 2 clocks per byte' },
    ],
    flags: [],
    args: [
      f('SRAM_ADDR', 0, 0, 32, 'SRAM byte offset (0..0x7FFFF, not the CPU address) of the first row'),
      f('SPAD_ADDR', 1, 0, 16, 'scratchpad byte address of the first row'),
      f('ROWS', 1, 16, 16, 'number of rows (≥ 1)'),
      f('ROW_BYTES', 2, 0, 16, 'bytes per row (≥ 1)'),
      f('SPAD_STRIDE', 2, 16, 16, 'scratchpad bytes from one row to the next'),
      f('SRAM_STRIDE', 3, 0, 32, 'SRAM bytes from one row to the next'),
    ],
  },
  {
    name: 'MXU', id: 2, base: 0x200,
    opcodes: [
      { name: 'MATMUL', value: 1, doc: 'C[8,8] = (ACCUMULATE ? Cin : 0) + A[8,K]·B[K,8]' },
    ],
    flags: [
      { name: 'TRANSPOSE_B', bit: 0, doc: 'B is given as Bt[8,K], read like A: C = A·Btᵀ' },
      { name: 'ACCUMULATE', bit: 1, doc: 'add the int32 tile Cin (preloaded in 8 clocks)' },
      { name: 'OUT_INT32', bit: 2, doc: 'write C as int32 rows of 32 bytes (else int4 rows of 4 bytes, requantized by SHIFT)' },
    ],
    args: [
      f('A_ADDR', 0, 0, 16, 'A[8,K] int4, 8 rows'),
      f('B_ADDR', 0, 16, 16, 'B[K,8] int4 (K rows of 4 bytes), or Bt[8,K] with TRANSPOSE_B'),
      f('C_ADDR', 1, 0, 16, 'C[8,8] output'),
      f('K', 1, 16, 16, 'inner dimension, a multiple of 8 (≥ 8)'),
      f('A_STRIDE', 2, 0, 16, 'bytes between rows of A'),
      f('B_STRIDE', 2, 16, 16, 'bytes between rows of B (or Bt)'),
      f('C_STRIDE', 3, 0, 16, 'bytes between rows of C'),
      f('SHIFT', 3, 16, 5, 'requantization shift for int4 output'),
      f('CIN_ADDR', 4, 0, 16, 'Cin[8,8] int32, with ACCUMULATE'),
      f('CIN_STRIDE', 4, 16, 16, 'bytes between rows of Cin'),
    ],
  },
  {
    name: 'VPU', id: 3, base: 0x300,
    opcodes: [
      { name: 'ADD', value: 1, doc: 'C = sat4(A + B), int4' },
      { name: 'RELU', value: 2, doc: 'C = max(A, 0), int4' },
      { name: 'HARDTANH', value: 3, doc: 'C = clamp(A, −PARAM, PARAM), int4, PARAM 0..8' },
      { name: 'CAUSAL_MASK', value: 4, doc: 'C = A, but −8 where column COL_OFF+j > row ROW_OFF+i, int4' },
      { name: 'REQUANT', value: 5, doc: 'C = sat4(rshift(A, PARAM)), A int32 → C int4' },
      { name: 'ADD32', value: 6, doc: 'C = A + B, int32 (wrapping)' },
      { name: 'COPY', value: 7, doc: 'C = A, int4' },
    ],
    flags: [],
    args: [
      f('A_ADDR', 0, 0, 16, 'first operand'),
      f('B_ADDR', 0, 16, 16, 'second operand (ADD, ADD32)'),
      f('C_ADDR', 1, 0, 16, 'result'),
      f('ROWS', 1, 16, 16, 'rows (≥ 1)'),
      f('A_STRIDE', 2, 0, 16, 'bytes between rows of A'),
      f('B_STRIDE', 2, 16, 16, 'bytes between rows of B'),
      f('C_STRIDE', 3, 0, 16, 'bytes between rows of C'),
      f('COLS', 3, 16, 16, 'elements per row (≥ 1; even for int4 operands)'),
      f('PARAM', 4, 0, 32, 'HARDTANH bound, REQUANT shift, or CAUSAL_MASK offsets'),
      f('ROW_OFF', 4, 0, 16, 'CAUSAL_MASK: global row of the tile\'s first row'),
      f('COL_OFF', 4, 16, 16, 'CAUSAL_MASK: global column of the tile\'s first column'),
    ],
  },
];

/**
 * The command sequencer (docs/hardware.md §5.11), present only with the
 * `sequencer` platform option: a fourth unit block with the same registers,
 * whose one command feeds a list of ordinary commands from the scratchpad
 * into the DMA, MXU and VPU queues.
 */
export const SEQ_UNIT: UnitSpec = {
  name: 'SEQ', id: 4, base: 0x400,
  opcodes: [
    { name: 'RUN', value: 1, doc: 'push the COUNT entries of the list at LIST_ADDR into their units\' queues, one per clock' },
  ],
  flags: [],
  args: [
    f('LIST_ADDR', 0, 0, 16, 'byte address of entry 0, a multiple of 32: in the scratchpad, or with seqListKiB > 0 in the list memory'),
    f('COUNT', 1, 0, 16, 'number of entries (≥ 1)'),
  ],
};

/**
 * The list memory's registers in the SEQ block, present only with
 * seqListKiB > 0 (docs/hardware.md §5.11): the CPU writes lists word by word,
 * or records the commands it pushes.
 */
export const SEQ_LIST_REGS: readonly Register[] = [
  { name: 'LIST_PTR', offset: 0x40, access: 'RW', doc: 'list-memory byte address LIST_DATA writes next and RECORD captures to (a multiple of 4; of 32 while recording)' },
  { name: 'LIST_DATA', offset: 0x44, access: 'W', doc: 'writes the word at LIST_PTR, then LIST_PTR += 4' },
  {
    name: 'RECORD', offset: 0x48, access: 'RW', doc: 'capture: while on, every CPU PUSH to DMA, MXU or VPU is also written as an entry at LIST_PTR (LIST_PTR += 32), its token relative to the ISSUED counts latched when RECORD was switched on',
    fields: [{ name: 'ON', lsb: 0, width: 1, doc: '1: capture on (writing 1 latches the bases); 0: off' }],
  },
];

/**
 * The board-to-board link (docs/hardware.md §5.12), present only with the
 * `link` platform option (with `--boards N`): a fifth unit block with the
 * same registers, whose SEND copies a 2-D block of the local scratchpad into
 * the next board's mailbox (the top linkMailboxKiB of its scratchpad). LINK
 * cannot be the target of a wait token (ARG5.UNIT has 2 bits); its own
 * commands take one.
 */
export const LINK_UNIT: UnitSpec = {
  name: 'LINK', id: 5, base: 0x500,
  opcodes: [
    { name: 'SEND', value: 1, doc: 'send ROWS × ROW_BYTES scratchpad bytes to board DST_BOARD\'s mailbox: linkSetup + bytes × linkClocksPerByte clocks; lands whole linkLatency clocks after the last' },
  ],
  flags: [],
  args: [
    f('SPAD_ADDR', 0, 0, 16, 'scratchpad byte address of the first row to send'),
    f('ROWS', 0, 16, 16, 'number of rows (≥ 1)'),
    f('ROW_BYTES', 1, 0, 16, 'bytes per row (≥ 1)'),
    f('SPAD_STRIDE', 1, 16, 16, 'scratchpad bytes from one row to the next'),
    f('DST_ADDR', 2, 0, 16, 'mailbox byte offset of the first row at the receiver (scratchpad address TPU_LINK_MAILBOX_BASE + offset)'),
    f('DST_STRIDE', 2, 16, 16, 'mailbox bytes from one row to the next at the receiver'),
    f('DST_BOARD', 3, 0, 8, 'receiving board: the next on the ring, (BOARD.INDEX + 1) mod BOARD.COUNT'),
  ],
};

/** The link's registers in the LINK block, present only with link = 1 (docs/hardware.md §5.12). */
export const LINK_REGS: readonly Register[] = [
  {
    name: 'BOARD', offset: 0x40, access: 'R', doc: 'where this board sits on the ring',
    fields: [
      { name: 'INDEX', lsb: 0, width: 8, doc: 'this board\'s number, 0..COUNT−1' },
      { name: 'COUNT', lsb: 8, width: 8, doc: 'boards in the ring' },
    ],
  },
  { name: 'RX_FULL', offset: 0x44, access: 'R/W1C', doc: 'bit s: mailbox slot s (mailbox/32 bytes each) holds a message not yet released; a landing sets the bit of every slot it touches; write 1s to release slots' },
  { name: 'RX_COUNT', offset: 0x48, access: 'R', doc: 'messages landed in this board\'s mailbox so far' },
];

/** Mailbox slots: RX_FULL has one bit per slot. */
export const LINK_SLOTS = 32;

/** Bytes of one list entry: one 256-bit scratchpad row, read in one clock. */
export const SEQ_ENTRY_BYTES = 32;
/** CMD.OPCODE of an entry for the sequencer itself (CMD.UNIT 0): hold the list until TOKEN is met (a CPU poll's place in a list). */
export const SEQ_ENTRY_WAIT = 1;

/** A list entry's words (offsets within the entry): one ordinary unit command. */
export const SEQ_ENTRY_WORDS: readonly Register[] = [
  { name: 'ARG0', offset: 0x00, access: 'R', doc: 'the command\'s ARG0' },
  { name: 'ARG1', offset: 0x04, access: 'R', doc: 'ARG1' },
  { name: 'ARG2', offset: 0x08, access: 'R', doc: 'ARG2' },
  { name: 'ARG3', offset: 0x0c, access: 'R', doc: 'ARG3' },
  { name: 'ARG4', offset: 0x10, access: 'R', doc: 'ARG4' },
  {
    name: 'TOKEN', offset: 0x14, access: 'R', doc: 'the command\'s wait token (ARG5); with CMD.REL_TOKEN its ticket is a signed offset from the token unit\'s ISSUED when the RUN started',
    fields: [
      { name: 'TICKET', lsb: 0, width: 30, doc: 'DONE count to wait for (REL_TOKEN: signed offset)' },
      { name: 'UNIT', lsb: 30, width: 2, doc: 'unit to wait on (0: no token)' },
    ],
  },
  {
    name: 'CMD', offset: 0x18, access: 'R', doc: 'what PUSH would carry, and where to',
    fields: [
      { name: 'OPCODE', lsb: 0, width: 8, doc: 'the unit\'s opcode' },
      { name: 'FLAGS', lsb: 8, width: 8, doc: 'the opcode\'s flags' },
      { name: 'UNIT', lsb: 16, width: 2, doc: 'target unit: 1 DMA, 2 MXU, 3 VPU; 0: the sequencer itself, OPCODE 1 (WAIT, FLAGS 0) holds the list until TOKEN is met, anything else is a bad entry' },
      { name: 'REL_TOKEN', lsb: 18, width: 1, doc: 'TOKEN.TICKET is relative to the list (see TOKEN)' },
      { name: 'RESERVED', lsb: 19, width: 13, doc: 'must be 0 (else a bad entry)' },
    ],
  },
  { name: 'RESERVED', offset: 0x1c, access: 'R', doc: 'must be 0 (else a bad entry)' },
];

export const ERROR_CODES = [
  { name: 'BAD_OPCODE', value: 1, doc: 'unknown opcode or flag' },
  { name: 'RANGE', value: 2, doc: 'an operand extends past the end of the scratchpad or SRAM (a link SEND: past the receiver\'s mailbox)' },
  { name: 'MISALIGNED', value: 3, doc: 'an MXU operand, an int32 operand or a stride is not 4-byte aligned' },
  { name: 'ZERO_SIZE', value: 4, doc: 'rows, row bytes, columns or K is zero' },
  { name: 'BAD_K', value: 5, doc: 'K is not a multiple of 8' },
  { name: 'ODD_COLS', value: 6, doc: 'an int4 VPU operand with an odd number of columns' },
  { name: 'PARAM', value: 7, doc: 'a parameter out of range (HARDTANH bound > 8, REQUANT shift > 31)' },
  { name: 'SAME_REGION', value: 8, doc: 'two operands of one command read the same scratchpad region' },
  { name: 'PORT_CONFLICT', value: 9, doc: 'the command needs a region port another running command holds' },
  { name: 'BAD_ENTRY', value: 10, doc: 'a sequencer list entry names no unit (and is no WAIT) or sets reserved bits; the list stops there (ERROR.SERIAL: the entry\'s index)' },
  { name: 'BAD_DEST', value: 11, doc: 'a link SEND names a board that does not exist or is not the next on the ring; the command is dropped' },
  { name: 'OVERRUN', value: 12, doc: 'on the receiving board: a message landed on a mailbox slot whose RX_FULL bit was still set (it lands anyway; ERROR.SERIAL: the sender\'s SEND serial)' },
] as const;

export type ErrorName = (typeof ERROR_CODES)[number]['name'];
export const ERR = Object.fromEntries(ERROR_CODES.map((e) => [e.name, e.value])) as Record<ErrorName, number>;

// ---- Derived constants for the TypeScript side ----

function offsets(regs: readonly Register[]): Record<string, number> {
  return Object.fromEntries(regs.map((r) => [r.name, r.offset]));
}
export const GLOBAL = offsets(GLOBAL_REGS);
export const UNIT_REG = offsets(UNIT_REGS);
export const SEQ_LIST_REG = offsets(SEQ_LIST_REGS);
export const LINK_REG = offsets(LINK_REGS);
export const UNIT_BY_NAME = Object.fromEntries([...UNITS, SEQ_UNIT, LINK_UNIT].map((u) => [u.name, u])) as Record<UnitSpec['name'], UnitSpec>;

export function opcode(unit: UnitSpec['name'], name: string): number {
  const op = UNIT_BY_NAME[unit].opcodes.find((o) => o.name === name);
  if (!op) throw new Error(`no ${unit} opcode ${name}`);
  return op.value;
}

export function flagBit(unit: UnitSpec['name'], name: string): number {
  const fl = UNIT_BY_NAME[unit].flags.find((x) => x.name === name);
  if (!fl) throw new Error(`no ${unit} flag ${name}`);
  return 1 << fl.bit;
}

/** Reads a field out of staging registers ARG0..ARG4. */
export function argField(unit: UnitSpec['name'], name: string): { arg: number; lsb: number; mask: number } {
  const fd = UNIT_BY_NAME[unit].args.find((x) => x.name === name);
  if (!fd) throw new Error(`no ${unit} field ${name}`);
  return { arg: fd.arg, lsb: fd.lsb, mask: fd.width === 32 ? 0xffffffff : (1 << fd.width) - 1 };
}

/** Packs named field values into ARG0..ARG4 (used by tests and the host-side tools). */
export function packArgs(unit: UnitSpec['name'], values: Record<string, number>): number[] {
  const args = [0, 0, 0, 0, 0];
  for (const [name, v] of Object.entries(values)) {
    const { arg, lsb, mask } = argField(unit, name);
    args[arg] = (args[arg] | ((v & mask) << lsb)) >>> 0;
  }
  return args;
}

export function fieldOf(regs: readonly Register[], reg: string, field: string): Field {
  const fd = regs.find((r) => r.name === reg)?.fields?.find((x) => x.name === field);
  if (!fd) throw new Error(`no field ${reg}.${field}`);
  return fd;
}

/** Where a field sits in its register, ready for hot paths: shift by lsb, then mask. */
export interface FieldPos {
  readonly lsb: number;
  readonly mask: number;
}

function fieldPos(regs: readonly Register[], reg: string, field: string): FieldPos {
  const { lsb, width } = fieldOf(regs, reg, field);
  return { lsb, mask: width === 32 ? 0xffffffff : (1 << width) - 1 };
}

/** Places value in the field (masked to its width). */
export function packField(p: FieldPos, value: number): number {
  return ((value & p.mask) << p.lsb) >>> 0;
}

/** Reads the field out of a register word. */
export function unpackField(p: FieldPos, word: number): number {
  return (word >>> p.lsb) & p.mask;
}

// Every field the TPU and the tools pack or decode, read once from the tables above.
export const CONFIG_FIELD = {
  ARRAY_DIM: fieldPos(GLOBAL_REGS, 'CONFIG', 'ARRAY_DIM'),
  QUEUE_DEPTH: fieldPos(GLOBAL_REGS, 'CONFIG', 'QUEUE_DEPTH'),
  SPAD_KIB: fieldPos(GLOBAL_REGS, 'CONFIG', 'SPAD_KIB'),
  REGION_KIB: fieldPos(GLOBAL_REGS, 'CONFIG', 'REGION_KIB'),
} as const;
export const ERROR_FIELD = {
  CODE: fieldPos(GLOBAL_REGS, 'ERROR', 'CODE'),
  UNIT: fieldPos(GLOBAL_REGS, 'ERROR', 'UNIT'),
  SERIAL: fieldPos(GLOBAL_REGS, 'ERROR', 'SERIAL'),
} as const;
export const TOKEN_FIELD = {
  TICKET: fieldPos(UNIT_REGS, 'ARG5', 'TICKET'),
  UNIT: fieldPos(UNIT_REGS, 'ARG5', 'UNIT'),
} as const;
export const PUSH_FIELD = {
  OPCODE: fieldPos(UNIT_REGS, 'PUSH', 'OPCODE'),
  FLAGS: fieldPos(UNIT_REGS, 'PUSH', 'FLAGS'),
} as const;
export const SEQ_ENTRY_FIELD = {
  TOKEN_TICKET: fieldPos(SEQ_ENTRY_WORDS, 'TOKEN', 'TICKET'),
  TOKEN_UNIT: fieldPos(SEQ_ENTRY_WORDS, 'TOKEN', 'UNIT'),
  OPCODE: fieldPos(SEQ_ENTRY_WORDS, 'CMD', 'OPCODE'),
  FLAGS: fieldPos(SEQ_ENTRY_WORDS, 'CMD', 'FLAGS'),
  UNIT: fieldPos(SEQ_ENTRY_WORDS, 'CMD', 'UNIT'),
  REL_TOKEN: fieldPos(SEQ_ENTRY_WORDS, 'CMD', 'REL_TOKEN'),
  RESERVED: fieldPos(SEQ_ENTRY_WORDS, 'CMD', 'RESERVED'),
} as const;
export const LINK_BOARD_FIELD = {
  INDEX: fieldPos(LINK_REGS, 'BOARD', 'INDEX'),
  COUNT: fieldPos(LINK_REGS, 'BOARD', 'COUNT'),
} as const;
export const STATUS_FIELD = {
  BUSY: fieldPos(UNIT_REGS, 'STATUS', 'BUSY'),
  QUEUED: fieldPos(UNIT_REGS, 'STATUS', 'QUEUED'),
  ERROR: fieldPos(UNIT_REGS, 'STATUS', 'ERROR'),
} as const;

/** A unit's STATUS word from its state. */
export function statusWord(busy: boolean, queued: number, error: boolean): number {
  return (packField(STATUS_FIELD.BUSY, busy ? 1 : 0) | packField(STATUS_FIELD.QUEUED, queued)
    | packField(STATUS_FIELD.ERROR, error ? 1 : 0)) >>> 0;
}
