// The model blob (docs/model-format.md): one table of header fields and
// layer-record fields, from which the host lays out the SRAM, writes blobs,
// and scripts/gen-regs.ts generates firmware-c/model/model_format.h. The
// firmware reads dimensions, the job and every buffer's offset from the
// header at SRAM offset 0, so one ELF serves every configuration.

import { SRAM_SIZE } from '../periph/sram.ts';

export const MODEL_MAGIC = 0x314d5450; // "PTM1"
export const MODEL_VERSION = 1;
export const HEADER_BYTES = 128;
export const LAYER_RECORD_BYTES = 64;
export const NO_STOP_TOKEN = 0xffffffff;

/** Kernel variant bits (header VARIANT); what a bit needs besides itself to act is model/firmware-facts.ts VARIANT_NEEDS. */
export const VARIANT = {
  DOUBLE_BUFFER: 1, // B tiles and C tiles double-buffered: loads overlap the MXU
  FUSED: 2, // epilogues (ReLU, residual add + hardtanh, mask + ReLU) on output tiles in the scratchpad
  FLASH: 4, // FlashAttention: P never leaves the scratchpad, P·V accumulated in int32
  TOKENS: 8, // units synchronise through wait tokens; the CPU never polls inside a kernel
  LEAN: 16, // matmul staging words computed once per call, ARG registers rewritten only where they change
  PANEL: 32, // decode (one row): weight panels of several tiles per DMA command, C kept in the scratchpad and stored once, epilogues fused on the row
  HEADS: 64, // decode: one-query attention, every head's keys in one load, heads pipelined through MXU and VPU, one output store
  STREAM: 128, // prefill: weight matmuls stream B chunks over every row group, each chunk's C columns stored behind the next chunk's load, epilogues fused
  BLOCK_ATTN: 256, // prefill: attention over the whole prompt block, Q, K, V in three loads, heads pipelined, one output store
  CHAIN: 512, // decode: the next weight matmul's first chunk loads ahead of this one's C store
  FFN_ON_CHIP: 1024, // prefill: W1's ReLU'd output stays in the scratchpad as W2's A (never stored), W1's A region is W2's residual
  SEQUENCER: 4096, // decode, on the sequencer what-if (sequencer = 1, seqListKiB > 0): the first step's weight matmuls are recorded into the list memory, every later step replays them by RUN commands
  LONG_CONTEXT: 2048, // prefill of more rows than one 64-row block: the stream and FFN-on-chip matmuls by 64-row blocks, attention over query blocks with K and V whole in eight regions
} as const;
/** The fastest variant on the board as built (docs/study.md §7): every bit but SEQUENCER, which needs the sequencer what-if. */
export const BEST_VARIANT = 4095;

/** Each VARIANT bit's name in reports, in the ladder's order. */
const VARIANT_NAMES: readonly [number, string][] = [
  [VARIANT.DOUBLE_BUFFER, 'double-buffered'], [VARIANT.FUSED, 'fused'], [VARIANT.FLASH, 'FlashAttention'],
  [VARIANT.TOKENS, 'wait tokens'], [VARIANT.LEAN, 'lean'], [VARIANT.PANEL, 'panels'], [VARIANT.HEADS, 'pipelined heads'],
  [VARIANT.STREAM, 'streamed prefill'], [VARIANT.BLOCK_ATTN, 'block attention'], [VARIANT.CHAIN, 'chained weights'],
  [VARIANT.FFN_ON_CHIP, 'FFN on chip'], [VARIANT.LONG_CONTEXT, 'long context'], [VARIANT.SEQUENCER, 'sequencer'],
];

/** "base", "double-buffered+fused", ... for a VARIANT value. */
export function variantName(v: number): string {
  const names = VARIANT_NAMES.filter(([bit]) => v & bit).map(([, name]) => name);
  return names.length ? names.join('+') : 'base';
}

