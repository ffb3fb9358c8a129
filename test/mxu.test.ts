// The MXU (periph/mxu.ts): validation, footprints, timing, and both models
// against a plain nested-loop golden matmul, clock for clock.

import { describe, expect, it } from 'vitest';
import { defaultConfig, type TpuConfig } from '../emu/config.ts';
import { MxuFast, MxuReference, mxuRules } from '../periph/mxu.ts';
import { ERR, flagBit, opcode, packArgs } from '../periph/regs.ts';
import type { Cmd, UnitMemories, UnitModel } from '../periph/unit.ts';
import { mulberry32 } from './helpers/rng.ts';

const MATMUL = opcode('MXU', 'MATMUL');
const TR = flagBit('MXU', 'TRANSPOSE_B');
const ACC = flagBit('MXU', 'ACCUMULATE');
const O32 = flagBit('MXU', 'OUT_INT32');

// ---- helpers ----

const rngOf = mulberry32;
const randInt = (rng: () => number, n: number) => Math.floor(rng() * n);

function tpuCfg(over: Partial<TpuConfig> = {}): TpuConfig {
  return { ...defaultConfig().tpu, ...over };
}

/** A MATMUL's fields, as the test states them. */
interface Mm {
  a: number;
  b: number;
  c: number;
  k: number;
  as: number;
  bs: number;
  cs: number;
  shift: number;
  cin: number;
  cins: number;
  tr: boolean;
  acc: boolean;
  o32: boolean;
  /** Array dimension D the command is meant for (tpu.mxuDim). */
  dim: number;
}

function mm(over: Partial<Mm>): Mm {
  return { a: 0, b: 0x1000, c: 0x2000, k: 16, as: 8, bs: 4, cs: 32, shift: 0, cin: 0x3000, cins: 32, tr: false, acc: false, o32: true, dim: 8, ...over };
}

function flagsOf(p: Mm): number {
  return (p.tr ? TR : 0) | (p.acc ? ACC : 0) | (p.o32 ? O32 : 0);
}

function cmdOf(p: Mm, op = MATMUL, flags = flagsOf(p)): Cmd {
  const args = packArgs('MXU', {
    A_ADDR: p.a, B_ADDR: p.b, C_ADDR: p.c, K: p.k, A_STRIDE: p.as, B_STRIDE: p.bs,
    C_STRIDE: p.cs, SHIFT: p.shift, CIN_ADDR: p.cin, CIN_STRIDE: p.cins,
  });
  return { args: Uint32Array.from(args), opcode: op, flags, serial: 0, pushClock: 0, token: 0 };
}

/** The documented busy clocks of a command (hardware.md §5.5): setup + (ACCUMULATE ? D : 0) + K + 2·(D−1) + D. */
const clocksOf = (p: Mm, setup: number) => setup + (p.acc ? p.dim : 0) + p.k + 2 * (p.dim - 1) + p.dim;

// ---- golden ----

/**
 * The byte a read sees: `rel` is the clock, relative to the begin clock, at
 * which the schedule (PLATFORM/brief) says the MXU reads that byte.
 */
type ByteAt = (addr: number, rel: number) => number;

const nib = (byte: number, hi: boolean) => (((hi ? byte >> 4 : byte) & 15) ^ 8) - 8;
const rshiftG = (x: number, s: number) => (s === 0 ? x : Math.floor((x + Math.pow(2, s - 1)) / Math.pow(2, s)));
const sat4G = (x: number) => Math.max(-8, Math.min(7, x));

/** C[i][j] as int32, by plain loops, every operand byte taken at its read clock. */
function goldenC(p: Mm, setup: number, byteAt: ByteAt): number[][] {
  const D = p.dim;
  const stream = setup + (p.acc ? D : 0);
  const blockStart = (k: number) => D * Math.floor(k / D);
  const A = (i: number, k: number) => nib(byteAt(p.a + i * p.as + (k >> 1), stream + blockStart(k) + i), (k & 1) === 1);
  const B = (k: number, j: number) =>
    p.tr
      ? nib(byteAt(p.b + j * p.bs + (k >> 1), stream + blockStart(k) + j), (k & 1) === 1)
      : nib(byteAt(p.b + k * p.bs + (j >> 1), stream + k), (j & 1) === 1);
  const Cin = (i: number, j: number) => {
    let v = 0;
    for (let q = 3; q >= 0; q--) v = v * 256 + byteAt(p.cin + i * p.cins + 4 * j + q, setup + i);
    return v | 0;
  };
  const C: number[][] = [];
  for (let i = 0; i < D; i++) {
    C.push([]);
    for (let j = 0; j < D; j++) {
      let s = p.acc ? Cin(i, j) : 0;
      for (let k = 0; k < p.k; k++) s = (s + A(i, k) * B(k, j)) | 0;
      C[i].push(s);
    }
  }
  return C;
}

/** Writes C rows 0..D−1 in order into `img` (later rows win where rows overlap). */
function writeC(img: Uint8Array, p: Mm, C: number[][]): void {
  for (let i = 0; i < p.dim; i++) {
    const row = p.c + i * p.cs;
    for (let j = 0; j < p.dim; j++) {
      const v = C[i][j];
      if (p.o32) {
        for (let q = 0; q < 4; q++) img[row + 4 * j + q] = (v >>> (8 * q)) & 0xff;
      } else {
        const n = sat4G(rshiftG(v, p.shift)) & 15;
        const at = row + (j >> 1);
        img[at] = j & 1 ? (img[at] & 0x0f) | (n << 4) : (img[at] & 0xf0) | n;
      }
    }
  }
}

function goldenImage(init: Uint8Array, p: Mm, setup: number): Uint8Array {
  const img = init.slice();
  writeC(img, p, goldenC(p, setup, (addr) => init[addr]));
  return img;
}

