// The generated sections of docs/study.md that come from the committed bench
// results (docs/data/bench-BOARD.json, written by `npm run bench:docs`):
// the write-up's tables on both boards, the gains as the write-up states them,
// the MXU account against the seed's firmware and the ladder to each board's
// floor. scripts/gen-docs.ts runs them with its own; test/study-docs.test.ts
// fails when the JSON is older than the firmware build.

import { benchDataPath, readBenchDocument } from '../study/bench-docs.ts';
import { formatPost, postGains, WRITE_UP_GAINS, type PostResult } from '../study/bench-post.ts';
import { DEFAULT_TARGET, MODEL_TARGETS, type ModelTarget } from '../model/targets.ts';
import { formatDerivedValue, RTL_FIGURES, WRITE_UP_FIGURES, type MxuAccount, type SeedDerived } from '../study/seed-bench.ts';

interface Counters { cycles: number; mxuBusy: number; vpuBusy: number; dmaBusy: number; idle: number; overlap: number }
interface Row {
  name: string; variant: number; variantName: string;
  job: { promptLength: number; decodeSteps: number } | null;
  counters: Counters;
  windows: { label: string; counters: Counters }[];
  /** The default board's: the analytic model's prediction. */
  prediction?: { total: { lowerBound: number; runClocks: number | null } };
  /** The write-up's board's. */
  bound?: number; predicted?: { runClocks: number } | null; golden?: { equal: boolean }; analytic?: { mxu: number; vpu: number; dma: number }; mxuNote?: MxuAccount | null;
}
interface Doc { fingerprint: string; board: string; experiments: Row[]; notRun?: { name: string; reason: string }[]; derived: SeedDerived[] }

const SEED_TARGET = MODEL_TARGETS.find((t) => t !== DEFAULT_TARGET)!;

const cache = new Map<ModelTarget, Doc>();
function doc(target: ModelTarget): Doc {
  let d = cache.get(target);
  if (!d) {
    const read = readBenchDocument(target) as Doc | null;
    if (!read) throw new Error(`no ${benchDataPath(target)} (npm run bench:docs)`);
    cache.set(target, (d = read));
  }
  return d;
}
const row = (target: ModelTarget, name: string) => doc(target).experiments.find((e) => e.name === name);

const n = (x: number | undefined | null) => (x === undefined || x === null ? '—' : x.toLocaleString('en-US'));
const pct = (v: number | null, digits = 1) => (v === null ? '—' : `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(digits)} %`);
const ratio = (a: number, b: number) => (a / b).toFixed(2);
const boundOf = (r: Row) => r.bound ?? r.prediction?.total.lowerBound ?? NaN;

/** Each stated technique's pair of experiments (before, after). */
const PAIRS: Record<string, [string, string]> = Object.fromEntries(WRITE_UP_GAINS.map((g) => [g.technique, [g.from, g.to]]));

/** The write-up's best full inference (double-buffered), the figure the ladder is measured against. */
const WRITE_UP_BEST = 'full inference, double-buffered';

function postFromDocs(): PostResult {
  const pico = doc(DEFAULT_TARGET), seed = doc(SEED_TARGET);
  return {
    picotpu: { board: pico.board, experiments: pico.experiments as never },
    seed: { board: seed.board, firmware: '', experiments: seed.experiments as never, notRun: seed.notRun ?? [], derived: [], clockHz: 0, reference: false, wallMs: 0, emulatedClocks: 0 },
  };
}

/** The seed board's full-inference rows (our firmware), in the bench's order. */
const seedFulls = () => doc(SEED_TARGET).experiments.filter((e) => e.name.startsWith('full inference'));

