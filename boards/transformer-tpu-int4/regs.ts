// The seed board's TPU (im-afan/transformer-tpu-int4, accel/tpu/rtl): its MMIO
// map, command words, VPU ops and perf counters, as read from cpu_subsys.sv,
// cmd_mxu.sv, cmd_vpu.sv, cmd_dma.sv, vpu.sv and tpu_top.sv. The one table:
// boards/transformer-tpu-int4/*.ts decode with the constants derived here, and
// firmware-c/include/seed/tpu_seed.h is generated from it (scripts/gen-regs.ts).

export const SEED_TPU_BASE = 0x8000_0000;
export const SEED_SPAD_BASE = 0x9000_0000;
export const SEED_SPAD_BYTES = 64 * 1024;
export const SEED_BANKS = 16;
export const SEED_BANK_BYTES = 4096;
export const SEED_QUEUE_DEPTH = 8;
export const SEED_SRAM_BYTES = 512 * 1024;

/** Unit numbers are the RTL's cmd_unit (wr_addr[5:4]); the command port is at unit × 0x10. */
export const SEED_MXU = 0, SEED_VPU = 1, SEED_DMA = 2;
export const SEED_UNIT_NAMES = ['MXU', 'VPU', 'DMA'] as const;

export interface SeedReg {
  readonly name: string;
  readonly offset: number;
  readonly access: 'R' | 'W';
  readonly doc: string;
}

/** Registers from SEED_TPU_BASE (the decoder looks at a[31:28] and a[11:0] only). */
export const SEED_REGS: readonly SeedReg[] = [
  { name: 'CMD_W0', offset: 0x0, access: 'W', doc: 'command word 0 of unit (offset >> 4): the shared staging register 0' },
  { name: 'CMD_W1', offset: 0x4, access: 'W', doc: 'command word 1: the shared staging register 1' },
  { name: 'CMD_W2', offset: 0x8, access: 'W', doc: 'command word 2: the shared staging register 2' },
  { name: 'CMD_W3', offset: 0xc, access: 'W', doc: 'command word 3: commits {w3, stage2, stage1, stage0} to the unit\'s queue; held while the queue is full' },
  { name: 'MXU_ISSUED', offset: 0x40, access: 'R', doc: 'MXU commands committed' },
  { name: 'MXU_RETIRED', offset: 0x44, access: 'R', doc: 'MXU commands retired (GEOM and unknown opcodes included)' },
  { name: 'MXU_LEVEL', offset: 0x48, access: 'R', doc: 'MXU queue entries, the running command included' },
  { name: 'VPU_ISSUED', offset: 0x50, access: 'R', doc: 'VPU commands committed' },
  { name: 'VPU_RETIRED', offset: 0x54, access: 'R', doc: 'VPU commands retired' },
  { name: 'VPU_LEVEL', offset: 0x58, access: 'R', doc: 'VPU queue entries' },
  { name: 'DMA_ISSUED', offset: 0x60, access: 'R', doc: 'DMA commands committed' },
  { name: 'DMA_RETIRED', offset: 0x64, access: 'R', doc: 'DMA commands retired' },
  { name: 'DMA_LEVEL', offset: 0x68, access: 'R', doc: 'DMA queue entries' },
  { name: 'DONE', offset: 0x70, access: 'W', doc: 'write: the run is over (done); read: idle bits {1, dma, vpu, mxu}, 0xF when all idle' },
];
export const SEED_STATUS_BASE = 0x40;
export const SEED_DONE_OFFSET = 0x70;

/** A command field: bits [lsb, lsb+width) of command word `word`. */
export interface SeedField {
  readonly name: string;
  readonly word: number;
  readonly lsb: number;
  readonly width: number;
  readonly doc: string;
}

export interface SeedCommand {
  readonly unit: number;
  readonly name: string;
  readonly opcode: number;
  readonly doc: string;
  readonly fields: readonly SeedField[];
}

const f = (name: string, word: number, lsb: number, width: number, doc: string): SeedField => ({ name, word, lsb, width, doc });

