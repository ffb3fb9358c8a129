// The seed board's TPU (boards/transformer-tpu-int4/): worked examples whose clocks are
// derived by hand from the RTL's FSMs (the derivation is in each comment; the
// driver stores a command's words at clocks s, s+9, s+18, s+27, so a command
// whose first store is at s commits at t = s + 27), and the reference and fast
// models against each other and against plain functional models.
import { describe, expect, it } from 'vitest';
import { packSeedCommand as P, SEED_DMA, SEED_MXU, SEED_VPU } from '../boards/transformer-tpu-int4/regs.ts';
import { SEED_STUCK_WAIT, SeedTpu } from '../boards/transformer-tpu-int4/tpu.ts';
import { drive, seedTiledStream, type SeedOp } from './helpers/seed-driver.ts';
import { goldenDma, goldenMm, goldenVpu } from './helpers/seed-golden.ts';

const cmd = (unit: number, name: string, f: Record<string, number>, gap = 0): SeedOp => ({ kind: 'cmd', unit, words: P(unit, name, f), gap });
const PATTERN = new Uint8Array(512 * 1024).map((_, i) => (i * 37 + 11 + (i >> 9)) & 0xff);
const patterned = () => PATTERN.slice();
const both = (ops: SeedOp[], spad?: Uint8Array) => [true, false].map((ref) => drive(ref, patterned(), ops, spad));
/** onCommand records as [unit, opcode, start, end] quads. */
const quads = (c: number[]) => { const q: number[][] = []; for (let i = 0; i < c.length; i += 4) q.push(c.slice(i, i + 4)); return q; };

