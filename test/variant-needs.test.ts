// What each variant bit needs (model/firmware-facts.ts VARIANT_NEEDS) is what model.elf does: with
// everything it needs the bit changes the run, and with any one need left out the prefill and decode
// windows are, clock for clock, those without the bit (before the first window main() asks whether
// the bit's flow fits, which costs the CPU a few hundred clocks when the bit is set). The predictor's
// transcription (model/predict/model-program.ts) leaves such a bit out too. The runs keep TOKENS set
// unless it is the need left out: SEQUENCER without it stops on a TPU error. docs/model-format.md's
// table quotes the same table.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { VARIANT, type ModelDims } from '../model/format.ts';
import { bitNames, VARIANT_NEEDS, withNeeds, type VariantBitName } from '../model/firmware-facts.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runOnEmulator } from '../model/run.ts';
import { predictModelRun } from '../model/predict/model-program.ts';
import { SEQUENCER_SET } from '../study/bench.ts';

// Small enough to be quick, large enough that every bit's shapes fit (prompt 9 rows, 2 decode steps).
const DIMS: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 };
const MODEL = randomModel(DIMS, 1);
const PROMPT = randomPrompt(DIMS, 9, 1);

/** The board: SEQUENCER's runs on the sequencer what-if, where it can act. */
function boardFor(sequencer: boolean) {
  const config = defaultConfig();
  if (sequencer) { config.tpu.sequencer = SEQUENCER_SET.sequencer; config.tpu.seqListKiB = SEQUENCER_SET.seqListKiB; }
  return config;
}

/** The prefill and decode windows' clocks of model.elf with `variant`. */
function clocks(variant: number, sequencer: boolean): number[] {
  const run = runOnEmulator(MODEL, { prompt: PROMPT, decodeSteps: 2, variant }, { config: boardFor(sequencer) });
  expect(run.status, `variant ${variant}: STATUS`).toBe(1);
  return run.windows.map((w) => w.cycles);
}

describe('what each variant bit needs', () => {
  it('bitNames lists a mask in words', () => {
    expect(bitNames(VARIANT.PANEL)).toBe('PANEL');
    expect(bitNames(VARIANT.TOKENS | VARIANT.PANEL | VARIANT.STREAM)).toBe('TOKENS, PANEL and STREAM');
  });

  for (const [name, needs] of Object.entries(VARIANT_NEEDS) as [VariantBitName, number][]) {
    it(`${name} acts with ${bitNames(needs)}, and without any one of them not at all`, () => {
      const bit = VARIANT[name], all = withNeeds(name) | VARIANT.TOKENS, seq = name === 'SEQUENCER';
      expect(clocks(all, seq), `${name} with all it needs changes the run`).not.toEqual(clocks(all & ~bit, seq));
      for (let need = 1; need <= needs; need <<= 1) {
        if (!(needs & need)) continue;
        const without = all & ~need;
        expect(clocks(without, seq), `${name} without ${bitNames(need)}`).toEqual(clocks(without & ~bit, seq));
        const predicted = (v: number) => predictModelRun(DIMS, { prompt: PROMPT, decodeSteps: 2, variant: v }, boardFor(seq));
        expect(predicted(without), `the predictor: ${name} without ${bitNames(need)}`).not.toBeNull();
        expect(predicted(without), `the predictor: ${name} without ${bitNames(need)}`).toEqual(predicted(without & ~bit));
      }
    });
  }
});
