// The study's figures as Vega-Lite specifications: pure functions from a
// chart's rows to a spec, and from the sweep's records to the roofline's, the
// ladder's and prefill vs decode's charts, with no Node import, so the
// playground can render the same specs live (vega-embed) that `picotpu sweep`
// and `picotpu explore` render to SVG (study/sweep/render.ts).
//
// One convention in every figure: a series has one colour; its prediction is
// a line (solid: the analytic bound or prediction, dashed: the schedule
// model's predicted run) and its measurement is points — or, on a categorical
// axis, bars (measurement) with ticks (prediction).

import type { TopLevelSpec } from 'vega-lite';
import type { PhasePrediction } from '../../model/predict/analytic.ts';
import { BEST_VARIANT } from '../../model/format.ts';
import type { MatmulPoint, MeasuredPhase, ModelPoint, RunRecord } from './runs.ts';

/** How a row was obtained: MEASURED is drawn as points (bars on a categorical axis); anything else names a kind of prediction, drawn as a line (a tick). */
export type RowKind = string;

/** The kinds of row the study draws, and the line each prediction is drawn with. */
export const MEASURED = 'measured';
export const BOUND = 'bound (busiest unit)';
export const PREDICTED = 'predicted';
export const PREDICTED_RUN = 'predicted run (schedule model)';
export const ROOF = 'roof';
/** Dash patterns: the analytic bound and plain predictions solid, the schedule model's run dashed, roofs dotted; any other kind solid. */
const DASH: Readonly<Record<string, number[]>> = { [BOUND]: [1, 0], [PREDICTED]: [1, 0], [PREDICTED_RUN]: [6, 4], [ROOF]: [2, 3] };
const dashOf = (kind: string) => DASH[kind] ?? [1, 0];
/** On a categorical axis a prediction is a mark across its bar: a bar-wide line (any kind but the predicted run), or a hollow diamond (the predicted run). */
const barMarkOf = (kind: string, horizontal: boolean) => (kind === PREDICTED_RUN ? 'diamond' : horizontal ? 'M0,-1V1' : 'M-1,0H1');

export interface ChartRow {
  /** The series: its colour, shared by its prediction and its measurement. */
  series: string;
  kind: RowKind;
  x: number | string;
  y: number;
  /** The panel (one small chart each) the row belongs to, if the chart has panels. */
  panel?: string;
}

export interface ChartAxis {
  title: string;
  log?: boolean;
  /** Start a linear axis at zero. */
  zero?: boolean;
  /** A log axis's ticks, where the data have their own steps (boards 1, 2, 4, 8); by default powers of ten and the round numbers between them. */
  ticks?: readonly number[];
}

export interface Chart {
  title: string;
  /** One line under the title: what the marks mean. */
  subtitle?: string;
  x: ChartAxis;
  y: ChartAxis;
  rows: readonly ChartRow[];
  /** The colour legend's title. */
  seriesTitle: string;
  /** Series with a fixed colour (roofs, references): grey, so that they stand apart from the data. */
  colors?: Readonly<Record<string, string>>;
  /** A categorical x axis (in the order given): measured values as bars, predictions as ticks. */
  categories?: readonly string[];
  /** Draw categories down the y axis (long labels read better). */
  horizontal?: boolean;
  /** The panels' title, when rows carry a panel (panels side by side, in order of first appearance). */
  panelTitle?: string;
  /** A reference value drawn as a thin rule across the plot (e.g. speed-up 1). */
  reference?: number;
}

/** Tableau's ten categorical colours, Vega's default. */
const PALETTE = ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac'];
const FONT = 'Helvetica, Arial, sans-serif';
// Labels are never cut short (limit 0): vega's width estimate, which keeps the SVG the same on every machine, is generous and would cut them early.
const WIDTH = 440, HEIGHT = 320, PANEL_WIDTH = 300;

/** Tick labels: 1.5k, 2M above ten thousand, plain numbers (0.5, 2500) below. */
const LABEL = "abs(datum.value) >= 1e4 ? format(datum.value, '~s') : format(datum.value, '~g')";

const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** Rows a log axis can show (positive, finite). */
function drawable(c: Chart): ChartRow[] {
  return c.rows.filter((r) => Number.isFinite(r.y) && (!c.y.log || r.y > 0)
    && (typeof r.x === 'string' || (Number.isFinite(r.x) && (!c.x.log || r.x > 0))));
}

