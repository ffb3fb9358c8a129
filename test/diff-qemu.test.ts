// Differential testing against a real peer: random RV32I (and RV32IM)
// instruction sequences run on qemu-riscv32 and on picotpu, and every register
// and every byte of the data buffer must agree. See test/diff/random-program.ts
// for what a sequence may contain and how the two harnesses run it.
//
// The build is one assembler run for all sequences and one qemu process; the
// code bytes picotpu runs are taken from that same ELF, so both execute the
// identical words at the identical address.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import elfTools from 'elf-tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeStop } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { defaultConfig, type CpuFeatures } from '../emu/config.ts';
import { SRAM_BASE } from '../periph/sram.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { skipWhenMissing } from './helpers/require.ts';
import {
  dataFill, generateSequence, LAYOUT, LINK_REG, MNEMONICS, picotpuHarness, qemuProgram, RECORD_BYTES,
  type Sequence, TAIL_WORD,
} from './diff/random-program.ts';

const QEMU = 'qemu-riscv32';

function hasQemu(): boolean {
  const r = spawnSync(QEMU, ['--version'], { stdio: 'ignore' });
  return r.status === 0;
}

// CI installs it, so there a missing peer is a failure, not a skip (the toolchain is the global setup's).
const qemuMissing = skipWhenMissing(hasQemu(), 'diff-qemu.test.ts', `${QEMU} (qemu-user)`, 'install: bash toolchain/ensure-toolchain.sh --with-test-tools');

interface Batch {
  name: string;
  /** Sequence ids (label names) start here. */
  firstId: number;
  count: number;
  length: number;
  seed: number;
  mul: boolean;
  /** Where sequence k's data buffer is. */
  dataBase: (k: number) => number;
  /** picotpu configurations to run every sequence under. */
  cpus: Partial<CpuFeatures>[];
  /** Assemble with RVC: gas compresses what it can (mixed 16/32-bit code, halfword pcs). */
  rvc?: boolean;
}

const BATCHES: Batch[] = [
  {
    name: 'RV32I, data buffer in BRAM', firstId: 0, count: 400, length: 200, seed: 0x5eed_0001, mul: false,
    dataBase: () => LAYOUT.DATA, cpus: [{}, { BARREL_SHIFTER: true }],
  },
  {
    name: 'RV32I, data buffer at the top of SRAM', firstId: 10_000, count: 200, length: 200, seed: 0x5eed_0002, mul: false,
    dataBase: () => LAYOUT.DATA_SRAM, cpus: [{}, { ENABLE_REGS_DUALPORT: false }],
  },
  {
    name: 'RV32IM, data buffer in BRAM or SRAM', firstId: 20_000, count: 150, length: 200, seed: 0x5eed_0003, mul: true,
    dataBase: (k) => (k % 2 ? LAYOUT.DATA_SRAM : LAYOUT.DATA),
    cpus: [{ ENABLE_MUL: true, ENABLE_DIV: true }, { ENABLE_FAST_MUL: true, ENABLE_DIV: true }],
  },
  {
    name: 'RV32IMC (COMPRESSED_ISA), data buffer in BRAM or SRAM', firstId: 30_000, count: 200, length: 200, seed: 0x5eed_0004, mul: true,
    rvc: true, dataBase: (k) => (k % 3 ? LAYOUT.DATA : LAYOUT.DATA_SRAM),
    cpus: [
      { COMPRESSED_ISA: true, ENABLE_MUL: true, ENABLE_DIV: true },
      { COMPRESSED_ISA: true, BARREL_SHIFTER: true, ENABLE_FAST_MUL: true, ENABLE_DIV: true, ENABLE_REGS_DUALPORT: false },
    ],
  },
];

function batchSequences(b: Batch): Sequence[] {
  return Array.from({ length: b.count }, (_, k) =>
    generateSequence(b.firstId + k, (b.seed + Math.imul(k, 0x9e3779b9)) >>> 0,
      { length: b.length, mul: b.mul, dataBase: b.dataBase(k), rvc: b.rvc }));
}

