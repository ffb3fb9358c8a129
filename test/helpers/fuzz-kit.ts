// Building blocks of the fuzz suite (test/fuzz.test.ts): a few RV32I
// encoders, a minimal ELF32 writer, guest programs that drive the TPU from
// its registers, and the seed / budget settings every fuzz class shares.

import { CONSOLE_BASE } from '../../emu/console.ts';
import { TPU_BASE } from '../../boards/picotpu/bus.ts';
import { GLOBAL, UNIT_REG, UNITS } from '../../periph/regs.ts';

// ---- settings ----

/**
 * FUZZ_SEED=n reproduces a campaign. Without it, CI (the CI variable set) runs
 * one fixed campaign, `ciSeed`, so a red CI is reproducible and never flaky;
 * a developer's run draws a seed at random (each class prints it).
 */
export function fuzzSeed(ciSeed = 20261207): number {
  const env = process.env.FUZZ_SEED;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isSafeInteger(n)) throw new Error(`FUZZ_SEED must be an integer, got ${env}`);
    return n | 0;
  }
  if (process.env.CI) return ciSeed | 0;
  return (Math.random() * 2 ** 31) | 0;
}

/** FUZZ_SCALE=k multiplies every class's case count and time budget (the long campaign: 10). */
export function fuzzScale(): number {
  const n = Number(process.env.FUZZ_SCALE ?? 1);
  if (!(n > 0)) throw new Error(`FUZZ_SCALE must be a positive number, got ${process.env.FUZZ_SCALE}`);
  return n;
}

// ---- RV32I encoders ----

