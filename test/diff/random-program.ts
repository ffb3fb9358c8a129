// Random RV32I(M) instruction sequences for differential testing against
// qemu-riscv32, and the two harnesses that run them.
//
// Everything is drawn from a seeded PRNG, so a sequence is reproducible from
// its seed alone. A sequence is straight-line code with forward branches and
// jumps over small blocks; it can neither loop nor trap:
//   - loads and stores go to a 4 KiB data buffer through DATA_REG (x3), which
//     holds the buffer's address + 2048 so that every 12-bit offset lands in
//     it, or
//     through a register computed as (rs & mask) + x3, always aligned;
//   - the only jalr is `auipc rA, 0; jalr rd, off(rA)`, a forward skip;
//   - no ecall/ebreak/counters, nothing timing- or platform-dependent.
// LINK_REG (x4) holds the harness's return address and is never read or
// written by a sequence; x3 is read but never written.
//
// The buffer is either in BRAM (DATA) or at the top of the external SRAM
// (DATA_SRAM, up to its last byte), where picotpu's loads and stores take the
// bus path. Both harnesses run the sequence's code at the same address (SEQ)
// with the buffer at the same address, so pc-relative results (auipc, link
// values) are identical. The code bytes come from one ELF built for qemu:
// its runner copies each sequence to SEQ, runs it, and writes the data buffer
// and x0..x31 to stdout; picotpu runs the same bytes from BRAM.

export const LAYOUT = {
  /** qemu: one RWX anonymous mapping at a fixed address, covering SEQ..STATE. */
  MAP_BASE: 0x1000,
  MAP_SIZE: 0x9000,
  /** Where a sequence's code runs (both harnesses). */
  SEQ: 0x1000,
  SEQ_LIMIT: 0x8000,
  /** The data buffer (4 KiB) in BRAM... */
  DATA: 0x8000,
  /** ...or at the top of the SRAM window (qemu: a second mapping). */
  DATA_SRAM: 0x4007_f000,
  DATA_SIZE: 0x1000,
  /** qemu runner: x0..x31 after the sequence. */
  REC: 0x9000,
  /** qemu runner: its own state while a sequence runs. */
  STATE: 0x9100,
} as const;

export const DATA_REG = 3;
export const LINK_REG = 4;
/** `jalr x0, 0(x4)`: appended to every sequence by both harnesses. */
export const TAIL_WORD = (LINK_REG << 15) | 0x67;
/** What the qemu runner prints per sequence: the data buffer, then x0..x31 (little-endian). */
export const RECORD_BYTES = LAYOUT.DATA_SIZE + 32 * 4;
/** Bytes of one descriptor in the qemu runner's table: seed, start, end, buffer, 32 initial registers. */
const DESC_BYTES = (4 + 32) * 4;

/** Registers a sequence may write: all but x3 and x4 (x0 included: writes to it must vanish). */
export const WRITABLE = Array.from({ length: 32 }, (_, k) => k).filter((k) => k !== DATA_REG && k !== LINK_REG);
const WRITABLE_NZ = WRITABLE.filter((k) => k !== 0);
/** Registers a sequence may read. */
const READABLE = [...WRITABLE, DATA_REG];

/** mulberry32: small, fast, good enough, and the same everywhere. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** 0..n-1 */
  int(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
  chance(p: number): boolean {
    return this.next() / 4294967296 < p;
  }
}

/** The data buffer's initial contents: xorshift32 from a non-zero seed, word by word (the runner does the same). */
export function dataFill(seed: number): Uint8Array {
  const out = new Uint8Array(LAYOUT.DATA_SIZE);
  const dv = new DataView(out.buffer);
  let x = seed >>> 0;
  for (let off = 0; off < out.length; off += 4) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    dv.setUint32(off, x, true);
  }
  return out;
}

