// The seed board's TPU against its RTL: test/seed-rtl/streams-measured.json
// (TPU command streams of our own, run on the seed's RTL under Verilator by
// firmware on its CPU; see test/seed-rtl/README.md) replayed at the TPU alone:
// every CPU access the RTL's AXI slave saw (MMIO stores and loads, scratchpad
// window stores and loads) is presented to SeedTpu at the clock the RTL saw it.
// Both models must hold each commit store and each window access exactly as
// long as the RTL did, return what the RTL's loads returned, reproduce every
// command's dispatch and retire clock, the ten counters and the true commit
// stall clocks, and end with the RTL's SRAM and scratchpad (sha256). The full
// programs, CPU included, are the board's tests.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEED_COUNTER_NAMES } from '../boards/transformer-tpu-int4/regs.ts';
import { SeedTpu } from '../boards/transformer-tpu-int4/tpu.ts';

interface Stream {
  name: string;
  end: 'done' | 'watchdog';
  sram: 'pattern' | 'zero';
  counters: Record<string, number>;
  commitStallClocks: number;
  commands: [number, string, string, string, string, number, number | null, number | null][];
  commitStalls: [number, number, number][];
  trap: boolean;
  mmioStores: [number, string, string, number][];
  mmioLoadRuns: [number, number, string, string, number][];
  windowStores: [number, number, string, string, number][];
  windowLoads: [number, number, string, string][];
  sramSha256: string;
  spadSha256: string;
}

const fixture = JSON.parse(readFileSync(new URL('./seed-rtl/streams-measured.json', import.meta.url), 'utf8')) as { streams: Stream[] };
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const pattern = (i: number) => (Math.imul(i, 73) + (i >>> 9) * 5 + 0x35) & 0xff;

const hex = (x: string) => parseInt(x, 16) >>> 0;

/** One CPU access at the TPU, in clock order: what to do and what the RTL saw. */
type Access = { clock: number; order: number; run: (tpu: SeedTpu) => string | null };

function accesses(s: Stream): Access[] {
  const out: Access[] = [];
  const commits = s.commands.map((c) => c[5]);
  let commit = 0;
  s.mmioStores.forEach(([t, addr, data, strb], i) => {
    const off = hex(addr) & 0xfff;
    const isCommit = (off & 0xf00) === 0 && off >>> 4 <= 2 && ((off >>> 2) & 3) === 3;
    const lands = isCommit ? commits[commit++] : t;
    out.push({ clock: t, order: i, run: (tpu) => {
      tpu.write(off, hex(data), strb, t);
      const w = tpu.extraWait();
      return w === lands - t ? null : `store ${addr} at ${t}: held ${w}, RTL ${lands - t}`;
    } });
  });
  for (const [first, last, addr, data] of s.mmioLoadRuns) {
    for (const t of first === last ? [first] : [first, last]) {
      out.push({ clock: t, order: 1e6, run: (tpu) => {
        const v = tpu.read(hex(addr) & 0xfff, t);
        return v === hex(data) ? null : `load ${addr} at ${t}: ${v.toString(16)}, RTL ${data}`;
      } });
    }
  }
  for (const [t, g, addr, data, strb] of s.windowStores) {
    out.push({ clock: t, order: 2e6, run: (tpu) => {
      tpu.spadWindow.write(hex(addr) & 0xffff, hex(data), strb, t);
      const w = tpu.spadWindow.extraWait!();
      return w === g - t ? null : `window store ${addr} at ${t}: granted after ${w}, RTL ${g - t}`;
    } });
  }
  for (const [t, g, addr, data] of s.windowLoads) {
    out.push({ clock: t, order: 2e6, run: (tpu) => {
      const v = tpu.spadWindow.read(hex(addr) & 0xffff, t);
      const w = tpu.spadWindow.extraWait!();
      return v === hex(data) && w === g - t ? null : `window load ${addr} at ${t}: ${v.toString(16)} after ${w}, RTL ${data} after ${g - t}`;
    } });
  }
  return out.sort((x, y) => x.clock - y.clock || x.order - y.order);
}

function replay(s: Stream, reference: boolean) {
  const sram = new Uint8Array(512 * 1024);
  if (s.sram === 'pattern') for (let i = 0; i < sram.length; i++) sram[i] = pattern(i);
  const tpu = new SeedTpu({ reference }, sram);
  const seen: number[][] = [];
  tpu.onCommand = (u, op, start, end) => { seen.push([u, op, start, end]); };
  tpu.runPulse(1);
  const mismatches: string[] = [];
  for (const a of accesses(s)) {
    const m = a.run(tpu);
    if (m) mismatches.push(m);
  }
  // A run that ends without the DONE store (watchdog, trap) is counted up to its last clock.
  if (!tpu.done) tpu.advanceTo(s.counters.run + 1);
  return { tpu, seen, mismatches };
}