/**
 * The VARIANT bits the seed firmware acts on (it ignores the others): the
 * write-up's ladder base, double-buffered, fused, FlashAttention (the same
 * values as picotpu's DOUBLE_BUFFER, FUSED and FLASH), then ours past it:
 * CHAINED, the decode steps' weights streamed through a ring of panel
 * buffers across matmuls, attention and steps, and PIPELINED, the prefill
 * through the same stream with attention's heads overlapped on the MXU and
 * the VPU (firmware-c/seed-model/chained.c).
 */
export const SEED_VARIANT = { DOUBLE_BUFFER: 1, FUSED: 2, FLASH: 4, CHAINED: 8, PIPELINED: 16 } as const;
/** The write-up's three bits, all on. */
export const SEED_VARIANT_ALL = 7;

/**
 * The ladder on the write-up's board, in order: each rung adds one technique
 * to the one before (the write-up's own three first, then ours past it).
 */
export const SEED_RUNGS: readonly { value: number; name: string }[] = [0, 1, 3, 7, 15, 31].map((value) => ({ value, name: seedVariantName(value) }));
/** The best rung of the ladder (its last). */
export const SEED_BEST_VARIANT = 31;

/** "base", "double-buffered+fused", ... for the seed bits of a VARIANT value. */
export function seedVariantName(v: number): string {
  const names: [number, string][] = [[SEED_VARIANT.DOUBLE_BUFFER, 'double-buffered'], [SEED_VARIANT.FUSED, 'fused'], [SEED_VARIANT.FLASH, 'FlashAttention'],
    [SEED_VARIANT.CHAINED, 'chained weights'], [SEED_VARIANT.PIPELINED, 'pipelined prefill']];
  const on = names.filter(([bit]) => v & bit).map(([, n]) => n);
  return on.length ? on.join('+') : 'base';
}

/** The output head [d, vocab] transposed to [vocab, d]: row j is the weights of logit j. */
export function transposedHead(model: Model): Int8Array {
  const { d, vocab } = model.dims;
  const t = new Int8Array(vocab * d);
  for (let i = 0; i < d; i++) for (let j = 0; j < vocab; j++) t[j * d + i] = model.wOut[i * vocab + j];
  return t;
}

/** Every variant bit set: the largest VARIANT value. */
export const VARIANT_ALL = Object.values(VARIANT).reduce((a, b) => a | b, 0);

export interface HeaderField { name: string; offset: number; doc: string }