export interface Sequence {
  /** Index within its batch: names its labels. */
  id: number;
  seed: number;
  /** Seed of the data buffer's fill (non-zero). */
  dataSeed: number;
  /** Address of the data buffer (LAYOUT.DATA or LAYOUT.DATA_SRAM). */
  dataBase: number;
  /** x0..x31 before the sequence; x3 = dataBase + 2048 (x0 and x4 are the harness's). */
  init: Int32Array;
  /** Assembly lines: instructions and local labels. */
  lines: string[];
  /** Instructions in `lines` (executed or skipped). */
  insns: number;
  /** Assembled with RVC enabled: gas compresses every instruction that has a 16-bit form. */
  rvc: boolean;
}

export interface GenOptions {
  /** About this many instructions. */
  length?: number;
  /** Draw M-extension instructions too. */
  mul?: boolean;
  /** Address of the data buffer; default LAYOUT.DATA. */
  dataBase?: number;
  /** Assemble with `.option rvc` (RV32C; the sequence is padded to a word with c.nop). */
  rvc?: boolean;
}

const INT_MIN = 0x8000_0000 | 0;
const SPECIAL = [0, 1, -1, 2, -2, INT_MIN, 0x7fffffff, INT_MIN + 1, 0x7ff, 0x800, -2048, -2049, 0xffff, 0x10000, 31, 32, 33];

function randomValue(rng: Rng): number {
  switch (rng.int(8)) {
    case 0: case 1: return rng.pick(SPECIAL) | 0;
    case 2: return rng.int(129) - 64;
    case 3: { const b = 1 << rng.int(32); return rng.chance(0.5) ? b : ~b; }
    default: return rng.next() | 0;
  }
}

function imm12(rng: Rng): number {
  switch (rng.int(5)) {
    case 0: return rng.pick([-2048, -2047, -1, 0, 1, 2046, 2047]);
    case 1: return rng.int(33) - 16;
    default: return rng.int(4096) - 2048;
  }
}

const R_OPS = ['add', 'sub', 'sll', 'slt', 'sltu', 'xor', 'srl', 'sra', 'or', 'and'];
const M_OPS = ['mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu'];
const I_OPS = ['addi', 'slti', 'sltiu', 'xori', 'ori', 'andi'];
const SHIFT_I_OPS = ['slli', 'srli', 'srai'];
const LOADS: [op: string, width: number][] = [['lb', 1], ['lbu', 1], ['lh', 2], ['lhu', 2], ['lw', 4]];
const STORES: [op: string, width: number][] = [['sb', 1], ['sh', 2], ['sw', 4]];
const BRANCHES = ['beq', 'bne', 'blt', 'bge', 'bltu', 'bgeu'];

/** Every mnemonic the generator can emit (for coverage checks). */
export const MNEMONICS = {
  base: [...R_OPS, ...I_OPS, ...SHIFT_I_OPS, 'lui', 'auipc', ...LOADS.map((l) => l[0]), ...STORES.map((s) => s[0]),
    ...BRANCHES, 'jal', 'jalr', 'fence'],
  mul: M_OPS,
};

class Gen {
  readonly lines: string[] = [];
  insns = 0;
  private labels = 0;
  constructor(private readonly rng: Rng, private readonly id: number, private readonly mul: boolean, private readonly rvc = false) {}

  private rd(): string {
    return `x${this.rng.chance(0.04) ? 0 : this.rng.pick(WRITABLE_NZ)}`;
  }
  private rs(): string {
    return `x${this.rng.chance(0.05) ? 0 : this.rng.pick(READABLE)}`;
  }
  private emit(line: string): void {
    this.lines.push(line);
    this.insns++;
  }
  private label(): string {
    return `.Ls${this.id}_${this.labels++}`;
  }

