// Several PERF_CTRL windows (docs/hardware.md §5.9): every write of 0 while
// counting closes a window, which the TPU keeps (Tpu.windows, RunResult.windows);
// the clocks between windows are not counted, and a window still open when the
// run ends is not in the list (report() still returns it). The expected window
// lengths are derived from the CPU timing of docs/hardware.md §1.2, the bus of
// §2 and the DMA clocks of §5.4.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { Machine } from '../boards/machine.ts';
import { sumCounters, type CounterSnapshot } from '../periph/counters.ts';
import { GLOBAL, opcode, packArgs, UNIT_REG, UNITS } from '../periph/regs.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { watchPerfCtrl } from './helpers/perf-writes.ts';

const TPU_BASE = 0x2000_0000;
const DMA = UNITS[0].base;
const hex = (n: number) => `0x${(n >>> 0).toString(16)}`;
const addis = (n: number) => Array.from({ length: n }, () => '  addi a0, a0, 1').join('\n');

/** Stages a DMA LOAD of `bytes` bytes (one row) and puts its PUSH word in `reg`, all outside any window. */
function stageDmaLoad(bytes: number, spad: number, reg: string): string {
  const args = packArgs('DMA', { SRAM_ADDR: 0, SPAD_ADDR: spad, ROWS: 1, ROW_BYTES: bytes, SPAD_STRIDE: bytes, SRAM_STRIDE: bytes });
  const lines = args.map((a, i) => `  li t3, ${hex(a)}\n  sw t3, ${DMA + 4 * i}(t0)`);
  lines.push(`  sw zero, ${DMA + UNIT_REG.ARG5}(t0)`, `  li ${reg}, ${hex(opcode('DMA', 'LOAD'))}`);
  return lines.join('\n');
}

const LOAD1 = 16, LOAD2 = 24; // bytes of the two DMA loads
const GAP1 = 20, GAP2 = 25; // addi after each PUSH, long enough for the load to end inside its window

function program(openAtEnd: boolean): string {
  const P = GLOBAL.PERF_CTRL;
  const PUSH = DMA + UNIT_REG.PUSH;
  return `
  .text
  .globl _start
_start:
  lui t0, ${TPU_BASE >>> 12}
  li t1, 1
${stageDmaLoad(LOAD1, 0x0000, 's2')}
  rdcycle s0
  sw t1, ${P}(t0)        # window 1 opens
  sw s2, ${PUSH}(t0)     # DMA LOAD (${LOAD1} bytes)
${addis(GAP1)}
  sw zero, ${P}(t0)      # window 1 closes
  rdcycle s1
${stageDmaLoad(LOAD2, 0x1000, 's3')}
${addis(5)}
  rdcycle s4
  sw t1, ${P}(t0)        # window 2 opens
  sw s3, ${PUSH}(t0)     # DMA LOAD (${LOAD2} bytes)
${addis(GAP2)}
  sw zero, ${P}(t0)      # window 2 closes
  rdcycle s5
  sw zero, ${P}(t0)      # a second 0 while frozen closes nothing
${openAtEnd ? `  sw t1, ${P}(t0)        # window 3 opens and is never closed\n${addis(4)}` : ''}
  lui t2, 0x10000
  sw zero, 8(t2)         # EXIT 0
`;
}

// A store to a TPU register: 5 clocks + tpuWait (2) = 7 (§1.2, §2); addi: 3;
// rdcycle: 4, its value is its launch clock + 1.
const SW_TPU = 5 + 2;
const ADDI = 3;
const RDCYCLE = 4;

for (const reference of [false, true]) {
  describe(`PERF_CTRL windows (${reference ? 'reference' : 'fast'} model)`, () => {
    const cfg = defaultConfig();
    const run = (openAtEnd: boolean) => {
      const m = new Machine(cfg, { reference });
      m.loadElf(assemble(program(openAtEnd)));
      m.bus.console.captureOutput();
      const writes = watchPerfCtrl(m);
      const r = m.run(1_000_000);
      return { m, r, writes };
    };

    it('keeps each closed window; each covers the clocks between its two PERF_CTRL stores', () => {
      const { m, r, writes } = run(false);
      expect(r.reason).toBe('exit');
      expect(r.windows).toHaveLength(2);
      expect(m.tpu.windows).toEqual(r.windows);
      const [w1, w2] = r.windows;

      // From the timing rules: the start store, the PUSH store (no stall: the
      // queue is empty) and the addi between them and the stop store.
      expect(w1.cycles).toBe(2 * SW_TPU + GAP1 * ADDI);
      expect(w2.cycles).toBe(2 * SW_TPU + GAP2 * ADDI);

      // The same from the clocks the stores reached the TPU.
      const arrivals = writes.map((w) => w.clock);
      expect(writes.map((w) => w.on)).toEqual([true, false, true, false, false]);
      expect(w1.cycles).toBe(arrivals[1] - arrivals[0]);
      expect(w2.cycles).toBe(arrivals[3] - arrivals[2]);

      // And from rdcycle reads placed right before the start store and right
      // after the stop store. Both stores reach the TPU at the same offset from
      // their launch, so the window is launch(stop) − launch(start), with
      // launch(start) = s0 − 1 + RDCYCLE and launch(stop) = s1 − 1 − SW_TPU.
      const reg = (i: number) => m.cpu.regs[i] >>> 0;
      const between = (before: number, after: number) => (after - 1 - SW_TPU) - (before - 1 + RDCYCLE);
      expect(w1.cycles).toBe(between(reg(8), reg(9)));
      expect(w2.cycles).toBe(between(reg(20), reg(21)));

      // The DMA ran inside each window: dmaSetup + 1 clock per byte (§5.4), the rest idle.
      expect(w1.dmaBusy).toBe(cfg.tpu.dmaSetup + LOAD1);
      expect(w2.dmaBusy).toBe(cfg.tpu.dmaSetup + LOAD2);
      for (const w of r.windows) {
        expect(w.idle).toBe(w.cycles - w.dmaBusy);
        expect(w.mxuBusy + w.vpuBusy + w.overlap + w.stall + w.depWait).toBe(0);
      }

      // The sum is field by field; the clocks between windows are in none.
      const sum = sumCounters(r.windows);
      for (const k of ['cycles', 'mxuBusy', 'vpuBusy', 'dmaBusy', 'idle', 'stall', 'overlap', 'depWait'] as const) {
        expect(sum[k]).toBe(w1[k] + w2[k]);
      }
      expect(m.tpu.whole.cycles).toBeGreaterThan(sum.cycles);
      expect(m.tpu.whole.snapshot().dmaBusy).toBe(sum.dmaBusy);

      // report() is unchanged: the last window.
      expect(r.counters).toEqual(w2);
      expect(r.perfWindow).toBe(true);
    });

    it('a window still open at the end is not in the list, but report() returns it', () => {
      const { r, writes } = run(true);
      expect(r.reason).toBe('exit');
      expect(r.windows).toHaveLength(2);
      expect(r.windows[1].cycles).toBe(2 * SW_TPU + GAP2 * ADDI);
      expect(r.perfWindow).toBe(true);
      // The open window runs from its start store's arrival to the stop (EXIT).
      const open = writes[writes.length - 1];
      expect(open.on).toBe(true);
      expect(r.counters.cycles).toBe(r.clocks - open.clock);
      expect(r.counters.cycles).toBeLessThan(r.windows[1].cycles);
      expect(r.counters.idle).toBe(r.counters.cycles);
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
