// `picotpu bench --board transformer-tpu-int4` (alias seed): the write-up's
// experiments on the write-up's own board, run by our firmware for it
// (build/fw/seed-model.elf, firmware-c/seed-model/model.c), each row beside
// the write-up's figure, the figure the seed's own firmware gives on the
// seed's RTL, the analytic busy clocks (model/seed-analytic.ts, exact) and the
// golden model's tokens and logits (a mismatch fails the row, loudly), the
// schedule model's run clocks (model/seed-schedule.ts) and the bound.
//
// runSeedBench() runs, seedDerived() derives the write-up's comparisons,
// formatSeedBench() prints; mxuAccount() says clock for clock why our MXU busy
// differs from the write-up's where the job's shape is the same.

import type { BoardRunResult } from '../boards/machine.ts';
import { formatReport, type CounterSnapshot } from '../periph/counters.ts';
import { SEED_BEST_VARIANT, SEED_RUNGS, SEED_VARIANT, seedVariantName, type Job, type ModelDims } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { ModelRunError } from '../model/run.ts';
import { predictSeedBusy, type SeedLayerBounds } from '../model/seed-analytic.ts';
import { predictSeedRun } from '../model/seed-schedule.ts';
import { runOnTarget } from '../model/target-run.ts';
import type { ModelTarget } from '../model/targets.ts';
import { BASE_DIMS, BenchUsageError, EXPERIMENTS, RANDOM_SEED, T256_DIMS, type SeedFigures } from './bench.ts';

/** One experiment on the write-up's board. */
export interface SeedExperiment {
  name: string;
  variant: number;
  dims: ModelDims;
  promptLength: number;
  decodeSteps: number;
}

/**
 * The figures the seed's own firmware gives on the seed's RTL: measured on the
 * write-up's RTL under Verilator with its own firmware (accel/test/tests/infer/infer.c
 * at 80c6654d, variants from its generate.py), docs/seed-board.md §12.
 */
export interface RtlFigures { run: number; mxu: number; vpu: number; dma: number; idle: number }

const rtl = (run: number, mxu: number, vpu: number, dma: number, idle: number): RtlFigures => ({ run, mxu, vpu, dma, idle });

/** By experiment name: measured on the write-up's RTL under Verilator with its own firmware, docs/seed-board.md. */
export const RTL_FIGURES: Readonly<Record<string, RtlFigures>> = {
  'full inference, base': rtl(75596790, 9752832, 483664, 33157552, 32202742),
  'full inference, double-buffered': rtl(61015922, 9752832, 483664, 33157552, 25464714),
  'prefill, base': rtl(5018426, 1097010, 242248, 2478568, 1200600),
  'prefill, double-buffered': rtl(4476609, 1097010, 242248, 2478568, 1259248),
  'prefill, fused': rtl(3557388, 1097010, 243592, 1723176, 1113563),
  'full inference, fused': rtl(65986313, 9752832, 542464, 31651200, 32075161),
  'full inference, fused + FlashAttention': rtl(50707550, 9752832, 511520, 31201776, 16703622),
  'T=256, 1 layer, fused, standard attention': rtl(4722693, 1279282, 375688, 2156136, 1589908),
  'T=256, 1 layer, fused, FlashAttention': rtl(3923581, 1232242, 361628, 1690952, 1223264),
};

/** The write-up's own figures (study/bench.ts EXPERIMENTS, its PLATFORM.md §7 reports), by experiment name. */
export const WRITE_UP_FIGURES: Readonly<Record<string, SeedFigures>> = Object.fromEntries(
  EXPERIMENTS.filter((e) => e.seed).map((e) => [e.name, e.seed!]),
);

/** The write-up's job: a 64-token prompt and 64 generated tokens (its INFER_GEN = 64: the prefill's token and 63 decode steps). */
export const WRITE_UP_PROMPT = 64;
export const WRITE_UP_DECODE_STEPS = 63;

const { DOUBLE_BUFFER: DB, FUSED, FLASH } = SEED_VARIANT;
const full = (name: string, variant: number): SeedExperiment =>
  ({ name, variant, dims: BASE_DIMS, promptLength: WRITE_UP_PROMPT, decodeSteps: WRITE_UP_DECODE_STEPS });