const I = (imm: number, rs1: number, f3: number, rd: number, op: number) =>
  (((imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op) >>> 0;
const S = (imm: number, rs2: number, rs1: number, f3: number, op: number) =>
  ((((imm >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((imm & 31) << 7) | op) >>> 0;

export const rv = {
  addi: (rd: number, rs1: number, imm: number) => I(imm, rs1, 0, rd, 0x13),
  lui: (rd: number, imm20: number) => (((imm20 & 0xfffff) << 12) | (rd << 7) | 0x37) >>> 0,
  lw: (rd: number, rs1: number, imm: number) => I(imm, rs1, 2, rd, 0x03),
  sw: (rs2: number, rs1: number, imm: number) => S(imm, rs2, rs1, 2, 0x23),
  /** bne rs1, rs2, offset (bytes, even, ±4 KiB). */
  bne: (rs1: number, rs2: number, off: number) =>
    ((((off >> 12) & 1) << 31) | (((off >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) | (1 << 12)
      | (((off >> 1) & 0xf) << 8) | (((off >> 11) & 1) << 7) | 0x63) >>> 0,
  /** rd = value (lui + addi). */
  li: (rd: number, value: number): number[] => {
    const v = value | 0;
    const hi = ((v + 0x800) >>> 12) & 0xfffff;
    const lo = (v - (hi << 12)) | 0;
    return [rv.lui(rd, hi), rv.addi(rd, rd, lo)];
  },
};

/** `sw x0, EXIT(console)`: the guest exits with 0. */
export const exitZero = (): number[] => [rv.lui(31, CONSOLE_BASE >>> 12), rv.sw(0, 31, 8)];

export const words = (ws: readonly number[]): Uint8Array => {
  const out = new Uint8Array(ws.length * 4);
  const dv = new DataView(out.buffer);
  ws.forEach((w, i) => dv.setUint32(4 * i, w >>> 0, true));
  return out;
};

// ---- a minimal ELF32 (RISC-V, little-endian, executable, no sections) ----

export interface ElfSegmentSpec { vaddr: number; data: Uint8Array; memsz?: number }

export const EHDR = 52, PHDR = 32;
/** Offsets of the ELF header fields the mutations aim at. */
export const EHDR_FIELDS = {
  e_type: [16, 2], e_machine: [18, 2], e_version: [20, 4], e_entry: [24, 4], e_phoff: [28, 4], e_shoff: [32, 4],
  e_flags: [36, 4], e_ehsize: [40, 2], e_phentsize: [42, 2], e_phnum: [44, 2], e_shentsize: [46, 2], e_shnum: [48, 2],
  e_shstrndx: [50, 2],
} as const satisfies Record<string, readonly [number, number]>;
export const PHDR_FIELDS = {
  p_type: [0, 4], p_offset: [4, 4], p_vaddr: [8, 4], p_paddr: [12, 4], p_filesz: [16, 4], p_memsz: [20, 4],
  p_flags: [24, 4], p_align: [28, 4],
} as const satisfies Record<string, readonly [number, number]>;

/** Section names: the null section and .shstrtab (elf-tools wants a section table). */
const SHSTRTAB = new TextEncoder().encode('\0.shstrtab\0');
export const SHDR = 40;

export function buildElf(segments: readonly ElfSegmentSpec[], entry = 0): Uint8Array {
  const dataAt = EHDR + PHDR * segments.length;
  const strAt = dataAt + segments.reduce((n, s) => n + s.data.length, 0);
  const shAt = (strAt + SHSTRTAB.length + 3) & ~3;
  const out = new Uint8Array(shAt + 2 * SHDR);
  const dv = new DataView(out.buffer);
  out.set([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1]); // ELFCLASS32, little-endian, EV_CURRENT
  dv.setUint16(16, 2, true); // ET_EXEC
  dv.setUint16(18, 243, true); // EM_RISCV
  dv.setUint32(20, 1, true);
  dv.setUint32(24, entry, true);
  dv.setUint32(28, EHDR, true);
  dv.setUint32(32, shAt, true);
  dv.setUint16(40, EHDR, true);
  dv.setUint16(42, PHDR, true);
  dv.setUint16(44, segments.length, true);
  dv.setUint16(46, SHDR, true);
  dv.setUint16(48, 2, true);
  dv.setUint16(50, 1, true);
  let at = dataAt;
  segments.forEach((s, i) => {
    const ph = EHDR + PHDR * i;
    dv.setUint32(ph, 1, true); // PT_LOAD
    dv.setUint32(ph + 4, at, true);
    dv.setUint32(ph + 8, s.vaddr, true);
    dv.setUint32(ph + 12, s.vaddr, true);
    dv.setUint32(ph + 16, s.data.length, true);
    dv.setUint32(ph + 20, s.memsz ?? s.data.length, true);
    dv.setUint32(ph + 24, 7, true);
    dv.setUint32(ph + 28, 4, true);
    out.set(s.data, at);
    at += s.data.length;
  });
  out.set(SHSTRTAB, strAt);
  const sh = shAt + SHDR; // section 1: .shstrtab (section 0 stays all zero)
  dv.setUint32(sh, 1, true); // sh_name
  dv.setUint32(sh + 4, 3, true); // SHT_STRTAB
  dv.setUint32(sh + 16, strAt, true);
  dv.setUint32(sh + 20, SHSTRTAB.length, true);
  dv.setUint32(sh + 32, 1, true);
  return out;
}

/** Writes an unsigned little-endian field of `width` bytes (2 or 4). */
export function setField(bytes: Uint8Array, offset: number, width: number, value: number): void {
  if (offset + width > bytes.length) return;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (width === 2) dv.setUint16(offset, value & 0xffff, true);
  else dv.setUint32(offset, value >>> 0, true);
}

// ---- guest programs that drive the TPU ----

export interface GuestCommand {
  unit: number;
  /** ARG0..ARG5 (ARG5: the wait token). */
  args: number[];
  /** The PUSH value (opcode | flags << 8 | anything). */
  push: number;
  /** Registers read after the PUSH (offsets in the TPU block). */
  reads: number[];
}

const TPU_REG = 30; // x30 holds TPU_BASE

/**
 * A guest that stages and pushes `cmds` through the TPU's registers, reads
 * what each asks, then waits until every unit's DONE equals its ISSUED and
 * exits 0. It never touches the scratchpad or the SRAM itself.
 */
export function tpuGuest(cmds: readonly GuestCommand[]): number[] {
  const code: number[] = [rv.lui(TPU_REG, TPU_BASE >>> 12)];
  for (const c of cmds) {
    const base = UNITS[c.unit].base;
    c.args.forEach((a, i) => code.push(...rv.li(5, a), rv.sw(5, TPU_REG, base + UNIT_REG.ARG0 + 4 * i)));
    code.push(...rv.li(5, c.push), rv.sw(5, TPU_REG, base + UNIT_REG.PUSH));
    for (const r of c.reads) code.push(rv.lw(6, TPU_REG, r));
  }
  for (const u of UNITS) {
    // loop: lw x6, ISSUED; lw x7, DONE; bne x6, x7, loop
    code.push(rv.lw(6, TPU_REG, u.base + UNIT_REG.ISSUED), rv.lw(7, TPU_REG, u.base + UNIT_REG.DONE), rv.bne(6, 7, -8));
  }
  code.push(rv.lw(6, TPU_REG, GLOBAL.ERROR), ...exitZero());
  return code;
}

/** Registers a guest may read between pushes (any of them, readable or not). */
export const READABLE_TPU_REGS: readonly number[] = [
  GLOBAL.ID, GLOBAL.CONFIG, GLOBAL.ERROR, GLOBAL.CYCLES_LO, GLOBAL.STALL, GLOBAL.DEP_WAIT,
  ...UNITS.flatMap((u) => [u.base + UNIT_REG.STATUS, u.base + UNIT_REG.ISSUED, u.base + UNIT_REG.DONE]),
];

// ---- the GDB remote serial protocol ----

export function rspChecksum(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) sum = (sum + payload.charCodeAt(i)) & 0xff;
  return sum.toString(16).padStart(2, '0');
}

export const rspFrame = (payload: string): string => `$${payload}#${rspChecksum(payload)}`;