// ---- drivers (the clock protocol of periph/unit.ts) ----

type Phase = 'beforeRead' | 'afterRead' | 'afterWrite';
type Hook = (clock: number, phase: Phase) => void;

/** begin at s, then tickRead/tickWrite per clock until the last; returns the end clock. */
function runTicks(model: UnitModel, cmd: Cmd, s: number, hook?: Hook): number {
  model.begin(cmd, s);
  expect(model.running).toBe(true);
  for (let c = s; c < s + 2_000_000; c++) {
    hook?.(c, 'beforeRead');
    model.tickRead(c);
    hook?.(c, 'afterRead');
    const done = model.tickWrite(c);
    hook?.(c, 'afterWrite');
    if (done) {
      expect(model.running).toBe(false);
      return c;
    }
    expect(model.running).toBe(true);
  }
  throw new Error('command never ended');
}

/**
 * Fast model: a random mixture of skip(n <= horizon) and single ticks. Clocks
 * in `tickAt` (where a hook changes memory) are always ticked, and no skip
 * crosses one.
 */
function runMixed(model: UnitModel, cmd: Cmd, s: number, total: number, rng: () => number, hook?: Hook, tickAt: readonly number[] = []): number {
  model.begin(cmd, s);
  const must = new Set(tickAt);
  let c = s;
  for (;;) {
    const h = model.horizon(c);
    expect(h).toBe(s + total - c);
    if (must.has(c) || rng() < 0.3) {
      hook?.(c, 'beforeRead');
      model.tickRead(c);
      hook?.(c, 'afterRead');
      const done = model.tickWrite(c);
      hook?.(c, 'afterWrite');
      if (done) return c;
      c++;
      continue;
    }
    let n = 1 + randInt(rng, rng() < 0.5 ? Math.min(h, 12) : h);
    for (const m of must) if (m >= c && m < c + n) n = m - c;
    if (n === 0) n = 1;
    const done = model.skip(c, n);
    expect(done).toBe(c + n === s + total);
    c += n;
    if (done) {
      expect(model.running).toBe(false);
      return c - 1;
    }
    expect(model.running).toBe(true);
  }
}

/** Byte-for-byte equality, reporting the first difference. */
function sameBytes(got: Uint8Array, want: Uint8Array, what: string): void {
  let i = 0;
  while (i < want.length && got[i] === want[i]) i++;
  expect(got.length, what).toBe(want.length);
  expect(i === want.length ? 'equal' : `differ at 0x${i.toString(16)}: ${got[i]} vs ${want[i]}`, what).toBe('equal');
}

function memOf(spad: Uint8Array): UnitMemories {
  return { spad, sram: new Uint8Array(16) };
}

// ---- random commands ----

function randomMm(rng: () => number, spadBytes: number, kMax = 256, dim = 8): Mm {
  const D = dim;
  const al = D / 2; // address and stride alignment
  const k = D * (1 + randInt(rng, kMax / D));
  const tr = rng() < 0.5;
  const acc = rng() < 0.5;
  const o32 = rng() < 0.5;
  const shift = rng() < 0.8 ? randInt(rng, 10) : randInt(rng, 32);
  const place = (rows: number, rowBytes: number): [number, number] => {
    const u = rng();
    let stride =
      u < 0.6 ? rowBytes + al * randInt(rng, 4) : u < 0.75 ? al * randInt(rng, rowBytes / al + 1) : u < 0.85 ? 0 : al * randInt(rng, 64);
    if ((rows - 1) * stride + rowBytes > spadBytes) stride = rowBytes;
    const extent = (rows - 1) * stride + rowBytes;
    return [al * randInt(rng, Math.floor((spadBytes - extent) / al) + 1), stride];
  };
  const [a, as] = place(D, k / 2);
  const [b, bs] = tr ? place(D, k / 2) : place(k, D / 2);
  const [c, cs] = place(D, o32 ? 4 * D : D / 2);
  const [cin, cins] = place(D, 4 * D);
  return { a, as, b, bs, c, cs, cin, cins, k, tr, acc, o32, shift, dim: D };
}

function randomSpad(rng: () => number, bytes: number): Uint8Array {
  const m = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) m[i] = randInt(rng, 256);
  return m;
}

/** Runs one command through the reference, the fast model ticked, and the fast model mixed; checks all against the golden. */
function checkAll(
  cfg: TpuConfig,
  p: Mm,
  init: Uint8Array,
  s: number,
  rng: () => number,
  models?: { ref: [MxuReference, Uint8Array]; fast: [MxuFast, Uint8Array]; mixed: [MxuFast, Uint8Array] },
): void {
  const cmd = cmdOf(p);
  const rules = mxuRules(cfg);
  expect(rules.validate(cmd)).toBe(0);
  const total = rules.nominalClocks(cmd);
  expect(total).toBe(clocksOf(p, cfg.mxuSetup));
  const want = goldenImage(init, p, cfg.mxuSetup);
  const run = (kind: 'ref' | 'fast' | 'mixed'): Uint8Array => {
    let model: UnitModel;
    let mem: Uint8Array;
    if (models) {
      [model, mem] = models[kind];
    } else {
      mem = new Uint8Array(init.length);
      model = kind === 'ref' ? new MxuReference(memOf(mem), cfg) : new MxuFast(memOf(mem), cfg);
    }
    mem.set(init);
    const end = kind === 'mixed' ? runMixed(model, cmd, s, total, rng) : runTicks(model, cmd, s);
    expect(end, `end clock, ${kind}`).toBe(s + total - 1);
    return mem;
  };
  const outRef = run('ref');
  const outFast = run('fast');
  const outMixed = run('mixed');
  const ctx = JSON.stringify(p);
  sameBytes(outRef, want, `reference vs golden ${ctx}`);
  sameBytes(outFast, want, `fast vs golden ${ctx}`);
  sameBytes(outMixed, want, `fast (skips) vs golden ${ctx}`);
}