const prefill = (name: string, variant: number): SeedExperiment =>
  ({ name, variant, dims: BASE_DIMS, promptLength: WRITE_UP_PROMPT, decodeSteps: 0 });
const t256 = (name: string, variant: number): SeedExperiment =>
  ({ name, variant, dims: T256_DIMS, promptLength: 256, decodeSteps: 0 });

/** The write-up's own variants: base, double-buffered, fused, fused + FlashAttention. */
const WRITE_UP_VARIANTS: readonly number[] = [0, DB, DB | FUSED, DB | FUSED | FLASH];

/**
 * The rungs of the ladder past the write-up's (model/format.ts SEED_RUNGS, in
 * order), each named by the technique it adds to the rung before.
 */
export const RUNGS_PAST_WRITE_UP: readonly { value: number; added: string }[] = SEED_RUNGS.flatMap((r, i) =>
  WRITE_UP_VARIANTS.includes(r.value) ? [] : [{ value: r.value, added: seedVariantName(r.value & ~(i ? SEED_RUNGS[i - 1].value : 0)) }]);

/** The name a row of the best rung carries (the technique its rung adds). */
const bestName = RUNGS_PAST_WRITE_UP.find((r) => r.value === SEED_BEST_VARIANT)?.added ?? seedVariantName(SEED_BEST_VARIANT);

/** The write-up's table (with the two full-inference rows the RTL table adds), then the rungs past it. */
export const SEED_EXPERIMENTS: readonly SeedExperiment[] = [
  full('full inference, base', 0),
  full('full inference, double-buffered', DB),
  prefill('prefill, base', 0),
  prefill('prefill, double-buffered', DB),
  prefill('prefill, fused', DB | FUSED),
  t256('T=256, 1 layer, fused, standard attention', DB | FUSED),
  t256('T=256, 1 layer, fused, FlashAttention', DB | FUSED | FLASH),
  full('full inference, fused', DB | FUSED),
  full('full inference, fused + FlashAttention', DB | FUSED | FLASH),
  prefill('prefill, fused + FlashAttention', DB | FUSED | FLASH),
  ...RUNGS_PAST_WRITE_UP.map((r) => full(`full inference, ${r.added}`, r.value)),
  ...RUNGS_PAST_WRITE_UP.map((r) => prefill(`prefill, ${r.added}`, r.value)),
  ...(WRITE_UP_VARIANTS.includes(SEED_BEST_VARIANT) ? [] : [t256(`T=256, 1 layer, ${bestName}`, SEED_BEST_VARIANT)]),
];

/** The experiments `--post` shows: the write-up's own rows. */
export const POST_EXPERIMENTS = SEED_EXPERIMENTS.filter((e) => WRITE_UP_FIGURES[e.name]);

export interface SeedBenchOptions {
  only?: string[];
  reference?: boolean;
  maxCycles?: number;
  /** Only the write-up's own rows (bench --post). */
  post?: boolean;
  onProgress?: (done: number, total: number, name: string) => void;
}

/** Counters of one window in the report's shape. */
export interface SeedWindow { label: string; counters: CounterSnapshot }

export interface SeedExperimentResult {
  name: string;
  variant: number;
  variantName: string;
  dims: ModelDims;
  job: { promptLength: number; decodeSteps: number };
  /** Whole run (run pulse to DONE), then prefill and decode when the run decoded. */
  counters: CounterSnapshot;
  windows: SeedWindow[];
  /** The board's own ten counters of the whole run (the RTL's names), with the clocks commit stores were really held on a full queue. */
  boardCounters: Record<string, number> | null;
  /** Tokens and logits (and the K/V caches) equal the golden model's. */
  golden: { equal: boolean; mismatch: string | null };
  analytic: { mxu: number; vpu: number; dma: number };
  /** The schedule model's run clocks (model/seed-schedule.ts), whole run and per window; null where it has no terms for a path the job takes. */
  predicted: { runClocks: number; phases: number[] } | null;
  /** The lower bound: the busiest unit's analytic busy clocks per forward pass, summed (per phase where the schedule model has no prediction). */
  bound: number;
  writeUp: SeedFigures | null;
  rtl: RtlFigures | null;
  /** Why our MXU busy differs from the write-up's (clock arithmetic), where the shapes are the same. */
  mxuNote: MxuAccount | null;
  emulatedClocks: number;
  wallMs: number;
}

