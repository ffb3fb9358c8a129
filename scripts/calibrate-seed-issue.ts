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
// wait site, the poll loop's period. chained.c's flows (every variant bit is
// run) are replayed with the trace's values steering the pump
// (model/seed-ring.ts), so their paths are counted the same way; the paths
// after a push share advance()'s clocks per branch, fitted over all of them.
// Then predicts every calibration job with the table and prints the error
// (0 where every path is constant).
// Writes model/predict/calibration/issue-terms-seed.jsonl (re-run whenever model.c changes):
//   make -C firmware-c -j2 && npx tsx scripts/calibrate-seed-issue.ts

import { SEED_VARIANT, type ModelDims } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { predictSeedRun, writeSeedTerms, type SeedPath, type SeedTerms } from '../model/seed-schedule.ts';
import { alignSeedTrace, traceSeedJob } from './seed-issue-trace.ts';

/** A calibration job; stopAt: its stop token is the token the run writes at that step (chained.c's stop), when no token before it is the same. */
interface CalJob { dims: ModelDims; prompt: number; steps: number; variants?: number[]; stopAt?: number; bounds?: number[][] }
const SMALL: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 8, maxSeq: 48 };
const MID: ModelDims = { d: 64, dFF: 128, heads: 2, layers: 1, vocab: 16, maxSeq: 64 };
const WIDE: ModelDims = { d: 128, dFF: 256, heads: 4, layers: 1, vocab: 24, maxSeq: 48 };
/** Prompts of one row block, a partial one, a few; decode steps at several positions, or none; the streamed prefill; every variant. */
const JOBS: CalJob[] = [
  { dims: SMALL, prompt: 5, steps: 3 },
  { dims: SMALL, prompt: 19, steps: 2 },
  { dims: MID, prompt: 8, steps: 2 },
  { dims: MID, prompt: 30, steps: 1 },
  { dims: WIDE, prompt: 13, steps: 2 },
  { dims: SMALL, prompt: 11, steps: 0 },
  // The streamed prefill (no decode steps, the scores of the whole prompt outgrow a bank): a last chunk of 4 rows, two layers.
  { dims: { ...SMALL, maxSeq: 128 }, prompt: 100, steps: 0 },
  // ... and past 127 keys (a score row block of two VPU chunks), one layer.
  { dims: { ...SMALL, layers: 1, maxSeq: 160 }, prompt: 140, steps: 0 },
  // chained.c's flows on a wide FFN (d_ff = 4 d: two FFN panels a decode chunk, one a prefill slot), a prompt of
  // six row blocks and more (the packed mask's zeros in two VPU chunks), decode steps long enough for the DMA to lead.
  { dims: { d: 128, dFF: 512, heads: 4, layers: 1, vocab: 24, maxSeq: 96 }, prompt: 45, steps: 4, variants: [8, 15, 16, 23, 24, 31] },
  { dims: { d: 64, dFF: 256, heads: 2, layers: 2, vocab: 8, maxSeq: 64 }, prompt: 52, steps: 3, variants: [8, 15, 16, 23, 24, 31] },
  // ... and of eight row blocks and more (those zeros in three chunks).
  { dims: { ...SMALL, maxSeq: 72 }, prompt: 61, steps: 2, variants: [16, 20, 23, 31] },
  // The pipelined prefill of four heads over eight row blocks (the MXU still scoring the first head when its mask is due).
  { dims: { d: 128, dFF: 256, heads: 4, layers: 1, vocab: 16, maxSeq: 72 }, prompt: 64, steps: 1, variants: [16, 23] },
  // chained.c's decode of a row block of keys (one MM a head, the pump often silent) and a stop token before the last step.
  { dims: SMALL, prompt: 3, steps: 4, stopAt: 2, variants: [8, 15, 24, 31] },
  { dims: MID, prompt: 20, steps: 3, stopAt: 1, variants: [8, 15, 24, 31] },
  // The pipelined prefill of one row block (a pump after each chunk), one layer, each bound after the FFN.
  { dims: { ...SMALL, layers: 1 }, prompt: 6, steps: 1, variants: [16, 20, 23, 31], bounds: [[7, 7]] },
  { dims: { ...SMALL, layers: 1 }, prompt: 7, steps: 1, variants: [16, 20, 23, 31], bounds: [[8, 8]] },
  // CHAINED on shapes chained_fits refuses (the scores of every head outgrow their room): model.c decodes.
  { dims: { ...SMALL, maxSeq: 400 }, prompt: 11, steps: 2, variants: [8, 15, 24, 31] },
  { dims: { ...SMALL, maxSeq: 400 }, prompt: 9, steps: 0, variants: [8, 15, 24, 31] },
  // chained.c's set-up (its geometry's divisions, a loop a quotient) without decode steps, at other widths.
  { dims: MID, prompt: 9, steps: 0, variants: [8, 15, 24, 31] },
  { dims: WIDE, prompt: 10, steps: 0, variants: [8, 15, 24, 31] },
];
/** Every combination of the firmware's variant bits (chained.c's CHAINED and PIPELINED flows included). */
/** The pf_wait sites of one copy of its loop: pf_matmul's (its wait for the VPU), pf_vpu_pass's (for the MXU). */
const PF_MATMUL_WAITS = ['pf.q.vwait', 'pf.ffn1.vwait', 'pf.ffn2.vwait'];
const PF_PASS_WAITS = ['pf.o.res.wait', 'pf.o.dyt.wait', 'pf.relu.wait', 'pf.ffn2.res.wait', 'pf.ffn2.dyt.wait'];
const ALL_BITS = Object.values(SEED_VARIANT).reduce((a, b) => a | b, 0);
const VARIANTS = Array.from({ length: ALL_BITS + 1 }, (_, v) => v);

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
  model.layers.forEach((l, i) => { [l.bound1, l.bound2] = (job.bounds ?? BOUNDS)[(jobIndex + i) % (job.bounds ?? BOUNDS).length]; });
  const prompt = randomPrompt(job.dims, job.prompt, seed);
  let stopToken = 255;
  if (job.stopAt !== undefined) {
    const tokens = runGolden(model, { prompt, decodeSteps: job.steps, variant }).tokens;
    if (!tokens.slice(0, job.stopAt).includes(tokens[job.stopAt])) stopToken = tokens[job.stopAt];
  }
  const t = traceSeedJob(model, { prompt, decodeSteps: job.steps, variant, stopToken });
  alignSeedTrace(model, job.prompt, variant, t, sample, (site, gap) => { const g = gaps.get(site) ?? []; g.push(gap); gaps.set(site, g); }, job.steps);
  return { run: t.run, prefill: t.prefill ?? t.run, generated: t.generated, model };
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
    if (Math.abs(A[p][p]) < 1e-6) {
      // A count that moves with the others on this path (no calibration job tells them apart): its clocks go to them.
      for (let r = 0; r < m; r++) A[r][p] = 0;
      A[p].fill(0); A[p][p] = 1;
      continue;
    }
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
  for (const variant of job.variants ?? VARIANTS) {
    const seed = 7 + variant + job.prompt;
    runs.push({ job, variant, seed, out: calibrate(job, variant, seed, jobIndex) });
  }
  console.log(`d ${job.dims.d}, ${job.dims.layers} layer(s), prompt ${job.prompt} + ${job.steps} steps: ${(job.variants ?? VARIANTS).length} variants, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/**
 * The paths from a push of chained.c's pump go through advance(), one function whatever the pump: its clocks
 * per branch (the counts the walk reports after a push) are fitted over all those paths at once, each path
 * keeping its own constant (a fit within each path's samples, pooled). The CPU's work after advance() on the way
 * to the next event (the prefill's causal mask after its second pump) has counts of its own after advance()'s:
 * fitted per path, on the clocks advance()'s fit leaves.
 */
const ADVANCE_COUNTS = 10; // model/seed-ring.ts Ring.advanceCounts
const afterPush = [...samples].filter(([path, s]) => /\.push>/.test(path) && s.counts[0].length > 0);
if (afterPush.some(([, s]) => s.counts[0].length < ADVANCE_COUNTS)) throw new Error('calibrate-seed: a path after a push without advance()\'s counts');
const pooled = { clocks: [] as number[], counts: [] as number[][] };
// Pooled: the paths whose other counts are constant (a path's own loop counts would leak into advance()'s clocks).
const othersConstant = (s: { counts: number[][] }) => s.counts.every((c) => c.every((v, j) => j < ADVANCE_COUNTS || v === s.counts[0][j]));
for (const [, s] of afterPush.filter(([, s]) => othersConstant(s))) {
  const c = mean(s.clocks), k = s.counts[0].slice(0, ADVANCE_COUNTS).map((_, j) => mean(s.counts.map((x) => x[j])));
  s.clocks.forEach((x, i) => { pooled.clocks.push(x - c); pooled.counts.push(k.map((kj, j) => s.counts[i][j] - kj)); });
}
const advance = pooled.clocks.length ? fit(pooled.clocks, pooled.counts).perCount : [];
const pushPaths = new Set(afterPush.map(([path]) => path));
/**
 * A path after a push: advance()'s clocks per branch as pooled, corrected by the path's own fit of what the pooled
 * clocks leave, on the counts that vary on it (the caller's code after the return differs from path to path; a
 * branch this path never took in the calibration keeps the pooled clocks); then its other counts' fit.
 */
function afterPushPath(s: { clocks: number[]; counts: number[][] }): SeedPath {
  const rest = s.clocks.map((c, i) => c - advance.reduce((a, b, j) => a + b * s.counts[i][j], 0));
  const own = fit(rest, s.counts);
  const corrected = { clocks: own.clocks, perCount: own.perCount.map((k, j) => (j < ADVANCE_COUNTS ? Math.round((advance[j] + k) * 1000) / 1000 : k)) };
  const other = fit(rest, s.counts.map((c) => c.slice(ADVANCE_COUNTS)));
  const pooledOnly = { clocks: other.clocks, perCount: [...advance, ...other.perCount] };
  // The correction only where it fits the path's samples better (a few samples of many branches can make it ill-posed).
  const off = (p: SeedPath) => Math.max(...s.clocks.map((c, i) => Math.abs(c - p.clocks - p.perCount.reduce((a, k, j) => a + k * s.counts[i][j], 0))));
  return off(corrected) < off(pooledOnly) ? corrected : pooledOnly;
}

const terms: SeedTerms = { paths: new Map(), polls: new Map() };
let spread = 0;
for (const [path, s] of samples) {
  const p = pushPaths.has(path)
    ? afterPushPath(s)
    : s.counts[0].length ? fit(s.clocks, s.counts) : { clocks: mean(s.clocks), perCount: [] };
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
// wait_until is one function: when every one of model.c's sites has one period, it is the period of the sites whose
// loop never went round in the calibration jobs too ("*"). chained.c's pf_wait loops (sites pf.*, pfa.*) are inlined
// copies, each with its own period; the copy inside a function is one for all that function's call sites
// (model/seed-ring.ts: pf_matmul's wait for the VPU, pf_vpu_pass's for the MXU).
const periods = new Set([...terms.polls].filter(([site]) => !/^pfa?\./.test(site)).map(([, p]) => p));
if (periods.size === 1) terms.polls.set('*', [...periods][0]);
for (const family of [PF_MATMUL_WAITS, PF_PASS_WAITS]) {
  const seen = new Set(family.map((site) => terms.polls.get(site)).filter((p) => p !== undefined));
  if (seen.size > 1) throw new Error(`calibrate-seed: one pf_wait copy with periods ${[...seen].join(', ')} (${family.join(', ')})`);
  if (seen.size === 1) for (const site of family) terms.polls.set(site, [...seen][0]!);
}
console.log(`${terms.paths.size} paths (${spread} not constant), ${terms.polls.size} poll sites (periods ${[...new Set(terms.polls.values())].join(', ')})`);

let worst = 0;
for (const { job, variant, out } of runs) {
  const p = predictSeedRun(job.dims, out.model.layers, job.prompt, out.generated, variant, job.steps, terms);
  if (!p) throw new Error('calibrate-seed: a calibration job has no prediction');
  const err = (100 * (p.runClocks - out.run)) / out.run;
  const errPre = job.steps ? (100 * (p.phases[0].runClocks - out.prefill)) / out.prefill : 0;
  worst = Math.max(worst, Math.abs(err), Math.abs(errPre));
  if (Math.abs(err) > 0.01 || Math.abs(errPre) > 0.01) console.log(`  d ${job.dims.d} prompt ${job.prompt} + ${job.steps}, variant ${variant}: run ${out.run} predicted ${Math.round(p.runClocks)} (${err.toFixed(3)} %), prefill ${out.prefill} predicted ${Math.round(p.phases[0].runClocks)} (${errPre.toFixed(3)} %)`);
}
console.log(`calibration jobs: worst run-clock error ${worst.toFixed(4)} %`);

const about = `Issue costs of seed-model.elf (model.c on the seed board), counted by scripts/calibrate-seed-issue.ts on the reference models' trace of ${JOBS.map((j) => `d ${j.dims.d}, d_ff ${j.dims.dFF}, ${j.dims.layers} layer(s), prompt ${j.prompt} + ${j.steps} steps${j.stopAt !== undefined ? `, stop token at step ${j.stopAt}` : ''}${j.variants ? ` (variants ${j.variants.join(', ')})` : ''}`).join('; ')}; variants ${VARIANTS[0]} to ${VARIANTS[VARIANTS.length - 1]} unless named. A path is "from>to" by firmware site (model/seed-analytic.ts): its clocks, and per loop count on it its clocks per trip; a poll is a wait site's loop period.`;
writeSeedTerms(about, terms);
console.log('wrote model/predict/calibration/issue-terms-seed.jsonl');