/** Persistent models (reused across commands) over their own scratchpads. */
function persistentModels(cfg: TpuConfig) {
  const bytes = cfg.spadKiB * 1024;
  const r = new Uint8Array(bytes);
  const f = new Uint8Array(bytes);
  const x = new Uint8Array(bytes);
  return {
    ref: [new MxuReference(memOf(r), cfg), r] as [MxuReference, Uint8Array],
    fast: [new MxuFast(memOf(f), cfg), f] as [MxuFast, Uint8Array],
    mixed: [new MxuFast(memOf(x), cfg), x] as [MxuFast, Uint8Array],
  };
}

// ---- tests ----

describe('MXU rules', () => {
  const cfg = tpuCfg();
  const rules = mxuRules(cfg);
  const ok = mm({ a: 0x100, b: 0x1000, c: 0x2000, k: 64, as: 32, bs: 4, cs: 32, tr: false, acc: true, o32: true, cin: 0x3000, cins: 32 });

  it('accepts a well-formed command', () => {
    expect(rules.validate(cmdOf(ok))).toBe(0);
    for (const flags of [0, TR, ACC, O32, TR | ACC | O32]) expect(rules.validate(cmdOf(ok, MATMUL, flags))).toBe(0);
  });

  it('BAD_OPCODE: unknown opcode or flag', () => {
    expect(rules.validate(cmdOf(ok, 0))).toBe(ERR.BAD_OPCODE);
    expect(rules.validate(cmdOf(ok, 2))).toBe(ERR.BAD_OPCODE);
    expect(rules.validate(cmdOf(ok, 0xff))).toBe(ERR.BAD_OPCODE);
    for (let bit = 3; bit < 8; bit++) expect(rules.validate(cmdOf(ok, MATMUL, O32 | (1 << bit)))).toBe(ERR.BAD_OPCODE);
  });

  it('ZERO_SIZE and BAD_K', () => {
    expect(rules.validate(cmdOf({ ...ok, k: 0 }))).toBe(ERR.ZERO_SIZE);
    for (const k of [1, 4, 7, 9, 12, 60, 65535]) expect(rules.validate(cmdOf({ ...ok, k }))).toBe(ERR.BAD_K);
    for (const k of [8, 16, 64]) expect(rules.validate(cmdOf({ ...ok, k }))).toBe(0);
  });

  it('MISALIGNED: every address and stride in use', () => {
    const bad: Partial<Mm>[] = [
      { a: 0x102 }, { b: 0x1001 }, { c: 0x2003 }, { cin: 0x3002 },
      { as: 34 }, { bs: 6 }, { cs: 33 }, { cins: 30 },
      { tr: true, bs: 2 }, { o32: false, cs: 5 },
    ];
    for (const d of bad) expect(rules.validate(cmdOf({ ...ok, ...d })), JSON.stringify(d)).toBe(ERR.MISALIGNED);
    // Cin is not in use without ACCUMULATE; odd shifts are fine.
    expect(rules.validate(cmdOf({ ...ok, acc: false, cin: 0x3002, cins: 7 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, shift: 31 }))).toBe(0);
  });

  it('RANGE: every operand extent up to the scratchpad end', () => {
    const S = cfg.spadKiB * 1024;
    // A: 8 rows of K/2 = 32 bytes, stride 32: extent 256.
    expect(rules.validate(cmdOf({ ...ok, a: S - 256 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, a: S - 252 }))).toBe(ERR.RANGE);
    // B: 64 rows of 4 bytes, stride 8: extent 63*8 + 4.
    expect(rules.validate(cmdOf({ ...ok, bs: 8, b: S - 508 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, bs: 8, b: S - 504 }))).toBe(ERR.RANGE);
    // Bt: 8 rows of 32 bytes, stride 64: extent 7*64 + 32.
    expect(rules.validate(cmdOf({ ...ok, tr: true, bs: 64, b: S - 480 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, tr: true, bs: 64, b: S - 476 }))).toBe(ERR.RANGE);
    // C int32: 8 rows of 32; int4: 8 rows of 4.
    expect(rules.validate(cmdOf({ ...ok, cs: 32, c: S - 256 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, cs: 32, c: S - 252 }))).toBe(ERR.RANGE);
    expect(rules.validate(cmdOf({ ...ok, o32: false, cs: 8, c: S - 60 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, o32: false, cs: 8, c: S - 56 }))).toBe(ERR.RANGE);
    // Cin only with ACCUMULATE.
    expect(rules.validate(cmdOf({ ...ok, cins: 64, cin: S - 480 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, cins: 64, cin: S - 476 }))).toBe(ERR.RANGE);
    expect(rules.validate(cmdOf({ ...ok, acc: false, cins: 64, cin: S - 476 }))).toBe(0);
    // A stride far too big (16-bit field).
    expect(rules.validate(cmdOf({ ...ok, a: 0, as: 0xfffc }))).toBe(ERR.RANGE);
    // A smaller scratchpad.
    const small = mxuRules(tpuCfg({ spadKiB: 8, regionKiB: 1 }));
    expect(small.validate(cmdOf({ ...ok, b: 0x1000, c: 0x1800, cin: 0x1c00, a: 0 }))).toBe(0);
    expect(small.validate(cmdOf({ ...ok, b: 0x1000, c: 0x2000, cin: 0x1c00, a: 0 }))).toBe(ERR.RANGE);
  });

  it('checks in the order opcode, zero, K, alignment, range', () => {
    const all = { ...ok, k: 0, a: 0xfffe };
    expect(rules.validate(cmdOf(all, 3))).toBe(ERR.BAD_OPCODE);
    expect(rules.validate(cmdOf(all, MATMUL, 0x80 | O32))).toBe(ERR.BAD_OPCODE);
    expect(rules.validate(cmdOf(all))).toBe(ERR.ZERO_SIZE);
    expect(rules.validate(cmdOf({ ...all, k: 12 }))).toBe(ERR.BAD_K);
    expect(rules.validate(cmdOf({ ...all, k: 16 }))).toBe(ERR.MISALIGNED);
    expect(rules.validate(cmdOf({ ...all, k: 16, a: 0xfffc }))).toBe(ERR.RANGE);
  });

  it('footprint: read and write region masks, sameRegion', () => {
    const fp = rules.footprint(cmdOf(ok));
    expect(fp).toEqual({ read: 0b1011, write: 0b0100, sameRegion: false });
    expect(rules.footprint(cmdOf({ ...ok, acc: false }))).toEqual({ read: 0b0011, write: 0b0100, sameRegion: false });
    // A crossing into region 1, where B lives.
    expect(rules.footprint(cmdOf({ ...ok, a: 0xf00, as: 64 }))).toEqual({ read: 0b1011, write: 0b0100, sameRegion: true });
    // Cin sharing A's region; C sharing A's region is not sameRegion (a write port).
    expect(rules.footprint(cmdOf({ ...ok, cin: 0x800 })).sameRegion).toBe(true);
    expect(rules.footprint(cmdOf({ ...ok, b: 0x3800 })).sameRegion).toBe(true);
    expect(rules.footprint(cmdOf({ ...ok, c: 0x0800 }))).toEqual({ read: 0b1011, write: 0b0001, sameRegion: false });
    // Transposed B: 8 rows of K/2 with its stride, spanning regions 4..11.
    expect(rules.footprint(cmdOf({ ...ok, tr: true, b: 0x4000, bs: 0x1000 })).read).toBe(0b1111_1111_1001);
    // Region 31 (2 KiB regions): the mask is an unsigned 32-bit number.
    const r2 = mxuRules(tpuCfg({ regionKiB: 2 }));
    const hi = r2.footprint(cmdOf({ ...ok, a: 0xf800, b: 0xfc00, c: 0xff00, cin: 0 }));
    expect(hi.read).toBe(0x8000_0001);
    expect(hi.write).toBe(0x8000_0000);
    expect(hi.sameRegion).toBe(true);
    // Non-transposed B: K rows.
    expect(rules.footprint(cmdOf({ ...ok, acc: false, b: 0x1000, bs: 0x100, k: 64 })).read).toBe(0b1_1111);
    expect(rules.footprint(cmdOf({ ...ok, acc: false, b: 0x1000, bs: 0x100, k: 48 })).read).toBe(0b0_1111);
  });

  it('nominal clocks', () => {
    for (const setup of [0, 2, 7]) {
      const r = mxuRules(tpuCfg({ mxuSetup: setup }));
      expect(r.nominalClocks(cmdOf({ ...ok, acc: false, k: 8 }))).toBe(setup + 8 + 22);
      expect(r.nominalClocks(cmdOf({ ...ok, acc: true, k: 64 }))).toBe(setup + 8 + 64 + 22);
    }
  });

  it('describe', () => {
    const p = mm({ a: 0x100, b: 0x1000, c: 0x2000, k: 64, tr: true, o32: true, shift: 3 });
    expect(rules.describe(cmdOf(p))).toBe('MATMUL A=0x0100 B=0x1000 C=0x2000 K=64 flags=TRANSPOSE_B|OUT_INT32 shift=3');
    expect(rules.describe(cmdOf({ ...p, tr: false, o32: false, acc: true, cin: 0xabc0 }))).toBe(
      'MATMUL A=0x0100 B=0x1000 C=0x2000 K=64 flags=ACCUMULATE shift=3 Cin=0xabc0',
    );
    expect(rules.describe(cmdOf({ ...p, tr: false, o32: false, shift: 0 }))).toContain('flags=none shift=0');
  });
});

