// The VPU (periph/vpu.ts): its fast and reference models against each other
// and against literal expectations, command by command.
import { describe, expect, it } from 'vitest';
import { defaultConfig, type TpuConfig } from '../emu/config.ts';
import { ERR, opcode, packArgs } from '../periph/regs.ts';
import type { Cmd, UnitModel } from '../periph/unit.ts';
import { VpuFast, VpuReference, vpuRules } from '../periph/vpu.ts';
import { mulberry32 } from './helpers/rng.ts';

// ---- Helpers ----

type OpName = 'ADD' | 'RELU' | 'HARDTANH' | 'CAUSAL_MASK' | 'REQUANT' | 'ADD32' | 'COPY';
const OPS: OpName[] = ['ADD', 'RELU', 'HARDTANH', 'CAUSAL_MASK', 'REQUANT', 'ADD32', 'COPY'];

interface Spec {
  op: OpName;
  a: number;
  b: number;
  c: number;
  rows: number;
  cols: number;
  sa: number;
  sb: number;
  sc: number;
  param: number;
}

function tpuCfg(over: Partial<TpuConfig> = {}): TpuConfig {
  return { ...defaultConfig().tpu, ...over };
}

function mkCmd(op: number, fields: Record<string, number>, flags = 0): Cmd {
  return { args: Uint32Array.from(packArgs('VPU', fields)), opcode: op, flags, serial: 0, pushClock: 0, token: 0 };
}

function specCmd(s: Spec): Cmd {
  return mkCmd(opcode('VPU', s.op), {
    A_ADDR: s.a, B_ADDR: s.b, C_ADDR: s.c, ROWS: s.rows, COLS: s.cols,
    A_STRIDE: s.sa, B_STRIDE: s.sb, C_STRIDE: s.sc, PARAM: s.param,
  });
}

function spec(op: OpName, p: Partial<Spec>): Spec {
  return { op, a: 0, b: 0, c: 0, rows: 1, cols: 8, sa: 0, sb: 0, sc: 0, param: 0, ...p };
}

const rng = mulberry32;
const randInt = (rnd: () => number, n: number): number => Math.floor(rnd() * n);

function firstDiff(x: Uint8Array, y: Uint8Array): number {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i;
  return x.length === y.length ? -1 : x.length;
}

const is32in = (op: OpName): boolean => op === 'ADD32' || op === 'REQUANT';
const is32out = (op: OpName): boolean => op === 'ADD32';
const isBinary = (op: OpName): boolean => op === 'ADD' || op === 'ADD32';
const inRowBytes = (s: Spec): number => (is32in(s.op) ? s.cols * 4 : s.cols / 2);
const outRowBytes = (s: Spec): number => (is32out(s.op) ? s.cols * 4 : s.cols / 2);

// ---- Golden model: plain loops, independent of periph/unit.ts ----

function gNib(m: Uint8Array, base: number, j: number): number {
  const byte = m[base + Math.floor(j / 2)];
  const v = j % 2 === 0 ? byte & 15 : byte >> 4;
  return v >= 8 ? v - 16 : v;
}
function gSetNib(m: Uint8Array, base: number, j: number, v: number): void {
  const at = base + Math.floor(j / 2);
  const n = ((v % 16) + 16) % 16;
  m[at] = j % 2 === 0 ? (m[at] & 0xf0) | n : (m[at] & 0x0f) | (n << 4);
}
const gSat = (x: number): number => Math.max(-8, Math.min(7, x));
/** rshift of PLATFORM.md §6.2 in BigInt: (x + 2^(s−1)) >> s, arithmetic. */
function gRshift(x: number, s: number): number {
  if (s === 0) return x;
  return Number((BigInt(x) + (1n << BigInt(s - 1))) >> BigInt(s));
}

/**
 * Applies the command to m. The loops follow the documented schedule (per
 * row, chunks of 8 columns: read the chunk, then write it), which only
 * matters when operands overlap; for disjoint operands it is plain
 * elementwise math.
 */
function golden(m: Uint8Array, s: Spec): void {
  const dv = new DataView(m.buffer, m.byteOffset, m.byteLength);
  const rowOff = s.param & 0xffff;
  const colOff = s.param >>> 16;
  for (let r = 0; r < s.rows; r++) {
    const aRow = s.a + r * s.sa;
    const bRow = s.b + r * s.sb;
    const cRow = s.c + r * s.sc;
    for (let q0 = 0; q0 < s.cols; q0 += 8) {
      const end = Math.min(q0 + 8, s.cols);
      const res: number[] = [];
      for (let j = q0; j < end; j++) {
        const a = is32in(s.op) ? dv.getInt32(aRow + 4 * j, true) : gNib(m, aRow, j);
        const b = !isBinary(s.op) ? 0 : is32in(s.op) ? dv.getInt32(bRow + 4 * j, true) : gNib(m, bRow, j);
        let v: number;
        switch (s.op) {
          case 'ADD': v = gSat(a + b); break;
          case 'RELU': v = Math.max(a, 0); break;
          case 'HARDTANH': v = gSat(Math.max(-s.param, Math.min(s.param, a))); break;
          case 'CAUSAL_MASK': v = colOff + j > rowOff + r ? -8 : a; break;
          case 'REQUANT': v = gSat(gRshift(a, s.param)); break;
          case 'ADD32': v = Number(BigInt.asIntN(32, BigInt(a) + BigInt(b))); break;
          case 'COPY': v = a; break;
        }
        res.push(v);
      }
      for (let j = q0; j < end; j++) {
        const v = res[j - q0];
        if (is32out(s.op)) dv.setInt32(cRow + 4 * j, v, true);
        else gSetNib(m, cRow, j, v);
      }
    }
  }
}

