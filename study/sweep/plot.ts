// A small SVG plotter for the scaling study: axes (linear or log), ticks,
// units, a legend, predictions drawn as lines and measurements as points.
// No browser, no fonts to measure: the layout is fixed-size and text is
// positioned with generous margins.
//
// Every series is one <g class="series" data-series="…" data-kind="…">, so a
// test (or a reader with a text editor) can find each series in the file.

export interface Series {
  name: string;
  /** 'line': a prediction (a polyline through the points); 'points': a measurement (markers). */
  kind: 'line' | 'points';
  points: readonly (readonly [number, number])[];
  /** Dashed line (a bound or roof rather than a prediction). */
  dashed?: boolean;
  color?: string;
}

export interface Plot {
  title: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  series: Series[];
  /** Categorical x axis: tick labels at x = 0, 1, 2, … */
  xCategories?: string[];
  /** Force the y range to include this value (e.g. 0). */
  yInclude?: number;
}

/** The plot area is 436 × 336; the figure widens when the legend's longest name needs more than 200 px. */
const PLOT_W = 436, PLOT_H = 440;
const M = { left: 84, right: 200, top: 40, bottom: 64 };
/** Text width at about 6.8 px a character (12 px sans-serif). */
const textWidth = (s: string) => 6.8 * s.length;
/** Legend column: marker and gap (42 px), then the longest name. */
const legendWidth = (names: readonly string[]) => Math.max(M.right, Math.ceil(42 + Math.max(0, ...names.map(textWidth)) + 8));
/** Category labels too wide for their slot are drawn slanted; the figure grows by the height they need. */
const SLANT = 40;
function categoryLayout(cat: readonly string[] | undefined): { slant: boolean; extra: number } {
  if (!cat?.length) return { slant: false, extra: 0 };
  const widest = Math.max(...cat.map(textWidth));
  if (widest <= PLOT_W / cat.length - 6) return { slant: false, extra: 0 };
  return { slant: true, extra: Math.ceil(widest * Math.sin((SLANT * Math.PI) / 180)) };
}
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v: number) => (Math.abs(v) < 1e-9 ? '0' : +v.toFixed(2) + '');

/** Tick label: 1.5k, 2M, 0.25 … */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  const trim = (x: number) => String(+x.toPrecision(3));
  if (a >= 1e9) return `${trim(v / 1e9)}G`;
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e4) return `${trim(v / 1e3)}k`;
  return trim(v);
}

/** Round-number ticks covering [lo, hi]. */
function linearTicks(lo: number, hi: number): number[] {
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / 6, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= 7)!;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(+t.toPrecision(12));
  return out;
}

/** Powers of ten (and 2×, 5× when the range is short) within [lo, hi]. */
function logTicks(lo: number, hi: number): number[] {
  const decades = Math.log10(hi / lo);
  const mult = decades < 1.5 ? [1, 2, 5] : decades < 3 ? [1, 3] : [1];
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of mult) { const t = m * 10 ** e; if (t >= lo * 0.999 && t <= hi * 1.001) out.push(t); }
  }
  return out;
}

interface Axis { map(v: number): number; ticks: number[] }

function axis(values: number[], log: boolean, from: number, to: number, include?: number): Axis {
  let vs = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  if (include !== undefined && !log) vs = [...vs, include];
  if (!vs.length) vs = log ? [1, 10] : [0, 1];
  let lo = Math.min(...vs), hi = Math.max(...vs);
  if (log) {
    lo /= 1.25; hi *= 1.25;
    const [a, b] = [Math.log10(lo), Math.log10(hi)];
    return { map: (v) => from + ((Math.log10(v) - a) / (b - a)) * (to - from), ticks: logTicks(lo, hi) };
  }
  if (lo === hi) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.06;
  lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
  hi += pad;
  const ticks = linearTicks(lo, hi);
  return { map: (v) => from + ((v - lo) / (hi - lo)) * (to - from), ticks };
}

