// The CPU's WebAssembly fast path (emu/cpu-kernel.wat) against the
// JavaScript loop it speeds up (Cpu.runWords with CpuBusOptions.kernel false):
// random programs that cross between the two at every kind of instruction the
// kernel leaves to the loop or hands to the bus, and every firmware of the
// default board, must give the same registers, clocks, retired count, stop,
// memory and device accesses (with their clocks). The clocks themselves are
// pinned to the RTL by cpu-timing, firmware and the TPU tests, which run the
// fast path.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Machine } from '../boards/machine.ts';
import { Bus } from '../emu/bus.ts';
import { defaultConfig, type CpuFeatures } from '../emu/config.ts';
import { Cpu, StopReason, TrapKind } from '../emu/cpu.ts';
import { cpuRam } from '../emu/cpu-kernel.ts';
import { CPU_KERNEL, generateWasmModule } from '../scripts/gen-wasm.ts';
import { encode, INSNS } from '../emu/isa.ts';
import { mulberry32 } from './helpers/rng.ts';
import { buildSeedBlob } from '../model/seed-job.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { BASE_DIMS, RANDOM_SEED } from '../study/bench.ts';

const RAM = 8192;
const DATA = 0x1000;
/** Regions of the test bus, by address bits 31:28. */
const DEVICE = 0x1, FAULT = 0x2, YIELD = 0x3;
/** The clock until which the device's status register reads 0. */
const POLL_UNTIL = 5000;

/**
 * Device accesses answer after 0-3 wait clocks (by address), reads with a value of the address
 * and clock; region 2 is no device (a bus error), a store into region 3 asks the CPU to yield.
 * Every access is logged with its clock.
 */
class TestBus extends Bus {
  readonly log: number[] = [];
  constructor() {
    super(defaultConfig().bus, RAM);
  }
  override read(addr: number, clock: number): number {
    this.log.push(0, addr, clock);
    this.fault = addr >>> 28 === FAULT;
    this.wait = this.fault ? 0 : (addr >>> 2) & 3;
    this.repeatUntil = 0;
    if (addr >>> 28 === YIELD) this.yieldCpu = true;
    if (addr === ((DEVICE << 28) | 4)) {
      // A status register: 0 until POLL_UNTIL, a promise to repeat until then (the poll-loop skip).
      this.repeatUntil = clock < POLL_UNTIL ? POLL_UNTIL : 0;
      return clock < POLL_UNTIL ? 0 : 1;
    }
    // A register that reads the same but promises nothing (a read with an effect, as a FIFO's).
    if (addr === ((DEVICE << 28) | 16)) return 7;
    return Math.imul(addr ^ clock, 0x9e3779b1);
  }
  override write(addr: number, value: number, wstrb: number, clock: number): void {
    this.log.push(1, addr, value, wstrb, clock);
    this.fault = addr >>> 28 === FAULT;
    this.wait = this.fault ? 0 : (addr >>> 2) & 3;
    if (addr >>> 28 === YIELD) this.yieldCpu = true;
  }
}

/** The device stores in a TestBus log (entries: 0 addr clock, or 1 addr value wstrb clock). */
function writesOf(log: number[]): number {
  let n = 0;
  for (let i = 0; i < log.length; i += log[i] === 0 ? 3 : 5) if (log[i] === 1) n++;
  return n;
}

const insn = new Map(INSNS.map((d) => [d.name, d]));
const op = (name: string, rd: number, rs1: number, rs2: number, imm: number) => encode(insn.get(name)!, rd, rs1, rs2, imm);

// x5 the data in BRAM, x6 a device, x7 no device, x8 the yielding device, x9 the code (0),
// x28 an instruction word to store into the code (one of two, the other each round: x26 is
// their xor), x29 the loop's count: none written by the body.
const FIXED = new Set([5, 6, 7, 8, 9, 26, 28, 29]);
/** Times a program's body runs: an instruction's first run is the loop's (it decodes the slot), the others the kernel's. */
const ROUNDS = 4;
const EDGES = [0, 1, -1, 2, 3, -2, 31, 32, 0x7fffffff, -0x80000000, 0x8000, 0xffff, -7];

