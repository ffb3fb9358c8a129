// docs/study.md's tables come from the committed bench results
// (docs/data/bench-BOARD.json, `npm run bench:docs`): each file was made by
// the firmware build there is now (its fingerprint), a rerun of one row on
// each board gives its counters, and study.md's sections are what the files
// generate (`npm run gen:docs`).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { DEFAULT_TARGET, MODEL_TARGETS } from '../model/targets.ts';
import { regenerate } from '../scripts/gen-docs.ts';
import { STUDY_GENERATORS } from '../scripts/gen-docs-study.ts';
import { runBench } from '../study/bench.ts';
import { benchDataPath, benchFingerprint, readBenchDocument } from '../study/bench-docs.ts';
import { runSeedBench } from '../study/seed-bench.ts';
import type { ModelDims } from '../model/format.ts';
import { randomModel } from '../model/random.ts';
import { predictSeedBusy } from '../model/seed-analytic.ts';
import { predictSeedRun } from '../model/seed-schedule.ts';
import { RANDOM_SEED } from '../study/bench.ts';

const root = join(import.meta.dirname, '..');
const FIX = 'npm run bench:docs && npm run gen:docs';

interface SeedRow {
  name: string; variant: number; dims: ModelDims; job: { promptLength: number; decodeSteps: number };
  analytic: { mxu: number; vpu: number; dma: number }; predicted: { runClocks: number } | null;
}
interface Doc { fingerprint: string; board: string; experiments: { name: string; counters: Record<string, unknown> }[] }

describe('the bench results docs/study.md is generated from', () => {
  it.each(MODEL_TARGETS.map((t) => [t.board, t] as const))('%s: made by the current firmware build', (_board, target) => {
    const doc = readBenchDocument(target) as unknown as Doc | null;
    expect(doc, `${benchDataPath(target)} is missing (${FIX})`).not.toBeNull();
    expect(doc!.board).toBe(target.board);
    expect(doc!.fingerprint, `${benchDataPath(target)} was made by another firmware build (${FIX})`).toBe(benchFingerprint(target));
  });

  it.each(MODEL_TARGETS.map((t) => [t.board, t] as const))('%s: "prefill, base" run now gives the committed counters', (_board, target) => {
    const doc = readBenchDocument(target) as unknown as Doc;
    const committed = doc.experiments.find((e) => e.name === 'prefill, base')!.counters;
    const now = target === DEFAULT_TARGET
      ? runBench({ only: ['prefill, base'] }).experiments[0].counters
      : runSeedBench(target, defaultConfig().clockHz, { only: ['prefill, base'] }).experiments[0].counters;
    expect(now, `the emulator's clocks moved since ${benchDataPath(target)} was made (${FIX})`).toEqual(committed);
  }, 60_000);

  it('the write-up\'s board: every row\'s analytic busy and predicted run clocks are what the models give now', () => {
    const target = MODEL_TARGETS.find((t) => t !== DEFAULT_TARGET)!;
    const doc = readBenchDocument(target) as unknown as { experiments: SeedRow[] };
    for (const e of doc.experiments) {
      const bounds = randomModel(e.dims, RANDOM_SEED).layers;
      const generated = e.job.decodeSteps + 1;
      const busy = predictSeedBusy(e.dims, bounds, e.job.promptLength, generated, e.variant);
      expect({ mxu: busy.mxu, vpu: busy.vpu, dma: busy.dma }, `${e.name} (${FIX})`).toEqual(e.analytic);
      const p = predictSeedRun(e.dims, bounds, e.job.promptLength, generated, e.variant);
      expect(p ? Math.round(p.runClocks) : null, `${e.name} (${FIX})`).toBe(e.predicted?.runClocks ?? null);
    }
  });

  it('docs/study.md\'s sections are what the results generate', () => {
    const text = readFileSync(join(root, 'docs/study.md'), 'utf8');
    expect(regenerate('docs/study.md', text, new Set(Object.keys(STUDY_GENERATORS))), FIX).toEqual(text);
  });
});
