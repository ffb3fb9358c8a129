// Counts the issue costs of our transformer on the write-up's board
// (build/fw/seed-model.elf) for the schedule model (model/seed-schedule.ts):
// runs small calibration jobs (shapes and lengths other than the bench's, so
// that the bench's rows are predictions) on the emulator's reference models
// (every poll read is a real access) with the commit stores and the status
// reads logged, walks the same job through model/seed-analytic.ts, checks
// that the trace's commits are the walk's (unit by unit, in order), and per
// path between two events takes its clocks: the constant, or where the
// firmware loops over the job's shape on the path (the mask, the header, the
// argmax), a least-squares fit of the constant and the clocks per trip; per
// wait site, the poll loop's period. Then predicts every calibration job
// with the table and prints the error (0 where every path is constant).
// Writes model/calibration/issue-terms-seed.jsonl (re-run whenever model.c changes):
//   make -C firmware-c -j2 && npx tsx scripts/calibrate-seed-issue.ts

import { SEED_VARIANT_ALL, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { walkSeedJob, type SeedSink } from '../model/seed-analytic.ts';
import { runOnSeed } from '../model/seed-run.ts';
import { predictSeedRun, writeSeedTerms, type SeedPath, type SeedTerms } from '../model/seed-schedule.ts';
import type { TransformerTpuInt4Devices } from '../boards/transformer-tpu-int4/board.ts';
import * as boardUnits from '../boards/transformer-tpu-int4/regs.ts';
import * as walkUnits from '../model/seed-analytic.ts';

if (walkUnits.SEED_MXU !== boardUnits.SEED_MXU || walkUnits.SEED_VPU !== boardUnits.SEED_VPU || walkUnits.SEED_DMA !== boardUnits.SEED_DMA) {
  throw new Error("calibrate-seed: model/seed-analytic.ts numbers the units otherwise than the board's regs.ts");
}

interface CalJob { dims: ModelDims; prompt: number; steps: number }
const SMALL: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 8, maxSeq: 48 };
const MID: ModelDims = { d: 64, dFF: 128, heads: 2, layers: 1, vocab: 16, maxSeq: 64 };
const WIDE: ModelDims = { d: 128, dFF: 256, heads: 4, layers: 1, vocab: 24, maxSeq: 48 };
/** Prompts of one row block, a partial one, a few; decode steps at several positions, or none; every variant. */
const JOBS: CalJob[] = [
  { dims: SMALL, prompt: 5, steps: 3 },
  { dims: SMALL, prompt: 19, steps: 2 },
  { dims: MID, prompt: 8, steps: 2 },
  { dims: MID, prompt: 30, steps: 1 },
  { dims: WIDE, prompt: 13, steps: 2 },
  { dims: SMALL, prompt: 11, steps: 0 },
];
const VARIANTS = Array.from({ length: SEED_VARIANT_ALL + 1 }, (_, v) => v);

/** The events of a walk, in order, with the loop counts of the CPU work before each. */
type Ev = { kind: 'command' | 'wait'; unit: number; left: number; site: string; counts: number[] } | { kind: 'mark'; what: 'prefill' | 'done'; site: string; counts: number[] };
class Recorder implements SeedSink {
  events: Ev[] = [];
  private counts: number[] = [];
  pass(): void {}
  command(unit: number, _busy: number, site: string): void { this.events.push({ kind: 'command', unit, left: 0, site, counts: this.take() }); }
  wait(unit: number, left: number, site: string): void { this.events.push({ kind: 'wait', unit, left, site, counts: this.take() }); }
  cpu(_site: string, counts: readonly number[]): void { this.counts.push(...counts); }
  mark(what: 'prefill' | 'done'): void { this.events.push({ kind: 'mark', what, site: what, counts: this.take() }); }
  private take(): number[] { const c = this.counts; this.counts = []; return c; }
}

/** A trace entry: a commit store (its clock and the clocks it was held) or a read of a unit's retired count. */
interface Access { commit: boolean; unit: number; clock: number; stall: number }

/** Samples per path: the clocks and the loop counts; per wait site, the gaps between its reads. */
const samples = new Map<string, { clocks: number[]; counts: number[][] }>();
const gaps = new Map<string, number[]>();
const sample = (path: string, clocks: number, counts: number[]) => {
  const s = samples.get(path) ?? { clocks: [], counts: [] };
  s.clocks.push(clocks); s.counts.push(counts);
  samples.set(path, s);
};

/** The hardtanh bounds (bound1, bound2) the layers take in turn: the fused and residual paths differ by bound. */
const BOUNDS = [[8, 7], [7, 8], [8, 8], [7, 7]];

