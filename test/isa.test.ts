// RV32I (and the optional M extension) as PicoRV32 executes it: one line per
// case, each an assembly snippet that runs on a fresh Machine. Semantics only:
// clock counts live in the timing tests, which are measured on the RTL.
//
// Every snippet is linked at 0 behind `_start:` and followed by a store to EXIT
// through t6 (x31), so the expectations never name t6. Labels in a snippet are
// ELF symbols: `fault:` names the instruction a trap case expects to stop at,
// and an expected value may be a function of the symbol table (link values).

import { describe, expect, it } from 'vitest';
import { describeStop, type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { defaultConfig, type CpuFeatures } from '../emu/config.ts';
import { FIRST_LAUNCH_CLOCK } from '../emu/timing.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { INSNS, matchInsn } from '../emu/isa.ts';
import { mulberry32 } from './helpers/rng.ts';


// ---------------------------------------------------------------------------
// The harness

type Sym = (name: string) => number;
/** An expected register value: a number (compared as 32 bits) or one computed from symbols. */
type Val = number | ((s: Sym) => number);
type Expect = Record<string, Val>;

interface Opts {
  cpu?: Partial<CpuFeatures>;
  march?: string;
  input?: number[];
  /** Runs after loading, before the first instruction (e.g. to preset the counters). */
  before?: (m: Machine) => void;
}

interface Run {
  m: Machine;
  r: RunResult;
  regs: Int32Array;
  sym: Sym;
  out: string;
}

const REG_NAMES = [
  'zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2', 's0', 's1', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5',
  'a6', 'a7', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6',
];
function regIndex(name: string): number {
  const m = /^x(\d+)$/.exec(name);
  const k = m ? Number(m[1]) : REG_NAMES.indexOf(name);
  if (k < 0 || k > 31) throw new Error(`no register ${name}`);
  return k;
}

const hex = (v: number) => '0x' + (v >>> 0).toString(16).padStart(8, '0');

const PROLOGUE = '  .option norelax\n  .text\n  .globl _start\n_start:\n';
const EPILOGUE = '\n__exit:\n  lui t6, 0x10000\n  sw zero, 8(t6)\n';

const elfCache = new Map<string, Uint8Array>();
function build(body: string, march?: string): Uint8Array {
  const src = PROLOGUE + body.replace(/;\s*/g, '\n  ') + EPILOGUE;
  const key = (march ?? '') + '\0' + src;
  let elf = elfCache.get(key);
  if (!elf) {
    elf = assemble(src, march ? { march, linkAt: 0 } : { linkAt: 0 });
    elfCache.set(key, elf);
  }
  return elf;
}

function exec(body: string, opts: Opts = {}): Run {
  const cfg = defaultConfig();
  Object.assign(cfg.cpu, opts.cpu);
  const m = new Machine(cfg);
  m.loadElf(build(body, opts.march));
  m.bus.console.captureOutput();
  if (opts.input) m.bus.console.setInput(Uint8Array.from(opts.input));
  opts.before?.(m);
  const r = m.run(m.cpu.cycle + 1_000_000);
  const sym: Sym = (name) => {
    const s = m.symbols.lookup(name);
    if (!s) throw new Error(`snippet has no label ${name}`);
    return s.addr;
  };
  return { m, r, regs: m.cpu.regs, sym, out: m.bus.console.capturedText() };
}

/** Runs a snippet that must end at the EXIT store, and returns its machine. */
function run(body: string, opts: Opts = {}): Run {
  const x = exec(body, opts);
  expect(x.r.reason, describeStop(x.r)).toBe('exit');
  expect(x.r.pc, 'stopped after the EXIT store of the epilogue').toBe(x.sym('__exit') + 8);
  return x;
}

function checkRegs(x: Run, want: Expect): void {
  const got: Record<string, string> = {};
  const exp: Record<string, string> = {};
  for (const [name, v] of Object.entries(want)) {
    got[name] = hex(x.regs[regIndex(name)]);
    exp[name] = hex(typeof v === 'function' ? v(x.sym) : v);
  }
  expect(got).toEqual(exp);
}

function peek(m: Machine, addr: number, n: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const a = (addr + k) >>> 0;
    out.push(a >= 0x4000_0000 ? m.sramBytes[a - 0x4000_0000] : m.bus.bram[a]);
  }
  return out;
}

function expectTrap(x: Run, reason: 'trap' | 'bus-error', kind: RegExp, pc: number): void {
  expect(x.r.reason, describeStop(x.r)).toBe(reason);
  expect(x.r.trap, 'a trap report').not.toBeNull();
  const t = x.r.trap!;
  expect(t.kind).toMatch(kind);
  expect(hex(t.pc)).toBe(hex(pc));
  expect(hex(x.r.pc)).toBe(hex(pc));
}

type Case = [name: string, body: string, want: Expect];
/** `li a1, A; li a2, B; op a0, a1, a2` (and the sources must survive). */
const rr = (op: string, a: number, b: number, want: number): Case =>
  [`${op} ${hex(a)}, ${hex(b)} = ${hex(want)}`, `li a1, ${a | 0}; li a2, ${b | 0}; ${op} a0, a1, a2`, { a0: want, a1: a, a2: b }];
/** `li a1, A; op a0, a1, IMM`. */
const ri = (op: string, a: number, imm: number, want: number): Case =>
  [`${op} ${hex(a)}, ${imm} = ${hex(want)}`, `li a1, ${a | 0}; ${op} a0, a1, ${imm}`, { a0: want, a1: a }];

const INT_MIN = 0x8000_0000 | 0;
const INT_MAX = 0x7fff_ffff;

// ---------------------------------------------------------------------------

describe('RV32I: register-immediate ALU', () => {
  const cases: Case[] = [
    ri('addi', 0, -1, -1),
    ri('addi', 0, 2047, 2047),
    ri('addi', 0, -2048, -2048),
    ri('addi', INT_MAX, 1, INT_MIN),
    ri('addi', INT_MIN, -1, INT_MAX),
    ri('addi', -1, 1, 0),
    ri('addi', 0x12345678, -0x678, 0x12345000),
    ri('slti', -1, 0, 1),
    ri('slti', 0, -1, 0),
    ri('slti', 0, 0, 0),
    ri('slti', INT_MIN, -2048, 1),
    ri('slti', INT_MAX, 2047, 0),
    ri('slti', -2049, -2048, 1),
    ri('slti', -2048, -2048, 0),
    ri('slti', 4, 5, 1),
    ri('slti', 5, 5, 0),
    ri('sltiu', 0, -1, 1), // the immediate sign-extends to 0xffffffff, then compares unsigned
    ri('sltiu', -1, -1, 0),
    ri('sltiu', -2, -1, 1),
    ri('sltiu', 0, 1, 1), // seqz
    ri('sltiu', 1, 1, 0),
    ri('sltiu', INT_MIN, 2047, 0),
    ri('sltiu', 0x7ff, -2048, 1),
    ri('sltiu', 0xfffff800, -2048, 0),
    ri('sltiu', 0, 0, 0),
    ri('xori', 0x12345678, -1, 0xedcba987), // not
    ri('xori', 0x12345678, 0x7ff, 0x12345187),
    ri('xori', 0x12345678, -2048, 0xedcbae78),
    ri('ori', 0x0f0f0f0f, -2048, 0xffffff0f),
    ri('ori', 0, 0x555, 0x555),
    ri('ori', INT_MIN, 1, 0x80000001),
    ri('andi', -1, -2048, 0xfffff800),
    ri('andi', -1, 2047, 0x7ff),
    ri('andi', 0x12345678, 0xff, 0x78),
    ri('andi', 0x12345678, -16, 0x12345670),
    ri('slli', 1, 0, 1),
    ri('slli', 1, 31, INT_MIN),
    ri('slli', 0x12345678, 4, 0x23456780),
    ri('slli', -1, 31, INT_MIN),
    ri('slli', 0x80000001, 1, 2),
    ri('srli', INT_MIN, 0, INT_MIN),
    ri('srli', INT_MIN, 31, 1),
    ri('srli', -1, 31, 1),
    ri('srli', -1, 1, INT_MAX),
    ri('srli', 0x12345678, 4, 0x01234567),
    ri('srai', INT_MIN, 0, INT_MIN),
    ri('srai', INT_MIN, 1, 0xc0000000),
    ri('srai', INT_MIN, 31, -1),
    ri('srai', -1, 31, -1),
    ri('srai', INT_MAX, 31, 0),
    ri('srai', INT_MAX, 30, 1),
    ri('srai', 0x12345678, 4, 0x01234567),
    ri('srai', 0xf0000000, 4, 0xff000000),
    ['addi rd = rs1', 'li a0, 41; addi a0, a0, 1', { a0: 42 }],
    ['li of a 32-bit constant (lui + addi with a negative low part)', 'li a0, 0x12345fff', { a0: 0x12345fff }],
    ['nop and fence change nothing', 'li a0, 7; nop; fence; fence rw, rw; fence iorw, iorw', { a0: 7 }],
  ];
  it.each(cases)('%s', (_name, body, want) => checkRegs(run(body), want));
});

