// Renders the study's Vega-Lite figures (study/sweep/charts.ts) to SVG in
// Node: compiled by vega-lite, laid out by vega with no browser and no
// canvas. Text is measured by vega's estimate from the font size, never by
// a canvas library that happens to be installed, so the same spec gives the
// same bytes on every machine.

import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** vega's text measurer (untyped): canvas(false) makes it estimate widths from the font size. */
const textMetrics = (vega as unknown as { textMetrics: { canvas(use: boolean): void } }).textMetrics;

/** The SVG document of a spec (a figure file's whole content). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  textMetrics.canvas(false);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return `${svg}\n`;
  } finally {
    view.finalize();
  }
}
