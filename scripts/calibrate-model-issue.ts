// Counts the issue-cost terms of model.c's flows (model/predict/model-program.ts) on
// the emulator's trace, as scripts/calibrate-issue.ts does for mmbench: runs
// model.elf on a few calibration jobs (prompt lengths and decode steps other
// than the bench's, so that the bench and sweep runs are predictions) with
// the TPU's command records, the PERF_CTRL writes and the DONE reads logged,
// checks that the model pushes the trace's commands (unit by unit, in order),
// and per code class and path takes the mean clocks where the CPU did not
// poll (issue), from the previous PUSH to the first DONE read (firstRead) and
// from the read that sees the awaited command done to the PUSH (afterRead).
// The mean, not the fewest: a path's clocks vary a little with its operands
// (libgcc multiplies by positions and strides), and the runs span them.
// Writes model/predict/calibration/issue-terms-model.jsonl (and its accesses and savings) (re-run it whenever model.c or the kernels change):
//   make -C firmware-c -j2 && npx tsx scripts/calibrate-model-issue.ts

import { MODEL_ELF, runOnEmulator } from '../model/run.ts';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { MXU16_ELFS, RV32IM_ELFS, SPAD32_ELFS } from '../study/sweep/runs.ts';
import { SEQUENCER_SET } from '../study/bench.ts';
import { calibration, writeCalibration } from '../model/predict/calibration.ts';
import { SavingsCounter, savedIn, writeSavings } from './issue-savings.ts';
import { KernelCpu } from '../model/predict/issue-cost.ts';
import { LONG_CONTEXT_NEEDS, modelClass, modelProgram, ModelProgram } from '../model/predict/model-program.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { VARIANT, type Job, type ModelDims } from '../model/format.ts';
import type { CommandRecord as UnitRecord, TpuUnitName } from '../periph/tpu.ts';
/** A command record of any unit, the sequencer's RUNs too. */
type CommandRecord = UnitRecord<TpuUnitName>;
import { completeAccesses, writeAccesses } from './issue-accesses.ts';

const BASE: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 2, vocab: 16, maxSeq: 128 };
const LONG: ModelDims = { ...BASE, layers: 1, maxSeq: 256 };
const SMALL: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 32 };
const NARROW: ModelDims = { d: 64, dFF: 256, heads: 4, layers: 1, vocab: 16, maxSeq: 512 };
/** The ladder's variants (bench), each bit added to the one before. */
const LADDER = [0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095];
/**
 * A variant with the bits that change nothing in model.c's single job cleared: without PANEL
 * none above it counts; HEADS is decode's, BLOCK_ATTN and FFN_ON_CHIP count only with STREAM,
 * LONG_CONTEXT only with the bits its flow needs.
 */