export interface SeedDerived { name: string; ours: number; writeUp: number | null; rtl: number | null; unit: '%' | 'ratio' | 'x' }

export interface SeedBenchResult {
  board: string;
  firmware: string;
  experiments: SeedExperimentResult[];
  /** Experiments the firmware refused (its header check: STATUS 2), with the run's message. */
  notRun: { name: string; reason: string }[];
  derived: SeedDerived[];
  clockHz: number;
  reference: boolean;
  wallMs: number;
  emulatedClocks: number;
}

/** The experiments the options select, in order. */
export function selectSeedExperiments(o: SeedBenchOptions): SeedExperiment[] {
  const base = o.post ? POST_EXPERIMENTS : SEED_EXPERIMENTS;
  const only = (o.only ?? []).map((x) => x.toLowerCase());
  const list = only.length ? base.filter((e) => only.some((x) => e.name.toLowerCase().includes(x))) : [...base];
  if (!list.length) throw new BenchUsageError(`no experiment matches --only ${(o.only ?? []).map((x) => JSON.stringify(x)).join(' ')}`);
  return list;
}

// ---- the MXU account ----

/** One term of the difference between the write-up's MXU busy and ours. */
export interface MxuTerm { what: string; clocks: number }
export interface MxuAccount { ours: number; writeUp: number; terms: MxuTerm[]; accounted: boolean }

/** MXU busy of one MM command on the seed board (docs/seed-board.md §5). */
const mm = (k: number, acc = false) => k + (acc ? 33 : 25);
const blocks = (rows: number) => Math.ceil(rows / 8);

/** The forward passes of a job: the prompt at once, then one row per decode step. */
function passes(promptLength: number, generated: number): { pos0: number; rows: number }[] {
  const out = [{ pos0: 0, rows: promptLength }];
  for (let i = 1; i < generated; i++) out.push({ pos0: promptLength + i - 1, rows: 1 });
  return out;
}

/** Attention's MXU clocks per head as our firmware issues them (model/seed-analytic.ts's walk). */
function oursAttention(dims: ModelDims, pos0: number, rows: number, flash: boolean): number {
  const dh = dims.d / dims.heads, T = pos0 + rows, tp = Math.ceil(T / 8) * 8, b = blocks(rows);
  if (!flash) return b * (tp / 8) * mm(dh) + b * (dh / 8) * mm(T);
  let clocks = 0;
  for (let i = 0; i < b; i++) {
    const keys = Math.min(pos0 + 8 * i + 8, T);
    clocks += Math.ceil(keys / 8) * mm(dh) + (dh / 8) * mm(keys);
  }
  return clocks;
}

/** Attention's MXU clocks per head in the seed's infer.c: Q·Kᵀ and P·V over all maxSeq keys ("keeps the shape constant"). */
function seedAttention(dims: ModelDims, rows: number): number {
  const dh = dims.d / dims.heads, T = dims.maxSeq, b = blocks(rows);
  return b * (T / 8) * mm(dh) + b * (dh / 8) * mm(T);
}

/**
 * Why our MXU busy differs from the seed's own firmware's (infer.c) on the
 * same job, term by term: its attention contracts over all maxSeq keys where
 * ours takes the keys there are; it computes each token's logits on the MXU
 * (one 1×d·d×vocab matmul) where ours takes them with the VPU's DOT; our
 * fused residual accumulates into the output (K + 33 a MM) where its fusion
 * adds on the VPU. `accounted` says the terms sum to the gap exactly. Only for
 * the variants without FlashAttention (the seed's FlashAttention kernel is
 * another walk, not modelled here).
 */