  /**
   * An instruction in a shape gas compresses (rd = rs1, x8..x15, small
   * immediates: c.addi, c.li, c.lui, c.mv, c.add, c.sub/xor/or/and, c.andi,
   * c.srli/srai/slli), so that RVC sequences are really mixed code.
   */
  private compressible(): void {
    const rng = this.rng;
    const p = () => `x${8 + rng.int(8)}`;
    const rd = p();
    const imm6 = () => rng.int(64) - 32;
    const shamt = 1 + rng.int(31);
    switch (rng.int(10)) {
      case 0: this.emit(`addi ${rd}, ${rd}, ${imm6() || 1}`); break;
      case 1: this.emit(`addi ${rd}, x0, ${imm6()}`); break;
      case 2: this.emit(`lui ${rd}, ${rng.chance(0.5) ? 1 + rng.int(31) : 0xfffe0 + rng.int(32)}`); break;
      case 3: this.emit(`add ${rd}, x0, ${this.rs() === 'x0' ? p() : p()}`); break;
      case 4: this.emit(`add ${rd}, ${rd}, ${p()}`); break;
      case 5: this.emit(`${rng.pick(['sub', 'xor', 'or', 'and'])} ${rd}, ${rd}, ${p()}`); break;
      case 6: this.emit(`andi ${rd}, ${rd}, ${imm6()}`); break;
      case 7: this.emit(`${rng.pick(['srli', 'srai'])} ${rd}, ${rd}, ${shamt}`); break;
      case 8: this.emit(`slli ${rd}, ${rd}, ${shamt}`); break;
      default: this.emit(`add ${rd}, ${rd}, ${rd}`); break;
    }
  }

  /** One instruction that is exactly one word (with RVC: one parcel) and never changes control flow. */
  simple(): void {
    const rng = this.rng;
    if (this.rvc && rng.chance(0.4)) { this.compressible(); return; }
    const r = rng.int(100);
    if (this.mul && r < 12) this.emit(`${rng.pick(M_OPS)} ${this.rd()}, ${this.rs()}, ${this.rs()}`);
    else if (r < 34) this.emit(`${rng.pick(R_OPS)} ${this.rd()}, ${this.rs()}, ${this.rs()}`);
    else if (r < 56) this.emit(`${rng.pick(I_OPS)} ${this.rd()}, ${this.rs()}, ${imm12(rng)}`);
    else if (r < 65) this.emit(`${rng.pick(SHIFT_I_OPS)} ${this.rd()}, ${this.rs()}, ${rng.chance(0.3) ? rng.pick([0, 1, 31]) : rng.int(32)}`);
    else if (r < 69) this.emit(`lui ${this.rd()}, ${rng.chance(0.2) ? rng.pick([0, 0x80000, 0xfffff, 1]) : rng.int(0x100000)}`);
    else if (r < 72) this.emit(`auipc ${this.rd()}, ${rng.chance(0.3) ? rng.pick([0, 0x80000, 0xfffff, 1]) : rng.int(0x100000)}`);
    else if (r < 86) {
      const [op, w] = rng.pick(LOADS);
      this.emit(`${op} ${this.rd()}, ${this.offset(w)}(x${DATA_REG})`);
    } else if (r < 99) {
      const [op, w] = rng.pick(STORES);
      this.emit(`${op} ${this.rs()}, ${this.offset(w)}(x${DATA_REG})`);
    } else this.emit('fence');
  }

  /** A `w`-aligned offset from DATA_REG inside the buffer. */
  private offset(w: number): number {
    const rng = this.rng;
    if (rng.chance(0.15)) return rng.pick([-2048, 0, 2048 - w]);
    return (rng.int(4096) - 2048) & ~(w - 1);
  }

