// A stop clock inside a firmware's first DMA command, derived from a full run's
// command records rather than read off a trace: the cycle-limit tests of the
// timeline, profiler and VCD writers stop there, and follow the firmware if it changes.

import { readFileSync } from 'node:fs';
import { Machine } from '../../boards/machine.ts';
import type { CommandRecord } from '../../periph/tpu.ts';

/** Clocks into the first DMA command at which the run is stopped (it must last longer). */
export const INTO_FIRST_DMA = 100;

export interface FirstDma {
  /** The first DMA command as a run without a cycle limit records it. */
  readonly record: CommandRecord;
  /** Its start clock + INTO_FIRST_DMA: the --max-cycles that stops the run inside it. */
  readonly stopClock: number;
}

export function firstDma(elf: string): FirstDma {
  const m = new Machine();
  m.loadElf(readFileSync(elf));
  m.bus.console.captureOutput();
  m.tpu.records = [];
  m.run();
  const record = m.tpu.records.find((r) => r.unit === 'DMA');
  if (!record) throw new Error(`${elf}: no DMA command`);
  if (record.endClock - record.startClock < INTO_FIRST_DMA) throw new Error(`${elf}: the first DMA command is shorter than ${INTO_FIRST_DMA} clocks`);
  return { record, stopClock: record.startClock + INTO_FIRST_DMA };
}

/**
 * A cycle-limited run stops at the first instruction boundary at or after the
 * limit: inside the first DMA command, which is then still running.
 */
export function expectStopInside(first: FirstDma, clocks: number): void {
  if (!(clocks >= first.stopClock && clocks <= first.record.endClock)) {
    throw new Error(`the run stopped at clock ${clocks}, not inside the first DMA command after ${first.stopClock} (it ends at ${first.record.endClock})`);
  }
}
