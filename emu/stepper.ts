// One instruction at a time, for the debugger, the GDB server, traces and the
// profiler. Slower than Machine.run (a call per instruction) but it sees every
// instruction: its pc, word, clocks and the register it wrote. The clocks are
// the same as a free run's: stepping never changes timing.

import { StopReason, TrapKind } from './cpu.ts';
import type { Machine, RunResult } from './machine.ts';

export interface StepInfo {
  pc: number;
  /** The instruction's bits (a compressed one in the low half, as fetched: the next halfword above it). */
  word: number;
  /** Bytes of the instruction: 4, or 2 for a compressed one (COMPRESSED_ISA). */
  length: number;
  /** Launch clock of the instruction, and of the next one (the same for one that trapped). */
  clockBefore: number;
  clockAfter: number;
  /** Register written (1..31) and its new value, or rd = 0 when none changed. */
  rd: number;
  rdValue: number;
}

export class Stepper {
  private readonly before = new Int32Array(32);
  readonly info: StepInfo = { pc: 0, word: 0, length: 4, clockBefore: 0, clockAfter: 0, rd: 0, rdValue: 0 };
  /** Whether the last step() executed an instruction (one that trapped included). */
  executed = false;
  /** Set once the machine has stopped (exit, trap, bus error, TPU stop). */
  stopped: StopReason | null = null;

  constructor(readonly machine: Machine) {}

  /**
   * Executes one instruction unless `maxCycles` is reached. Returns false when
   * the machine stopped or the limit was hit (then `stopped` says which, null
   * for the limit). The returned info object is reused: copy what you keep.
   */
  step(maxCycles = Number.POSITIVE_INFINITY): boolean {
    this.executed = false;
    if (this.stopped !== null) return false;
    const cpu = this.machine.cpu;
    const i = this.info;
    i.pc = cpu.pc;
    const fetchable = cpu.pc < cpu.ramSize && (cpu.pc & (cpu.compressed ? 1 : 3)) === 0;
    i.word = fetchable ? cpu.wordAt(cpu.pc) >>> 0 : 0;
    i.length = fetchable ? cpu.lengthAt(cpu.pc) : 4;
    i.clockBefore = cpu.cycle;
    this.before.set(cpu.regs);
    const retired = cpu.instret;
    const reason = this.machine.runCpu(maxCycles, 1);
    i.clockAfter = cpu.cycle;
    // A trapping instruction executed (and does not retire); a fetch from outside the BRAM did not.
    this.executed = cpu.instret > retired || reason === StopReason.TRAP
      || (reason === StopReason.BUS_ERROR && cpu.trapKind !== TrapKind.FETCH_OUTSIDE_BRAM);
    i.rd = 0;
    for (let r = 1; r < 32; r++) {
      if (cpu.regs[r] !== this.before[r]) { i.rd = r; i.rdValue = cpu.regs[r]; break; }
    }
    if (reason !== StopReason.LIMIT) {
      this.stopped = reason;
      return false;
    }
    // Keep the TPU current, so a debugger shows its state at this clock (and
    // a --strict error stops the stepping at once).
    const tpu = this.machine.activity;
    this.machine.syncTo(cpu.cycle); // on a ring: the other boards first (boards/picotpu/ring.ts)
    tpu.advanceTo(cpu.cycle);
    if (tpu.fatal) {
      this.stopped = StopReason.EXIT;
      return false;
    }
    return cpu.instret > retired;
  }

  /** The run's result once stopped (or now, for a cycle limit). */
  finish(): RunResult {
    return this.machine.finishRun(this.stopped ?? StopReason.LIMIT);
  }
}
