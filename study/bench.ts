// `picotpu bench`: the seed's experiments (and a few beyond them) run on the
// emulated board through build/fw/model.elf and build/fw/mmbench.elf, each
// next to the analytic model's prediction (model/predict/analytic.ts) and the seed's
// figures. The firmware brackets each phase with PERF_CTRL (prefill, then
// decode), so an experiment's counters are the sum of its windows.
//
// runBench() runs, summarize() derives the comparisons, formatBench() prints;
// the CLI (cli/main.ts) only parses options and chooses text or JSON.

import { applyOverrides, defaultConfig } from '../emu/config.ts';
import { SRAM_SIZE } from '../periph/sram.ts';
import { formatReport, sumCounters, type CounterSnapshot } from '../periph/counters.ts';
import { predict, predictMatmul, type MatmulShape, type PhasePrediction, type Prediction } from '../model/predict/analytic.ts';
import { BEST_VARIANT, VARIANT, variantName, type Job, type ModelDims } from '../model/format.ts';
import { DEFAULT_TARGET } from '../model/targets.ts';

export { variantName } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runMatmulOnEmulator, runOnEmulator } from '../model/run.ts';

/** The seed's figures for one experiment (its PLATFORM.md §7 report). */
export interface SeedFigures { run: number; mxu: number; vpu: number; dma: number; idle: number; overlap: number }

export interface Experiment {
  name: string;
  kind: 'model' | 'layer' | 'matmul';
  variant: number;
  /** Model experiments. */
  dims?: ModelDims;
  promptLength?: number;
  decodeSteps?: number;
  /** Matmul experiments. */
  shape?: MatmulShape;
  seed?: SeedFigures;
  /** Platform options of a what-if experiment (`--set` names), the as-built board otherwise. */
  set?: Record<string, number>;
}

export const BASE_DIMS: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 };
export const T256_DIMS: ModelDims = { ...BASE_DIMS, layers: 1, maxSeq: 256 };
/** Prompts and weights are random with this seed; weights do not change clocks. */
export const RANDOM_SEED = 1;

const model = (name: string, variant: number, decodeSteps: number, seed?: SeedFigures, dims = BASE_DIMS, promptLength = 64): Experiment =>
  ({ name, kind: 'model', variant, dims, promptLength, decodeSteps, seed });
/** The sequencer what-if with the list memory VARIANT.SEQUENCER's lists need (docs/hardware.md §5.11). */
export const SEQUENCER_SET = { sequencer: 1, seqListKiB: 32 };
const withSet = (e: Experiment, set: Record<string, number>): Experiment => ({ ...e, set });
const s = (run: number, mxu: number, vpu: number, dma: number, idle: number, overlap: number): SeedFigures =>
  ({ run, mxu, vpu, dma, idle, overlap });

/** The seed's table, then the experiments beyond it. */
export const EXPERIMENTS: readonly Experiment[] = [
  model('full inference, base', 0, 64, s(57695827, 9752832, 483616, 32695968, 14763411, 0)),
  model('full inference, double-buffered', 1, 64, s(47183187, 9752832, 483616, 32695968, 12714599, 8463828)),
  model('prefill, base', 0, 0, s(3719516, 1097010, 242200, 2016984, 363322, 0)),
  model('prefill, double-buffered', 1, 0, s(3372036, 1097010, 242200, 2016984, 383315, 367473)),
  model('prefill, fused', 3, 0, s(2562124, 1097010, 242632, 1261736, 321583, 360837)),
  model('T=256, 1 layer, fused, standard attention', 3, 0, s(2995837, 1279282, 373848, 1265400, 207375, 130068), T256_DIMS, 256),
  model('T=256, 1 layer, fused, FlashAttention', 7, 0, s(2551133, 1226914, 339368, 858464, 238305, 111918), T256_DIMS, 256),
  model('full inference, fused', 3, 64),
  model('full inference, FlashAttention', 7, 64),
  model('full inference, wait tokens', 15, 64),
  model('prefill, FlashAttention', 7, 0),
  model('prefill, wait tokens', 15, 0),
  // The issue-overhead rungs (docs/study.md §5): each adds one technique to the one before.
  model('full inference, lean', 31, 64),
  model('full inference, decode panels', 63, 64),
  model('full inference, pipelined heads', 127, 64),
  model('full inference, streamed prefill', 255, 64),
  model('full inference, block attention', 511, 64),
  model('full inference, chained weights', 1023, 64),
  model('full inference, FFN on chip', 2047, 64),
  model('full inference, long context', BEST_VARIANT, 64),
  model('prefill, streamed prefill', 255, 0),
  model('prefill, block attention', 1023, 0),
  model('prefill, FFN on chip', 2047, 0),
  model('prefill, long context', BEST_VARIANT, 0),
  model('T=256, 1 layer, chained weights', 1023, 0, undefined, T256_DIMS, 256),
  model('T=256, 1 layer, long context', BEST_VARIANT, 0, undefined, T256_DIMS, 256),
  // The sequencer what-if (docs/study.md §9): the best variant with its decode's weight matmuls replayed from lists.
  withSet(model('full inference, sequencer', BEST_VARIANT | VARIANT.SEQUENCER, 64), SEQUENCER_SET),
  withSet(model('prefill, sequencer', BEST_VARIANT | VARIANT.SEQUENCER, 0), SEQUENCER_SET),
];

