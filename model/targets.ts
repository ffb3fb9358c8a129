// Which firmware runs the transformer on which board: one record per board
// that has a build of it, so the demo, eval and the playground name a board
// and read what to run and how to say it, with no branch on a board's name.
// Data only (the playground imports it); the runs themselves are
// model/run.ts's (picotpu) and model/seed-run.ts's (the write-up's board),
// chosen by model/target-run.ts.

import { SEED_VARIANT, seedVariantName, VARIANT_ALL, variantName, type ModelDims } from './format.ts';
import { seedModelMisfit } from './seed-fit.ts';

export interface ModelTarget {
  /** The board's name in boards/registry.ts. */
  board: string;
  /** How reports name the board after the firmware ('' for the default board). */
  boardLabel: string;
  /** The firmware build that runs a model blob on this board. */
  firmware: string;
  /** The name of a VARIANT value on this firmware. */
  variantName: (variant: number) => string;
  /** What a run's clocks span on this board. */
  runSpan: string;
  /** What the whole-run report is on this board. */
  wholeRun: string;
  /** Every VARIANT bit this firmware acts on (a variant with another bit is not one of its builds). */
  variantBits: number;
  /** Why the firmware refuses a job of these sizes beyond the blob's fit in the SRAM, or null; undefined where the blob's fit is all. */
  jobMisfit?: (dims: ModelDims, promptLength: number, decodeSteps: number, batch: number) => string | null;
}

export const MODEL_TARGETS: readonly ModelTarget[] = [
  {
    board: 'picotpu', boardLabel: '', firmware: 'build/fw/model.elf', variantName,
    runSpan: 'reset to EXIT', wholeRun: 'prefill + decode (the sum of the PERF_CTRL windows)', variantBits: VARIANT_ALL,
  },
  {
    board: 'transformer-tpu-int4', boardLabel: ", the write-up's board (transformer-tpu-int4)", firmware: 'build/fw/seed-model.elf',
    variantName: seedVariantName,
    runSpan: 'run pulse to DONE', wholeRun: "the board's ten counters, run pulse to DONE (prefill: as they stood at prefill_done())",
    variantBits: Object.values(SEED_VARIANT).reduce((a, b) => a | b, 0), jobMisfit: seedModelMisfit,
  },
];

/** The default board's target. */
export const DEFAULT_TARGET = MODEL_TARGETS[0];

/** The target of the board called `board` (its registry name), or undefined when no firmware runs the model there. */
export const modelTargetOf = (board: string): ModelTarget | undefined => MODEL_TARGETS.find((t) => t.board === board);