function canonicalVariant(v: number): number {
  if (!(v & VARIANT.PANEL)) return v & (VARIANT.PANEL - 1);
  if (!(v & VARIANT.STREAM)) v &= ~(VARIANT.BLOCK_ATTN | VARIANT.FFN_ON_CHIP);
  return (v & LONG_CONTEXT_NEEDS) === LONG_CONTEXT_NEEDS ? v : v & ~VARIANT.LONG_CONTEXT;
}
/** Every variant without PANEL (the tiled flows), for the long prompts: several A blocks a matmul, several chunks an elementwise pass. */
const TILED = Array.from({ length: VARIANT.PANEL }, (_, v) => v);
/** LONG_CONTEXT's variants by the bits that change its prefill's instructions or order past one row block: DOUBLE_BUFFER, LEAN, CHAIN. */
const LONG_VARIANTS = [0, 1, 16, 17, 512, 513, 528, 529].map((bits) => LONG_CONTEXT_NEEDS | bits | VARIANT.HEADS);
/** Every behaviour of model.c's single job the transcriptions cover but SEQUENCER's (SEQ_VARIANTS): one variant per canonical form. */
const EVERY = [...new Set(Array.from({ length: VARIANT.SEQUENCER }, (_, v) => canonicalVariant(v)))];
/** `decodeOnly`: only the decode window's paths count (the prefill's are another job's). */
interface CalJob { dims: ModelDims; prompt: number; steps: number; variants: number[]; batch?: number; decodeOnly?: boolean }
/** SEQUENCER's decode (model.c seq_forward) with TOKENS, by the bits that change its instructions: DOUBLE_BUFFER, LEAN; and the prefill flows before it. */
const SEQ_VARIANTS = [4095, 2047, 1023, 1007, 1022].map((v) => v | VARIANT.SEQUENCER);
const ONLY = process.env.CAL_ONLY ? JSON.parse(process.env.CAL_ONLY) as CalJob[] : null;
/** Short prompts (no fused epilogues below 8 rows), one row group exactly, a few row groups, nearly the most a stream takes (64 rows: three and more chunks per pass), the ladder at a longer prompt, and long prompts (tiled prefill, two A blocks; LONG_CONTEXT's row blocks and query blocks). */
const JOBS: CalJob[] = ONLY ?? [
  // SEQUENCER's decode: the recording step, then replays (its prefill is the variant's without SEQUENCER, counted below).
  { dims: BASE, prompt: 20, steps: 4, variants: SEQ_VARIANTS, decodeOnly: true },
  { dims: { ...BASE, layers: 1 }, prompt: 61, steps: 3, variants: SEQ_VARIANTS, decodeOnly: true },
  { dims: SMALL, prompt: 12, steps: 3, variants: SEQ_VARIANTS, decodeOnly: true },
  { dims: BASE, prompt: 5, steps: 2, variants: EVERY },
  { dims: BASE, prompt: 20, steps: 2, variants: EVERY },
  { dims: { ...BASE, layers: 1 }, prompt: 61, steps: 1, variants: EVERY },
  { dims: { ...BASE, layers: 1 }, prompt: 8, steps: 1, variants: EVERY },
  { dims: BASE, prompt: 40, steps: 5, variants: LADDER },
  { dims: LONG, prompt: 200, steps: 0, variants: [...TILED, 1023, 2047, ...LONG_VARIANTS] },
  // LONG_CONTEXT past one row block: three blocks (the last of 2 rows) and two layers, then decode.
  { dims: { ...BASE, maxSeq: 256 }, prompt: 130, steps: 2, variants: LONG_VARIANTS },
  { dims: BASE, prompt: 100, steps: 3, variants: LONG_VARIANTS.filter((v, i) => i % 2 === 0) },
  // Narrower models (the sweeps' small scale, the context sweep's d = 64 up to 512 positions).
  { dims: SMALL, prompt: 12, steps: 3, variants: LADDER },
  { dims: { ...SMALL, layers: 1 }, prompt: 8, steps: 2, variants: EVERY },
  { dims: { ...SMALL, layers: 1 }, prompt: 21, steps: 2, variants: EVERY },
  { dims: NARROW, prompt: 300, steps: 0, variants: [...TILED, ...LONG_VARIANTS] },
  // LONG_CONTEXT at d = 64 (two B tiles a chunk in W2): a last row block of one row group and of five (its last group waits for a ReLU block).
  { dims: NARROW, prompt: 200, steps: 1, variants: LONG_VARIANTS },
  { dims: { ...NARROW, layers: 2 }, prompt: 164, steps: 1, variants: LONG_VARIANTS },
  // Batched decode (run_batch): batches below, at and above one row group, short prompts.
  { dims: BASE, prompt: 12, steps: 2, batch: 3, variants: LADDER },
  { dims: BASE, prompt: 12, steps: 2, batch: 8, variants: LADDER },
  { dims: BASE, prompt: 12, steps: 2, batch: 9, variants: LADDER },
  { dims: { ...BASE, layers: 1 }, prompt: 8, steps: 2, batch: 24, variants: LADDER },
  { dims: SMALL, prompt: 4, steps: 2, batch: 9, variants: LADDER },
];
/**
 * The what-if builds' jobs, and the default build's stepped runs that count the CPU what-ifs' savings (SavingsCounter,
 * an instruction at a time: slower, so the ladder only): a short prompt, a few row groups, two A blocks of the FFN's
 * down projection on the 32 KiB plan (61 rows; 36: a last block of one row group), one 16-row group, the narrow model.
 */
