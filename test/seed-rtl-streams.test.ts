// The seed board's TPU against its RTL: test/seed-rtl/streams-measured.json
// (TPU command streams of our own, run on the seed's RTL under Verilator by
// firmware on its CPU; see test/seed-rtl/README.md) replayed at the TPU alone.
// Every command is committed at the clock the RTL committed it (a held commit
// store is presented at the first clock it was held and must be held exactly
// as long), then the DONE store at the RTL's last run clock. Both models must
// reproduce every command's dispatch and retire clock, the ten counters and
// the true commit-stall clocks; streams whose firmware never touches the
// scratchpad window (whose CPU accesses are not replayed here) must also end
// with the RTL's SRAM and scratchpad, byte for byte (sha256). The full
// programs, CPU included, are the board's tests.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEED_COUNTER_NAMES } from '../periph/seed/regs.ts';
import { SeedTpu } from '../periph/seed/tpu.ts';

interface Stream {
  name: string;
  end: 'done' | 'watchdog';
  sram: 'pattern' | 'zero';
  counters: Record<string, number>;
  commitStallClocks: number;
  commands: [number, string, string, string, string, number, number | null, number | null][];
  commitStalls: [number, number, number][];
  sramSha256: string;
  spadSha256: string;
}

const fixture = JSON.parse(readFileSync(new URL('./seed-rtl/streams-measured.json', import.meta.url), 'utf8')) as { streams: Stream[] };
const streamsDir = new URL('./seed-rtl/streams/', import.meta.url);
const usesWindow = (name: string) => readFileSync(new URL(`${name}.c`, streamsDir), 'utf8').includes('SEED_SPAD32');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const pattern = (i: number) => (Math.imul(i, 73) + (i >>> 9) * 5 + 0x35) & 0xff;

/**
 * Clocks commit stores were held: the STALL intervals that end the clock before a commit of their
 * unit. (The first probe build also printed intervals in which cmd_stalled was high with no store
 * open, after the commit that filled a queue, while wr_addr still held its address; those end
 * before no commit and are not stalls of the CPU.)
 */
function heldClocks(s: Stream): number {
  let n = 0;
  for (const [first, last, u] of s.commitStalls) if (s.commands.some((c) => c[0] === u && c[5] === last + 1)) n += last + 1 - first;
  return n;
}

function replay(s: Stream, reference: boolean) {
  const sram = new Uint8Array(512 * 1024);
  if (s.sram === 'pattern') for (let i = 0; i < sram.length; i++) sram[i] = pattern(i);
  const tpu = new SeedTpu({ reference }, sram);
  const seen: number[][] = [];
  tpu.onCommand = (u, op, start, end) => { seen.push([u, op, start, end]); };
  tpu.runPulse(1);
  const held: number[] = [];
  for (const c of s.commands) {
    const [unit, w0, w1, w2, w3, commit] = c;
    const stall = s.commitStalls.find(([, last, u]) => last + 1 === commit && u === unit);
    const presented = stall ? stall[0] : commit;
    const words = [w0, w1, w2, w3].map((w) => parseInt(w, 16) >>> 0);
    for (let k = 0; k < 4; k++) tpu.write(unit * 16 + 4 * k, words[k], 15, presented);
    held.push(tpu.extraWait(), commit - presented);
  }
  const last = s.counters.run;
  if (s.end === 'done') tpu.write(0x70, 1, 15, last);
  else tpu.advanceTo(last + 1);
  return { tpu, seen, held };
}

describe('seed TPU replays the streams measured on the seed\'s RTL', () => {
  for (const s of fixture.streams) {
    it(`${s.name}: commands, counters${usesWindow(s.name) ? '' : ', SRAM and scratchpad'}`, () => {
      for (const reference of [false, true]) {
        const { tpu, seen, held } = replay(s, reference);
        const label = `${s.name} (${reference ? 'reference' : 'fast'})`;
        // A held commit is held exactly as long as on the RTL.
        for (let i = 0; i < held.length; i += 2) expect(held[i], `${label}: commit ${i / 2} held`).toBe(held[i + 1]);
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
        expect(c.trueQfullStall, `${label}: commit stall clocks`).toBe(heldClocks(s));
        if (!usesWindow(s.name)) {
          expect(sha(tpu.sram), `${label}: SRAM`).toBe(s.sramSha256);
          expect(sha(tpu.spad), `${label}: scratchpad`).toBe(s.spadSha256);
        }
      }
    });
  }
});
