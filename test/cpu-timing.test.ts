// Clock-exactness of the CPU against the PicoRV32 RTL. test/rtl/measured.json
// holds, for small programs of our own (test/rtl/*.S), the clocks measured on
// picorv32.v (see test/rtl/README.md for how): the clock of every instruction
// fetch, of every data access, of the EXIT store or of the trap. Each program
// is assembled with the real toolchain and run on the emulator with the same
// options; every clock must match exactly.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyOverrides, defaultConfig } from '../emu/config.ts';
import { Machine } from '../emu/machine.ts';
import { Stepper } from '../emu/stepper.ts';
import { DATA_ACCESS_OFFSET, FIRST_FETCH_CLOCK } from '../emu/timing.ts';
import { assemble } from '../toolchain/toolchain.ts';

interface Measured {
  name: string;
  source: string;
  config: Record<string, number>;
  march: string;
  firstFetch: number;
  fetchClocks?: number[];
  dataAccesses?: [number, number, 'r' | 'w', number][];
  exitClock: number | null;
  trapClock: number | null;
  exitValue: number | null;
  regs?: number[];
  console?: string;
}

const fixture = JSON.parse(readFileSync('test/rtl/measured.json', 'utf8')) as { howMeasured: string; programs: Measured[] };

/** Runs a program instruction by instruction, recording what the RTL testbench logged. */
function emulate(p: Measured) {
  const cfg = applyOverrides(defaultConfig(), p.config);
  const m = new Machine(cfg);
  m.loadElf(assemble(readFileSync(`test/rtl/${p.source}`, 'utf8'), { march: p.march }));
  m.bus.console.captureOutput();
  const fetches: number[] = [];
  const data: [number, number, 'r' | 'w', number][] = [];
  const bus = m.bus;
  // Device accesses reach the bus with their request clock; the handshake adds the wait.
  const read = bus.read.bind(bus), write = bus.write.bind(bus);
  bus.read = (addr, clock) => { const v = read(addr, clock); if (!bus.fault) data.push([clock + bus.wait, addr & ~3, 'r', 0]); return v; };
  bus.write = (addr, value, wstrb, clock) => { write(addr, value, wstrb, clock); if (!bus.fault) data.push([clock + bus.wait, addr & ~3, 'w', wstrb]); };
  const s = new Stepper(m);
  while (fetches.length < 100_000) {
    const before = m.cpu.cycle;
    const more = s.step();
    if (s.executed) fetches.push(before);
    if (!more) break;
  }
  return { result: s.finish(), fetches, data, console: m.bus.console.capturedText(), regs: Array.from(m.cpu.regs) };
}

describe('CPU timing matches the PicoRV32 RTL', () => {
  it('the fixture says how it was measured', () => {
    expect(fixture.howMeasured.length).toBeGreaterThan(40);
    expect(fixture.programs.length).toBeGreaterThan(20);
  });

  it('the first instruction is fetched at the measured clock', () => {
    for (const p of fixture.programs) expect(p.firstFetch, p.name).toBe(FIRST_FETCH_CLOCK);
  });

  for (const p of fixture.programs) {
    it(`${p.name} (${Object.entries(p.config).filter(([, v]) => v).map(([k]) => k).join(', ') || 'defaults'})`, () => {
      const e = emulate(p);
      if (p.fetchClocks) expect(e.fetches.slice(0, p.fetchClocks.length)).toEqual(p.fetchClocks);
      if (p.dataAccesses) {
        // Device accesses (console, TPU, SRAM) are compared directly; BRAM ones through the fetch clocks.
        const devices = p.dataAccesses.filter(([, addr]) => addr >= 0x10000);
        expect(e.data.map(([c, a, k]) => [c, a, k])).toEqual(devices.map(([c, a, k]) => [c, a >>> 0 & ~3, k]));
      }
      if (p.exitClock !== null) {
        expect(e.result.reason).toBe('exit');
        expect(e.result.clocks).toBe(p.exitClock);
        expect(e.result.exit).toBe(p.exitValue);
      }
      if (p.trapClock !== null) expect(['trap', 'bus-error']).toContain(e.result.reason);
      if (p.console !== undefined) expect(e.console).toBe(p.console);
      if (p.regs) expect(e.regs.slice(1).map((v) => v >>> 0)).toEqual(p.regs.map((v) => v >>> 0));
    });
  }

  it('a BRAM data access happens DATA_ACCESS_OFFSET clocks after its fetch', () => {
    let checked = 0;
    for (const p of fixture.programs) {
      if (!p.fetchClocks || !p.dataAccesses || Object.values(p.config).some(Boolean)) continue;
      for (const [clock, addr] of p.dataAccesses) {
        if (addr >= 0x10000) continue;
        // The access belongs to the last fetch at or before it.
        const f = [...p.fetchClocks].reverse().find((c) => c <= clock)!;
        expect(clock - f, `${p.name} access at ${clock}`).toBe(DATA_ACCESS_OFFSET);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