const ALU_I = ['addi', 'slti', 'sltiu', 'xori', 'ori', 'andi', 'slli', 'srli', 'srai'];
const ALU_R = ['add', 'sub', 'sll', 'slt', 'sltu', 'xor', 'srl', 'sra', 'or', 'and'];
const M = ['mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu'];
const BRANCHES = ['beq', 'bne', 'blt', 'bge', 'bltu', 'bgeu'];
const LOADS: [string, number][] = [['lb', 1], ['lbu', 1], ['lh', 2], ['lhu', 2], ['lw', 4]];
const STORES: [string, number][] = [['sb', 1], ['sh', 2], ['sw', 4]];

/** A few RV32C forms, encoded by hand (the spec's CI and CR formats): with them 32-bit instructions land at halfword addresses. */
const compressed = {
  addi: (rd: number, imm: number) => (((imm >> 5) & 1) << 12) | (rd << 7) | ((imm & 31) << 2) | 1,
  mv: (rd: number, rs2: number) => (4 << 13) | (rd << 7) | (rs2 << 2) | 2,
  add: (rd: number, rs2: number) => (4 << 13) | (1 << 12) | (rd << 7) | (rs2 << 2) | 2,
};

/** An instruction of a program: its bits and length, or a branch/jump to a later item (patched at assembly). */
interface Item {
  bits: number;
  len: 2 | 4;
  /** A branch or jump: to the start of item `item` (+2 bytes when odd). */
  to?: { name: string; rd: number; rs1: number; rs2: number; item: number; odd: boolean };
  /** A store of x28 into the code: into the word `ahead` words after this instruction's word (1: the prefetched one on word slots). */
  ahead?: number;
}

/**
 * A random body of `length` instructions, run ROUNDS times, then EBREAK, and the start
 * registers; with `m`, the M extension's instructions too; with `rvc`, compressed ones among
 * them. The kinds that trap (misaligned, a bus error) are rare, so that most programs run to
 * their end. Branches and jumps go forward to an instruction's start (now and then to 2 bytes
 * after it: a misaligned target, or the middle of an instruction).
 */