/** Header words (u32, little-endian). Offsets of buffers are from the SRAM base. */
export const HEADER_FIELDS: readonly HeaderField[] = [
  { name: 'MAGIC', offset: 0, doc: '0x314D5450 ("PTM1")' },
  { name: 'VERSION', offset: 4, doc: 'format version (1)' },
  { name: 'D', offset: 8, doc: 'model width d (multiple of 8)' },
  { name: 'D_FF', offset: 12, doc: 'FFN width (multiple of 8)' },
  { name: 'HEADS', offset: 16, doc: 'attention heads; d / heads is a multiple of 8' },
  { name: 'LAYERS', offset: 20, doc: 'transformer layers' },
  { name: 'VOCAB', offset: 24, doc: 'vocabulary size (multiple of 8)' },
  { name: 'MAX_SEQ', offset: 28, doc: 'positions in pos_emb and the KV cache' },
  { name: 'PROMPT_LEN', offset: 32, doc: 'job: prompt tokens (≥ 1)' },
  { name: 'DECODE_STEPS', offset: 36, doc: 'job: decode steps after prefill (prompt_len + decode_steps ≤ max_seq)' },
  { name: 'VARIANT', offset: 40, doc: 'job: kernel variant bits (VARIANT_*)' },
  { name: 'STOP_TOKEN', offset: 44, doc: 'job: decoding stops after this token (0xFFFFFFFF: never)' },
  { name: 'TOK_EMB', offset: 48, doc: 'int4 [vocab, d] token embedding' },
  { name: 'POS_EMB', offset: 52, doc: 'int4 [max_seq, d] positional embedding' },
  { name: 'W_OUT', offset: 56, doc: 'int4 [d, vocab] output head (int32 logits)' },
  { name: 'LAYER_TABLE', offset: 60, doc: 'layers × 64-byte layer records' },
  { name: 'PROMPT', offset: 64, doc: 'u8 [batch, prompt_len] prompt tokens, sequence after sequence' },
  { name: 'OUT_TOKENS', offset: 68, doc: 'u8 [batch, decode_steps + 1]: written by the firmware' },
  { name: 'LOGITS', offset: 72, doc: 'int32 [batch, decode_steps + 1, vocab]: written by the firmware' },
  { name: 'X', offset: 76, doc: 'int4 [rows, d] activations (rows = max(prompt_len, batch) rounded up to 8)' },
  { name: 'Q', offset: 80, doc: 'int4 [rows, d] queries' },
  { name: 'ATT', offset: 84, doc: 'int4 [rows, d] attention output (heads side by side)' },
  { name: 'TMP', offset: 88, doc: 'int4 [rows, d] matmul output before the residual (unfused kernels)' },
  { name: 'HIDDEN', offset: 92, doc: 'int4 [rows, d_ff] FFN hidden activations' },
  { name: 'SCORES', offset: 96, doc: 'int4 [rows, max_seq rounded up to 8] one head\'s scores P (standard attention)' },
  { name: 'GENERATED', offset: 100, doc: 'written by the firmware: 1 + decode steps run (tokens written to OUT_TOKENS when batch is 1)' },
  { name: 'STATUS', offset: 104, doc: 'written by the firmware: 1 done, 2 bad header, 3 TPU error' },
  { name: 'BLOB_END', offset: 108, doc: 'first byte after every buffer' },
  { name: 'BATCH', offset: 112, doc: 'job: sequences decoded together, 1..64 (0, as buildBlob writes for one sequence, reads as 1)' },
  { name: 'SEQ_GENERATED', offset: 116, doc: 'u32 [batch]: written by the firmware: tokens written per sequence (batch > 1; 0 when batch is 1)' },
  { name: 'W_OUT_T', offset: 120, doc: 'int4 [vocab, d] the output head transposed, for the seed board\'s DOT logits (0 in a picotpu blob, which does not use it)' },
];

/** Layer record words; SHIFTS_* pack four u8 shifts, BOUNDS two u8 hardtanh bounds. */
export const LAYER_FIELDS: readonly HeaderField[] = [
  { name: 'WQ', offset: 0, doc: 'int4 [d, d]' },
  { name: 'WK', offset: 4, doc: 'int4 [d, d]' },
  { name: 'WV', offset: 8, doc: 'int4 [d, d]' },
  { name: 'WO', offset: 12, doc: 'int4 [d, d]' },
  { name: 'W1', offset: 16, doc: 'int4 [d, d_ff]' },
  { name: 'W2', offset: 20, doc: 'int4 [d_ff, d]' },
  { name: 'K_CACHE', offset: 24, doc: 'int4 [max_seq, batch, d] keys of every position (sequences interleaved)' },
  { name: 'V_CACHE', offset: 28, doc: 'int4 [max_seq, batch, d] values of every position (sequences interleaved)' },
  { name: 'SHIFTS_QKVS', offset: 32, doc: 'shift q (7:0), k (15:8), v (23:16), scores (31:24)' },
  { name: 'SHIFTS_OAF', offset: 36, doc: 'shift attention P·V (7:0), Wo (15:8), W1 (23:16), W2 (31:24)' },
  { name: 'BOUNDS', offset: 40, doc: 'hardtanh bound after attention (7:0) and after the FFN (15:8), 1..8' },
];

