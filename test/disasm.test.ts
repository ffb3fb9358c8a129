// emu/disasm.ts against GNU objdump, word for word: every instruction of every
// firmware ELF the project builds (the executable sections of build/fw/*.elf),
// and thousands of generated encodings of every form in the ISA table, written
// into an ELF with symbols and disassembled by objdump -d. Mnemonic, operands
// and the `<sym+0x..>` of branch and jump targets must be the same; only
// whitespace and objdump's trailing `# address` comments are ignored.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { disassemble, objdumpNamer } from '../emu/disasm.ts';
import { parseElf } from '../emu/elf.ts';
import { INSNS, matchInsn, type InsnDef } from '../emu/isa.ts';
import { assemble, tool } from '../toolchain/toolchain.ts';
import { mulberry32 } from './helpers/rng.ts';


const FW = 'build/fw';
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-disasm-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Whitespace collapsed, objdump's `# 10000 <__stack_top>` address comment dropped. */
function normalize(text: string): string {
  return text.replace(/\s+#.*$/, '').replace(/\s+/g, ' ').trim();
}

interface DumpLine { word: number; text: string }

/** objdump -d of an ELF: address → the word it shows and its disassembly. */
function objdump(path: string): Map<number, DumpLine> {
  const out = execFileSync(tool('objdump'), ['-d', path], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const lines = new Map<number, DumpLine>();
  for (const line of out.split('\n')) {
    const m = /^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$/.exec(line);
    if (!m) continue;
    const [, addr, raw, text] = m as unknown as [string, string, string, string];
    // A 16-bit parcel would mean objdump decoded something other than one 32-bit word.
    const word = /^[0-9a-f]{8}$/.test(raw) ? parseInt(raw, 16) : -1;
    lines.set(parseInt(addr, 16), { word, text });
  }
  return lines;
}

interface Section { name: string; addr: number; bytes: Uint8Array }

/** The SHF_EXECINSTR sections of an ELF32 file (what objdump -d disassembles). */
function executableSections(elf: Uint8Array): Section[] {
  const b = Buffer.from(elf.buffer, elf.byteOffset, elf.byteLength);
  const shoff = b.readUInt32LE(32), shentsize = b.readUInt16LE(46), shnum = b.readUInt16LE(48), shstrndx = b.readUInt16LE(50);
  const sh = (k: number) => {
    const o = shoff + k * shentsize;
    return {
      name: b.readUInt32LE(o), type: b.readUInt32LE(o + 4), flags: b.readUInt32LE(o + 8),
      addr: b.readUInt32LE(o + 12), offset: b.readUInt32LE(o + 16), size: b.readUInt32LE(o + 20),
    };
  };
  const strtab = sh(shstrndx);
  const SHT_PROGBITS = 1, SHF_EXECINSTR = 4;
  const out: Section[] = [];
  for (let k = 0; k < shnum; k++) {
    const s = sh(k);
    if (s.type !== SHT_PROGBITS || !(s.flags & SHF_EXECINSTR) || s.size === 0) continue;
    const nameAt = strtab.offset + s.name;
    const name = b.toString('latin1', nameAt, b.indexOf(0, nameAt));
    out.push({ name, addr: s.addr, bytes: elf.subarray(s.offset, s.offset + s.size) });
  }
  return out;
}

interface Mismatch { addr: string; word: string; ours: string; objdump: string }

/** Disassembles every word of the ELF's executable sections and compares with objdump -d. */
function compareWithObjdump(path: string): { count: number; mismatches: Mismatch[] } {
  const elf = new Uint8Array(readFileSync(path));
  const namer = objdumpNamer(parseElf(elf).symbols.all);
  const dump = objdump(path);
  const mismatches: Mismatch[] = [];
  const seen = new Set<number>();
  let count = 0;
  for (const sec of executableSections(elf)) {
    expect(sec.addr % 4, `${path} ${sec.name} is not word aligned`).toBe(0);
    expect(sec.bytes.length % 4, `${path} ${sec.name} is not whole words`).toBe(0);
    const view = new DataView(sec.bytes.buffer, sec.bytes.byteOffset, sec.bytes.byteLength);
    for (let off = 0; off < sec.bytes.length; off += 4) {
      const addr = sec.addr + off, word = view.getUint32(off, true);
      const ours = disassemble(word, addr, namer);
      const theirs = dump.get(addr);
      seen.add(addr);
      count++;
      const hexAddr = addr.toString(16), hexWord = word.toString(16).padStart(8, '0');
      if (!theirs || theirs.word !== word) {
        mismatches.push({ addr: hexAddr, word: hexWord, ours, objdump: theirs ? `${theirs.text} (as ${theirs.word})` : '(no line)' });
      } else if (normalize(ours) !== normalize(theirs.text)) {
        mismatches.push({ addr: hexAddr, word: hexWord, ours, objdump: theirs.text });
      }
    }
  }
  for (const addr of dump.keys()) {
    if (!seen.has(addr)) mismatches.push({ addr: addr.toString(16), word: '?', ours: '(not in a section)', objdump: dump.get(addr)!.text });
  }
  return { count, mismatches };
}

describe('disassembly of the firmware is objdump -d, word for word', () => {
  // Word by word: the RV32I(M) builds. A compressed build (e_flags EF_RISCV_RVC, such as the
  // write-up's board's seed-model.elf) mixes halfwords in; the compressed encodings are held to
  // objdump by the generated RVC cases below.
  const compressed = (f: string) => (readFileSync(join(FW, f)).readUInt32LE(0x24) & 1) !== 0;
  const elfs = readdirSync(FW).filter((f) => f.endsWith('.elf') && !compressed(f)).sort();
  it('finds the firmware ELFs', () => {
    expect(elfs.length).toBeGreaterThan(10);
  });
  it.each(elfs)('%s', (name) => {
    const { count, mismatches } = compareWithObjdump(join(FW, name));
    expect(count).toBeGreaterThan(10);
    expect(mismatches.slice(0, 20)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// Generated encodings

/** Seeded uint32s, so a failure can be reproduced. */
function rng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => Math.floor(next() * 4294967296);
}

const RD = 31 << 7, RS1 = 31 << 15, RS2 = 31 << 20, IMM12 = 0xfff00000 | 0;
/** Immediates that select pseudo-instructions or sit at the ends of the range. */
const SPECIAL_IMM12 = [0, 1, -1, 255, 2047, -2048, 4, -4];

/**
 * A random word that the ISA table decodes as `def`, with the fields that
 * choose objdump's pseudo-instructions (x0, ra, special immediates) often set.
 */
function randomWord(def: InsnDef, next: () => number): number {
  const p = () => next() / 2 ** 32;
  let w = next() | 0;
  const pick = (mask: number, shift: number) => {
    const r = p();
    if (r < 0.3) w &= ~mask;
    else if (r < 0.4) w = (w & ~mask) | (1 << shift);
  };
  pick(RD, 7);
  pick(RS1, 15);
  pick(RS2, 20);
  if (p() < 0.35) w = (w & ~IMM12) | (SPECIAL_IMM12[next() % SPECIAL_IMM12.length]! << 20);
  if (def.name === 'fence') {
    if (p() < 0.6) w &= ~(0xf0000000 | RS1 | RD); // fm, rs1, rd zero: objdump's fence P,Q
    if (p() < 0.2) w |= 0x0ff00000;
    if (p() < 0.1) w = 0x8330000f;
  }
  return ((w & ~def.mask) | def.match) >>> 0;
}

/**
 * An ELF whose .text holds `words`, with symbols every `every` words (alternately
 * global and local) so branch targets name different symbols. Assembled as nops
 * with the real toolchain (so objdump sees the ISA attribute and the symbols),
 * then the nops are replaced with the words by objcopy --update-section.
 */
function elfWithWords(words: number[], name: string, every = 509, linkAt = 0): string {
  let src = '  .option norelax\n  .text\n  .globl _start\n_start:\n';
  for (let k = 0; k < words.length; k++) {
    if (k > 0 && k % every === 0) src += `${k % 2 ? '  .globl ' : '  .local '}sym_${k}\nsym_${k}:\n`;
    src += '  nop\n';
  }
  const template = join(tmp, `${name}-template.elf`), raw = join(tmp, `${name}.bin`), out = join(tmp, `${name}.elf`);
  writeFileSync(template, assemble(src, { march: 'rv32im', linkAt }));
  const bytes = Buffer.alloc(words.length * 4);
  words.forEach((w, k) => bytes.writeUInt32LE(w >>> 0, k * 4));
  writeFileSync(raw, bytes);
  execFileSync(tool('objcopy'), ['--update-section', `.text=${raw}`, template, out]);
  return out;
}

describe('disassembly of generated encodings is objdump -d, word for word', () => {
  const PER_FORM = 180;
  const SEED = Number(process.env.DISASM_SEED ?? 0x5eed);

  it(`every form of the ISA table, ${PER_FORM} random encodings each (seed ${SEED})`, () => {
    const next = rng(SEED);
    const words: number[] = [];
    for (const def of INSNS) {
      for (let k = 0; k < PER_FORM; k++) {
        const w = randomWord(def, next);
        expect(INSNS[matchInsn(w)], `0x${w.toString(16)}`).toBe(def);
        words.push(w);
      }
    }
    const { count, mismatches } = compareWithObjdump(elfWithWords(words, 'forms'));
    expect(count).toBe(words.length);
    expect(mismatches.slice(0, 30)).toEqual([]);
  });

  it('the pseudo-instruction boundaries, one by one', () => {
    // Fixed words at each alias's edge, so the cases are hit whatever the seed.
    const words = [
      0x00000013, 0x00000093, 0x00100013, 0x00008013, 0x00008093, 0x00108093, // nop, li, mv, add
      0xfff0c093, 0xffe0c093, 0x0ff0f093, 0x0fe0f093, 0x1ff0f093, 0x0010b093, 0x0020b093, 0x0010a093,
      0x40000033, 0x40100033, 0x401080b3, 0x001030b3, 0x0010b0b3, 0x0000b0b3, 0x0000a0b3, 0x001020b3,
      0x0000a033, 0x001080b3, 0x00000063, 0x00001063, 0x00004063, 0x00005063, 0x00105063, 0x00a04063,
      0x00a05063, 0x00006063, 0x00007063, 0x0000006f, 0x000000ef, 0x0000016f, 0x800000ef, 0x7ffff06f,
      0x00008067, 0x00008167, 0x000080e7, 0x004080e7, 0x00408067, 0x00000067, 0xffc08567, 0x000000e7,
      0x0ff0000f, 0x0000000f, 0x0330000f, 0x8330000f, 0x0100000f, 0x0ff0008f, 0x0ff0800f, 0x1ff0000f,
      0x00000073, 0x00100073, 0xc0002573, 0xc0002073, 0xc8002573, 0xc0102573, 0xc8102573, 0xc0202573,
      0xc8202573, 0x12345537, 0xfffff537, 0x00000037, 0x00001517, 0x80000517, 0x80012503, 0x7ff12503,
      0x00a02023, 0xfea12e23, 0x80a10023, 0x01f09093, 0x01f0d093, 0x41f0d093, 0x00009093,
      0x02b50533, 0x02b517b3, 0x02b52533, 0x02b53533, 0x02b54533, 0x02b55533, 0x02b56533, 0x02b57533,
      0xc0001073, // csrrw x0, cycle, x0: objdump's unimp (illegal on PicoRV32)
      0xfe0008e3, 0xfe051ee3, 0x8000006f, // targets below the first symbol: <_start-0x..>
    ];
    // Linked at 0x1000, so that backward targets fall below every symbol and
    // far ones wrap around the address space.
    const { count, mismatches } = compareWithObjdump(elfWithWords(words, 'edges', 16, 0x1000));
    expect(count).toBe(words.length);
    expect(mismatches).toEqual([]);
  });

  it('words PicoRV32 does not execute print as objdump shows an unknown word', () => {
    // Random words on the major opcodes PicoRV32 has, with random function
    // fields: most are illegal. Where objdump does not know the word either,
    // both print `.4byte 0x...`; objdump does know some instructions of other
    // extensions (CSR access, mret, wfi, fence.i, ...), which PicoRV32 traps on.
    const next = rng(0xbad);
    const majors = [0x03, 0x0f, 0x13, 0x23, 0x33, 0x63, 0x67, 0x73];
    const words: number[] = [];
    while (words.length < 4000) {
      const w = ((next() & ~0x7f) | majors[next() % majors.length]!) >>> 0;
      if (matchInsn(w) < 0) words.push(w);
    }
    const path = elfWithWords(words, 'illegal');
    const dump = objdump(path);
    const mismatches: Mismatch[] = [];
    const decodedByObjdump: { word: number; text: string }[] = [];
    words.forEach((w, k) => {
      const theirs = dump.get(k * 4)!;
      const ours = disassemble(w, k * 4);
      expect(ours === 'unimp' || ours.startsWith('.4byte\t0x'), ours).toBe(true);
      if (/^\.4byte\s/.test(theirs.text) || w === 0xc0001073) {
        if (normalize(ours) !== normalize(theirs.text)) {
          mismatches.push({ addr: (k * 4).toString(16), word: w.toString(16), ours, objdump: theirs.text });
        }
      } else {
        decodedByObjdump.push({ word: w, text: theirs.text });
      }
    });
    expect(mismatches.slice(0, 20)).toEqual([]);
    // What objdump decodes and PicoRV32 does not must be outside RV32IM: another
    // extension's instruction, or RV64's shift by 32..63 (shamt bit 5 set).
    const rv32im = new Set(INSNS.map((d) => d.name));
    const rv64Shift = (w: number) => (w & 0x707f) === 0x1013 || (w & 0x707f) === 0x5013;
    const unexpected = decodedByObjdump.filter(({ word, text }) =>
      rv32im.has(text.split('\t')[0]!) && !(rv64Shift(word) && (word & (1 << 25)) !== 0));
    expect(unexpected.map(({ word, text }) => `${word.toString(16)} ${text}`)).toEqual([]);
  });

  it('RV32C (COMPRESSED_ISA): every 16-bit parcel PicoRV32 decodes prints as objdump -d prints it', () => {
    const halves: number[] = [];
    for (let h = 0; h < 0x10000; h++) if ((h & 3) !== 3) halves.push(h);
    const mismatches: string[] = [];
    let decoded = 0, illegal = 0;
    // Two ELFs of 48 KiB each: every parcel in BRAM at its own address.
    for (const [part, chunk] of [halves.slice(0, 24576), halves.slice(24576)].entries()) {
      const src = ['.option rvc', '.section .text', '.globl _start', '_start:', ...chunk.map((h) => `  .insn 2, 0x${h.toString(16)}`)];
      const path = join(tmp, `rvc${part}.elf`);
      writeFileSync(path, assemble(src.join('\n'), { march: 'rv32ic_zicsr' }));
      const namer = objdumpNamer(parseElf(readFileSync(path)).symbols.all);
      const out = execFileSync(tool('objdump'), ['-d', path], { encoding: 'utf8', maxBuffer: 1 << 28 });
      for (const line of out.split('\n')) {
        const m = /^\s*([0-9a-f]+):\t([0-9a-f]{4})\s*\t(.*)$/.exec(line);
        if (!m) continue;
        const addr = parseInt(m[1]!, 16), h = parseInt(m[2]!, 16);
        const ours = disassemble(h, addr, namer, true);
        if (ours === 'unimp' || ours.startsWith('.2byte')) { illegal++; continue; } // PicoRV32 does not decode it
        decoded++;
        if (normalize(ours) !== normalize(m[3]!)) mismatches.push(`${h.toString(16)}: ours ${ours} | objdump ${m[3]}`);
      }
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(decoded + illegal).toBe(halves.length);
    expect(decoded).toBeGreaterThan(28000); // the rest: FP, RV64 and reserved forms
  });
});