describe('seed TPU: worked examples (clocks from the RTL FSMs)', () => {
  it('DMA fill: busy one clock a byte, no setup; 2 idle clocks between commands', () => {
    // Commit at t = 5 + 27 = 32. cmd_dma is in S_HEAD with the entry at 33 (dma_start, dma.sv S_IDLE
    // latches), S_FILL 34 .. 34+255 (256 bytes, every write granted), S_DONE at 290 (cmd_dma pops),
    // S_IDLE at 291 with the next head's dma_start, S_FILL from 292: 290 and 291 are not busy.
    for (const r of both([cmd(SEED_DMA, 'MOVE', { LEN: 64, ROWS: 8 }), cmd(SEED_DMA, 'MOVE', { SPAD_ADDR: 0x1000, LEN: 63, ROWS: 1 }), { kind: 'waitAll' }])) {
      expect(quads(r.commands)).toEqual([[SEED_DMA, 1, 34, 290], [SEED_DMA, 1, 292, 292 + 32]]);
      expect(r.tpu.counters().dma).toBe(256 + 32); // LEN 63 is (63+1)/2 = 32 bytes
    }
  });

  it('DMA spill: 2·bytes + 3 busy clocks', () => {
    // S_SPILL from 34: fetch byte 0 (34), it lands (35), beat i starts at 34 + 2 + 2i with the next fetch,
    // the last beat (i = 9) at 54, two more clocks of WE# (55, 56), S_DONE at 57: 23 = 2·10 + 3 busy clocks.
    for (const r of both([cmd(SEED_DMA, 'MOVE', { SPILL: 1, SRAM_ADDR: 0x100, LEN: 20, ROWS: 1 }), { kind: 'waitAll' }])) {
      expect(quads(r.commands)).toEqual([[SEED_DMA, 1, 34, 57]]);
      expect(r.tpu.counters().dma).toBe(23);
    }
  });

  it('zero-length commands: DMA counts 0 busy clocks, MXU and VPU their one DONE clock', () => {
    // dma.sv S_IDLE → S_DONE when rows or row bytes are 0 (S_DONE is not busy); mxu.sv → S_DONE when
    // len = 0 and vpu.sv when vlen = 0 (busy = state != IDLE, so DONE counts).
    for (const r of both([cmd(SEED_DMA, 'MOVE', { LEN: 0, ROWS: 4 }), cmd(SEED_MXU, 'MM', {}), cmd(SEED_VPU, 'OP', { OP: 1, VLEN: 0 }), { kind: 'waitAll' }])) {
      const c = r.tpu.counters();
      expect([c.dma, c.mxu, c.vpu]).toEqual([0, 1, 1]);
      expect(quads(r.commands)[0]).toEqual([SEED_DMA, 1, 34, 34]);
    }
  });

  it('MXU: GEOM retires in one clock; MM takes K + 25, accumulating K + 33, 1 idle clock between', () => {
    // GEOM commits at 32, popped by cmd_mxu at 33. MM #1 commits at 32 + 36 = 68: mxu_start at 69,
    // S_STREAM from 70 (iq issues 70..70+K-1, the array steps sc = 0..K+14 at 71..K+85), S_DRAIN_WR
    // for 8 rows (K+86 .. K+93), S_DONE at K+94: K + 25 busy clocks with K = 40 → end 134.
    // MM #2 (accumulating, transposed) commits at 104, waits in the queue; start at 135 (S_IDLE),
    // busy from 136: drain is RD+WR per row, 16 clocks → K + 33, S_DONE at 136 + 72 = 208.
    const ops = [
      cmd(SEED_MXU, 'GEOM', { LEN: 40 }),
      cmd(SEED_MXU, 'MM', { A_ADDR: 0, B_ADDR: 0x2000, C_ADDR: 0x4000, M0: 3, N: 5 }),
      cmd(SEED_MXU, 'MM', { ACC: 1, TRANSPOSE: 1, A_ADDR: 0, B_ADDR: 0x2000, C_ADDR: 0x4000, M0: 3, N: 5 }),
      { kind: 'waitAll' } as SeedOp,
    ];
    for (const r of both(ops)) {
      expect(quads(r.commands)).toEqual([[SEED_MXU, 1, 33, 33], [SEED_MXU, 2, 70, 134], [SEED_MXU, 2, 136, 208]]);
      expect(r.tpu.counters().mxu).toBe(65 + 73);
    }
  });

  it('VPU: 3 clocks a word unary, 5 binary, + DONE; DOT and ARGMAX one more (S_WB)', () => {
    // vlen 64 = 8 words. ADD: (RD0 RD0D RD1 RD1D EXEC) × 8 + DONE = 41; RELU: (RD0 RD0D EXEC) × 8 + 1 = 25;
    // DOT: 40 + WB + DONE = 42; ARGMAX: 24 + 2 = 26; vlen 10 (2 words) REQUANT: 3·2 + 1 = 7.
    const ops: SeedOp[] = [
      cmd(SEED_VPU, 'OP', { OP: 1, DST: 0x100, SRC0: 0x200, SRC1: 0x300, VLEN: 64, M0: 1 }),
      { kind: 'waitAll' },
      cmd(SEED_VPU, 'OP', { OP: 3, DST: 0x100, SRC0: 0x200, VLEN: 64, M0: 1 }), { kind: 'waitAll' },
      cmd(SEED_VPU, 'OP', { OP: 0, DST: 0x100, SRC0: 0x200, SRC1: 0x300, VLEN: 64 }), { kind: 'waitAll' },
      cmd(SEED_VPU, 'OP', { OP: 18, DST: 0x100, SRC0: 0x200, VLEN: 64 }), { kind: 'waitAll' },
      cmd(SEED_VPU, 'OP', { OP: 10, DST: 0x100, SRC0: 0x200, VLEN: 10, M0: 1 }), { kind: 'waitAll' },
    ];
    for (const r of both(ops)) {
      expect(quads(r.commands).map(([, , s, e]) => e - s + 1)).toEqual([41, 25, 42, 26, 7]);
      expect(r.tpu.counters().vpu).toBe(41 + 25 + 42 + 26 + 7);
    }
  });

  it('a full queue holds the commit store; qfull stays 0, trueQfullStall has the clocks', () => {
    // Nine 1000-byte fills back to back: commits at 32 + 36k. The first runs 34..1033, S_DONE (pop) at
    // 1034, so the queue (8 entries, the running one included) has room from 1035: the ninth commit
    // store, presented at 32 + 288 = 320, lands at 1035 after 715 wait clocks.
    const ops: SeedOp[] = [];
    for (let k = 0; k < 9; k++) ops.push(cmd(SEED_DMA, 'MOVE', { SPAD_ADDR: k * 1000, LEN: 2000, ROWS: 1 }));
    for (const r of both(ops)) {
      const waits = r.trace.filter((_, i) => i % 2 === 1);
      expect(waits[35]).toBe(715);
      expect(waits.filter((w) => w > 0)).toEqual([715]);
      const c = r.tpu.counters();
      expect(c.qfull).toBe(0);
      expect(c.trueQfullStall).toBe(715);
    }
  });

  it('bank conflicts stall by priority: a CPU write waits out a DMA fill of its bank, a CPU read does not', () => {
    // The fill writes bank 0 at 34 .. 34+511. A CPU write presented at 100 loses every clock until the
    // fill's S_DONE (546) and is granted there: 446 wait clocks. A CPU read of bank 0 at 119 (the read
    // port; the fill only writes) is granted at once and sees the bytes the fill wrote at 50..53.
    const ops: SeedOp[] = [cmd(SEED_DMA, 'MOVE', { LEN: 1024, ROWS: 1 }), { kind: 'idle', clocks: 100 - 41 }, { kind: 'spadWrite', addr: 0x10, value: 0x12345678, wstrb: 15 }];
    for (const r of both(ops)) expect(r.trace.slice(-2)).toEqual([100, 446]);
    const ops2: SeedOp[] = [cmd(SEED_DMA, 'MOVE', { LEN: 1024, ROWS: 1 }), { kind: 'idle', clocks: 119 - 41 }, { kind: 'spadRead', addr: 0x10 }];
    const src = patterned();
    const word = (src[0x10] | (src[0x11] << 8) | (src[0x12] << 16) | (src[0x13] << 24)) >>> 0;
    for (const r of both(ops2)) expect(r.trace.slice(-3)).toEqual([119, word, 0]);
  });

  it('the MXU A port outranks the CPU: a window read waits out the operand issue', () => {
    // GEOM K = 64 commits at 32; MM at 68, S_STREAM from 70, A issues at 70..133 (64 words, bank 0).
    // A CPU read of bank 0 presented at 77 (the next access) is granted at 134: 57 wait clocks.
    const ops: SeedOp[] = [cmd(SEED_MXU, 'GEOM', { LEN: 64 }), cmd(SEED_MXU, 'MM', { A_ADDR: 0, B_ADDR: 0x2000, C_ADDR: 0x4000 }), { kind: 'spadRead', addr: 0x40 }];
    for (const r of both(ops)) expect([r.trace.at(-3), r.trace.at(-1)]).toEqual([77, 57]);
  });

  it('MXU A and B in one bank: B is denied for ever, the MXU never finishes, and the emulator says so', () => {
    const ops: SeedOp[] = [cmd(SEED_MXU, 'GEOM', { LEN: 16 }), cmd(SEED_MXU, 'MM', { A_ADDR: 0, B_ADDR: 0x100, C_ADDR: 0x4000 }), { kind: 'idle', clocks: 5000 }];
    for (const r of both(ops)) {
      expect(r.tpu.queueLevel(SEED_MXU)).toBe(1);
      expect(r.tpu.unitBusy(SEED_MXU)).toBe(true);
      expect(r.tpu.hazards.map((h) => h.kind)).toEqual(['mxu-ab-same-bank']);
      expect(r.tpu.stuck).toBe(false);
    }
    // A window read of the starved bank, or an eighth command behind the starved one, can never
    // complete: the RTL hangs; the model reports SEED_STUCK_WAIT wait clocks and freezes.
    const read: SeedOp[] = [...ops, { kind: 'spadRead', addr: 0x800 }];
    for (const r of both(read)) {
      expect(r.trace.at(-1)).toBe(SEED_STUCK_WAIT);
      expect(r.tpu.stuck).toBe(true);
      expect(r.tpu.hazards.map((h) => h.kind)).toEqual(['mxu-ab-same-bank', 'deadlock']);
    }
    const full: SeedOp[] = [...ops];
    for (let k = 0; k < 8; k++) full.push(cmd(SEED_MXU, 'MM', { A_ADDR: 0x1000, B_ADDR: 0x2000 }));
    for (const r of both(full)) {
      expect(r.trace.filter((_, i) => i % 2 === 1).at(-1)).toBe(SEED_STUCK_WAIT);
      expect(r.tpu.queueLevel(SEED_MXU)).toBe(8);
    }
  });

  it('unknown opcodes are popped in one clock and retired; an unknown VPU op writes zeros', () => {
    // DMA opcode 7 commits at 32, is at the head at 33 and popped there (retired 1). VPU OP with op 5:
    // S_RD0, S_RD0D, S_EXEC (writes 0) per word: 2 words + DONE = 7 clocks, from 70 to 76.
    const spad = new Uint8Array(65536).fill(0x77);
    const ops: SeedOp[] = [{ kind: 'cmd', unit: SEED_DMA, words: [0x107, 0, 0x10_0010, 0], gap: 0 }, cmd(SEED_VPU, 'OP', { OP: 5, DST: 0x300, SRC0: 0x200, VLEN: 16 }), { kind: 'waitAll' }];
    for (const r of both(ops, spad)) {
      expect(quads(r.commands)).toEqual([[SEED_DMA, 7, 33, 33], [SEED_VPU, 1, 70, 76]]);
      expect(r.tpu.read(0x64, r.endClock + 2)).toBe(1);
      expect([...r.tpu.spad.subarray(0x2fe, 0x30a)]).toEqual([0x77, 0x77, 0, 0, 0, 0, 0, 0, 0, 0, 0x77, 0x77]);
      expect(r.tpu.hazards.map((h) => h.kind)).toEqual(['unknown-opcode', 'unknown-vpu-op']);
    }
  });

  it('odd-vlen is a hazard of element-wise ops only: DOT and ARGMAX reduce to a word and write no nibbles', () => {
    const ops: SeedOp[] = [
      cmd(SEED_VPU, 'OP', { OP: 18, DST: 0x100, SRC0: 0x200, VLEN: 15 }), { kind: 'waitAll' },
      cmd(SEED_VPU, 'OP', { OP: 0, DST: 0x100, SRC0: 0x200, SRC1: 0x300, VLEN: 15 }), { kind: 'waitAll' },
      cmd(SEED_VPU, 'OP', { OP: 1, DST: 0x100, SRC0: 0x200, SRC1: 0x300, VLEN: 15 }), { kind: 'waitAll' },
    ];
    for (const r of both(ops)) expect(r.tpu.hazards.map((h) => [h.kind, h.text])).toEqual([['odd-vlen', 'VPU vlen 15 is odd: the last byte\'s high nibble is written 0']]);
  });

  it('status registers: issued, retired, level (the running command included), idle bits; byte stores fill the word', () => {
    const t = new SeedTpu({ reference: false }, patterned());
    t.runPulse(0);
    const w = P(SEED_DMA, 'MOVE', { LEN: 200, ROWS: 1 });
    for (let k = 0; k < 4; k++) t.write(0x20 + 4 * k, w[k], 15, 10 + 9 * k); // commit at 37, running from 39 (100 bytes)
    expect([t.read(0x60, 50), t.read(0x64, 50), t.read(0x68, 50), t.read(0x70, 50)]).toEqual([1, 0, 1, 0b1011]);
    // the fill's S_DONE (its pop) is at 139; nextEventClock is a lower bound of it, here exact
    expect(t.nextEventClock()).toBe(139);
    // S_DONE at 139: popped at its edge, so 139 still reads level 1 and 140 reads 0
    expect([t.read(0x68, 139), t.read(0x68, 140), t.read(0x64, 140), t.read(0x70, 140)]).toEqual([1, 0, 1, 0xf]);
    expect(t.read(0x1234, 141)).toBe(0);
    expect(t.nextEventClock()).toBe(Infinity);
    t.spadWindow.write(0x8001, 0x0000a500, 0b0010, 150); // sb: PicoRV32 repeats the byte, the slave ignores wstrb
    expect(t.spadWindow.read(0x8000, 160)).toBe(0xa5a5a5a5);
  });
});

