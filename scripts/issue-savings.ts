// Shared by the two issue-cost calibrations (calibrate-issue.ts, calibrate-model-issue.ts):
// what the CPU what-ifs take off each code path, counted instruction by instruction on the
// calibration run — per shift, its clocks less BARREL_SHIFTER's (1 + its two-stage shift steps,
// hardware.md §1.2); per multiply on the rv32im build, its clocks less ENABLE_FAST_MUL's — so
// that the barrel-shifter and fast-multiplier boards are a formula of the terms
// (model/predict/issue-cost.ts boardTerms), and the file the counts are written to.

import { writeCalibration, type PathTable } from '../model/predict/calibration.ts';
import type { PlatformConfig } from '../emu/config.ts';
import { INSNS, matchInsn, type TimingClass } from '../emu/isa.ts';
import type { Machine } from '../boards/machine.ts';
import type { RunObserver } from '../emu/observe/observer.ts';
import type { StepInfo } from '../emu/stepper.ts';
import { classClocks } from '../emu/timing.ts';
import type { CommandRecord as UnitRecord, TpuUnitName } from '../periph/tpu.ts';
/** A command record of any unit, the sequencer's RUNs too. */
type CommandRecord = UnitRecord<TpuUnitName>;

/** The timing classes counted, by their code in the per-instruction cache (0: none, −1: not seen yet). */
const COUNTED: readonly (TimingClass | null)[] = [null, 'shifti', 'shift', 'mul', 'mulh'];
const UNKNOWN = -1, OTHER = 0;
const isShift = (t: TimingClass) => t === 'shifti' || t === 'shift';

/**
 * A run observer that keeps, per shift and per multiply, its launch clock and the running sum of the
 * clocks the what-if would take off it, so that a stretch's savings are two binary searches
 * (savedIn). It also keeps the TPU's command and stall records (the sequencer's RUNs among the commands) the observed run releases every 4096.
 */
export class SavingsCounter implements RunObserver {
  readonly shiftAt: number[] = [];
  readonly shiftSum: number[] = [0];
  readonly mulAt: number[] = [];
  readonly mulSum: number[] = [0];
  readonly records: CommandRecord[] = [];
  readonly stalls: { from: number; to: number }[] = [];
  private readonly kind = new Int8Array(1 << 18).fill(UNKNOWN);
  private readonly barrel: Record<TimingClass, number>;
  private readonly fast: Record<TimingClass, number>;
  constructor(cfg: PlatformConfig) {
    this.barrel = classClocks({ ...cfg.cpu, BARREL_SHIFTER: true });
    this.fast = classClocks({ ...cfg.cpu, ENABLE_FAST_MUL: true });
  }
  step(info: StepInfo): void {
    const slot = info.pc >>> 2;
    let kind = this.kind[slot];
    if (kind === UNKNOWN) {
      const k = matchInsn(info.word);
      kind = this.kind[slot] = k >= 0 ? Math.max(0, COUNTED.indexOf(INSNS[k].timing)) : OTHER;
    }
    if (kind === OTHER) return;
    const timing = COUNTED[kind]!, clocks = info.clockAfter - info.clockBefore;
    if (isShift(timing)) { this.shiftAt.push(info.clockBefore); this.shiftSum.push(this.shiftSum[this.shiftSum.length - 1] + clocks - this.barrel[timing]); }
    else { this.mulAt.push(info.clockBefore); this.mulSum.push(this.mulSum[this.mulSum.length - 1] + clocks - this.fast[timing]); }
  }
  releaseTpuRecords(m: Machine): void {
    this.records.push(...(m.tpu.records ?? []), ...(m.tpu.seqRecords ?? []));
    this.stalls.push(...(m.tpu.stallRecords ?? []));
  }
  finish(): void {}
}

/** The savings of the instructions launched at clocks in [from, to) (`at` sorted, `sum` its running sums from 0). */
export function savedIn(at: number[], sum: number[], from: number, to: number): number {
  const first = (x: number) => {
    let lo = 0, hi = at.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (at[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  };
  return sum[first(to)] - sum[first(from)];
}

/** Writes the two savings tables (model/predict/calibration/issue-{shift,mul}-savings-model.jsonl); `source`: the script and builds that counted them. */
export function writeSavings(source: string, tables: { shift: PathTable; mul: PathTable }): void {
  const about = `counted by ${source}'s trace, instruction by instruction: per code class, per path between PUSH sites, [issue, firstRead, afterRead] clocks`;
  writeCalibration('issue-shift-savings-model', `What BARREL_SHIFTER takes off each code path, ${about}: per shift its clocks less BARREL_SHIFTER's (model/predict/issue-cost.ts boardTerms). Means over the runs counted.`, tables.shift);
  writeCalibration('issue-mul-savings-model', `What ENABLE_FAST_MUL takes off each code path of the rv32im build (counted at ENABLE_MUL), ${about}: per multiply its clocks less ENABLE_FAST_MUL's (model/predict/issue-cost.ts boardTerms). Means over the runs counted.`, tables.mul);
}