// ---- Driving the models through the clock protocol ----

const LIMIT = 1_000_000;

function runTicks(m: UnitModel, cmd: Cmd, s: number): number {
  m.begin(cmd, s);
  for (let c = s; c < s + LIMIT; c++) {
    expect(m.running).toBe(true);
    m.tickRead(c);
    if (m.tickWrite(c)) {
      expect(m.running).toBe(false);
      return c;
    }
  }
  throw new Error('command never ended');
}

/** Random mix of skip(n <= horizon) and ticks; checks horizon against the known end. */
function runMixed(m: VpuFast, cmd: Cmd, s: number, expectedEnd: number, rnd: () => number): number {
  m.begin(cmd, s);
  let c = s;
  for (let guard = 0; guard < LIMIT; guard++) {
    expect(m.running).toBe(true);
    const h = m.horizon(c);
    expect(h).toBeGreaterThanOrEqual(1);
    expect(h).toBe(expectedEnd - c + 1);
    if (rnd() < 0.5) {
      const n = rnd() < 0.3 ? h : 1 + randInt(rnd, h);
      const done = m.skip(c, n);
      expect(done).toBe(c + n - 1 === expectedEnd);
      c += n;
      if (done) {
        expect(m.running).toBe(false);
        return c - 1;
      }
    } else {
      m.tickRead(c);
      if (m.tickWrite(c)) {
        expect(m.running).toBe(false);
        return c;
      }
      c++;
    }
  }
  throw new Error('command never ended');
}

/** Runs the spec through golden, reference, fast (ticks), fast (mixed), fast (one skip); all must agree. */
function checkAll(s: Spec, mem0: Uint8Array, cfg: TpuConfig, rnd: () => number, start = 17, unaligned = false): Uint8Array {
  const rules = vpuRules(cfg);
  const cmd = specCmd(s);
  expect(rules.validate(cmd), JSON.stringify(s)).toBe(0);
  const nominal = rules.nominalClocks(cmd);
  expect(nominal).toBe(cfg.vpuSetup + s.rows * Math.ceil(s.cols / 8));
  const end = start + nominal - 1;

  const g = mem0.slice();
  golden(g, s);
  const sram = new Uint8Array(16);

  const runs: [string, (spad: Uint8Array) => number][] = [
    ['reference', (spad) => runTicks(new VpuReference({ spad, sram }, cfg), cmd, start)],
    ['fast ticks', (spad) => runTicks(new VpuFast({ spad, sram }, cfg), cmd, start)],
    ['fast mixed', (spad) => runMixed(new VpuFast({ spad, sram }, cfg), cmd, start, end, rnd)],
    ['fast skip', (spad) => {
      const f = new VpuFast({ spad, sram }, cfg);
      f.begin(cmd, start);
      expect(f.horizon(start)).toBe(nominal);
      expect(f.skip(start, nominal)).toBe(true);
      expect(f.running).toBe(false);
      return end;
    }],
  ];
  for (const [name, run] of runs) {
    // unaligned: the scratchpad is a view at an odd byte offset (no int32 view possible).
    const m = unaligned ? new Uint8Array(mem0.length + 1).subarray(1) : mem0.slice();
    if (unaligned) m.set(mem0);
    expect(run(m), name).toBe(end);
    const at = firstDiff(g, m);
    expect(at, `${name}: byte 0x${at.toString(16)} differs for ${JSON.stringify(s)}`).toBe(-1);
  }
  return g;
}

// ---- Random cases ----

const EDGE32 = [-0x80000000, 0x7fffffff, -1, 0, 1, -2, 2, 7, -8, 8, -9, 0x40000000, -0x40000000, 0x3fffffff];

function randomMemory(rnd: () => number, bytes: number): Uint8Array {
  const m = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) m[i] = randInt(rnd, 256);
  const dv = new DataView(m.buffer);
  for (let i = 0; i + 4 <= bytes; i += 4) {
    const u = rnd();
    if (u < 0.15) dv.setInt32(i, EDGE32[randInt(rnd, EDGE32.length)], true);
    else if (u < 0.3) dv.setInt32(i, randInt(rnd, 400) - 200, true);
    else if (u < 0.4) {
      // Exact ties of the rounding shift: k·2^s ± 2^(s−1).
      const sh = 1 + randInt(rnd, 20);
      dv.setInt32(i, (randInt(rnd, 33) - 16) * 2 ** sh + (rnd() < 0.5 ? 1 : -1) * 2 ** (sh - 1), true);
    }
  }
  return m;
}

type Mode = 'clean' | 'inplace' | 'wild';

