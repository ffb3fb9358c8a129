// Run observers: traces, waveforms, timelines and the profiler watch a run
// instruction by instruction through the Stepper. A run with no observer uses
// the free-running Machine.run; with observers the clocks are the same.
//
// Memory stays bounded whatever the run's length: the TPU's command and stall
// records (tpu.records, tpu.stallRecords) are emptied every RECORD_WINDOW
// records, after each observer has taken what it needs (releaseTpuRecords).

import type { Machine, RunResult } from '../machine.ts';
import { Stepper, type StepInfo } from '../stepper.ts';

export interface RunObserver {
  /** After every instruction that executed (a trapping one included, with clockAfter = clockBefore). */
  step(info: StepInfo, machine: Machine): void;
  /**
   * Between two steps, before the TPU's records and stall records are emptied:
   * take what you need of them now and read them from index 0 from now on.
   */
  releaseTpuRecords?(machine: Machine): void;
  /** Once, when the run has stopped (reason 'interrupted' for a signal); flush and close files here. */
  finish(result: RunResult, machine: Machine): void;
}

/** Records kept before the observers release them. */
export const RECORD_WINDOW = 4096;

/** Steps the machine under observers up to `steps` instructions; false once it stopped. */
export function stepObserved(stepper: Stepper, maxCycles: number, observers: RunObserver[], steps: number, recordWindow = RECORD_WINDOW): boolean {
  const machine = stepper.machine;
  for (let n = 0; n < steps; n++) {
    const more = stepper.step(maxCycles);
    if (stepper.executed) for (const o of observers) o.step(stepper.info, machine);
    if (!more) return false;
    const tpu = machine.activity;
    const runs = machine.activity.seqRecords ?? null;
    if ((tpu.records?.length ?? 0) >= recordWindow || (tpu.stallRecords?.length ?? 0) >= recordWindow || (runs?.length ?? 0) >= recordWindow) releaseRecords(machine, observers);
  }
  return true;
}

function releaseRecords(machine: Machine, observers: RunObserver[]): void {
  for (const o of observers) o.releaseTpuRecords?.(machine);
  const tpu = machine.activity;
  if (tpu.records) tpu.records.length = 0;
  if (tpu.stallRecords) tpu.stallRecords.length = 0;
  if (machine.activity.seqRecords) machine.activity.seqRecords.length = 0;
}

/** `recordWindow`: records kept before a release (tests vary it; the files must not change). */
export function runObserved(machine: Machine, maxCycles: number, observers: RunObserver[], recordWindow = RECORD_WINDOW): RunResult {
  if (observers.length === 0) return machine.run(maxCycles);
  const stepper = new Stepper(machine);
  while (stepObserved(stepper, maxCycles, observers, Number.POSITIVE_INFINITY, recordWindow));
  const result = stepper.finish();
  for (const o of observers) o.finish(result, machine);
  return result;
}