// ---------------- reference vs fast, and vs the functional models ----------------

class Rng {
  constructor(private s: number) {}
  next(): number { this.s = (Math.imul(this.s ^ (this.s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0; this.s ^= this.s >>> 13; return this.s >>> 0; }
  int(n: number): number { return this.next() % n; }
  pick<T>(a: readonly T[]): T { return a[this.int(a.length)]; }
}

const VOPS = [0, 1, 3, 10, 16, 18];

/** A scratchpad address, half the time in the banks the MXU reads (0-2, 6-8), to make the units meet. */
const hotAddr = (r: Rng) => (r.int(2) ? r.int(0x10000) : (r.pick([0, 1, 2, 6, 7, 8]) << 12) + r.int(0x1000));

/** A random command; MXU A in banks 0-4 and B in 6-9, so that B is never starved. */
function randomCommand(r: Rng, geomLen: { k: number }): SeedOp {
  const u = r.int(10);
  if (u < 4) {
    const spill = r.int(3) === 0;
    return cmd(SEED_DMA, 'MOVE', { SPILL: spill ? 1 : 0, SPAD_ADDR: hotAddr(r), SRAM_ADDR: r.int(0x80000), LEN: r.int(5) === 0 ? 0 : r.int(120), ROWS: r.int(6), SRAM_STRIDE: r.int(2) ? 0 : r.int(64), SPAD_STRIDE: r.int(2) ? 0 : r.int(64) }, r.int(3) ? 0 : r.int(200));
  }
  if (u < 7) {
    if (r.int(3) === 0) {
      geomLen.k = r.int(6) === 0 ? r.int(3) : r.int(48);
      return cmd(SEED_MXU, 'GEOM', { LEN: geomLen.k, A_STRIDE: r.int(2) ? 0 : r.pick([24, 32, 36]), B_STRIDE: r.int(2) ? 0 : r.pick([4, 8, 24]), C_STRIDE: r.int(2) ? 0 : r.pick([4, 8, 12]) });
    }
    return cmd(SEED_MXU, 'MM', { ACC: r.int(2), TRANSPOSE: r.int(2), A_ADDR: r.int(0x4c00), B_ADDR: 0x6000 + r.int(0x3800), C_ADDR: r.int(0x10000), M0: r.int(4096), N: r.int(16) }, r.int(3) ? 0 : r.int(100));
  }
  if (u < 9) return cmd(SEED_VPU, 'OP', { OP: r.int(12) === 0 ? r.int(32) : r.pick(VOPS), DST: hotAddr(r), SRC0: hotAddr(r), SRC1: hotAddr(r), VLEN: r.int(6) === 0 ? r.int(3) : 2 * r.int(40), M0: r.int(4096), N: r.int(16) }, r.int(3) ? 0 : r.int(100));
  return { kind: 'cmd', unit: r.int(3), words: [0x100 | (3 + r.int(200)), r.next(), r.next(), r.next()], gap: 0 };
}

function randomStream(seed: number): SeedOp[] {
  const r = new Rng(seed);
  const ops: SeedOp[] = [];
  const geom = { k: 0 };
  const n = 4 + r.int(30);
  for (let i = 0; i < n; i++) {
    const x = r.int(20);
    if (x < 13) ops.push(randomCommand(r, geom));
    else if (x < 15) ops.push({ kind: 'wait', unit: r.int(3) });
    else if (x < 16) ops.push({ kind: 'waitAll' });
    else if (x < 18) ops.push({ kind: 'spadWrite', addr: hotAddr(r), value: r.next(), wstrb: r.pick([15, 1, 2, 4, 8, 3, 12]) });
    else if (x < 19) ops.push({ kind: 'spadRead', addr: hotAddr(r) });
    else for (let k = 0; k < 9; k++) ops.push(cmd(SEED_DMA, 'MOVE', { SPAD_ADDR: r.int(0x10000), SRAM_ADDR: r.int(0x80000), LEN: 60 + r.int(100), ROWS: 1 + r.int(3) }));
  }
  ops.push({ kind: 'waitAll' });
  return ops;
}

function randomSpad(seed: number): Uint8Array {
  const r = new Rng(seed * 7 + 1);
  const s = new Uint8Array(65536);
  for (let i = 0; i < s.length; i++) s[i] = r.next() & 0xff;
  return s;
}

describe('seed TPU: reference and fast models agree', () => {
  it('on 300 random command streams (queue-full and bank-conflict stalls, every op, bad opcodes)', () => {
    let stalls = 0, conflicts = 0, conflictClocks = 0, parallel = 0, skipped = 0, stepped = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const ops = randomStream(seed);
      const spad = randomSpad(seed);
      const ref = drive(true, patterned(), ops, spad, 300_000);
      const fast = drive(false, patterned(), ops, spad, 300_000);
      expect(fast.trace, `seed ${seed}`).toEqual(ref.trace);
      expect(fast.commands, `seed ${seed}`).toEqual(ref.commands);
      expect(fast.tpu.counters(), `seed ${seed}`).toEqual(ref.tpu.counters());
      expect(Buffer.compare(fast.tpu.spad, ref.tpu.spad), `seed ${seed} spad`).toBe(0);
      expect(Buffer.compare(fast.tpu.sram, ref.tpu.sram), `seed ${seed} sram`).toBe(0);
      if (ref.tpu.counters().trueQfullStall > 0) stalls++;
      parallel += fast.tpu.parallelSkips;
      skipped += fast.tpu.skippedClocks;
      stepped += fast.tpu.steppedClocks;
      if (ref.tpu.conflictClocks > 0) conflicts++;
      conflictClocks += ref.tpu.conflictClocks;
    }
    // The streams must exercise what they claim to.
    expect(stalls).toBeGreaterThan(20);
    expect(conflicts).toBeGreaterThan(50);
    expect(conflictClocks).toBeGreaterThan(1000);
    // ... and the fast model must have skipped, also with two or more units running at once.
    expect(parallel).toBeGreaterThan(100);
    expect(skipped).toBeGreaterThan(stepped);
  });

  it('clocks after the DONE store count nothing, also in a quiet stretch the store ends (the fast model adds a stretch unclipped only inside the window)', () => {
    const run = (reference: boolean) => {
      const t = new SeedTpu({ reference }, patterned());
      t.runPulse(0);
      const commit = (unit: number, words: readonly number[], clock: number) => { for (let k = 0; k < 4; k++) t.write(0x10 * unit + 4 * k, words[k], 15, clock + k); };
      commit(SEED_DMA, P(SEED_DMA, 'MOVE', { LEN: 255, ROWS: 8 }), 10); // about a thousand busy clocks
      commit(SEED_VPU, P(SEED_VPU, 'OP', { OP: 1, VLEN: 600, SRC0: 0x4000, DST: 0x6000 }), 20);
      t.write(0x70, 1, 15, 300); // DONE while both run
      const atDone = t.counters();
      t.advanceTo(5000); // on past both DONEs
      return [atDone, t.counters(), t.read(0x70, 5000)];
    };
    const ref = run(true);
    expect(run(false)).toEqual(ref);
    expect(ref[0]).toEqual(ref[1]);
    expect((ref[0] as { run: number }).run).toBe(301);
  });
});

describe('seed TPU: each unit against its functional model, both models', () => {
  it('MXU: random K, strides, transpose, accumulate (200 commands)', () => {
    const r = new Rng(99);
    for (let i = 0; i < 200; i++) {
      const k = r.int(8) === 0 ? r.int(3) : r.int(70);
      const o = { a: r.int(0x4c00), b: 0x6000 + r.int(0x3800), c: 0xa000 + r.int(0x5000), k, aStride: r.int(2) ? 0 : r.pick([36, 40, 64]), bStride: r.int(2) ? 0 : r.pick([4, 8, 40]), cStride: r.int(2) ? 0 : r.pick([4, 8]), transpose: r.int(2) === 1, acc: r.int(2) === 1, m0: r.int(4096), n: r.int(16) };
      const spad = randomSpad(i + 1000);
      const want = spad.slice();
      goldenMm(want, o);
      const ops: SeedOp[] = [cmd(SEED_MXU, 'GEOM', { LEN: k, A_STRIDE: o.aStride, B_STRIDE: o.bStride, C_STRIDE: o.cStride }), cmd(SEED_MXU, 'MM', { ACC: +o.acc, TRANSPOSE: +o.transpose, A_ADDR: o.a, B_ADDR: o.b, C_ADDR: o.c, M0: o.m0, N: o.n }), { kind: 'waitAll' }];
      for (const res of both(ops, spad)) {
        expect(Buffer.compare(res.tpu.spad, want), `command ${i} ${JSON.stringify(o)}`).toBe(0);
        const mm = quads(res.commands)[1];
        expect(mm[3] - mm[2] + 1).toBe(k === 0 ? 1 : k + (o.acc ? 33 : 25));
      }
    }
  });

  it('MXU: operand rows ending at the scratchpad\'s end or wrapping past it (the fast kernel reads rows in place only when they fit, else gathers them)', () => {
    // The kernel reads an operand row 16 bytes a load: a row whose loads would leave the
    // scratchpad, or wraps, is gathered word by word as the issue fetches it (address mod 2^16).
    const r = new Rng(41);
    let n = 0;
    for (const k of [8, 40, 64, 128, 36]) {
      const rowBytes = k >> 1;
      for (const transpose of [false, true]) {
        for (const place of ['end', 'wrap', 'tail'] as const) {
          // The operand near the end: its eighth row ends at 0x10000 ('end'), its rows run past it
          // ('wrap'), or only its last load would (a row of 20 bytes ending 4 bytes short: 'tail').
          const stride = place === 'wrap' ? 0x2000 : rowBytes;
          const high = place === 'end' ? 0x10000 - 8 * rowBytes : place === 'wrap' ? 0xf000 + 4 * r.int(0x3c0) : 0x10000 - 4 - 8 * rowBytes;
          // A plain B's rows are K words 4 bytes apart: 'end' puts its last word last, 'wrap' half of them past it.
          const bHigh = place === 'end' ? 0x10000 - 4 * k : place === 'wrap' ? 0x10000 - 2 * k : high;
          const o = transpose
            ? { a: 0x4000 + 4 * r.int(0x100), b: high, aStride: 0, bStride: stride }
            : r.int(2) ? { a: high, b: 0x4000 + 4 * r.int(0x100), aStride: stride, bStride: 0 } : { a: 0x4000, b: bHigh, aStride: 0, bStride: 0 };
          const mm = { ...o, c: 0x8000, k, cStride: 0, transpose, acc: r.int(2) === 1, m0: 1 + r.int(4095), n: r.int(16) };
          const spad = randomSpad(700 + n++);
          const want = spad.slice();
          goldenMm(want, mm);
          const ops: SeedOp[] = [cmd(SEED_MXU, 'GEOM', { LEN: k, A_STRIDE: mm.aStride, B_STRIDE: mm.bStride }), cmd(SEED_MXU, 'MM', { ACC: +mm.acc, TRANSPOSE: +transpose, A_ADDR: mm.a, B_ADDR: mm.b, C_ADDR: mm.c, M0: mm.m0, N: mm.n }), { kind: 'waitAll' }];
          for (const res of both(ops, spad)) {
            expect(res.tpu.hazardCount, `K ${k} ${place} ${JSON.stringify(mm)}`).toBe(0);
            expect(Buffer.compare(res.tpu.spad, want), `K ${k} ${place} ${JSON.stringify(mm)}`).toBe(0);
          }
        }
      }
    }
  });

  it('MXU: a K past the scratchpad kernel\'s layout (4096 words a side) moves the fast MXU to a kernel of its own; short commands after it still agree', () => {
    const r = new Rng(29);
    const spad = new Uint8Array(65536).map(() => r.int(256));
    const ops: SeedOp[] = [];
    for (const [k, transpose] of [[4096, 1], [4100, 0], [5000, 1], [128, 0], [33, 1]]) {
      ops.push(cmd(SEED_MXU, 'GEOM', { LEN: k }), cmd(SEED_MXU, 'MM', { TRANSPOSE: transpose, A_ADDR: 0, B_ADDR: 0x8000, C_ADDR: 0xf000 + ops.length * 8, M0: 37, N: 9 }));
      ops.push({ kind: 'waitAll' });
    }
    const [ref, fast] = both(ops, spad);
    expect(quads(fast.commands)).toEqual(quads(ref.commands));
    expect(Buffer.compare(fast.tpu.spad, ref.tpu.spad)).toBe(0);
    expect([...fast.tpu.mxu.acc]).toEqual([...ref.tpu.mxu.acc]);
  });

  it('MXU: words written into its operands while it still issues (a DMA fill, a window store) are the ones it fetches, as in the reference', () => {
    // The MM issues B's word k at its k-th issue clock; a fill or a CPU store into words it has not
    // fetched yet, after its first issues ran quietly, must reach the sums (the fast model's words
    // fetched at the first issue no longer hold).
    const r = new Rng(31);
    const spad = new Uint8Array(65536).map(() => r.int(256));
    const mm = [cmd(SEED_MXU, 'GEOM', { LEN: 128 }), cmd(SEED_MXU, 'MM', { A_ADDR: 0, B_ADDR: 0x2000, C_ADDR: 0xf000, M0: 1, N: 0 })];
    const writers: SeedOp[][] = [
      [cmd(SEED_DMA, 'MOVE', { SPAD_ADDR: 0x2100, SRAM_ADDR: 0x100, LEN: 128, ROWS: 1 })],
      [{ kind: 'idle', clocks: 20 }, { kind: 'spadWrite', addr: 0x21f0, value: 0x7777_7777, wstrb: 15 }],
    ];
    const quiet = both([...mm, { kind: 'waitAll' }], spad)[1].tpu.mxu.acc.slice();
    for (const w of writers) {
      const [ref, fast] = both([...mm, ...w, { kind: 'waitAll' }], spad);
      expect([...ref.tpu.mxu.acc], 'the write reaches words the MXU fetches later').not.toEqual([...quiet]);
      expect([...fast.tpu.mxu.acc]).toEqual([...ref.tpu.mxu.acc]);
      expect(Buffer.compare(fast.tpu.spad, ref.tpu.spad)).toBe(0);
    }
  });

  it('MXU: long K (the fast sums split their packed lanes every 512 steps): the int32 accumulators, extremes included', () => {
    for (const k of [511, 512, 513, 1024, 1100, 2047]) {
      for (const fill of [0x88, 0x77, 0x78, -1]) {
        const spad = fill < 0 ? randomSpad(k) : new Uint8Array(65536).fill(fill);
        const transpose = k % 2 === 1;
        // raw sums, from the nibbles (A rows K/2 bytes apart at 0; B at 0x4000: K rows of 4 bytes, or 8 rows of K/2 bytes transposed)
        // operand words are read at their aligned address: element e of a row at `row` is lane e%8 of the word at (row + 4·(e/8)) & ~3
        const lane = (word: number, l: number) => ((((spad[(word & ~3) + (l >> 1)] >> ((l & 1) * 4)) & 15) << 28) >> 28);
        const nibble = (row: number, e: number) => lane(row + 4 * (e >> 3), e & 7);
        const want: number[] = [];
        for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) {
          let sum = 0;
          for (let e = 0; e < k; e++) sum += nibble(i * (k >> 1), e) * (transpose ? nibble(0x4000 + j * (k >> 1), e) : lane(0x4000 + e * 4, j));
          want.push(sum);
        }
        const ops: SeedOp[] = [cmd(SEED_MXU, 'GEOM', { LEN: k }), cmd(SEED_MXU, 'MM', { TRANSPOSE: +transpose, A_ADDR: 0, B_ADDR: 0x4000, C_ADDR: 0xf000, M0: 1, N: 0 }), { kind: 'waitAll' }];
        for (const res of both(ops, spad)) expect([...res.tpu.mxu.acc], `K ${k} fill ${fill}`).toEqual(want);
      }
    }
  });

  it('VPU: every op, random operands (200 commands)', () => {
    const r = new Rng(7);
    for (let i = 0; i < 200; i++) {
      const op = r.pick([...VOPS, 2, 31]);
      const vlen = r.int(8) === 0 ? r.int(3) : r.int(1024);
      const o = { op, dst: 0x8000 + r.int(0x7c00), src0: r.int(0x3c00), src1: 0x4000 + r.int(0x3c00), vlen, m0: r.int(4096), n: r.int(16) };
      const spad = randomSpad(i + 2000);
      const want = spad.slice();
      goldenVpu(want, o);
      const ops: SeedOp[] = [cmd(SEED_VPU, 'OP', { OP: op, DST: o.dst, SRC0: o.src0, SRC1: o.src1, VLEN: vlen, M0: o.m0, N: o.n }), { kind: 'waitAll' }];
      const words = (vlen + 7) >> 3;
      const binary = op === 0 || op === 1 || op === 16, reduction = op === 0 || op === 18;
      for (const res of both(ops, spad)) {
        expect(Buffer.compare(res.tpu.spad, want), `command ${i} ${JSON.stringify(o)}`).toBe(0);
        const [q] = quads(res.commands);
        expect(q[3] - q[2] + 1).toBe(vlen === 0 ? 1 : words * (binary ? 5 : 3) + (reduction ? 2 : 1));
      }
    }
  });

  it('DMA: fills and spills with strides and wrap-around (200 commands)', () => {
    const r = new Rng(5);
    for (let i = 0; i < 200; i++) {
      const o = { spill: r.int(2) === 1, spadAddr: r.int(0x10000), sramAddr: r.int(0x80000), len: r.int(8) === 0 ? r.int(2) : r.int(300), rows: r.int(8), sramStride: r.int(2) ? 0 : r.int(300), spadStride: r.int(2) ? 0 : r.int(300) };
      const spad = randomSpad(i + 3000);
      const wantSpad = spad.slice(), wantSram = patterned();
      goldenDma(wantSpad, wantSram, o);
      const ops: SeedOp[] = [cmd(SEED_DMA, 'MOVE', { SPILL: +o.spill, SPAD_ADDR: o.spadAddr, SRAM_ADDR: o.sramAddr, LEN: o.len, ROWS: o.rows, SRAM_STRIDE: o.sramStride, SPAD_STRIDE: o.spadStride }), { kind: 'waitAll' }];
      const bytes = o.rows * ((o.len + 1) >> 1);
      for (const res of both(ops, spad)) {
        expect(Buffer.compare(res.tpu.spad, wantSpad), `command ${i}`).toBe(0);
        expect(Buffer.compare(res.tpu.sram, wantSram), `command ${i}`).toBe(0);
        expect(res.tpu.counters().dma).toBe(bytes === 0 ? 0 : o.spill ? 2 * bytes + 3 : bytes);
      }
    }
  });
});

describe('seed TPU: DMA fills of whole aligned words (the fast model copies them a word at a time, or in one call with the SRAM beside the scratchpad)', () => {
  it('rows of 4 to 128 bytes, word strides, near the ends of both memories (150 commands)', () => {
    const r = new Rng(17);
    for (let i = 0; i < 150; i++) {
      const near = r.int(3) === 0; // rows that may wrap the scratchpad or the SRAM
      const o = {
        spill: false, spadAddr: near ? 0x10000 - 4 * r.int(64) : 4 * r.int(0x4000), sramAddr: near ? 0x80000 - 4 * r.int(256) : 4 * r.int(0x20000),
        len: 8 * (1 + r.int(32)), rows: 1 + r.int(200), sramStride: r.int(3) === 0 ? 0 : 4 * r.int(80), spadStride: r.int(3) === 0 ? 0 : 4 * r.int(40),
      };
      const spad = randomSpad(i + 5000);
      const wantSpad = spad.slice(), wantSram = patterned();
      goldenDma(wantSpad, wantSram, o);
      const ops: SeedOp[] = [cmd(SEED_DMA, 'MOVE', { SPILL: 0, SPAD_ADDR: o.spadAddr, SRAM_ADDR: o.sramAddr, LEN: o.len, ROWS: o.rows, SRAM_STRIDE: o.sramStride, SPAD_STRIDE: o.spadStride }), { kind: 'waitAll' }];
      // The board's TPU keeps its SRAM beside its scratchpad (its own: ownSram).
      for (const res of [...both(ops, spad), drive(false, patterned(), ops, spad, undefined, true, true)]) {
        expect(Buffer.compare(res.tpu.spad, wantSpad), `command ${i}`).toBe(0);
        expect(Buffer.compare(res.tpu.sram, wantSram), `command ${i}`).toBe(0);
        expect(res.tpu.counters().dma).toBe(o.rows * (o.len >> 1));
      }
    }
  });
});

describe('seed TPU: the VPU of 62a3eb39 (no ARGMAX)', () => {
  it('takes op 18 as an unknown op: src0 read, zeros written, 3 clocks a word + 1', () => {
    // vpu.sv @62a3eb39 has no VOP_ARGMAX: 18 is neither binary nor a reduction, so per word
    // S_RD0, S_RD0D, S_EXEC (writing res4 = 0), then S_DONE: 2 words → 7 clocks, from 34 to 40.
    const t = new SeedTpu({ reference: false, argmax: false }, new Uint8Array(512 * 1024));
    t.spad.fill(0x55);
    const seen: number[][] = [];
    t.onCommand = (u, op, s, e) => seen.push([u, op, s, e]);
    t.onCommandStart = (u, c) => seen.push([u, c]);
    t.runPulse(0);
    const w = P(SEED_VPU, 'OP', { OP: 18, DST: 0x100, SRC0: 0x200, VLEN: 16 });
    for (let k = 0; k < 4; k++) t.write(0x10 + 4 * k, w[k], 15, 5 + 9 * k);
    t.advanceTo(100);
    expect(seen).toEqual([[SEED_VPU, 34], [SEED_VPU, 1, 34, 40]]);
    expect([...t.spad.subarray(0xfe, 0x10a)]).toEqual([0x55, 0x55, 0, 0, 0, 0, 0, 0, 0, 0, 0x55, 0x55]);
    expect(t.hazards.map((h) => h.kind)).toEqual(['unknown-vpu-op']);
  });
});

describe('seed driver: polls skipped without a trace (benchmarks)', () => {
  it('end at the clocks, counters, scratchpad and SRAM of a run that reads every poll', () => {
    const ops = seedTiledStream(48);
    const spad = new Uint8Array(64 * 1024).map((_, i) => (i * 29 + 7) & 0xff);
    const traced = drive(false, patterned(), ops, spad, 1e9, true);
    for (const reference of [false, true]) {
      const sram = patterned();
      const quiet = drive(reference, sram, ops, spad, 1e9, false);
      expect(quiet.endClock, `reference ${reference}`).toBe(traced.endClock);
      expect(quiet.tpu.counters()).toEqual(traced.tpu.counters());
      expect(Buffer.compare(quiet.tpu.spad, traced.tpu.spad)).toBe(0);
      expect(Buffer.compare(sram, quiet.tpu.sram)).toBe(0);
      expect(Buffer.compare(quiet.tpu.sram, traced.tpu.sram)).toBe(0);
    }
  });
});
