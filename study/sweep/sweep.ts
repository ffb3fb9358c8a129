// `picotpu sweep <experiment>|all`: plan, run (resumably, on all cores),
// print each experiment's table, render its figures to SVG, and rebuild
// docs/scaling.md from every experiment whose results are complete — so the
// document's numbers are always the ones the sweep printed.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectories } from '../../emu/observe/output-file.ts';
import { SEED_MODEL_BOARD } from '../../model/seed-job.ts';
import { DEFAULT_TARGET } from '../../model/targets.ts';
import { fingerprint, readRecords, sweep, type SweepProgress } from './engine.ts';
import { EXPERIMENTS, type Experiment, type Report, type Scale } from './experiments.ts';
import { SWEEP_ELFS } from './runs.ts';
import { SEED_EXPERIMENTS } from './seed-experiments.ts';
import { SEED_SWEEP_ELFS } from './seed-points.ts';

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
  /** The board swept, by its registry name (default picotpu). */
  board?: string;
}

export const EXPERIMENT_NAMES = EXPERIMENTS.map((e) => e.name);

/** What a board's sweep runs and where it writes: its experiments, its document, the firmware its results' fingerprint covers. */
interface BoardSweep {
  experiments: readonly Experiment[];
  /** The document under --docs (its figures go to figures/ beside it). */
  doc: string;
  intro: string;
  /** What the fingerprint line says it covers. */
  firmware: string;
  elfs: readonly string[];
  /** Prefix of the results files (so two boards' results never mix). */
  prefix: string;
  /** The --board option that names the board in the document's commands ('' for the default board). */
  option: string;
}

const INTRO = `# Scaling on one device

Each section is one experiment of \`picotpu sweep\`, regenerated with
\`picotpu sweep all\` (results in build/sweep/*.jsonl; an interrupted sweep
resumes). Every figure draws a series in one colour: the analytic model's
prediction (model/predict/analytic.ts) as a line and the emulator's measurement as
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

const SEED_INTRO = `# Scaling on the write-up's board (transformer-tpu-int4)