/** Each variant of --layer adds one technique to the one before, as the main table names them. */
const LAYER_NAMES: Record<number, string> = { 0: 'base', 1: 'double-buffered', 3: 'fused', 7: 'FlashAttention', 15: 'wait tokens' };

/** --layer: one layer, a 64-token prefill, per variant. */
export function layerExperiments(): Experiment[] {
  return [0, 1, 3, 7, 15].map((v) => ({
    ...model(`1 layer prefill, ${LAYER_NAMES[v]}`, v, 0, undefined, { ...BASE_DIMS, layers: 1 }),
    kind: 'layer' as const,
  }));
}

export function matmulExperiment(shape: MatmulShape, variant: number): Experiment {
  return { name: `matmul ${shape.m}x${shape.k}x${shape.n}, ${variantName(variant)}`, kind: 'matmul', variant, shape };
}

/** Parses "MxKxN". */
export function parseShape(text: string): MatmulShape {
  const m = /^\s*(\d+)\s*[xX×]\s*(\d+)\s*[xX×]\s*(\d+)\s*$/.exec(text);
  if (!m) throw new BenchUsageError(`--matmul wants MxKxN (e.g. 64x128x128), got "${text}"`);
  const [M, K, N] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (M < 1 || K < 1 || N < 1) throw new BenchUsageError(`--matmul sizes must be positive, got "${text}"`);
  checkMatmulFits({ m: M, k: K, n: N }, text);
  return { m: M, k: K, n: N };
}

/** The largest K firmware-c/model/mmbench.c accepts (its header check). */
const MMBENCH_MAX_K = 1024;
/** K and N come in MXU tiles (8 on the 8×8 build mmbench.elf is). */
const MMBENCH_TILE = 8;

/**
 * What mmbench.elf and the board can hold: K a multiple of 8 up to 1024 and N a
 * multiple of 8 (the firmware's header check), and the header, A, B and C in
 * the 512 KiB SRAM (the layout runMatmulOnEmulator writes).
 */
function checkMatmulFits(s: MatmulShape, text: string): void {
  const tiles = (n: number) => n % MMBENCH_TILE === 0;
  if (!tiles(s.k) || s.k > MMBENCH_MAX_K) throw new BenchUsageError(`--matmul ${text}: K must be a multiple of ${MMBENCH_TILE} up to ${MMBENCH_MAX_K} (mmbench.elf), got ${s.k}`);
  if (!tiles(s.n)) throw new BenchUsageError(`--matmul ${text}: N must be a multiple of ${MMBENCH_TILE}, got ${s.n}`);
  const align64 = (n: number) => Math.ceil(n / 64) * 64;
  const bytes = 64 + align64((s.m * s.k) / 2) + align64((s.k * s.n) / 2) + (s.m * s.n) / 2;
  if (bytes > SRAM_SIZE) {
    throw new BenchUsageError(`--matmul ${text}: A, B and C need ${bytes} bytes of SRAM (int4), more than the board's ${SRAM_SIZE}; shrink M, K or N`);
  }
}

export class BenchUsageError extends Error {}

export interface BenchOptions {
  /** Substrings: an experiment runs when its name contains any (case-insensitive). */
  only?: string[];
  /** Single matmuls through mmbench.elf, each with `variant`. */
  matmul?: MatmulShape[];
  /** Variant of the --matmul runs (default 1, double-buffered). */
  variant?: number;
  /** Add the single-layer benchmark. */
  layer?: boolean;
  /** Literal clock-by-clock unit models. */
  reference?: boolean;
  maxCycles?: number;
  /** Called before each experiment and once at the end (done === total). */
  onProgress?: (done: number, total: number, name: string) => void;
}

export interface LabelledWindow { label: string; counters: CounterSnapshot }

