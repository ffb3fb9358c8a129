// What `picotpu explore` makes of a grid's records: a table per point (run
// clocks, unit busy, no-unit-busy clocks, the analytic bound, tokens
// correct, the FPGA estimate), the Pareto front of the objective against the
// FPGA cost per workload, its SVG, and which knob pays most for the objective.
// Records are read by key, so it does not matter where a point ran.

import { chartSpec, MEASURED, rowsOf, type ChartRow } from '../sweep/charts.ts';
import type { TopLevelSpec } from 'vega-lite';
import { table } from '../sweep/experiments.ts';
import type { RunRecord } from '../sweep/runs.ts';
import { fpgaCost, XC7A35T, type FpgaCost } from './cost.ts';
import { KNOBS, type Grid, type GridPoint, type Knob, type KnobValue, type Objective } from './grid.ts';
import { DEFAULT_TARGET } from '../../model/targets.ts';
import { groupDigits } from '../group-digits.ts';

/** The report: its text, its markdown page, its figure's Vega-Lite spec (the Pareto chart), the front's keys and the knob that pays most. */
export interface ExploreReport { text: string; markdown: string; spec: TopLevelSpec; front: string[]; bestKnob: string | null }

interface Row { p: GridPoint; r: RunRecord; objective: number; cost: FpgaCost }

const f0 = groupDigits;
const f2 = (x: number) => x.toFixed(2);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The objective of one record: a window's clocks, both, or clocks per generated token (a matmul's objective is its run clocks). */
export function objectiveOf(r: RunRecord, o: Objective): number {
  const window = (name: string) => r.measured.find((m) => m.name === name)?.cycles ?? 0;
  const total = sum(r.measured.map((m) => m.cycles));
  if (r.point.kind === 'matmul') return total;
  if (o === 'prefill') return window('prefill');
  if (o === 'decode') return window('decode');
  if (o === 'full') return total;
  return total / ((r.point.decodeSteps + 1) * (r.point.batch ?? 1));
}

/** Per workload: the points no cheaper point beats on the objective (only designs that fit the XC7A35T). */
export function paretoFront(rows: readonly { key: string; workload: string; cost: number; objective: number; fits: boolean }[]): string[] {
  const front: string[] = [];
  for (const w of new Set(rows.map((r) => r.workload))) {
    const sorted = rows.filter((r) => r.workload === w && r.fits).sort((a, b) => a.cost - b.cost || a.objective - b.objective);
    let best = Infinity;
    for (const r of sorted) if (r.objective < best) { front.push(r.key); best = r.objective; }
  }
  return front;
}

export interface KnobPay { knob: Knob; speedup: number; best: KnobValue; worst: KnobValue; pairs: number; costDelta: number }

/**
 * For each knob the grid varies: over every group of points equal in all else
 * (workload and the other knobs), the ratio of the objective at the knob's
 * worst value to its best; the geometric mean over the groups, and the value
 * that was best most often.
 */
export function knobPayoffs(rows: readonly Row[]): KnobPay[] {
  const out: KnobPay[] = [];
  for (const knob of KNOBS) {
    if (new Set(rows.map((r) => r.p.knobs[knob])).size < 2) continue;
    const groups = new Map<string, Row[]>();
    for (const r of rows) {
      const rest = `${r.p.workload.name}|${KNOBS.filter((k) => k !== knob).map((k) => r.p.knobs[k]).join('|')}`;
      groups.set(rest, [...(groups.get(rest) ?? []), r]);
    }
    let logSum = 0, pairs = 0, costSum = 0;
    const bestCount = new Map<KnobValue, number>(), worstCount = new Map<KnobValue, number>();
    for (const g of groups.values()) {
      if (g.length < 2) continue;
      const best = g.reduce((a, b) => (b.objective < a.objective ? b : a)), worst = g.reduce((a, b) => (b.objective > a.objective ? b : a));
      logSum += Math.log(worst.objective / best.objective);
      costSum += best.cost.share - worst.cost.share;
      pairs++;
      bestCount.set(best.p.knobs[knob], (bestCount.get(best.p.knobs[knob]) ?? 0) + 1);
      worstCount.set(worst.p.knobs[knob], (worstCount.get(worst.p.knobs[knob]) ?? 0) + 1);
    }
    if (!pairs) continue;
    const most = (m: Map<KnobValue, number>) => [...m].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    out.push({ knob, speedup: Math.exp(logSum / pairs), best: most(bestCount), worst: most(worstCount), pairs, costDelta: costSum / pairs });
  }
  return out.sort((a, b) => b.speedup - a.speedup);
}

const pctOf = (x: number) => `${(100 * x).toFixed(1)}%`;
const tokensCell = (r: RunRecord) => (r.tokensCorrect === undefined ? '-' : r.tokensCorrect ? 'yes' : 'NO');

