// Shared by the two issue-cost calibrations (calibrate-issue.ts, calibrate-model-issue.ts):
// the per-path counts of TPU-register accesses, which make the register wait (tpuWait) a
// named term of every path (model/predict/issue-cost.ts boardTerms), and the table they are written to.

import { writeCalibration, type PathTable } from '../model/predict/calibration.ts';

/**
 * A path's [issue, firstRead, afterRead] access counts from the counts seen (−1: that stretch
 * was never seen). As the clock terms are completed: a path seen only polling costs, without a
 * poll, its first read's stretch and the rest; one seen only not polling costs a poll nothing after the read.
 */
export function completeAccesses(acc: Record<string, number[]>): Record<string, [number, number, number]> {
  const out: Record<string, [number, number, number]> = {};
  const round = (x: number) => Math.round(x * 1000) / 1000;
  for (const [path, [issue, first, after]] of Object.entries(acc)) {
    if (first === -1) out[path] = [round(issue), round(issue), 0];
    else if (issue === -1) out[path] = [round(first + after), round(first), round(after)];
    else out[path] = [round(issue), round(first), round(after)];
  }
  return out;
}

/** Writes a table of access counts (model/predict/calibration/issue-accesses*.jsonl); `source`: the script and ELF that counted them. */
export function writeAccesses(name: 'issue-accesses' | 'issue-accesses-model', source: string, table: PathTable): void {
  writeCalibration(name, `TPU-register accesses per code path, counted by ${source}'s trace: per code class, per path between PUSH sites, [issue, firstRead, afterRead] accesses (each waits tpuWait clocks: model/predict/issue-cost.ts boardTerms), in the runs whose clocks the terms took.`, table);
}