describe('RV32I: register-register ALU', () => {
  const cases: Case[] = [
    rr('add', INT_MAX, 1, INT_MIN),
    rr('add', -1, -1, -2),
    rr('add', INT_MIN, INT_MIN, 0),
    rr('add', -1, 1, 0),
    rr('add', 0x12345678, 0x87654321, 0x99999999),
    rr('sub', 0, 1, -1),
    rr('sub', INT_MIN, 1, INT_MAX),
    rr('sub', 0, INT_MIN, INT_MIN),
    rr('sub', INT_MAX, -1, INT_MIN),
    rr('sub', 5, 5, 0),
    rr('sub', 1, 2, -1),
    rr('slt', -1, 0, 1),
    rr('slt', 0, -1, 0),
    rr('slt', INT_MIN, INT_MAX, 1),
    rr('slt', INT_MAX, INT_MIN, 0),
    rr('slt', 5, 5, 0),
    rr('slt', -2, -1, 1),
    rr('sltu', -1, 0, 0),
    rr('sltu', 0, -1, 1),
    rr('sltu', INT_MAX, INT_MIN, 1),
    rr('sltu', INT_MIN, INT_MAX, 0),
    rr('sltu', 5, 5, 0),
    rr('sltu', 4, 5, 1),
    rr('xor', 0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0),
    rr('or', 0xff00ff00, 0x0ff00ff0, 0xfff0fff0),
    rr('and', 0xff00ff00, 0x0ff00ff0, 0x0f000f00),
    rr('xor', -1, 0x12345678, 0xedcba987),
    ['snez: sltu rd, zero, rs2 (nonzero)', 'li a2, 7; sltu a0, zero, a2', { a0: 1 }],
    ['snez: sltu rd, zero, rs2 (zero)', 'li a2, 0; sltu a0, zero, a2', { a0: 0 }],
    ['neg: sub rd, zero, rs2', 'li a2, 5; sub a0, zero, a2', { a0: -5 }],
    ['sub rs1 = rs2', 'li a1, 0x1234; sub a0, a1, a1', { a0: 0 }],
    ['add rd = rs1 = rs2', 'li a1, 0x40000001; add a1, a1, a1', { a1: 0x80000002 }],
    ['slt rs1 = rs2', 'li a1, -5; slt a0, a1, a1', { a0: 0 }],
    ['add reads both sources before writing rd = rs2', 'li a1, 3; li a2, 4; add a2, a1, a2', { a2: 7 }],
  ];
  it.each(cases)('%s', (_name, body, want) => checkRegs(run(body), want));
});

describe('RV32I: shifts', () => {
  // Register shifts use only the low 5 bits of rs2.
  const amounts = [0, 1, 4, 31, 32, 33, 63, -1, 0xffffffe0, 0x80000004];
  const low5 = (n: number) => n & 31;
  const cases: Case[] = [];
  for (const n of amounts) {
    cases.push(rr('sll', 0x80000001, n, 0x80000001 << low5(n)));
    cases.push(rr('srl', 0x80000001, n, 0x80000001 >>> low5(n)));
    cases.push(rr('sra', 0x80000001, n, (0x80000001 | 0) >> low5(n)));
  }
  cases.push(
    rr('sll', 0x80000001, 31, INT_MIN),
    rr('srl', 0x80000001, 31, 1),
    rr('sra', 0x80000001, 31, -1),
    rr('sra', 0x80000001, 1, 0xc0000000),
    rr('sra', INT_MAX, 31, 0),
    rr('sra', 0x40000000, 30, 1),
    rr('sra', -1, 5, -1),
    rr('srl', -1, 32, -1),
    rr('sll', 0x12345678, 36, 0x23456780),
    ['sll rd = rs2 (amount read before the write)', 'li a1, 1; li a2, 3; sll a2, a1, a2', { a2: 8 }],
    ['sra rd = rs1 = rs2', 'li a1, 0x80000004; sra a1, a1, a1', { a1: 0xf8000000 }],
  );

  for (const barrel of [false, true]) {
    it.each(cases)(`%s (BARREL_SHIFTER=${+barrel})`, (_name, body, want) =>
      checkRegs(run(body, { cpu: { BARREL_SHIFTER: barrel } }), want));
  }

  // Every shift amount 0..31 of the immediate and register forms, one program per op.
  const SWEEP: [op: string, ref: (a: number, n: number) => number][] = [
    ['slli', (a, n) => a << n], ['srli', (a, n) => a >>> n], ['srai', (a, n) => a >> n],
    ['sll', (a, n) => a << n], ['srl', (a, n) => a >>> n], ['sra', (a, n) => a >> n],
  ];
  for (const value of [0x80000001 | 0, 0x5a5a5a5a, -1]) {
    it.each(SWEEP)(`%s of ${hex(value)} by every amount 0..31`, (op, ref) => {
      const lines = [`li a1, ${value}`, 'li t0, 0x8000'];
      for (let n = 0; n < 32; n++) {
        lines.push(op.endsWith('i') ? `${op} a0, a1, ${n}` : `li a2, ${n + 32 * (n % 3)}; ${op} a0, a1, a2`);
        lines.push(`sw a0, ${4 * n}(t0)`);
      }
      for (const barrel of [false, true]) {
        const x = run(lines.join('; '), { cpu: { BARREL_SHIFTER: barrel } });
        const got = Array.from({ length: 32 }, (_, n) => hex(x.m.cpu.wordAt(0x8000 + 4 * n)));
        const want = Array.from({ length: 32 }, (_, n) => hex(ref(value, n)));
        expect(got).toEqual(want);
      }
    });
  }
});

