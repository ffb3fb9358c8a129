// Reads a figure rendered by vega (study/sweep/render.ts) the way a test
// needs it: the SVG parses, it is vega's (its root carries vega's class
// "marks"), and each drawn mark names its series and kind (vega writes a
// mark's fields into its aria-label), with the colour it is drawn in.

import { XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

export interface FigureMark {
  /** vega's role of the mark: 'line mark', 'point', 'bar'. */
  role: string;
  series: string;
  kind: string;
  color: string;
}

/** True when the SVG document was written by vega. */
export const madeByVega = (svg: string): boolean => /^<svg [^>]*class="marks"/.test(svg);

/** Every data mark of a vega SVG (lines, points, bars), after checking that the document parses and is vega's. */
export function marksOf(svg: string): FigureMark[] {
  expect(XMLValidator.validate(svg)).toBe(true);
  expect(madeByVega(svg)).toBe(true);
  const out: FigureMark[] = [];
  for (const m of svg.matchAll(/<path aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="(line mark|point|bar)"([^>]*)>/g)) {
    const fields = m[1], role = m[2], attrs = m[3];
    const series = /(?:^|; )series: (.*?)(?:; |$)/.exec(fields)?.[1], kind = /(?:^|; )kind: (.*?)(?:; |$)/.exec(fields)?.[1];
    if (series === undefined || kind === undefined) continue;
    const paint = role === 'line mark' ? 'stroke' : 'fill';
    let color = new RegExp(` ${paint}="([^"]*)"`).exec(attrs)?.[1] ?? '';
    if (color === 'transparent' || color === '') color = / stroke="([^"]*)"/.exec(attrs)?.[1] ?? ''; // a hollow point is drawn by its stroke
    out.push({ role, series: unescape(series), kind: unescape(kind), color });
  }
  return out;
}

/** The texts of the legends' entries, in order. */
export function legendLabels(svg: string): string[] {
  return [...svg.matchAll(/class="mark-text role-legend-label"[^>]*>((?:<text[^>]*>[^<]*<\/text>)*)/g)]
    .flatMap((m) => [...m[1].matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => unescape(t[1])));
}

/** The labels of the axes' ticks, in order. */
export function tickLabels(svg: string): string[] {
  return [...svg.matchAll(/class="mark-text role-axis-label"[^>]*>((?:<text[^>]*>[^<]*<\/text>)*)/g)]
    .flatMap((m) => [...m[1].matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => unescape(t[1])));
}

/** One colour per series across all its marks: series → colour. */
export function seriesColors(marks: readonly FigureMark[]): Map<string, string> {
  const colors = new Map<string, string>();
  for (const m of marks) {
    expect(colors.get(m.series) ?? m.color, `${m.series}: one colour for its ${m.kind} ${m.role}`).toBe(m.color);
    colors.set(m.series, m.color);
  }
  return colors;
}

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
