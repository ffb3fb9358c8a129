// Performance counters (PLATFORM.md §6.7, §7). The TPU keeps two sets: one
// over the whole run and one over the window the firmware brackets with
// PERF_CTRL. Both are advanced a window of n identical clocks at a time.

import { doubleFields } from './double-fields.ts';

export const UNIT_NAMES = ['DMA', 'MXU', 'VPU'] as const;

export class Counters {
  /** The counts are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['cycles', 'idle', 'stall', 'overlap', 'depWait']);
  cycles = 0;
  /** Busy clocks per unit, in UNIT_NAMES order. */
  readonly busy = [0, 0, 0];
  idle = 0;
  stall = 0;
  overlap = 0;
  depWait = 0;
  /** Clocks in which each unit waited on a wait token. */
  readonly depWaitByUnit = [0, 0, 0];

  reset(): void {
    this.cycles = this.idle = this.stall = this.overlap = this.depWait = 0;
    this.busy.fill(0);
    this.depWaitByUnit.fill(0);
  }

  /** n clocks in which the units whose bits are set in `busyMask` were busy. */
  add(n: number, busyMask: number, depWaitMask: number): void {
    this.cycles += n;
    const count = (busyMask & 1) + ((busyMask >> 1) & 1) + ((busyMask >> 2) & 1);
    if (busyMask & 1) this.busy[0] += n;
    if (busyMask & 2) this.busy[1] += n;
    if (busyMask & 4) this.busy[2] += n;
    if (count === 0) this.idle += n;
    if (count >= 2) this.overlap += n;
    if (depWaitMask) {
      this.depWait += n;
      for (let u = 0; u < 3; u++) if (depWaitMask & (1 << u)) this.depWaitByUnit[u] += n;
    }
  }

  snapshot(): CounterSnapshot {
    return {
      cycles: this.cycles,
      mxuBusy: this.busy[1],
      vpuBusy: this.busy[2],
      dmaBusy: this.busy[0],
      idle: this.idle,
      stall: this.stall,
      overlap: this.overlap,
      depWait: this.depWait,
      depWaitByUnit: { DMA: this.depWaitByUnit[0], MXU: this.depWaitByUnit[1], VPU: this.depWaitByUnit[2] },
    };
  }
}

export interface CounterSnapshot {
  cycles: number;
  mxuBusy: number;
  vpuBusy: number;
  dmaBusy: number;
  idle: number;
  stall: number;
  overlap: number;
  depWait: number;
  depWaitByUnit: { DMA: number; MXU: number; VPU: number };
}

/** The field-by-field sum of several windows (every counter is additive). */
export function sumCounters(list: CounterSnapshot[]): CounterSnapshot {
  const t: CounterSnapshot = {
    cycles: 0, mxuBusy: 0, vpuBusy: 0, dmaBusy: 0, idle: 0, stall: 0, overlap: 0, depWait: 0,
    depWaitByUnit: { DMA: 0, MXU: 0, VPU: 0 },
  };
  for (const c of list) {
    t.cycles += c.cycles;
    t.mxuBusy += c.mxuBusy;
    t.vpuBusy += c.vpuBusy;
    t.dmaBusy += c.dmaBusy;
    t.idle += c.idle;
    t.stall += c.stall;
    t.overlap += c.overlap;
    t.depWait += c.depWait;
    t.depWaitByUnit.DMA += c.depWaitByUnit.DMA;
    t.depWaitByUnit.MXU += c.depWaitByUnit.MXU;
    t.depWaitByUnit.VPU += c.depWaitByUnit.VPU;
  }
  return t;
}

/** The field-by-field difference a − b: the window from snapshot b to snapshot a of one run. */
export function subtractCounters(a: CounterSnapshot, b: CounterSnapshot): CounterSnapshot {
  return {
    cycles: a.cycles - b.cycles, mxuBusy: a.mxuBusy - b.mxuBusy, vpuBusy: a.vpuBusy - b.vpuBusy, dmaBusy: a.dmaBusy - b.dmaBusy,
    idle: a.idle - b.idle, stall: a.stall - b.stall, overlap: a.overlap - b.overlap, depWait: a.depWait - b.depWait,
    depWaitByUnit: {
      DMA: a.depWaitByUnit.DMA - b.depWaitByUnit.DMA, MXU: a.depWaitByUnit.MXU - b.depWaitByUnit.MXU, VPU: a.depWaitByUnit.VPU - b.depWaitByUnit.VPU,
    },
  };
}

/** The report of PLATFORM.md §7, exactly in its shape. */
export function formatReport(c: CounterSnapshot, clockHz: number): string {
  const pct = (n: number) => (c.cycles ? (100 * n) / c.cycles : 0).toFixed(1);
  const ms = ((c.cycles / clockHz) * 1000).toFixed(3);
  const mhz = Number.isInteger(clockHz / 1e6) ? String(clockHz / 1e6) : (clockHz / 1e6).toFixed(3);
  return [
    `run ${c.cycles} clocks ${ms} ms @ ${mhz} MHz`,
    `MXU busy ${c.mxuBusy} ${pct(c.mxuBusy)}%`,
    `VPU busy ${c.vpuBusy} ${pct(c.vpuBusy)}%`,
    `DMA busy ${c.dmaBusy} ${pct(c.dmaBusy)}%`,
    `no unit busy (issue overhead) ${c.idle} ${pct(c.idle)}%`,
    `producer stalled on a full queue ${c.stall} ${pct(c.stall)}%`,
    `two or more units busy ${c.overlap} ${pct(c.overlap)}%`,
  ].join('\n') + '\n';
}