describe('MXU models against the golden matmul', () => {
  it('the golden itself: a hand-worked 8×8×8 case', () => {
    // A = identity·3 (int4 3 on the diagonal), B[k][j] = k - j clamped: C[i][j] = 3·B[i][j].
    const spad = new Uint8Array(4096);
    const p = mm({ a: 0, as: 4, b: 0x100, bs: 4, c: 0x200, cs: 32, k: 8, o32: true });
    for (let i = 0; i < 8; i++) spad[p.a + i * 4 + (i >> 1)] |= 3 << (4 * (i & 1));
    const bv = (k: number, j: number) => Math.max(-8, Math.min(7, k - j));
    for (let k = 0; k < 8; k++) for (let j = 0; j < 8; j++) spad[p.b + k * 4 + (j >> 1)] |= (bv(k, j) & 15) << (4 * (j & 1));
    const C = goldenC(p, 2, (x) => spad[x]);
    for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) expect(C[i][j]).toBe(3 * bv(i, j));
    checkAll(tpuCfg({ spadKiB: 4, regionKiB: 1 }), p, spad, 100, rngOf(1));
    checkAll(tpuCfg({ spadKiB: 4, regionKiB: 1 }), { ...p, o32: false, shift: 1 }, spad, 100, rngOf(1));
  });

  it('random shapes, strides, flags and shifts; models reused across commands', () => {
    const rng = rngOf(0x5eed);
    let count = 0;
    for (const over of [{}, { mxuSetup: 0 }, { mxuSetup: 5, spadKiB: 16, regionKiB: 2 }, { spadKiB: 2, regionKiB: 1 }] as Partial<TpuConfig>[]) {
      const cfg = tpuCfg(over);
      const S = cfg.spadKiB * 1024;
      const models = persistentModels(cfg);
      let s = randInt(rng, 50);
      const seen = new Set<string>();
      for (let n = 0; n < 60; n++) {
        const p = randomMm(rng, S, S >= 4096 ? 256 : 64);
        seen.add(`${p.tr}${p.acc}${p.o32}`);
        checkAll(cfg, p, randomSpad(rng, S), s, rng, models);
        s += clocksOf(p, cfg.mxuSetup) + randInt(rng, 3);
        count++;
      }
      expect(seen.size).toBe(8);
    }
    expect(count).toBe(240);
  });

  it('K = 8 in every flag combination, and K at the scratchpad limit', () => {
    const rng = rngOf(7);
    const cfg = tpuCfg();
    for (let flags = 0; flags < 8; flags++) {
      const p = mm({ k: 8, tr: !!(flags & 1), acc: !!(flags & 2), o32: !!(flags & 4), as: 4, bs: 4, shift: 2 });
      checkAll(cfg, p, randomSpad(rng, 65536), 0, rng);
    }
    // 64 KiB: A fills the lower half, B (or Bt) ends exactly at the end; C over A.
    const S = 65536;
    const K = 8192;
    for (const tr of [false, true]) {
      const p = mm({ k: K, a: 0, as: K / 2, b: S / 2, bs: tr ? K / 2 : 4, tr, c: 0x40, cs: 32, acc: true, cin: 0x400, cins: 64, o32: true });
      expect(mxuRules(cfg).validate(cmdOf(p))).toBe(0);
      expect(mxuRules(cfg).validate(cmdOf({ ...p, b: S / 2 + 4 }))).toBe(ERR.RANGE);
      checkAll(cfg, p, randomSpad(rng, S), 10, rng);
    }
    // 1 KiB scratchpad: A is the whole of it.
    const small = tpuCfg({ spadKiB: 1, regionKiB: 1 });
    const p1 = mm({ k: 256, a: 0, as: 128, b: 0, bs: 0, c: 0x3e0, cs: 0, o32: false, shift: 4 });
    expect(mxuRules(small).validate(cmdOf(p1))).toBe(0);
    expect(mxuRules(small).validate(cmdOf({ ...p1, as: 132 }))).toBe(ERR.RANGE);
    checkAll(small, p1, randomSpad(rng, 1024), 3, rng);
  });

  it('the largest K the field holds (65528), with zero strides', () => {
    const rng = rngOf(11);
    const cfg = tpuCfg();
    const p = mm({ k: 65528, a: 0, as: 0, b: 0x8000, bs: 0, c: 0xff00, cs: 32, o32: true });
    expect(mxuRules(cfg).validate(cmdOf(p))).toBe(0);
    checkAll(cfg, p, randomSpad(rng, 65536), 0, rng);
    checkAll(cfg, { ...p, tr: true, b: 0x8000, bs: 0, o32: false, shift: 12 }, randomSpad(rng, 65536), 0, rng);
  });

  it('int32 sums wrap mod 2^32 (Cin near the limits)', () => {
    const cfg = tpuCfg();
    const spad = new Uint8Array(65536);
    const p = mm({ k: 8, a: 0, as: 4, b: 0x100, bs: 4, c: 0x200, cs: 32, acc: true, cin: 0x400, cins: 32, o32: true });
    spad.fill(0x77, 0, 32); // A: all 7
    spad.fill(0x77, 0x100, 0x100 + 32); // B: all 7 → Σ = 8·49 = 392
    const dv = new DataView(spad.buffer);
    for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) dv.setInt32(0x400 + 32 * i + 4 * j, (i + j) & 1 ? 0x7fffffff : -0x80000000, true);
    const want = goldenImage(spad, p, cfg.mxuSetup);
    const wdv = new DataView(want.buffer);
    expect(wdv.getInt32(0x200 + 4, true)).toBe((0x7fffffff + 392) | 0);
    expect(wdv.getInt32(0x200 + 4, true)).toBeLessThan(0);
    checkAll(cfg, p, spad, 0, rngOf(3));
    // Requantized too: a wrapped negative saturates to -8.
    checkAll(cfg, { ...p, o32: false, shift: 3 }, spad, 0, rngOf(3));
  });
});

