// `picotpu sweep <experiment>|all`: plan, run (resumably, on all cores),
// print each experiment's table, render its figures to SVG, and rebuild
// docs/scaling.md from every experiment whose results are complete — so the
// document's numbers are always the ones the sweep printed.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectories } from '../../emu/observe/output-file.ts';
import { fingerprint, readRecords, sweep, type SweepProgress } from './engine.ts';
import { EXPERIMENTS, findExperiment, type Experiment, type Report, type Scale } from './experiments.ts';

export class SweepUsageError extends Error {}

export interface SweepCommandOptions {
  experiment: string;
  /** Worker threads (default: all cores). */
  jobs?: number;
  fresh?: boolean;
  /** The small instances the tests use (fast; not what docs/scaling.md shows). */
  scale?: Scale;
  /** Where the JSON-lines results go (default build/sweep). */
  results: string;
  /** Where scaling.md and figures/ go (default docs). */
  docs: string;
  onProgress?: (experiment: string, p: SweepProgress) => void;
  /** Printed output, one experiment at a time. */
  print: (text: string) => void;
  /** Damaged lines of a results file, one line per file (engine.ts readRecords). */
  warn?: (line: string) => void;
}

export const EXPERIMENT_NAMES = EXPERIMENTS.map((e) => e.name);

const resultsFile = (o: SweepCommandOptions, e: Experiment) => join(o.results, `${e.name}${o.scale === 'small' ? '.small' : ''}.jsonl`);

/** Runs the chosen experiments; returns their reports. */
export async function runSweep(o: SweepCommandOptions): Promise<Report[]> {
  const chosen = o.experiment === 'all' ? [...EXPERIMENTS] : [findExperiment(o.experiment)].filter((e): e is Experiment => !!e);
  if (!chosen.length) throw new SweepUsageError(`unknown experiment "${o.experiment}": one of ${EXPERIMENT_NAMES.join(', ')}, or all`);
  const scale = o.scale ?? 'full';
  const reports: Report[] = [];
  for (const e of chosen) {
    const records = await sweep(e.plan(scale), {
      file: resultsFile(o, e), jobs: o.jobs, fresh: o.fresh, onProgress: (p) => o.onProgress?.(e.name, p), warn: o.warn,
    });
    const report = e.report(records, scale);
    o.print(`== ${e.name}: ${e.title} ==\n${report.text}\n`);
    reports.push(report);
  }
  await writeDocs(o, scale);
  return reports;
}

const INTRO = `# Scaling on one device

Each section is one experiment of \`picotpu sweep\`, regenerated with
\`picotpu sweep all\` (results in build/sweep/*.jsonl; an interrupted sweep
resumes). Every figure draws a series in one colour: the analytic model's
prediction (model/analytic.ts) as a line and the emulator's measurement as
points of the same colour — or, where the x axis is a list of variants or
platform changes (the ladder, the what-ifs), the measurement as a bar and the
prediction as a mark across it. The figures are Vega-Lite charts
(study/sweep/charts.ts) rendered to SVG by \`picotpu sweep\`; each mark's
values are in its description (aria-label) in the SVG. Three kinds of
prediction appear:

- **busy clocks** of the MXU, VPU and DMA, derived from the timing rules of
  docs/hardware.md and the kernels' tiling — a forecast of the measurement
  (each table ends with the largest error over its runs);
- the **bound**: the busiest unit of each kernel call, summed — a roof on
  speed, not a forecast. The gap between bound and measurement is the
  PicoRV32's time to issue commands plus pipeline bubbles; where it is large
  (decode) the study says why. It is a solid line (a bar-wide mark);
- the **predicted run**: the schedule model's forecast of the run clocks
  (docs/study.md §8), a dashed line (a hollow diamond).

Model runs use random int4 weights (they do not change clocks) and the
benchmark model (d = 128, d_ff = 512, 4 heads, 4 layers, vocabulary 16)
unless a section says otherwise. Clocks are at 12 MHz.
`;

/** docs/scaling.md and docs/figures/*.svg from every experiment with complete results. */
export async function writeDocs(o: Pick<SweepCommandOptions, 'results' | 'docs' | 'scale'>, scale: Scale): Promise<void> {
  // vega loads only here (its 1.5 MB would slow every command's start).
  const { renderSvg } = await import('./render.ts');
  const fp = fingerprint();
  const figures = join(o.docs, 'figures');
  makeDirectories(figures);
  const parts = [`${INTRO}\nThese results: firmware fingerprint \`${fp}\` (build/fw/model.elf and mmbench.elf, and their -spad32, -mxu16 and -rv32im builds, and model_tp.elf; \`picotpu sweep\` reruns what another build made).\n`];
  for (const e of EXPERIMENTS) {
    const plan = e.plan(scale);
    const have = readRecords(resultsFile({ ...o, scale } as SweepCommandOptions, e), fp);
    if (!plan.every((p) => have.has(p.key))) {
      parts.push(`## ${e.title}\n\nNot run yet with this firmware: \`picotpu sweep ${e.name}\`.\n`);
      continue;
    }
    const report = e.report(plan.map((p) => have.get(p.key)!), scale);
    for (const f of report.figures) writeFileSync(join(figures, f.file), await renderSvg(f.spec));
    parts.push(report.markdown);
  }
  writeFileSync(join(o.docs, 'scaling.md'), parts.join('\n'));
}