// --- the ELF the qemu runner is built into --------------------------------

interface Image {
  symbols: Map<string, number>;
  bytes(addr: number, len: number): Uint8Array;
  /** p_vaddr - p_offset of each PT_LOAD, for the page-congruence check. */
  loads: { vaddr: number; offset: number }[];
}

function readImage(elf: Uint8Array): Image {
  const buf = Buffer.from(elf.buffer, elf.byteOffset, elf.byteLength);
  const parsed = elfTools.parse(buf);
  const symbols = new Map<string, number>();
  for (const sec of parsed.sections) {
    if (sec.header.type !== 'symtab') continue;
    const str = parsed.sections[sec.header.link].data;
    for (let off = 16; off + 16 <= sec.data.length; off += 16) {
      const nameOff = sec.data.readUInt32LE(off);
      const end = str.indexOf(0, nameOff);
      symbols.set(str.toString('latin1', nameOff, end), sec.data.readUInt32LE(off + 4));
    }
  }
  const loads = parsed.programs.filter((p) => p.header.type === 'load');
  return {
    symbols,
    loads: loads.map((p) => ({ vaddr: p.header.vaddr, offset: p.header.offset })),
    bytes(addr, len) {
      const p = loads.find((q) => addr >= q.header.vaddr && addr + len <= q.header.vaddr + q.header.filesz);
      if (!p) throw new Error(`0x${addr.toString(16)}+${len} is in no loaded segment`);
      return new Uint8Array(p.data.subarray(addr - p.header.vaddr, addr - p.header.vaddr + len));
    },
  };
}

/**
 * Assembles the qemu program. qemu-user maps segments with mmap, so a
 * segment's address and file offset must agree modulo the page size; the
 * snippet linker places the segment right after the headers, so link it at
 * 0x10000 plus that offset.
 */
function buildQemuElf(src: string): Uint8Array {
  let linkAt = 0x10000 + 0x74;
  for (let attempt = 0; attempt < 2; attempt++) {
    const elf = assemble(src, { march: 'rv32im', linkAt });
    const bad = readImage(elf).loads.find((l) => (l.vaddr - l.offset) % 4096 !== 0);
    if (!bad) return elf;
    linkAt = 0x10000 + (bad.offset % 4096);
  }
  throw new Error('could not link the qemu program with page-congruent segments');
}

function runQemu(elf: Uint8Array, records: number): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'picotpu-diff-'));
  try {
    const path = join(dir, 'diff.elf');
    writeFileSync(path, elf);
    chmodSync(path, 0o755); // qemu-user refuses a file without execute permission
    const r = spawnSync(QEMU, [path], { maxBuffer: 1 << 30, timeout: 60_000 });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`${QEMU} exited with ${r.status ?? r.signal}: ${r.stderr.toString()}`);
    if (r.stdout.length !== records * RECORD_BYTES) {
      throw new Error(`${QEMU} printed ${r.stdout.length} bytes, expected ${records} records of ${RECORD_BYTES}`);
    }
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- the picotpu side -------------------------------------------------------

interface Outcome {
  regs: Int32Array;
  data: Uint8Array;
}

function runPicotpu(harness: Uint8Array, code: Uint8Array, s: Sequence, cpu: Partial<CpuFeatures>): Outcome {
  const cfg = defaultConfig();
  Object.assign(cfg.cpu, cpu);
  const m = new Machine(cfg);
  m.loadElf(harness);
  const bram = m.bus.bram;
  if (LAYOUT.SEQ + code.length + 4 > LAYOUT.SEQ_LIMIT) throw new Error(`sequence ${s.id} is too long`);
  bram.set(code, LAYOUT.SEQ);
  new DataView(bram.buffer).setUint32(LAYOUT.SEQ + code.length, TAIL_WORD, true);
  const inSram = s.dataBase >= SRAM_BASE;
  const mem = inSram ? m.sramBytes : bram;
  const off = inSram ? s.dataBase - SRAM_BASE : s.dataBase;
  mem.set(dataFill(s.dataSeed), off);
  m.cpu.invalidateAll();
  for (let k = 1; k < 32; k++) if (k !== LINK_REG) m.cpu.regs[k] = s.init[k];
  const r = m.run(10_000_000);
  if (r.reason !== 'exit') throw new Error(`sequence ${s.id} (seed 0x${s.seed.toString(16)}): ${describeStop(r)}`);
  return { regs: Int32Array.from(m.cpu.regs), data: mem.slice(off, off + LAYOUT.DATA_SIZE) };
}