/** One colour per series: fixed colours where given, the palette in order for the rest. */
function colorScale(c: Chart, rows: readonly ChartRow[]): { domain: string[]; range: string[] } {
  const domain = unique(rows.map((r) => r.series));
  let next = 0;
  return { domain, range: domain.map((s) => c.colors?.[s] ?? PALETTE[next++ % PALETTE.length]) };
}

/**
 * A log axis's ticks over [lo, hi]: every power of ten, and between them the
 * round numbers a short range needs to carry a few labels (1-2-3-5-7 within
 * 1.5 decades, 1-2-5 within 3, 1-3 within 5). Given as values, every one is
 * labelled: vega's own choice drops labels its generous width estimate
 * thinks overlap.
 */
export function logTicks(lo: number, hi: number): number[] {
  if (!(lo > 0) || !(hi >= lo)) return [];
  const decades = Math.log10(hi / lo);
  const steps = decades < 1.5 ? [1, 2, 3, 5, 7] : decades < 3 ? [1, 2, 5] : decades < 5 ? [1, 3] : [1];
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of steps) {
      const t = +(m * 10 ** e).toPrecision(6);
      if (t >= lo / 1.02 && t <= hi * 1.02) out.push(t);
    }
  }
  return out;
}

/** Powers of two from 1 to hi: the ticks of an axis of boards or batch sizes. */
export function powersOfTwo(hi: number): number[] {
  const out: number[] = [];
  for (let t = 1; t <= hi; t *= 2) out.push(t);
  return out;
}

function quantitative(a: ChartAxis, field: 'x' | 'y', rows: readonly ChartRow[]) {
  const values = rows.map((r) => r[field]).filter((v): v is number => typeof v === 'number');
  const ticks = a.ticks ?? logTicks(Math.min(...values), Math.max(...values));
  return {
    field, type: 'quantitative' as const, title: a.title,
    // Padding keeps the extreme points whole inside the frame.
    scale: a.log ? { type: 'log' as const, nice: false, padding: 10 } : { zero: !!a.zero, nice: true, ...(a.zero ? {} : { padding: 10 }) },
    axis: { labelExpr: LABEL, grid: true, ...(a.log ? { values: [...ticks], labelOverlap: false } : {}) },
  };
}

/** Lines (predictions) and points (measurements) on numeric axes. */
function lineLayers(c: Chart, rows: readonly ChartRow[]) {
  const kinds = unique(rows.filter((r) => r.kind !== MEASURED).map((r) => r.kind));
  const color = { field: 'series', type: 'nominal' as const, title: c.seriesTitle, scale: colorScale(c, rows), legend: { orient: 'right' as const, labelLimit: 0, symbolType: 'circle' } };
  const x = quantitative(c.x, 'x', rows), y = quantitative(c.y, 'y', rows);
  const tooltip = [{ field: 'series', type: 'nominal' as const }, { field: 'kind', type: 'nominal' as const }, { field: 'x', type: 'quantitative' as const }, { field: 'y', type: 'quantitative' as const, format: ',.4~r' }];
  return [
    {
      transform: [{ filter: `datum.kind !== '${MEASURED}'` }],
      mark: { type: 'line' as const, strokeWidth: 2, clip: true },
      encoding: {
        x, y, color, tooltip,
        strokeDash: { field: 'kind', type: 'nominal' as const, title: 'predictions', scale: { domain: kinds, range: kinds.map(dashOf) }, legend: { orient: 'right' as const, symbolStrokeColor: '#333', symbolStrokeWidth: 2, symbolSize: 500 } },
      },
    },
    {
      transform: [{ filter: `datum.kind === '${MEASURED}'` }],
      mark: { type: 'point' as const, filled: true, size: 55, opacity: 0.9, stroke: 'white', strokeWidth: 0.6, clip: true },
      encoding: { x, y, color, tooltip },
    },
  ];
}