describe('MXU schedule: reads and writes at the documented clocks', () => {
  const cfg = tpuCfg({ mxuSetup: 3 });

  /** The bytes read (tickRead) and written (tickWrite) at each relative clock, by the brief's schedule. */
  function expectedTrace(p: Mm, setup: number): string[] {
    const out: string[] = [];
    const D = p.dim;
    const half = D / 2;
    const stream = setup + (p.acc ? D : 0);
    const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
    const push = (rel: number, kind: string, addrs: number[]) => out.push(`${rel} ${kind} ${[...new Set(addrs)].sort((x, y) => x - y).join(',')}`);
    if (p.acc) for (let q = 0; q < D; q++) push(setup + q, 'R', range(p.cin + q * p.cins, 4 * D));
    for (let t = 0; t < p.k; t++) {
      const blk = Math.floor(t / D);
      const a = range(p.a + (t % D) * p.as + blk * half, half);
      const b = p.tr ? range(p.b + (t % D) * p.bs + blk * half, half) : range(p.b + t * p.bs, half);
      push(stream + t, 'R', [...a, ...b]);
    }
    for (let w = 0; w < D; w++) push(stream + p.k + 2 * (D - 1) + w, 'W', range(p.c + w * p.cs, p.o32 ? 4 * D : half));
    return out;
  }

  /** Drives a model over a scratchpad that logs every element access with the clock and phase. */
  function traced(make: (mem: UnitMemories) => UnitModel, p: Mm, init: Uint8Array, s: number): { trace: string[]; out: Uint8Array } {
    const raw = init.slice();
    let clock = -1;
    let phase = 'X';
    const log = new Map<string, number[]>();
    const note = (kind: string, prop: string | symbol) => {
      if (typeof prop !== 'string' || !/^\d+$/.test(prop)) throw new Error(`unexpected access to spad.${String(prop)}`);
      const key = `${clock - s} ${phase === 'read' ? kind : kind === 'R' ? 'RW' : 'W'}`;
      if (phase !== 'read' && phase !== 'write') throw new Error(`access outside a tick (${String(prop)})`);
      if (phase === 'read' && kind === 'W') throw new Error('write in tickRead');
      (log.get(key) ?? log.set(key, []).get(key)!).push(Number(prop));
    };
    const spad = new Proxy(raw, {
      get(t, prop) {
        note('R', prop);
        return Reflect.get(t, prop);
      },
      set(t, prop, v) {
        note('W', prop);
        return Reflect.set(t, prop, v);
      },
    });
    const model = make(memOf(spad));
    runTicks(model, cmdOf(p), s, (c, ph) => {
      clock = c;
      phase = ph === 'beforeRead' ? 'read' : ph === 'afterRead' ? 'write' : 'X';
    });
    const trace = [...log.entries()].map(([k, v]) => `${k} ${[...new Set(v)].sort((x, y) => x - y).join(',')}`);
    const rel = (x: string) => Number(x.split(' ')[0]);
    trace.sort((x, y) => rel(x) - rel(y) || (x < y ? -1 : 1));
    return { trace, out: raw };
  }

  it('both models touch exactly the scheduled bytes at the scheduled clocks', () => {
    const rng = rngOf(99);
    const cfg16 = { ...cfg, mxuDim: 16 };
    const cases: Mm[] = [
      mm({ k: 16, acc: true, tr: false, o32: true }),
      mm({ k: 24, acc: false, tr: true, o32: false, bs: 12, cs: 8 }),
      mm({ k: 8, acc: true, tr: true, o32: false, as: 0, bs: 4, cs: 0 }),
      mm({ dim: 16, k: 32, acc: true, tr: false, o32: true, as: 16, bs: 8, cs: 64, cins: 64 }),
      mm({ dim: 16, k: 48, acc: false, tr: true, o32: false, as: 24, bs: 32, cs: 8 }),
    ];
    for (let n = 0; n < 6; n++) cases.push(randomMm(rng, 65536, 64));
    for (let n = 0; n < 4; n++) cases.push(randomMm(rng, 65536, 64, 16));
    for (const p of cases) {
      const c = p.dim === 16 ? cfg16 : cfg;
      const init = randomSpad(rng, 65536);
      const want = expectedTrace(p, c.mxuSetup);
      const ref = traced((m) => new MxuReference(m, c), p, init, 17);
      const fast = traced((m) => new MxuFast(m, c), p, init, 17);
      expect(ref.trace, `reference ${JSON.stringify(p)}`).toEqual(want);
      expect(fast.trace, `fast ${JSON.stringify(p)}`).toEqual(want);
      sameBytes(ref.out, goldenImage(init, p, cfg.mxuSetup), 'reference vs golden');
      sameBytes(fast.out, ref.out, 'fast vs reference');
    }
  });

  /** A change of memory at (clock, phase): it is seen by reads from that clock on if made before the read. */
  interface Mutation {
    clock: number;
    phase: Phase;
    addr: number;
    value: number;
  }

  function seenAt(init: Uint8Array, muts: readonly Mutation[], s: number): ByteAt {
    return (addr, rel) => {
      let v = init[addr];
      for (const m of muts) {
        if (m.addr !== addr) continue;
        if (m.clock < s + rel || (m.clock === s + rel && m.phase === 'beforeRead')) v = m.value;
      }
      return v;
    };
  }

  function runMutated(model: 'ref' | 'fast' | 'mixed', p: Mm, init: Uint8Array, muts: readonly Mutation[], s: number, rng: () => number): Uint8Array {
    const spad = init.slice();
    const hook: Hook = (c, ph) => {
      for (const m of muts) if (m.clock === c && m.phase === ph) spad[m.addr] = m.value;
    };
    const cmd = cmdOf(p);
    const total = clocksOf(p, cfg.mxuSetup);
    let end: number;
    if (model === 'ref') end = runTicks(new MxuReference(memOf(spad), cfg), cmd, s, hook);
    else if (model === 'fast') end = runTicks(new MxuFast(memOf(spad), cfg), cmd, s, hook);
    else end = runMixed(new MxuFast(memOf(spad), cfg), cmd, s, total, rng, hook, muts.map((m) => m.clock));
    expect(end).toBe(s + total - 1);
    return spad;
  }

  /** The C bytes the golden expects given the mutations (which never touch C). */
  function expectC(p: Mm, init: Uint8Array, muts: readonly Mutation[], s: number): Uint8Array {
    const img = init.slice();
    for (const m of muts) img[m.addr] = m.value;
    writeC(img, p, goldenC(p, cfg.mxuSetup, seenAt(init, muts, s)));
    return img;
  }

  it('a change to A row 3 of block 0 is seen before stream clock 3\'s read, not after', () => {
    const rng = rngOf(5);
    const s = 40;
    for (const acc of [false, true]) {
      const p = mm({ k: 16, acc, a: 0x100, as: 16, o32: true });
      const init = randomSpad(rng, 65536);
      const stream = s + cfg.mxuSetup + (acc ? 8 : 0);
      const addr = p.a + 3 * p.as; // A[3][0..1]
      const at = (clock: number, phase: Phase): Mutation[] => [0, 1, 2, 3].map((q) => ({ clock, phase, addr: addr + q, value: init[addr + q] ^ 0x99 }));
      const before = at(stream + 3, 'beforeRead');
      const after = at(stream + 3, 'afterRead');
      const wantNew = expectC(p, init, before, s);
      const wantOld = expectC(p, init, after, s);
      // The two outcomes differ (so the check below can fail), and "old" is the unmodified product.
      expect(Buffer.from(wantNew.subarray(p.c, p.c + 256)).equals(Buffer.from(wantOld.subarray(p.c, p.c + 256)))).toBe(false);
      sameBytes(wantOld.subarray(p.c, p.c + 256), goldenImage(init, p, cfg.mxuSetup).subarray(p.c, p.c + 256), 'old = unmodified');
      for (const model of ['ref', 'fast', 'mixed'] as const) {
        sameBytes(runMutated(model, p, init, before, s, rng), wantNew, `${model} before`);
        sameBytes(runMutated(model, p, init, after, s, rng), wantOld, `${model} after`);
        // Changing it one clock earlier (after stream clock 2) is also seen; after the write half of clock 3 not.
        sameBytes(runMutated(model, p, init, at(stream + 2, 'afterWrite'), s, rng), wantNew, `${model} earlier`);
        sameBytes(runMutated(model, p, init, at(stream + 3, 'afterWrite'), s, rng), wantOld, `${model} later`);
      }
    }
  });

  it('likewise for B rows, Bt rows and Cin rows, at their own clocks', () => {
    const rng = rngOf(6);
    const s = 9;
    for (const tr of [false, true]) {
      const p = mm({ k: 32, acc: true, tr, a: 0x100, as: 16, b: 0x1000, bs: tr ? 20 : 8, cin: 0x3000, cins: 36, o32: true });
      const setup = cfg.mxuSetup;
      const stream = s + setup + 8;
      const init = randomSpad(rng, 65536);
      // (clock of the read, address): B row 13 (t = 13) or Bt row 5 of block 1 (t = 13); Cin row 6 (preload 6); A row 7 of block 3 (t = 31).
      const targets: [number, number][] = [
        [stream + 13, tr ? p.b + 5 * p.bs + 4 : p.b + 13 * p.bs],
        [s + setup + 6, p.cin + 6 * p.cins + 8],
        [stream + 31, p.a + 7 * p.as + 12],
      ];
      for (const [clock, addr] of targets) {
        const mut = (phase: Phase): Mutation[] => [0, 1, 2, 3].map((q) => ({ clock, phase, addr: addr + q, value: init[addr + q] ^ 0x5a }));
        const wantNew = expectC(p, init, mut('beforeRead'), s);
        const wantOld = expectC(p, init, mut('afterRead'), s);
        expect(Buffer.from(wantNew.subarray(p.c, p.c + 256)).equals(Buffer.from(wantOld.subarray(p.c, p.c + 256)))).toBe(false);
        for (const model of ['ref', 'fast', 'mixed'] as const) {
          sameBytes(runMutated(model, p, init, mut('beforeRead'), s, rng), wantNew, `${model} ${tr} ${clock - s} before`);
          sameBytes(runMutated(model, p, init, mut('afterRead'), s, rng), wantOld, `${model} ${tr} ${clock - s} after`);
        }
      }
    }
  });

  it('random changes to the operands at random clocks: every model sees what the schedule says', () => {
    const rng = rngOf(1234);
    for (let n = 0; n < 40; n++) {
      // Keep C clear of the operands so the changes never touch it.
      let p: Mm;
      do p = randomMm(rng, 65536, 96);
      while (overlapsC(p));
      const s = randInt(rng, 100);
      const total = clocksOf(p, cfg.mxuSetup);
      const init = randomSpad(rng, 65536);
      const opBytes = operandBytes(p);
      const muts: Mutation[] = [];
      for (let m = 0; m < 30; m++) {
        muts.push({
          clock: s + randInt(rng, total),
          phase: (['beforeRead', 'afterRead', 'afterWrite'] as const)[randInt(rng, 3)],
          addr: opBytes[randInt(rng, opBytes.length)],
          value: randInt(rng, 256),
        });
      }
      // In time order (the order the hooks apply them), so that the last one of a byte wins.
      const order = { beforeRead: 0, afterRead: 1, afterWrite: 2 };
      muts.sort((x, y) => x.clock - y.clock || order[x.phase] - order[y.phase]);
      const want = expectC(p, init, muts, s);
      for (const model of ['ref', 'fast', 'mixed'] as const) {
        sameBytes(runMutated(model, p, init, muts, s, rng), want, `${model} ${JSON.stringify(p)}`);
      }
    }
  });

  function operandBytes(p: Mm): number[] {
    const out = new Set<number>();
    const add = (addr: number, rows: number, rowBytes: number, stride: number) => {
      for (let r = 0; r < rows; r++) for (let q = 0; q < rowBytes; q++) out.add(addr + r * stride + q);
    };
    add(p.a, 8, p.k / 2, p.as);
    if (p.tr) add(p.b, 8, p.k / 2, p.bs);
    else add(p.b, p.k, 4, p.bs);
    if (p.acc) add(p.cin, 8, 32, p.cins);
    return [...out];
  }

  function overlapsC(p: Mm): boolean {
    const c = new Set<number>();
    for (let r = 0; r < 8; r++) for (let q = 0; q < (p.o32 ? 32 : 4); q++) c.add(p.c + r * p.cs + q);
    return operandBytes(p).some((x) => c.has(x));
  }
});

