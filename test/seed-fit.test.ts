// model/seed-fit.ts says which jobs the write-up's board's transformer
// firmware (build/fw/seed-model.elf) takes; the firmware's load_header is the
// judge: at each limit of its plan, a job just inside runs and a job just
// beyond ends with STATUS 2 (bad header), exactly where seedModelMisfit says;
// past the resident plan, a prefill without decode steps streams.

import { describe, expect, it } from 'vitest';
import type { Job, ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { seedModelMisfit } from '../model/seed-fit.ts';
import { runOnSeed } from '../model/seed-run.ts';

const small = (o: Partial<ModelDims>): ModelDims => ({ d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32, ...o });

/** [what, dims, prompt, decode steps, batch, the reason's words (null: it runs)] */
const EDGES: [string, ModelDims, number, number, number, RegExp | null][] = [
  ['one head\'s scores fill their bank', small({ maxSeq: 88 }), 80, 8, 1, null],
  ['one head\'s scores overflow their bank', small({ maxSeq: 96 }), 88, 8, 1, /one head's scores \(88 rows of 96 keys.*only a prefill without decode steps streams/],
  ['the same prompt without decode steps streams', small({ maxSeq: 96 }), 96, 0, 1, null],
  ['a layer\'s keys fill their two banks', small({ d: 128, dFF: 128, heads: 4, maxSeq: 128 }), 8, 2, 1, null],
  ['a layer\'s keys overflow their two banks', small({ d: 128, dFF: 128, heads: 4, maxSeq: 136 }), 8, 2, 1, /a layer's keys \(max_seq 136/],
  ['the prompt\'s rows fill a bank', small({ d: 128, dFF: 128, heads: 4, maxSeq: 72 }), 64, 8, 1, null],
  ['the prompt\'s rows overflow a bank', small({ d: 128, dFF: 128, heads: 4, maxSeq: 80 }), 72, 8, 1, /the prompt's activations \(72 rows/],
  ['a streamed prompt fills its four banks', small({ d: 256, heads: 8, maxSeq: 128 }), 128, 0, 1, null],
  ['a streamed prompt overflows them', small({ d: 256, heads: 8, maxSeq: 136 }), 136, 0, 1, /and its streamed prefill's chunks do not fit either/],
  ['a d_ff panel fills the second panel buffer', small({ dFF: 512 }), 8, 0, 1, null],
  ['a d_ff panel overflows it', small({ dFF: 520 }), 8, 0, 1, /a weight panel of K = d_ff = 520/],
  ['the largest vocabulary', small({ vocab: 64 }), 8, 0, 1, null],
  ['a vocabulary beyond it', small({ vocab: 72 }), 8, 0, 1, /vocabulary of at most 64/],
  ['a prompt beyond 256 tokens', small({ maxSeq: 264 }), 257, 0, 1, /prompt of at most 256/],
  ['two sequences', small({}), 8, 2, 2, /one sequence \(batch 1\)/],
];

function runs(dims: ModelDims, P: number, D: number, B: number): boolean {
  const prompts = Array.from({ length: B }, (_, s) => randomPrompt(dims, P, 1 + s));
  const job: Job = { prompt: prompts[0], decodeSteps: D, variant: 7, stopToken: 255, ...(B > 1 ? { prompts } : {}) };
  try {
    runOnSeed(randomModel(dims, 1), job);
    return true;
  } catch (e) {
    expect((e as Error).message).toMatch(/STATUS 2 \(bad header\)/);
    return false;
  }
}

describe('seedModelMisfit agrees with the firmware at every limit of its plan', () => {
  it.each(EDGES)('%s', (_what, dims, P, D, B, reason) => {
    const why = seedModelMisfit(dims, P, D, B);
    if (reason) expect(why).toMatch(reason); else expect(why).toBeNull();
    expect(runs(dims, P, D, B)).toBe(reason === null);
  });
});