/** Bars (measurements) and ticks (predictions) on a categorical axis, one bar per series within each category. */
function barLayers(c: Chart, rows: readonly ChartRow[]) {
  const [cat, val, off] = c.horizontal ? ['y', 'x', 'yOffset'] as const : ['x', 'y', 'xOffset'] as const;
  const kinds = unique(rows.filter((r) => r.kind !== MEASURED).map((r) => r.kind));
  const series = unique(rows.map((r) => r.series));
  const color = { field: 'series', type: 'nominal' as const, title: c.seriesTitle, scale: colorScale(c, rows), legend: { orient: 'right' as const, labelLimit: 0 } };
  const catEnc = { field: 'x', type: 'nominal' as const, title: c.x.title, sort: c.categories as string[], axis: { labelLimit: 0, ...(c.horizontal ? {} : { labelAngle: -40 }) } };
  const valEnc = { field: 'y', type: 'quantitative' as const, title: c.y.title, scale: c.y.log ? { type: 'log' as const } : { zero: c.y.zero ?? true }, axis: { grid: true } };
  const offset = { field: 'series', type: 'nominal' as const, sort: series, scale: { paddingInner: 0.1 } };
  const tooltip = [{ field: 'x', type: 'nominal' as const, title: 'category' }, { field: 'series', type: 'nominal' as const }, { field: 'kind', type: 'nominal' as const }, { field: 'y', type: 'quantitative' as const, format: ',.4~r' }];
  const layers: object[] = [
    {
      transform: [{ filter: `datum.kind === '${MEASURED}'` }],
      mark: { type: 'bar' as const, opacity: 0.5 },
      encoding: { [cat]: catEnc, [val]: valEnc, [off]: offset, color, tooltip },
    },
  ];
  if (kinds.length) {
    layers.push({
      transform: [{ filter: `datum.kind !== '${MEASURED}'` }],
      mark: { type: 'point' as const, filled: false, size: 150, strokeWidth: 2.5, opacity: 1 },
      encoding: {
        [cat]: catEnc, [val]: valEnc, [off]: offset, color, tooltip,
        shape: { field: 'kind', type: 'nominal' as const, title: 'predictions', scale: { domain: kinds, range: kinds.map((k) => barMarkOf(k, !!c.horizontal)) }, legend: { orient: 'right' as const, symbolStrokeColor: '#222', symbolStrokeWidth: 2.5 } },
      },
    });
  }
  if (c.reference !== undefined) layers.push({ mark: { type: 'rule' as const, color: '#777', strokeWidth: 1, strokeDash: [3, 3] }, encoding: { [val]: { datum: c.reference, type: 'quantitative' as const } } });
  return layers;
}

/** The chart's Vega-Lite specification: deterministic (rows in, spec out; nothing measured, nothing random). */
export function chartSpec(c: Chart): TopLevelSpec {
  const rows = drawable(c);
  const layer = c.categories ? barLayers(c, rows) : lineLayers(c, rows);
  const panels = c.panelTitle ? unique(rows.map((r) => r.panel ?? '')) : [];
  const size = c.categories
    // A step is one bar (the offset band) wide.
    ? (c.horizontal ? { width: panels.length ? PANEL_WIDTH : WIDTH, height: { step: 10 } } : { width: { step: 12 }, height: HEIGHT })
    : { width: panels.length ? PANEL_WIDTH : WIDTH, height: HEIGHT };
  const common = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: c.title, ...(c.subtitle ? { subtitle: c.subtitle } : {}), anchor: 'start' as const, fontSize: 15, subtitleFontSize: 11.5, subtitleColor: '#555' },
    data: { values: rows.map((r) => ({ ...r })) },
    background: 'white',
    padding: 8,
    config: {
      font: FONT,
      axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' as const, gridColor: '#e6e6e6' },
      legend: { labelFontSize: 11, titleFontSize: 11.5, titleFontWeight: 'bold' as const, symbolSize: 90, labelLimit: 0, titleLimit: 0 },
      header: { labelFontSize: 12, titleFontSize: 12 },
      view: { stroke: '#999' },
    },
  };
  if (panels.length) {
    return {
      ...common,
      facet: { column: { field: 'panel', type: 'nominal', title: c.panelTitle, sort: panels } },
      spec: { ...size, layer },
    } as TopLevelSpec;
  }
  return { ...common, ...size, layer } as TopLevelSpec;
}

/** Rows of one series' prediction and measurement over x, as two kinds of row. */
export function compared(series: string, predictedKind: string, points: readonly { x: number | string; predicted: number; measured: number }[]): ChartRow[] {
  return [
    ...points.map((p) => ({ series, kind: predictedKind, x: p.x, y: p.predicted })),
    ...points.map((p) => ({ series, kind: MEASURED, x: p.x, y: p.measured })),
  ];
}

/** Rows of one kind for one series, from [x, y] pairs. */
export function rowsOf(series: string, kind: RowKind, points: readonly (readonly [number | string, number])[], panel?: string): ChartRow[] {
  return points.map(([x, y]) => ({ series, kind, x, y, ...(panel === undefined ? {} : { panel }) }));
}