  /** An item: a simple instruction, or a construct around smaller items. */
  item(depth: number): void {
    const rng = this.rng;
    const r = rng.int(100);
    if (r < 80 || depth >= 3) return this.simple();
    if (r < 86) {
      // Register-indexed access: t = (rs & mask) + x3 is in [DATA + 2048, DATA + 4095], offset in [-2048, 0].
      const loads = rng.chance(0.5);
      const [op, w] = loads ? rng.pick(LOADS) : rng.pick(STORES);
      const t = `x${rng.pick(WRITABLE_NZ)}`;
      this.emit(`andi ${t}, ${this.rs()}, ${0x7ff & ~(w - 1)}`);
      this.emit(`add ${t}, ${t}, x${DATA_REG}`);
      const off = -(rng.int(2049) & ~(w - 1));
      this.emit(loads ? `${op} ${this.rd()}, ${off}(${t})` : `${op} ${this.rs()}, ${off}(${t})`);
    } else if (r < 94) {
      // A forward branch over a small block (maybe nested).
      const l = this.label();
      const a = this.rs();
      const b = rng.chance(0.15) ? a : this.rs();
      this.emit(`${rng.pick(BRANCHES)} ${a}, ${b}, ${l}`);
      this.block(depth + 1);
      this.lines.push(`${l}:`);
    } else if (r < 97) {
      // jal over a block that never runs.
      const l = this.label();
      this.emit(`jal ${this.rd()}, ${l}`);
      this.block(depth + 1);
      this.lines.push(`${l}:`);
    } else {
      // The safe jalr: skip k single-word instructions; an odd offset checks that bit 0 is cleared.
      const k = rng.int(4);
      const a = `x${rng.pick(WRITABLE_NZ)}`;
      this.emit(`auipc ${a}, 0`);
      this.emit(`jalr ${this.rd()}, ${8 + 4 * k + (rng.chance(0.3) ? 1 : 0)}(${a})`);
      // With RVC the skipped words must stay 32-bit, or the offset would miss.
      if (this.rvc) this.lines.push('.option push', '.option norvc');
      for (let j = 0; j < k; j++) this.simple();
      if (this.rvc) this.lines.push('.option pop');
    }
  }

  private block(depth: number): void {
    const n = 1 + this.rng.int(6);
    for (let j = 0; j < n; j++) this.item(depth);
  }
}

export function generateSequence(id: number, seed: number, opts: GenOptions = {}): Sequence {
  const length = opts.length ?? 200;
  const rng = new Rng(seed);
  const init = new Int32Array(32);
  for (const k of WRITABLE_NZ) init[k] = randomValue(rng);
  const dataBase = opts.dataBase ?? LAYOUT.DATA;
  init[DATA_REG] = dataBase + 2048;
  const dataSeed = (rng.next() | 1) >>> 0;
  const g = new Gen(rng, id, !!opts.mul, !!opts.rvc);
  while (g.insns < length) g.item(0);
  return { id, seed, dataSeed, dataBase, init, lines: g.lines, insns: g.insns, rvc: !!opts.rvc };
}

/** mmap2(addr, size, RWX, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0), or exit 3. */
function mapFixed(addr: number, size: number): string[] {
  return [
    `  li a0, ${addr}`, `  li a1, ${size}`, '  li a2, 7', '  li a3, 0x32', '  li a4, -1', '  li a5, 0', '  li a7, 222', '  ecall',
    `  li t0, ${addr}`, '  bne a0, t0, .Lfail',
  ];
}

/** write(1, a1, a2) until all is written, or exit 3. */
function writeAll(label: string): string[] {
  return [
    `${label}:`,
    '  li a0, 1', '  li a7, 64', '  ecall', '  blez a0, .Lfail', '  add a1, a1, a0', '  sub a2, a2, a0', `  bnez a2, ${label}`,
  ];
}

/**
 * The qemu-riscv32 program (Linux ABI, static) for a batch: a runner that maps
 * SEQ..STATE and the SRAM buffer (RWX, fixed) once, then for each sequence
 * fills its data buffer, copies its code to SEQ with TAIL_WORD after it, loads
 * the initial registers, calls it through x4, stores x0..x31 at REC and writes
 * the buffer, then the registers, to stdout (write, a7 = 64). Exits 0 (a7 =
 * 93), or 3 if a system call fails. Each sequence's code sits between the
 * symbols seq<id> and seq<id>_end.
 */