/** The single-matmul benchmark's header (build/fw/mmbench.elf): C = R(A·B) once, in one PERF_CTRL window. */
export const MATMUL_MAGIC = 0x4d4d5450; // "PTMM"
export const MATMUL_FIELDS: readonly HeaderField[] = [
  { name: 'MAGIC', offset: 0, doc: '0x4D4D5450 ("PTMM")' },
  { name: 'M', offset: 4, doc: 'rows of A and C (≥ 1)' },
  { name: 'K', offset: 8, doc: 'inner dimension (multiple of 8)' },
  { name: 'N', offset: 12, doc: 'columns of B and C (multiple of 8)' },
  { name: 'VARIANT', offset: 16, doc: 'kernel variant bits' },
  { name: 'SHIFT', offset: 20, doc: 'requantization shift of C' },
  { name: 'A', offset: 24, doc: 'int4 [M, K], row stride K/2' },
  { name: 'B', offset: 28, doc: 'int4 [K, N], row stride N/2' },
  { name: 'C', offset: 32, doc: 'int4 [M, N], row stride N/2: written by the firmware' },
  { name: 'STATUS', offset: 36, doc: 'written by the firmware: 1 done, 2 bad header, 3 TPU error' },
];

export interface ModelDims { d: number; dFF: number; heads: number; layers: number; vocab: number; maxSeq: number }

export interface LayerShifts { q: number; k: number; v: number; s: number; o: number; a: number; f1: number; f2: number }

/** Weights hold one int4 value (−8..7) per element, row-major. */
export interface LayerWeights {
  wq: Int8Array; wk: Int8Array; wv: Int8Array; wo: Int8Array; w1: Int8Array; w2: Int8Array;
  shifts: LayerShifts;
  /** hardtanh bounds after the attention and the FFN residual adds (1..8; 8 is no clamp beyond int4). */
  bound1: number; bound2: number;
}

export interface Model { dims: ModelDims; tokEmb: Int8Array; posEmb: Int8Array; wOut: Int8Array; layers: LayerWeights[] }

export interface Job {
  prompt: number[]; decodeSteps: number; variant: number; stopToken?: number;
  /**
   * Batched decode: B = 1..64 prompts of one length, decoded together; when
   * present it replaces `prompt`. A sequence that produces the stop token
   * keeps being computed with the others but records no more tokens; decoding
   * ends when every sequence has stopped (docs/model-format.md §6).
   */
  prompts?: number[][];
}

/** The prompts of a job: one, or the batch. */
export const jobPrompts = (job: Job): number[][] => job.prompts ?? [job.prompt];

export function checkDims(m: ModelDims): void {
  const mult8 = (n: number) => Number.isInteger(n) && n >= 8 && n % 8 === 0;
  if (!mult8(m.d) || !mult8(m.dFF) || !mult8(m.vocab)) throw new Error('d, d_ff and vocab must be multiples of 8');
  if (!(m.heads >= 1 && m.d % m.heads === 0 && mult8(m.d / m.heads))) throw new Error('d / heads must be a multiple of 8');
  if (!(m.layers >= 1 && m.maxSeq >= 1)) throw new Error('layers and max_seq must be ≥ 1');
}

const ceil8 = (n: number) => Math.ceil(n / 8) * 8;
const align64 = (n: number) => Math.ceil(n / 64) * 64;

/** Where everything lives in the SRAM: the header's offsets. */
export interface Layout {
  tokEmb: number; posEmb: number; wOut: number; layerTable: number; prompt: number; outTokens: number; logits: number;
  x: number; q: number; att: number; tmp: number; hidden: number; scores: number; end: number;
  /** Sequences of the job, and the per-sequence GENERATED counts (u32 [batch]; 0, not allocated, for one sequence). */
  batch: number; seqGenerated: number;
  layers: { wq: number; wk: number; wv: number; wo: number; w1: number; w2: number; kCache: number; vCache: number }[];
  /** Rows of the activation buffers, and bytes per scores row. */
  rows: number; scoresStride: number;
}