function qemuOutcome(out: Buffer, index: number): Outcome {
  const rec = out.subarray(index * RECORD_BYTES, (index + 1) * RECORD_BYTES);
  const regs = new Int32Array(32);
  for (let k = 0; k < 32; k++) regs[k] = rec.readInt32LE(LAYOUT.DATA_SIZE + 4 * k);
  return { regs, data: new Uint8Array(rec.subarray(0, LAYOUT.DATA_SIZE)) };
}

const hex = (v: number) => '0x' + (v >>> 0).toString(16).padStart(8, '0');

/** Differences between qemu and picotpu, as lines ('' when they agree). */
function compareOutcomes(q: Outcome, p: Outcome, dataBase: number): string[] {
  const diffs: string[] = [];
  for (let k = 0; k < 32; k++) {
    if (k === LINK_REG) continue; // the harnesses' return addresses differ by design
    if (q.regs[k] !== p.regs[k]) diffs.push(`x${k}: qemu ${hex(q.regs[k])}, picotpu ${hex(p.regs[k])}`);
  }
  let bad = 0, first = -1;
  for (let k = 0; k < q.data.length; k++) if (q.data[k] !== p.data[k]) { bad++; if (first < 0) first = k; }
  if (bad) {
    const w = first & ~3;
    const word = (d: Uint8Array) => hex(d[w] | (d[w + 1] << 8) | (d[w + 2] << 16) | (d[w + 3] << 24));
    diffs.push(`data: ${bad} bytes differ, first at 0x${(dataBase + first).toString(16)} (word: qemu ${word(q.data)}, picotpu ${word(p.data)})`);
  }
  return diffs;
}

// ---------------------------------------------------------------------------