function randomSpec(rnd: () => number, op: OpName, spadBytes: number, mode: Mode): Spec {
  for (;;) {
    const cols = op === 'ADD32' ? 1 + randInt(rnd, 40) : 2 * (1 + randInt(rnd, op === 'REQUANT' ? 30 : 45));
    const rows = 1 + randInt(rnd, 10);
    let param: number;
    switch (op) {
      case 'HARDTANH': param = randInt(rnd, 9); break;
      case 'REQUANT': param = randInt(rnd, 32); break;
      case 'CAUSAL_MASK': {
        const ro = rnd() < 0.1 ? 0xffff : randInt(rnd, 60);
        const co = rnd() < 0.1 ? 0xffff : randInt(rnd, 60);
        param = ((co << 16) | ro) >>> 0;
        break;
      }
      default: param = Math.floor(rnd() * 2 ** 32); // ignored
    }
    const s: Spec = { op, a: 0, b: 0, c: 0, rows, cols, sa: 0, sb: 0, sc: 0, param };
    const ib = inRowBytes(s);
    const ob = outRowBytes(s);
    const inAl = is32in(op) ? 4 : 1;
    const outAl = is32out(op) ? 4 : 1;
    const al = (x: number, k: number): number => Math.ceil(x / k) * k;
    const ext = (rb: number, st: number): number => (rows - 1) * st + rb;

    if (mode === 'wild') {
      const st = (rb: number, k: number): number =>
        rnd() < 0.15 ? 0 : al(rnd() < 0.3 ? rb : randInt(rnd, 2 * rb + 8), k);
      s.sa = st(ib, inAl);
      s.sb = st(ib, inAl);
      s.sc = st(ob, outAl);
      s.a = al(randInt(rnd, spadBytes), inAl);
      s.b = al(randInt(rnd, spadBytes), inAl);
      if (rnd() < 0.5) {
        // C close to A: overlapping, shifted either way.
        s.sc = rnd() < 0.5 ? al(s.sa, outAl) : s.sc;
        s.c = al(Math.max(0, s.a + randInt(rnd, 2 * ib + 1) - ib), outAl);
      } else s.c = al(randInt(rnd, spadBytes), outAl);
    } else {
      s.sa = al(ib + (rnd() < 0.3 ? 0 : randInt(rnd, 12)), inAl);
      s.sb = al(ib + (rnd() < 0.3 ? 0 : randInt(rnd, 12)), inAl);
      s.sc = al(ob + (rnd() < 0.3 ? 0 : randInt(rnd, 12)), outAl);
      const order = [0, 1, 2].sort(() => rnd() - 0.5);
      let cur = al(randInt(rnd, 256), 4);
      for (const o of order) {
        if (o === 0) { s.a = cur; cur += ext(ib, s.sa); }
        if (o === 1) { s.b = cur; cur += ext(ib, s.sb); }
        if (o === 2) { s.c = cur; cur += ext(ob, s.sc); }
        cur = al(cur + randInt(rnd, 40), 4);
      }
      if (!isBinary(op) && rnd() < 0.5) { s.b = randInt(rnd, 0x10000); s.sb = randInt(rnd, 0x10000); } // ignored
      if (mode === 'inplace') {
        if (op === 'ADD' || op === 'ADD32' ? rnd() < 0.5 : true) { s.c = s.a; s.sc = s.sa; } else { s.c = s.b; s.sc = s.sb; }
      }
    }
    const fits = (addr: number, rb: number, st: number): boolean => addr + ext(rb, st) <= spadBytes;
    if (!fits(s.a, ib, s.sa) || !fits(s.c, ob, s.sc) || (isBinary(op) && !fits(s.b, ib, s.sb))) continue;
    if (s.a > 0xffff || s.b > 0xffff || s.c > 0xffff) continue;
    return s;
  }
}

// ---- Tests ----