// ---- figures from the sweep's records ----

/** The subtitle of a figure with lines and points. */
export const LINES_AND_POINTS = 'lines: predictions · points: measured on the emulator · one colour per series';
/** The subtitle of a figure with bars (and predictions across them). */
export const BARS_AND_MARKS = 'bars: measured on the emulator · marks across the bars: predictions · one colour per series';
/** Roof lines stand apart from the data in greys. */
const ROOF_GREYS = ['#333333', '#999999'];

/** A record's measured window of that name (prefill, decode, matmul). */
export function measuredPhase(r: RunRecord, name: string): MeasuredPhase {
  const m = r.measured.find((p) => p.name === name);
  if (!m) throw new Error(`${r.key}: no measured ${name} window`);
  return m;
}
/** A record's predicted window of that name ('matmul' matches the matmul kernel's own name). */
export function predictedPhase(r: RunRecord, name: string): PhasePrediction {
  const p = r.predicted.find((q) => q.name === name || (name === 'matmul' && q.name.startsWith('matmul')));
  if (!p) throw new Error(`${r.key}: no predicted ${name} phase`);
  return p;
}
/** A record's predicted run clocks over all its windows (NaN where one is not modelled). */
export const predictedRun = (r: RunRecord): number => r.predicted.reduce((a, p) => a + (p.runClocks ?? NaN), 0);

/** The ladder's rungs by variant, named as `picotpu bench` names them. */
export const LADDER_NAMES: Readonly<Record<number, string>> = {
  0: 'base', 1: '+double buffer', 3: '+fusion', 7: '+FlashAttention', 15: '+wait tokens',
  31: '+lean', 63: '+decode panels', 127: '+pipelined heads', 255: '+streamed prefill', 511: '+block attention', 1023: '+chained weights', 2047: '+FFN on chip', [BEST_VARIANT]: '+long context',
};

/** The roofline from the roofline sweep's matmul records: one panel per K, one colour per kernel (its bound and predicted run as lines, its runs as points), under the roofs. */
export function rooflineChart(records: readonly RunRecord[]): Chart {
  const rows: ChartRow[] = [];
  let maxAi = 0, minAi = Infinity;
  for (const r of records) {
    const p = r.point as MatmulPoint, pr = predictedPhase(r, 'matmul'), me = measuredPhase(r, 'matmul');
    const macs = p.m * p.k * p.n, ai = macs / (pr.bytesIn + pr.bytesOut);
    maxAi = Math.max(maxAi, ai); minAi = Math.min(minAi, ai);
    const wide = p.config?.mxuDim === 16, best = p.variant === BEST_VARIANT;
    const series = `${best ? 'best variant' : p.variant ? 'double-buffered' : 'base'}${wide ? ', 16×16 MXU' : ''}`, panel = `K = ${p.k}`;
    if (p.variant === 1) rows.push({ series, kind: BOUND, x: ai, y: macs / pr.lowerBound, panel });
    rows.push({ series, kind: MEASURED, x: ai, y: macs / me.cycles, panel });
    if (pr.runClocks) rows.push({ series, kind: PREDICTED_RUN, x: ai, y: macs / pr.runClocks, panel });
  }
  // The MXU's roof (64 MACs a clock on 8×8, 256 on 16×16) meets the DMA's (1 byte a clock: MACs per clock = intensity) at the knee.
  const roof = (peak: number): [number, number][] => [minAi / 1.2, ...(peak < maxAi * 1.2 ? [peak] : []), maxAi * 1.2].map((x) => [x, Math.min(peak, x)]);
  const wide = records.some((r) => (r.point as MatmulPoint).config?.mxuDim === 16);
  const roofs = [['roof: 64 MAC/clk, 1 B/clk', 64], ...(wide ? [['roof: 16×16 MXU, 256 MAC/clk', 256] as const] : [])] as const;
  for (const [name, peak] of roofs) for (const panel of unique(rows.map((r) => r.panel!))) rows.push(...rowsOf(name, ROOF, roof(peak), panel));
  return {
    title: `Roofline: achieved MACs per clock (N = ${(records[0]?.point as MatmulPoint | undefined)?.n ?? '-'})`, subtitle: LINES_AND_POINTS, seriesTitle: 'kernel', panelTitle: 'inner dimension',
    x: { title: 'arithmetic intensity (MACs per byte moved by the DMA)', log: true }, y: { title: 'MACs per clock', log: true },
    rows, colors: Object.fromEntries(roofs.map(([name], i) => [name, ROOF_GREYS[i]])),
  };
}

