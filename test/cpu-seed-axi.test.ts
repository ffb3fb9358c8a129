// Clock-exactness of the CPU on the seed board's bus (memInterface 'axi-lite':
// picorv32_axi behind cpu_subsys's AXI4-Lite slave) with the seed's PicoRV32
// options. test/rtl/seed/measured.json holds, for programs of our own
// (test/rtl/seed/*.S), every launch and AXI handshake measured on the seed's
// RTL (see its howMeasured). Each program runs here on the CPU alone, on a
// small test-only bus with the seed's memory map (16 KB RAM at 0, TPU MMIO at
// 0x8000_0000 with idle units, the scratchpad window at 0x9000_0000): every
// launch clock, every device access and the DONE clock must be the RTL's.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Bus } from '../emu/bus.ts';
import { applyOverrides, defaultConfig } from '../emu/config.ts';
import { Cpu, StopReason } from '../emu/cpu.ts';
import { parseElf } from '../emu/elf.ts';
import { AXI_SLAVE_ACT_OFFSET, SEED_WINDOW_READ_EXTRA } from '../emu/timing.ts';
import { assemble } from '../toolchain/toolchain.ts';

interface SeedMeasured {
  name: string;
  source: string;
  config: Record<string, number>;
  march: string;
  launches: [number, number][];
  dataAccesses: [number, number, 'r' | 'w', number, number][];
  doneClock: number | null;
  doneValue: number | null;
  trapClock: number | null;
  trapPC: number | null;
  regs: number[];
}

const fixture = JSON.parse(readFileSync('test/rtl/seed/measured.json', 'utf8')) as {
  howMeasured: string; programs: SeedMeasured[];
};

const SEED_STACKADDR = 0x4000;
const DONE_OFFSET = 0x70;

/**
 * The seed's map as far as these programs use it: the status block reads as
 * cpu_subsys returns it with every unit idle (counts 0, +0x70 the idle bits
 * 0xF, other offsets 0), stores are taken, the DONE store halts; the window is
 * plain memory. Device accesses are logged at their AXI handshake clock.
 */
class TestSeedBus extends Bus {
  readonly window = new Int32Array(0x4000);
  readonly log: [number, number, 'r' | 'w', number][] = [];
  doneClock: number | null = null;

  override read(addr: number, clock: number): number {
    this.fault = false;
    this.wait = 0;
    const region = addr >>> 28;
    // The window's read answers a clock late: the bus says so (Bus.readExtra), as the board's bus does.
    this.readExtra = region === 9 ? SEED_WINDOW_READ_EXTRA : 0;
    const handshake = clock + AXI_SLAVE_ACT_OFFSET + this.readExtra;
    this.log.push([handshake, (addr & ~3) >>> 0, 'r', 0]);
    if (region === 9) return this.window[(addr & 0xfffc) >>> 2];
    if (region === 8) return (addr & 0xffc) === DONE_OFFSET ? 0xf : 0;
    this.fault = true;
    return 0;
  }

  override write(addr: number, value: number, wstrb: number, clock: number): void {
    this.fault = false;
    this.wait = 0;
    const region = addr >>> 28;
    this.log.push([clock + AXI_SLAVE_ACT_OFFSET, (addr & ~3) >>> 0, 'w', wstrb]);
    // The window ignores the strobes: PicoRV32's replicated wdata lands whole.
    if (region === 9) { this.window[(addr & 0xfffc) >>> 2] = value; return; }
    if (region === 8) {
      if ((addr & 0xffc) === DONE_OFFSET) { this.doneClock = clock + AXI_SLAVE_ACT_OFFSET; this.deviceHalt = true; }
      return;
    }
    this.fault = true;
  }
}

/**
 * Runs a fixture program one instruction at a time. `generalLoop`: through
 * Cpu.run's general loop instead of the loop it picks for the seed's
 * configuration (runSeed, RV32C on axi-lite): both must give the RTL's clocks.
 */
function emulate(p: SeedMeasured, generalLoop = false) {
  const cfg = applyOverrides(defaultConfig(), p.config);
  const bus = new TestSeedBus(cfg.bus, 64 * 1024);
  const elf = parseElf(assemble(readFileSync(`test/rtl/seed/${p.source}`, 'utf8'), { march: `${p.march}_zicsr` }));
  for (const seg of elf.segments) bus.bram.set(seg.data, seg.vaddr);
  const cpu = new Cpu(bus, cfg.cpu, { memInterface: 'axi-lite', stackAddr: SEED_STACKADDR });
  if (generalLoop) {
    if ((cpu as unknown as { seedSlots?: boolean }).seedSlots !== true) throw new Error('Cpu.seedSlots: no longer the switch to the seed loop');
    Object.defineProperty(cpu, 'seedSlots', { value: false });
  }
  cpu.pc = elf.entry;
  const launches: [number, number][] = [];
  let reason = StopReason.LIMIT;
  while (launches.length < 100_000) {
    const launch = cpu.cycle, pc = cpu.pc, retired = cpu.instret;
    reason = cpu.run(Number.POSITIVE_INFINITY, 1);
    if (cpu.instret > retired || reason === StopReason.TRAP) launches.push([launch, pc]);
    if (reason !== StopReason.LIMIT) break;
  }
  return { cpu, bus, launches, reason };
}

describe('CPU timing on the seed board bus matches the seed RTL (picorv32_axi + cpu_subsys)', () => {
  it('the fixture says how it was measured and has at least 20 programs', () => {
    expect(fixture.howMeasured).toMatch(/picorv32_axi/);
    expect(fixture.programs.length).toBeGreaterThanOrEqual(20);
  });

  for (const [p, generalLoop] of fixture.programs.flatMap((q) => [[q, false], [q, true]] as const)) {
    it(`${p.name}${generalLoop ? ' (the general loop)' : ''}`, () => {
      const { cpu, bus, launches, reason } = emulate(p, generalLoop);
      expect(launches, 'launch clock and pc of every instruction').toEqual(p.launches);
      const devices = p.dataAccesses.filter(([, a]) => a >>> 28 !== 0).map(([c, a, k, w]) => [c, a, k, k === 'w' ? w : 0]);
      expect(bus.log, 'every MMIO and window access at its AXI handshake').toEqual(devices);
      if (p.trapClock !== null) {
        expect(reason).toBe(StopReason.TRAP);
        expect(cpu.stopClock, 'clock at which trap goes high').toBe(p.trapClock);
        expect(cpu.pc).toBe(p.trapPC);
      } else {
        expect(reason).toBe(StopReason.EXIT);
        expect(bus.doneClock, 'the DONE store').toBe(p.doneClock);
      }
      expect(Array.from(cpu.regs).slice(1).map((v) => v >>> 0), 'x1..x31 at the end').toEqual(p.regs.map((v) => v >>> 0));
    });
  }
});