describe('VPU semantics against the golden model, all models, clock protocol', () => {
  for (const op of OPS) {
    for (const mode of ['clean', 'inplace', 'wild'] as Mode[]) {
      it(`${op} ${mode}: random rows/cols/strides/params`, () => {
        const rnd = rng(0x1234 + OPS.indexOf(op) * 97 + mode.length * 13);
        for (let n = 0; n < 60; n++) {
          const cfg = tpuCfg({ spadKiB: 8, regionKiB: 1, vpuSetup: [0, 1, 2, 5][n % 4] });
          const s = randomSpec(rnd, op, 8192, mode);
          checkAll(s, randomMemory(rnd, 8192), cfg, rnd, randInt(rnd, 1000));
        }
      });
    }
  }

  it('int32 ops on a scratchpad view at an odd byte offset', () => {
    const rnd = rng(0x5151);
    for (let n = 0; n < 60; n++) {
      const cfg = tpuCfg({ spadKiB: 8, regionKiB: 1, vpuSetup: n % 3 });
      const s = randomSpec(rnd, n % 2 ? 'ADD32' : 'REQUANT', 8192, (['clean', 'inplace', 'wild'] as Mode[])[n % 3]);
      checkAll(s, randomMemory(rnd, 8192), cfg, rnd, randInt(rnd, 1000), true);
    }
  });

  it('operands at the very top of a 64 KiB scratchpad', () => {
    const rnd = rng(99);
    const cfg = tpuCfg();
    const m = randomMemory(rnd, 65536);
    checkAll(spec('ADD', { a: 0xff00, b: 0xfe00, c: 0x10000 - 8 * 16, rows: 8, cols: 32, sa: 16, sb: 16, sc: 16 }), m, cfg, rnd);
    checkAll(spec('ADD32', { a: 0xf000, b: 0xf800, c: 0x10000 - 40, rows: 2, cols: 5, sa: 20, sb: 20, sc: 20 }), m, cfg, rnd);
  });

  it('ADD saturates: all 256 pairs of int4 values', () => {
    // Element (r, j): a = r − 8, b = j − 8.
    const m = new Uint8Array(4096);
    for (let r = 0; r < 16; r++) {
      for (let j = 0; j < 16; j++) {
        gSetNib(m, 0x100 + r * 8, j, r - 8);
        gSetNib(m, 0x200 + r * 8, j, j - 8);
      }
    }
    const s = spec('ADD', { a: 0x100, b: 0x200, c: 0x400, rows: 16, cols: 16, sa: 8, sb: 8, sc: 8 });
    const out = checkAll(s, m, tpuCfg({ spadKiB: 4 }), rng(1));
    for (let r = 0; r < 16; r++) {
      for (let j = 0; j < 16; j++) expect(gNib(out, 0x400 + r * 8, j)).toBe(Math.max(-8, Math.min(7, r - 8 + (j - 8))));
    }
    const at = (a: number, b: number): number => gNib(out, 0x400 + (a + 8) * 8, b + 8);
    expect(at(7, 7)).toBe(7);
    expect(at(4, 4)).toBe(7);
    expect(at(3, 4)).toBe(7);
    expect(at(-8, -8)).toBe(-8);
    expect(at(-5, -4)).toBe(-8);
    expect(at(7, -8)).toBe(-1);
    expect(at(-3, 2)).toBe(-1);
  });

  it('RELU, HARDTANH (every bound), COPY on every int4 value', () => {
    const m = new Uint8Array(4096);
    for (let j = 0; j < 16; j++) gSetNib(m, 0x10, j, j - 8);
    const cfg = tpuCfg({ spadKiB: 4 });
    const run = (op: OpName, param: number): number[] => {
      const out = checkAll(spec(op, { a: 0x10, c: 0x40, cols: 16, param }), m, cfg, rng(param + 5));
      return Array.from({ length: 16 }, (_, j) => gNib(out, 0x40, j));
    };
    const vals = Array.from({ length: 16 }, (_, j) => j - 8);
    expect(run('RELU', 0)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]);
    expect(run('COPY', 0)).toEqual(vals);
    expect(run('HARDTANH', 0)).toEqual(vals.map(() => 0));
    expect(run('HARDTANH', 3)).toEqual([-3, -3, -3, -3, -3, -3, -2, -1, 0, 1, 2, 3, 3, 3, 3, 3]);
    expect(run('HARDTANH', 7)).toEqual([-7, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7]);
    expect(run('HARDTANH', 8)).toEqual(vals);
    for (let p = 0; p <= 8; p++) expect(run('HARDTANH', p)).toEqual(vals.map((v) => Math.max(0 - Math.min(p, 8), Math.min(Math.min(p, 7), v))));
  });

  it('REQUANT rounds (x + 2^(s−1)) >> s on negative, tie and extreme int32s', () => {
    const cases: [number, number, number][] = [
      [5, 0, 5], [100, 0, 7], [-100, 0, -8], [-8, 0, -8], [7, 0, 7], [-0x80000000, 0, -8], [0x7fffffff, 0, 7],
      [3, 1, 2], [1, 1, 1], [-1, 1, 0], [-2, 1, -1], [-3, 1, -1], [-4, 1, -2],
      [-6, 2, -1], [-7, 2, -2], [-10, 2, -2], [-12, 2, -3], [6, 2, 2], [10, 2, 3],
      [3.5 * 2 ** 20, 20, 4], [-3.5 * 2 ** 20, 20, -3], [-3.5 * 2 ** 20 - 1, 20, -4],
      [-0x80000000, 31, -1], [0x7fffffff, 31, 1], [0x40000000, 31, 1], [0x3fffffff, 31, 0], [-0x40000000, 31, 0], [-0x40000001, 31, -1],
      [0x7fffffff, 28, 7], [-0x80000000, 28, -8], [0x7fffffff, 30, 2], [-0x80000000, 30, -2], [-0x80000000, 29, -4],
      [15 * 2 ** 10, 11, 7], [-17 * 2 ** 10, 11, -8], [-0x7fffffff, 31, -1],
    ];
    const cfg = tpuCfg({ spadKiB: 4 });
    const rnd = rng(3);
    for (const [x, s, want] of cases) {
      expect(Math.max(-8, Math.min(7, gRshift(x, s))), `golden ${x} >> ${s}`).toBe(want);
      const m = new Uint8Array(4096);
      const dv = new DataView(m.buffer);
      // Two elements: x and −x (wrapping), so both signs go through each model.
      dv.setInt32(0x100, x, true);
      dv.setInt32(0x104, -x | 0, true);
      const out = checkAll(spec('REQUANT', { a: 0x100, c: 0x200, cols: 2, param: s }), m, cfg, rnd);
      expect(gNib(out, 0x200, 0), `${x} >> ${s}`).toBe(want);
      expect(gNib(out, 0x200, 1)).toBe(Math.max(-8, Math.min(7, gRshift(-x | 0, s))));
    }
  });

  it('ADD32 wraps', () => {
    const m = new Uint8Array(4096);
    const dv = new DataView(m.buffer);
    const pairs: [number, number, number][] = [
      [0x7fffffff, 1, -0x80000000], [-0x80000000, -1, 0x7fffffff], [-5, 3, -2], [-0x80000000, -0x80000000, 0], [123456789, 987654321, 1111111110],
    ];
    pairs.forEach(([a, b], i) => { dv.setInt32(0x100 + 4 * i, a, true); dv.setInt32(0x200 + 4 * i, b, true); });
    const out = checkAll(spec('ADD32', { a: 0x100, b: 0x200, c: 0x300, cols: pairs.length }), m, tpuCfg({ spadKiB: 4 }), rng(4));
    const odv = new DataView(out.buffer);
    pairs.forEach(([, , want], i) => expect(odv.getInt32(0x300 + 4 * i, true)).toBe(want));
  });

  it('CAUSAL_MASK with row and column offsets, then RELU zeroes the masked entries', () => {
    const cfg = tpuCfg({ spadKiB: 4 });
    const m = new Uint8Array(4096).fill(0x55); // every element 5
    // Rows 4, cols 8, ROW_OFF 2, COL_OFF 1: (i, j) masked iff 1 + j > 2 + i, i.e. j > i + 1.
    const cmd = mkCmd(opcode('VPU', 'CAUSAL_MASK'), { A_ADDR: 0x100, C_ADDR: 0x200, ROWS: 4, COLS: 8, A_STRIDE: 4, C_STRIDE: 4, ROW_OFF: 2, COL_OFF: 1 });
    expect(cmd.args[4]).toBe((1 << 16) | 2);
    const s = spec('CAUSAL_MASK', { a: 0x100, c: 0x200, rows: 4, cols: 8, sa: 4, sc: 4, param: (1 << 16) | 2 });
    const out = checkAll(s, m, cfg, rng(5));
    const grid = (mem: Uint8Array, base: number): number[][] =>
      Array.from({ length: 4 }, (_, i) => Array.from({ length: 8 }, (_, j) => gNib(mem, base + 4 * i, j)));
    expect(grid(out, 0x200)).toEqual([
      [5, 5, -8, -8, -8, -8, -8, -8],
      [5, 5, 5, -8, -8, -8, -8, -8],
      [5, 5, 5, 5, -8, -8, -8, -8],
      [5, 5, 5, 5, 5, -8, -8, -8],
    ]);
    // A following RELU, in place.
    const relu = checkAll(spec('RELU', { a: 0x200, c: 0x200, rows: 4, cols: 8, sa: 4, sc: 4 }), out, cfg, rng(6));
    expect(grid(relu, 0x200)[0]).toEqual([5, 5, 0, 0, 0, 0, 0, 0]);
    // Extreme offsets: everything masked / nothing masked.
    const all = checkAll({ ...s, param: (0xffff << 16) >>> 0 }, m, cfg, rng(7));
    expect(grid(all, 0x200).flat().every((v) => v === -8)).toBe(true);
    const none = checkAll({ ...s, param: 0xffff }, m, cfg, rng(8));
    expect(grid(none, 0x200).flat().every((v) => v === 5)).toBe(true);
    // Diagonal tile: ROW_OFF = COL_OFF = 0, 16 columns (two chunks per row).
    const diag = checkAll(spec('CAUSAL_MASK', { a: 0x100, c: 0x300, rows: 12, cols: 16, sa: 8, sc: 8 }), m, cfg, rng(9));
    for (let i = 0; i < 12; i++) for (let j = 0; j < 16; j++) expect(gNib(diag, 0x300 + 8 * i, j)).toBe(j > i ? -8 : 5);
  });

  it('int4 writes leave bytes between rows and after the block alone', () => {
    const m = new Uint8Array(4096).fill(0xa5);
    const out = checkAll(spec('COPY', { a: 0x100, c: 0x200, rows: 3, cols: 6, sa: 3, sc: 5 }), m, tpuCfg({ spadKiB: 4 }), rng(10));
    expect(Array.from(out.subarray(0x200, 0x200 + 15))).toEqual([
      0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5,
    ]);
    const m2 = new Uint8Array(4096).fill(0xa5);
    m2.fill(0x12, 0x100, 0x110);
    const out2 = checkAll(spec('COPY', { a: 0x100, c: 0x200, rows: 3, cols: 6, sa: 3, sc: 5 }), m2, tpuCfg({ spadKiB: 4 }), rng(10));
    expect(Array.from(out2.subarray(0x200, 0x200 + 15))).toEqual([
      0x12, 0x12, 0x12, 0xa5, 0xa5, 0x12, 0x12, 0x12, 0xa5, 0xa5, 0x12, 0x12, 0x12, 0xa5, 0xa5,
    ]);
  });

  it('overlapping operands follow the chunk schedule (C ahead of A in the same row)', () => {
    // COPY with C = A + 4 bytes: chunk q reads bytes [4q, 4q+4) and writes [4q+4, 4q+8),
    // so every chunk after the first reads what the previous chunk wrote.
    const m = new Uint8Array(4096);
    for (let i = 0; i < 32; i++) m[0x100 + i] = i + 1;
    const out = checkAll(spec('COPY', { a: 0x100, c: 0x104, rows: 1, cols: 48 }), m, tpuCfg({ spadKiB: 4 }), rng(11));
    expect(Array.from(out.subarray(0x100, 0x11c))).toEqual([1, 2, 3, 4, ...Array.from({ length: 6 }, () => [1, 2, 3, 4]).flat()]);
  });
});

