// Test-side record of the PERF_CTRL writes as the TPU itself receives them (its
// write() is wrapped), for holding the profiler, --vcd and --timeline to the
// clocks the TPU's counters actually use.

import type { Machine } from '../../boards/machine.ts';
import { GLOBAL } from '../../periph/regs.ts';

export interface PerfWrite {
  /** The clock the write reached the TPU. */
  clock: number;
  on: boolean;
}

export function watchPerfCtrl(m: Machine): PerfWrite[] {
  const writes: PerfWrite[] = [];
  const tpu = m.tpu;
  const write = tpu.write.bind(tpu);
  tpu.write = (offset, value, wstrb, clock) => {
    if (offset === GLOBAL.PERF_CTRL) writes.push({ clock, on: (value & 1) === 1 });
    write(offset, value, wstrb, clock);
  };
  return writes;
}

/** The last window the writes opened: [from, to), `to` = `end` when it was never closed. */
export function lastWindow(writes: PerfWrite[], end: number): { from: number; to: number } | null {
  let from = -1, to = end;
  for (const w of writes) {
    if (w.on) { from = w.clock; to = end; } else if (from >= 0 && to === end) to = w.clock;
  }
  return from >= 0 ? { from, to } : null;
}
