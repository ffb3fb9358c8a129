// The instruction set as one table (after rv32emu): every instruction PicoRV32
// can execute, with its encoding, operand format and timing class. The decoder,
// the disassembler and the clock table are all derived from it; the semantics of
// each entry live in cpu.ts, one short case per name.

/** Operand format, as the RISC-V spec names them (plus the two special ones). */
export type Format = 'R' | 'I' | 'S' | 'B' | 'U' | 'J' | 'SHIFTI' | 'CSR' | 'NONE';

/**
 * Timing classes: instructions in one class cost the same clocks on PicoRV32
 * (see timing.ts). `reads2` classes read two registers, which costs one more
 * clock when the register file has a single read port.
 */
export type TimingClass =
  | 'alu' | 'alu2' | 'shifti' | 'shift' | 'branch' | 'jal' | 'jalr'
  | 'load' | 'store' | 'counter' | 'fence' | 'trap' | 'mul' | 'mulh' | 'div';

/** Which optional unit of PicoRV32 an instruction needs. */
export type Extension = 'base' | 'mul' | 'div';

export interface InsnDef {
  readonly name: string;
  readonly mask: number;
  readonly match: number;
  readonly format: Format;
  readonly timing: TimingClass;
  readonly ext: Extension;
}

const OPC = 0x7f;
const F3 = 0x7000;
const F7 = 0xfe000000 | 0;
const R_MASK = OPC | F3 | F7;
const I_MASK = OPC | F3;

function r(name: string, f7: number, f3: number, timing: TimingClass, ext: Extension = 'base'): InsnDef {
  return { name, mask: R_MASK, match: (f7 << 25) | (f3 << 12) | 0x33, format: 'R', timing, ext };
}
function i(name: string, opcode: number, f3: number, format: Format, timing: TimingClass): InsnDef {
  return { name, mask: I_MASK, match: (f3 << 12) | opcode, format, timing, ext: 'base' };
}
function shifti(name: string, f7: number, f3: number): InsnDef {
  return { name, mask: R_MASK, match: (f7 << 25) | (f3 << 12) | 0x13, format: 'SHIFTI', timing: 'shifti', ext: 'base' };
}
/** `csrrs rd, csr, x0`: the only CSR form PicoRV32 decodes (its counters). */
function counter(name: string, csr: number): InsnDef {
  return { name, mask: 0xfffff07f | 0, match: (csr << 20) | (2 << 12) | 0x73, format: 'CSR', timing: 'counter', ext: 'base' };
}

