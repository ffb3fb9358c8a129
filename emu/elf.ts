// ELF loading: PT_LOAD segments go into the board's memories (as a host would
// have written them before reset), symbols are kept for reports. The ELF32
// headers are read here with bounds checks on every table, so anything that is
// not a 32-bit little-endian RISC-V executable with sane segments is refused
// with one line naming the defect (ElfError, exit 164); whether the segments
// fit a board's memories is the machine's check (Machine.misfit). The
// section table is optional: without one (objcopy --strip-sections) the
// program loads from its segments and has no symbols.

import { latin1Text } from './latin1.ts';

export class ElfError extends Error {}

/**
 * Largest program file read, by the command line and the playground alike (an
 * ELF's symbols and debug sections may far exceed the 64 KiB BRAM it loads).
 */
export const MAX_PROGRAM_BYTES = 16 * 1024 * 1024;

/** The playground's line for a program file past MAX_PROGRAM_BYTES (the command line's words for it). */
export function programTooBig(name: string, size: number): string {
  return `cannot read program ${name}: ${size} bytes, more than the ${MAX_PROGRAM_BYTES} allowed`;
}

export interface ElfSymbol {
  name: string;
  addr: number;
  size: number;
  isFunction: boolean;
  /**
   * First address past what the symbol may name in reports: addr+size for a
   * sized symbol, else the end of its section (a label such as `_start`), or
   * addr+1 when neither says more (an absolute symbol, a label at a section's end).
   */
  limit?: number;
}

export interface Segment {
  vaddr: number;
  data: Uint8Array;
  memsz: number;
}

export interface LoadedElf {
  entry: number;
  /** e_flags: for RISC-V, bit 0 (EF_RISCV_RVC) says the code uses 16-bit instructions. */
  flags: number;
  segments: Segment[];
  symbols: SymbolTable;
}

const EHDR_SIZE = 52;
const PHDR_SIZE = 32;
const SHDR_SIZE = 40;
const SYM_SIZE = 16;
const EM_RISCV = 243;
const ET_EXEC = 2;
const PT_LOAD = 1;
const PN_XNUM = 0xffff;
const SHT_NULL = 0;
const SHT_SYMTAB = 2;
const SHT_NOBITS = 8;
const SHF_ALLOC = 2;
const SHN_LORESERVE = 0xff00;
const STT_NOTYPE = 0;
const STT_OBJECT = 1;
const STT_FUNC = 2;

const ELF_CLASSES: Record<number, string> = { 0: 'ELFCLASSNONE', 2: 'ELFCLASS64' };
const ELF_DATA: Record<number, string> = { 0: 'ELFDATANONE', 2: 'ELFDATA2MSB, big-endian' };

interface SectionHeader {
  index: number; type: number; flags: number; addr: number; offset: number; size: number; link: number; entsize: number;
}

export function parseElf(bytes: Uint8Array): LoadedElf {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  checkIdent(bytes, view);
  const segments = readSegments(bytes, view);
  const sections = readSectionTable(bytes, view);
  return { entry: view.getUint32(24, true), flags: view.getUint32(36, true), segments, symbols: new SymbolTable(readSymbols(bytes, view, sections)) };
}

/** e_ident, e_type and e_machine. */
function checkIdent(bytes: Uint8Array, view: DataView): void {
  if (bytes.length < 4 || view.getUint32(0, false) !== 0x7f454c46) throw new ElfError('not an ELF file');
  if (bytes.length < EHDR_SIZE) throw new ElfError(`truncated ELF file (${bytes.length} bytes, shorter than the ${EHDR_SIZE}-byte ELF32 header)`);
  const cls = bytes[4];
  if (cls !== 1) throw new ElfError(`not a 32-bit ELF file (EI_CLASS ${cls}, ${ELF_CLASSES[cls] ?? 'not a defined class'}; want 1, ELFCLASS32)`);
  const data = bytes[5];
  if (data !== 1) throw new ElfError(`not a little-endian ELF file (EI_DATA ${data}, ${ELF_DATA[data] ?? 'not a defined encoding'}; want 1, ELFDATA2LSB)`);
  const machine = view.getUint16(18, true);
  if (machine !== EM_RISCV) throw new ElfError(`not a RISC-V ELF file (e_machine ${machine}; want ${EM_RISCV}, EM_RISCV)`);
  const type = view.getUint16(16, true);
  if (type !== ET_EXEC) throw new ElfError(`not an executable ELF file (e_type ${type}; link it first)`);
}