describe.skipIf(qemuMissing)('differential: picotpu against qemu-riscv32', () => {
  const seqs = BATCHES.map(batchSequences);
  const all = seqs.flat();
  let image: Image;
  let qemuOut: Buffer;
  let harness: Uint8Array;

  beforeAll(() => {
    const elf = buildQemuElf(qemuProgram(all));
    image = readImage(elf);
    qemuOut = runQemu(elf, all.length);
    harness = assemble(picotpuHarness(), { linkAt: 0 });
  });

  const codeOf = (s: Sequence) => {
    const start = image.symbols.get(`seq${s.id}`), end = image.symbols.get(`seq${s.id}_end`);
    if (start === undefined || end === undefined) throw new Error(`no symbols for sequence ${s.id}`);
    return image.bytes(start, end - start);
  };

  BATCHES.forEach((b, bi) => {
    it(`${b.name}: ${b.count} random sequences of ~${b.length} instructions agree with qemu (registers and data buffer)`, () => {
      const failures: string[] = [];
      let index = bi === 0 ? 0 : seqs.slice(0, bi).reduce((n, s) => n + s.length, 0);
      for (const s of seqs[bi]) {
        const q = qemuOutcome(qemuOut, index++);
        const code = codeOf(s);
        for (const cpu of b.cpus) {
          const diffs = compareOutcomes(q, runPicotpu(harness, code, s, cpu), s.dataBase);
          if (diffs.length) {
            failures.push(`sequence ${s.id} (generateSequence(${s.id}, 0x${s.seed.toString(16)}, { length: ${b.length}, mul: ${b.mul} }), cpu ${JSON.stringify(cpu)}):\n    ${diffs.join('\n    ')}`);
          }
        }
      }
      expect(failures.slice(0, 10).join('\n'), `${failures.length} of ${b.count * b.cpus.length} runs differ`).toBe('');
    });
  });

  it('the RVC sequences really are mixed compressed and 32-bit code', () => {
    let parcels = 0, compressed = 0;
    for (const s of all.filter((x) => x.rvc)) {
      const code = codeOf(s);
      for (let at = 0; at < code.length;) {
        parcels++;
        if ((code[at] & 3) !== 3) { compressed++; at += 2; } else at += 4;
      }
    }
    expect(compressed / parcels).toBeGreaterThan(0.2);
    expect(compressed / parcels).toBeLessThan(0.9);
  });

  it('the sequences cover every instruction the generator knows', () => {
    const seen = new Map<string, number>();
    for (const s of all) for (const l of s.lines) {
      const op = l.split(' ')[0];
      if (!op.endsWith(':')) seen.set(op, (seen.get(op) ?? 0) + 1);
    }
    for (const op of [...MNEMONICS.base, ...MNEMONICS.mul]) expect(seen.get(op) ?? 0, op).toBeGreaterThanOrEqual(20);
    const total = all.reduce((n, s) => n + s.insns, 0);
    expect(total).toBeGreaterThanOrEqual(all.length * 200);
  });

  it('the qemu run really executed the sequences (registers and buffers changed)', () => {
    let changedRegs = 0, changedData = 0;
    all.forEach((s, i) => {
      const q = qemuOutcome(qemuOut, i);
      for (let k = 5; k < 32; k++) if (q.regs[k] !== s.init[k]) changedRegs++;
      if (Buffer.compare(Buffer.from(q.data), Buffer.from(dataFill(s.dataSeed))) !== 0) changedData++;
    });
    expect(changedRegs).toBeGreaterThan(all.length * 10);
    expect(changedData).toBe(all.length);
  });

  it('the comparison notices a single differing register or byte', () => {
    const s = seqs[0][0];
    const q = qemuOutcome(qemuOut, 0);
    const p = runPicotpu(harness, codeOf(s), s, {});
    expect(compareOutcomes(q, p, s.dataBase)).toEqual([]);
    p.regs[17] ^= 1 << 31;
    p.data[4095] ^= 1;
    expect(compareOutcomes(q, p, s.dataBase)).toEqual([expect.stringMatching(/^x17: /), expect.stringMatching(/^data: 1 bytes differ, first at 0x8fff/)]);
  });
});

describe('random program generator', () => {
  it('is deterministic in its seed', () => {
    const a = generateSequence(1, 1234), b = generateSequence(1, 1234), c = generateSequence(1, 1235);
    expect(a.lines).toEqual(b.lines);
    expect(Array.from(a.init)).toEqual(Array.from(b.init));
    expect(a.lines).not.toEqual(c.lines);
  });

  it('never writes x3/x4 nor reads x4, and keeps data accesses on the buffer base or an indexed register', () => {
    const bad: string[] = [];
    for (let k = 0; k < 200; k++) {
      const s = generateSequence(k, 77 + k, { mul: k % 2 === 1, dataBase: k % 3 ? LAYOUT.DATA : LAYOUT.DATA_SRAM });
      s.lines.forEach((l, i) => {
        if (l.endsWith(':')) return;
        const [op, ...rest] = l.split(/[ ,()]+/).filter(Boolean);
        const regs = rest.filter((t) => /^x\d+$/.test(t));
        if (regs.includes('x4')) bad.push(`uses x4: ${l}`);
        const writesRd = !/^(s[bhw]|b\w+|fence)$/.test(op);
        if (writesRd && regs[0] === 'x3') bad.push(`writes x3: ${l}`);
        // Data accesses: off(x3), or off(t) right after `add t, t, x3`.
        if (/^[ls][bhw]u?$/.test(op) && regs[regs.length - 1] !== 'x3') {
          const prev = s.lines[i - 1] ?? '';
          const t = regs[regs.length - 1];
          if (prev !== `add ${t}, ${t}, x3`) bad.push(`unsafe access: ${l} after ${prev}`);
        }
      });
    }
    expect(bad.slice(0, 10)).toEqual([]);
  });
});