export const STUDY_GENERATORS: Record<string, () => string[]> = {
  'study-data': () => [
    `Generated from ${MODEL_TARGETS.map((t) => `\`${benchDataPath(t)}\` (firmware fingerprint \`${doc(t).fingerprint}\`)`).join(' and ')},`,
    'written by `npm run bench:docs` (`picotpu bench --json` and `picotpu bench --board transformer-tpu-int4 --json`),',
    'through `npm run gen:docs`; a test fails when either is older than the firmware build.',
  ],
  'study-post': () => ['```', '$ node bin/picotpu.cjs bench --post', ...formatPost(postFromDocs()).trimEnd().split('\n'), '```'],
  'study-writeup-runs': () => [
    "| experiment | write-up | seed's firmware on the seed's RTL | our firmware on the seed's board | ours / write-up | our firmware on picotpu |",
    '|---|---:|---:|---:|---:|---:|',
    ...Object.keys(WRITE_UP_FIGURES).map((name) => {
      const s = row(SEED_TARGET, name), p = row(DEFAULT_TARGET, name), w = WRITE_UP_FIGURES[name];
      const ours = s ? `${n(s.counters.cycles)}${s.golden?.equal ? '' : ' (not golden-exact)'}` : 'not run yet';
      return `| ${name} | ${n(w.run)} | ${n(RTL_FIGURES[name]?.run)} | ${ours} | ${s ? ratio(s.counters.cycles, w.run) : '—'} | ${n(p?.counters.cycles)} |`;
    }),
  ],
  'study-writeup-gains': () => [
    "| technique | the write-up states | its figures give | seed's firmware on the seed's RTL | ours on the seed's board | ours on picotpu |",
    '|---|---:|---:|---:|---:|---:|',
    ...postGains(postFromDocs()).map((g) => `| ${g.technique} | ${pct(g.stated).replace('.0 %', ' %')} | ${pct(g.writeUp)} | ${pct(g.rtl)} | ${pct(g.seed)} | ${pct(g.picotpu)} |`),
  ],
  'study-seed-table': () => [
    '| experiment | golden | run | predicted run (error) | MXU busy | VPU busy | DMA busy | no unit busy | two or more busy | analytic busy | bound | run / bound |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|',
    ...doc(SEED_TARGET).experiments.map((e) => {
      const c = e.counters, a = e.analytic!;
      const exact = a.mxu === c.mxuBusy && a.vpu === c.vpuBusy && a.dma === c.dmaBusy;
      const pred = e.predicted ? `${n(e.predicted.runClocks)} (${pct((100 * (e.predicted.runClocks - c.cycles)) / c.cycles, 2)})` : '—';
      return `| ${e.name} | ${e.golden!.equal ? 'exact' : '**mismatch**'} | ${n(c.cycles)} | ${pred} | ${n(c.mxuBusy)} | ${n(c.vpuBusy)} | ${n(c.dmaBusy)} | ${n(c.idle)} | ${n(c.overlap)} | ${exact ? 'exact' : 'off'} | ${n(e.bound)} | ${ratio(c.cycles, e.bound!)} |`;
    }),
    ...(doc(SEED_TARGET).notRun ?? []).map((x) => `| ${x.name} | not run yet: the firmware refuses the job (its scratchpad plan) | | | | | | | | | | |`),
  ],
  'study-seed-busy': () => [
    "| experiment | MXU: ours | write-up | RTL | VPU: ours | write-up | RTL | DMA: ours | write-up | RTL |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...doc(SEED_TARGET).experiments.filter((e) => WRITE_UP_FIGURES[e.name] || RTL_FIGURES[e.name]).map((e) => {
      const c = e.counters, w = WRITE_UP_FIGURES[e.name], r = RTL_FIGURES[e.name];
      return `| ${e.name} | ${n(c.mxuBusy)} | ${n(w?.mxu)} | ${n(r?.mxu)} | ${n(c.vpuBusy)} | ${n(w?.vpu)} | ${n(r?.vpu)} | ${n(c.dmaBusy)} | ${n(w?.dma)} | ${n(r?.dma)} |`;
    }),
  ],
  'study-seed-mxu': () => {
    const lines = ['```'];
    for (const name of ['full inference, base', 'prefill, base', 'prefill, fused']) {
      const a = row(SEED_TARGET, name)?.mxuNote;
      if (!a) continue;
      lines.push(`${name}: ours ${n(a.ours)}`);
      for (const t of a.terms) lines.push(`  ${t.clocks < 0 ? '−' : '+'} ${n(Math.abs(t.clocks)).padStart(9)}  ${t.what}`);
      lines.push(`  = ${n(a.ours + a.terms.reduce((s, t) => s + t.clocks, 0)).padStart(9)}  ${a.accounted ? "the write-up's MXU busy exactly" : 'NOT the write-up\'s figure'}`);
    }
    lines.push('```');
    return lines;
  },
  'study-seed-derived': () => [
    "| figure | ours on the seed's board | write-up | seed's firmware on the RTL |",
    '|---|---:|---:|---:|',
    ...doc(SEED_TARGET).derived.map((d) => `| ${d.name} | ${formatDerivedValue(d, d.ours)} | ${formatDerivedValue(d, d.writeUp)} | ${formatDerivedValue(d, d.rtl)} |`),
  ],
  'study-gain-anatomy': () => {
    const out = [
      '| technique | board | run before | run after | change | no unit busy before | after | two or more busy after |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (const g of postGains(postFromDocs()).filter((x) => !x.technique.includes('DMA'))) {
      const pair = PAIRS[g.technique];
      const w = [WRITE_UP_FIGURES[pair[0]], WRITE_UP_FIGURES[pair[1]]];
      out.push(`| ${g.technique} | write-up | ${n(w[0].run)} | ${n(w[1].run)} | ${pct(g.writeUp)} | ${n(w[0].idle)} | ${n(w[1].idle)} | ${n(w[1].overlap)} |`);
      for (const [target, label] of [[SEED_TARGET, "ours, seed's board"], [DEFAULT_TARGET, 'ours, picotpu']] as const) {
        const a = row(target, pair[0]), b = row(target, pair[1]);
        if (!a || !b) { out.push(`| | ${label} | not run yet | | | | | |`); continue; }
        out.push(`| | ${label} | ${n(a.counters.cycles)} | ${n(b.counters.cycles)} | ${pct((100 * (b.counters.cycles - a.counters.cycles)) / a.counters.cycles)} | ${n(a.counters.idle)} | ${n(b.counters.idle)} | ${n(b.counters.overlap)} |`);
      }
    }
    return out;
  },
  'study-ladder-seed': () => {
    const best = WRITE_UP_FIGURES[WRITE_UP_BEST].run;
    const rows = doc(SEED_TARGET).experiments;
    const prefillOf = (variant: number) => rows.find((e) => e.name.startsWith('prefill') && e.variant === variant);
    return [
      "| rung (our firmware, the seed's board) | variant | full inference | run / bound | the write-up's best / run | prefill | run / bound |",
      '|---|---|---:|---:|---:|---:|---:|',
      ...seedFulls().map((e) => {
        const p = prefillOf(e.variant);
        return `| ${e.name.replace('full inference, ', '')} | ${e.variant} (${e.variantName}) | ${n(e.counters.cycles)} | ${ratio(e.counters.cycles, e.bound!)} | ${ratio(best, e.counters.cycles)} | ${p ? n(p.counters.cycles) : '—'} | ${p ? ratio(p.counters.cycles, p.bound!) : '—'} |`;
      }),
    ];
  },
  'seed-rtl-infer': () => [
    '| experiment | write-up run | RTL run | RTL MXU | RTL VPU | RTL DMA | RTL no unit busy |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(RTL_FIGURES).map(([name, r]) =>
      `| ${name} | ${n(WRITE_UP_FIGURES[name]?.run)} | ${n(r.run)} | ${n(r.mxu)} | ${n(r.vpu)} | ${n(r.dma)} | ${n(r.idle)} |`),
  ],
  'study-ladder-picotpu': () => [
    '| rung (our firmware, picotpu) | variant | run | lower bound | run / bound |',
    '|---|---:|---:|---:|---:|',
    ...doc(DEFAULT_TARGET).experiments.filter((e) => e.name.startsWith('full inference')).map((e) =>
      `| ${e.name} | ${e.variant} | ${n(e.counters.cycles)} | ${n(boundOf(e))} | ${ratio(e.counters.cycles, boundOf(e))} |`),
  ],
};