/** The optimisation ladder from the ladder sweep's records (keys `prefill vN` and `full vN`, the first variant the base): speed-ups over base as bars, bound and predicted run across them. */
export function ladderChart(records: readonly RunRecord[]): Chart {
  const byKey = new Map(records.map((r) => [r.key, r]));
  const need = (key: string) => { const r = byKey.get(key); if (!r) throw new Error(`sweep record ${key} is missing`); return r; };
  const total = (r: RunRecord) => r.measured.reduce((a, p) => a + p.cycles, 0);
  const bound = (r: RunRecord) => r.predicted.reduce((a, p) => a + p.lowerBound, 0);
  const vs = unique(records.map((r) => (r.point as ModelPoint).variant));
  const rows: ChartRow[] = [];
  for (const [series, phase] of [['prefill', 'prefill'], ['full inference', 'full']] as const) {
    const base = need(`${phase} v${vs[0]}`);
    for (const v of vs) {
      const r = need(`${phase} v${v}`), x = LADDER_NAMES[v] ?? `v${v}`;
      rows.push({ series, kind: MEASURED, x, y: total(base) / total(r) }, { series, kind: BOUND, x, y: bound(base) / bound(r) },
        { series, kind: PREDICTED_RUN, x, y: predictedRun(base) / predictedRun(r) });
    }
  }
  return {
    title: 'Speed-up over base, one technique at a time', subtitle: BARS_AND_MARKS, seriesTitle: 'run', categories: vs.map((v) => LADDER_NAMES[v] ?? `v${v}`), reference: 1,
    x: { title: 'kernel variant (each adds one technique)' }, y: { title: 'speed-up over base (×)', zero: true }, rows,
  };
}

/** The key suffix of a prefill-decode run on the best variant (the wait-tokens runs keep their keys). */
export const PREFILL_DECODE_BEST_KEY = ' best';

/** Clocks per token against prompt length from the prefill-decode sweep's records (keys `P<n>+<steps>[ best]`; the `full …` runs left out): prefill and decode, wait-tokens kernels and best variant, each measured (points), bound and predicted run (lines). */
export function prefillDecodeChart(records: readonly RunRecord[]): Chart {
  const isBest = (r: RunRecord) => r.key.endsWith(PREFILL_DECODE_BEST_KEY);
  const perToken = (best: boolean, phase: 'prefill' | 'decode', of: (r: RunRecord) => number): [number, number][] =>
    records.filter((r) => !r.key.startsWith('full') && isBest(r) === best).map((r) => {
      const p = r.point as ModelPoint;
      return [p.promptLength, of(r) / (phase === 'prefill' ? p.promptLength : p.decodeSteps)];
    });
  const boundAndMeasured = (best: boolean, phase: 'prefill' | 'decode', series: string): ChartRow[] => [
    ...rowsOf(series, BOUND, perToken(best, phase, (r) => predictedPhase(r, phase).lowerBound)),
    ...rowsOf(series, MEASURED, perToken(best, phase, (r) => measuredPhase(r, phase).cycles)),
  ];
  const hasBest = records.some((r) => !r.key.startsWith('full') && isBest(r));
  // The schedule model's predicted run per token (dashed), where it covers the window.
  const run = (best: boolean, phase: 'prefill' | 'decode', series: string): ChartRow[] =>
    rowsOf(series, PREDICTED_RUN, perToken(best, phase, (r) => predictedPhase(r, phase).runClocks ?? NaN).filter(([, y]) => Number.isFinite(y)));
  return {
    title: 'Clocks per token against prompt length', subtitle: LINES_AND_POINTS, seriesTitle: 'phase, kernels', x: { title: 'prompt length (tokens)' }, y: { title: 'clocks per token', log: true },
    rows: [
      ...boundAndMeasured(false, 'prefill', 'prefill, wait tokens'), ...boundAndMeasured(false, 'decode', 'decode, wait tokens'),
      ...(hasBest ? [...boundAndMeasured(true, 'prefill', 'prefill, best variant'), ...boundAndMeasured(true, 'decode', 'decode, best variant')] : []),
      ...run(false, 'prefill', 'prefill, wait tokens'), ...run(false, 'decode', 'decode, wait tokens'),
      ...run(true, 'prefill', 'prefill, best variant'), ...run(true, 'decode', 'decode, best variant'),
    ],
  };
}
