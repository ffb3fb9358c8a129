// Counts the issue-cost terms of model_tp.c's flows (model/predict/tp-program.ts) on
// the emulator's trace, as scripts/calibrate-model-issue.ts does for
// model.elf: runs build/fw/model_tp.elf on N boards for a few calibration
// jobs (prompt lengths, decode steps and widths other than the bench's and
// the sweep's, so that those are predictions), logs every board's TPU and
// LINK command records, PERF_CTRL writes and DONE / RX_COUNT reads, checks
// that the program pushes the trace's commands (unit by unit, in order) and
// per code class and path takes the mean clocks: where the CPU did not poll
// (issue), from the previous PUSH to the first poll read (firstRead) and from
// the read that sees the awaited command done or message landed to the PUSH
// (afterRead). Every board's trace counts (their paths differ by a few
// clocks of branches). Writes model/predict/calibration/issue-terms-tp.jsonl:
//   make -C firmware-c -j2 && npx tsx scripts/calibrate-tp-issue.ts

import { KernelCpu } from '../model/predict/issue-cost.ts';
import { writeCalibration } from '../model/predict/calibration.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import type { ModelDims } from '../model/format.ts';
import { tpClass, tpProgram, TP_VARIANT_BITS } from '../model/predict/tp-program.ts';
import { traceTpBoards, type BoardTrace } from '../model/tp-run.ts';
import { LINK, RX, type AnyUnit } from '../model/predict/schedule.ts';

const BASE: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 2, vocab: 16, maxSeq: 64 };
const SMALL: ModelDims = { d: 64, dFF: 256, heads: 8, layers: 1, vocab: 16, maxSeq: 64 };
/** The tiled variants' code classes: base, db, tok, lean and their mixes, with FUSED and FLASH across them. */
const VARIANTS = [0, 1, 3, 7, 15, 31, 16, 17, 9, 24];
interface CalJob { dims: ModelDims; prompt: number; steps: number; boards: number[] }
/** Short and long prompts (one and several AllReduce blocks, the last partial), decode, 1, 2, 4 (and 8) boards. */
const JOBS: CalJob[] = process.env.CAL_ONLY ? JSON.parse(process.env.CAL_ONLY) as CalJob[] : [
  { dims: BASE, prompt: 5, steps: 3, boards: [1, 2, 4] },
  { dims: BASE, prompt: 37, steps: 2, boards: [1, 2, 4] },
  { dims: SMALL, prompt: 20, steps: 3, boards: [1, 2, 4, 8] },
];
const UNITS: AnyUnit[] = [0, 1, 2, LINK];
const UNIT_NAMES = ['DMA', 'MXU', 'VPU', 'LINK'];

type Sums = Record<string, { issue: number[]; first: number[]; after: number[] }>;
const sums: Record<string, Sums> = {};
const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);

for (const job of JOBS) {
  for (const n of job.boards) {
    console.log(`d ${job.dims.d}, ${job.dims.layers} layers, prompt ${job.prompt} + ${job.steps} steps, ${n} boards: ${VARIANTS.length} variants`);
    for (const v of VARIANTS) calibrate(job, n, v);
  }
}

function calibrate(job: CalJob, boards: number, v: number): void {
  const prompt = randomPrompt(job.dims, job.prompt, 1);
  const traces = traceTpBoards(randomModel(job.dims, 1), { prompt, decodeSteps: job.steps, variant: v, stopToken: 255 }, boards);
  const cls = tpClass(v), s = (sums[cls] ??= {});
  traces.forEach((t, b) => calibrateBoard(t, `v${v} P${job.prompt}+${job.steps} d${job.dims.d} N${boards} board ${b}`, job, boards, v, s));
}

function calibrateBoard(t: BoardTrace, label: string, job: CalJob, boards: number, v: number, s: Sums): void {
  const cpus: KernelCpu[] = [];
  tpProgram(job.dims, job.prompt, job.steps, boards, v, () => {
    const k = new KernelCpu(v & TP_VARIANT_BITS, () => ({ issue: 1, firstRead: 1, afterRead: 1 }), tpClass(v));
    k.s.pollLog = [];
    cpus.push(k);
    return k;
  });
  let rxBase = 0;
  cpus.forEach((k, w) => {
    const start = t.perf[2 * w], stop = t.perf[2 * w + 1];
    const recs = t.records.filter((r) => r.pushClock > start && r.pushClock < stop);
    const byUnit = UNIT_NAMES.map((u) => recs.filter((r) => r.unit === u));
    if (k.paths.length !== recs.length + 1) throw new Error(`${label} window ${w}: model ${k.paths.length - 1} pushes, trace ${recs.length}`);
    let r0 = 0, s0 = 0;
    k.paths.forEach((path, i) => {
      const unit = k.units[i];
      if (i < recs.length && UNIT_NAMES[UNITS.indexOf(unit)] !== recs[i].unit) throw new Error(`${label} window ${w}: push ${i} (${path}) is ${recs[i].unit} on the trace, ${UNIT_NAMES[UNITS.indexOf(unit)]} in the model`);
      const pushAt = i < recs.length ? recs[i].pushClock : stop, prev = i === 0 ? start : recs[i - 1].pushClock;
      let held = 0;
      while (s0 < t.stalls.length && t.stalls[s0].to <= prev) s0++;
      for (let j = s0; j < t.stalls.length && t.stalls[j].from < pushAt; j++) held += Math.min(pushAt, t.stalls[j].to) - Math.max(prev, t.stalls[j].from);
      const at = pushAt - held - k.afterPoll[i];
      while (r0 < t.pollReads.length && t.pollReads[r0] <= prev) r0++;
      let r1 = r0;
      while (r1 < t.pollReads.length && t.pollReads[r1] < pushAt) r1++;
      const reads = t.pollReads.slice(r0, r1);
      const e = (s[path] ??= { issue: [], first: [], after: [] });
      const polled = k.s.pollLog![i];
      if (!polled.length || !reads.length) { e.issue.push(at - prev); return; }
      // The clock the awaited thing became visible: a command's end + 1, a message's landing.
      const seen = Math.max(...polled.map((p) => {
        if (p.unit === RX) return t.landings[rxBase + p.ticket - 1];
        return byUnit[UNITS.indexOf(p.unit)][p.ticket - 1].endClock + 1;
      }));
      const seeing = reads.find((r) => r >= seen) ?? reads[reads.length - 1];
      e.first.push(reads[0] - prev);
      e.after.push(at - seeing);
    });
    rxBase += k.s.pushed(RX);
  });
}

const table: Record<string, Record<string, [number, number, number]>> = {};
for (const [cls, paths] of Object.entries(sums)) {
  const out: Record<string, [number, number, number]> = {};
  for (const [p, e] of Object.entries(paths)) {
    const issue = e.issue.length ? mean(e.issue) : mean(e.first) + mean(e.after);
    out[p] = e.first.length ? [issue, mean(e.first), mean(e.after)] : [issue, issue, 0];
  }
  table[cls] = out;
}
writeCalibration('issue-terms-tp', `Issue-cost terms of model_tp.c's flows, counted by scripts/calibrate-tp-issue.ts on model_tp.elf's traces (${JOBS.map((j) => `d ${j.dims.d}, ${j.dims.layers} layer(s), prompt ${j.prompt} + ${j.steps} steps on ${j.boards.join(', ')} boards`).join('; ')}; variants ${VARIANTS.join(', ')}): per code class, per path between PUSH sites, [issue, firstRead, afterRead] in CPU clocks (model/predict/tp-program.ts).`, table);
