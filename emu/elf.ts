// ELF loading with elf-tools: PT_LOAD segments go into the BRAM or the SRAM
// (as a host would have written them before reset), symbols are kept for
// reports. Anything that is not a 32-bit little-endian RISC-V executable whose
// segments fit the memory map is refused with one clear message.

import elfTools from 'elf-tools';
import { BRAM_BASE, BRAM_SIZE } from './bus.ts';
import { SRAM_BASE, SRAM_SIZE } from '../periph/sram.ts';

export class ElfError extends Error {}

export interface ElfSymbol {
  name: string;
  addr: number;
  size: number;
  isFunction: boolean;
}

export interface Segment {
  vaddr: number;
  data: Uint8Array;
  memsz: number;
}

export interface LoadedElf {
  entry: number;
  segments: Segment[];
  symbols: SymbolTable;
}

const EM_RISCV = 243;
const STT_FUNC = 2;
const STT_OBJECT = 1;
const STT_NOTYPE = 0;

/** Address ranges the loader may write. */
const LOADABLE = [
  { name: 'BRAM', base: BRAM_BASE, size: BRAM_SIZE },
  { name: 'SRAM', base: SRAM_BASE, size: SRAM_SIZE },
];

export function parseElf(bytes: Uint8Array): LoadedElf {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  checkHeader(buf);
  let parsed: ReturnType<typeof elfTools.parse>;
  try {
    parsed = elfTools.parse(buf);
  } catch (e) {
    throw new ElfError(`malformed ELF file (${(e as Error).message})`);
  }
  const segments: Segment[] = [];
  for (const p of parsed.programs) {
    if (p.header.type !== 'load' || p.header.memsz === 0) continue;
    const { vaddr, filesz, memsz, offset } = p.header;
    if (offset + filesz > buf.length) throw new ElfError('malformed ELF file (segment data past end of file)');
    const region = LOADABLE.find((r) => vaddr >= r.base && vaddr + memsz <= r.base + r.size);
    if (!region) {
      throw new ElfError(
        `segment at 0x${hex(vaddr)}..0x${hex(vaddr + memsz)} is outside BRAM (0x00000000..0x00010000) and SRAM (0x40000000..0x40080000)`,
      );
    }
    segments.push({ vaddr, data: new Uint8Array(p.data), memsz });
  }
  if (segments.length === 0) throw new ElfError('ELF file has no loadable segment');
  return { entry: parsed.header.entry, segments, symbols: new SymbolTable(readSymbols(buf, parsed)) };
}

/** Checks the identification bytes ourselves: elf-tools does not know RISC-V by name. */
function checkHeader(buf: Buffer): void {
  if (buf.length < 52 || buf.readUInt32BE(0) !== 0x7f454c46) throw new ElfError('not an ELF file');
  if (buf[4] !== 1) throw new ElfError('not a 32-bit ELF file (ELFCLASS64)');
  if (buf[5] !== 1) throw new ElfError('not a little-endian ELF file');
  const machine = buf.readUInt16LE(18);
  if (machine !== EM_RISCV) throw new ElfError(`not a RISC-V ELF file (e_machine ${machine})`);
  const type = buf.readUInt16LE(16);
  if (type !== 2) throw new ElfError(`not an executable ELF file (e_type ${type}; link it first)`);
}

function readSymbols(buf: Buffer, parsed: ReturnType<typeof elfTools.parse>): ElfSymbol[] {
  const out: ElfSymbol[] = [];
  parsed.sections.forEach((sec) => {
    if (sec.header.type !== 'symtab') return; // elf-tools names section types
    const strtab = parsed.sections[sec.header.link];
    if (!strtab) return;
    const data = sec.data, str = strtab.data;
    for (let off = 16; off + 16 <= data.length; off += 16) {
      const nameOff = data.readUInt32LE(off);
      const addr = data.readUInt32LE(off + 4);
      const size = data.readUInt32LE(off + 8);
      const info = data[off + 12];
      const shndx = data.readUInt16LE(off + 14);
      const type = info & 15;
      if (shndx === 0 || (type !== STT_FUNC && type !== STT_OBJECT && type !== STT_NOTYPE)) continue;
      const end = str.indexOf(0, nameOff);
      const name = str.toString('latin1', nameOff, end < 0 ? str.length : end);
      // Skip local labels and the assembler's mapping symbols.
      if (!name || name.startsWith('.L') || name.startsWith('$')) continue;
      out.push({ name, addr, size, isFunction: type === STT_FUNC });
    }
  });
  return out;
}

/** Address → symbol+offset, and name → address. */
export class SymbolTable {
  private readonly sorted: ElfSymbol[];
  private readonly byName = new Map<string, ElfSymbol>();

  constructor(readonly all: ElfSymbol[]) {
    // Prefer functions, then sized symbols, when several share an address.
    const rank = (s: ElfSymbol) => (s.isFunction ? 2 : 0) + (s.size > 0 ? 1 : 0);
    this.sorted = [...all].sort((a, b) => a.addr - b.addr || rank(b) - rank(a));
    for (const s of all) if (!this.byName.has(s.name) || s.isFunction) this.byName.set(s.name, s);
  }

  lookup(name: string): ElfSymbol | undefined {
    return this.byName.get(name);
  }

  /** The symbol containing addr (or the nearest one below it). */
  at(addr: number): ElfSymbol | undefined {
    const s = this.sorted;
    let lo = 0, hi = s.length - 1, best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid].addr <= addr) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (best < 0) return undefined;
    // Walk back to the preferred symbol at that address.
    let b = best;
    while (b > 0 && s[b - 1].addr === s[best].addr) b--;
    const sym = s[b];
    if (sym.size > 0 && addr >= sym.addr + sym.size) return undefined;
    return sym;
  }

  /** `name+0x10`, or '' when no symbol covers addr. */
  describe(addr: number): string {
    const sym = this.at(addr);
    if (!sym) return '';
    const off = addr - sym.addr;
    return off ? `${sym.name}+0x${off.toString(16)}` : sym.name;
  }
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
