// Disassembly exactly as GNU objdump -d (binutils 2.40, the project's
// toolchain) prints a PicoRV32 instruction word: its mnemonics, ABI register
// names, operand formats and its choice of pseudo-instructions, driven by the
// ISA table (the base mnemonic of every word comes from INSNS).
//
// objdump picks, among the opcode table entries that match a word, the first
// one, and lists aliases before the canonical forms. For the RV32I(M) words
// PicoRV32 executes that gives:
//   addi   nop (all zero) | li rd,imm (rs1 = x0) | mv rd,rs1 (imm 0) | add rd,rs1,imm
//   xori   not rd,rs1 (imm -1) | xor rd,rs1,imm        ori   or rd,rs1,imm
//   andi   zext.b rd,rs1 (imm 255) | and rd,rs1,imm    sltiu seqz rd,rs1 (imm 1)
//   slli/srli/srai   sll/srl/sra rd,rs1,0xSHAMT
//   sub    neg rd,rs2 (rs1 = x0)        sltu  snez rd,rs2 (rs1 = x0)
//   slt    sltz rd,rs1 (rs2 = x0), else sgtz rd,rs2 (rs1 = x0)
//   beq/bne  beqz/bnez rs1,T (rs2 = x0)
//   blt    bltz rs1,T (rs2 = x0), else bgtz rs2,T (rs1 = x0)
//   bge    blez rs2,T (rs1 = x0), else bgez rs1,T (rs2 = x0)
//   jal    j T (rd = x0) | jal T (rd = ra) | jal rd,T
//   jalr   ret | jr rs1 | jr imm(rs1) (rd = x0) | jalr rs1 | jalr imm(rs1) (rd = ra)
//          | jalr rd,rs1 (imm 0) | jalr rd,imm(rs1)
//   fence  fence (iorw,iorw) | fence PRED,SUCC (fm, rd, rs1 zero; an empty set
//          prints "unknown") | fence.tso | else not an instruction objdump knows
//   lui/auipc rd,0xIMM20 (hex)   loads/stores rd,imm(rs1) (decimal)
//   csrrs rd,counter,x0   rdcycle rd, rdcycleh, rdtime, ... (also for rd = x0)
// A word PicoRV32 does not execute prints as `.4byte 0x<hex>` (objdump's
// spelling for a word it cannot decode), except csrrw x0,cycle,x0, objdump's
// `unimp`, and 0x0000100f, `fence.i` (Zifencei: objdump names it when the
// ELF's attributes include Zifencei; PicoRV32 traps on it as illegal, but a
// trap report that names the instruction tells the reader why). Branch and jump targets are printed as objdump does: `<hex> <sym+0x..>`
// with a symbol namer, `0x<hex>` without one (or when it names nothing).
// objdump's trailing `# <address>` comments (lui/auipc tracking) are not part
// of the instruction and not produced.
//
// With RV32C (COMPRESSED_ISA) a halfword whose low bits are not 11 is a
// compressed instruction. objdump -d prints those as the instruction they
// expand to, under the rules above (c.addi a0,1 → `add a0,a0,1`, c.lw →
// `lw`, c.j → `j`, c.jr → `jr`, c.srli → `srl ...,0x..`), except:
//   c.mv rd,rs2 → `mv rd,rs2`;   c.addi rd,0 → `add rd,rd,0`
//   the HINTs under their own names: c.nop IMM (≠ 0), c.li/c.lui/c.mv/c.add/
//   c.slli with rd = x0, c.slli64/c.srli64/c.srai64 (shift by 0).
// A halfword PicoRV32 does not decode prints as objdump's `.2byte 0x<hex>`
// (the zero halfword: `unimp`).

import type { ElfSymbol } from './elf.ts';
import { ABI_NAMES, CINSNS, cImm, expandCompressed, INSNS, immOf, matchCompressed, matchInsn, rdOf, rs1Of, rs2Of } from './isa.ts';

/** Address → `name`, `name+0x10` (or `name-0x10`), '' for none: objdump's `<...>`. */
export type SymbolNamer = (addr: number) => string;

/**
 * The namer objdump -d uses for branch and jump targets, over an ELF's
 * symbols (parseElf(...).symbols.all): the nearest symbol at or below the
 * address, whatever its size (so an address past the end of a sized function
 * still names it, unlike SymbolTable.describe), or the lowest symbol, as
 * `name-0x..`, for an address below every symbol. Among symbols at one address
 * it prefers, as objdump's compare_symbols does, functions, then larger sizes,
 * then names not starting with '.', then the smaller name. (objdump also
 * prefers global over local symbols and symbols of the section being
 * disassembled; ElfSymbol does not record those, so ties between such are
 * decided by the rules above.)
 */
