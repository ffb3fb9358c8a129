// The seed's units one at a time (boards/transformer-tpu-int4/{mxu,vpu,dma}.ts), outside the
// TPU core: the MXU's literal systolic array against its fast datapath under
// random grant denials (the arbiter never denies the MXU on the board, A and
// B outrank everyone, but the FSM must not care), and every unit's fast bulk
// steps and horizon() (a lower bound of the clocks to DONE) against stepping
// it clock by clock.
import { describe, expect, it } from 'vitest';
import { bankMask, Ports, SeedSpad } from '../boards/transformer-tpu-int4/ports.ts';
import { SeedDma } from '../boards/transformer-tpu-int4/dma.ts';
import { SeedMxu } from '../boards/transformer-tpu-int4/mxu.ts';
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
});
