// Which jobs the write-up's board's transformer firmware takes, by sizes only:
// the checks of load_header in firmware-c/seed-model/model.c (its resident
// plan: 16 banks of 4 KB, activations in one bank, a layer's keys in two, one
// head's scores in one, the FFN's hidden rows in four; past it, a prefill
// without decode steps streams in chunks (model/seed-analytic.ts
// streamedPrefill); the second weight panel in 2 KB), so a sweep or a grid can
// say why a shape does not run before it builds a model.
// test/seed-fit.test.ts holds it to the firmware at the edges.

import type { ModelDims } from './format.ts';
import { streamedPrefill } from './seed-analytic.ts';

/** The firmware's plan (model.c BANK, PANEL1_MAX, MAX_LAYERS, MAX_PROMPT, MAX_VOCAB) and the one sequence it decodes. */
export const SEED_MODEL_LIMITS = { bank: 4096, panel1: 2048, maxLayers: 16, maxPrompt: 256, maxVocab: 64, maxBatch: 1 } as const;

const ceil8 = (n: number) => (n + 7) & ~7;

/**
 * Why the seed board's firmware refuses a job of these sizes (its
 * STATUS_BAD_HEADER), in one line; null when it takes it. The dimensions are
 * already well formed (model/format.ts checkDims).
 */
export function seedModelMisfit(dims: ModelDims, promptLength: number, decodeSteps: number, batch = 1): string | null {
  const L = SEED_MODEL_LIMITS, { d, dFF, layers, vocab, maxSeq } = dims;
  const rp = ceil8(promptLength), tp = ceil8(maxSeq);
  if (batch > L.maxBatch) return `its firmware decodes one sequence (batch ${L.maxBatch}), not a batch of ${batch}`;
  if (layers > L.maxLayers) return `its firmware holds at most ${L.maxLayers} layers, not ${layers}`;
  if (promptLength > L.maxPrompt) return `its firmware takes a prompt of at most ${L.maxPrompt} tokens, not ${promptLength}`;
  if (promptLength + decodeSteps > maxSeq) return 'prompt_len + decode_steps exceeds max_seq';
  if (vocab > L.maxVocab) return `its firmware takes a vocabulary of at most ${L.maxVocab}, not ${vocab}`;
  const resident: [number, number, string][] = [
    [(rp * d) / 2, L.bank, `the prompt's activations (${rp} rows of d = ${d} int4)`],
    [(maxSeq * d) / 2, 2 * L.bank, `a layer's keys (max_seq ${maxSeq} rows of d = ${d} int4)`],
    [(rp * tp) / 2, L.bank, `one head's scores (${rp} rows of ${tp} keys, int4)`],
    [(rp * dFF) / 2, 4 * L.bank, `the FFN's hidden rows (${rp} rows of d_ff = ${dFF} int4)`],
  ];
  const over = resident.find(([bytes, limit]) => bytes > limit);
  if (over && !streamedPrefill(dims, promptLength, decodeSteps)) {
    const why = `${over[2]}: ${over[0]} bytes, more than the ${over[1]} its scratchpad plan gives them`;
    return decodeSteps ? `${why} (past that plan only a prefill without decode steps streams)` : `${why}, and its streamed prefill's chunks do not fit either`;
  }
  const room: [number, number, string][] = [
    [d * 4, L.panel1, `a weight panel of K = d = ${d} rows`],
    [dFF * 4, L.panel1, `a weight panel of K = d_ff = ${dFF} rows`],
    [(vocab * d) / 2, L.bank, `the transposed output head (${vocab} rows of d = ${d} int4)`],
  ];
  for (const [bytes, limit, what] of room) {
    if (bytes > limit) return `${what}: ${bytes} bytes, more than the ${limit} its scratchpad plan gives them`;
  }
  return null;
}