export function mxuAccount(dims: ModelDims, promptLength: number, generated: number, variant: number, ours: number, writeUp: number): MxuAccount | null {
  if (variant & FLASH) return null;
  const fused = (variant & FUSED) !== 0;
  let attention = 0, fusedAcc = 0;
  for (const { pos0, rows } of passes(promptLength, generated)) {
    attention += dims.layers * dims.heads * (seedAttention(dims, rows) - oursAttention(dims, pos0, rows, false));
    // Wo and W2 accumulate: 8 clocks more a MM, one MM per 8-row block and 8-column tile of d.
    if (fused) fusedAcc += dims.layers * 2 * blocks(rows) * (dims.d / 8) * (mm(0, true) - mm(0));
  }
  const head = generated * (Math.ceil(dims.vocab / 8)) * mm(dims.d);
  const terms: MxuTerm[] = [
    { what: `attention over all ${dims.maxSeq} keys (the seed) against the keys present (ours), ${dims.layers} layer${dims.layers === 1 ? "" : "s"} × ${dims.heads} heads`, clocks: attention },
    { what: `logits on the MXU (the seed: ${Math.ceil(dims.vocab / 8)} MMs of K = ${dims.d} a token, ${generated} token${generated === 1 ? "" : "s"}) against the VPU's DOT (ours)`, clocks: head },
  ];
  if (fused) terms.push({ what: 'our fused residual accumulates into the output MM (K + 33, not K + 25), the seed adds it on the VPU', clocks: -fusedAcc });
  return { ours, writeUp, terms, accounted: ours + terms.reduce((s, t) => s + t.clocks, 0) === writeUp };
}

// ---- running ----

/** The analytic busy clocks of a job's phases: prefill (the prompt and its token), then the decode steps. */
function analyticPhases(dims: ModelDims, bounds: SeedLayerBounds[], promptLength: number, generated: number, variant: number) {
  const total = predictSeedBusy(dims, bounds, promptLength, generated, variant);
  const pre = predictSeedBusy(dims, bounds, promptLength, 1, variant);
  const phases = generated > 1
    ? [pre, { mxu: total.mxu - pre.mxu, vpu: total.vpu - pre.vpu, dma: total.dma - pre.dma }]
    : [total];
  return { total, bound: phases.reduce((s, p) => s + Math.max(p.mxu, p.vpu, p.dma), 0) };
}

/** Tokens, logits and K/V caches against the golden model: null when equal, else what differs first. */
export function goldenMismatch(model: ReturnType<typeof randomModel>, job: Job, r: ReturnType<typeof runOnTarget>): string | null {
  const g = runGolden(model, job);
  if (JSON.stringify(r.tokens) !== JSON.stringify(g.tokens)) return `tokens ${JSON.stringify(r.tokens)} != golden ${JSON.stringify(g.tokens)}`;
  for (let i = 0; i < g.logits.length; i++) {
    if (String(r.logits[i]) !== String(g.logits[i])) return `logits of token ${i} differ from the golden model's`;
  }
  const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
  for (let l = 0; l < model.dims.layers; l++) {
    if (!same(r.kCache[l], g.kCache[l]) || !same(r.vCache[l], g.vCache[l])) return `layer ${l}'s K/V cache differs from the golden model's`;
  }
  return null;
}

function runSeedExperiment(target: ModelTarget, e: SeedExperiment, o: SeedBenchOptions): SeedExperimentResult {
  const t0 = performance.now();
  const model = randomModel(e.dims, RANDOM_SEED);
  const job: Job = { prompt: randomPrompt(e.dims, e.promptLength, RANDOM_SEED), decodeSteps: e.decodeSteps, variant: e.variant };
  const r = runOnTarget(target, model, job, { splitPrefill: true, reference: o.reference ?? false, maxCycles: o.maxCycles });
  const mismatch = goldenMismatch(model, job, r);
  const counters = r.result.counters;
  const windows = r.windows.length > 1 ? [{ label: 'prefill', counters: r.windows[0] }, { label: 'decode', counters: r.windows[1] }] : [];
  const { total, bound } = analyticPhases(e.dims, model.layers, e.promptLength, r.generated, e.variant);
  const p = predictSeedRun(e.dims, model.layers, e.promptLength, r.generated, e.variant);
  const writeUp = WRITE_UP_FIGURES[e.name] ?? null;
  return {
    name: e.name, variant: e.variant, variantName: seedVariantName(e.variant), dims: e.dims,
    job: { promptLength: e.promptLength, decodeSteps: e.decodeSteps },
    counters, windows,
    boardCounters: ((r.result as BoardRunResult).seedCounters as unknown as Record<string, number> | null) ?? null,
    golden: { equal: mismatch === null, mismatch },
    analytic: { mxu: total.mxu, vpu: total.vpu, dma: total.dma },
    predicted: p ? { runClocks: Math.round(p.runClocks), phases: windows.length ? p.phases.map((x) => Math.round(x.runClocks)) : [] } : null,
    bound: p ? p.lowerBound : bound,
    writeUp, rtl: RTL_FIGURES[e.name] ?? null,
    mxuNote: writeUp ? mxuAccount(e.dims, e.promptLength, r.generated, e.variant, counters.mxuBusy, writeUp.mxu) : null,
    emulatedClocks: r.result.clocks, wallMs: performance.now() - t0,
  };
}

