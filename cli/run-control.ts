// `picotpu run` in slices, so a signal can stop it. The emulator's loop is
// synchronous and a Node signal handler runs only on the event loop, so the run
// goes in slices (SLICE_CLOCKS clocks free-running, SLICE_STEPS instructions
// under observers) and yields to the event loop between them: the SIGINT or
// SIGTERM handler sets a flag, and the run stops at the next slice boundary
// (tens of milliseconds). Nothing is added to the instruction loop itself; a
// sliced run has the clocks of one run (Machine.advance).
//
// An interrupted run (docs/hardware.md §7) finishes its output files validly,
// marked as interrupted, and ends with status 128 + the signal's number: 130
// SIGINT, 143 SIGTERM. When standard output's reader has gone (EPIPE: `| head`)
// the run stops the same way, quietly, with 141, as a tool killed by SIGPIPE.
// While the guest waits for console input that has not arrived, the signal is
// seen once the input arrives or ends.

import { EXIT } from '../emu/exit-status.ts';
import { StopReason } from '../emu/cpu.ts';
import type { Machine, RunResult } from '../emu/machine.ts';
import { stepObserved, type RunObserver } from '../emu/observe/observer.ts';
import { Stepper } from '../emu/stepper.ts';

export const SLICE_CLOCKS = 1 << 24;
export const SLICE_STEPS = 1 << 13;

/** Exit status of a run stopped by each signal (128 + its number, as a shell reports a killed tool). */
export const SIGNAL_STATUS: Record<string, number> = { SIGINT: EXIT.INTERRUPTED, SIGPIPE: EXIT.STDOUT_CLOSED, SIGTERM: EXIT.TERMINATED };

/** The stop request of a run: a signal caught, or standard output's reader gone. */
export class RunControl {
  signal: string | null = null;
  private readonly handlers = new Map<NodeJS.Signals, () => void>();

  /** Catches SIGINT and SIGTERM until uninstall(). */
  install(): void {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const h = () => this.stop(sig);
      this.handlers.set(sig, h);
      process.on(sig, h);
    }
  }

  uninstall(): void {
    for (const [sig, h] of this.handlers) process.off(sig, h);
    this.handlers.clear();
  }

  /** Asks the run to stop (the first request wins). */
  stop(signal: string): void {
    this.signal ??= signal;
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs to a stop, under `observers` if any, in slices that let `control` stop it; an interrupted run's reason is 'interrupted'. */
export async function runSliced(machine: Machine, maxCycles: number, observers: RunObserver[], control: RunControl): Promise<RunResult> {
  let result: RunResult;
  if (observers.length === 0) {
    let reason: StopReason;
    for (;;) {
      reason = machine.advance(Math.min(maxCycles, machine.cpu.cycle + SLICE_CLOCKS));
      if (reason !== StopReason.LIMIT || machine.cpu.cycle >= maxCycles || machine.activity.fatal || control.signal) break;
      await yieldToEventLoop();
      if (control.signal) break;
    }
    result = interrupted(machine.finishRun(reason), control);
  } else {
    const stepper = new Stepper(machine);
    while (stepObserved(stepper, maxCycles, observers, SLICE_STEPS) && !control.signal) {
      await yieldToEventLoop();
      if (control.signal) break;
    }
    result = interrupted(stepper.finish(), control);
    for (const o of observers) o.finish(result, machine);
  }
  return result;
}

function interrupted(r: RunResult, control: RunControl): RunResult {
  if (!control.signal) return r;
  return { ...r, reason: 'interrupted', exit: SIGNAL_STATUS[control.signal] ?? 130, signal: control.signal };
}