describe('VPU clock-exact access timing', () => {
  // vpuSetup 2, COPY 2 rows × 16 columns (2 chunks per row), begin at clock 10:
  // clocks 10, 11 setup; 12: row 0 bytes 0..3; 13: row 0 bytes 4..7; 14: row 1 bytes 0..3; 15: row 1 bytes 4..7.
  const cfg = tpuCfg({ spadKiB: 4, vpuSetup: 2 });
  const cmd = specCmd(spec('COPY', { a: 0x100, c: 0x200, rows: 2, cols: 16, sa: 8, sc: 8 }));
  const models: [string, (spad: Uint8Array) => UnitModel][] = [
    ['reference', (spad) => new VpuReference({ spad, sram: new Uint8Array(4) }, cfg)],
    ['fast', (spad) => new VpuFast({ spad, sram: new Uint8Array(4) }, cfg)],
  ];

  for (const [name, make] of models) {
    it(`${name}: reads at tickRead of the chunk's clock, writes at its tickWrite`, () => {
      const spad = new Uint8Array(4096);
      spad.fill(0x11, 0x100, 0x110);
      const m = make(spad);
      expect(vpuRules(cfg).nominalClocks(cmd)).toBe(6);
      m.begin(cmd, 10);
      for (const c of [10, 11]) {
        m.tickRead(c);
        expect(m.tickWrite(c)).toBe(false);
      }
      expect(spad.subarray(0x200, 0x210).every((b) => b === 0)).toBe(true); // setup: no writes
      spad[0x100] = 0x22; // before the first data clock: seen
      spad[0x104] = 0x23; // chunk 1, read at clock 13: seen
      m.tickRead(12);
      expect(spad[0x200]).toBe(0); // tickRead writes nothing
      spad[0x101] = 0x33; // after clock 12's read of this chunk: not seen
      expect(m.tickWrite(12)).toBe(false);
      expect(Array.from(spad.subarray(0x200, 0x208))).toEqual([0x22, 0x11, 0x11, 0x11, 0, 0, 0, 0]);
      m.tickRead(13);
      expect(m.tickWrite(13)).toBe(false);
      spad[0x105] = 0x44; // chunk 1 already read: not seen
      spad[0x10b] = 0x55; // row 1 chunk 0, read at clock 14: seen
      m.tickRead(14);
      spad[0x10c] = 0x66; // row 1 chunk 1, read at clock 15: seen
      spad[0x109] = 0x77; // row 1 chunk 0 read at 14: not seen
      expect(m.tickWrite(14)).toBe(false);
      expect(spad[0x20c]).toBe(0);
      expect(m.running).toBe(true);
      m.tickRead(15);
      expect(m.tickWrite(15)).toBe(true);
      expect(m.running).toBe(false);
      expect(Array.from(spad.subarray(0x200, 0x210))).toEqual([
        0x22, 0x11, 0x11, 0x11, 0x23, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x55, 0x66, 0x11, 0x11, 0x11,
      ]);
    });
  }

  it('fast: skip() sees memory as of the clocks it covers', () => {
    const spad = new Uint8Array(4096);
    spad.fill(0x11, 0x100, 0x110);
    const m = new VpuFast({ spad, sram: new Uint8Array(4) }, cfg);
    m.begin(cmd, 10);
    expect(m.horizon(10)).toBe(6);
    expect(m.skip(10, 2)).toBe(false); // setup
    expect(spad.subarray(0x200, 0x210).every((b) => b === 0)).toBe(true);
    spad[0x100] = 0x22;
    expect(m.horizon(12)).toBe(4);
    expect(m.skip(12, 2)).toBe(false); // row 0
    expect(Array.from(spad.subarray(0x200, 0x210))).toEqual([0x22, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0, 0, 0, 0, 0, 0, 0, 0]);
    spad[0x101] = 0x33; // already read
    spad[0x108] = 0x44; // row 1, not yet read
    expect(m.horizon(14)).toBe(2);
    m.tickRead(14);
    expect(m.tickWrite(14)).toBe(false);
    spad[0x10f] = 0x55;
    expect(m.horizon(15)).toBe(1);
    expect(m.skip(15, 1)).toBe(true);
    expect(m.running).toBe(false);
    expect(Array.from(spad.subarray(0x200, 0x210))).toEqual([
      0x22, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
      0x44, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x55,
    ]);
  });

  it('vpuSetup 0: the begin clock is already a data clock', () => {
    const c0 = tpuCfg({ spadKiB: 4, vpuSetup: 0 });
    const spad = new Uint8Array(4096).fill(0x33);
    const m = new VpuReference({ spad, sram: new Uint8Array(4) }, c0);
    const one = specCmd(spec('RELU', { a: 0x100, c: 0x200, cols: 8 }));
    expect(vpuRules(c0).nominalClocks(one)).toBe(1);
    m.begin(one, 5);
    m.tickRead(5);
    expect(m.tickWrite(5)).toBe(true);
    expect(spad[0x200]).toBe(0x33);
  });

  it('fast: skip past the end throws; reference has no horizon/skip; clocks must follow the protocol', () => {
    const spad = new Uint8Array(4096);
    const f = new VpuFast({ spad, sram: new Uint8Array(4) }, cfg);
    f.begin(cmd, 10);
    expect(() => f.skip(10, 7)).toThrow();
    expect(() => f.tickRead(11)).toThrow();
    const r = new VpuReference({ spad, sram: new Uint8Array(4) }, cfg);
    r.begin(cmd, 10);
    expect(() => r.horizon(10)).toThrow();
    expect(() => r.skip(10, 1)).toThrow();
    expect(() => r.tickRead(12)).toThrow();
  });

  it('a VpuFast runs many commands back to back', () => {
    const rnd = rng(77);
    const c8 = tpuCfg({ spadKiB: 8, regionKiB: 1, vpuSetup: 3 });
    const mem0 = randomMemory(rnd, 8192);
    const g = mem0.slice();
    const fm = mem0.slice();
    const rm = mem0.slice();
    const f = new VpuFast({ spad: fm, sram: new Uint8Array(4) }, c8);
    const r = new VpuReference({ spad: rm, sram: new Uint8Array(4) }, c8);
    let clockF = 0;
    let clockR = 0;
    for (let n = 0; n < 100; n++) {
      const s = randomSpec(rnd, OPS[randInt(rnd, OPS.length)], 8192, (['clean', 'inplace', 'wild'] as Mode[])[n % 3]);
      golden(g, s);
      const cmd = specCmd(s);
      const nominal = vpuRules(c8).nominalClocks(cmd);
      expect(runMixed(f, cmd, clockF, clockF + nominal - 1, rnd)).toBe(clockF + nominal - 1);
      expect(runTicks(r, cmd, clockR)).toBe(clockR + nominal - 1);
      clockF += nominal + randInt(rnd, 3);
      clockR += nominal;
      expect(firstDiff(g, fm)).toBe(-1);
      expect(firstDiff(g, rm)).toBe(-1);
    }
  });
});