/** A run the firmware refused: its header check (STATUS 2) found a job it has no plan for. */
const REFUSED = /STATUS 2\b/;

/** Runs the selected experiments on `target`'s board (the write-up's). A run that fails throws ModelRunError. */
export function runSeedBench(target: ModelTarget, clockHz: number, o: SeedBenchOptions = {}): SeedBenchResult {
  const list = selectSeedExperiments(o);
  const t0 = performance.now();
  const experiments: SeedExperimentResult[] = [];
  const notRun: SeedBenchResult['notRun'] = [];
  list.forEach((e, i) => {
    o.onProgress?.(i, list.length, e.name);
    try {
      experiments.push(runSeedExperiment(target, e, o));
    } catch (err) {
      if (!(err instanceof ModelRunError) || !REFUSED.test(err.message)) throw err;
      notRun.push({ name: e.name, reason: err.message });
    }
  });
  o.onProgress?.(list.length, list.length, '');
  return {
    board: target.board, firmware: target.firmware, experiments, notRun, derived: seedDerived(experiments), clockHz,
    reference: o.reference ?? false, wallMs: performance.now() - t0,
    emulatedClocks: experiments.reduce((n, x) => n + x.emulatedClocks, 0),
  };
}


// ---- derived figures ----

/** Run-clock change from `a` to `b`, in %. */
export const change = (a: number, b: number) => (100 * (b - a)) / a;

/** The figures the write-up states, ours beside the write-up's and the RTL's, where the experiments they need ran. */
export function seedDerived(results: SeedExperimentResult[]): SeedDerived[] {
  const by = (name: string) => results.find((r) => r.name === name);
  const out: SeedDerived[] = [];
  const w = WRITE_UP_FIGURES, R = RTL_FIGURES;
  const gain = (name: string, a: string, b: string, field: 'run' | 'dma' = 'run') => {
    const ra = by(a), rb = by(b);
    if (!ra || !rb) return;
    const ours = field === 'run' ? change(ra.counters.cycles, rb.counters.cycles) : change(ra.counters.dmaBusy, rb.counters.dmaBusy);
    out.push({
      name, ours, unit: '%',
      writeUp: w[a] && w[b] ? change(w[a][field], w[b][field]) : null,
      rtl: R[a] && R[b] ? change(R[a][field], R[b][field]) : null,
    });
  };
  const base = by('full inference, base');
  if (base && base.windows.length === 2) {
    const [pre, dec] = base.windows.map((x) => x.counters);
    const wf = w['full inference, base'], wp = w['prefill, base'], rf = R['full inference, base'], rp = R['prefill, base'];
    out.push({ name: 'decode share of full inference, base', unit: '%', ours: (100 * dec.cycles) / base.counters.cycles,
      writeUp: (100 * (wf.run - wp.run)) / wf.run, rtl: (100 * (rf.run - rp.run)) / rf.run });
    out.push({ name: 'decode DMA/MXU busy, base', unit: 'ratio', ours: dec.dmaBusy / dec.mxuBusy,
      writeUp: (wf.dma - wp.dma) / (wf.mxu - wp.mxu), rtl: (rf.dma - rp.dma) / (rf.mxu - rp.mxu) });
    out.push({ name: 'prefill DMA/MXU busy, base', unit: 'ratio', ours: pre.dmaBusy / pre.mxuBusy, writeUp: wp.dma / wp.mxu, rtl: rp.dma / rp.mxu });
  }
  gain('double buffering, full inference (run change)', 'full inference, base', 'full inference, double-buffered');
  gain('double buffering, prefill (run change)', 'prefill, base', 'prefill, double-buffered');
  gain('fusion, prefill (run change)', 'prefill, double-buffered', 'prefill, fused');
  gain('FlashAttention, T=256 one layer (run change)', 'T=256, 1 layer, fused, standard attention', 'T=256, 1 layer, fused, FlashAttention');
  gain('FlashAttention, T=256 one layer (DMA busy change)', 'T=256, 1 layer, fused, standard attention', 'T=256, 1 layer, fused, FlashAttention', 'dma');
  gain('fusion, full inference (run change)', 'full inference, double-buffered', 'full inference, fused');
  gain('FlashAttention, full inference (run change)', 'full inference, fused', 'full inference, fused + FlashAttention');
  const fulls = results.filter((r) => r.job.decodeSteps === WRITE_UP_DECODE_STEPS && r.dims === BASE_DIMS);
  const writeUpBest = w['full inference, double-buffered'].run;
  if (fulls.length) {
    const best = fulls.reduce((a, b) => (b.counters.cycles < a.counters.cycles ? b : a));
    const rtlBest = Math.min(...Object.entries(R).filter(([k]) => k.startsWith('full inference')).map(([, v]) => v.run));
    out.push({ name: `best full inference (${best.name}) against the write-up's best (full inference, double-buffered)`, unit: 'x',
      ours: writeUpBest / best.counters.cycles, writeUp: 1, rtl: writeUpBest / rtlBest });
  }
  return out;
}