export function planLayout(dims: ModelDims, job: Job): Layout {
  checkDims(dims);
  const { d, dFF, vocab, maxSeq, layers } = dims;
  let at = HEADER_BYTES;
  const take = (bytes: number) => { const o = at; at = align64(at + bytes); return o; };
  const layerTable = take(layers * LAYER_RECORD_BYTES);
  const tokEmb = take((vocab * d) / 2);
  const posEmb = take((maxSeq * d) / 2);
  const wOut = take((d * vocab) / 2);
  const ls = [];
  for (let l = 0; l < layers; l++) {
    ls.push({
      wq: take((d * d) / 2), wk: take((d * d) / 2), wv: take((d * d) / 2), wo: take((d * d) / 2),
      w1: take((d * dFF) / 2), w2: take((dFF * d) / 2), kCache: 0, vCache: 0,
    });
  }
  const prompts = jobPrompts(job), B = prompts.length, P = prompts[0].length;
  // [max_seq][batch][d/2]: position t of sequence s is row t·B + s (one sequence: plain rows).
  for (const l of ls) { l.kCache = take((B * maxSeq * d) / 2); l.vCache = take((B * maxSeq * d) / 2); }
  const rows = ceil8(Math.max(P, B, 1));
  const scoresStride = ceil8(maxSeq) / 2;
  const prompt = take(B * P);
  const outTokens = take(B * (job.decodeSteps + 1));
  const logits = take(B * (job.decodeSteps + 1) * vocab * 4);
  const seqGenerated = B > 1 ? take(4 * B) : 0;
  const x = take((rows * d) / 2), q = take((rows * d) / 2), att = take((rows * d) / 2), tmp = take((rows * d) / 2);
  const hidden = take((rows * dFF) / 2);
  const scores = take(rows * scoresStride);
  const end = at;
  if (end > SRAM_SIZE) throw new LayoutError(`model and buffers need ${end} bytes of SRAM, more than the board's ${SRAM_SIZE}; ${largestPart(dims, B, rows)}`);
  return { tokEmb, posEmb, wOut, layerTable, prompt, outTokens, logits, x, q, att, tmp, hidden, scores, end, layers: ls, rows, scoresStride, batch: B, seqGenerated };
}

/** The model and its buffers do not fit the SRAM (a model too large for the board, not a defect of picotpu). */
export class LayoutError extends Error {
  override name = 'LayoutError';
}

/** Which part of the SRAM layout is largest, and which dimensions shrink it: the hint of a LayoutError. */
function largestPart(dims: ModelDims, batch: number, rows: number): string {
  const { d, dFF, vocab, maxSeq, layers } = dims;
  const parts: [string, number, string][] = [
    ['the FFN weights (layers·2·d·d_ff int4)', layers * d * dFF, 'd_ff or d'],
    ['the attention weights (layers·4·d² int4)', layers * 2 * d * d, 'd'],
    ['the embeddings and output head ((2·vocab + max_seq)·d int4)', ((2 * vocab + maxSeq) * d) / 2, 'd, vocab or max_seq'],
    ['the KV caches (layers·2·batch·max_seq·d int4)', layers * batch * maxSeq * d, 'max_seq or d'],
    ['the activation buffers (rows·(4·d + d_ff) int4)', (rows * (4 * d + dFF)) / 2, 'd_ff or d'],
  ];
  const [what, bytes, shrink] = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return `${what} take ${bytes} bytes with d ${d}, d_ff ${dFF}, layers ${layers}, max_seq ${maxSeq}: shrink ${shrink}`;
}

/** The firmware's largest batch (model.c MAX_BATCH). */
export const MAX_BATCH = 64;