export interface ExperimentResult {
  name: string;
  kind: Experiment['kind'];
  variant: number;
  variantName: string;
  dims: ModelDims | null;
  job: { promptLength: number; decodeSteps: number } | null;
  shape: MatmulShape | null;
  /** The sum of the windows: the experiment's report. */
  counters: CounterSnapshot;
  windows: LabelledWindow[];
  /** Total over the run, then per phase (model runs); one phase for a matmul. */
  prediction: { total: PhasePrediction; phases: PhasePrediction[] };
  seed: SeedFigures | null;
  /** Clocks of the whole run, reset to EXIT (the emulated work). */
  emulatedClocks: number;
  wallMs: number;
}

export interface DerivedFigure { name: string; ours: number; seed: number | null; unit: 'x' | '%' | 'ratio' }

export interface BenchResult {
  experiments: ExperimentResult[];
  derived: DerivedFigure[];
  clockHz: number;
  reference: boolean;
  wallMs: number;
  emulatedClocks: number;
}

/** The experiments the options select, in order. */
export function selectExperiments(o: BenchOptions): Experiment[] {
  const only = (o.only ?? []).map((x) => x.toLowerCase());
  const picked = (e: Experiment) => only.some((x) => e.name.toLowerCase().includes(x));
  const matmuls = (o.matmul ?? []).map((sh) => matmulExperiment(sh, o.variant ?? VARIANT.DOUBLE_BUFFER));
  const list: Experiment[] = [];
  // With --matmul the standard table runs only through --only.
  if (only.length) list.push(...EXPERIMENTS.filter(picked));
  else if (!matmuls.length) list.push(...EXPERIMENTS);
  if (o.layer) list.push(...layerExperiments());
  list.push(...matmuls);
  if (!list.length) throw new BenchUsageError(`no experiment matches --only ${(o.only ?? []).map((x) => JSON.stringify(x)).join(' ')}`);
  return list;
}

export function runExperiment(e: Experiment, o: BenchOptions): ExperimentResult {
  const opts = { reference: o.reference ?? false, maxCycles: o.maxCycles };
  const t0 = performance.now();
  if (e.kind === 'matmul') {
    const shape = e.shape!;
    const r = runMatmulOnEmulator(shape, e.variant, opts);
    const windows = r.windows.length ? r.windows : [r.result.counters];
    const p = predictMatmul(shape, e.variant);
    return {
      name: e.name, kind: e.kind, variant: e.variant, variantName: variantName(e.variant), dims: null, job: null, shape,
      counters: sumCounters(windows), windows: windows.map((c, i) => ({ label: windows.length > 1 ? `window ${i + 1}` : 'matmul', counters: c })),
      prediction: { total: p, phases: [p] }, seed: null, emulatedClocks: r.result.clocks, wallMs: performance.now() - t0,
    };
  }
  const dims = e.dims!;
  const job: Job = { prompt: randomPrompt(dims, e.promptLength!, RANDOM_SEED), decodeSteps: e.decodeSteps!, variant: e.variant };
  const config = e.set ? applyOverrides(defaultConfig(), e.set) : undefined;
  const r = runOnEmulator(randomModel(dims, RANDOM_SEED), job, { ...opts, config });
  const windows = r.windows.length ? r.windows : [r.result.counters];
  const labels = ['prefill', 'decode'];
  const { phases, ...total }: Prediction = predict(dims, job, config);
  return {
    name: e.name, kind: e.kind, variant: e.variant, variantName: variantName(e.variant), dims,
    job: { promptLength: e.promptLength!, decodeSteps: e.decodeSteps! }, shape: null,
    counters: sumCounters(windows), windows: windows.map((c, i) => ({ label: labels[i] ?? `window ${i + 1}`, counters: c })),
    prediction: { total, phases }, seed: e.seed ?? null, emulatedClocks: r.result.clocks, wallMs: performance.now() - t0,
  };
}

export function runBench(o: BenchOptions = {}): BenchResult {
  const list = selectExperiments(o);
  const t0 = performance.now();
  const experiments: ExperimentResult[] = [];
  list.forEach((e, i) => {
    o.onProgress?.(i, list.length, e.name);
    experiments.push(runExperiment(e, o));
  });
  o.onProgress?.(list.length, list.length, '');
  return {
    experiments,
    derived: summarize(experiments),
    clockHz: defaultConfig().clockHz,
    reference: o.reference ?? false,
    wallMs: performance.now() - t0,
    emulatedClocks: experiments.reduce((n, x) => n + x.emulatedClocks, 0),
  };
}