/** The grid's report from its points and the records of those that ran (by key). */
export function exploreReport(g: Grid, points: readonly GridPoint[], records: ReadonlyMap<string, RunRecord>, fp: string, excluded: number): ExploreReport {
  const allRows: Row[] = points.filter((p) => p.status.kind === 'run' && records.has(p.key)).map((p) => {
    const r = records.get(p.key)!;
    return { p, r, objective: objectiveOf(r, g.objective), cost: fpgaCost(p.knobs) };
  });
  // The FPGA estimate, the front and the knobs are picotpu's; another board's points (it runs as built) are reported by board below.
  const home = DEFAULT_TARGET.board, rows = allRows.filter((x) => x.p.board === home);
  const byBoard = g.boards.length > 1 || g.boards[0] !== home, hasHome = g.boards.includes(home);
  const front = paretoFront(rows.map((x) => ({ key: x.p.key, workload: x.p.workload.name, cost: x.cost.share, objective: x.objective, fits: x.cost.fits })));
  const onFront = new Set(front);
  const unit = (r: RunRecord, f: 'mxu' | 'vpu' | 'dma' | 'idle') => sum(r.measured.map((m) => m[f]));
  const bound = (r: RunRecord) => sum(r.predicted.map((p) => p.lowerBound));
  const run = (r: RunRecord) => sum(r.measured.map((m) => m.cycles));
  const objName = g.objective === 'clocks per token' ? 'clk/token' : `${g.objective} clk`;
  const pointTable = table(
    ['point', objName, 'run clk', 'MXU busy', 'VPU busy', 'DMA busy', 'no unit busy', 'bound', 'run/bound', 'tokens ok', 'BRAM36', 'DSP', 'LUT', 'cost', 'front'],
    rows.map(({ p, r, objective, cost }) => [p.key, f0(objective), f0(run(r)), f0(unit(r, 'mxu')), f0(unit(r, 'vpu')), f0(unit(r, 'dma')), f0(unit(r, 'idle')),
      f0(bound(r)), f2(run(r) / bound(r)), tokensCell(r), String(cost.bram36), String(cost.dsp48), f0(cost.luts), `${pctOf(cost.share)}${cost.fits ? '' : ' (over)'}`, onFront.has(p.key) ? '*' : '']),
  );
  const skipped = points.filter((p) => p.status.kind !== 'run');
  const skippedText = skipped.map((p) => `${p.key}: ${p.status.kind}${'why' in p.status ? ` (${p.status.why})` : ''}`);
  const missing = points.filter((p) => p.status.kind === 'run' && !records.has(p.key)).length;
  const frontRows = rows.filter((x) => onFront.has(x.p.key)).sort((a, b) => a.p.workload.name.localeCompare(b.p.workload.name) || a.cost.share - b.cost.share);
  const frontTable = table(['Pareto front', 'cost', objName, 'BRAM36', 'DSP', 'LUT'],
    frontRows.map(({ p, cost, objective }) => [p.key, pctOf(cost.share), f0(objective), String(cost.bram36), String(cost.dsp48), f0(cost.luts)]));
  const pays = knobPayoffs(rows);
  const top = pays[0];
  const wrong = allRows.filter((x) => x.r.tokensCorrect === false).length;
  const summary = [
    `grid ${g.name}: ${points.length} points${byBoard ? ` on ${g.boards.join(' and ')}` : ''} (${allRows.length} run, ${skipped.filter((p) => p.status.kind === 'no firmware build').length} with no firmware build, ${skipped.filter((p) => p.status.kind === 'does not fit').length} that do not fit${missing ? `, ${missing} not run yet` : ''}), ${excluded} left out by the grid's exclusions; objective: ${g.objective}; firmware fingerprint ${fp}`,
    `tokens: ${allRows.filter((x) => x.r.tokensCorrect).length} of ${allRows.filter((x) => x.r.tokensCorrect !== undefined).length} model points equal the golden model's${wrong ? ` (${wrong} DIFFER)` : ''}`,
    ...(!hasHome ? [] : [top
      ? `the knob that pays most for ${g.objective}${byBoard ? ` on ${home}` : ''}: ${top.knob} — ${top.best} instead of ${top.worst} runs ${f2(top.speedup)}x faster (geometric mean over ${top.pairs} groups of points equal in all else), at ${top.costDelta >= 0 ? '+' : ''}${(100 * top.costDelta).toFixed(1)} points of device cost`
      : 'no knob varies: nothing to compare']),
    ...pays.slice(1).map((k) => `  then ${k.knob}: ${k.best} over ${k.worst} ${f2(k.speedup)}x (${k.pairs} groups, ${k.costDelta >= 0 ? '+' : ''}${(100 * k.costDelta).toFixed(1)} points of cost)`),
  ];
  // One colour per workload: every point it ran (points) and its Pareto front (a line).
  const series: ChartRow[] = [];
  for (const w of new Set(rows.map((x) => x.p.workload.name))) {
    const mine = rows.filter((x) => x.p.workload.name === w);
    series.push(...rowsOf(w, MEASURED, mine.map((x) => [100 * x.cost.share, x.objective] as const)));
    series.push(...rowsOf(w, 'Pareto front', mine.filter((x) => onFront.has(x.p.key)).map((x) => [100 * x.cost.share, x.objective] as [number, number]).sort((a, b) => a[0] - b[0])));
  }
  const spec = chartSpec({
    title: `${g.name}: ${g.objective} against FPGA cost`, subtitle: 'points: every design run on the emulator · line: its Pareto front · one colour per workload', seriesTitle: 'workload',
    x: { title: `FPGA cost: mean share of the XC7A35T's BRAM, DSP and LUTs (%)` }, y: { title: objName, log: true }, rows: series,
  });
  const boards = byBoard ? boardSections(g, allRows, objName) : [];
  const text = [...summary, ...(hasHome ? ['', pointTable, '', frontTable] : []), ...boards.flatMap((b) => ['', `== ${b.title} ==`, b.text]),
    ...(skippedText.length ? ['', 'not run:', ...skippedText.map((s) => `  ${s}`)] : [])].join('\n');
  const markdown = [
    `# Design-space exploration: ${g.name}`, '',
    hasHome
      ? `Generated by \`picotpu explore\` (docs/explore.md says how). The cost is the estimate of docs/hardware.md §9 against the XC7A35T (${XC7A35T.bram36} BRAM36 tiles, ${XC7A35T.dsp48} DSP48E1, ${f0(XC7A35T.luts)} LUTs); the front keeps, per workload, the designs that fit and that no cheaper design beats.${byBoard ? ` The estimate, the front and the knobs are picotpu's: another board runs as built, each workload once per variant, and is reported in its own section.` : ''}`
      : `Generated by \`picotpu explore\` (docs/explore.md says how). The ${g.boards.join(' and ')} board${g.boards.length > 1 ? 's run' : ' runs'} as built: each workload once per variant.`, '',
    ...(hasHome ? [`![Pareto front](figures/explore-${g.name}-pareto.svg)`, ''] : []),
    ...summary.map((s) => (s.startsWith('  ') ? `- ${s.trim()}` : `${s}\n`)), '',
    ...(hasHome ? ['```', frontTable, '```', '', `## Every point${byBoard ? ` on ${home}` : ''}`, '', '```', pointTable, '```', ''] : []),
    ...boards.flatMap((b) => [`## ${b.title}`, '', '```', b.text, '```', '']),
    ...(skippedText.length ? ['## Not run', '', ...skippedText.map((s) => `- ${s}`), ''] : []),
  ].join('\n');
  return { text, markdown, spec, front, bestKnob: top?.knob ?? null };
}