export function objdumpNamer(symbols: readonly ElfSymbol[]): SymbolNamer {
  const junk = (s: ElfSymbol) => /gnu_compiled|gcc2_compiled/.test(s.name) || /.\.[oa]$/.test(s.name);
  const sorted = [...symbols].sort((a, b) =>
    (a.addr >>> 0) - (b.addr >>> 0)
    || Number(junk(a)) - Number(junk(b))
    || Number(b.isFunction) - Number(a.isFunction)
    || b.size - a.size
    || Number(a.name.startsWith('.')) - Number(b.name.startsWith('.'))
    || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return (addr) => {
    if (sorted.length === 0) return '';
    const a = addr >>> 0;
    // The last symbol at or below a, then back to the first one at its address.
    let lo = 0, hi = sorted.length - 1, best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid].addr >>> 0 <= a) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    const at = sorted[best].addr >>> 0;
    while (best > 0 && sorted[best - 1].addr >>> 0 === at) best--;
    const sym = sorted[best];
    return a === at ? sym.name : a > at ? `${sym.name}+0x${hex(a - at)}` : `${sym.name}-0x${hex(at - a)}`;
  };
}

const x = (n: number) => ABI_NAMES[n];
const hex = (n: number) => (n >>> 0).toString(16);

/** A branch or jump target as objdump prints it. */
function target(addr: number, namer?: SymbolNamer): string {
  const a = addr >>> 0;
  const name = namer?.(a);
  return name ? `${hex(a)} <${name}>` : `0x${hex(a)}`;
}

/** The counter reads: csrrs rd, CSR, x0, named as the ISA table names them. */
const COUNTERS = new Set(['rdcycle', 'rdcycleh', 'rdtime', 'rdtimeh', 'rdinstret', 'rdinstreth']);

/** Immediate forms objdump 2.40 prints under the register form's mnemonic (addi → add). */
const IMM_AS_REG_FORM = new Set(['addi', 'xori', 'ori', 'andi', 'slli', 'srli', 'srai']);

/** csrrw x0, cycle, x0: the canonical illegal instruction, objdump's `unimp`. */
const UNIMP = 0xc0001073;
/** fence.i with rd, rs1 and imm zero: the only word objdump decodes as fence.i (MASK_FENCE_I covers every other field). */
const FENCE_I = 0x0000100f;

/** objdump's names of a fence's predecessor/successor sets (bits i o r w). */
const FENCE_SETS = [
  'unknown', 'w', 'r', 'rw', 'o', 'ow', 'or', 'orw', 'i', 'iw', 'ir', 'irw', 'io', 'iow', 'ior', 'iorw',
];

/** `.4byte 0x...`: how objdump shows a 32-bit word it does not decode. */
export function illegalWord(word: number): string {
  const w = word >>> 0;
  if (w === FENCE_I) return 'fence.i';
  return w === UNIMP ? 'unimp' : `.4byte\t0x${hex(word)}`;
}

/**
 * `mnemonic\toperands` as objdump -d prints it (no trailing `# ...` comment).
 * With `rvc` (COMPRESSED_ISA) and low bits other than 11, the low half of
 * `word` is a compressed instruction.
 */
export function disassemble(word: number, pc: number, namer?: SymbolNamer, rvc = false): string {
  if (rvc && (word & 3) !== 3) return disassembleCompressed(word & 0xffff, pc, namer);
  return disassemble32(word, pc, namer);
}

function disassembleCompressed(h: number, pc: number, namer?: SymbolNamer): string {
  const w = expandCompressed(h);
  if (w === -1) return h === 0 ? 'unimp' : `.2byte\t0x${hex(h)}`;
  const name = CINSNS[matchCompressed(h)].name;
  const rd = rdOf(w), rs2 = rs2Of(w), imm = cImm(h, 'ci'), shamt = cImm(h, 'shamt');
  switch (name) {
    case 'c.nop': if (imm !== 0) return `c.nop\t${imm}`; break;
    case 'c.addi': if (imm === 0) return `add\t${x(rd)},${x(rd)},0`; break;
    case 'c.li': if (rd === 0) return `c.li\tzero,${imm}`; break;
    case 'c.lui': if (rd === 0) return `c.lui\tzero,0x${hex((imm & 0xfffff) >>> 0)}`; break;
    case 'c.mv': return rd === 0 ? `c.mv\tzero,${x(rs2)}` : `mv\t${x(rd)},${x(rs2)}`;
    case 'c.add': if (rd === 0) return `c.add\tzero,${x(rs2)}`; break;
    case 'c.slli':
      if (shamt === 0) return `c.slli64\t${x(rd)}`;
      if (rd === 0) return `c.slli\tzero,0x${hex(shamt)}`;
      break;
    case 'c.srli': case 'c.srai': if (shamt === 0) return `${name}64\t${x(rd)}`; break;
  }
  return disassemble32(w, pc, namer);
}

