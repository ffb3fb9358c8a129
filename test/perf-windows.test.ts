// Several PERF_CTRL windows (docs/hardware.md §5.9): every write of 0 while
// counting closes a window, which the TPU keeps (Tpu.windows, RunResult.windows);
// the clocks between windows are not counted. The expected window lengths are
// derived from the CPU timing of docs/hardware.md §1.2 and the bus of §2.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { Machine } from '../emu/machine.ts';
import { sumCounters, type CounterSnapshot } from '../periph/counters.ts';
import { assemble, hasToolchain } from '../toolchain/toolchain.ts';

// PERF_CTRL is TPU_BASE + 0x008 (TPU_BASE = 0x2000_0000); EXIT is console + 0x08.
const addis = (n: number) => Array.from({ length: n }, () => '  addi a0, a0, 1').join('\n');
const PROGRAM = `
  .text
  .globl _start
_start:
  lui t0, 0x20000
  li t1, 1
  rdcycle s0
  sw t1, 8(t0)        # window 1 opens
${addis(3)}
  sw zero, 8(t0)      # window 1 closes
  rdcycle s1
${addis(5)}
  sw t1, 8(t0)        # window 2 opens
${addis(10)}
  sw zero, 8(t0)      # window 2 closes
  sw zero, 8(t0)      # a second 0 while frozen closes nothing
  lui t2, 0x10000
  sw zero, 8(t2)      # EXIT 0
`;

// A store to a TPU register: 5 clocks + tpuWait (2) = 7 (§1.2, §2); addi: 3.
const SW_TPU = 5 + 2;
const ADDI = 3;

for (const reference of [false, true]) {
  describe.skipIf(!hasToolchain())(`PERF_CTRL windows (${reference ? 'reference' : 'fast'} model)`, () => {
    it('keeps each closed window; each covers the clocks from its start store to its stop store', () => {
      const m = new Machine(defaultConfig(), { reference });
      m.loadElf(assemble(PROGRAM));
      m.bus.console.captureOutput();
      const r = m.run(1_000_000);
      expect(r.reason).toBe('exit');
      expect(r.windows).toHaveLength(2);
      expect(m.tpu.windows).toHaveLength(2);
      const [w1, w2] = r.windows;
      // Both stores have the same handshake offset (launch + 4 + wait), so a
      // window is the launch-to-launch distance of its two stores: the start
      // store itself plus the instructions between them.
      expect(w1.cycles).toBe(SW_TPU + 3 * ADDI);
      expect(w2.cycles).toBe(SW_TPU + 10 * ADDI);
      // Independently, from rdcycle: s0 = launch(rdcycle₀) + 1, the start store
      // launches 4 clocks later (rdcycle costs 4); s1 = launch(stop store) + 7 + 1.
      // So launch(stop) − launch(start) = (s1 − 8) − (s0 − 1 + 4) = s1 − s0 − 11.
      const s0 = m.cpu.regs[8] >>> 0, s1 = m.cpu.regs[9] >>> 0;
      expect(w1.cycles).toBe(s1 - s0 - 11);
      // No unit ran: every counted clock is idle.
      for (const w of r.windows) {
        expect(w.idle).toBe(w.cycles);
        expect(w.mxuBusy + w.vpuBusy + w.dmaBusy + w.overlap + w.stall + w.depWait).toBe(0);
      }
      // report() is unchanged: the last window.
      expect(r.counters).toEqual(w2);
      expect(r.perfWindow).toBe(true);
      // The whole run counts more than the two windows together.
      expect(m.tpu.whole.cycles).toBeGreaterThan(w1.cycles + w2.cycles);
    });
  });
}

describe('sumCounters', () => {
  it('adds every field, depWaitByUnit too', () => {
    const a: CounterSnapshot = {
      cycles: 100, mxuBusy: 10, vpuBusy: 20, dmaBusy: 30, idle: 40, stall: 5, overlap: 6, depWait: 7,
      depWaitByUnit: { DMA: 1, MXU: 2, VPU: 3 },
    };
    const b: CounterSnapshot = {
      cycles: 1000, mxuBusy: 100, vpuBusy: 200, dmaBusy: 300, idle: 400, stall: 50, overlap: 60, depWait: 70,
      depWaitByUnit: { DMA: 10, MXU: 20, VPU: 30 },
    };
    expect(sumCounters([a, b])).toEqual({
      cycles: 1100, mxuBusy: 110, vpuBusy: 220, dmaBusy: 330, idle: 440, stall: 55, overlap: 66, depWait: 77,
      depWaitByUnit: { DMA: 11, MXU: 22, VPU: 33 },
    });
    expect(sumCounters([a])).toEqual(a);
    expect(sumCounters([a])).not.toBe(a);
    expect(sumCounters([]).cycles).toBe(0);
    expect(a.cycles).toBe(100); // inputs untouched
  });
});