/** A grid over boards: each board's points but picotpu's (which the tables above hold), its variants' payoff, and the boards compared per workload. */
function boardSections(g: Grid, rows: readonly Row[], objName: string): { title: string; text: string }[] {
  const out: { title: string; text: string }[] = [];
  const run = (r: RunRecord) => sum(r.measured.map((m) => m.cycles));
  const bound = (r: RunRecord) => sum(r.predicted.map((p) => p.lowerBound));
  const unit = (r: RunRecord, f: 'mxu' | 'vpu' | 'dma' | 'idle') => sum(r.measured.map((m) => m[f]));
  for (const board of g.boards.filter((b) => b !== DEFAULT_TARGET.board)) {
    const mine = rows.filter((x) => x.p.board === board);
    const t = table(['point', objName, 'run clk', 'MXU busy', 'VPU busy', 'DMA busy', 'no unit busy', 'bound', 'run/bound', 'tokens ok'],
      mine.map(({ p, r, objective }) => [p.key, f0(objective), f0(run(r)), f0(unit(r, 'mxu')), f0(unit(r, 'vpu')), f0(unit(r, 'dma')), f0(unit(r, 'idle')), f0(bound(r)), f2(run(r) / bound(r)), tokensCell(r)]));
    const pay = knobPayoffs(mine).find((k) => k.knob === 'variant');
    const line = pay ? `the variant that pays most for ${g.objective} on ${board}: ${pay.best} instead of ${pay.worst} runs ${f2(pay.speedup)}x faster (geometric mean over ${pay.pairs} workload${pay.pairs > 1 ? 's' : ''})` : `one variant on ${board}: nothing to compare`;
    out.push({ title: `Every point on ${board}`, text: [t, line].join('\n') });
  }
  if (g.boards.length < 2) return out;
  // Per workload, each board's best point: the boards side by side.
  const workloads = [...new Set(rows.map((x) => x.p.workload.name))];
  const best = (w: string, b: string) => rows.filter((x) => x.p.workload.name === w && x.p.board === b).reduce<Row | null>((a, x) => (!a || x.objective < a.objective ? x : a), null);
  const cmp = table(['workload', ...g.boards.map((b) => `best on ${b}`), ...g.boards.map((b) => `${b} variant`), 'slowest / fastest'],
    workloads.map((w) => {
      const bs = g.boards.map((b) => best(w, b));
      const objs = bs.filter((x): x is Row => !!x).map((x) => x.objective);
      return [w, ...bs.map((x) => (x ? f0(x.objective) : '-')), ...bs.map((x) => (x ? String(x.p.knobs.variant) : '-')), objs.length > 1 ? `${f2(Math.max(...objs) / Math.min(...objs))}x` : '-'];
    }));
  out.push({ title: 'The boards compared', text: `${cmp}\neach board's fastest point per workload (${objName}); picotpu's at any of its knobs` });
  return out;
}