export function checkJob(dims: ModelDims, job: Job): void {
  const prompts = jobPrompts(job);
  if (prompts.length < 1 || prompts.length > MAX_BATCH) throw new Error(`a batch holds 1 to ${MAX_BATCH} sequences, not ${prompts.length}`);
  const P = prompts[0].length;
  for (const prompt of prompts) {
    if (prompt.length < 1) throw new Error('the prompt needs at least one token');
    if (prompt.length !== P) throw new Error('the prompts of a batch must have the same length');
    for (const t of prompt) if (!(Number.isInteger(t) && t >= 0 && t < dims.vocab)) throw new Error(`token ${t} is not in the vocabulary`);
  }
  if (P + job.decodeSteps > dims.maxSeq) throw new Error('prompt_len + decode_steps exceeds max_seq');
}

/** Packs int4 values two per byte, element 2i in the low nibble. */
export function packInt4(values: Int8Array, out: Uint8Array, at: number): void {
  const n = values.length, pairs = n >> 1;
  for (let j = 0, i = 0; j < pairs; j++, i += 2) out[at + j] = (values[i] & 15) | ((values[i + 1] & 15) << 4);
  if (n & 1) out[at + pairs] = values[n - 1] & 15;
}

/**
 * The `count` int4 values packed from byte `at` (element 2i in the low nibble). A byte at a
 * time, each nibble sign-extended by shifts: a model's million weights unpack when a command
 * starts, before the JIT has compiled anything, so the loop does the least per value.
 */
export function unpackInt4(bytes: Uint8Array, at: number, count: number): Int8Array {
  const v = new Int8Array(count);
  const pairs = count >> 1;
  for (let j = 0, i = 0; j < pairs; j++, i += 2) {
    const b = bytes[at + j];
    v[i] = (b << 28) >> 28;
    v[i + 1] = (b << 24) >> 28;
  }
  if (count & 1) v[count - 1] = (bytes[at + pairs] << 28) >> 28;
  return v;
}

export const headerOffset = (name: string) => HEADER_FIELDS.find((f) => f.name === name)!.offset;
export const layerOffset = (name: string) => LAYER_FIELDS.find((f) => f.name === name)!.offset;

/**
 * The packed bytes of tensors read from a blob and not yet read by anyone (readModel),
 * by the object holding them and the tensor's name: buildBlob copies these bytes as they
 * are instead of packing the values again, the unpack on the first read forgets them
 * (the values may change after that). A demo reads no tensor: its model loads in a copy.
 */
const packedTensors = new WeakMap<object, Map<string, Uint8Array>>();

/** Defines holder[name] as the `count` int4 values packed in `packed`, unpacked on its first read. */
function lazyTensor(holder: object, name: string, packed: Uint8Array, count: number): void {
  let sources = packedTensors.get(holder);
  if (!sources) packedTensors.set(holder, sources = new Map());
  sources.set(name, packed);
  let values: Int8Array | null = null;
  Object.defineProperty(holder, name, {
    enumerable: true,
    configurable: true,
    get(): Int8Array {
      if (values === null) {
        values = unpackInt4(packed, 0, count);
        sources.delete(name);
      }
      return values;
    },
    set(v: Int8Array) {
      values = v;
      sources.delete(name);
    },
  });
}

/** Packs holder[name] (n values) at out[at]: its bytes from the blob it was read from while no one has read it. */
function packTensor(holder: object, name: string, n: number, what: string, out: Uint8Array, at: number): void {
  const packed = packedTensors.get(holder)?.get(name);
  const length = packed ? packed.length * 2 : (holder as Record<string, Int8Array>)[name].length;
  if (length !== n) throw new Error(`${what} has ${length} values, wants ${n}`);
  if (packed) out.set(packed, at);
  else packInt4((holder as Record<string, Int8Array>)[name], out, at);
}