function calibrate(job: CalJob, variant: number, seed: number, jobIndex: number): { run: number; prefill: number; generated: number; model: ReturnType<typeof randomModel> } {
  const model = randomModel(job.dims, seed);
  model.layers.forEach((l, i) => { [l.bound1, l.bound2] = BOUNDS[(jobIndex + i) % BOUNDS.length]; });
  const trace: Access[] = [];
  let windowStart = 0;
  const r = runOnSeed(model, { prompt: randomPrompt(job.dims, job.prompt, seed), decodeSteps: job.steps, variant, stopToken: 255 }, {
    reference: true, splitPrefill: true,
    onMachine: (m) => {
      const dev = m.devices as unknown as TransformerTpuInt4Devices;
      const tpu = dev.tpu, read = tpu.read.bind(tpu), pulse = tpu.runPulse.bind(tpu), commit = dev.bus.onCommit;
      tpu.runPulse = (clock) => { windowStart = clock; pulse(clock); };
      tpu.read = (offset, clock) => {
        const o = offset & 0xffc;
        if (o >= 0x40 && o < 0x70 && ((o >>> 2) & 3) === 1) trace.push({ commit: false, unit: (o - 0x40) >>> 4, clock, stall: 0 });
        return read(offset, clock);
      };
      dev.bus.onCommit = (unit, opcode, clock, stall) => { trace.push({ commit: true, unit, clock, stall }); commit?.(unit, opcode, clock, stall); };
    },
  });
  const c = r.result.seedCounters!;
  const prefill = r.windows.length ? r.windows[0].cycles : c.run;
  const rec = new Recorder();
  walkSeedJob(job.dims, model.layers, job.prompt, r.generated, variant, rec);
  const evs = rec.events;
  let at = 0, cpu = windowStart, from = 'start';
  const where = () => `d ${job.dims.d} prompt ${job.prompt} + ${job.steps}, variant ${variant}`;
  for (let e = 0; e < evs.length; e++) {
    const ev = evs[e];
    const path = `${from}>${ev.site}`;
    if (ev.kind === 'mark') {
      // (A run without decode steps has no prefill window: runOnSeed splits only runs of two tokens or more.)
      if (ev.what === 'done' || r.windows.length) sample(path, (ev.what === 'prefill' ? prefill : c.run) - (cpu - windowStart), ev.counts);
      if (ev.what === 'prefill') from = `${from}+prefill`;
      continue;
    }
    const a = trace[at];
    if (!a || a.commit !== (ev.kind === 'command') || a.unit !== ev.unit) throw new Error(`${where()}: event ${e} (${ev.kind} ${ev.site}) is not the trace's (${a ? `${a.commit ? 'commit' : 'read'} unit ${a.unit} at ${a.clock}` : 'end'})`);
    sample(path, a.clock - cpu, ev.counts);
    if (ev.kind === 'command') {
      cpu = a.clock + a.stall;
      at++;
    } else {
      // The reads of this wait: the same unit's, up to the next commit or another unit's read; a wait of the
      // same unit right after it (no command between) takes the last one.
      let end = at;
      while (end < trace.length && !trace[end].commit && trace[end].unit === ev.unit) end++;
      const next = evs.slice(e + 1).find((x) => x.kind !== 'mark');
      if (next && next.kind === 'wait' && next.unit === ev.unit) end--;
      if (end <= at) throw new Error(`${where()}: wait ${ev.site} has no reads`);
      const g = gaps.get(ev.site) ?? [];
      for (let i = at + 1; i < end; i++) g.push(trace[i].clock - trace[i - 1].clock);
      gaps.set(ev.site, g);
      cpu = trace[end - 1].clock;
      at = end;
    }
    from = ev.site;
  }
  if (at !== trace.length) throw new Error(`${where()}: ${trace.length - at} trace entries past the walk's events`);
  return { run: c.run, prefill, generated: r.generated, model };
}