function program(seed: number, length: number, features: CpuFeatures): { code: number[]; regs: number[] } {
  const rvc = features.COMPRESSED_ISA;
  const m = [...(features.ENABLE_MUL || features.ENABLE_FAST_MUL ? M.slice(0, 4) : []), ...(features.ENABLE_DIV ? M.slice(4) : [])];
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const reg = () => Math.floor(rnd() * 32);
  const dest = () => { for (;;) { const r = 1 + Math.floor(rnd() * 31); if (!FIXED.has(r)) return r; } };
  const regs = Array.from({ length: 32 }, () => (rnd() < 0.5 ? pick(EDGES) : Math.floor(rnd() * 2 ** 32) | 0));
  regs[0] = 0; regs[5] = DATA; regs[6] = DEVICE << 28; regs[7] = FAULT << 28; regs[8] = YIELD << 28; regs[9] = 0;
  regs[28] = op('addi', 10, 10, 0, 1); regs[26] = regs[28] ^ op('addi', 10, 10, 0, 2); regs[29] = ROUNDS;
  const items: Item[] = [];
  const put = (bits: number) => items.push({ bits, len: 4 });
  const jump = (name: string, rd: number, rs1: number, rs2: number) =>
    items.push({ bits: 0, len: 4, to: { name, rd, rs1, rs2, item: items.length + 1 + Math.floor(rnd() * 3), odd: rnd() < 0.01 } });
  while (items.length < length) {
    const i = items.length;
    const x = rnd();
    // A word in the data, now and then misaligned for its size (a trap).
    const offset = (size: number) => 4 * Math.floor(rnd() * 64) + (size > 1 && rnd() < 0.005 ? 1 : 0);
    if (rvc && rnd() < 0.2) {
      const c = rnd();
      items.push({ bits: c < 0.4 ? compressed.addi(dest(), Math.floor(rnd() * 64) - 32) : c < 0.7 ? compressed.mv(dest(), 1 + Math.floor(rnd() * 31)) : compressed.add(dest(), 1 + Math.floor(rnd() * 31)), len: 2 });
    } else if (x < 0.25) put(op(pick(ALU_I), dest(), reg(), 0, Math.floor(rnd() * 4096) - 2048));
    else if (x < 0.5) put(op(pick(m.length > 0 && rnd() < 0.4 ? m : ALU_R), dest(), reg(), reg(), 0));
    else if (x < 0.55) put(op(pick(['lui', 'auipc']), dest(), 0, 0, Math.floor(rnd() * 2 ** 32) | 0));
    else if (x < 0.63) { const [name, size] = pick(LOADS); put(op(name, dest(), 5, 0, offset(size))); }
    else if (x < 0.71) { const [name, size] = pick(STORES); put(op(name, 0, 5, reg(), offset(size))); }
    else if (x < 0.78) { const [name] = pick(STORES); put(op(name, 0, 6, reg(), 4 * Math.floor(rnd() * 8) + Math.floor(rnd() * 4) * (name === 'sb' ? 1 : 0))); }
    else if (x < 0.80) put(op('lw', dest(), 6, 0, 4 * Math.floor(rnd() * 8)));
    else if (x < 0.803) put(op(pick(['sw', 'lw']), dest(), 7, 0, 0));
    else if (x < 0.83) put(rnd() < 0.7 ? op('sw', 0, 8, reg(), 0) : op('lw', dest(), 8, 0, 0));
    else if (x < 0.90) jump(pick(BRANCHES), 0, reg(), reg());
    else if (x < 0.92) jump('jal', dest(), 0, 0);
    else if (x < 0.94 && i + 3 < length) items.push({ bits: 0, len: 4, ahead: 1 + Math.floor(rnd() * 3) });
    else if (x < 0.95) put(op(pick(['rdcycle', 'rdinstret']), dest(), 0, 0, 0));
    else put(op('addi', 0, 0, 0, 0));
  }
  items.push({ bits: op('xor', 28, 28, 26, 0), len: 4 }, { bits: op('addi', 29, 29, 0, -1), len: 4 }, { bits: 0, len: 4 }, { bits: op('ebreak', 0, 0, 0, 0), len: 4 });
  const at: number[] = [];
  let pc = 0;
  for (const it of items) { at.push(pc); pc += it.len; }
  at.push(pc);
  const back = items.length - 2;
  items[back].bits = op('bne', 0, 29, 0, -at[back]);
  const code: number[] = [];
  items.forEach((it, i) => {
    let bits = it.bits;
    if (it.to) bits = op(it.to.name, it.to.rd, it.to.rs1, it.to.rs2, at[Math.min(it.to.item, back)] - at[i] + (it.to.odd ? 2 : 0));
    if (it.ahead) {
      // Only over instructions that start at a word address and fill it (one 32-bit or two
      // compressed), before the loop's tail (else a no-op): the program stays one of whole
      // instructions, and the slots before the word see a new neighbour.
      const target = (at[i] & ~3) + 4 * it.ahead, j = at.indexOf(target);
      const whole = j > i && j < back - 2 && (items[j].len === 4 || items[j + 1].len === 2);
      bits = whole ? op('sw', 0, 9, 28, target) : op('addi', 0, 0, 0, 0);
    }
    if (it.len === 2) code.push(bits & 0xffff); else code.push(bits & 0xffff, (bits >>> 16) & 0xffff);
  });
  return { code, regs };
}

/** Runs a program to its end on a fresh CPU, with or without the kernel: everything it left behind. */
function runProgram(p: { code: number[]; regs: number[] }, features: CpuFeatures, kernel: boolean) {
  const bus = new TestBus();
  const halves = new DataView(bus.bram.buffer);
  p.code.forEach((h, i) => halves.setUint16(2 * i, h, true));
  const cpu = new Cpu(bus, features, { memInterface: features.COMPRESSED_ISA ? 'axi-lite' : 'native', kernel });
  cpu.regs.set(p.regs);
  const stops: number[] = [];
  for (let n = 0; n < 200; n++) {
    // Short budgets now and then: the kernel's limits.
    const reason = cpu.run(cpu.cycle + (n % 3 === 0 ? 7 : 1e6), n % 5 === 0 ? 3 : Infinity);
    stops.push(reason, cpu.pc, cpu.cycle, cpu.instret);
    bus.yieldCpu = false;
    if (reason !== StopReason.LIMIT) break;
  }
  return {
    stops, trap: cpu.trapKind, fault: cpu.faultAddr, stopClock: cpu.stopClock, regs: [...cpu.regs],
    ram: Buffer.from(bus.bram.subarray(0, RAM)).toString('hex'), log: bus.log,
  };
}