describe('MXU clock protocol', () => {
  const cfg = tpuCfg();
  const p = mm({ k: 8 });

  it('rejects calls out of protocol', () => {
    for (const make of [() => new MxuReference(memOf(new Uint8Array(65536)), cfg), () => new MxuFast(memOf(new Uint8Array(65536)), cfg)]) {
      const m = make();
      expect(m.running).toBe(false);
      expect(() => m.tickRead(0)).toThrow();
      m.begin(cmdOf(p), 5);
      expect(() => m.begin(cmdOf(p), 5)).toThrow();
      expect(() => m.tickWrite(5)).toThrow(); // write before read
      expect(() => m.tickRead(6)).toThrow(); // clock skipped
      m.tickRead(5);
      expect(() => m.tickRead(5)).toThrow(); // read twice
      expect(m.tickWrite(5)).toBe(false);
    }
    expect(() => new MxuReference(memOf(new Uint8Array(65536)), cfg).horizon(0)).toThrow();
  });

  it('fast model: horizon is the clocks to the end; skip never crosses it', () => {
    const m = new MxuFast(memOf(new Uint8Array(65536)), cfg);
    const total = clocksOf(p, cfg.mxuSetup);
    m.begin(cmdOf(p), 100);
    expect(m.horizon(100)).toBe(total);
    expect(() => m.skip(100, total + 1)).toThrow();
    expect(() => m.skip(100, 0)).toThrow();
    expect(m.skip(100, 3)).toBe(false);
    expect(() => m.skip(100, 1)).toThrow(); // clock already past
    expect(m.horizon(103)).toBe(total - 3);
    m.tickRead(103);
    expect(() => m.skip(103, 1)).toThrow(); // mid-clock
    expect(m.tickWrite(103)).toBe(false);
    expect(m.skip(104, total - 4)).toBe(true);
    expect(m.running).toBe(false);
    // A whole command in one skip, straight after begin.
    m.begin(cmdOf(p), 200);
    expect(m.skip(200, m.horizon(200))).toBe(true);
  });
});

