// A run observer for tests that read every TPU command and stall record after
// the run: runObserved empties tpu.records and tpu.stallRecords as it goes
// (emu/observe/observer.ts); this one keeps copies and puts the whole lists back at the
// end. List it last, so the other observers finish on the lists they read.

import type { Machine } from '../../boards/machine.ts';
import type { RunObserver } from '../../emu/observe/observer.ts';
import type { CommandRecord } from '../../periph/tpu.ts';

type Stall = NonNullable<Machine['tpu']['stallRecords']>[number];

export class KeepRecords implements RunObserver {
  private readonly records: CommandRecord[] = [];
  private readonly stalls: Stall[] = [];
  /** How many times the records were released during the run. */
  releases = 0;

  step(): void {}

  releaseTpuRecords(m: Machine): void {
    this.take(m);
    this.releases++;
  }

  finish(_r: unknown, m: Machine): void {
    this.take(m);
    m.tpu.records = this.records;
    m.tpu.stallRecords = this.stalls;
  }

  private take(m: Machine): void {
    for (const r of m.tpu.records ?? []) this.records.push(r);
    for (const s of m.tpu.stallRecords ?? []) this.stalls.push(s);
  }
}