/** The SRAM image: header, layer table, weights and the job (buffers stay zero). */
export function buildBlob(model: Model, job: Job): { bytes: Uint8Array; layout: Layout } {
  checkJob(model.dims, job);
  const L = planLayout(model.dims, job);
  const bytes = new Uint8Array(L.end);
  const dv = new DataView(bytes.buffer);
  const put = (name: string, v: number) => dv.setUint32(headerOffset(name), v >>> 0, true);
  const { d, dFF, heads, layers, vocab, maxSeq } = model.dims;
  put('MAGIC', MODEL_MAGIC); put('VERSION', MODEL_VERSION);
  put('D', d); put('D_FF', dFF); put('HEADS', heads); put('LAYERS', layers); put('VOCAB', vocab); put('MAX_SEQ', maxSeq);
  const prompts = jobPrompts(job);
  // BATCH stays 0 (read as 1) for one sequence: that blob is byte for byte the single-prompt blob.
  put('PROMPT_LEN', prompts[0].length); put('BATCH', prompts.length > 1 ? prompts.length : 0);
  put('DECODE_STEPS', job.decodeSteps); put('VARIANT', job.variant);
  put('STOP_TOKEN', job.stopToken ?? NO_STOP_TOKEN);
  put('TOK_EMB', L.tokEmb); put('POS_EMB', L.posEmb); put('W_OUT', L.wOut); put('LAYER_TABLE', L.layerTable);
  put('PROMPT', L.prompt); put('OUT_TOKENS', L.outTokens); put('LOGITS', L.logits);
  put('X', L.x); put('Q', L.q); put('ATT', L.att); put('TMP', L.tmp); put('HIDDEN', L.hidden); put('SCORES', L.scores);
  put('BLOB_END', L.end); put('SEQ_GENERATED', L.seqGenerated);
  packTensor(model, 'tokEmb', vocab * d, 'tok_emb', bytes, L.tokEmb);
  packTensor(model, 'posEmb', maxSeq * d, 'pos_emb', bytes, L.posEmb);
  packTensor(model, 'wOut', d * vocab, 'w_out', bytes, L.wOut);
  if (model.layers.length !== layers) throw new Error(`model has ${model.layers.length} layers, dims say ${layers}`);
  model.layers.forEach((w, l) => {
    const o = L.layers[l];
    const rec = L.layerTable + l * LAYER_RECORD_BYTES;
    const set = (name: string, v: number) => dv.setUint32(rec + layerOffset(name), v >>> 0, true);
    set('WQ', o.wq); set('WK', o.wk); set('WV', o.wv); set('WO', o.wo); set('W1', o.w1); set('W2', o.w2);
    set('K_CACHE', o.kCache); set('V_CACHE', o.vCache);
    const s = w.shifts;
    set('SHIFTS_QKVS', s.q | (s.k << 8) | (s.v << 16) | (s.s << 24));
    set('SHIFTS_OAF', s.o | (s.a << 8) | (s.f1 << 16) | (s.f2 << 24));
    set('BOUNDS', w.bound1 | (w.bound2 << 8));
    const ws: [keyof LayerWeights & string, number, number][] = [['wq', o.wq, d * d], ['wk', o.wk, d * d], ['wv', o.wv, d * d], ['wo', o.wo, d * d], ['w1', o.w1, d * dFF], ['w2', o.w2, dFF * d]];
    for (const [name, at, n] of ws) packTensor(w, name, n, `layer ${l}: weight ${name}`, bytes, at);
  });
  prompts.forEach((p, s) => bytes.set(p, L.prompt + s * p.length));
  return { bytes, layout: L };
}

/**
 * The model in a blob (the inverse of buildBlob's weight part): dimensions
 * from the header, every tensor from the offset the header or its layer
 * record gives, shifts and hardtanh bounds from the layer records. The job
 * fields and the work buffers are ignored. Throws an Error saying what is
 * wrong when the bytes are not a usable model blob.
 */