const base = defaultConfig().cpu;
/** The configurations with a loop of their own (COMPRESSED_ISA: on AXI-Lite, runSeed; else runWords). */
const configs: [string, CpuFeatures][] = [
  ['picotpu (RV32I, shifts a bit a clock)', { ...base, COMPRESSED_ISA: false }],
  ['word slots with BARREL_SHIFTER, ENABLE_MUL, ENABLE_DIV', { ...base, COMPRESSED_ISA: false, BARREL_SHIFTER: true, ENABLE_MUL: true, ENABLE_FAST_MUL: false, ENABLE_DIV: true }],
  ['word slots with ENABLE_FAST_MUL', { ...base, COMPRESSED_ISA: false, BARREL_SHIFTER: true, ENABLE_MUL: false, ENABLE_FAST_MUL: true, ENABLE_DIV: false }],
  ['transformer-tpu-int4 (RV32IMC with the fast multiplier on AXI-Lite)', { ...base, BARREL_SHIFTER: true, COMPRESSED_ISA: true, ENABLE_MUL: false, ENABLE_FAST_MUL: true, ENABLE_DIV: false }],
  ['RV32IMC on AXI-Lite, shifts a bit a clock, ENABLE_DIV', { ...base, BARREL_SHIFTER: false, COMPRESSED_ISA: true, ENABLE_MUL: true, ENABLE_FAST_MUL: false, ENABLE_DIV: true }],
];

describe('the CPU kernel (WebAssembly) against the JavaScript loop', () => {
  it('runs: a BRAM made by a bus lives in a WebAssembly memory and the default board\'s CPU takes the kernel', () => {
    const bus = new TestBus();
    expect(bus.bram.buffer.byteLength).toBeGreaterThanOrEqual(3 * RAM);
    const cpu = new Cpu(bus, configs[0][1], { memInterface: 'native' });
    expect((cpu as unknown as { kernel: unknown }).kernel).not.toBeNull();
    const off = new Cpu(new TestBus(), configs[0][1], { memInterface: 'native', kernel: false });
    expect((off as unknown as { kernel: unknown }).kernel).toBeNull();
    expect(cpuRam(64).length).toBe(64);
  });

  for (const [name, features] of configs) {
    it(`${name}: 300 random programs of 150 instructions, every register, clock, stop, byte and device access equal`, () => {
      let retired = 0, ends = 0;
      for (let seed = 1; seed <= 300; seed++) {
        const p = program(seed, 150, features);
        const fast = runProgram(p, features, true);
        const plain = runProgram(p, features, false);
        expect(fast, `seed ${seed}`).toEqual(plain);
        retired += fast.stops[fast.stops.length - 1];
        if (fast.trap === TrapKind.EBREAK) ends++;
      }
      // Most programs run to their EBREAK, through every kind of crossing.
      expect(ends).toBeGreaterThan(150);
      expect(retired).toBeGreaterThan(300 * 150);
    });
  }

  for (const [name, features] of [configs[0], configs[3]]) {
    it(`${name}: a poll loop is skipped as the loop skips it, and not when a device store is in it`, () => {
      const run = (words: number[]) => {
        const p = { code: words.flatMap((w) => [w & 0xffff, w >>> 16]), regs: Array.from({ length: 32 }, (_, i) => (i === 6 ? DEVICE << 28 : 0)) };
        const fast = runProgram(p, features, true);
        expect(fast).toEqual(runProgram(p, features, false));
        return fast;
      };
      // A pure poll loop: its iterations skipped, a few reads reach the bus.
      const pure = run([op('lw', 10, 6, 0, 4), op('addi', 11, 0, 0, 1), op('beq', 0, 10, 0, -8), op('ebreak', 0, 0, 0, 0)]);
      expect(pure.log.length / 3).toBeLessThan(10);
      // With a read that promises nothing: every iteration runs.
      const effect = run([op('lw', 10, 6, 0, 4), op('lw', 11, 6, 0, 16), op('beq', 0, 10, 0, -8), op('ebreak', 0, 0, 0, 0)]);
      expect(effect.log.length / 3).toBeGreaterThan(POLL_UNTIL / 50);
      // With a store: every iteration runs, its read and its store on the bus, up to the clock the read changes.
      const stores = run([op('lw', 10, 6, 0, 4), op('sw', 0, 6, 0, 8), op('beq', 0, 10, 0, -8), op('ebreak', 0, 0, 0, 0)]);
      const writes = writesOf(stores.log), reads = (stores.log.length - 5 * writes) / 3;
      expect(writes).toBe(reads);
      expect(reads).toBeGreaterThan(POLL_UNTIL / 50);
    });
  }

  it('RV32C: a store into the upper half of a 32-bit instruction that straddles into the word is seen (the slots before the word)', () => {
    // 0x02: a JAL at a halfword address, its upper half in the word at 0x04, which the SW at 0x12
    // rewrites each round to the other target: 0x0a (x10 += 1 + 4) or 0x0c (x10 += 4).
    const jalA = op('jal', 0, 0, 0, 8), jalB = op('jal', 0, 0, 0, 10);
    const code = [compressed.addi(0, 0), jalA & 0xffff, jalA >>> 16, compressed.addi(0, 0), compressed.addi(0, 0),
      compressed.addi(10, 1), compressed.addi(10, 4)];
    for (const w of [op('xor', 12, 12, 13, 0), op('sw', 0, 0, 12, 4), op('addi', 29, 29, 0, -1), op('bne', 0, 29, 0, -0x1a), op('ebreak', 0, 0, 0, 0)]) {
      code.push(w & 0xffff, w >>> 16);
    }
    const regs = Array.from({ length: 32 }, () => 0);
    regs[12] = (jalA >>> 16) | (compressed.addi(0, 0) << 16); regs[13] = (jalA ^ jalB) >>> 16; regs[29] = 6;
    const seed = configs[3][1];
    const fast = runProgram({ code, regs }, seed, true);
    expect(fast).toEqual(runProgram({ code, regs }, seed, false));
    // The rounds alternate A, B, A, ... (each round's store switches the next's): 3 × (5 + 4).
    expect(fast.regs[10]).toBe(27);
  });

  it('a difference is seen: the same program with one round less compares unequal', () => {
    const p = program(7, 150, configs[0][1]);
    const fast = runProgram(p, configs[0][1], true);
    const changed = { ...p, regs: p.regs.map((r, i) => (i === 29 ? r - 1 : r)) };
    expect(runProgram(changed, configs[0][1], false)).not.toEqual(fast);
  });

  it('the generated binary is the .wat compiled (npm run gen:wasm)', async () => {
    expect(readFileSync(CPU_KERNEL.ts, 'utf8')).toBe(await generateWasmModule(CPU_KERNEL));
  });
});