// ---- text ----

const num = (x: number) => String(x);
const signedPct = (v: number, digits = 1) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}%`;

function table(header: string[], rows: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ').trimEnd();
  return [line(header), w.map((n) => '-'.repeat(n)).join('-|-'), ...rows.map(line)].join('\n') + '\n';
}

function describe(r: SeedExperimentResult): string {
  const d = r.dims;
  return `variant ${r.variant}: ${r.variantName}; d=${d.d} dFF=${d.dFF} heads=${d.heads} layers=${d.layers} vocab=${d.vocab} maxSeq=${d.maxSeq}; `
    + `prompt ${r.job.promptLength}, decode ${r.job.decodeSteps}`;
}

/** "9445888 (+0.00%)" — an analytic figure beside the measured one; exact is +0.00%. */
const analyticCell = (pred: number, measured: number) => `${pred} (${signedPct(measured ? (100 * (pred - measured)) / measured : 0, 2)})`;

export function seedSummaryTable(results: SeedExperimentResult[]): string {
  const header = ['experiment', 'golden', 'run', 'pred run (err %)', 'write-up run', 'RTL run', 'MXU', 'analytic MXU', 'VPU', 'analytic VPU', 'DMA', 'analytic DMA', 'idle', 'overlap', 'bound', 'run / bound'];
  const rows = results.map((r) => {
    const c = r.counters;
    return [
      r.name, r.golden.equal ? 'exact' : 'MISMATCH', num(c.cycles),
      r.predicted ? `${r.predicted.runClocks} (${signedPct((100 * (r.predicted.runClocks - c.cycles)) / c.cycles, 2)})` : '-', r.writeUp ? num(r.writeUp.run) : '-', r.rtl ? num(r.rtl.run) : '-',
      num(c.mxuBusy), analyticCell(r.analytic.mxu, c.mxuBusy), num(c.vpuBusy), analyticCell(r.analytic.vpu, c.vpuBusy),
      num(c.dmaBusy), analyticCell(r.analytic.dma, c.dmaBusy), num(c.idle), num(c.overlap), num(r.bound), (c.cycles / r.bound).toFixed(2),
    ];
  });
  return table(header, rows);
}

/** The busy clocks the write-up and the RTL give, beside ours. */
export function seedReferenceTable(results: SeedExperimentResult[]): string {
  const header = ['experiment', 'MXU', 'write-up MXU', 'RTL MXU', 'VPU', 'write-up VPU', 'RTL VPU', 'DMA', 'write-up DMA', 'RTL DMA', 'idle', 'write-up idle', 'RTL idle'];
  const rows = results.filter((r) => r.writeUp || r.rtl).map((r) => {
    const c = r.counters, w = r.writeUp, R = r.rtl;
    const f = (x: number | undefined) => (x === undefined ? '-' : num(x));
    return [r.name, num(c.mxuBusy), f(w?.mxu), f(R?.mxu), num(c.vpuBusy), f(w?.vpu), f(R?.vpu), num(c.dmaBusy), f(w?.dma), f(R?.dma), num(c.idle), f(w?.idle), f(R?.idle)];
  });
  return table(header, rows);
}

export function formatDerivedValue(d: Pick<SeedDerived, 'unit' | 'name'>, v: number | null): string {
  if (v === null) return '-';
  if (d.unit === '%') return d.name.includes('change') ? signedPct(v) : `${v.toFixed(1)}%`;
  return d.unit === 'x' ? `${v.toFixed(2)}x` : v.toFixed(2);
}

function formatMxuNote(r: SeedExperimentResult): string[] {
  const a = r.mxuNote;
  if (!a) return [];
  const gap = a.writeUp - a.ours;
  const lines = [`${r.name}: MXU ours ${a.ours}, the write-up's ${a.writeUp}: ${gap === 0 ? 'equal' : `the write-up's is ${gap > 0 ? gap : -gap} ${gap > 0 ? 'more' : 'less'}`}`];
  for (const t of a.terms) lines.push(`  ${t.clocks >= 0 ? '+' : '−'} ${Math.abs(t.clocks)}  ${t.what}`);
  lines.push(`  = ${a.ours + a.terms.reduce((s, t) => s + t.clocks, 0)}${a.accounted ? ", the write-up's figure exactly" : ' — NOT the write-up\'s figure: the account is incomplete'}`);
  return lines;
}