function disassemble32(word: number, pc: number, namer?: SymbolNamer): string {
  const k = matchInsn(word);
  if (k < 0) return illegalWord(word);
  const d = INSNS[k];
  const rd = rdOf(word), rs1 = rs1Of(word), rs2 = rs2Of(word);
  const imm = immOf(d.format, word);
  const n = d.name;
  const to = () => target(pc + imm, namer);

  if (COUNTERS.has(n)) return `${n}\t${x(rd)}`;
  switch (n) {
    case 'lui': case 'auipc': return `${n}\t${x(rd)},0x${hex(imm >>> 12)}`;
    case 'jal':
      if (rd === 0) return `j\t${to()}`;
      if (rd === 1) return `jal\t${to()}`;
      return `jal\t${x(rd)},${to()}`;
    case 'jalr':
      if (rd === 0 && rs1 === 1 && imm === 0) return 'ret';
      if (rd === 0) return imm === 0 ? `jr\t${x(rs1)}` : `jr\t${imm}(${x(rs1)})`;
      if (rd === 1) return imm === 0 ? `jalr\t${x(rs1)}` : `jalr\t${imm}(${x(rs1)})`;
      return imm === 0 ? `jalr\t${x(rd)},${x(rs1)}` : `jalr\t${x(rd)},${imm}(${x(rs1)})`;
    case 'addi':
      if (rd === 0 && rs1 === 0 && imm === 0) return 'nop';
      if (rs1 === 0) return `li\t${x(rd)},${imm}`;
      if (imm === 0) return `mv\t${x(rd)},${x(rs1)}`;
      break;
    case 'xori': if (imm === -1) return `not\t${x(rd)},${x(rs1)}`; break;
    case 'andi': if (imm === 255) return `zext.b\t${x(rd)},${x(rs1)}`; break;
    case 'sltiu': if (imm === 1) return `seqz\t${x(rd)},${x(rs1)}`; break;
    case 'sub': if (rs1 === 0) return `neg\t${x(rd)},${x(rs2)}`; break;
    case 'sltu': if (rs1 === 0) return `snez\t${x(rd)},${x(rs2)}`; break;
    case 'slt':
      if (rs2 === 0) return `sltz\t${x(rd)},${x(rs1)}`;
      if (rs1 === 0) return `sgtz\t${x(rd)},${x(rs2)}`;
      break;
    case 'beq': if (rs2 === 0) return `beqz\t${x(rs1)},${to()}`; break;
    case 'bne': if (rs2 === 0) return `bnez\t${x(rs1)},${to()}`; break;
    case 'blt':
      if (rs2 === 0) return `bltz\t${x(rs1)},${to()}`;
      if (rs1 === 0) return `bgtz\t${x(rs2)},${to()}`;
      break;
    case 'bge':
      if (rs1 === 0) return `blez\t${x(rs2)},${to()}`;
      if (rs2 === 0) return `bgez\t${x(rs1)},${to()}`;
      break;
    case 'fence': return fence(word);
    case 'ecall': case 'ebreak': return n;
  }
  const m = IMM_AS_REG_FORM.has(n) ? n.slice(0, -1) : n;
  switch (d.format) {
    case 'R': return `${m}\t${x(rd)},${x(rs1)},${x(rs2)}`;
    case 'SHIFTI': return `${m}\t${x(rd)},${x(rs1)},0x${hex(imm)}`;
    case 'B': return `${m}\t${x(rs1)},${x(rs2)},${to()}`;
    case 'S': return `${m}\t${x(rs2)},${imm}(${x(rs1)})`;
    case 'I': return d.timing === 'load' ? `${m}\t${x(rd)},${imm}(${x(rs1)})` : `${m}\t${x(rd)},${x(rs1)},${imm}`;
    default: return m;
  }
}

function fence(word: number): string {
  const w = word >>> 0;
  if (w === 0x0ff0000f) return 'fence';
  if (w === 0x8330000f) return 'fence.tso';
  // fm, rs1 and rd must be zero for objdump's `fence pred,succ`.
  if ((w & 0xf00f8f80) !== 0) return illegalWord(w);
  return `fence\t${FENCE_SETS[(w >>> 24) & 15]},${FENCE_SETS[(w >>> 20) & 15]}`;
}
