// `picotpu bench --post`: just the write-up's rows, on both boards — our
// board (study/bench.ts's experiments with the write-up's figures) and the
// write-up's own board (study/seed-bench.ts) — with the gains as the write-up
// states them beside what each board gives.

import type { ModelTarget } from '../model/targets.ts';
import { benchObject, EXPERIMENTS, runExperiment, summarize, type BenchOptions, type ExperimentResult } from './bench.ts';
import {
  change, POST_EXPERIMENTS, RTL_FIGURES, runSeedBench, seedBenchObject, WRITE_UP_DECODE_STEPS, WRITE_UP_FIGURES,
  type SeedBenchOptions, type SeedBenchResult, type SeedExperimentResult,
} from './seed-bench.ts';
import { groupDigits } from './group-digits.ts';

/**
 * The gains the write-up states in its text (im-afan.github.io/transformer-tpu):
 * double buffering −18 % full inference and −9 % prefill, fusion −24 % prefill,
 * FlashAttention at T = 256 −15 % run and −32 % DMA.
 */
export interface StatedGain { technique: string; stated: number; from: string; to: string; field: 'run' | 'dma' }

export const WRITE_UP_GAINS: readonly StatedGain[] = [
  { technique: 'double buffering, full inference', stated: -18, from: 'full inference, base', to: 'full inference, double-buffered', field: 'run' },
  { technique: 'double buffering, prefill', stated: -9, from: 'prefill, base', to: 'prefill, double-buffered', field: 'run' },
  { technique: 'fusion, prefill', stated: -24, from: 'prefill, double-buffered', to: 'prefill, fused', field: 'run' },
  { technique: 'FlashAttention, T=256 one layer', stated: -15, from: 'T=256, 1 layer, fused, standard attention', to: 'T=256, 1 layer, fused, FlashAttention', field: 'run' },
  { technique: 'FlashAttention, T=256 one layer, DMA busy', stated: -32, from: 'T=256, 1 layer, fused, standard attention', to: 'T=256, 1 layer, fused, FlashAttention', field: 'dma' },
];

/** Our board's run of the write-up's rows and the write-up's board's. */
export interface PostResult {
  picotpu: { board: string; experiments: ExperimentResult[] };
  seed: SeedBenchResult;
}

export interface PostGain {
  technique: string;
  stated: number;
  writeUp: number;
  picotpu: number | null;
  rtl: number | null;
  seed: number | null;
}

/** The write-up's rows on our board: the experiments of study/bench.ts that carry its figures. */
export const PICOTPU_POST_EXPERIMENTS = EXPERIMENTS.filter((e) => e.seed);

export function runPost(picotpu: ModelTarget, seed: ModelTarget, clockHz: number, o: BenchOptions & SeedBenchOptions): PostResult {
  const total = PICOTPU_POST_EXPERIMENTS.length + POST_EXPERIMENTS.length;
  const experiments: ExperimentResult[] = [];
  PICOTPU_POST_EXPERIMENTS.forEach((e, i) => {
    o.onProgress?.(i, total, `${picotpu.board}: ${e.name}`);
    experiments.push(runExperiment(e, o));
  });
  const seedRun = runSeedBench(seed, clockHz, {
    ...o, post: true,
    onProgress: (done, _n, name) => o.onProgress?.(PICOTPU_POST_EXPERIMENTS.length + done, total, name ? `${seed.board}: ${name}` : ''),
  });
  return { picotpu: { board: picotpu.board, experiments }, seed: seedRun };
}

/** Each stated gain: the write-up's figures' own change, and each board's. */
export function postGains(p: PostResult): PostGain[] {
  const ours = (rows: { name: string; counters: { cycles: number; dmaBusy: number } }[], g: StatedGain) => {
    const a = rows.find((r) => r.name === g.from)?.counters, b = rows.find((r) => r.name === g.to)?.counters;
    if (!a || !b) return null;
    return g.field === 'run' ? change(a.cycles, b.cycles) : change(a.dmaBusy, b.dmaBusy);
  };
  return WRITE_UP_GAINS.map((g) => ({
    technique: g.technique, stated: g.stated,
    writeUp: change(WRITE_UP_FIGURES[g.from][g.field], WRITE_UP_FIGURES[g.to][g.field]),
    picotpu: ours(p.picotpu.experiments, g),
    rtl: RTL_FIGURES[g.from] && RTL_FIGURES[g.to] ? change(RTL_FIGURES[g.from][g.field], RTL_FIGURES[g.to][g.field]) : null,
    seed: ours(p.seed.experiments, g),
  }));
}

