// The seed-board fixtures measured on the seed's RTL (test/seed-rtl/) are only worth
// comparing against if they describe the programs we build: the stream sources must be
// exactly what scripts/gen-seed-streams.ts writes, our gcc must rebuild the very ELFs
// that ran on the RTL, and every stream's record must be self-consistent (its counters
// follow from its own busy intervals; the DONE store is the last counted clock).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateStreamFiles } from '../scripts/gen-seed-streams.ts';

const DIR = 'test/seed-rtl/streams';
const fixture = JSON.parse(readFileSync('test/seed-rtl/streams-measured.json', 'utf8'));
type Interval = [number, number];
interface StreamRecord {
  name: string;
  end: string;
  trap: boolean;
  counters: Record<string, number>;
  busyAtEnd: Record<'mxu' | 'vpu' | 'dma', boolean>;
  busyIntervals: Record<'mxu' | 'vpu' | 'dma', Interval[]>;
  commands: [number, string, string, string, string, number, number | null, number | null][];
  doneStoreClock: number | null;
  elfSha256: string;
}
const streams: StreamRecord[] = fixture.streams;

describe('seed-board stream fixtures (measured on the seed RTL)', () => {
  it('the committed stream sources are what the generator writes', () => {
    const files = generateStreamFiles();
    const committed = readdirSync(DIR).filter((f) => f.endsWith('.c') || f === 'streams.json').sort();
    expect(committed).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(`${DIR}/${name}`, 'utf8'), name).toBe(text);
  });

  it('every generated stream was measured', () => {
    const index = JSON.parse(readFileSync(`${DIR}/streams.json`, 'utf8')) as { name: string }[];
    expect(streams.map((s) => s.name)).toEqual(index.map((s) => s.name));
  });

  it('our gcc rebuilds the ELFs that ran on the RTL, byte for byte', () => {
    execFileSync('make', ['-s', '-C', DIR, '-j2'], { stdio: 'pipe' });
    for (const s of streams) {
      const elf = readFileSync(`build/seed-streams/${s.name}.elf`);
      expect(createHash('sha256').update(elf).digest('hex'), s.name).toBe(s.elfSha256);
    }
  }, 60_000);

  it('each record is self-consistent: counters from its busy intervals, DONE at the last counted clock', () => {
    for (const s of streams) {
      const run = s.counters.run;
      // a trap raises done like the DONE store: then there is no DONE store
      if (s.end === 'done') expect(s.doneStoreClock, s.name).toBe(s.trap ? null : run);
      if (s.busyAtEnd.mxu || s.busyAtEnd.vpu || s.busyAtEnd.dma) continue; // an interval still open is not listed
      const busy = new Uint8Array(run + 2);
      for (const unit of ['mxu', 'vpu', 'dma'] as const) {
        let clocks = 0;
        for (const [first, last] of s.busyIntervals[unit]) {
          clocks += last - first + 1;
          for (let t = first; t <= last; t++) busy[t]++;
        }
        expect(clocks, `${s.name}: ${unit}`).toBe(s.counters[unit]);
      }
      let idle = 0, overlap = 0;
      for (let t = 1; t <= run; t++) {
        if (busy[t] === 0) idle++;
        if (busy[t] >= 2) overlap++;
      }
      expect(idle, `${s.name}: idlec`).toBe(s.counters.idlec);
      expect(overlap, `${s.name}: ovlap`).toBe(s.counters.ovlap);
      expect(s.counters.qfull, `${s.name}: qfull never counts on this RTL`).toBe(0);
    }
  });

  it('commands retire in order per unit, never before they start', () => {
    for (const s of streams) {
      const lastRetire = [0, 0, 0];
      for (const [unit, , , , , commit, start, retire] of s.commands) {
        if (start !== null) expect(start, s.name).toBeGreaterThan(commit);
        if (retire === null) continue;
        expect(retire, s.name).toBeGreaterThan(start ?? commit);
        expect(retire, s.name).toBeGreaterThan(lastRetire[unit]);
        lastRetire[unit] = retire;
      }
    }
  });
});
