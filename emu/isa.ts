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

/**
 * Indices into INSNS per major opcode (bits 6:0), in INSNS order: every mask
 * covers those bits, so a word can match only the entries of its opcode's list.
 */
const INSNS_BY_OPCODE: readonly (readonly number[])[] = Array.from({ length: 128 }, (_, opcode) => {
  const list: number[] = [];
  for (let k = 0; k < INSNS.length; k++) {
    if ((INSNS[k].mask & OPC) !== OPC) throw new Error(`isa.ts entry ${INSNS[k].name}: its mask must cover the opcode`);
    if ((INSNS[k].match & OPC) === opcode) list.push(k);
  }
  return list;
});

/** Index into INSNS of the instruction a word encodes, or -1 if none does (the first in INSNS order). */
export function matchInsn(word: number): number {
  const list = INSNS_BY_OPCODE[word & OPC];
  for (let i = 0; i < list.length; i++) {
    const k = list[i];
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

// ---------------------------------------------------------------------------
// RV32C, PicoRV32's COMPRESSED_ISA option: each 16-bit encoding is a table
// entry that names the base instruction it expands to and where its operands
// come from. The CPU and the disassembler expand a halfword to its 32-bit
// equivalent (expandCompressed) and decode that with INSNS, so semantics and
// timing classes stay in one place. The encodings PicoRV32 decodes are those
// of its decoder (picorv32.v, "Quadrant 0..2"); a reserved form it does not
// decode (c.addi4spn/c.addi16sp/c.lui with a zero immediate, c.lwsp with
// rd = x0, c.jr with rs1 = x0, shifts by 32 or more, the FP loads/stores) is
// an illegal instruction, as it is there.

/** Where a compressed instruction's register operand comes from. */
export type CReg =
  | 'rd'    // bits 11:7
  | 'rs2'   // bits 6:2
  | 'rdp'   // x8 + bits 4:2 (rd' / rs2')
  | 'rs1p'  // x8 + bits 9:7 (rs1' / rd')
  | 'x0' | 'ra' | 'sp';

/** How a compressed instruction's immediate is scattered over its bits. */
export type CImm = 'ci' | 'shamt' | 'lui' | 'addi16sp' | 'addi4spn' | 'clw' | 'lwsp' | 'swsp' | 'cj' | 'cb' | 'zero';

export interface CInsnDef {
  readonly name: string;
  /** Mask and match over the 16-bit parcel. */
  readonly mask: number;
  readonly match: number;
  /** The INSNS entry it expands to. */
  readonly base: string;
  readonly rd: CReg;
  readonly rs1: CReg;
  readonly rs2: CReg;
  readonly imm: CImm;
  /** Reserved (illegal on PicoRV32) when this operand is zero. */
  readonly nonzero?: 'imm' | 'rd' | 'rs1';
}

function c(name: string, mask: number, match: number, base: string, rd: CReg, rs1: CReg, rs2: CReg, imm: CImm, nonzero?: CInsnDef['nonzero']): CInsnDef {
  return nonzero ? { name, mask, match, base, rd, rs1, rs2, imm, nonzero } : { name, mask, match, base, rd, rs1, rs2, imm };
}

/** First match decides (more specific encodings first); no match is illegal. */
export const CINSNS: readonly CInsnDef[] = [
  // Quadrant 0
  c('c.addi4spn', 0xe003, 0x0000, 'addi', 'rdp', 'sp', 'x0', 'addi4spn', 'imm'),
  c('c.lw', 0xe003, 0x4000, 'lw', 'rdp', 'rs1p', 'x0', 'clw'),
  c('c.sw', 0xe003, 0xc000, 'sw', 'x0', 'rs1p', 'rdp', 'clw'),
  // Quadrant 1
  c('c.nop', 0xef83, 0x0001, 'addi', 'x0', 'x0', 'x0', 'ci'),
  c('c.addi', 0xe003, 0x0001, 'addi', 'rd', 'rd', 'x0', 'ci'),
  c('c.jal', 0xe003, 0x2001, 'jal', 'ra', 'x0', 'x0', 'cj'),
  c('c.li', 0xe003, 0x4001, 'addi', 'rd', 'x0', 'x0', 'ci'),
  c('c.addi16sp', 0xef83, 0x6101, 'addi', 'sp', 'sp', 'x0', 'addi16sp', 'imm'),
  c('c.lui', 0xe003, 0x6001, 'lui', 'rd', 'x0', 'x0', 'lui', 'imm'),
  c('c.srli', 0xfc03, 0x8001, 'srli', 'rs1p', 'rs1p', 'x0', 'shamt'),
  c('c.srai', 0xfc03, 0x8401, 'srai', 'rs1p', 'rs1p', 'x0', 'shamt'),
  c('c.andi', 0xec03, 0x8801, 'andi', 'rs1p', 'rs1p', 'x0', 'ci'),
  c('c.sub', 0xfc63, 0x8c01, 'sub', 'rs1p', 'rs1p', 'rdp', 'zero'),
  c('c.xor', 0xfc63, 0x8c21, 'xor', 'rs1p', 'rs1p', 'rdp', 'zero'),
  c('c.or', 0xfc63, 0x8c41, 'or', 'rs1p', 'rs1p', 'rdp', 'zero'),
  c('c.and', 0xfc63, 0x8c61, 'and', 'rs1p', 'rs1p', 'rdp', 'zero'),
  c('c.j', 0xe003, 0xa001, 'jal', 'x0', 'x0', 'x0', 'cj'),
  c('c.beqz', 0xe003, 0xc001, 'beq', 'x0', 'rs1p', 'x0', 'cb'),
  c('c.bnez', 0xe003, 0xe001, 'bne', 'x0', 'rs1p', 'x0', 'cb'),
  // Quadrant 2
  c('c.slli', 0xf003, 0x0002, 'slli', 'rd', 'rd', 'x0', 'shamt'),
  c('c.lwsp', 0xe003, 0x4002, 'lw', 'rd', 'sp', 'x0', 'lwsp', 'rd'),
  c('c.jr', 0xf07f, 0x8002, 'jalr', 'x0', 'rd', 'x0', 'zero', 'rs1'),
  // PicoRV32 decodes c.mv as add rd, x0, rs2 (as the spec expands it).
  c('c.mv', 0xf003, 0x8002, 'add', 'rd', 'x0', 'rs2', 'zero'),
  c('c.ebreak', 0xffff, 0x9002, 'ebreak', 'x0', 'x0', 'x0', 'zero'),
  c('c.jalr', 0xf07f, 0x9002, 'jalr', 'ra', 'rd', 'x0', 'zero'),
  c('c.add', 0xf003, 0x9002, 'add', 'rd', 'rd', 'rs2', 'zero'),
  c('c.swsp', 0xe003, 0xc002, 'sw', 'x0', 'sp', 'rs2', 'swsp'),
];

/** Index into CINSNS of the entry a halfword matches, or -1 (not a compressed form PicoRV32 decodes). */
export function matchCompressed(h: number): number {
  for (let k = 0; k < CINSNS.length; k++) {
    if ((h & CINSNS[k].mask) === CINSNS[k].match) return k;
  }
  return -1;
}

const bit = (h: number, b: number) => (h >>> b) & 1;
const bits = (h: number, hi: number, lo: number) => (h >>> lo) & ((1 << (hi - lo + 1)) - 1);
const sext = (v: number, width: number) => (v << (32 - width)) >> (32 - width);

function cReg(h: number, r: CReg): number {
  switch (r) {
    case 'rd': return bits(h, 11, 7);
    case 'rs2': return bits(h, 6, 2);
    case 'rdp': return 8 + bits(h, 4, 2);
    case 'rs1p': return 8 + bits(h, 9, 7);
    case 'x0': return 0;
    case 'ra': return 1;
    case 'sp': return 2;
  }
}

/** The immediate of a compressed form, as the RVC spec's encoding figures scatter it. */
export function cImm(h: number, kind: CImm): number {
  switch (kind) {
    case 'ci': return sext((bit(h, 12) << 5) | bits(h, 6, 2), 6);
    case 'shamt': return (bit(h, 12) << 5) | bits(h, 6, 2);
    case 'lui': return sext((bit(h, 12) << 5) | bits(h, 6, 2), 6) << 12;
    case 'addi16sp':
      return sext((bit(h, 12) << 9) | (bits(h, 4, 3) << 7) | (bit(h, 5) << 6) | (bit(h, 2) << 5) | (bit(h, 6) << 4), 10);
    case 'addi4spn': return (bits(h, 10, 7) << 6) | (bits(h, 12, 11) << 4) | (bit(h, 5) << 3) | (bit(h, 6) << 2);
    case 'clw': return (bit(h, 5) << 6) | (bits(h, 12, 10) << 3) | (bit(h, 6) << 2);
    case 'lwsp': return (bits(h, 3, 2) << 6) | (bit(h, 12) << 5) | (bits(h, 6, 4) << 2);
    case 'swsp': return (bits(h, 8, 7) << 6) | (bits(h, 12, 9) << 2);
    case 'cj':
      return sext((bit(h, 12) << 11) | (bit(h, 8) << 10) | (bits(h, 10, 9) << 8) | (bit(h, 6) << 7) | (bit(h, 7) << 6)
        | (bit(h, 2) << 5) | (bit(h, 11) << 4) | (bits(h, 5, 3) << 1), 12);
    case 'cb':
      return sext((bit(h, 12) << 8) | (bits(h, 6, 5) << 6) | (bit(h, 2) << 5) | (bits(h, 11, 10) << 3) | (bits(h, 4, 3) << 1), 9);
    case 'zero': return 0;
  }
}

const INSN_BY_NAME = new Map(INSNS.map((d) => [d.name, d]));

/** The 32-bit encoding of base instruction `def` with these operands (the inverse of the field extractors). */
export function encode(def: InsnDef, rd: number, rs1: number, rs2: number, imm: number): number {
  const regs = (rd << 7) | (rs1 << 15);
  switch (def.format) {
    case 'R': return def.match | regs | (rs2 << 20);
    case 'I': return def.match | regs | ((imm & 0xfff) << 20);
    case 'SHIFTI': return def.match | regs | ((imm & 31) << 20);
    case 'S': return def.match | (rs1 << 15) | (rs2 << 20) | ((imm & 31) << 7) | (((imm >> 5) & 127) << 25);
    case 'B':
      return def.match | (rs1 << 15) | (rs2 << 20) | (((imm >> 11) & 1) << 7) | (((imm >> 1) & 15) << 8)
        | (((imm >> 5) & 63) << 25) | (((imm >> 12) & 1) << 31);
    case 'U': return def.match | (rd << 7) | (imm & 0xfffff000);
    case 'J':
      return def.match | (rd << 7) | (imm & 0xff000) | (((imm >> 11) & 1) << 20) | (((imm >> 1) & 1023) << 21)
        | (((imm >> 20) & 1) << 31);
    default: return def.match;
  }
}

/** Base-instruction definition of each CINSNS entry, checked at load. */
const CBASE: readonly InsnDef[] = CINSNS.map((d) => {
  const b = INSN_BY_NAME.get(d.base);
  if (!b) throw new Error(`isa.ts compressed entry ${d.name} expands to unknown ${d.base}`);
  return b;
});

/**
 * The 32-bit instruction a compressed halfword stands for, or -1 when
 * PicoRV32 does not decode it (an illegal instruction).
 */
export function expandCompressed(h: number): number {
  const k = matchCompressed(h & 0xffff);
  if (k < 0) return -1;
  const d = CINSNS[k];
  const rd = cReg(h, d.rd), rs1 = cReg(h, d.rs1), rs2 = cReg(h, d.rs2), imm = cImm(h, d.imm);
  if (d.nonzero === 'imm' && imm === 0) return -1;
  if (d.nonzero === 'rd' && rd === 0) return -1;
  if (d.nonzero === 'rs1' && rs1 === 0) return -1;
  return encode(CBASE[k], rd, rs1, rs2, imm) | 0;
}

/** Bytes of the instruction whose first halfword is `h`: 2 for a compressed one, else 4. */
export const insnLength = (h: number) => ((h & 3) === 3 ? 4 : 2);