/** Every command: the opcode is w0[7:0]; any other opcode is popped in one clock and discarded. */
export const SEED_COMMANDS: readonly SeedCommand[] = [
  {
    unit: SEED_MXU, name: 'GEOM', opcode: 0x01, doc: 'latch strides and K for later MMs; retires in one clock, never busy',
    fields: [
      f('A_STRIDE', 0, 16, 16, 'bytes between A rows (0: K/2)'),
      f('B_STRIDE', 1, 0, 16, 'bytes between B rows (0: 4, or K/2 transposed)'),
      f('C_STRIDE', 1, 16, 16, 'bytes between C rows (0: 4)'),
      f('LEN', 2, 0, 16, 'K, the contraction length in int4 elements'),
    ],
  },
  {
    unit: SEED_MXU, name: 'MM', opcode: 0x02, doc: 'C[8][8] = clip4(requant(A[8][K] @ B) (+ C_old)), int4; K + 25 clocks (K + 33 accumulating)',
    fields: [
      f('ACC', 0, 8, 1, 'accumulate: C = clip4(requant(A@B) + C_old)'),
      f('TRANSPOSE', 0, 9, 1, 'B is given as Bt[8][K], read like A'),
      f('C_ADDR', 0, 16, 16, 'scratchpad address of C'),
      f('A_ADDR', 1, 0, 16, 'scratchpad address of A'),
      f('B_ADDR', 1, 16, 16, 'scratchpad address of B'),
      f('M0', 2, 0, 12, 'requant multiplier (unsigned)'),
      f('N', 2, 12, 4, 'requant shift: clip((acc*m0 + 2^(n-1)) >>> n)'),
    ],
  },
  {
    unit: SEED_VPU, name: 'OP', opcode: 0x01, doc: 'one 1-D vector op over VLEN int4 elements, 8 per word: 3 clocks a word (unary), 5 (binary), + 1 (+ 2 for a reduction)',
    fields: [
      f('OP', 0, 8, 5, 'the operation (SEED_VPU_OPS)'),
      f('DST', 0, 16, 16, 'scratchpad address of the result (an int32 word for DOT/ARGMAX)'),
      f('SRC0', 1, 0, 16, 'first operand'),
      f('SRC1', 1, 16, 16, 'second operand (DOT, ADD, DYT)'),
      f('VLEN', 2, 0, 10, 'elements (even; a half byte of the tail is written 0)'),
      f('M0', 2, 16, 12, 'requant multiplier'),
      f('N', 2, 28, 4, 'requant shift'),
    ],
  },
  {
    unit: SEED_DMA, name: 'MOVE', opcode: 0x01, doc: 'ROWS rows of LEN int4 elements: fill 1 clock a byte, spill 2 a byte + 3; 2 idle clocks between',
    fields: [
      f('SPILL', 0, 8, 1, 'direction: 0 fill (SRAM → scratchpad), 1 spill (scratchpad → SRAM)'),
      f('SPAD_ADDR', 0, 16, 16, 'scratchpad address of the first row'),
      f('SRAM_ADDR', 1, 0, 19, 'SRAM address of the first row'),
      f('LEN', 2, 0, 16, 'int4 elements per row (a row is (LEN+1)/2 bytes)'),
      f('ROWS', 2, 16, 16, 'rows'),
      f('SRAM_STRIDE', 3, 0, 16, 'SRAM bytes between rows (0: dense)'),
      f('SPAD_STRIDE', 3, 16, 16, 'scratchpad bytes between rows (0: dense)'),
    ],
  },
];

export interface SeedVpuOp {
  readonly name: string;
  readonly value: number;
  readonly binary: boolean;
  readonly reduction: boolean;
  readonly doc: string;
  /** The first seed commit whose vpu.sv has the op (ARGMAX came with eedda377). */
  readonly since?: string;
}

export const SEED_VPU_OPS: readonly SeedVpuOp[] = [
  { name: 'DOT', value: 0, binary: true, reduction: true, doc: 'int32 sum of src0·src1 into the word at DST' },
  { name: 'ADD', value: 1, binary: true, reduction: false, doc: 'clip(requant(src0 + src1), -8, 7)' },
  { name: 'RELU', value: 3, binary: false, reduction: false, doc: 'clip(requant(max(src0, 0)), -8, 7)' },
  { name: 'REQUANT', value: 10, binary: false, reduction: false, doc: 'clip(requant(src0), -8, 7)' },
  { name: 'DYT', value: 16, binary: true, reduction: false, doc: 'clip(requant(src0 + src1), -7, 7)' },
  { name: 'ARGMAX', value: 18, binary: false, reduction: true, doc: 'index of the first maximum of src0 into the word at DST', since: 'eedda37799e299fc51ac2e1ebc80cb294199cabd' },
];

/** The ten counters of perf_counters.sv in the RTL's order (tpu_top.sv PERF_*). */
export const SEED_COUNTER_NAMES = ['run', 'mxu', 'mload', 'vpu', 'dma', 'swait', 'vmm', 'idlec', 'qfull', 'ovlap'] as const;
export type SeedCounterName = (typeof SEED_COUNTER_NAMES)[number];
export const SEED_COUNTER_DOCS: Record<SeedCounterName, string> = {
  run: 'clocks of the run window (run pulse to the DONE store, both included)',
  mxu: 'clocks the MXU state is not IDLE (its DONE clock included)',
  mload: 'tied 0 (the retired weight-load phase)',
  vpu: 'clocks the VPU state is not IDLE',
  dma: 'clocks the DMA is in FILL or SPILL (its DONE clock excluded)',
  swait: 'tied 0 (the retired scalar unit\'s wait)',
  vmm: 'tied 0 (the retired vecmatmul)',
  idlec: 'clocks no unit is busy',
  qfull: 'p_cmd_we & p_cmd_full: always 0, because the RTL only raises p_cmd_we when the queue is not full',
  ovlap: 'clocks two or more units are busy',
};

// ---- Derived constants ----

export function seedCommand(unit: number, name: string): SeedCommand {
  const c = SEED_COMMANDS.find((x) => x.unit === unit && x.name === name);
  if (!c) throw new Error(`no seed command ${name} on unit ${unit}`);
  return c;
}

export function seedVpuOp(name: string): number {
  const o = SEED_VPU_OPS.find((x) => x.name === name);
  if (!o) throw new Error(`no seed VPU op ${name}`);
  return o.value;
}

/** Packs a command into its four words from named fields (tests, host tools). */
export function packSeedCommand(unit: number, name: string, values: Record<string, number>): [number, number, number, number] {
  const c = seedCommand(unit, name);
  const w: [number, number, number, number] = [c.opcode, 0, 0, 0];
  for (const [k, v] of Object.entries(values)) {
    const fd = c.fields.find((x) => x.name === k);
    if (!fd) throw new Error(`no field ${k} in ${name}`);
    const mask = fd.width >= 32 ? 0xffffffff : 2 ** fd.width - 1;
    w[fd.word] = (w[fd.word] | ((v & mask) << fd.lsb)) >>> 0;
  }
  return w;
}
