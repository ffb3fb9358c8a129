// Disassembly with objdump's mnemonics, ABI register names and its choice of
// pseudo-instructions (li, mv, j, ret, beqz, ...), driven by the ISA table.

import { ABI_NAMES, INSNS, immOf, matchInsn, rdOf, rs1Of, rs2Of } from './isa.ts';

export type SymbolNamer = (addr: number) => string;

const x = (n: number) => ABI_NAMES[n];
const hex = (n: number) => (n >>> 0).toString(16);

function target(addr: number, namer?: SymbolNamer): string {
  const name = namer?.(addr >>> 0);
  return name ? `${hex(addr)} <${name}>` : hex(addr);
}

const COUNTER_NAMES: Record<string, true> = {
  rdcycle: true, rdcycleh: true, rdtime: true, rdtimeh: true, rdinstret: true, rdinstreth: true,
};

/** `mnemonic\toperands` as objdump -d prints it. */
export function disassemble(word: number, pc: number, namer?: SymbolNamer): string {
  const k = matchInsn(word);
  if (k < 0) return `.word\t0x${hex(word).padStart(8, '0')}`;
  const d = INSNS[k];
  const rd = rdOf(word), rs1 = rs1Of(word), rs2 = rs2Of(word);
  const imm = immOf(d.format, word);
  const n = d.name;
  const op = (s: string) => `${n}\t${s}`;

  if (COUNTER_NAMES[n]) return `${n}\t${x(rd)}`;
  switch (n) {
    case 'lui': case 'auipc': return op(`${x(rd)},0x${hex(imm >>> 12)}`);
    case 'jal':
      if (rd === 0) return `j\t${target(pc + imm, namer)}`;
      if (rd === 1) return `jal\t${target(pc + imm, namer)}`;
      return op(`${x(rd)},${target(pc + imm, namer)}`);
    case 'jalr':
      if (rd === 0 && rs1 === 1 && imm === 0) return 'ret';
      if (rd === 0 && imm === 0) return `jr\t${x(rs1)}`;
      if (rd === 1 && imm === 0) return `jalr\t${x(rs1)}`;
      if (rd === 1) return `jalr\t${imm}(${x(rs1)})`;
      return op(`${x(rd)},${imm}(${x(rs1)})`);
    case 'addi':
      if (rd === 0 && rs1 === 0 && imm === 0) return 'nop';
      if (rs1 === 0) return `li\t${x(rd)},${imm}`;
      if (imm === 0) return `mv\t${x(rd)},${x(rs1)}`;
      break;
    case 'xori': if (imm === -1) return `not\t${x(rd)},${x(rs1)}`; break;
    case 'sltiu': if (imm === 1) return `seqz\t${x(rd)},${x(rs1)}`; break;
    case 'sub': if (rs1 === 0) return `neg\t${x(rd)},${x(rs2)}`; break;
    case 'sltu': if (rs1 === 0) return `snez\t${x(rd)},${x(rs2)}`; break;
    case 'slt':
      if (rs2 === 0) return `sltz\t${x(rd)},${x(rs1)}`;
      if (rs1 === 0) return `sgtz\t${x(rd)},${x(rs2)}`;
      break;
    case 'beq': if (rs2 === 0) return `beqz\t${x(rs1)},${target(pc + imm, namer)}`; break;
    case 'bne': if (rs2 === 0) return `bnez\t${x(rs1)},${target(pc + imm, namer)}`; break;
    case 'blt':
      if (rs2 === 0) return `bltz\t${x(rs1)},${target(pc + imm, namer)}`;
      if (rs1 === 0) return `bgtz\t${x(rs2)},${target(pc + imm, namer)}`;
      break;
    case 'bge':
      if (rs2 === 0) return `bgez\t${x(rs1)},${target(pc + imm, namer)}`;
      if (rs1 === 0) return `blez\t${x(rs2)},${target(pc + imm, namer)}`;
      break;
    case 'fence': return fence(word);
    case 'ecall': case 'ebreak': return n;
  }
  switch (d.format) {
    case 'R': return op(`${x(rd)},${x(rs1)},${x(rs2)}`);
    case 'SHIFTI': return op(`${x(rd)},${x(rs1)},0x${hex(imm)}`);
    case 'B': return op(`${x(rs1)},${x(rs2)},${target(pc + imm, namer)}`);
    case 'S': return op(`${x(rs2)},${imm}(${x(rs1)})`);
    case 'I': return d.timing === 'load' ? op(`${x(rd)},${imm}(${x(rs1)})`) : op(`${x(rd)},${x(rs1)},${imm}`);
    default: return n;
  }
}

function fence(word: number): string {
  const set = (bits: number) => ['i', 'o', 'r', 'w'].filter((_, i) => bits & (8 >> i)).join('');
  const pred = (word >>> 24) & 15, succ = (word >>> 20) & 15;
  if (pred === 15 && succ === 15) return 'fence';
  return `fence\t${set(pred)},${set(succ)}`;
}