export function readModel(bytes: Uint8Array): Model {
  if (bytes.length < HEADER_BYTES) {
    throw new Error(`not a model blob: ${bytes.length} bytes, shorter than the ${HEADER_BYTES}-byte header`);
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const get = (name: string) => dv.getUint32(headerOffset(name), true);
  const hex = (v: number) => `0x${v.toString(16).toUpperCase().padStart(8, '0')}`;
  const magic = get('MAGIC');
  if (magic !== MODEL_MAGIC) throw new Error(`not a model blob: magic ${hex(magic)}, wants ${hex(MODEL_MAGIC)} ("PTM1")`);
  const version = get('VERSION');
  if (version !== MODEL_VERSION) throw new Error(`model blob version ${version}; this picotpu reads version ${MODEL_VERSION}`);
  const dims: ModelDims = {
    d: get('D'), dFF: get('D_FF'), heads: get('HEADS'), layers: get('LAYERS'), vocab: get('VOCAB'), maxSeq: get('MAX_SEQ'),
  };
  try {
    checkDims(dims);
  } catch (e) {
    throw new Error(`model blob has bad dimensions ${JSON.stringify(dims)}: ${(e as Error).message}`);
  }
  const { d, dFF, vocab, maxSeq, layers } = dims;
  // A region [at, at + length) must lie inside the file.
  const region = (what: string, at: number, length: number) => {
    if (at + length > bytes.length) {
      throw new Error(`model blob is truncated: ${what} at ${at} needs ${length} bytes, the blob has ${bytes.length}`);
    }
    return at;
  };
  // Each tensor's packed bytes, copied (the caller may reuse its buffer); unpacked when first read.
  const tensor = (holder: object, name: string, what: string, at: number, count: number) => {
    const start = region(what, at, count / 2);
    lazyTensor(holder, name, bytes.slice(start, start + count / 2), count);
  };
  const table = region('the layer table', get('LAYER_TABLE'), layers * LAYER_RECORD_BYTES);
  const out: LayerWeights[] = [];
  const model = { dims, layers: out } as unknown as Model;
  tensor(model, 'tokEmb', 'tok_emb', get('TOK_EMB'), vocab * d);
  tensor(model, 'posEmb', 'pos_emb', get('POS_EMB'), maxSeq * d);
  tensor(model, 'wOut', 'w_out', get('W_OUT'), d * vocab);
  for (let l = 0; l < layers; l++) {
    const rec = table + l * LAYER_RECORD_BYTES;
    const word = (name: string) => dv.getUint32(rec + layerOffset(name), true);
    const qkvs = word('SHIFTS_QKVS'), oaf = word('SHIFTS_OAF'), bounds = word('BOUNDS');
    const byte = (w: number, i: number) => (w >>> (8 * i)) & 0xff;
    const shifts: LayerShifts = {
      q: byte(qkvs, 0), k: byte(qkvs, 1), v: byte(qkvs, 2), s: byte(qkvs, 3),
      o: byte(oaf, 0), a: byte(oaf, 1), f1: byte(oaf, 2), f2: byte(oaf, 3),
    };
    for (const [name, v] of Object.entries(shifts)) {
      if (v > 31) throw new Error(`model blob layer ${l}: shift ${name} = ${v} is not in 0..31`);
    }
    const bound1 = byte(bounds, 0), bound2 = byte(bounds, 1);
    for (const b of [bound1, bound2]) {
      if (b < 1 || b > 8) throw new Error(`model blob layer ${l}: hardtanh bound ${b} is not in 1..8`);
    }
    const layer = { shifts, bound1, bound2 } as LayerWeights;
    const sizes: [string, string, number][] = [['wq', 'WQ', d * d], ['wk', 'WK', d * d], ['wv', 'WV', d * d], ['wo', 'WO', d * d], ['w1', 'W1', d * dFF], ['w2', 'W2', dFF * d]];
    for (const [name, field, count] of sizes) tensor(layer, name, `layer ${l} ${name}`, word(field), count);
    out.push(layer);
  }
  return model;
}