export function qemuProgram(seqs: readonly Sequence[]): string {
  const L = LAYOUT;
  const out: string[] = [
    '  .option norelax',
    '  .text',
    '  .globl _start',
    '_start:',
    ...mapFixed(L.MAP_BASE, L.MAP_SIZE),
    ...mapFixed(L.DATA_SRAM, L.DATA_SIZE),
    '  la s0, descs',
    '.Lloop:',
    '  la t0, descs_end', '  beq s0, t0, .Ldone',
    `  li t0, ${L.STATE}`, '  sw s0, 0(t0)',
    // Fill the data buffer (xorshift32; see dataFill).
    '  lw t1, 0(s0)', '  lw t2, 12(s0)', `  li t3, ${L.DATA_SIZE}`, '  add t3, t3, t2',
    '.Lfill:',
    '  slli t4, t1, 13', '  xor t1, t1, t4', '  srli t4, t1, 17', '  xor t1, t1, t4', '  slli t4, t1, 5', '  xor t1, t1, t4',
    '  sw t1, 0(t2)', '  addi t2, t2, 4', '  bne t2, t3, .Lfill',
    // Copy the code to SEQ and append the return.
    '  lw t1, 4(s0)', '  lw t2, 8(s0)', `  li t3, ${L.SEQ}`,
    '.Lcopy:',
    '  beq t1, t2, .Lcopied', '  lw t4, 0(t1)', '  sw t4, 0(t3)', '  addi t1, t1, 4', '  addi t3, t3, 4', '  j .Lcopy',
    '.Lcopied:',
    `  li t4, ${TAIL_WORD}`, '  sw t4, 0(t3)',
    // Initial registers through x4, which is then loaded with the entry.
    `  addi x${LINK_REG}, s0, 16`,
  ];
  for (let k = 1; k < 32; k++) if (k !== LINK_REG) out.push(`  lw x${k}, ${4 * k}(x${LINK_REG})`);
  out.push(`  li x${LINK_REG}, ${L.SEQ}`, `  jalr x${LINK_REG}, 0(x${LINK_REG})`);
  out.push(`  li x${LINK_REG}, ${L.REC}`);
  for (let k = 0; k < 32; k++) out.push(`  sw x${k === LINK_REG ? 0 : k}, ${4 * k}(x${LINK_REG})`);
  out.push(
    `  li t0, ${L.STATE}`, '  lw s0, 0(t0)',
    '  lw a1, 12(s0)', `  li a2, ${L.DATA_SIZE}`, ...writeAll('.Lwrite_data'),
    `  li a1, ${L.REC}`, '  li a2, 128', ...writeAll('.Lwrite_regs'),
    `  li t0, ${L.STATE}`, '  lw s0, 0(t0)', `  addi s0, s0, ${DESC_BYTES}`, '  j .Lloop',
    '.Ldone:', '  li a0, 0', '  li a7, 93', '  ecall',
    '.Lfail:', '  li a0, 3', '  li a7, 93', '  ecall',
  );
  for (const s of seqs) {
    const body = s.lines.map((l) => (l.endsWith(':') ? l : `  ${l}`));
    if (s.rvc) out.push('  .balign 4', '  .option push', '  .option rvc', `seq${s.id}:`, ...body, '  .balign 4', `seq${s.id}_end:`, '  .option pop');
    else out.push('  .balign 4', `seq${s.id}:`, ...body, `seq${s.id}_end:`);
  }
  out.push('  .section .rodata', '  .balign 4', 'descs:');
  for (const s of seqs) {
    out.push(`  .word ${s.dataSeed}, seq${s.id}, seq${s.id}_end, ${s.dataBase}`);
    out.push(`  .word ${Array.from(s.init).join(', ')}`);
  }
  out.push('descs_end:', '');
  return out.join('\n');
}

/**
 * The picotpu harness, linked at 0: calls SEQ through x4 (where the host has
 * put a sequence's code and TAIL_WORD), then writes EXIT. The host sets the
 * other registers and the data buffer before the run.
 */
export function picotpuHarness(): string {
  return [
    '  .option norelax',
    '  .text',
    '  .globl _start',
    '_start:',
    `  li x${LINK_REG}, ${LAYOUT.SEQ}`,
    `  jalr x${LINK_REG}, 0(x${LINK_REG})`,
    '__exit:',
    `  lui x${LINK_REG}, 0x10000`,
    `  sw x0, 8(x${LINK_REG})`,
    '',
  ].join('\n');
}