const FW = 'build/fw';
const FIRMWARE = ['hello', 'fib', 'sort', 'crc32', 'sramdata', 'cycles', 'printf', 'tpu_matmul', 'tpu_vpu', 'tpu_seq', 'tpu_errors',
  'tpu_tokens', 'tpu_flood', 'tpu_queue_full', 'tpu_port_conflict', 'tpu_sram_share', 'mmbench', 'tpubench'];

describe('the default board\'s firmware with and without the CPU kernel', () => {
  for (const name of FIRMWARE) {
    const path = `${FW}/${name}.elf`;
    it.skipIf(!existsSync(path))(`${name}: the same clocks, instructions, exit, console and SRAM`, () => {
      const run = (cpuKernel: boolean) => {
        const m = new Machine(undefined, { cpuKernel });
        m.loadElf(readFileSync(path));
        m.bus.console.captureOutput();
        const r = m.run(2_000_000_000);
        return { reason: r.reason, exit: r.exit, clocks: r.clocks, instret: r.instret, out: m.bus.console.capturedText(),
          sram: Buffer.from(m.sramBytes).toString('base64') };
      };
      expect(run(true)).toEqual(run(false));
    });
  }
});

/** Counts the reads and the stores that reach the seed TPU's read() and write() (the kernel answers the others itself). */
function countTpuAccesses(m: Machine): () => { reads: number; writes: number } {
  let reads = 0, writes = 0;
  // The bus reads the TPU's MMIO words through readWithPromise() (an aliased address through read()).
  const tpu = m.seed!, read = tpu.read.bind(tpu), readWithPromise = tpu.readWithPromise.bind(tpu), write = tpu.write.bind(tpu);
  tpu.read = (offset: number, clock: number) => { reads++; return read(offset, clock); };
  tpu.readWithPromise = (offset: number, clock: number, out: Float64Array) => { reads++; return readWithPromise(offset, clock, out); };
  tpu.write = (offset: number, value: number, wstrb: number, clock: number) => { writes++; write(offset, value, wstrb, clock); };
  return () => ({ reads, writes });
}

/** What the tools see of the seed TPU's queues (SeedActivity, read from the queues the kernel pushes onto). */
function queueState(m: Machine): unknown {
  return m.activity.units.map((u) => ({ issued: u.issued, fifo: u.fifo.map((c) => ({ ...c })), running: u.running && { ...u.running } }));
}