/** The plot as a standalone SVG document. */
export function plotSvg(p: Plot): string {
  const xs = p.series.flatMap((s) => s.points.map((q) => q[0]));
  const ys = p.series.flatMap((s) => s.points.map((q) => q[1]));
  const W = M.left + PLOT_W + legendWidth(p.series.map((s) => s.name));
  const cats = categoryLayout(p.xCategories);
  const H = PLOT_H + cats.extra;
  const x0 = M.left, x1 = M.left + PLOT_W, y0 = H - M.bottom - cats.extra, y1 = M.top;
  const cat = p.xCategories;
  const X = cat ? { map: (v: number) => x0 + ((v + 0.5) / cat.length) * (x1 - x0), ticks: cat.map((_, i) => i) } : axis(xs, !!p.xLog, x0, x1);
  const Y = axis(ys, !!p.yLog, y0, y1, p.yInclude);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<title>${esc(p.title)}</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${(x0 + x1) / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(p.title)}</text>`);
  // Grid and ticks.
  out.push('<g class="axes" stroke="#ddd">');
  for (const t of Y.ticks) out.push(`<line x1="${x0}" x2="${x1}" y1="${num(Y.map(t))}" y2="${num(Y.map(t))}"/>`);
  for (const t of X.ticks) out.push(`<line y1="${y0}" y2="${y1}" x1="${num(X.map(t))}" x2="${num(X.map(t))}"/>`);
  out.push('</g>');
  out.push(`<rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}" fill="none" stroke="#333"/>`);
  out.push('<g class="ticks" fill="#333">');
  for (const t of Y.ticks) out.push(`<text x="${x0 - 6}" y="${num(Y.map(t) + 4)}" text-anchor="end">${esc(tickLabel(t))}</text>`);
  X.ticks.forEach((t, i) => {
    const label = cat ? cat[i] : tickLabel(t);
    const x = num(X.map(t));
    if (cats.slant) out.push(`<text x="${x}" y="${y0 + 14}" text-anchor="end" transform="rotate(-${SLANT} ${x} ${y0 + 14})">${esc(label)}</text>`);
    else out.push(`<text x="${x}" y="${y0 + 16}" text-anchor="middle">${esc(label)}</text>`);
  });
  out.push('</g>');
  out.push(`<text x="${(x0 + x1) / 2}" y="${H - 18}" text-anchor="middle">${esc(p.xLabel)}</text>`);
  out.push(`<text transform="translate(20 ${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${esc(p.yLabel)}</text>`);
  // Series, clipped to the plot area.
  out.push(`<clipPath id="area"><rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}"/></clipPath>`);
  const ok = (q: readonly [number, number]) => Number.isFinite(q[0]) && Number.isFinite(q[1]) && (!p.xLog || q[0] > 0) && (!p.yLog || q[1] > 0);
  p.series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    const pts = s.points.filter(ok).map((q) => [X.map(q[0]), Y.map(q[1])] as const);
    out.push(`<g class="series" data-series="${esc(s.name)}" data-kind="${s.kind}" data-points="${pts.length}" clip-path="url(#area)">`);
    if (s.kind === 'line') {
      const d = pts.map((q, j) => `${j ? 'L' : 'M'}${num(q[0])},${num(q[1])}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    } else {
      for (const q of pts) out.push(`<circle cx="${num(q[0])}" cy="${num(q[1])}" r="4" fill="${color}" fill-opacity="0.85" stroke="white"/>`);
    }
    out.push('</g>');
  });
  // Legend.
  out.push('<g class="legend">');
  p.series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length], y = M.top + 12 + i * 20, x = x1 + 14;
    if (s.kind === 'line') out.push(`<line x1="${x}" x2="${x + 22}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    else out.push(`<circle cx="${x + 11}" cy="${y}" r="4" fill="${color}"/>`);
    out.push(`<text x="${x + 28}" y="${y + 4}">${esc(s.name)}</text>`);
  });
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n') + '\n';
}