/** Least squares of clocks = c0 + Σ perCount·counts (normal equations; counts constant over the samples fold into c0). */
function fit(clocks: number[], counts: number[][]): SeedPath {
  const k = counts[0].length, n = clocks.length;
  if (counts.some((c) => c.length !== k)) throw new Error('calibrate-seed: a path with CPU work of different kinds (the walk must report the same counts on it every time)');
  const varying = Array.from({ length: k }, (_, j) => counts.some((c) => c[j] !== counts[0][j]));
  const cols = varying.flatMap((v, j) => (v ? [j] : []));
  const m = cols.length + 1;
  const A = Array.from({ length: m }, () => new Array<number>(m + 1).fill(0));
  for (let i = 0; i < n; i++) {
    const x = [1, ...cols.map((j) => counts[i][j])];
    for (let r = 0; r < m; r++) { for (let s = 0; s < m; s++) A[r][s] += x[r] * x[s]; A[r][m] += x[r] * clocks[i]; }
  }
  for (let p = 0; p < m; p++) {
    let best = p;
    for (let r = p + 1; r < m; r++) if (Math.abs(A[r][p]) > Math.abs(A[best][p])) best = r;
    [A[p], A[best]] = [A[best], A[p]];
    if (Math.abs(A[p][p]) < 1e-9) throw new Error('calibrate-seed: the loop counts on a path do not vary independently; add a calibration job');
    for (let r = 0; r < m; r++) {
      if (r === p) continue;
      const f = A[r][p] / A[p][p];
      for (let s = p; s <= m; s++) A[r][s] -= f * A[p][s];
    }
  }
  const sol = A.map((row, i) => row[m] / A[i][i]);
  const perCount = new Array<number>(k).fill(0);
  let c0 = sol[0];
  cols.forEach((j, i) => { perCount[j] = sol[i + 1]; });
  // The counts that never varied: their clocks are in the constant (perCount 0).
  const round = (x: number) => Math.round(x * 1000) / 1000;
  c0 = round(c0);
  return { clocks: c0, perCount: perCount.map(round) };
}

const runs: { job: CalJob; variant: number; seed: number; out: ReturnType<typeof calibrate> }[] = [];
for (const [jobIndex, job] of JOBS.entries()) {
  const t0 = performance.now();
  for (const variant of VARIANTS) {
    const seed = 7 + variant + job.prompt;
    runs.push({ job, variant, seed, out: calibrate(job, variant, seed, jobIndex) });
  }
  console.log(`d ${job.dims.d}, ${job.dims.layers} layer(s), prompt ${job.prompt} + ${job.steps} steps: ${VARIANTS.length} variants, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const terms: SeedTerms = { paths: new Map(), polls: new Map() };
let spread = 0;
for (const [path, s] of samples) {
  const p = s.counts[0].length ? fit(s.clocks, s.counts) : { clocks: s.clocks.reduce((a, b) => a + b, 0) / s.clocks.length, perCount: [] };
  const worst = Math.max(...s.clocks.map((c, i) => Math.abs(c - (p.clocks + p.perCount.reduce((a, k, j) => a + k * s.counts[i][j], 0)))));
  if (worst > 0.5) { spread++; console.log(`  ${path}: ${s.clocks.length} samples, off the fit by up to ${worst.toFixed(1)} clocks`); }
  terms.paths.set(path, { clocks: Math.round(p.clocks * 1000) / 1000, perCount: p.perCount });
}
for (const [site, g] of gaps) {
  if (!g.length) continue;
  const period = g[0];
  if (g.some((x) => x !== period)) console.log(`  poll ${site}: periods ${[...new Set(g)].join(', ')}`);
  terms.polls.set(site, period);
}
// wait_until is one function: when every site's loop has one period, it is the period of the sites whose loop never
// went round in the calibration jobs too ("*").
const periods = new Set(terms.polls.values());
if (periods.size === 1) terms.polls.set('*', [...periods][0]);
console.log(`${terms.paths.size} paths (${spread} not constant), ${terms.polls.size} poll sites (periods ${[...new Set(terms.polls.values())].join(', ')})`);

let worst = 0;
for (const { job, variant, out } of runs) {
  const p = predictSeedRun(job.dims, out.model.layers, job.prompt, out.generated, variant, terms);
  if (!p) throw new Error('calibrate-seed: a calibration job has no prediction');
  const err = (100 * (p.runClocks - out.run)) / out.run;
  const errPre = job.steps ? (100 * (p.phases[0].runClocks - out.prefill)) / out.prefill : 0;
  worst = Math.max(worst, Math.abs(err), Math.abs(errPre));
  if (Math.abs(err) > 0.01 || Math.abs(errPre) > 0.01) console.log(`  d ${job.dims.d} prompt ${job.prompt} + ${job.steps}, variant ${variant}: run ${out.run} predicted ${Math.round(p.runClocks)} (${err.toFixed(3)} %), prefill ${out.prefill} predicted ${Math.round(p.phases[0].runClocks)} (${errPre.toFixed(3)} %)`);
}
console.log(`calibration jobs: worst run-clock error ${worst.toFixed(4)} %`);

const about = `Issue costs of seed-model.elf (model.c on the seed board), counted by scripts/calibrate-seed-issue.ts on the reference models' trace of ${JOBS.map((j) => `d ${j.dims.d}, ${j.dims.layers} layer(s), prompt ${j.prompt} + ${j.steps} steps`).join('; ')}; variants ${VARIANTS.join(', ')}. A path is "from>to" by firmware site (model/seed-analytic.ts): its clocks, and per loop count on it its clocks per trip; a poll is a wait site's loop period.`;
writeSeedTerms(about, terms);
console.log('wrote model/calibration/issue-terms-seed.jsonl');