const LADDER_JOBS: CalJob[] = [
  { dims: BASE, prompt: 5, steps: 2, variants: LADDER },
  { dims: BASE, prompt: 20, steps: 2, variants: LADDER },
  { dims: { ...BASE, layers: 1 }, prompt: 61, steps: 1, variants: LADDER },
  // One 16-row group exactly: the 16×16 build's fused epilogue right after a tile's only MATMUL.
  { dims: { ...BASE, layers: 1 }, prompt: 16, steps: 1, variants: LADDER },
  // A last A block of one row group (W2 on the 32 KiB plan: 32-row blocks; its fused epilogue after the group's only MATMUL).
  { dims: { ...BASE, layers: 1 }, prompt: 36, steps: 1, variants: LADDER },
  { dims: SMALL, prompt: 12, steps: 3, variants: LADDER },
];
/**
 * The builds whose terms it counts (study/sweep/runs.ts firmwareFor): model.elf (its terms on JOBS, its savings on
 * LADDER_JOBS), and model-rv32im.elf (at ENABLE_MUL), model-mxu16.elf and model-spad32.elf, each on LADDER_JOBS,
 * their classes prefixed with the build's tag (model/predict/issue-cost.ts firmwareTag). CAL_BUILDS (tags, "default" for
 * model.elf) re-counts only those and keeps the other builds' rows of the tables.
 */
interface Build { tag: string; elfPath: string; config: PlatformConfig; jobs: CalJob[]; savingsJobs: CalJob[] }
const withCpu = (f: (c: PlatformConfig) => void) => { const c = defaultConfig(); f(c); return c; };
const BUILDS: Build[] = [
  { tag: '', elfPath: MODEL_ELF, config: defaultConfig(), jobs: JOBS, savingsJobs: ONLY ? [] : LADDER_JOBS },
  { tag: 'rv32im:', elfPath: RV32IM_ELFS.model, config: withCpu((c) => { c.cpu.ENABLE_MUL = true; }), jobs: LADDER_JOBS, savingsJobs: LADDER_JOBS },
  { tag: 'mxu16:', elfPath: MXU16_ELFS.model, config: withCpu((c) => { c.tpu.mxuDim = 16; }), jobs: LADDER_JOBS, savingsJobs: LADDER_JOBS },
  { tag: 'spad32:', elfPath: SPAD32_ELFS.model, config: withCpu((c) => { c.tpu.spadKiB = 32; }), jobs: LADDER_JOBS, savingsJobs: LADDER_JOBS },
];
const ONLY_BUILDS = process.env.CAL_BUILDS?.split(',').map((t) => (t === 'default' ? '' : `${t.replace(/:$/, '')}:`));
const buildOfClass = (cls: string) => BUILDS.find((b) => b.tag && cls.startsWith(`model:${b.tag}`))?.tag ?? '';
const UNITS = ['DMA', 'MXU', 'VPU', 'SEQ'];
const DONE_OFFSET = 0x24;
/** A SEQUENCER variant runs on the sequencer what-if with the list memory its recording needs (study/bench.ts SEQUENCER_SET). */
function configOf(build: Build, variant: number): PlatformConfig {
  if (!(variant & VARIANT.SEQUENCER)) return build.config;
  const c = structuredClone(build.config);
  c.tpu.sequencer = SEQUENCER_SET.sequencer; c.tpu.seqListKiB = SEQUENCER_SET.seqListKiB;
  return c;
}