describe('RV32I: lui and auipc', () => {
  const cases: Case[] = [
    ['lui 0xfffff', 'lui a0, 0xfffff', { a0: 0xfffff000 }],
    ['lui 0x80000', 'lui a0, 0x80000', { a0: INT_MIN }],
    ['lui 0', 'li a0, -1; lui a0, 0', { a0: 0 }],
    ['lui 0x12345', 'lui a0, 0x12345', { a0: 0x12345000 }],
    ['lui clears the low 12 bits', 'li a0, 0xfff; lui a0, 1', { a0: 0x1000 }],
    ['auipc 0 = pc', 'nop; nop; here: auipc a0, 0', { a0: (s) => s('here') }],
    ['auipc 1 = pc + 0x1000', 'nop; here: auipc a0, 1', { a0: (s) => s('here') + 0x1000 }],
    ['auipc 0xfffff = pc - 0x1000 (wraps)', 'nop; here: auipc a0, 0xfffff', { a0: (s) => s('here') - 0x1000 }],
    ['auipc 0x80000 = pc + 0x80000000', 'nop; nop; nop; here: auipc a0, 0x80000', { a0: (s) => s('here') + 0x80000000 }],
    ['la (auipc + addi) forward', 'la a0, there; nop; nop; there: nop', { a0: (s) => s('there') }],
    ['la (auipc + addi) backward', 'back: nop; nop; la a0, back', { a0: (s) => s('back') }],
  ];
  it.each(cases)('%s', (_name, body, want) => checkRegs(run(body), want));
});