describe('a 16×16 MXU (tpu.mxuDim = 16, the MXU-size what-if)', () => {
  const cfg = tpuCfg({ mxuDim: 16 });
  const rules = mxuRules(cfg);
  const ok = mm({ dim: 16, a: 0x100, b: 0x1000, c: 0x2000, k: 64, as: 32, bs: 8, cs: 64, acc: true, o32: true, cin: 0x3000, cins: 64 });

  it('clocks: setup + (ACCUMULATE ? 16 : 0) + K + 30 + 16', () => {
    expect(rules.validate(cmdOf(ok))).toBe(0);
    expect(rules.nominalClocks(cmdOf(ok))).toBe(2 + 16 + 64 + 30 + 16);
    expect(rules.nominalClocks(cmdOf({ ...ok, acc: false, k: 16 }))).toBe(2 + 16 + 30 + 16);
  });

  it('K a multiple of 16; addresses and strides multiples of 8', () => {
    for (const k of [8, 24, 40]) expect(rules.validate(cmdOf({ ...ok, k }))).toBe(ERR.BAD_K);
    for (const d of [{ a: 0x104 }, { b: 0x1004 }, { c: 0x2004 }, { cin: 0x3004 }, { as: 36 }, { bs: 12 }, { cs: 68 }, { cins: 60 }] as Partial<Mm>[]) {
      expect(rules.validate(cmdOf({ ...ok, ...d })), JSON.stringify(d)).toBe(ERR.MISALIGNED);
    }
    // The same command is well-formed for the 8×8 array, whose alignment is 4.
    expect(mxuRules(tpuCfg()).validate(cmdOf({ ...ok, k: 24, a: 0x104 }))).toBe(0);
  });

  it('extents: 16 rows of A, K rows of 8 bytes of B, 16 rows of 64-byte C', () => {
    const S = cfg.spadKiB * 1024;
    // C int32: 16 rows of 64, stride 64: extent 1024.
    expect(rules.validate(cmdOf({ ...ok, c: S - 1024 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, c: S - 1016 }))).toBe(ERR.RANGE);
    // B: 64 rows of 8 bytes, stride 8: extent 512.
    expect(rules.validate(cmdOf({ ...ok, b: S - 512 }))).toBe(0);
    expect(rules.validate(cmdOf({ ...ok, b: S - 504 }))).toBe(ERR.RANGE);
    // B region mask: 64 rows of stride 0x100 span four regions.
    expect(rules.footprint(cmdOf({ ...ok, acc: false, bs: 0x100 })).read).toBe(0b1_1111);
  });

  it('a hand-worked 16×16×16 case: 3·I times B', () => {
    const spad = new Uint8Array(4096);
    const p = mm({ dim: 16, a: 0, as: 8, b: 0x200, bs: 8, c: 0x400, cs: 64, k: 16, o32: true });
    for (let i = 0; i < 16; i++) spad[p.a + i * 8 + (i >> 1)] |= 3 << (4 * (i & 1));
    const bv = (k: number, j: number) => Math.max(-8, Math.min(7, k - j));
    for (let k = 0; k < 16; k++) for (let j = 0; j < 16; j++) spad[p.b + k * 8 + (j >> 1)] |= (bv(k, j) & 15) << (4 * (j & 1));
    const C = goldenC(p, 2, (x) => spad[x]);
    for (let i = 0; i < 16; i++) for (let j = 0; j < 16; j++) expect(C[i][j]).toBe(3 * bv(i, j));
    const small = tpuCfg({ mxuDim: 16, spadKiB: 4, regionKiB: 1 });
    checkAll(small, p, spad, 100, rngOf(1));
    checkAll(small, { ...p, o32: false, shift: 1, cs: 8 }, spad, 100, rngOf(1));
  });

  it('random shapes, strides, flags and shifts: reference, fast and fast-with-skips = golden', () => {
    const rng = rngOf(0x16);
    const seen = new Set<string>();
    for (const over of [{ mxuDim: 16 }, { mxuDim: 16, mxuSetup: 0, spadKiB: 16, regionKiB: 2 }] as Partial<TpuConfig>[]) {
      const c = tpuCfg(over);
      const S = c.spadKiB * 1024;
      const models = persistentModels(c);
      let s = randInt(rng, 50);
      for (let n = 0; n < 40; n++) {
        const p = randomMm(rng, S, 256, 16);
        seen.add(`${p.tr}${p.acc}${p.o32}`);
        checkAll(c, p, randomSpad(rng, S), s, rng, models);
        s += clocksOf(p, c.mxuSetup) + randInt(rng, 3);
      }
    }
    expect(seen.size).toBe(8);
  });
});