The experiments of [scaling.md](scaling.md) on the write-up's own board
(\`--board seed\`, docs/seed-board.md) with our transformer firmware for it
(firmware-c/seed-model/model.c), regenerated with \`picotpu sweep all --board seed\`
(results in build/sweep/seed-*.jsonl). The figures follow scaling.md's
conventions: measured as points (bars), predictions as lines (marks across the
bars). The predictions are:

- **busy clocks** of the MXU, VPU and DMA per window (prefill up to the
  firmware's prefill_done(), decode the rest), from the seed's timing rules
  and the firmware's loops (model/seed-analytic.ts) — exact;
- the **bound**: over each forward pass, its busiest unit, summed — a roof on
  speed;
- the **predicted run**: the run-clock model of this board
  (model/seed-schedule.ts: the firmware's commands and waits replayed against
  the seed's queues, with the CPU's paths timed over its AXI bus), a dashed
  line (a hollow diamond); "-" where it has no calibrated path.

This board's firmware decodes one sequence and its scratchpad plan (16 banks
of 4 KB) bounds the shapes: the write-up's model (d = 128, d_ff = 512, 4
heads, 4 layers, vocabulary 16, max_seq 128) where it fits, smaller shapes
where it does not, and an experiment the board cannot run says why. Clocks
are the board's own (its run counter, run pulse to DONE).
`;

const BOARD_SWEEPS: Readonly<Record<string, BoardSweep>> = {
  [DEFAULT_TARGET.board]: {
    experiments: EXPERIMENTS, doc: 'scaling.md', intro: INTRO, elfs: SWEEP_ELFS, prefix: '', option: '',
    firmware: 'build/fw/model.elf and mmbench.elf, and their -spad32, -mxu16 and -rv32im builds, and model_tp.elf',
  },
  [SEED_MODEL_BOARD]: {
    experiments: SEED_EXPERIMENTS, doc: 'scaling-seed.md', intro: SEED_INTRO, elfs: SEED_SWEEP_ELFS, prefix: 'seed-', option: 'seed',
    firmware: 'build/fw/seed-model.elf',
  },
};

/** The boards a sweep runs on (registry names). */
export const SWEEP_BOARDS = Object.keys(BOARD_SWEEPS);

function boardSweep(board = DEFAULT_TARGET.board): BoardSweep {
  const b = BOARD_SWEEPS[board];
  if (!b) throw new SweepUsageError(`no sweep runs on the ${board} board (sweeps run on ${SWEEP_BOARDS.join(', ')})`);
  return b;
}

/** The sweep's document for a board (docs/scaling.md for picotpu). */
export const sweepDocOf = (board?: string): string => boardSweep(board).doc;

const resultsFile = (o: Pick<SweepCommandOptions, 'results' | 'scale'>, b: BoardSweep, e: Experiment) => join(o.results, `${b.prefix}${e.name}${o.scale === 'small' ? '.small' : ''}.jsonl`);

/** Runs the chosen experiments; returns their reports. */
export async function runSweep(o: SweepCommandOptions): Promise<Report[]> {
  const b = boardSweep(o.board);
  const chosen = o.experiment === 'all' ? [...b.experiments] : b.experiments.filter((e) => e.name === o.experiment);
  if (!chosen.length) throw new SweepUsageError(`unknown experiment "${o.experiment}": one of ${EXPERIMENT_NAMES.join(', ')}, or all`);
  if (o.experiment !== 'all' && chosen[0].unavailable) throw new SweepUsageError(`${o.experiment} does not run on the ${o.board} board: ${chosen[0].unavailable}`);
  const scale = o.scale ?? 'full';
  const reports: Report[] = [];
  for (const e of chosen) {
    if (e.unavailable) {
      o.print(`== ${e.name}: ${e.title} ==\nnot run on this board: ${e.unavailable}\n`);
      continue;
    }
    const records = await sweep(e.plan(scale), {
      file: resultsFile(o, b, e), jobs: o.jobs, fresh: o.fresh, onProgress: (p) => o.onProgress?.(e.name, p), warn: o.warn, elfs: b.elfs,
    });
    const report = e.report(records, scale);
    o.print(`== ${e.name}: ${e.title} ==\n${report.text}\n`);
    reports.push(report);
  }
  await writeDocs(o, scale);
  return reports;
}


/** The fingerprint line of a board's sweep document (the staleness test reads it back). */
export const fingerprintLine = (fp: string, firmware: string, board: string): string =>
  `These results: firmware fingerprint \`${fp}\` (${firmware}; \`picotpu sweep${board ? ` --board ${board}` : ''}\` reruns what another build made).`;

/** A board's sweep document (docs/scaling.md for picotpu) and its figures from every experiment with complete results. */
export async function writeDocs(o: Pick<SweepCommandOptions, 'results' | 'docs' | 'scale' | 'board'>, scale: Scale): Promise<void> {
  // vega loads only here (its 1.5 MB would slow every command's start).
  const { renderSvg } = await import('./render.ts');
  const b = boardSweep(o.board);
  const fp = fingerprint(b.elfs);
  const figures = join(o.docs, 'figures');
  makeDirectories(figures);
  const parts = [`${b.intro}\n${fingerprintLine(fp, b.firmware, b.option)}\n`];
  for (const e of b.experiments) {
    if (e.unavailable) {
      parts.push(e.report([], scale).markdown);
      continue;
    }
    const plan = e.plan(scale);
    const have = readRecords(resultsFile({ ...o, scale }, b, e), fp);
    if (!plan.every((p) => have.has(p.key))) {
      parts.push(`## ${e.title}\n\nNot run yet with this firmware: \`picotpu sweep ${e.name}${b.option ? ` --board ${b.option}` : ''}\`.\n`);
      continue;
    }
    const report = e.report(plan.map((p) => have.get(p.key)!), scale);
    for (const f of report.figures) writeFileSync(join(figures, f.file), await renderSvg(f.spec));
    parts.push(report.markdown);
  }
  writeFileSync(join(o.docs, b.doc), parts.join('\n'));
}
