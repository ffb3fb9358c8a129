// Run observers: traces, waveforms, timelines and the profiler watch a run
// instruction by instruction through the Stepper. A run with no observer uses
// the free-running Machine.run; with observers the clocks are the same.

import type { Machine, RunResult } from './machine.ts';
import { Stepper, type StepInfo } from './stepper.ts';

export interface RunObserver {
  /** After every instruction that executed (a trapping one included, with clockAfter = clockBefore). */
  step(info: StepInfo, machine: Machine): void;
  /** Once, when the run has stopped; flush and close files here. */
  finish(result: RunResult, machine: Machine): void;
}

export function runObserved(machine: Machine, maxCycles: number, observers: RunObserver[]): RunResult {
  if (observers.length === 0) return machine.run(maxCycles);
  const stepper = new Stepper(machine);
  for (;;) {
    const more = stepper.step(maxCycles);
    if (stepper.executed) for (const o of observers) o.step(stepper.info, machine);
    if (!more) break;
  }
  const result = stepper.finish();
  for (const o of observers) o.finish(result, machine);
  return result;
}