const SEED = Object.fromEntries(EXPERIMENTS.filter((e) => e.seed).map((e) => [e.name, e.seed!])) as Record<string, SeedFigures>;

/** The comparisons of the seed's write-up, ours vs the seed's, where the experiments they need ran. */
export function summarize(results: ExperimentResult[]): DerivedFigure[] {
  const by = (name: string) => results.find((r) => r.name === name && r.kind === 'model');
  const win = (r: ExperimentResult | undefined, label: string) => r?.windows.find((w) => w.label === label)?.counters;
  const out: DerivedFigure[] = [];
  const ratio = (name: string, a: string, b: string, field: 'run' = 'run') => {
    const ra = by(a), rb = by(b);
    if (!ra || !rb) return;
    const sa = SEED[a], sb = SEED[b];
    out.push({ name, ours: ra.counters.cycles / rb.counters.cycles, seed: sa && sb ? sa[field] / sb[field] : null, unit: 'x' });
  };
  ratio('double buffering speed-up, full inference (base / double-buffered run clocks)', 'full inference, base', 'full inference, double-buffered');
  ratio('double buffering speed-up, prefill (base / double-buffered)', 'prefill, base', 'prefill, double-buffered');
  ratio('fusion speed-up, prefill (double-buffered / fused)', 'prefill, double-buffered', 'prefill, fused');
  const std = by('T=256, 1 layer, fused, standard attention'), flash = by('T=256, 1 layer, fused, FlashAttention');
  if (std && flash) {
    const ss = SEED['T=256, 1 layer, fused, standard attention'], sf = SEED['T=256, 1 layer, fused, FlashAttention'];
    const change = (a: number, b: number) => (100 * (b - a)) / a;
    out.push({ name: 'FlashAttention speed-up, T=256, 1 layer (standard / FlashAttention run clocks)', ours: std.counters.cycles / flash.counters.cycles, seed: ss.run / sf.run, unit: 'x' });
    out.push({ name: 'FlashAttention at T=256: DMA busy change', ours: change(std.counters.dmaBusy, flash.counters.dmaBusy), seed: change(ss.dma, sf.dma), unit: '%' });
  }
  ratio('wait tokens speed-up, full inference (FlashAttention / wait tokens)', 'full inference, FlashAttention', 'full inference, wait tokens');
  ratio('wait tokens speed-up, prefill (FlashAttention / wait tokens)', 'prefill, FlashAttention', 'prefill, wait tokens');
  ratio('issue-overhead speed-up, full inference (wait tokens / chained weights)', 'full inference, wait tokens', 'full inference, chained weights');
  ratio('issue-overhead speed-up, prefill (wait tokens / block attention)', 'prefill, wait tokens', 'prefill, block attention');
  ratio('FFN on chip speed-up, prefill (block attention / FFN on chip)', 'prefill, block attention', 'prefill, FFN on chip');
  ratio('long context speed-up, prefill (FFN on chip / long context)', 'prefill, FFN on chip', 'prefill, long context');
  ratio('long context speed-up, T=256, 1 layer (chained weights / long context)', 'T=256, 1 layer, chained weights', 'T=256, 1 layer, long context');
  ratio('sequencer speed-up, full inference (long context / sequencer)', 'full inference, long context', 'full inference, sequencer');
  const base = by('full inference, base');
  const seedFull = SEED['full inference, base'], seedPre = SEED['prefill, base'];
  const decode = win(base, 'decode');
  if (base && decode) {
    out.push({ name: 'decode share of full inference, base (decode window / total)', ours: (100 * decode.cycles) / base.counters.cycles, seed: (100 * (seedFull.run - seedPre.run)) / seedFull.run, unit: '%' });
    out.push({
      name: 'decode DMA/MXU busy ratio, base', ours: decode.dmaBusy / decode.mxuBusy,
      seed: (seedFull.dma - seedPre.dma) / (seedFull.mxu - seedPre.mxu), unit: 'ratio',
    });
  }
  const pre = by('prefill, base')?.counters ?? win(base, 'prefill');
  if (pre) out.push({ name: 'prefill DMA/MXU busy ratio, base', ours: pre.dmaBusy / pre.mxuBusy, seed: seedPre.dma / seedPre.mxu, unit: 'ratio' });
  return out;
}

// ---- text ----

const errPct = (pred: number, measured: number) => {
  if (measured === 0) return pred === 0 ? '+0.00%' : 'n/a';
  const e = (100 * (pred - measured)) / measured;
  return `${e >= 0 ? '+' : '-'}${Math.abs(e).toFixed(2)}%`;
};