describe('seed TPU replays the streams measured on the seed\'s RTL', () => {
  for (const s of fixture.streams) {
    it(`${s.name}: every access, commands, counters${s.trap ? '' : ', SRAM and scratchpad'}`, () => {
      for (const reference of [false, true]) {
        const { tpu, seen, mismatches } = replay(s, reference);
        const label = `${s.name} (${reference ? 'reference' : 'fast'})`;
        expect(mismatches, label).toEqual([]);
        // Dispatch and retire clocks, in commit order per unit. onCommand reports the first busy
        // clock (dispatch + 1) and the pop; GEOM and discarded opcodes pop without dispatch.
        for (let u = 0; u < 3; u++) {
          const popped = s.commands.filter((c) => c[0] === u && c[7] !== null);
          const want = popped.map((c) => (c[6] === null ? ['no dispatch', c[7]] : [c[6], c[7]]));
          const dispatches = (op: number) => op === (u === 0 ? 0x02 : 0x01); // MXU_MM, VPU_OP, DMA_MOVE
          const got = seen.filter((c) => c[0] === u).map(([, op, start, end]) => (dispatches(op) ? [start - 1, end] : ['no dispatch', end]));
          expect(got, `${label}: unit ${u} (dispatch, retire)`).toEqual(want);
        }
        const c = tpu.counters();
        for (const k of SEED_COUNTER_NAMES) expect(c[k], `${label}: ${k}`).toBe(s.counters[k]);
        expect(c.trueQfullStall, `${label}: commit stall clocks`).toBe(s.commitStallClocks);
        // (after a trap the RTL's units run on until the dump: the final memories are not the run's)
        if (!s.trap) {
          expect(sha(tpu.sram), `${label}: SRAM`).toBe(s.sramSha256);
          expect(sha(tpu.spad), `${label}: scratchpad`).toBe(s.spadSha256);
        }
      }
    });
  }
});

// The seed's own test firmware (test/seed-rtl/seed-firmware-measured.json, the kernels of up to
// 300 commands): their commands committed at the RTL's commit clocks, DONE at its last run clock.
// (A commit the RTL held is presented at the clock it landed: the queue has room then, so it lands
// at once here too; how long it was held is the CPU's part, checked by the board's tests.)
// The TPU alone must give every dispatch and retire clock and all ten counters (the run window
// and idle clocks included: they follow from the units' busy clocks once DONE is placed).
interface Firmware { name: string; end: string; counters: Record<string, number>; commitStallClocks: number; commandClocks?: Stream['commands'] }
const firmware = JSON.parse(readFileSync(new URL('./seed-rtl/seed-firmware-measured.json', import.meta.url), 'utf8')) as { firmware: Firmware[] };

describe('seed TPU replays the commands of the seed\'s own firmware measured on its RTL', () => {
  for (const f of firmware.firmware.filter((x) => x.commandClocks && x.end === 'done')) {
    it(`${f.name}: dispatch and retire clocks, the ten counters`, () => {
      for (const reference of [false, true]) {
        const tpu = new SeedTpu({ reference }, new Uint8Array(512 * 1024));
        const seen: number[][] = [];
        tpu.onCommand = (u, op, start, end) => { seen.push([u, op, start, end]); };
        tpu.runPulse(1);
        for (const [unit, w0, w1, w2, w3, commit] of f.commandClocks!) {
          const words = [w0, w1, w2, w3].map(hex);
          for (let k = 0; k < 4; k++) tpu.write(unit * 16 + 4 * k, words[k], 15, commit);
          expect(tpu.extraWait()).toBe(0);
        }
        tpu.write(0x70, 1, 15, f.counters.run);
        const label = `${f.name} (${reference ? 'reference' : 'fast'})`;
        for (let u = 0; u < 3; u++) {
          const want = f.commandClocks!.filter((c) => c[0] === u && c[7] !== null).map((c) => (c[6] === null ? ['no dispatch', c[7]] : [c[6], c[7]]));
          const dispatches = (op: number) => op === (u === 0 ? 0x02 : 0x01);
          const got = seen.filter((c) => c[0] === u).map(([, op, start, end]) => (dispatches(op) ? [start - 1, end] : ['no dispatch', end]));
          expect(got, `${label}: unit ${u}`).toEqual(want);
        }
        const c = tpu.counters();
        for (const k of SEED_COUNTER_NAMES) expect(c[k], `${label}: ${k}`).toBe(f.counters[k]);
      }
    });
  }
});