export const INSNS: readonly InsnDef[] = [
  { name: 'lui', mask: OPC, match: 0x37, format: 'U', timing: 'alu', ext: 'base' },
  { name: 'auipc', mask: OPC, match: 0x17, format: 'U', timing: 'alu', ext: 'base' },
  { name: 'jal', mask: OPC, match: 0x6f, format: 'J', timing: 'jal', ext: 'base' },
  i('jalr', 0x67, 0, 'I', 'jalr'),
  i('beq', 0x63, 0, 'B', 'branch'),
  i('bne', 0x63, 1, 'B', 'branch'),
  i('blt', 0x63, 4, 'B', 'branch'),
  i('bge', 0x63, 5, 'B', 'branch'),
  i('bltu', 0x63, 6, 'B', 'branch'),
  i('bgeu', 0x63, 7, 'B', 'branch'),
  i('lb', 0x03, 0, 'I', 'load'),
  i('lh', 0x03, 1, 'I', 'load'),
  i('lw', 0x03, 2, 'I', 'load'),
  i('lbu', 0x03, 4, 'I', 'load'),
  i('lhu', 0x03, 5, 'I', 'load'),
  i('sb', 0x23, 0, 'S', 'store'),
  i('sh', 0x23, 1, 'S', 'store'),
  i('sw', 0x23, 2, 'S', 'store'),
  i('addi', 0x13, 0, 'I', 'alu'),
  i('slti', 0x13, 2, 'I', 'alu'),
  i('sltiu', 0x13, 3, 'I', 'alu'),
  i('xori', 0x13, 4, 'I', 'alu'),
  i('ori', 0x13, 6, 'I', 'alu'),
  i('andi', 0x13, 7, 'I', 'alu'),
  shifti('slli', 0x00, 1),
  shifti('srli', 0x00, 5),
  shifti('srai', 0x20, 5),
  r('add', 0x00, 0, 'alu2'),
  r('sub', 0x20, 0, 'alu2'),
  r('sll', 0x00, 1, 'shift'),
  r('slt', 0x00, 2, 'alu2'),
  r('sltu', 0x00, 3, 'alu2'),
  r('xor', 0x00, 4, 'alu2'),
  r('srl', 0x00, 5, 'shift'),
  r('sra', 0x20, 5, 'shift'),
  r('or', 0x00, 6, 'alu2'),
  r('and', 0x00, 7, 'alu2'),
  i('fence', 0x0f, 0, 'NONE', 'fence'),
  { name: 'ecall', mask: 0xffffffff | 0, match: 0x00000073, format: 'NONE', timing: 'trap', ext: 'base' },
  { name: 'ebreak', mask: 0xffffffff | 0, match: 0x00100073, format: 'NONE', timing: 'trap', ext: 'base' },
  counter('rdcycle', 0xc00),
  counter('rdcycleh', 0xc80),
  counter('rdtime', 0xc01),
  counter('rdtimeh', 0xc81),
  counter('rdinstret', 0xc02),
  counter('rdinstreth', 0xc82),
  r('mul', 0x01, 0, 'mul', 'mul'),
  r('mulh', 0x01, 1, 'mulh', 'mul'),
  r('mulhsu', 0x01, 2, 'mulh', 'mul'),
  r('mulhu', 0x01, 3, 'mulh', 'mul'),
  r('div', 0x01, 4, 'div', 'div'),
  r('divu', 0x01, 5, 'div', 'div'),
  r('rem', 0x01, 6, 'div', 'div'),
  r('remu', 0x01, 7, 'div', 'div'),
];

/** Index into INSNS of the instruction a word encodes, or -1 if none does. */
export function matchInsn(word: number): number {
  for (let k = 0; k < INSNS.length; k++) {
    if ((word & INSNS[k].mask) === INSNS[k].match) return k;
  }
  return -1;
}

// Field extraction, straight from the spec's encoding figures.
export const rdOf = (w: number) => (w >>> 7) & 31;
export const rs1Of = (w: number) => (w >>> 15) & 31;
export const rs2Of = (w: number) => (w >>> 20) & 31;
export const immI = (w: number) => w >> 20;
export const immS = (w: number) => ((w >> 25) << 5) | ((w >>> 7) & 31);
export const immB = (w: number) =>
  ((w >> 31) << 12) | (((w >>> 7) & 1) << 11) | (((w >>> 25) & 63) << 5) | (((w >>> 8) & 15) << 1);
export const immU = (w: number) => w & 0xfffff000;
export const immJ = (w: number) =>
  ((w >> 31) << 20) | (w & 0xff000) | (((w >>> 20) & 1) << 11) | (((w >>> 21) & 1023) << 1);

/** The immediate of an instruction in its format's sense (shift amount, CSR number...). */
export function immOf(format: Format, w: number): number {
  switch (format) {
    case 'I': return immI(w);
    case 'S': return immS(w);
    case 'B': return immB(w);
    case 'U': return immU(w);
    case 'J': return immJ(w);
    case 'SHIFTI': return (w >>> 20) & 31;
    case 'CSR': return (w >>> 20) & 0xfff;
    default: return 0;
  }
}

export const ABI_NAMES = [
  'zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2', 's0', 's1', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5',
  'a6', 'a7', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6',
] as const;
