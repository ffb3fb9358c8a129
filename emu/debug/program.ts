// The debugger's view of the program under debug: its symbols, instructions
// and the memory the CPU reads, named and decoded for display. Reading through
// it never changes the machine (no register with side effects is touched).

import { disassemble } from '../disasm.ts';
import { ABI_NAMES, expandCompressed, immOf, INSNS, matchInsn, rdOf, rs1Of, rs2Of } from '../isa.ts';
import { hex8, type Machine } from '../machine.ts';

export const SP = 2, RA = 1, S0 = 8;

export class DebugError extends Error {}

export interface Decoded {
  name: string;
  rd: number;
  rs1: number;
  rs2: number;
  imm: number;
  format: string;
}

/** A register number by ABI name, x-name or fp; -1 for none. */
export function regIndex(name: string): number {
  if (name === 'fp') return S0;
  const x = /^x(\d+)$/.exec(name);
  if (x) return Number(x[1]) < 32 ? Number(x[1]) : -1;
  return (ABI_NAMES as readonly string[]).indexOf(name);
}

export class ProgramView {
  constructor(readonly machine: Machine) {}

  sym(addr: number): string {
    return this.machine.symbols.describe(addr >>> 0);
  }

  /** `0x000000bc <main+0x4>`. */
  addr(a: number): string {
    const s = this.sym(a);
    return `0x${hex8(a)}${s ? ` <${s}>` : ''}`;
  }

  /**
   * A data address with the object it falls in: only a sized symbol, or an
   * exact match (so the stack is not called __global_pointer$+0xea8c).
   */
  dataAddr(a: number): string {
    const sym = this.machine.symbols.at(a >>> 0);
    const ok = sym && (sym.size > 0 || sym.addr === a >>> 0);
    return `0x${hex8(a)}${ok ? ` <${this.sym(a)}>` : ''}`;
  }

  /** Bits an instruction address must have clear: 1 with COMPRESSED_ISA (halfwords), else 3. */
  get insnAlign(): number {
    return this.machine.cpu.compressed ? 1 : 3;
  }

  isCode(pc: number): boolean {
    return (pc & this.insnAlign) === 0 && pc >= 0 && pc < this.machine.cpu.ramSize;
  }

  /** The instruction at pc as stored (16 bits for a compressed one) and its length in bytes. */
  insnAt(pc: number): { word: number; len: number } {
    const cpu = this.machine.cpu;
    const len = cpu.lengthAt(pc);
    const word = cpu.wordAt(pc) >>> 0;
    return { word: len === 2 ? word & 0xffff : word, len };
  }

  /** The 32-bit form of the instruction at pc (a compressed one expanded; -1 if illegal). */
  fullWordAt(pc: number): number {
    const { word, len } = this.insnAt(pc);
    return len === 2 ? expandCompressed(word) : word | 0;
  }

  disasAt(pc: number): string {
    return disassemble(this.insnAt(pc).word, pc, (a) => this.sym(a), this.machine.cpu.compressed).replace('\t', ' ');
  }

  insnText(pc: number): string {
    if (!this.isCode(pc)) return '(not in the program BRAM)';
    return this.disasAt(pc);
  }

  /** Instructions in [start, end). */
  insnCount(start: number, end: number): number {
    let n = 0;
    for (let a = start; a < end && a < this.machine.cpu.ramSize; a += this.insnAt(a).len) n++;
    return n;
  }

  decodeAt(pc: number): Decoded | null {
    if (!this.isCode(pc)) return null;
    const w = this.fullWordAt(pc);
    const k = w === -1 ? -1 : matchInsn(w);
    if (k < 0) return null;
    const d = INSNS[k];
    return { name: d.name, rd: rdOf(w), rs1: rs1Of(w), rs2: rs2Of(w), imm: immOf(d.format, w), format: d.format };
  }

  /** The call at pc (jal/jalr writing ra), if it is one. */
  isCall(pc: number): boolean {
    const d = this.decodeAt(pc);
    return d !== null && (d.name === 'jal' || d.name === 'jalr') && d.rd === RA;
  }

  /** [start, end) of the function containing pc: its symbol, sized or up to the next symbol. */
  functionRange(pc: number): { start: number; end: number; name: string } | null {
    const sym = this.machine.symbols.at(pc);
    if (!sym || sym.addr >= this.machine.cpu.ramSize) return null;
    let end = sym.size > 0 ? sym.addr + sym.size : this.machine.cpu.ramSize;
    if (sym.size === 0) for (const s of this.machine.symbols.all) if (s.addr > sym.addr && s.addr < end) end = s.addr;
    return { start: sym.addr, end: Math.min(end, this.machine.cpu.ramSize), name: sym.name };
  }

  reg(n: number): number {
    return this.machine.cpu.regs[n] >>> 0;
  }

  /** Whether [addr, addr+len) lies all in one of the board's memories (the firmware RAM, picotpu's SRAM). */
  cpuMemory(addr: number, len: number): boolean {
    const mem = this.machine.memoryAt(addr, len);
    return mem !== null && mem.length === len;
  }

  /** Bytes of the board's memories (the caller checked the range). */
  bytesAt(addr: number, len: number): number[] {
    return Array.from(this.machine.memoryAt(addr, len)!);
  }

  /** The aligned word at addr in one of the board's memories, or null. */
  word(addr: number): number | null {
    if (!this.cpuMemory(addr, 4) || (addr & 3)) return null;
    const b = this.bytesAt(addr, 4);
    return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
  }
}
