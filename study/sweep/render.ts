// Renders the study's Vega-Lite figures (study/sweep/charts.ts) to SVG in
// Node: compiled by vega-lite, laid out by vega with no browser and no
// canvas. The same spec gives the same bytes on every machine and in every
// order: text is measured by vega's estimate from the font size (never by a
// canvas library that happens to be installed), and the SVG's clip-path and
// gradient ids restart at each figure.

import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** vega's text measurer (untyped): canvas(false) makes it estimate widths from the font size. */
const textMetrics = (vega as unknown as { textMetrics: { canvas(use: boolean): void } }).textMetrics;

/** A vega logger that keeps warnings (a spec that draws what it should compiles without any). */
function collectingLogger(warnings: string[]): vega.LoggerInterface {
  const logger = {
    level(_?: number) { return arguments.length ? logger : vega.Warn; },
    error(...args: readonly unknown[]) { throw new Error(args.map(String).join(' ')); },
    warn(...args: readonly unknown[]) { warnings.push(args.map(String).join(' ')); return logger; },
    info() { return logger; },
    debug() { return logger; },
  };
  return logger as unknown as vega.LoggerInterface;
}

/** Vega-Lite's warnings about a spec (none for the study's figures: a test holds them to that). */
export function specWarnings(spec: TopLevelSpec): string[] {
  const warnings: string[] = [];
  compile(spec, { logger: collectingLogger(warnings) });
  return warnings;
}

/** The SVG document of a spec (a figure file's whole content). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  textMetrics.canvas(false);
  vega.resetSVGDefIds();
  const warnings: string[] = [];
  const view = new vega.View(vega.parse(compile(spec, { logger: collectingLogger(warnings) }).spec), { renderer: 'none', logger: collectingLogger(warnings) });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}