const pct = (v: number | null, digits = 1) => (v === null ? '-' : `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(digits)} %`);
const count = (v: number | undefined) => (v === undefined ? '-' : groupDigits(v));

function table(header: string[], rows: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ').trimEnd();
  return [line(header), w.map((n) => '-'.repeat(n)).join('-|-'), ...rows.map(line)].join('\n') + '\n';
}

/** The write-up's rows: its run clocks, ours on our board, the seed's firmware on the seed's RTL, ours on the seed's board. */
export function postRunTable(p: PostResult): string {
  const seedRow = (name: string) => p.seed.experiments.find((r) => r.name === name) as SeedExperimentResult | undefined;
  const rows = Object.keys(WRITE_UP_FIGURES).map((name) => {
    const pico = p.picotpu.experiments.find((r) => r.name === name);
    const s = seedRow(name);
    return [
      name, count(WRITE_UP_FIGURES[name].run), count(pico?.counters.cycles), count(RTL_FIGURES[name]?.run),
      count(s?.counters.cycles), s ? (s.golden.equal ? 'exact' : 'MISMATCH') : '-',
    ];
  });
  return table(['experiment', 'write-up', `${p.picotpu.board}: ours`, 'seed board: RTL, its firmware', 'seed board: ours', 'golden'], rows);
}

export function postGainTable(p: PostResult): string {
  const rows = postGains(p).map((g) => [g.technique, pct(g.stated, 0), pct(g.writeUp), pct(g.picotpu), pct(g.rtl), pct(g.seed)]);
  return table(['technique', 'write-up states', "write-up's figures", `${p.picotpu.board}: ours`, 'seed board: RTL, its firmware', 'seed board: ours'], rows);
}

/** "prompt 64, decode 63": the full-inference job of a board's rows. */
const jobOf = (rows: { name: string; job: { promptLength: number; decodeSteps: number } | null }[]) => {
  const job = rows.find((r) => r.name === 'full inference, base')?.job;
  return job ? `prompt ${job.promptLength}, decode ${job.decodeSteps}` : 'no full inference';
};

/** `bench --post` as text. */
export function formatPost(p: PostResult): string {
  const fails = p.seed.experiments.filter((r) => !r.golden.equal);
  return [
    "== the write-up's experiments, run clocks on both boards ==\n",
    `(${p.picotpu.board}: ${jobOf(p.picotpu.experiments)}; seed board (${p.seed.board}): ${jobOf(p.seed.experiments)}, the write-up's ${WRITE_UP_DECODE_STEPS + 1} generated tokens)\n`,
    postRunTable(p),
    "\n== the gains the write-up states, on both boards (run-clock change; DMA busy change where named) ==\n",
    postGainTable(p),
    ...p.seed.notRun.map((x) => `\nNOT RUN on the seed board: ${x.name}: the firmware cannot run this job yet (${x.reason})\n`),
    fails.length ? `\nFAILED: not golden-exact on the seed board: ${fails.map((r) => r.name).join('; ')}\n` : '',
  ].join('');
}

/** `bench --post --json`. */
export function postJson(p: PostResult): string {
  const pico = benchObject({ experiments: p.picotpu.experiments, derived: summarize(p.picotpu.experiments), clockHz: p.seed.clockHz, reference: p.seed.reference, wallMs: 0, emulatedClocks: 0 });
  const { wallMs: _w, emulatedClocks: _e, clocksPerSecond: _c, ...picotpu } = pico;
  return JSON.stringify({ post: true, boards: [picotpu, seedBenchObject(p.seed)], gains: postGains(p) }, null, 2) + '\n';
}