export function formatSeedBench(b: SeedBenchResult): string {
  const parts: string[] = [`board ${b.board} (the write-up's), firmware ${b.firmware}; counters run pulse to DONE, prefill as they stood at prefill_done()\n\n`];
  for (const r of b.experiments) {
    parts.push(`== ${r.name} (${describe(r)}) ==\n`, formatReport(r.counters, b.clockHz));
    const held = r.boardCounters?.trueQfullStall;
    if (held !== undefined) parts.push(`commit stores held on a full queue ${held} (the RTL's qfull never counts them)\n`);
    for (const w of r.windows) parts.push(`-- ${r.name}: ${w.label} window --\n`, formatReport(w.counters, b.clockHz));
    if (!r.golden.equal) parts.push(`GOLDEN MISMATCH: ${r.golden.mismatch}\n`);
    parts.push('\n');
  }
  parts.push('== summary ==\n', seedSummaryTable(b.experiments));
  parts.push('\n== the write-up\'s and the RTL\'s busy clocks ==\n', seedReferenceTable(b.experiments));
  const notes = b.experiments.flatMap(formatMxuNote);
  if (notes.length) {
    parts.push('\n== why our MXU busy differs from the write-up\'s (the seed\'s infer.c issues other MMs on the same job) ==\n', ...notes.map((l) => l + '\n'));
  }
  if (b.derived.length) {
    parts.push('\n== the write-up\'s derived figures ==\n', table(['figure', 'ours', 'write-up', 'RTL'],
      b.derived.map((d) => [d.name, formatDerivedValue(d, d.ours), formatDerivedValue(d, d.writeUp), formatDerivedValue(d, d.rtl)])));
  }
  for (const x of b.notRun) parts.push(`\nNOT RUN: ${x.name}: the firmware cannot run this job yet (${x.reason})\n`);
  const failed = b.experiments.filter((r) => !r.golden.equal);
  if (failed.length) parts.push(`\nFAILED: ${failed.length} experiment${failed.length === 1 ? '' : 's'} not golden-exact: ${failed.map((r) => r.name).join('; ')}\n`);
  const s = b.wallMs / 1000;
  parts.push(`\nwall ${s.toFixed(3)} s, ${b.emulatedClocks} emulated clocks, ${(b.emulatedClocks / s / 1e6).toFixed(2)} M clocks/s${b.reference ? ' (reference models)' : ''}\n`);
  return parts.join('');
}

/** The --json document of the seed board's bench. */
export function seedBenchObject(b: SeedBenchResult): Record<string, unknown> {
  return {
    board: b.board, firmware: b.firmware, clockHz: b.clockHz, reference: b.reference,
    experiments: b.experiments.map(({ wallMs: _w, ...r }) => r),
    notRun: b.notRun,
    derived: b.derived, emulatedClocks: b.emulatedClocks,
  };
}