/** The CPU's poll-loop state after a run: the poll history (which the kernel records too) and the last effect. */
function pollState(m: Machine): unknown {
  const cpu = m.cpu as unknown as { poll: Record<string, ArrayLike<number>>; lastEffect: number };
  return { lastEffect: cpu.lastEffect, ...Object.fromEntries(Object.entries(cpu.poll).map(([k, v]) => [k, Array.from(v)])) };
}

describe('the seed board\'s firmware with and without the CPU kernel (its device window and poll history included)', () => {
  const streams = existsSync('build/seed-streams') ? readdirSync('build/seed-streams').filter((f) => f.endsWith('.elf')).map((f) => `build/seed-streams/${f}`) : [];
  const fw = existsSync(`${FW}/seed`) ? readdirSync(`${FW}/seed`).filter((f) => f.endsWith('.elf')).map((f) => `${FW}/seed/${f}`) : [];
  it.skipIf(streams.length === 0)('needs the seed\'s command streams (make -C test/seed-rtl/streams)', () => {
    expect(streams.length).toBeGreaterThan(20);
  });
  const run = (path: string, cpuKernel: boolean) => {
    const m = new Machine(undefined, { board: 'seed', cpuKernel });
    m.loadElf(readFileSync(path));
    m.activity.records = [];
    const r = m.run(20_000_000), tpu = m.seed!;
    return { reason: r.reason, exit: r.exit, clocks: r.clocks, instret: r.instret, counters: r.seedCounters, hazards: tpu.hazards.length,
      sram: Buffer.from(m.sramBytes).toString('base64'), spad: Buffer.from(tpu.spad).toString('base64'), loop: pollState(m),
      records: m.activity.records, queues: queueState(m) };
  };
  for (const path of [...streams, ...fw]) {
    it(`${path}: the same clocks, instructions, stop, counters, scratchpad and SRAM`, () => {
      expect(run(path, true)).toEqual(run(path, false));
    });
  }
  it.skipIf(streams.length === 0)('straight-line code run once: decoded ahead, so the kernel returns to the loop rarely, not at every new instruction', () => {
    const m = new Machine(undefined, { board: 'seed' });
    m.loadElf(readFileSync('build/seed-streams/rand_00.elf'));
    const cpu = m.cpu as unknown as { kernelRun: (...a: number[]) => number };
    const run = cpu.kernelRun;
    let calls = 0;
    cpu.kernelRun = (...a: number[]) => { calls++; return run(...a); };
    const r = m.run(20_000_000);
    expect(r.reason).toBe('exit');
    // rand_00 is unrolled pushes and polls: about 16 thousand instructions, most of them run once.
    expect(r.instret).toBeGreaterThan(10_000);
    expect(calls).toBeLessThan(r.instret / 100);
  });
  it.skipIf(!existsSync(`${FW}/seed-model.elf`))('our transformer on the seed board: the same run, with most status reads and commit stores answered by the kernel', () => {
    const model = randomModel(BASE_DIMS, RANDOM_SEED);
    const job = { prompt: randomPrompt(BASE_DIMS, 8, RANDOM_SEED), decodeSteps: 8, variant: 1 };
    const { bytes } = buildSeedBlob(model, job);
    const runJob = (cpuKernel: boolean) => {
      const m = new Machine(undefined, { board: 'seed', cpuKernel });
      m.loadElf(readFileSync(`${FW}/seed-model.elf`));
      m.loadSram(bytes, 0);
      m.activity.records = [];
      const accesses = countTpuAccesses(m);
      const r = m.run(200_000_000);
      return {
        out: { reason: r.reason, clocks: r.clocks, instret: r.instret, counters: r.seedCounters, sram: Buffer.from(m.sramBytes).toString('base64'), loop: pollState(m), records: m.activity.records },
        accesses: accesses(),
      };
    };
    const fast = runJob(true), plain = runJob(false);
    expect(fast.out).toEqual(plain.out);
    expect(fast.out.reason).toBe('exit');
    expect(fast.out.records!.length).toBeGreaterThan(1000);
    expect(fast.accesses.reads).toBeLessThan(0.6 * plain.accesses.reads);
    // Every store to the TPU is a command port's: the kernel latches words 0-2 and pushes word 3 (the queue not full).
    expect(fast.accesses.writes).toBeLessThan(0.1 * plain.accesses.writes);
  });
});