function trace(build: Build, dims: ModelDims, prompt: number, steps: number, variant: number, batch: number, counter: SavingsCounter | null) {
  const records: CommandRecord[] = [], runs: CommandRecord[] = [];
  const perf: number[] = [], doneReads: number[] = [], accesses: number[] = [];
  const stalls: { from: number; to: number }[] = [];
  const prompts = Array.from({ length: batch }, (_, i) => randomPrompt(dims, prompt, 1 + i));
  // The stop token out of the vocabulary: every decode step runs.
  const job: Job = { prompt: prompts[0], decodeSteps: steps, variant, stopToken: 255 };
  if (batch > 1) job.prompts = prompts;
  runOnEmulator(randomModel(dims, 1), job, {
    config: configOf(build, variant), elfPath: build.elfPath, observers: counter ? [counter] : [],
    onMachine: (m) => {
      m.tpu.records = records as never;
      m.tpu.seqRecords = runs as never;
      m.tpu.stallRecords = stalls as never;
      const write = m.tpu.write.bind(m.tpu);
      m.tpu.write = (off, value, wstrb, clock) => { accesses.push(clock); if (off === 8) perf.push(clock); write(off, value, wstrb, clock); };
      const read = m.tpu.read.bind(m.tpu);
      m.tpu.read = (off, clock) => { accesses.push(clock); if (off >= 0x100 && (off & 0xff) === DONE_OFFSET) doneReads.push(clock); return read(off, clock); };
    },
  });
  // An observed run releases the records every 4096: the counter kept the earlier ones.
  const allRecords = [...(counter?.records ?? []), ...records, ...runs], allStalls = [...(counter?.stalls ?? []), ...stalls];
  return { records: allRecords.sort((a, b) => a.pushClock - b.pushClock), perf, doneReads, accesses, stalls: allStalls.sort((a, b) => a.from - b.from) };
}

type Stretches = [number[], number[], number[]];
type Sums = Record<string, { issue: number[]; first: number[]; after: number[]; acc: Stretches }>;
/** Per class and path, the savings counted in each stretch: BARREL_SHIFTER's, ENABLE_FAST_MUL's. */
const shiftSums: Record<string, Record<string, Stretches>> = {}, mulSums: Record<string, Record<string, Stretches>> = {};
/** TPU-register accesses at clocks in [from, to) (sorted clocks): an access's wait comes after its clock, so it belongs to the stretch it starts. */
function accessesIn(clocks: number[], from: number, to: number): number {
  let lo = 0, hi = clocks.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (clocks[mid] < from) lo = mid + 1; else hi = mid; }
  let n = 0;
  for (let i = lo; i < clocks.length && clocks[i] < to; i++) n++;
  return n;
}
const sums: Record<string, Sums> = {};
const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);

const builds = BUILDS.filter((b) => !ONLY_BUILDS || ONLY_BUILDS.includes(b.tag));
for (const build of builds) {
  // The default build: its terms on free runs (JOBS), then the savings on stepped ones; the other builds: both on the same runs.
  const passes = build.tag ? [{ jobs: build.jobs, terms: true, savings: true }] : [{ jobs: build.jobs, terms: true, savings: false }, { jobs: build.savingsJobs, terms: false, savings: true }];
  for (const pass of passes) for (const job of pass.jobs) {
    console.log(`${build.tag || 'model.elf'}${pass.terms ? '' : ' (savings)'}: d ${job.dims.d}, ${job.dims.layers} layers, prompt ${job.prompt} + ${job.steps} steps${job.batch ? `, batch ${job.batch}` : ''}: ${job.variants.length} variants`);
    for (const v of job.variants) calibrate(build, job, v, pass.terms, pass.savings);
  }
}

/** The program's clocks beyond the terms on each path (KernelCpu.afterPoll) on `cfg`. */
function afterPollOf(build: Build, job: CalJob, v: number, cfg: PlatformConfig): number[][] {
  const out: number[][] = [];
  modelProgram(new ModelProgram(v, cfg), job.dims, job.prompt, job.steps, () => {
    const k = new KernelCpu(v, () => ({ issue: 1, firstRead: 1, afterRead: 1 }), modelClass(v, build.tag), cfg);
    out.push(k.afterPoll);
    return k;
  }, job.batch ?? 1);
  return out;
}

