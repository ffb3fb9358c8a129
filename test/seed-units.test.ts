// The seed's units one at a time (boards/transformer-tpu-int4/{mxu,vpu,dma}.ts), outside the
// TPU core: the MXU's literal systolic array against its fast datapath under
// random grant denials (the arbiter never denies the MXU on the board, A and
// B outrank everyone, but the FSM must not care), and every unit's fast bulk
// steps and horizon() (a lower bound of the clocks to DONE) against stepping
// it clock by clock; the VPU's long elementwise ops through the scratchpad
// kernel's vectors against the same unit stepped clock by clock.
import { describe, expect, it } from 'vitest';
import { bankMask, Ports, SeedSpad } from '../boards/transformer-tpu-int4/ports.ts';
import { SeedDma } from '../boards/transformer-tpu-int4/dma.ts';
import { SeedMxu, seedKernelSpad } from '../boards/transformer-tpu-int4/mxu.ts';
import { SeedVpu } from '../boards/transformer-tpu-int4/vpu.ts';

class Rng {
  constructor(private s: number) {}
  next(): number { this.s = (Math.imul(this.s ^ (this.s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0; this.s ^= this.s >>> 13; return this.s >>> 0; }
  int(n: number): number { return this.next() % n; }
}

interface Unit { request(p: Ports): void; read(p: Ports): void; edge(p: Ports): void; readonly isDone: boolean; horizon(): number; bulk(n: number): void }

/** Steps a unit until its DONE clock; `deny` may take grants away. Returns the DONE clock (0 = first clock). */
function stepToDone(u: Unit, deny: ((p: Ports) => void) | null, check?: (clock: number) => void): number {
  const p = new Ports();
  for (let c = 0; c < 1_000_000; c++) {
    if (u.isDone) return c;
    check?.(c);
    p.clear();
    u.request(p);
    p.arbitrate();
    deny?.(p);
    u.read(p);
    u.edge(p);
  }
  throw new Error('no DONE');
}

/** Advances a unit in bulk by its horizon, clock by clock when the horizon is 0. */
function bulkToDone(u: Unit): number {
  let c = 0;
  const p = new Ports();
  while (!u.isDone) {
    const h = u.horizon();
    if (h > 0) { u.bulk(h); c += h; continue; }
    p.clear(); u.request(p); p.arbitrate(); u.read(p); u.edge(p); c++;
  }
  return c;
}

const randomSpad = (r: Rng) => { const s = new SeedSpad(); for (let i = 0; i < s.bytes.length; i++) s.bytes[i] = r.next() & 0xff; return s; };

describe('seed units: reference and fast', () => {
  it('bankMask: the banks of every byte of the rows, for rows that overlap, abut, or start up to past a bank apart, wrapping at 64 KiB', () => {
    const r = new Rng(5);
    // Rows a bank apart never skip one; a byte more apart can (rows of one byte at 4095 and 8192: banks 0 and 2).
    const cases = [[4095, 2, 1, 4096], [4095, 2, 1, 4097], [0xfff, 3, 1, 4097], [0xf000, 3, 2, 4096]];
    for (let i = 0; i < 3000; i++) {
      cases.push([r.int(0x10000), 1 + r.int(r.int(2) ? 8 : 600), 1 + r.int(r.int(2) ? 8 : 300), r.int(4) === 0 ? 4096 + r.int(3) - 1 : r.int(r.int(2) ? 64 : 5000)]);
    }
    for (const [addr, rows, rowBytes, stride] of cases) {
      let want = 0;
      for (let row = 0; row < rows; row++) for (let b = 0; b < rowBytes; b++) want |= 1 << ((((addr + row * stride) & 0xffff) + b) >>> 12 & 15);
      expect(bankMask(addr, rows, rowBytes, stride), `addr ${addr} rows ${rows} rowBytes ${rowBytes} stride ${stride}`).toBe(want);
    }
  });

  it('MXU: literal array = fast datapath, with random A/B/C grant denials (150 commands)', () => {
    const r = new Rng(3);
    for (let i = 0; i < 150; i++) {
      const base = randomSpad(r);
      const w0 = 0x02 | (r.int(2) << 8) | (r.int(2) << 9) | ((0x8000 + r.int(0x8000)) << 16);
      const w1 = r.int(0x4000) | ((0x4000 + r.int(0x4000)) << 16);
      const w2 = r.int(0x10000);
      const geom = [r.int(2) ? 0 : r.int(80) << 16, r.int(2) ? 0 : (r.int(40) | (r.int(40) << 16)), r.int(70)];
      const denySeed = r.next();
      const ends: number[] = [];
      const spads: Uint8Array[] = [];
      for (const reference of [true, false]) {
        const spad = new SeedSpad();
        spad.bytes.set(base.bytes);
        const mxu = new SeedMxu(spad, reference);
        mxu.geom(geom[0], geom[1], geom[2]);
        mxu.start(w0, w1, w2);
        const dr = new Rng(denySeed);
        ends.push(stepToDone(mxu, (p) => { for (let k = 0; k < 3; k++) if (dr.int(5) === 0) p.rdGnt[k] = 0; if (dr.int(5) === 0) p.wrGnt[0] = 0; }));
        spads.push(spad.bytes);
      }
      expect(ends[1], `command ${i}`).toBe(ends[0]);
      expect(Buffer.compare(spads[0], spads[1]), `command ${i}`).toBe(0);
    }
  });

  it('every unit: horizon() never overshoots DONE, and bulk steps end where clock-by-clock steps do', () => {
    const r = new Rng(11);
    const sram0 = new Uint8Array(512 * 1024).map((_, k) => (k * 131 + 7) & 0xff);
    for (let i = 0; i < 300; i++) {
      const kind = i % 3;
      const base = randomSpad(r);
      const x = [r.int(70), r.int(4), r.int(0x10000), r.int(7), r.int(1024), r.int(2), r.int(0x10000), r.int(0x80000), r.int(300), r.int(6), r.int(2), r.int(400), r.int(400)];
      const make = (spad: SeedSpad, sram: Uint8Array): Unit => {
        if (kind === 0) {
          const m = new SeedMxu(spad, false);
          m.geom(0, 0, x[0]);
          m.start(0x02 | (x[1] << 8) | (0x8000 << 16), 0x0000 | (0x4000 << 16), x[2]);
          return m;
        }
        if (kind === 1) {
          const v = new SeedVpu(spad, true);
          v.start(0x01 | ([0, 1, 3, 10, 16, 18, 5][x[3]] << 8) | (0x8000 << 16), 0x1000 | (0x3000 << 16), x[4] | (x[2] << 16));
          return v;
        }
        const d = new SeedDma(spad, sram);
        d.start(0x01 | (x[5] << 8) | (x[6] << 16), x[7], (x[8] | (x[9] << 16)) >>> 0, (x[10] ? 0 : x[11] | (x[12] << 16)) >>> 0);
        return d;
      };
      const runs: { end: number; spad: Uint8Array; sram: Uint8Array }[] = [];
      for (const bulk of [false, true]) {
        const spad = new SeedSpad();
        spad.bytes.set(base.bytes);
        const sram = sram0.slice();
        const u = make(spad, sram);
        let end: number;
        if (bulk) end = bulkToDone(u);
        else {
          const horizons: number[] = [];
          end = stepToDone(u, null, () => horizons.push(u.horizon()));
          const over = horizons.findIndex((h, c) => c + h > end);
          expect(over, `unit kind ${kind} command ${i}: horizon overshoots DONE (${end}) at clock`).toBe(-1);
          // Alone and never denied (A and B in different banks here), the MXU's and a fill's bound is
          // its DONE clock itself: the fast TPU's quiet stretch then ends at the DONE, not before it.
          if (kind === 0 || (kind === 2 && x[5] === 0)) {
            const short = horizons.findIndex((h, c) => c + h !== end);
            expect(short, `unit kind ${kind} command ${i}: horizon short of DONE (${end}) at clock`).toBe(-1);
          }
        }
        runs.push({ end, spad: spad.bytes, sram });
      }
      expect(runs[1].end, `kind ${kind} command ${i}`).toBe(runs[0].end);
      expect(Buffer.compare(runs[0].spad, runs[1].spad)).toBe(0);
      expect(Buffer.compare(runs[0].sram, runs[1].sram)).toBe(0);
    }
  });

  it('VPU: long elementwise ops on the kernel\'s scratchpad (four words a vector) in bulk steps of any size = clock by clock', () => {
    const kernelSpad = seedKernelSpad();
    expect(kernelSpad.kernel, 'WebAssembly SIMD').not.toBeNull();
    const r = new Rng(23);
    const base = randomSpad(r);
    const plainSpad = new SeedSpad();
    plainSpad.bytes.set(base.bytes);
    kernelSpad.bytes.set(base.bytes);
    // One unit each for the whole sequence: the table sets (four kept) and the kernel's lookup
    // vectors are reused and replaced as ops and scales come back or change.
    const literal = new SeedVpu(plainSpad, true), fast = new SeedVpu(kernelSpad, true);
    const ops = [1, 3, 10, 16, 5];
    const scales = [[1, 0], [3, 1], [1500, 10], [700, 9], [4095, 12], [2600, 13]];
    let vectorsCovered = 0;
    for (let i = 0; i < 400; i++) {
      const op = ops[r.int(ops.length)];
      const [m0, n] = scales[r.int(scales.length)];
      const vlen = r.int(4) === 0 ? 64 + r.int(960) : [64, 65, 127, 255, 256, 511, 512, 513, 1000, 1023][r.int(10)];
      const words = (vlen + 7) >>> 3;
      // A destination in place, a few words below or above a source (one to three above: the
      // word-by-word order's path; four or more: vectors reading what earlier vectors wrote), or
      // anywhere; the low two bits of an address are ignored, the ranges wrap 64 KiB now and then.
      const dst = r.int(0x10000);
      const near = (at: number) => {
        const k = r.int(5);
        if (k === 4) return r.int(0x10000);
        const dstAbove = k === 0 ? 0 : k === 1 ? -(1 + r.int(6)) : k === 2 ? 1 + r.int(3) : 4 + r.int(6);
        return (at - 4 * dstAbove + r.int(4)) & 0xffff;
      };
      const src0 = near(dst), src1 = r.int(3) === 0 ? src0 : near(dst);
      const w0 = 0x01 | (op << 8) | (dst << 16), w1 = src0 | (src1 << 16), w2 = vlen | (m0 << 16) | (n << 28);
      const fits = (s: number) => (s & 0xfffc) + 4 * words <= 0x10000 && !((dst & 0xfffc) > (s & 0xfffc) && (dst & 0xfffc) - (s & 0xfffc) < 16);
      if ((dst & 0xfffc) + 4 * words <= 0x10000 && fits(src0) && (op === 3 || op === 10 || op === 5 || fits(src1))) vectorsCovered++;
      literal.start(w0, w1, w2);
      const want = stepToDone(literal, null);
      fast.start(w0, w1, w2);
      // Bulk steps of random sizes up to the horizon (most not whole words: the lag within a word).
      const p = new Ports();
      let got = 0;
      while (!fast.isDone) {
        const h = fast.horizon();
        if (h > 0) { const k = 1 + r.int(r.int(3) === 0 ? h : Math.min(h, 40)); fast.bulk(k); got += k; continue; }
        p.clear(); fast.request(p); p.arbitrate(); fast.read(p); fast.edge(p); got++;
      }
      expect(got, `command ${i}: op ${op} vlen ${vlen} dst ${dst} src ${src0} ${src1}`).toBe(want);
      expect(Buffer.compare(plainSpad.bytes, kernelSpad.bytes), `command ${i}: op ${op} vlen ${vlen} dst ${dst} src ${src0} ${src1}`).toBe(0);
      // Both to S_IDLE for the next command.
      for (const u of [literal, fast]) { p.clear(); u.request(p); p.arbitrate(); u.read(p); u.edge(p); }
    }
    expect(vectorsCovered).toBeGreaterThan(150);
  });
});