/** `what` occupies [offset, offset+size) of the file, or an ElfError naming it. */
function checkInFile(bytes: Uint8Array, offset: number, size: number, what: string): void {
  if (offset + size > bytes.length) {
    throw new ElfError(`truncated or corrupt ELF file: ${what} (file offset 0x${offset.toString(16)}, 0x${size.toString(16)} bytes) lies past the end of the ${bytes.length}-byte file`);
  }
}

/** The PT_LOAD segments, checked against the file and each other. */
function readSegments(bytes: Uint8Array, view: DataView): Segment[] {
  const phoff = view.getUint32(28, true), phentsize = view.getUint16(42, true), phnum = view.getUint16(44, true);
  if (phnum === 0) throw new ElfError('ELF file has no program headers (e_phnum 0), so nothing to load');
  if (phnum === PN_XNUM) throw new ElfError(`ELF file has 65535 or more program headers (e_phnum PN_XNUM), more than this loader reads`);
  if (phentsize !== PHDR_SIZE) throw new ElfError(`corrupt ELF header: e_phentsize ${phentsize}, want ${PHDR_SIZE} for ELF32`);
  checkInFile(bytes, phoff, phnum * PHDR_SIZE, `the program header table (e_phoff, e_phnum ${phnum})`);
  const segments: (Segment & { index: number })[] = [];
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * PHDR_SIZE;
    if (view.getUint32(p, true) !== PT_LOAD) continue;
    const offset = view.getUint32(p + 4, true), vaddr = view.getUint32(p + 8, true);
    const filesz = view.getUint32(p + 16, true), memsz = view.getUint32(p + 20, true);
    if (memsz === 0 && filesz === 0) continue;
    if (filesz > memsz) {
      throw new ElfError(`corrupt ELF program header ${i}: p_filesz 0x${filesz.toString(16)} exceeds p_memsz 0x${memsz.toString(16)}`);
    }
    checkInFile(bytes, offset, filesz, `the data of segment ${i}`);
    // Where a segment may go is the board's to say (Machine.misfit).
    segments.push({ index: i, vaddr, data: bytes.subarray(offset, offset + filesz), memsz });
  }
  if (segments.length === 0) throw new ElfError('ELF file has no loadable segment');
  const sorted = [...segments].sort((a, b) => a.vaddr - b.vaddr);
  for (let k = 1; k < sorted.length; k++) {
    const a = sorted[k - 1], b = sorted[k];
    if (a.vaddr + a.memsz > b.vaddr) {
      throw new ElfError(
        `segments ${a.index} (0x${hex(a.vaddr)}..0x${hex(a.vaddr + a.memsz)}) and ${b.index} (0x${hex(b.vaddr)}..0x${hex(b.vaddr + b.memsz)}) overlap`,
      );
    }
  }
  return segments.map(({ vaddr, data, memsz }) => ({ vaddr, data, memsz }));
}