describe('vpuRules', () => {
  const cfg = tpuCfg({ spadKiB: 16, regionKiB: 4, vpuSetup: 2 });
  const rules = vpuRules(cfg);
  const v = (op: OpName | number, p: Record<string, number>, flags = 0): number =>
    rules.validate(mkCmd(typeof op === 'number' ? op : opcode('VPU', op), { ROWS: 1, COLS: 8, ...p }, flags));

  it('accepts well-formed commands of every op', () => {
    for (const op of OPS) expect(v(op, { A_ADDR: 0x100, B_ADDR: 0x200, C_ADDR: 0x300, A_STRIDE: 32, B_STRIDE: 32, C_STRIDE: 32, ROWS: 4 }), op).toBe(0);
  });

  it('BAD_OPCODE: unknown opcode or any flag bit', () => {
    for (const op of [0, 8, 9, 0x7f, 0xff]) expect(v(op, {})).toBe(ERR.BAD_OPCODE);
    for (const fl of [1, 2, 0x80]) expect(v('ADD', {}, fl)).toBe(ERR.BAD_OPCODE);
    // First in the check order.
    expect(v(0, { ROWS: 0, COLS: 3 })).toBe(ERR.BAD_OPCODE);
    expect(v('RELU', { ROWS: 0 }, 1)).toBe(ERR.BAD_OPCODE);
  });

  it('ZERO_SIZE: rows or cols 0', () => {
    expect(v('ADD', { ROWS: 0 })).toBe(ERR.ZERO_SIZE);
    expect(v('ADD32', { COLS: 0 })).toBe(ERR.ZERO_SIZE);
    expect(v('REQUANT', { COLS: 0, A_ADDR: 1, PARAM: 99 })).toBe(ERR.ZERO_SIZE);
    expect(v('ADD', { ROWS: 0, COLS: 3 })).toBe(ERR.ZERO_SIZE); // before odd cols
    expect(v('ADD32', { ROWS: 0, A_ADDR: 2 })).toBe(ERR.ZERO_SIZE); // before alignment
  });

  it('ODD_COLS: any int4 operand with odd columns', () => {
    for (const op of ['ADD', 'RELU', 'HARDTANH', 'CAUSAL_MASK', 'REQUANT', 'COPY'] as OpName[]) expect(v(op, { COLS: 7 }), op).toBe(ERR.ODD_COLS);
    expect(v('ADD32', { COLS: 7 })).toBe(0);
    expect(v('REQUANT', { COLS: 7, A_ADDR: 2 })).toBe(ERR.ODD_COLS); // before alignment
  });

  it('MISALIGNED: int32 operand addresses and strides', () => {
    expect(v('ADD32', { A_ADDR: 2 })).toBe(ERR.MISALIGNED);
    expect(v('ADD32', { B_ADDR: 1 })).toBe(ERR.MISALIGNED);
    expect(v('ADD32', { C_ADDR: 3 })).toBe(ERR.MISALIGNED);
    expect(v('ADD32', { A_STRIDE: 34 })).toBe(ERR.MISALIGNED);
    expect(v('ADD32', { B_STRIDE: 33 })).toBe(ERR.MISALIGNED);
    expect(v('ADD32', { C_STRIDE: 35 })).toBe(ERR.MISALIGNED);
    expect(v('REQUANT', { A_ADDR: 6 })).toBe(ERR.MISALIGNED);
    expect(v('REQUANT', { A_STRIDE: 30 })).toBe(ERR.MISALIGNED);
    expect(v('REQUANT', { C_ADDR: 1, C_STRIDE: 3, B_ADDR: 1, B_STRIDE: 1 })).toBe(0); // C is int4, B unused
    expect(v('ADD', { A_ADDR: 1, B_ADDR: 3, C_ADDR: 5, A_STRIDE: 7 })).toBe(0);
    expect(v('ADD32', { A_ADDR: 2, PARAM: 99, ROWS: 0xffff, A_STRIDE: 0xfffc })).toBe(ERR.MISALIGNED); // before range
  });

  it('PARAM: HARDTANH bound > 8, REQUANT shift > 31', () => {
    expect(v('HARDTANH', { PARAM: 8 })).toBe(0);
    expect(v('HARDTANH', { PARAM: 9 })).toBe(ERR.PARAM);
    expect(v('HARDTANH', { PARAM: 0x80000000 })).toBe(ERR.PARAM);
    expect(v('REQUANT', { PARAM: 31 })).toBe(0);
    expect(v('REQUANT', { PARAM: 32 })).toBe(ERR.PARAM);
    expect(v('REQUANT', { PARAM: 0xffffffff })).toBe(ERR.PARAM);
    for (const op of ['ADD', 'RELU', 'ADD32', 'COPY', 'CAUSAL_MASK'] as OpName[]) expect(v(op, { PARAM: 0xffffffff }), op).toBe(0);
    expect(v('HARDTANH', { PARAM: 9, A_ADDR: 0x3ffe })).toBe(ERR.PARAM); // before range
    expect(v('HARDTANH', { PARAM: 8, A_ADDR: 0x3ffe })).toBe(ERR.RANGE);
  });

  it('RANGE: each operand extent within the scratchpad (16 KiB here)', () => {
    const top = 16 * 1024;
    // int4, 8 cols = 4 bytes per row.
    expect(v('RELU', { A_ADDR: top - 4 })).toBe(0);
    expect(v('RELU', { A_ADDR: top - 3 })).toBe(ERR.RANGE);
    expect(v('RELU', { C_ADDR: top - 3 })).toBe(ERR.RANGE);
    expect(v('RELU', { B_ADDR: 0xffff, B_STRIDE: 0xffff, ROWS: 3 })).toBe(0); // B unused
    expect(v('ADD', { B_ADDR: top - 3 })).toBe(ERR.RANGE);
    // Rows and stride: (rows − 1) · stride + row bytes.
    expect(v('COPY', { ROWS: 4, A_STRIDE: 100, A_ADDR: top - 304 })).toBe(0);
    expect(v('COPY', { ROWS: 4, A_STRIDE: 100, A_ADDR: top - 303 })).toBe(ERR.RANGE);
    expect(v('COPY', { ROWS: 0xffff, C_STRIDE: 0xffff })).toBe(ERR.RANGE);
    // int32: 8 cols = 32 bytes per row; REQUANT's C is int4 (4 bytes).
    expect(v('ADD32', { A_ADDR: top - 32, B_ADDR: top - 32, C_ADDR: top - 32 })).toBe(0);
    expect(v('ADD32', { C_ADDR: top - 28 })).toBe(ERR.RANGE);
    expect(v('ADD32', { B_ADDR: top - 28 })).toBe(ERR.RANGE);
    expect(v('REQUANT', { A_ADDR: top - 28 })).toBe(ERR.RANGE);
    expect(v('REQUANT', { C_ADDR: top - 4 })).toBe(0);
    expect(v('REQUANT', { C_ADDR: top - 3 })).toBe(ERR.RANGE);
    // A 64 KiB scratchpad: the last byte is usable.
    const big = vpuRules(tpuCfg());
    expect(big.validate(mkCmd(opcode('VPU', 'COPY'), { ROWS: 1, COLS: 8, A_ADDR: 0xfffc, C_ADDR: 0xfffc }))).toBe(0);
    expect(big.validate(mkCmd(opcode('VPU', 'COPY'), { ROWS: 1, COLS: 10, A_ADDR: 0xfffc }))).toBe(ERR.RANGE);
  });

  it('footprint: read A (and B), write C, sameRegion for binary ops', () => {
    const fp = (op: OpName, p: Record<string, number>) => rules.footprint(mkCmd(opcode('VPU', op), { ROWS: 1, COLS: 8, ...p }));
    expect(fp('ADD', { A_ADDR: 0x0100, B_ADDR: 0x1100, C_ADDR: 0x2100 })).toEqual({ read: 0b011, write: 0b100, sameRegion: false });
    expect(fp('ADD', { A_ADDR: 0x0100, B_ADDR: 0x0200, C_ADDR: 0x3000 })).toEqual({ read: 0b0001, write: 0b1000, sameRegion: true });
    expect(fp('RELU', { A_ADDR: 0x0100, B_ADDR: 0x0200, C_ADDR: 0x0100 })).toEqual({ read: 1, write: 1, sameRegion: false });
    expect(fp('COPY', { A_ADDR: 0x0100, B_ADDR: 0x3000, C_ADDR: 0x1000 })).toEqual({ read: 1, write: 2, sameRegion: false });
    // Rows striding across regions; a row straddling a boundary.
    expect(fp('COPY', { A_ADDR: 0x0ffe, ROWS: 3, A_STRIDE: 0x1000, C_ADDR: 0x3000 })).toEqual({ read: 0b1111, write: 0b1000, sameRegion: false });
    // int32 rows are 4× wider: 8 cols = 32 bytes from 0x0ff0 reach region 1.
    expect(fp('ADD32', { A_ADDR: 0x0ff0, B_ADDR: 0x2000, C_ADDR: 0x3000 })).toEqual({ read: 0b0111, write: 0b1000, sameRegion: false });
    expect(fp('REQUANT', { A_ADDR: 0x0ff0, C_ADDR: 0x1ffc })).toEqual({ read: 0b0011, write: 0b0010, sameRegion: false });
    expect(fp('ADD32', { A_ADDR: 0x0ff0, B_ADDR: 0x1000, C_ADDR: 0x3000 }).sameRegion).toBe(true);
  });

  it('nominalClocks = vpuSetup + rows · ceil(cols / 8)', () => {
    const n = (rows: number, cols: number, c = rules): number => c.nominalClocks(mkCmd(opcode('VPU', 'ADD32'), { ROWS: rows, COLS: cols }));
    expect(n(1, 1)).toBe(3);
    expect(n(1, 8)).toBe(3);
    expect(n(1, 9)).toBe(4);
    expect(n(8, 32)).toBe(2 + 32);
    expect(n(3, 17)).toBe(2 + 9);
    expect(n(5, 16, vpuRules(tpuCfg({ vpuSetup: 7 })))).toBe(7 + 10);
  });

  it('describe', () => {
    const d = (op: OpName | number, p: Record<string, number>, flags = 0): string =>
      rules.describe(mkCmd(typeof op === 'number' ? op : opcode('VPU', op), p, flags));
    expect(d('ADD', { A_ADDR: 0x100, B_ADDR: 0x200, C_ADDR: 0x300, ROWS: 8, COLS: 32, A_STRIDE: 16, B_STRIDE: 16, C_STRIDE: 16 }))
      .toBe('ADD A=0x0100 B=0x0200 C=0x0300 rows=8 cols=32');
    expect(d('RELU', { A_ADDR: 0x100, B_ADDR: 0x200, C_ADDR: 0x300, ROWS: 1, COLS: 8 })).toBe('RELU A=0x0100 C=0x0300 rows=1 cols=8');
    expect(d('HARDTANH', { A_ADDR: 0x10, C_ADDR: 0x20, ROWS: 2, COLS: 8, A_STRIDE: 8, C_STRIDE: 4, PARAM: 3 }))
      .toBe('HARDTANH A=0x0010 C=0x0020 rows=2 cols=8 strides=8/4 bound=3');
    expect(d('REQUANT', { ROWS: 1, COLS: 8, PARAM: 5 })).toBe('REQUANT A=0x0000 C=0x0000 rows=1 cols=8 shift=5');
    expect(d('CAUSAL_MASK', { ROWS: 1, COLS: 8, ROW_OFF: 16, COL_OFF: 32 })).toBe('CAUSAL_MASK A=0x0000 C=0x0000 rows=1 cols=8 row_off=16 col_off=32');
    expect(d(9, { ROWS: 1 })).toMatch(/^OP_0x9 /);
  });
});