describe('RV32I: jal and jalr', () => {
  // Every case: a1 = 1 is skipped, a2 = 5 is at the target.
  const cases: Case[] = [
    ['jal forward links pc+4', 'li a1, 0; site: jal a0, tgt; li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jal backward', 'j 2f; tgt: li a2, 5; j 3f; 2: site: jal ra, tgt; li a1, 1; 3:',
      { ra: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jal with the default rd (ra)', 'li a1, 0; site: jal tgt; li a1, 1; tgt: li a2, 5',
      { ra: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jalr 0(rs1)', 'li a1, 0; la t0, tgt; site: jalr a0, 0(t0); li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5, t0: (s) => s('tgt') }],
    ['jalr positive offset', 'li a1, 0; la t0, tgt-8; site: jalr a0, 8(t0); li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jalr negative offset', 'li a1, 0; la t0, tgt+12; site: jalr a0, -12(t0); li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jalr clears bit 0 of rs1 + imm (odd rs1)', 'li a1, 0; la t0, tgt; addi t0, t0, 1; site: jalr a0, 0(t0); li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jalr clears bit 0 of rs1 + imm (odd imm)', 'li a1, 0; la t0, tgt; site: jalr a0, 1(t0); li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jalr rd = rs1 reads rs1 before linking', 'li a1, 0; la a0, tgt; site: jalr a0, 0(a0); li a1, 1; tgt: li a2, 5',
      { a0: (s) => s('site') + 4, a1: 0, a2: 5 }],
    ['jalr as return (ret)', 'li a1, 0; call fn; j tgt; fn: li a1, 9; ret; tgt: li a2, 5',
      { a1: 9, a2: 5 }],
    ['jr (jalr x0) does not link', 'li a1, 0; la t0, tgt; jr t0; li a1, 1; tgt: li a2, 5', { zero: 0, a1: 0, a2: 5 }],
    ['not-taken branch to a misaligned target does not trap', 'li a2, 0; bne zero, zero, .+10; li a2, 5', { a2: 5 }],
  ];
  it.each(cases)('%s', (_name, body, want) => checkRegs(run(body), want));

  // As on the RTL (docs/hardware.md §1.1): the jump or branch retires, a jump writes its link
  // register, and the trap names the target as the pc.
  const misaligned: [name: string, body: string, at: (s: Sym) => number, links: boolean][] = [
    ['jalr to target + 2', 'la t0, tgt; addi t0, t0, 2; site: jalr ra, 0(t0); nop; tgt: nop; nop', (s) => s('tgt') + 2, true],
    ['jalr to target + 3 (bit 0 cleared, bit 1 still set)', 'la t0, tgt; site: jalr ra, 3(t0); nop; tgt: nop; nop', (s) => s('tgt') + 2, true],
    ['jal to pc + 6', 'site: jal ra, .+6; nop; nop', (s) => s('site') + 6, true],
    ['taken beq to pc + 10', 'site: beq zero, zero, .+10; nop; nop; nop', (s) => s('site') + 10, false],
    ['taken bltu to pc - 2', 'nop; li a1, 1; site: bltu zero, a1, .-2', (s) => s('site') - 2, false],
  ];
  it.each(misaligned)('%s traps at the target', (_name, body, at, links) => {
    const x = exec('li ra, 0x77; ' + body);
    expectTrap(x, 'trap', /misaligned/, at(x.sym));
    expect(x.r.trap!.kind).toMatch(/fetch/);
    checkRegs(x, { ra: links ? (s) => s('site') + 4 : 0x77 });
    // It retired: every instruction up to and including it counts.
    expect(x.r.instret).toBe(x.sym('site') / 4 + 1);
  });
});

describe('RV32I: branches', () => {
  const u = (v: number) => v >>> 0;
  const BR: [op: string, taken: (a: number, b: number) => boolean][] = [
    ['beq', (a, b) => a === b],
    ['bne', (a, b) => a !== b],
    ['blt', (a, b) => a < b],
    ['bge', (a, b) => a >= b],
    ['bltu', (a, b) => u(a) < u(b)],
    ['bgeu', (a, b) => u(a) >= u(b)],
  ];
  const PAIRS: [number, number][] = [
    [0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [-1, -1], [INT_MIN, INT_MAX], [INT_MAX, INT_MIN],
    [INT_MIN, INT_MIN], [INT_MIN, -1], [-1, INT_MIN], [INT_MAX, INT_MAX], [5, 6], [6, 5],
  ];
  const cases: Case[] = [];
  for (const [op, taken] of BR) {
    for (const [a, b] of PAIRS) {
      const t = taken(a, b);
      cases.push([`${op} ${hex(a)}, ${hex(b)}: ${t ? 'taken' : 'not taken'}`,
        `li a1, ${a}; li a2, ${b}; li a0, 0; ${op} a1, a2, 1f; li a0, 1; j 2f; 1: li a0, 2; 2:`,
        { a0: t ? 2 : 1 }]);
    }
    // The same register on both sides, and x0.
    const self = taken(-3, -3);
    cases.push([`${op} a1, a1: ${self ? 'taken' : 'not taken'}`,
      `li a1, -3; li a0, 0; ${op} a1, a1, 1f; li a0, 1; j 2f; 1: li a0, 2; 2:`, { a0: self ? 2 : 1 }]);
    const vsZero = taken(-3, 0);
    cases.push([`${op} a1 (= -3), zero: ${vsZero ? 'taken' : 'not taken'}`,
      `li a1, -3; li a0, 0; ${op} a1, zero, 1f; li a0, 1; j 2f; 1: li a0, 2; 2:`, { a0: vsZero ? 2 : 1 }]);
  }
  cases.push(
    ['backward bne loop runs 5 times', 'li a0, 0; li a1, 5; 1: addi a0, a0, 1; bne a0, a1, 1b', { a0: 5 }],
    ['backward bltu loop counts down to wrap', 'li a0, 3; li a1, 0; 1: addi a1, a1, 1; addi a0, a0, -1; bgeu a0, a1, 1b', { a0: 1, a1: 2 }],
    ['branch far forward (over 1000 instructions)', 'li a0, 1; beq zero, zero, 1f; .rept 1000; li a0, 7; .endr; 1: nop', { a0: 1 }],
  );
  it.each(cases)('%s', (_name, body, want) => checkRegs(run(body), want));
});

describe('RV32I: loads and stores', () => {
  // Each region: a 16-byte area whose last word is the last word of the memory
  // where the memory ends there.
  const REGIONS: [name: string, base: number][] = [
    ['BRAM', 0x8000], ['BRAM top', 0xfff0], ['SRAM', 0x4000_0000], ['SRAM mid', 0x4001_2340], ['SRAM top', 0x4007_fff0],
  ];
  // The word 0x80817f01 at base+12: bytes 01 7f 81 80 (the last byte of memory for the top regions).
  const LOADS: [insn: string, want: number][] = [
    ['lw a0, 12(t0)', 0x80817f01],
    ['lb a0, 12(t0)', 0x01],
    ['lb a0, 13(t0)', 0x7f],
    ['lb a0, 14(t0)', 0xffffff81],
    ['lb a0, 15(t0)', 0xffffff80],
    ['lbu a0, 12(t0)', 0x01],
    ['lbu a0, 14(t0)', 0x81],
    ['lbu a0, 15(t0)', 0x80],
    ['lh a0, 12(t0)', 0x7f01],
    ['lh a0, 14(t0)', 0xffff8081],
    ['lhu a0, 12(t0)', 0x7f01],
    ['lhu a0, 14(t0)', 0x8081],
    ['addi t1, t0, 16; lw a0, -4(t1)', 0x80817f01],
    ['addi t1, t0, 16; lb a0, -1(t1)', 0xffffff80],
    ['addi t1, t0, 16; lhu a0, -2(t1)', 0x8081],
    ['addi t1, t0, 2047; lbu a0, -2032(t1)', 0x80], // base + 2047 - 2032 = base + 15
    ['lw a0, 12(t0); lw a0, 12(t0)', 0x80817f01],
    ['addi a0, t0, 12; lw a0, 0(a0)', 0x80817f01], // rd = rs1
  ];
  const loadCases: [string, string, number, number][] = [];
  for (const [rname, base] of REGIONS) {
    for (const [insn, want] of LOADS) loadCases.push([`${rname}: ${insn}`, insn, base, want]);
  }
  it.each(loadCases)('%s', (_name, insn, base, want) => {
    const x = run(`li t0, ${base}; li t2, 0x80817f01; sw t2, 12(t0); ${insn}`);
    checkRegs(x, { a0: want });
    expect(peek(x.m, base + 12, 4)).toEqual([0x01, 0x7f, 0x81, 0x80]);
  });

  // Stores into the word 0x11223344 at base+12; the expected bytes of base+8..base+15.
  const STORES: [insn: string, bytes: number[]][] = [
    ['sw t2, 12(t0)', [0, 0, 0, 0, 0xaa, 0x56, 0x34, 0x12]],
    ['sb t2, 12(t0)', [0, 0, 0, 0, 0xaa, 0x33, 0x22, 0x11]],
    ['sb t2, 13(t0)', [0, 0, 0, 0, 0x44, 0xaa, 0x22, 0x11]],
    ['sb t2, 14(t0)', [0, 0, 0, 0, 0x44, 0x33, 0xaa, 0x11]],
    ['sb t2, 15(t0)', [0, 0, 0, 0, 0x44, 0x33, 0x22, 0xaa]],
    ['sh t2, 12(t0)', [0, 0, 0, 0, 0xaa, 0x56, 0x22, 0x11]],
    ['sh t2, 14(t0)', [0, 0, 0, 0, 0x44, 0x33, 0xaa, 0x56]],
    ['sw t2, 8(t0)', [0xaa, 0x56, 0x34, 0x12, 0x44, 0x33, 0x22, 0x11]],
    ['sh t2, 10(t0)', [0, 0, 0xaa, 0x56, 0x44, 0x33, 0x22, 0x11]],
    ['sb t2, 11(t0)', [0, 0, 0, 0xaa, 0x44, 0x33, 0x22, 0x11]],
    ['addi t1, t0, 16; sb t2, -1(t1)', [0, 0, 0, 0, 0x44, 0x33, 0x22, 0xaa]],
    ['addi t1, t0, 16; sh t2, -2(t1)', [0, 0, 0, 0, 0x44, 0x33, 0xaa, 0x56]],
    ['addi t1, t0, 16; sw t2, -8(t1)', [0xaa, 0x56, 0x34, 0x12, 0x44, 0x33, 0x22, 0x11]],
    ['sb zero, 13(t0); sh zero, 14(t0)', [0, 0, 0, 0, 0x44, 0, 0, 0]],
  ];
  const storeCases: [string, string, number, number[]][] = [];
  for (const [rname, base] of REGIONS) {
    for (const [insn, bytes] of STORES) storeCases.push([`${rname}: ${insn}`, insn, base, bytes]);
  }
  it.each(storeCases)('%s', (_name, insn, base, bytes) => {
    const x = run(`li t0, ${base}; sw zero, 8(t0); li t1, 0x11223344; sw t1, 12(t0); li t2, 0x123456aa; ${insn}; lw a0, 8(t0); lw a1, 12(t0)`);
    expect(peek(x.m, base + 8, 8)).toEqual(bytes);
    // The bytes around the area are untouched, and a load sees what the store wrote.
    expect(peek(x.m, base + 4, 4)).toEqual([0, 0, 0, 0]);
    const le = (b: number[]) => b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24);
    checkRegs(x, { a0: le(bytes.slice(0, 4)), a1: le(bytes.slice(4)), t2: 0x123456aa });
  });

  it.each([
    ['the last byte of SRAM, 0x4007ffff', 0x4007ffff],
    ['the first byte of SRAM, 0x40000000', 0x40000000],
    ['the last byte of BRAM, 0xffff', 0xffff],
  ] as const)('sb/lb/lbu at %s', (_name, addr) => {
    const x = run(`li t0, ${addr}; li t1, 0x1f2; sb t1, 0(t0); lb a0, 0(t0); lbu a1, 0(t0)`);
    checkRegs(x, { a0: 0xfffffff2, a1: 0xf2 });
    expect(peek(x.m, addr, 1)).toEqual([0xf2]);
  });

  it('an SRAM word stored by the CPU reads back through every width', () => {
    const x = run([
      'li t0, 0x40000100; li t1, 0xfedcba98; sw t1, 0(t0)',
      'lw a0, 0(t0); lh a1, 0(t0); lh a2, 2(t0); lhu a3, 2(t0); lb a4, 1(t0); lbu a5, 3(t0); lb a6, 0(t0)',
    ].join('; '));
    checkRegs(x, { a0: 0xfedcba98, a1: 0xffffba98, a2: 0xfffffedc, a3: 0xfedc, a4: 0xffffffba, a5: 0xfe, a6: 0xffffff98 });
  });

  it('SRAM contents preset by the host are visible to loads', () => {
    const x = run('li t0, 0x40000200; lw a0, 0(t0); lhu a1, 6(t0); lb a2, 5(t0)', {
      before: (m) => m.sramBytes.set([1, 2, 3, 4, 5, 0x86, 7, 8], 0x200),
    });
    checkRegs(x, { a0: 0x04030201, a1: 0x0807, a2: 0xffffff86 });
  });

  // Misaligned accesses trap and write no register, but PicoRV32 still makes the
  // aligned word's bus access first (docs/hardware.md §1.1): a load reads it (and
  // loads nothing), a store writes it with the lanes its wstrb logic picks: a word
  // store all four lanes, a half store the half that address bit 1 selects, with
  // the low half of rs2.
  const MIS: [insn: string, off: number][] = [
    ['lw', 1], ['lw', 2], ['lw', 3], ['lh', 1], ['lh', 3], ['lhu', 1], ['lhu', 3],
    ['sw', 1], ['sw', 2], ['sw', 3], ['sh', 1], ['sh', 3],
  ];
  const misCases: [string, string, number, number][] = [];
  for (const [rname, base] of [['BRAM', 0x8000], ['SRAM', 0x4000_0000]] as const) {
    for (const [insn, off] of MIS) misCases.push([`${rname}: ${insn} at +${off}`, insn, base, off]);
  }
  it.each(misCases)('misaligned %s traps', (_name, insn, base, off) => {
    const isStore = insn.startsWith('s');
    const x = exec([
      `li t0, ${base}; li t1, 0x11223344; sw t1, 0(t0); sw zero, 4(t0)`,
      'li a0, 0x5a5a5a5a; li t2, 0xdeadbeef',
      isStore ? `fault: ${insn} t2, ${off}(t0)` : `fault: ${insn} a0, ${off}(t0)`,
      'li a1, 1',
    ].join('; '));
    expectTrap(x, 'trap', isStore ? /misaligned store/ : /misaligned load/, x.sym('fault'));
    expect(hex(x.r.trap!.addr)).toBe(hex(base + off));
    expect(hex(x.r.trap!.word)).toBe(hex(x.m.cpu.wordAt(x.sym('fault'))));
    expect(x.r.trap!.disasm).toMatch(new RegExp(`^${insn}\\b`));
    checkRegs(x, { a0: 0x5a5a5a5a, a1: 0, t2: 0xdeadbeef });
    const before = [0x44, 0x33, 0x22, 0x11];
    const t2 = [0xef, 0xbe, 0xad, 0xde];
    const word = insn === 'sw' ? t2 // all four lanes
      : insn === 'sh' ? ((off & 2) ? [...before.slice(0, 2), ...t2.slice(0, 2)] : [...t2.slice(0, 2), ...before.slice(2)])
        : before; // loads write nothing
    expect(peek(x.m, base, 8)).toEqual([...word, 0, 0, 0, 0]);
  });

  it('a misaligned load from a device still reads the aligned word: RX gives up a byte', () => {
    const x = exec('li t0, 0x10000000; fault: lw a0, 5(t0); li a1, 1', { input: [0x41, 0x42] });
    expectTrap(x, 'trap', /misaligned load/, x.sym('fault'));
    checkRegs(x, { a0: 0, a1: 0 });
    expect(x.m.bus.console.read(4), 'the next RX byte').toBe(0x42);
  });

  it('a misaligned word store to a device still writes the aligned word: TX prints the low byte', () => {
    const x = exec('li t0, 0x10000000; li t1, 0x21; sw t1, 0(t0); li t1, 0x5a; fault: sw t1, 1(t0); li t1, 0x3f; sw t1, 0(t0)');
    expectTrap(x, 'trap', /misaligned store/, x.sym('fault'));
    expect(x.out).toBe('!Z');
  });
});

describe('RV32I: x0 is never written', () => {
  const setup = 'li a1, 0x12345678; li a2, 3; li t0, 0x8000; li t1, -1; sw t1, 0(t0); li t2, 0x40000000; sw t1, 0(t2)';
  const check = 'add a3, zero, zero; sw zero, 4(t0); lw a4, 4(t0)';
  const WRITERS: [insn: string, opts?: Opts][] = [
    ['lui x0, 0x12345'], ['auipc x0, 0x12345'],
    ['addi x0, a1, 5'], ['slti x0, zero, 5'], ['sltiu x0, zero, 5'], ['xori x0, a1, -1'], ['ori x0, a1, 1'], ['andi x0, a1, -1'],
    ['slli x0, a1, 3'], ['srli x0, a1, 3'], ['srai x0, a1, 3'],
    ['add x0, a1, a2'], ['sub x0, a1, a2'], ['sll x0, a1, a2'], ['slt x0, zero, a2'], ['sltu x0, zero, a2'],
    ['xor x0, a1, a2'], ['srl x0, a1, a2'], ['sra x0, a1, a2'], ['or x0, a1, a2'], ['and x0, a1, a1'],
    ['lb x0, 0(t0)'], ['lh x0, 0(t0)'], ['lw x0, 0(t0)'], ['lbu x0, 0(t0)'], ['lhu x0, 0(t0)'],
    ['lb x0, 0(t2)'], ['lh x0, 0(t2)'], ['lw x0, 0(t2)'], ['lbu x0, 0(t2)'], ['lhu x0, 0(t2)'],
    ['li t3, 0x10000000; lw x0, 4(t3)', { input: [0x41] }],
    ['jal x0, 1f; li a5, 1; 1:'], ['la t3, 1f; jalr x0, 0(t3); li a5, 1; 1:'],
    ['rdcycle x0'], ['rdcycleh x0'], ['rdtime x0'], ['rdtimeh x0'], ['rdinstret x0'], ['rdinstreth x0'],
    ...(['mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu'] as const).map((op): [string, Opts] =>
      [`${op} x0, a1, a2`, { march: 'rv32im', cpu: { ENABLE_MUL: true, ENABLE_DIV: true } }]),
  ];
  it.each(WRITERS)('%s', (insn, opts) => {
    const x = run(`${setup}; li a5, 0; ${insn}; ${check}`, opts ?? {});
    checkRegs(x, { zero: 0, a3: 0, a4: 0, a5: 0, a1: 0x12345678 });
  });
});

describe('RV32I: traps', () => {
  // The core halts on the instruction, reports its pc and word, and retires nothing more.
  const csr = (f3: number, csrNum: number, rs1: number, rd = 10) => (((csrNum << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | 0x73) >>> 0);
  const TRAPS: [name: string, insn: string, kind: RegExp, word: number][] = [
    ['ebreak', 'ebreak', /^ebreak$/, 0x00100073],
    ['ecall', 'ecall', /^ecall$/, 0x00000073],
    ['the zero word', '.word 0', /illegal/, 0],
    ['the all-ones word', '.word 0xffffffff', /illegal/, 0xffffffff],
    ['csrrw a0, mscratch, a1', `.word ${csr(1, 0x340, 11)}`, /illegal/, 0x34059573],
    ['csrrs a0, cycle, a1 (only rs1 = x0 is a counter read)', `.word ${csr(2, 0xc00, 11)}`, /illegal/, csr(2, 0xc00, 11)],
    ['csrrc a0, cycle, x0', `.word ${csr(3, 0xc00, 0)}`, /illegal/, csr(3, 0xc00, 0)],
    ['csrrwi a0, cycle, 0', `.word ${csr(5, 0xc00, 0)}`, /illegal/, csr(5, 0xc00, 0)],
    ['csrrsi a0, cycle, 0', `.word ${csr(6, 0xc00, 0)}`, /illegal/, csr(6, 0xc00, 0)],
    ['csrr a0, mhartid', `.word ${csr(2, 0xf14, 0)}`, /illegal/, csr(2, 0xf14, 0)],
    ['csrr a0, hpmcounter3', `.word ${csr(2, 0xc03, 0)}`, /illegal/, csr(2, 0xc03, 0)],
    ['mret', '.word 0x30200073', /illegal/, 0x30200073],
    ['sret', '.word 0x10200073', /illegal/, 0x10200073],
    ['wfi', '.word 0x10500073', /illegal/, 0x10500073],
    ['ebreak with rd != 0', '.word 0x001000f3', /illegal/, 0x001000f3],
    ['ecall with rs1 != 0', '.word 0x00008073', /illegal/, 0x00008073],
    ['fence.i (no Zifencei)', '.word 0x0000100f', /illegal/, 0x0000100f],
    ['load funct3 3 (ld)', '.word 0x0002b503', /illegal/, 0x0002b503],
    ['load funct3 6 (lwu)', '.word 0x0002e503', /illegal/, 0x0002e503],
    ['load funct3 7', '.word 0x0002f503', /illegal/, 0x0002f503],
    ['store funct3 3 (sd)', '.word 0x00a2b023', /illegal/, 0x00a2b023],
    ['store funct3 4', '.word 0x00a2c023', /illegal/, 0x00a2c023],
    ['branch funct3 2', '.word 0x00002463', /illegal/, 0x00002463],
    ['branch funct3 3', '.word 0x00003463', /illegal/, 0x00003463],
    ['jalr funct3 1', '.word 0x000290e7', /illegal/, 0x000290e7],
    ['add with funct7 0x40', '.word 0x80b50533', /illegal/, 0x80b50533],
    ['sll with funct7 0x20', '.word 0x40b51533', /illegal/, 0x40b51533],
    ['slli with funct7 0x20', '.word 0x40351513', /illegal/, 0x40351513],
    ['slli with shamt[5] set', '.word 0x02051513', /illegal/, 0x02051513],
    ['srai with shamt[5] set', '.word 0x42055513', /illegal/, 0x42055513],
    ['addw (OP-32)', '.word 0x00b5053b', /illegal/, 0x00b5053b],
    ['amoadd.w (AMO)', '.word 0x00b5252f', /illegal/, 0x00b5252f],
    ['flw (LOAD-FP)', '.word 0x0002a507', /illegal/, 0x0002a507],
    ['a compressed-looking word (c.nop pair)', '.word 0x00010001', /illegal/, 0x00010001],
    ['opcode 0x7f', '.word 0x0000007f', /illegal/, 0x0000007f],
  ];
  it.each(TRAPS)('%s traps with its pc and word', (_name, insn, kind, word) => {
    const x = exec(`li a0, 1; li a1, 2; fault: ${insn}; li a0, 99`);
    expectTrap(x, 'trap', kind, x.sym('fault'));
    expect(hex(x.r.trap!.word)).toBe(hex(word));
    expect(x.r.trap!.symbol).toBe('fault');
    checkRegs(x, { a0: 1, a1: 2 });
    expect(x.r.exit).not.toBe(0);
  });
  it('ebreak disassembles as ebreak', () => {
    const x = exec('fault: ebreak');
    expect(x.r.trap!.disasm).toBe('ebreak');
  });
});

describe('M extension (PCPI)', () => {
  const M_OPS = ['mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu'] as const;
  const isMul = (op: string) => op.startsWith('mul');
  const CONFIGS: [name: string, cpu: Partial<CpuFeatures>][] = [
    ['default (no M)', {}],
    ['ENABLE_MUL', { ENABLE_MUL: true }],
    ['ENABLE_FAST_MUL', { ENABLE_FAST_MUL: true }],
    ['ENABLE_DIV', { ENABLE_DIV: true }],
    ['ENABLE_MUL + ENABLE_DIV', { ENABLE_MUL: true, ENABLE_DIV: true }],
  ];
  const gate: [string, (typeof M_OPS)[number], Partial<CpuFeatures>, boolean][] = [];
  for (const [cname, cpu] of CONFIGS) {
    for (const op of M_OPS) {
      const on = isMul(op) ? !!(cpu.ENABLE_MUL || cpu.ENABLE_FAST_MUL) : !!cpu.ENABLE_DIV;
      gate.push([`${cname}: ${op} ${on ? 'computes' : 'is illegal'}`, op, cpu, on]);
    }
  }
  it.each(gate)('%s', (_name, op, cpu, on) => {
    const body = `li a1, 7; li a2, 3; li a0, -1; fault: ${op} a0, a1, a2`;
    const x = exec(body, { march: 'rv32im', cpu });
    if (on) {
      expect(x.r.reason, describeStop(x.r)).toBe('exit');
      const want = { mul: 21, mulh: 0, mulhsu: 0, mulhu: 0, div: 2, divu: 2, rem: 1, remu: 1 }[op];
      checkRegs(x, { a0: want });
    } else {
      expectTrap(x, 'trap', /illegal/, x.sym('fault'));
      expect(hex(x.r.trap!.word)).toBe(hex(x.m.cpu.wordAt(x.sym('fault'))));
      checkRegs(x, { a0: -1 });
    }
  });

  const ALL_M = { march: 'rv32im', cpu: { ENABLE_MUL: true, ENABLE_DIV: true } };
  const EDGES: Case[] = [
    rr('mul', INT_MAX, 2, 0xfffffffe),
    rr('mul', -1, -1, 1),
    rr('mul', INT_MIN, -1, INT_MIN),
    rr('mul', 0x12345678, 0x9abcdef0, 0x242d2080),
    rr('mul', 0x10000, 0x10000, 0),
    rr('mulh', -1, -1, 0),
    rr('mulh', INT_MIN, INT_MIN, 0x40000000),
    rr('mulh', INT_MIN, INT_MAX, 0xc0000000),
    rr('mulh', -1, 1, -1),
    rr('mulh', 2, 3, 0),
    rr('mulh', 0x10000, 0x10000, 1),
    rr('mulhu', -1, -1, 0xfffffffe),
    rr('mulhu', INT_MIN, INT_MIN, 0x40000000),
    rr('mulhu', -1, 2, 1),
    rr('mulhu', 0x12345678, 0x9abcdef0, 0x0b00ea4e),
    rr('mulhsu', -1, -1, -1),
    rr('mulhsu', INT_MIN, -1, INT_MIN),
    rr('mulhsu', 1, -1, 0),
    rr('mulhsu', -2, INT_MIN, -1),
    rr('mulhsu', INT_MAX, -1, 0x7ffffffe),
    rr('div', 7, 2, 3),
    rr('div', -7, 2, -3),
    rr('div', 7, -2, -3),
    rr('div', -7, -2, 3),
    rr('div', 7, 0, -1),
    rr('div', -7, 0, -1),
    rr('div', 0, 0, -1),
    rr('div', INT_MIN, -1, INT_MIN),
    rr('div', INT_MIN, 1, INT_MIN),
    rr('divu', 7, 2, 3),
    rr('divu', -1, 2, INT_MAX),
    rr('divu', 7, 0, 0xffffffff),
    rr('divu', 0, 0, 0xffffffff),
    rr('divu', INT_MIN, -1, 0),
    rr('divu', -1, -1, 1),
    rr('rem', 7, 2, 1),
    rr('rem', -7, 2, -1),
    rr('rem', 7, -2, 1),
    rr('rem', -7, -2, -1),
    rr('rem', 7, 0, 7),
    rr('rem', -7, 0, -7),
    rr('rem', INT_MIN, -1, 0),
    rr('rem', INT_MIN, 0, INT_MIN),
    rr('remu', 7, 2, 1),
    rr('remu', -1, 2, 1),
    rr('remu', -7, 0, -7),
    rr('remu', INT_MIN, -1, INT_MIN),
    rr('remu', 5, 7, 5),
    ['mul rd = rs1', 'li a1, -3; li a2, 5; mul a1, a1, a2', { a1: -15 }],
    ['div rd = rs2', 'li a1, 100; li a2, 7; div a2, a1, a2', { a2: 14 }],
    ['rem rd = rs1 = rs2', 'li a1, -9; rem a1, a1, a1', { a1: 0 }],
  ];
  it.each(EDGES)('%s', (_name, body, want) => checkRegs(run(body, ALL_M), want));
  it.each(EDGES.filter(([n]) => n.startsWith('mul')))('%s (ENABLE_FAST_MUL)', (_name, body, want) =>
    checkRegs(run(body, { march: 'rv32im', cpu: { ENABLE_FAST_MUL: true } }), want));

  // Every pair of a set of awkward values, against a BigInt reference.
  const V = [0, 1, -1, 2, -2, 3, -7, INT_MAX, INT_MIN, 0x12345678, 0x9abcdef0 | 0, 0x00010000, 0xffff, 0x80000001 | 0];
  const s64 = (v: number) => BigInt(v | 0);
  const u64 = (v: number) => BigInt(v >>> 0);
  const lo = (v: bigint) => Number(BigInt.asIntN(32, v));
  const hi = (v: bigint) => Number(BigInt.asIntN(32, v >> 32n));
  const REF: Record<(typeof M_OPS)[number], (a: number, b: number) => number> = {
    mul: (a, b) => lo(s64(a) * s64(b)),
    mulh: (a, b) => hi(s64(a) * s64(b)),
    mulhsu: (a, b) => hi(s64(a) * u64(b)),
    mulhu: (a, b) => hi(u64(a) * u64(b)),
    div: (a, b) => (b === 0 ? -1 : a === INT_MIN && b === -1 ? INT_MIN : lo(s64(a) / s64(b))),
    divu: (a, b) => (b === 0 ? -1 : lo(u64(a) / u64(b))),
    rem: (a, b) => (b === 0 ? a : a === INT_MIN && b === -1 ? 0 : lo(s64(a) % s64(b))),
    remu: (a, b) => (b === 0 ? a : lo(u64(a) % u64(b))),
  };
  it.each(M_OPS.map((op) => [op]))(`%s of every pair of ${V.length} edge values`, (op) => {
    const lines = ['li t0, 0x4000'];
    let off = 0;
    for (const a of V) for (const b of V) {
      lines.push(`li a1, ${a}; li a2, ${b}; ${op} a0, a1, a2; sw a0, ${off}(t0)`);
      off += 4;
    }
    const cpus: Partial<CpuFeatures>[] = isMul(op) ? [{ ENABLE_MUL: true }, { ENABLE_FAST_MUL: true }] : [{ ENABLE_DIV: true }];
    for (const cpu of cpus) {
      const x = run(lines.join('; '), { march: 'rv32im', cpu });
      const got: string[] = [], want: string[] = [];
      let k = 0;
      for (const a of V) for (const b of V) {
        got.push(`${hex(a)} ${op} ${hex(b)} = ${hex(x.m.cpu.wordAt(0x4000 + 4 * k++))}`);
        want.push(`${hex(a)} ${op} ${hex(b)} = ${hex(REF[op](a, b))}`);
      }
      expect(got).toEqual(want);
    }
  });
});

describe('counters: rdcycle, rdtime, rdinstret', () => {
  const u64 = (hiw: number, low: number) => (hiw >>> 0) * 2 ** 32 + (low >>> 0);

  it('rdcycle and rdtime are strictly increasing', () => {
    const x = run('rdcycle a0; rdcycle a1; nop; rdtime a2; li t0, 10; 1: addi t0, t0, -1; bnez t0, 1b; rdcycle a3; rdtime a4; rdcycleh a5; rdtimeh a6');
    const v = [x.regs[10], x.regs[11], x.regs[12], x.regs[13], x.regs[14]].map((r) => r >>> 0);
    for (let k = 1; k < v.length; k++) expect(v[k], `read ${k} after read ${k - 1}`).toBeGreaterThan(v[k - 1]);
    checkRegs(x, { a5: 0, a6: 0 });
  });

  it('rdcycle reads its own launch clock + 1; rdinstret the instructions launched so far, itself included', () => {
    // The first instruction launches at FIRST_LAUNCH_CLOCK (docs/hardware.md §1.2).
    const x = run('rdcycle a0; rdinstret a1; rdinstret a2');
    checkRegs(x, { a0: FIRST_LAUNCH_CLOCK + 1, a1: 2, a2: 3 });
  });

  it('rdinstret counts retired instructions', () => {
    // Between the two reads: the first read, two nops, li, 2 x 5 loop instructions.
    const x = run('rdinstret a0; nop; nop; li t0, 5; 1: addi t0, t0, -1; bnez t0, 1b; rdinstret a1; rdinstreth a2');
    expect(x.regs[11] - x.regs[10]).toBe(1 + 2 + 1 + 10);
    checkRegs(x, { a2: 0 });
  });

  it('rdinstret: a not-taken branch and a jump each count as one', () => {
    const x = run('rdinstret a0; bnez zero, 1f; j 1f; nop; 1: rdinstret a1');
    expect(x.regs[11] - x.regs[10]).toBe(3);
  });

  it('rdcycle[h] is a 64-bit counter: the high half carries when the low half wraps', () => {
    const x = run('rdcycle a0; rdcycleh a1; .rept 40; nop; .endr; rdcycle a2; rdcycleh a3; rdtime a4; rdtimeh a5', {
      before: (m) => { m.cpu.cycle = 2 ** 32 - 60; },
    });
    checkRegs(x, { a1: 0, a3: 1, a5: 1 });
    expect(x.regs[10] >>> 0).toBeGreaterThan(0xffff_ff00);
    expect(x.regs[12] >>> 0).toBeLessThan(0x100);
    expect(u64(x.regs[13], x.regs[12])).toBeGreaterThan(u64(x.regs[11], x.regs[10]));
    expect(u64(x.regs[15], x.regs[14])).toBeGreaterThan(u64(x.regs[13], x.regs[12]));
  });

  it('rdcycleh far from zero', () => {
    const x = run('rdcycleh a0; rdcycle a1; rdcycleh a2', { before: (m) => { m.cpu.cycle = 5 * 2 ** 32 + 1000; } });
    checkRegs(x, { a0: 5, a2: 5 });
    expect(x.regs[11] >>> 0).toBeGreaterThan(1000);
    expect(x.regs[11] >>> 0).toBeLessThan(2000);
  });

  it('rdinstret[h] is a 64-bit counter', () => {
    const x = run('rdinstret a0; rdinstreth a1; nop; nop; nop; nop; rdinstret a2; rdinstreth a3', {
      before: (m) => { m.cpu.instret = 2 ** 32 - 3; },
    });
    checkRegs(x, { a1: 0, a3: 1 });
    expect(u64(x.regs[13], x.regs[12]) - u64(x.regs[11], x.regs[10])).toBe(6);
  });

  it('rdinstreth far from zero', () => {
    const x = run('rdinstreth a0; rdinstret a1', { before: (m) => { m.cpu.instret = 7 * 2 ** 32 + 10; } });
    checkRegs(x, { a0: 7 });
    expect(x.regs[11] >>> 0).toBeGreaterThanOrEqual(10);
    expect(x.regs[11] >>> 0).toBeLessThan(20);
  });
});

describe('bus errors', () => {
  const UNMAPPED = [0x0001_0000, 0x0fff_fffc, 0x1000_000c, 0x1000_0100, 0x3fff_fffc, 0x4008_0000, 0x8000_0000, 0xffff_fffc];
  const OPS = ['lw', 'lh', 'lhu', 'lb', 'lbu', 'sw', 'sh', 'sb'];
  const cases: [string, string, number][] = [];
  for (const addr of UNMAPPED) for (const op of OPS) cases.push([`${op} at ${hex(addr)}`, op, addr]);
  it.each(cases)('%s is a bus error', (_name, op, addr) => {
    const isStore = op.startsWith('s');
    const x = exec(`li t0, ${addr | 0}; li a0, 0x5a5a5a5a; li t1, 0x77; fault: ${op} ${isStore ? 't1' : 'a0'}, 0(t0); li a1, 1`);
    expectTrap(x, 'bus-error', isStore ? /store/ : /load/, x.sym('fault'));
    expect(hex(x.r.trap!.addr)).toBe(hex(addr));
    checkRegs(x, { a0: 0x5a5a5a5a, a1: 0 });
    expect(x.r.exit).not.toBe(0);
    expect(x.r.exit).toBeGreaterThan(127); // not confusable with a firmware EXIT of 0..127
  });

  it.each([0x0001_0000, 0x4000_0000, 0x1000_0000, 0x2000_0000, 0x8000_0000, 0xffff_fffc].map((a) => [hex(a), a] as const))(
    'fetch from %s (outside BRAM) is a bus error at the target', (_name, addr) => {
      const x = exec(`li t0, ${addr | 0}; jr t0`);
      expectTrap(x, 'bus-error', /fetch/, addr);
    });

  it('running off the end of BRAM is a bus error at 0x10000', () => {
    const x = exec('li t0, 0xfffc; li t1, 0x13; sw t1, 0(t0); jr t0'); // a nop in the last word
    expectTrap(x, 'bus-error', /fetch/, 0x1_0000);
  });
});

describe('self-modifying code', () => {
  // `newinsn` is assembled but jumped over; its word is copied over `patch`.
  const cases: Case[] = [
    // PicoRV32 has fetched the word after a store while the store runs (docs/hardware.md §1.2).
    ['a store into the next word is not seen by it: the old, prefetched instruction runs',
      'j 1f; newinsn: addi a0, zero, 42; 1: la t1, newinsn; lw t1, 0(t1); la t0, patch; sw t1, 0(t0); patch: addi a0, zero, 1',
      { a0: 1, t1: 0x02a00513 }],
    ['the old instruction runs only once: the next time round the stored word runs',
      'li s0, 0; li a1, 0; j 1f; newinsn: addi a0, zero, 42; 1: la t1, newinsn; lw t1, 0(t1); la t0, patch; loop: sw t1, 0(t0); patch: addi a0, zero, 1; add a1, a1, a0; bnez s0, done; li s0, 1; j loop; done:',
      { a0: 42, a1: 43 }],
    ['a stored word two words on runs instead of the old one',
      'j 1f; newinsn: addi a0, zero, 42; 1: la t1, newinsn; lw t1, 0(t1); la t0, patch; sw t1, 0(t0); nop; patch: addi a0, zero, 1',
      { a0: 42 }],
    ['an sb into the next word is not seen by it either',
      'la t0, patch; li t1, 0x02; sb t1, 3(t0); patch: addi a0, zero, 1; la t0, patch; lw a1, 0(t0)',
      { a0: 1, a1: 0x02100513 }],
    ['an instruction that already ran is replaced (decoded form dropped)',
      'li s0, 0; li a1, 0; loop: patch: addi a0, zero, 1; add a1, a1, a0; bnez s0, done; li s0, 1; j 1f; newinsn: addi a0, zero, 42; 1: la t1, newinsn; lw t1, 0(t1); la t0, patch; sw t1, 0(t0); j loop; done:',
      { a0: 42, a1: 43 }],
    ['sb into the immediate of an instruction that already ran',
      'li s0, 0; loop: patch: addi a0, zero, 1; bnez s0, done; li s0, 1; la t0, patch; li t1, 0x02; sb t1, 3(t0); j loop; done:',
      { a0: 0x21 }],
    ['sh over the upper half of an instruction',
      'li s0, 0; loop: patch: addi a0, zero, 1; bnez s0, done; li s0, 1; la t0, patch; li t1, 0x7ff0; sh t1, 2(t0); j loop; done:',
      { a0: 0x7ff }],
    ['code written into free BRAM and called',
      'li t0, 0x9000; j 1f; w0: li a0, 77; w1: ret; 1: la t1, w0; lw t2, 0(t1); sw t2, 0(t0); lw t2, 4(t1); sw t2, 4(t0); jalr t0',
      { a0: 77 }],
  ];
  it.each(cases)('%s', (_name, body, want) => checkRegs(run(body), want));
});

describe('console and EXIT', () => {
  it('TX prints the low byte of each store (sw, sh, sb)', () => {
    const x = run("li t0, 0x10000000; li t1, 0x12345648; sw t1, 0(t0); li t1, 0x7769; sh t1, 0(t0); li t1, 33; sb t1, 0(t0); li t1, 10; sw t1, 0(t0)");
    expect(x.out).toBe('Hi!\n');
  });

  it('TX passes every byte value through', () => {
    const x = run('li t0, 0x10000000; li t1, 0; li t2, 256; 1: sw t1, 0(t0); addi t1, t1, 1; bne t1, t2, 1b');
    expect(Buffer.from(x.out, 'latin1')).toEqual(Buffer.from(Array.from({ length: 256 }, (_, k) => k)));
  });

  it('RX returns the input bytes, then 0xFFFFFFFF when empty', () => {
    const x = run('li t0, 0x10000000; lw a0, 4(t0); lw a1, 4(t0); lw a2, 4(t0); lw a3, 4(t0); lw a4, 4(t0)', { input: [0x41, 0x00, 0xff] });
    checkRegs(x, { a0: 0x41, a1: 0, a2: 0xff, a3: -1, a4: -1 });
  });

  it('RX with no input at all is 0xFFFFFFFF', () => {
    checkRegs(run('li t0, 0x10000000; lw a0, 4(t0)'), { a0: -1 });
  });

  it('echo: RX bytes copied to TX until empty', () => {
    const x = run('li t0, 0x10000000; 1: lw t1, 4(t0); bltz t1, 2f; sw t1, 0(t0); j 1b; 2:', { input: [...Buffer.from('echo\xfe\n', 'latin1')] });
    expect(x.out).toBe('echo\xfe\n');
  });

  const EXITS: [number, number][] = [[0, 0], [1, 1], [42, 42], [127, 127], [255, 255], [256, 0], [0x1234, 0x34], [-1, 255], [INT_MIN, 0]];
  it.each(EXITS)('EXIT %i gives exit status %i', (value, status) => {
    const x = exec(`li a0, 0; li t0, 0x10000000; li t1, ${value}; sw t1, 8(t0); li a0, 5; j .`);
    expect(x.r.reason, describeStop(x.r)).toBe('exit');
    expect(x.r.exit).toBe(status);
    expect(x.r.guestExit).toBe(status);
    expect(x.r.trap).toBeNull();
    checkRegs(x, { a0: 0 }); // nothing after the EXIT store runs
  });

  it('EXIT by a byte store', () => {
    const x = exec('li t0, 0x10000000; li t1, 0x3c7; sb t1, 8(t0); j .');
    expect(x.r.reason).toBe('exit');
    expect(x.r.exit).toBe(0xc7);
  });

  it('a program that never exits stops at the cycle limit', () => {
    const cfg = defaultConfig();
    const m = new Machine(cfg);
    m.loadElf(build('1: j 1b'));
    const r = m.run(10_000);
    expect(r.reason).toBe('cycle-limit');
    expect(r.guestExit).toBeNull();
  });
});

describe('decoding a word', () => {
  it('matchInsn is the first INSNS entry whose mask and match fit, for 200000 random words', () => {
    // The word's low 7 bits are drawn from the opcodes INSNS uses half the time, so most words
    // land in a list with several entries; the rest are any word at all.
    const opcodes = [...new Set(INSNS.map((d) => d.match & 0x7f))];
    const next = mulberry32(0x15a);
    let matched = 0;
    for (let i = 0; i < 200_000; i++) {
      let w = (next() * 2 ** 32) | 0;
      if (i & 1) w = (w & ~0x7f) | opcodes[i % opcodes.length];
      // Function fields set to a listed instruction's often enough that every entry is met.
      if (i % 3 === 0) { const d = INSNS[i % INSNS.length]; w = (w & ~d.mask) | d.match; }
      const linear = INSNS.findIndex((d) => (w & d.mask) === d.match);
      expect(matchInsn(w), `0x${(w >>> 0).toString(16)}`).toBe(linear);
      if (linear >= 0) matched++;
    }
    expect(matched).toBeGreaterThan(60_000);
  });
});