/** The section headers ([] when the file has none), each section's data checked to lie in the file. */
function readSectionTable(bytes: Uint8Array, view: DataView): SectionHeader[] {
  const shoff = view.getUint32(32, true), shentsize = view.getUint16(46, true);
  const shnum = view.getUint16(48, true), shstrndx = view.getUint16(50, true);
  if (shoff === 0 && shnum === 0) return [];
  if (shoff === 0 || shnum === 0) throw new ElfError(`corrupt ELF header: e_shoff 0x${shoff.toString(16)} with e_shnum ${shnum} (both or neither must be 0)`);
  if (shentsize !== SHDR_SIZE) throw new ElfError(`corrupt ELF header: e_shentsize ${shentsize}, want ${SHDR_SIZE} for ELF32`);
  checkInFile(bytes, shoff, shnum * SHDR_SIZE, `the section header table (e_shoff, e_shnum ${shnum})`);
  if (shstrndx >= shnum) throw new ElfError(`corrupt ELF header: e_shstrndx ${shstrndx} is not a section (e_shnum ${shnum})`);
  const sections: SectionHeader[] = [];
  for (let i = 0; i < shnum; i++) {
    const s = shoff + i * SHDR_SIZE;
    const sh: SectionHeader = {
      index: i,
      type: view.getUint32(s + 4, true),
      flags: view.getUint32(s + 8, true),
      addr: view.getUint32(s + 12, true),
      offset: view.getUint32(s + 16, true),
      size: view.getUint32(s + 20, true),
      link: view.getUint32(s + 24, true),
      entsize: view.getUint32(s + 36, true),
    };
    if (sh.type !== SHT_NULL && sh.type !== SHT_NOBITS) checkInFile(bytes, sh.offset, sh.size, `the data of section ${i}`);
    sections.push(sh);
  }
  return sections;
}

function readSymbols(bytes: Uint8Array, view: DataView, sections: SectionHeader[]): ElfSymbol[] {
  const out: ElfSymbol[] = [];
  for (const sec of sections) {
    if (sec.type !== SHT_SYMTAB) continue;
    if (sec.entsize !== SYM_SIZE) throw new ElfError(`corrupt ELF symbol table (section ${sec.index}): sh_entsize ${sec.entsize}, want ${SYM_SIZE}`);
    const strtab = sections[sec.link];
    if (sec.link === 0 || !strtab || strtab.type === SHT_NOBITS) {
      throw new ElfError(`corrupt ELF symbol table (section ${sec.index}): sh_link ${sec.link} is not a string table section`);
    }
    const str = bytes.subarray(strtab.offset, strtab.offset + strtab.size);
    for (let off = sec.offset + SYM_SIZE, n = 1; off + SYM_SIZE <= sec.offset + sec.size; off += SYM_SIZE, n++) {
      const nameOff = view.getUint32(off, true);
      const addr = view.getUint32(off + 4, true);
      const size = view.getUint32(off + 8, true);
      const type = bytes[off + 12] & 15;
      const shndx = view.getUint16(off + 14, true);
      if (shndx === 0 || (type !== STT_FUNC && type !== STT_OBJECT && type !== STT_NOTYPE)) continue;
      if (nameOff >= str.length) {
        throw new ElfError(`corrupt ELF symbol table (section ${sec.index}): symbol ${n}'s name offset 0x${nameOff.toString(16)} is past its ${str.length}-byte string table`);
      }
      const end = str.indexOf(0, nameOff);
      const name = latin1Text(str, nameOff, end < 0 ? str.length : end);
      // Skip local labels and the assembler's mapping symbols.
      if (!name || name.startsWith('.L') || name.startsWith('$')) continue;
      out.push({ name, addr, size, isFunction: type === STT_FUNC, limit: symbolLimit(addr, size, shndx < SHN_LORESERVE ? sections[shndx] : undefined) });
    }
  }
  return out;
}

/** ElfSymbol.limit: how far past its address a symbol may name an address. */
function symbolLimit(addr: number, size: number, section: SectionHeader | undefined): number {
  if (size > 0) return addr + size;
  if (section && section.flags & SHF_ALLOC && addr >= section.addr && addr < section.addr + section.size) return section.addr + section.size;
  return addr + 1;
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

  /**
   * The symbol containing addr: the nearest one at or below it, if addr lies
   * within its size, or (for a label without a size) within its section.
   */
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
    if (sym.limit !== undefined && addr >= sym.limit) return undefined;
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