function calibrate(build: Build, job: CalJob, v: number, terms: boolean, savings: boolean): void {
  const t0 = performance.now();
  const B = job.batch ?? 1;
  const counter = savings ? new SavingsCounter(build.config) : null;
  const t = trace(build, job.dims, job.prompt, job.steps, v, B, counter);
  const cls = modelClass(v, build.tag), s = (sums[cls] ??= {}), cfg = configOf(build, v);
  const cpus: KernelCpu[] = [];
  modelProgram(new ModelProgram(v, cfg), job.dims, job.prompt, job.steps, () => {
    const k = new KernelCpu(v, () => ({ issue: 1, firstRead: 1, afterRead: 1 }), cls, cfg);
    k.s.pollLog = [];
    cpus.push(k);
    return k;
  }, B);
  // The work the model computes beside the terms (the embedding's __mulsi3) has shifts of its own: the barrel
  // shifter's savings on it are the model's (mulsi3Clocks with BARREL_SHIFTER), not the path's.
  const barrelAfterPoll = afterPollOf(build, job, v, { ...cfg, cpu: { ...cfg.cpu, BARREL_SHIFTER: true } });
  cpus.forEach((k, w) => {
    if (job.decodeOnly && w === 0) return;
    const start = t.perf[2 * w], stop = t.perf[2 * w + 1];
    const all = t.records.filter((r) => r.pushClock > start && r.pushClock < stop);
    // The commands a RUN's list fed (pushed from its start to its end, while the CPU polls SEQ's DONE) are no CPU PUSH: the paths run between the others.
    const listRuns = all.filter((r) => r.unit === 'SEQ');
    const recs = all.filter((r) => r.unit === 'SEQ' || !listRuns.some((run) => r.pushClock > run.startClock && r.pushClock <= run.endClock));
    const label = `v${v} P${job.prompt}+${job.steps} B${B} d${job.dims.d} window ${w}`;
    if (k.paths.length !== recs.length + 1) throw new Error(`${label}: model ${k.paths.length - 1} pushes, trace ${recs.length}`);
    const byUnit = UNITS.map((u) => all.filter((r) => r.unit === u));
    let r0 = 0, s0 = 0;
    k.paths.forEach((path, i) => {
      if (i < recs.length && UNITS[k.units[i]] !== recs[i].unit) throw new Error(`${label}: push ${i} (${path}) is ${recs[i].unit} on the trace, ${UNITS[k.units[i]]} in the model`);
      const pushAt = i < recs.length ? recs[i].pushClock : stop, prev = i === 0 ? start : recs[i - 1].pushClock;
      // A PUSH held on a full queue: the schedule model adds that wait itself, so the path's clocks leave it out.
      let held = 0;
      while (s0 < t.stalls.length && t.stalls[s0].to <= prev) s0++;
      for (let j = s0; j < t.stalls.length && t.stalls[j].from < pushAt; j++) held += Math.min(pushAt, t.stalls[j].to) - Math.max(prev, t.stalls[j].from);
      // The path's counted clocks leave out the work whose clocks the model computes (the argmax after the head's drain).
      const at = pushAt - held - k.afterPoll[i];
      while (r0 < t.doneReads.length && t.doneReads[r0] <= prev) r0++;
      let r1 = r0;
      while (r1 < t.doneReads.length && t.doneReads[r1] < pushAt) r1++;
      const reads = t.doneReads.slice(r0, r1);
      const e = terms ? (s[path] ??= { issue: [], first: [], after: [], acc: [[], [], []] }) : null;
      // Savings only where this run counted them (a path no counted run took has none: no prediction on the what-if boards).
      const sh = counter ? ((shiftSums[cls] ??= {})[path] ??= [[], [], []]) : null, mu = counter ? ((mulSums[cls] ??= {})[path] ??= [[], [], []]) : null;
      const extraShifts = k.afterPoll[i] - barrelAfterPoll[w][i];
      /** Counts a stretch [from, to): its savings (the work after the poll's own left out of the stretch it falls in). */
      const count = (stretch: number, from: number, to: number, afterPoll: boolean) => {
        if (!counter || !sh || !mu) return;
        sh[stretch].push(savedIn(counter.shiftAt, counter.shiftSum, from, to) - (afterPoll ? extraShifts : 0));
        mu[stretch].push(savedIn(counter.mulAt, counter.mulSum, from, to));
      };
      const polled = k.s.pollLog![i];
      if (!polled.length || !reads.length) {
        if (e) { e.issue.push(at - prev); e.acc[0].push(accessesIn(t.accesses, prev, pushAt)); }
        count(0, prev, pushAt, true);
        return;
      }
      const end = Math.max(...polled.map((p) => byUnit[p.unit][p.ticket - 1].endClock));
      const seeing = reads.find((r) => r > end) ?? reads[reads.length - 1];
      count(1, prev, reads[0], false);
      count(2, seeing, pushAt, true);
      if (!e) return;
      e.first.push(reads[0] - prev);
      e.after.push(at - seeing);
      // The mean, as the clocks: a path's access count varies a little with the units' state (k_need reads DONE only when its cached count is short).
      e.acc[1].push(accessesIn(t.accesses, prev, reads[0]));
      e.acc[2].push(accessesIn(t.accesses, seeing, pushAt));
    });
  });
  if (process.env.CAL_VERBOSE) console.log(`${cls} v${v} P${job.prompt}+${job.steps} d${job.dims.d} L${job.dims.layers}: ${cpus.map((k) => k.paths.length - 1).join('+')} pushes, ${(performance.now() - t0).toFixed(0)} ms`);
}