/** Relative error of a prediction, in % (0 when both are 0). */
export function predictionError(pred: number, measured: number): number {
  return measured === 0 ? (pred === 0 ? 0 : Infinity) : (100 * (pred - measured)) / measured;
}

function describe(r: ExperimentResult): string {
  if (r.kind === 'matmul') return `variant ${r.variant}: ${r.variantName}; M=${r.shape!.m} K=${r.shape!.k} N=${r.shape!.n}`;
  const d = r.dims!;
  return `variant ${r.variant}: ${r.variantName}; d=${d.d} dFF=${d.dFF} heads=${d.heads} layers=${d.layers} vocab=${d.vocab} maxSeq=${d.maxSeq}; `
    + `prompt ${r.job!.promptLength}, decode ${r.job!.decodeSteps}`;
}

function table(header: string[], rows: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ').trimEnd();
  return [line(header), w.map((n) => '-'.repeat(n)).join('-|-'), ...rows.map(line)].join('\n') + '\n';
}

/** "12345 (+1.20%)", or "-" where the schedule model has no program for the experiment yet. */
export function predictedRunCell(pred: number | null | undefined, measured: number): string {
  return pred === null || pred === undefined ? '-' : `${pred} (${errPct(pred, measured)})`;
}

export function summaryTable(results: ExperimentResult[]): string {
  const header = ['experiment', 'run clocks', 'pred run (err %)', 'seed run', 'MXU busy', 'pred MXU (err %)', 'DMA busy', 'pred DMA (err %)', 'run / lower bound'];
  const rows = results.map((r) => {
    const c = r.counters, p = r.prediction.total;
    return [
      r.name, String(c.cycles), predictedRunCell(p.runClocks, c.cycles), r.seed ? String(r.seed.run) : '-',
      String(c.mxuBusy), `${p.mxu} (${errPct(p.mxu, c.mxuBusy)})`,
      String(c.dmaBusy), `${p.dma} (${errPct(p.dma, c.dmaBusy)})`,
      p.lowerBound ? (c.cycles / p.lowerBound).toFixed(2) : '-',
    ];
  });
  return table(header, rows);
}

function formatDerived(d: DerivedFigure): string {
  const f = (v: number) => (d.unit === 'x' ? `${v.toFixed(3)}x` : d.unit === '%' ? `${v >= 0 && d.name.includes('change') ? '+' : ''}${v.toFixed(1)}%` : v.toFixed(2));
  return `${d.name}: ours ${f(d.ours)}, seed ${d.seed === null ? '-' : f(d.seed)}`;
}

export function formatBench(b: BenchResult): string {
  const parts: string[] = [];
  for (const r of b.experiments) {
    parts.push(`== ${r.name} (${describe(r)}) ==\n`);
    parts.push(formatReport(r.counters, b.clockHz));
    if (r.windows.length > 1) {
      for (const w of r.windows) parts.push(`-- ${r.name}: ${w.label} window --\n`, formatReport(w.counters, b.clockHz));
    }
    parts.push('\n');
  }
  parts.push('== summary ==\n', summaryTable(b.experiments));
  if (b.derived.length) parts.push('\n', ...b.derived.map((d) => formatDerived(d) + '\n'));
  const s = b.wallMs / 1000;
  parts.push(`\nwall ${s.toFixed(3)} s, ${b.emulatedClocks} emulated clocks, ${(b.emulatedClocks / s / 1e6).toFixed(2)} M clocks/s${b.reference ? ' (reference models)' : ''}\n`);
  return parts.join('');
}

/** The --json document's object: the board (the default board's bench), then the run. */
export function benchObject(b: BenchResult): Record<string, unknown> {
  return {
    board: DEFAULT_TARGET.board,
    clockHz: b.clockHz,
    reference: b.reference,
    experiments: b.experiments.map((r) => ({
      name: r.name, kind: r.kind, variant: r.variant, variantName: r.variantName, dims: r.dims, job: r.job, shape: r.shape,
      counters: r.counters, windows: r.windows, prediction: r.prediction, seed: r.seed,
      emulatedClocks: r.emulatedClocks, wallMs: r.wallMs,
    })),
    derived: b.derived,
    wallMs: b.wallMs,
    emulatedClocks: b.emulatedClocks,
    clocksPerSecond: b.emulatedClocks / (b.wallMs / 1000),
  };
}

/** The --json document. */
export function benchJson(b: BenchResult): string {
  return JSON.stringify(benchObject(b), null, 2) + '\n';
}
