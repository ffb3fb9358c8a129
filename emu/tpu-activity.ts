// The TPU as the run observers (VCD, timeline, profiler, stepper, GDB) see it:
// per unit its pushes, queue, running command and finished commands. Every
// board gives one (emu/board.ts BoardDevices.activity): picotpu's Tpu is one as
// it is; the transformer-tpu-int4 board's follows its TPU's commit stores and
// command callbacks (boards/transformer-tpu-int4/activity.ts).

import { UNIT_NAMES } from '../periph/counters.ts';
import type { CommandRecord, TpuError, UnitState } from '../periph/tpu.ts';
import type { SeqModel } from '../periph/seq.ts';

export type UnitName = (typeof UNIT_NAMES)[number];

export interface QueuedView {
  readonly serial: number;
  readonly pushClock: number;
}

export interface UnitActivity {
  readonly name: UnitName;
  /** Commands accepted so far. */
  readonly issued: number;
  /** Accepted, not started. */
  readonly fifo: readonly QueuedView[];
  readonly running: QueuedView | null;
  readonly runningStart: number;
  readonly rules: { describe(cmd: QueuedView): string };
}

export interface StallRecord {
  unit: UnitName;
  from: number;
  to: number;
}

export interface TpuActivity {
  /** Every TPU event before this clock is known. */
  readonly clock: number;
  /** Finished commands, when recording is on (set to [] to turn it on). */
  records: CommandRecord[] | null;
  /** Commit stores held on a full queue, [from, to) (set to [] to turn it on). */
  stallRecords: StallRecord[] | null;
  readonly errors: readonly TpuError[];
  readonly units: readonly UnitActivity[];
  /** Set when the TPU must stop the machine (picotpu: --strict, a deadlock). */
  readonly fatal: string | null;
  /** Commands dropped beyond those kept in `errors`. */
  readonly errorsNotKept?: number;
  /** picotpu's command sequencer (the what-if), when the board runs one. */
  readonly seq?: UnitState<SeqModel, 'SEQ'> | null;
  /** The sequencer's finished RUNs, when recording is on (set to [] to turn it on). */
  seqRecords?: CommandRecord<'SEQ'>[] | null;
  advanceTo(clock: number): void;
}