type Table = Record<string, Record<string, [number, number, number]>>;
/** The rows of the builds not re-counted this time, from the table as it was. */
const kept = (old: Table): Table => Object.fromEntries(Object.entries(old).filter(([cls]) => !builds.some((b) => b.tag === buildOfClass(cls))));
const table: Table = kept(calibration('issue-terms-model'));
const accessTable: Table = kept(calibration('issue-accesses-model'));
const meanOrNone = (xs: number[]) => (xs.length ? xs.reduce((x, y) => x + y, 0) / xs.length : -1);
const savingsTable = (sums: Record<string, Record<string, Stretches>>, old: Table): Table => {
  const out = kept(old);
  for (const [cls, paths] of Object.entries(sums)) out[cls] = completeAccesses(Object.fromEntries(Object.entries(paths).map(([p, x]) => [p, x.map(meanOrNone)])));
  return out;
};
for (const [cls, paths] of Object.entries(sums)) {
  accessTable[cls] = completeAccesses(Object.fromEntries(Object.entries(paths).map(([p, e]) => [p, e.acc.map(meanOrNone)])));
  const out: Record<string, [number, number, number]> = {};
  for (const [p, e] of Object.entries(paths)) {
    // A path seen only polling: without a poll it costs its first read and the rest; seen only not polling: a poll costs it all after the read.
    const issue = e.issue.length ? mean(e.issue) : mean(e.first) + mean(e.after);
    out[p] = e.first.length ? [issue, mean(e.first), mean(e.after)] : [issue, issue, 0];
  }
  table[cls] = out;
}
const jobsText = (jobs: CalJob[]) => jobs.map((j) => `d ${j.dims.d}, ${j.dims.layers} layer(s), prompt ${j.prompt} + ${j.steps} steps${j.batch ? `, batch ${j.batch}` : ''}, ${j.variants.length} variants`).join('; ');
writeCalibration('issue-terms-model', `Issue-cost terms of model.c's flows, counted by scripts/calibrate-model-issue.ts on model.elf's trace (${jobsText(JOBS)}); the rv32im:, mxu16: and spad32: classes on model-rv32im.elf (at ENABLE_MUL), model-mxu16.elf and model-spad32.elf (${jobsText(LADDER_JOBS)}): per code class, per path between PUSH sites, [issue, firstRead, afterRead] in CPU clocks (model/predict/model-program.ts).`, table);
writeAccesses('issue-accesses-model', 'scripts/calibrate-model-issue.ts on model.elf', accessTable);
writeSavings('scripts/calibrate-model-issue.ts on the model builds (model.elf on the ladder jobs)', {
  shift: savingsTable(shiftSums, calibration('issue-shift-savings-model')),
  mul: savingsTable(Object.fromEntries(Object.entries(mulSums).filter(([cls]) => buildOfClass(cls) === 'rv32im:')), calibration('issue-mul-savings-model')),
});
