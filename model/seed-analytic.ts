// Our transformer on the seed board (build/fw/seed-model.elf) as a stream of
// events: walkSeedJob() follows firmware-c/seed-model/model.c loop for loop
// and tells a sink every command the firmware pushes (its unit, its busy
// clocks by the seed's timing rules, the firmware site that pushed it), every
// wait_until(unit, left) poll and the CPU work between them whose clocks
// depend on the job (the causal mask, the header, the argmax). Two sinks use
// it: the busy tally here (predictSeedBusy) and the schedule model
// (model/seed-schedule.ts), which replays the stream against the board's
// timing to predict run clocks.
//
// Busy clocks follow docs/seed-board.md §5: MXU MM K + 25 (K + 33
// accumulating), GEOM never busy; VPU 3 clocks a word + 1 (RELU), 5 + 1 (ADD,
// DYT), 5 + 2 (DOT); DMA fill one clock a byte, spill 2·bytes + 3. The sums
// are the seed's mxu, vpu and dma counters exactly as long as no unit loses a
// bank to another (the firmware's plan keeps them apart); a test holds them
// to the measured counters (test/seed-analytic.test.ts).
//
// Keep the walk in step with model.c when either changes: the same
// functions, the same loops, the same waits in the same places.

import { SEED_VARIANT, type ModelDims } from './format.ts';
import { runChained, runPipelined, type SeedIo } from './seed-ring.ts';

/**
 * The units as model.c numbers them (tpu_seed.h SEED_UNIT_*, generated from the board's regs.ts, which the
 * model may not import: a tool reaches a board through the machine only); the calibration script, which
 * compares them with the trace's, checks they are the board's.
 */
export const SEED_MXU = 0, SEED_VPU = 1, SEED_DMA = 2;

/** What the walk tells: model.c's commands, waits and job-dependent CPU work, in program order. */
export interface SeedSink {
  /** A forward pass begins (0: the prefill, then one per decode step); what follows counts to it. */
  pass(index: number): void;
  /** A command pushed to `unit` (SEED_MXU, SEED_VPU, SEED_DMA) at `site`, busy `busy` clocks. */
  command(unit: number, busy: number, site: string): void;
  /** wait_until(unit, left) at `site`: the CPU polls until `unit` has at most `left` commands not retired. */
  wait(unit: number, left: number, site: string): void;
  /** CPU work at `site` whose clocks grow with `counts` (loop trips the firmware makes there). */
  cpu(site: string, counts: readonly number[]): void;
  /**
   * The run's end (main's return: the DONE store); `prefill` marks prefill_done(), after the prefill's token is out
   * (`tag`: what prefill_done() does on the way on, when it is more than returning; it names the path after it).
   */
  mark(what: 'prefill' | 'done', tag?: string): void;
  /**
   * A sink that keeps the units' clocks (the schedule, the trace replay): chained.c's flows (CHAINED's decode,
   * PIPELINED's prefill) go through it as the firmware runs them (model/seed-ring.ts), their pump's choices
   * read from the units; without it the walk streams them in a fixed order (the busy tally).
   */
  io?: SeedIo;
}

/** Per layer: the hardtanh bounds (7 or 8) after attention and after the FFN. */
export interface SeedLayerBounds { bound1: number; bound2: number }

const VPU_CHUNK = 1016;
const ceil8 = (n: number) => (n + 7) & ~7;
const VOP = { DOT: 'dot', ADD: 'binary', DYT: 'binary', RELU: 'unary' } as const;
type VopKind = (typeof VOP)[keyof typeof VOP];

/** Busy clocks of one VPU op of vlen elements: 3 (unary) or 5 (binary) clocks a word, + 1 (+ 2 for DOT). */
function vopBusy(kind: VopKind, vlen: number): number {
  const words = Math.ceil(vlen / 8);
  return vlen === 0 ? 1 : kind === 'unary' ? 3 * words + 1 : kind === 'binary' ? 5 * words + 1 : 5 * words + 2;
}

/** The causal mask's entries build_mask sets to −8: key u + i past row pos0 + r's last key, over rows × tp. */
function maskedEntries(pos0: number, rows: number, tp: number): number {
  let n = 0;
  for (let r = 0; r < rows; r++) n += Math.max(0, tp - (pos0 + r + 1));
  return n;
}

/**
 * Walks a job through `sink`: `promptLen` prompt tokens, then `generated − 1`
 * decode steps (generated = the tokens the run wrote, stop token included),
 * with the VARIANT bits the firmware acts on. Names follow model.c's (and
 * chained.c's). `decodeSteps` is the job's (a stop token can end the run
 * before it; only CHAINED's prefetch depends on it).
 */
export function walkSeedJob(dims: ModelDims, bounds: SeedLayerBounds[], promptLen: number, generated: number, variant: number, sink: SeedSink,
  decodeSteps = generated - 1): void {
  const D = dims.d, DFF = dims.dFF, HEADS = dims.heads, LAYERS = dims.layers, VOCAB = dims.vocab;
  const DH = D / HEADS, rowb = D / 2;
  const doubleBuffer = (variant & SEED_VARIANT.DOUBLE_BUFFER) !== 0;
  const fused = (variant & SEED_VARIANT.FUSED) !== 0, flash = (variant & SEED_VARIANT.FLASH) !== 0;
  const chained = (variant & SEED_VARIANT.CHAINED) !== 0 ? chainedPlan(dims) : null;

  // ---- primitives ----
  const fill = (bytes: number, site: string) => sink.command(SEED_DMA, bytes, site);
  const spill = (bytes: number, site: string) => sink.command(SEED_DMA, bytes === 0 ? 0 : 2 * bytes + 3, site);
  const geom = (site: string) => sink.command(SEED_MXU, 0, site);
  const mm = (k: number, acc: boolean, site: string) => sink.command(SEED_MXU, k === 0 ? 1 : k + (acc ? 33 : 25), site);
  const vop = (kind: VopKind, vlen: number, site: string) => sink.command(SEED_VPU, vopBusy(kind, vlen), site);
  const waitUntil = (unit: number, left: number, site: string) => sink.wait(unit, left, site);
  /**
   * vpu_ew: `count` elements in chunks of VPU_CHUNK (the chunks after the first are the loop's own site); whether
   * a chunk is a whole one is a branch of the CPU's.
   */
  const vpuEw = (kind: VopKind, count: number, site: string) => {
    for (let left = count, first = true; left > 0; left -= VPU_CHUNK, first = false) {
      sink.cpu('vpu_ew.whole', [left > VPU_CHUNK ? 1 : 0]);
      vop(kind, Math.min(left, VPU_CHUNK), first ? site : 'vpu_ew.next');
    }
  };
  /** put_sram: one word (`bytes` of it) to the SRAM through the scratchpad. */
  const putSram = (bytes: number, site: string) => {
    waitUntil(SEED_DMA, 0, `${site}.before`);
    spill(bytes, site);
    waitUntil(SEED_DMA, 0, `${site}.after`);
  };

  // ---- kernels ----
  /** panel_mms: one MM per row block against the panel. */
  const panelMms = (blocks: number, k: number, acc: boolean) => {
    const at = doubleBuffer ? 'panel_mms.db' : 'panel_mms';
    for (let i = 0; i < blocks; i++) mm(k, acc, i === 0 ? `${at}.first` : `${at}.next`);
  };
  const matmul = (rows: number, k: number, n: number, acc: boolean, site: string) => {
    const panels = n / 8, blocks = rows / 8;
    geom(`${site}.geom`);
    fill(4 * k, 'matmul.fill0');
    if (!doubleBuffer) {
      for (let j = 0; j < panels; j++) {
        if (j) {
          waitUntil(SEED_MXU, 0, 'matmul.wait_mxu');
          fill(4 * k, 'matmul.fill');
        }
        waitUntil(SEED_DMA, 0, 'matmul.wait_dma');
        panelMms(blocks, k, acc);
      }
    } else {
      for (let j = 0; j < panels; j++) {
        const more = j + 1 < panels;
        if (more) {
          waitUntil(SEED_MXU, 0, 'matmul.db.wait_mxu');
          sink.cpu('matmul.db.buffer', [j & 1]); // which buffer the next panel goes to
          fill(4 * k, 'matmul.db.fill');
        }
        waitUntil(SEED_DMA, more ? 1 : 0, more ? 'matmul.db.wait_dma' : 'matmul.db.wait_dma_last');
        sink.cpu('matmul.db.panel', [j & 1]);
        panelMms(blocks, k, acc);
      }
    }
    waitUntil(SEED_MXU, 0, `${site}.end`);
  };
  const residual = (count: number, bound: number, site: string) => {
    sink.cpu('residual.dyt', [bound === 7 ? 1 : 0]); // DYT or ADD: a branch of the CPU's
    vpuEw(bound === 7 ? VOP.DYT : VOP.ADD, count, `${site}.residual`);
    waitUntil(SEED_VPU, 0, `${site}.residual.wait`);
  };
  const projectResidual = (rows: number, k: number, bound: number, site: string) => {
    if (fused) {
      matmul(rows, k, D, true, site);
      if (bound === 7) {
        vpuEw(VOP.DYT, rows * D, `${site}.clip`);
        waitUntil(SEED_VPU, 0, `${site}.clip.wait`);
      }
    } else {
      matmul(rows, k, D, false, site);
      residual(rows * D, bound, site);
    }
  };
  const attendRows = (blocks: number, kb: number, t: number, tp: number) => {
    geom('attend.qk.geom');
    for (let i = 0; i < blocks; i++) for (let j = 0; j < kb; j++) mm(DH, false, j > 0 ? 'attend.qk' : i > 0 ? 'attend.qk.row' : 'attend.qk.first');
    waitUntil(SEED_MXU, 0, 'attend.qk.wait');
    const count = blocks * 8 * tp;
    vpuEw(VOP.ADD, count, 'attend.mask');
    vpuEw(VOP.RELU, count, 'attend.relu');
    waitUntil(SEED_VPU, 0, 'attend.vpu.wait');
    geom('attend.pv.geom');
    for (let i = 0; i < blocks; i++) for (let c = 0; c < DH / 8; c++) mm(t, false, c > 0 ? 'attend.pv' : i > 0 ? 'attend.pv.row' : 'attend.pv.first');
    waitUntil(SEED_MXU, 0, 'attend.pv.wait');
  };
  const keysOf = (pos0: number, i: number, t: number) => Math.min(pos0 + 8 * i + 8, t);
  const flashScores = (kb: number, site: string) => {
    geom(`${site}.geom`);
    for (let j = 0; j < kb; j++) mm(DH, false, j === 0 ? `${site}.first` : 'flash.qk');
  };
  const attentionFlash = (pos0: number, blocks: number, t: number, tp: number) => {
    const pv = 1 + DH / 8;
    flashScores(Math.ceil(keysOf(pos0, 0, t) / 8), 'flash.qk0');
    for (let i = 0; i < blocks; i++) {
      const keys = keysOf(pos0, i, t);
      sink.cpu('flash.block', [i & 1, keys < pos0 + 8 * i + 8 ? 1 : 0]); // the strip, keys_of's clip
      waitUntil(SEED_MXU, i ? pv : 0, i ? 'flash.wait_scores' : 'flash.wait_scores0');
      vpuEw(VOP.ADD, 8 * tp, 'flash.mask');
      vpuEw(VOP.RELU, 8 * tp, 'flash.relu');
      if (i + 1 < blocks) {
        sink.cpu('flash.next', [i & 1, keysOf(pos0, i + 1, t) < pos0 + 8 * i + 16 ? 1 : 0]);
        flashScores(Math.ceil(keysOf(pos0, i + 1, t) / 8), 'flash.qk');
      }
      waitUntil(SEED_VPU, 0, i + 1 < blocks ? 'flash.wait_vpu' : 'flash.wait_vpu_last');
      geom('flash.pv.geom');
      for (let c = 0; c < DH / 8; c++) mm(keys, false, c === 0 ? 'flash.pv.first' : 'flash.pv');
    }
    waitUntil(SEED_MXU, 0, 'flash.end');
  };
  const attention = (pos0: number, blocks: number, t: number) => {
    const tp = ceil8(t);
    for (let h = 0; h < HEADS; h++) {
      sink.cpu('attention.flash', [flash ? 1 : 0]); // FLASH set: blocks > 1 is tested too
      if (flash && blocks > 1) attentionFlash(pos0, blocks, t, tp);
      else attendRows(blocks, tp / 8, t, tp);
    }
  };
  const forward = (pos0: number, rows: number) => {
    const blocks = Math.ceil(rows / 8), rp = blocks * 8, t = pos0 + rows, tp = ceil8(t);
    for (let r = 0; r < rows; r++) fill(rowb, r === 0 ? 'embed.tok.first' : 'embed.tok');
    fill(rows * rowb, 'embed.pos');
    sink.cpu('build_mask', [rp, (rp * tp) / 8, maskedEntries(pos0, rp, tp)]);
    waitUntil(SEED_DMA, 0, 'embed.wait_dma');
    vpuEw(VOP.ADD, rows * D, 'embed.add');
    waitUntil(SEED_VPU, 0, 'embed.wait_vpu');
    for (let l = 0; l < LAYERS; l++) {
      matmul(rp, D, D, false, 'q');
      matmul(rp, D, D, false, 'k');
      spill(rows * rowb, 'k.spill');
      matmul(rp, D, D, false, 'v');
      spill(rows * rowb, 'v.spill');
      fill(t * rowb, 'kv.fill_k');
      fill(t * rowb, 'kv.fill_v');
      waitUntil(SEED_DMA, 0, 'kv.wait');
      attention(pos0, blocks, t);
      projectResidual(rp, D, bounds[l].bound1, 'o');
      matmul(rp, D, DFF, false, 'ffn1');
      vpuEw(VOP.RELU, rp * DFF, 'ffn1.relu');
      waitUntil(SEED_VPU, 0, 'ffn1.relu.wait');
      projectResidual(rp, DFF, bounds[l].bound2, 'ffn2');
    }
    fill(VOCAB * rowb, 'logits.fill');
    waitUntil(SEED_DMA, 0, 'logits.wait_dma');
    for (let j = 0; j < VOCAB; j++) vop(VOP.DOT, D, j === 0 ? 'logits.dot.first' : 'logits.dot');
    waitUntil(SEED_VPU, 0, 'logits.wait_vpu');
  };
  /** forward_streamed: the prefill in chunks of ST_ROWS rows, X in the SRAM, K and V resident. */
  const forwardStreamed = (t: number) => {
    const tp = ceil8(t);
    const chunks: [number, number, number][] = []; // r0, rows, rows padded
    for (let r0 = 0; r0 < t; r0 += ST_ROWS) { const n = Math.min(ST_ROWS, t - r0); chunks.push([r0, n, ceil8(n)]); }
    for (let l = 0; l < LAYERS; l++) {
      for (const [, n, bp] of chunks) {
        if (l === 0) {
          for (let r = 0; r < n; r++) fill(rowb, 'st.embed.tok');
          fill(n * rowb, 'st.embed.pos');
          waitUntil(SEED_DMA, 0, 'st.embed.wait_dma');
          vpuEw(VOP.ADD, n * D, 'st.embed.add');
          waitUntil(SEED_VPU, 0, 'st.embed.wait_vpu');
          spill(n * rowb, 'st.x.spill');
        } else {
          fill(n * rowb, 'st.x.fill');
          waitUntil(SEED_DMA, 0, 'st.x.wait');
        }
        matmul(bp, D, D, false, 'st.k');
        spill(n * rowb, 'st.k.spill');
        matmul(bp, D, D, false, 'st.v');
        spill(n * rowb, 'st.v.spill');
      }
      for (const [r0, n, bp] of chunks) {
        fill(n * rowb, 'st.x.fill');
        waitUntil(SEED_DMA, 0, 'st.x.wait');
        matmul(bp, D, D, false, 'st.q');
        for (let b = 0; b < bp / 8; b++) {
          const i = r0 / 8 + b, keys = flash ? Math.min(8 * i + 8, t) : t, kb = Math.ceil(keys / 8);
          for (let h = 0; h < HEADS; h++) {
            // mask_strip before the first head: every word of block 0's strip, two a row for the others.
            sink.cpu('st.mask', h === 0 ? [i === 0 ? tp / 8 : 0, 1] : [0, 0]);
            geom('st.qk.geom');
            for (let j = 0; j < kb; j++) mm(DH, false, 'st.qk');
            waitUntil(SEED_MXU, 0, 'st.qk.wait');
            vpuEw(VOP.ADD, 8 * tp, 'st.mask.add');
            vpuEw(VOP.RELU, 8 * tp, 'st.relu');
            waitUntil(SEED_VPU, 0, 'st.vpu.wait');
            geom('st.pv.geom');
            for (let c = 0; c < DH / 8; c++) mm(keys, false, 'st.pv');
          }
        }
        waitUntil(SEED_MXU, 0, 'st.att.wait');
        projectResidual(bp, D, bounds[l].bound1, 'st.o');
        matmul(bp, D, DFF, false, 'st.ffn1');
        vpuEw(VOP.RELU, bp * DFF, 'st.ffn1.relu');
        waitUntil(SEED_VPU, 0, 'st.ffn1.relu.wait');
        projectResidual(bp, DFF, bounds[l].bound2, 'st.ffn2');
        if (l + 1 < LAYERS) spill(n * rowb, 'st.x.spill');
      }
    }
    // forward_streamed's own logits loop (its code, and its clocks, are not forward's).
    fill(VOCAB * rowb, 'st.logits.fill');
    waitUntil(SEED_DMA, 0, 'st.logits.wait_dma');
    for (let j = 0; j < VOCAB; j++) vop(VOP.DOT, D, j === 0 ? 'st.logits.dot.first' : 'st.logits.dot');
    waitUntil(SEED_VPU, 0, 'st.logits.wait_vpu');
  };
  /** prefill_pipelined (chained.c): the prefill through the weight ring; see walkPipelined. */
  const forwardPipelined = (t: number) => (sink.io ? runPipelined(dims, bounds, t, variant, sink.io, sink) : walkPipelined(dims, bounds, t, variant, sink));
  const emit = () => {
    sink.cpu('argmax', [VOCAB]);
    spill(4 * VOCAB, 'emit.logits');
    putSram(1, 'emit.token');
  };

  // ---- the job (main) ----
  // load_header: the header, the layer records, the prompt.
  fill(128, 'header.fill');
  waitUntil(SEED_DMA, 0, 'header.wait');
  sink.cpu('header', headerChecks(dims, promptLen, decodeSteps)); // D / HEADS a bit at a time: ten trips whatever the shape
  fill(LAYERS * 64, 'header.layers');
  fill(promptLen, 'header.prompt');
  waitUntil(SEED_DMA, 0, 'header.layers.wait');
  sink.cpu('layers', [LAYERS]); // the prompt stays where the DMA put it: no copy
  sink.pass(0);
  if (streamedPrefill(dims, promptLen, decodeSteps)) forwardStreamed(promptLen);
  else if (variant & SEED_VARIANT.PIPELINED) forwardPipelined(promptLen);
  else forward(0, promptLen);
  emit();
  // prefill_done(steps): with decode steps, CHAINED calls chained_run, which returns to model.c's decode where
  // chained_fits refuses the shapes; without them main ends the run (no chained plan).
  const chainedRun = (variant & SEED_VARIANT.CHAINED) !== 0 && decodeSteps > 0;
  sink.mark('prefill', chainedRun && !chained ? '+chained_refused' : '');
  if (chained && chainedRun) {
    if (sink.io) runChained(dims, bounds, promptLen, generated, decodeSteps, variant, sink.io, sink);
    else {
      walkChained(dims, bounds, promptLen, generated, decodeSteps, chained, fused, sink);
      putSram(4, 'chained.generated');
      putSram(4, 'chained.status');
    }
    sink.mark('done');
    return;
  }
  for (let i = 1; i < generated; i++) {
    sink.pass(i);
    forward(promptLen + i - 1, 1);
    emit();
  }
  putSram(4, 'generated');
  putSram(4, 'status');
  sink.mark('done');
}

/** chained.c's plan for the job's shapes: ring slot bytes, slots, and per weight geometry (K, units a chunk, units). */
interface ChainedPlan {
  slot: number; slots: number;
  geoms: { k: number; per: number; units: number; unitBytes: number; chunkRows: number }[];
}
const CHAINED_RING_BYTES = 0x7000, CHAINED_Q_ROOM = 0x400, CHAINED_S_ROOM = 0xc00, CHAINED_TMP_ROOM = 0x200, CHAINED_HID_ROOM = 0xe00, CHAINED_STG = 2048;
const G_DD = 0, G_DF = 1, G_FD = 2, G_OUT = 3;

/** chained_fits: the plan, or null when the shapes do not fit it (the decode then runs model.c's path). */
function chainedPlan(dims: ModelDims): ChainedPlan | null {
  const { d, dFF, heads, layers, maxSeq } = dims;
  const widest = 4 * Math.max(d, dFF), slot = widest <= 4096 ? 4096 : 0;
  if (!slot || dFF * 4 > CHAINED_HID_ROOM || heads * ceil8(maxSeq) * 4 > CHAINED_S_ROOM || d * 4 > CHAINED_Q_ROOM
    || d * 4 > CHAINED_TMP_ROOM || layers * d > CHAINED_STG) return null;
  const geom = (k: number, units: number, unitBytes: number, chunkRows: number) => ({ k, per: Math.min(Math.floor(slot / unitBytes), units), units, unitBytes, chunkRows });
  return {
    slot, slots: Math.floor(CHAINED_RING_BYTES / slot),
    // [G_DD, G_DF, G_FD]: panels of [K][8], a chunk K rows of 4 bytes a panel; G_OUT: rows of the head, d/2 bytes each.
    geoms: [geom(d, d / 8, 4 * d, d), geom(d, dFF / 8, 4 * d, d), geom(dFF, d / 8, 4 * dFF, dFF), geom(d, dims.vocab, d / 2, 1)],
  };
}

/** The chunks of weight geometry g, in order: their DMA bytes. */
function chunkBytes(g: ChainedPlan['geoms'][number]): number[] {
  const out: number[] = [];
  for (let first = 0; first < g.units; first += g.per) {
    const units = Math.min(g.per, g.units - first);
    out.push(g.chunkRows === 1 ? units * g.unitBytes : g.chunkRows * 4 * units);
  }
  return out;
}

/**
 * chained.c's decode steps (CHAINED): every weight of a step streams through
 * the ring; the producer's fills (each layer's old K/V rows, then its
 * weights' chunks, then the head's) count to the step whose weights they are,
 * as the consumer's commands do. A stop token leaves the prefetch of the next
 * step completed to its fixed point (chained_stop): its K/V fill of layer 0
 * and up to a ring of its chunks up to layer 1's K/V fill, counted to the
 * last pass.
 */
function walkChained(dims: ModelDims, bounds: SeedLayerBounds[], promptLen: number, generated: number, decodeSteps: number, plan: ChainedPlan, fused: boolean, sink: SeedSink): void {
  const D = dims.d, DFF = dims.dFF, HEADS = dims.heads, LAYERS = dims.layers, VOCAB = dims.vocab;
  const DH = D / HEADS, rowb = D / 2;
  const fill = (bytes: number, site: string) => sink.command(SEED_DMA, bytes, site);
  const spill = (bytes: number, site: string) => sink.command(SEED_DMA, bytes === 0 ? 0 : 2 * bytes + 3, site);
  const geomCmd = (site: string) => sink.command(SEED_MXU, 0, site);
  const mm = (k: number, acc: boolean, site: string) => sink.command(SEED_MXU, k === 0 ? 1 : k + (acc ? 33 : 25), site);
  const vop = (kind: VopKind, vlen: number, site: string) => sink.command(SEED_VPU, vopBusy(kind, vlen), site);
  const vpuEw = (kind: VopKind, count: number, site: string) => {
    for (let left = count; left > 0; left -= VPU_CHUNK) vop(kind, Math.min(left, VPU_CHUNK), site);
  };
  const chunks = plan.geoms.map(chunkBytes);
  const layerGeoms = [G_DD, G_DD, G_DD, G_DD, G_DF, G_FD];
  /** The producer's items of a layer of a step at pos0 (the K/V fill, then six weights' chunks; the head's after the last layer), at most `limit` chunks. */
  const produceLayer = (pos0: number, last: boolean, limit = Infinity) => {
    fill(pos0 * rowb, 'chained.kv.fill_k');
    fill(pos0 * rowb, 'chained.kv.fill_v');
    let n = 0;
    for (const g of last ? [...layerGeoms, G_OUT] : layerGeoms) for (const bytes of chunks[g]) if (n++ < limit) fill(bytes, 'chained.chunk');
  };
  /** chained_matmul: one MM per panel, K rows. */
  const matmul = (g: number, acc: boolean, site: string) => {
    geomCmd(`${site}.geom`);
    for (let j = 0; j < plan.geoms[g].units; j++) mm(plan.geoms[g].k, acc, site);
  };
  const residual = (g: number, bound: number, site: string) => {
    matmul(g, fused, site);
    if (fused && bound !== 7) return;
    vop(VOP.DYT, D, `${site}.residual`); // DYT and ADD cost the same
  };
  for (let step = 1; step < generated; step++) {
    const pos0 = promptLen + step - 1, t = pos0 + 1, tp = ceil8(t);
    sink.pass(step);
    sink.cpu('chained.step', [step]); // no schedule terms: the pump's timing is the firmware's
    fill(rowb, 'chained.embed.tok');
    fill(rowb, 'chained.embed.pos');
    vop(VOP.ADD, D, 'chained.embed.add');
    for (let l = 0; l < LAYERS; l++) {
      produceLayer(pos0, l === LAYERS - 1);
      matmul(G_DD, false, 'chained.q');
      matmul(G_DD, false, 'chained.k');
      matmul(G_DD, false, 'chained.v');
      for (let c = 0; c < 4; c++) vop(VOP.RELU, D, 'chained.copy'); // REQUANT: a unary pass
      spill(rowb, 'chained.kv.spill_k');
      spill(rowb, 'chained.kv.spill_v');
      geomCmd('chained.qk.geom');
      for (let i = 0; i < (HEADS * tp) / 8; i++) mm(DH, false, 'chained.qk');
      vpuEw(VOP.RELU, HEADS * tp, 'chained.relu');
      geomCmd('chained.pv.geom');
      for (let i = 0; i < D / 8; i++) mm(t, false, 'chained.pv');
      residual(G_DD, bounds[l].bound1, 'chained.o');
      matmul(G_DF, false, 'chained.ffn1');
      vpuEw(VOP.RELU, DFF, 'chained.ffn1.relu');
      residual(G_FD, bounds[l].bound2, 'chained.ffn2');
    }
    for (let j = 0; j < VOCAB; j++) vop(VOP.DOT, D, 'chained.dot');
    spill(4 * VOCAB, 'chained.emit.logits');
    spill(1, 'chained.emit.token');
  }
  // The next step's K/V fill of layer 0 and its chunks, up to a ring, and not past layer 1's K/V fill (its attention never comes).
  if (generated > 1 && generated <= decodeSteps) produceLayer(promptLen + generated - 1, LAYERS === 1, plan.slots);
}

const ST_ROWS = 32, BANK = 4096, ST_MASK_MAX = 0x800;

/**
 * load_header's plan checks as the CPU evaluates them (&& stops at the first false): the resident plan's fits()
 * calls, then the streamed plan's terms (none when the resident plan fits: !resident is false).
 */
function headerChecks(dims: ModelDims, promptLen: number, decodeSteps: number): [number, number] {
  const rp = ceil8(promptLen), tp = ceil8(dims.maxSeq);
  const resident = [(rp * dims.d) / 2 <= BANK, (dims.maxSeq * dims.d) / 2 <= 2 * BANK, (rp * tp) / 2 <= BANK, (rp * dims.dFF) / 2 <= 4 * BANK];
  const first = resident.indexOf(false), residentEvals = first < 0 ? 4 : first + 1;
  if (first < 0) return [residentEvals, 0];
  const streamed = [decodeSteps === 0, true, (ST_ROWS * dims.d) / 2 <= BANK, (rp * dims.d) / 2 <= 4 * BANK, rp * 4 <= ST_MASK_MAX, (ST_ROWS * dims.dFF) / 2 <= 2 * BANK];
  const miss = streamed.indexOf(false);
  return [residentEvals, miss < 0 ? streamed.length : miss + 1];
}

/** Whether load_header takes the resident plan for this prompt (every row of X, the scores and the FFN in the scratchpad). */
export function residentPrefill(dims: ModelDims, promptLen: number): boolean {
  const rp = ceil8(promptLen), tp = ceil8(dims.maxSeq);
  return (rp * dims.d) / 2 <= BANK && (dims.maxSeq * dims.d) / 2 <= 2 * BANK && (rp * tp) / 2 <= BANK && (rp * dims.dFF) / 2 <= 4 * BANK;
}

/** Whether the prefill runs streamed (model.c's forward_streamed): the resident plan does not fit, the job has no decode steps, the chunks do. */
export function streamedPrefill(dims: ModelDims, promptLen: number, decodeSteps: number): boolean {
  const rp = ceil8(promptLen);
  return !residentPrefill(dims, promptLen) && decodeSteps === 0 && (ST_ROWS * dims.d) / 2 <= BANK && (rp * dims.d) / 2 <= 4 * BANK
    && rp * 4 <= ST_MASK_MAX && (ST_ROWS * dims.dFF) / 2 <= 2 * BANK;
}

/**
 * chained.c's prefill_pipelined (PIPELINED): the weights of every layer, then
 * the head's, through a ring of three 2 KB slots; K and V written in place and
 * spilled to the caches (K during the last P·Vs, V after attention); attention
 * head by head, the next head's mask behind this one's P·V (FLASH: each
 * row block's scores packed to the keys it sees, the packed mask's zeros
 * written by the VPU).
 */
function walkPipelined(dims: ModelDims, bounds: SeedLayerBounds[], t: number, variant: number, sink: SeedSink): void {
  const D = dims.d, DFF = dims.dFF, HEADS = dims.heads, LAYERS = dims.layers, VOCAB = dims.vocab;
  const DH = D / HEADS, rowb = D / 2, blocks = Math.ceil(t / 8), tp = ceil8(t);
  const fused = (variant & SEED_VARIANT.FUSED) !== 0, flash = (variant & SEED_VARIANT.FLASH) !== 0;
  const fill = (bytes: number, site: string) => sink.command(SEED_DMA, bytes, site);
  const spill = (bytes: number, site: string) => sink.command(SEED_DMA, bytes === 0 ? 0 : 2 * bytes + 3, site);
  const geomCmd = (site: string) => sink.command(SEED_MXU, 0, site);
  const mm = (k: number, acc: boolean, site: string) => sink.command(SEED_MXU, k === 0 ? 1 : k + (acc ? 33 : 25), site);
  const vop = (kind: VopKind, vlen: number, site: string) => sink.command(SEED_VPU, vopBusy(kind, vlen), site);
  const vpuEw = (kind: VopKind, count: number, site: string) => {
    for (let left = count; left > 0; left -= VPU_CHUNK) vop(kind, Math.min(left, VPU_CHUNK), site);
  };
  const slot = 2048;
  const geom = (k: number, units: number, unitBytes: number, chunkRows: number) => ({ k, per: Math.min(Math.floor(slot / unitBytes), units), units, unitBytes, chunkRows });
  const geoms = [geom(D, D / 8, 4 * D, D), geom(D, DFF / 8, 4 * D, D), geom(DFF, D / 8, 4 * DFF, DFF), geom(D, VOCAB, D / 2, 1)];
  const chunks = geoms.map(chunkBytes);
  const ringMatmul = (g: number, acc: boolean, site: string) => {
    for (const bytes of chunks[g]) fill(bytes, 'pf.chunk'); // the producer's fills, counted with their matmul
    geomCmd(`${site}.geom`);
    for (let j = 0; j < geoms[g].units * blocks; j++) mm(geoms[g].k, acc, site);
  };
  const keysOf = (i: number) => (flash ? Math.min(8 * i + 8, t) : t);
  sink.cpu('pf.prefill', [t]); // no schedule terms: the pump's timing is the firmware's
  fill(t * rowb, 'pf.embed.pos'); // first: the position rows' long fill runs while the CPU sets the stream up
  if (flash) vpuEw(VOP.RELU, 32 * blocks * (blocks + 1), 'pf.mask.zero'); // REQUANT with m0 = 0: the packed mask's zeros (a unary pass)
  for (let r = 0; r < t; r++) fill(rowb, 'pf.embed.tok');
  vpuEw(VOP.ADD, t * D, 'pf.embed.add');
  for (let l = 0; l < LAYERS; l++) {
    ringMatmul(G_DD, false, 'pf.q');
    ringMatmul(G_DD, false, 'pf.k');
    ringMatmul(G_DD, false, 'pf.v');
    // pf_attention: the MXU runs S0 S1 PV0 S2 PV1 ... (S a head's scores, PV its P·V); head h+1's mask and
    // ReLU are queued after PV(h) and before S(h+2), or before PV(h) at the last pair, where K's cache spill
    // goes out too (the last scores have read K).
    const scores = () => {
      if (!flash) geomCmd('pf.qk.geom');
      for (let i = 0; i < blocks; i++) {
        if (flash) geomCmd('pf.qk.geom');
        for (let j = 0; j < Math.ceil(keysOf(i) / 8); j++) mm(DH, false, 'pf.qk');
      }
    };
    const pv = () => {
      for (let i = 0; i < blocks; i++) {
        if (i === 0 || flash) geomCmd('pf.pv.geom');
        for (let c = 0; c < DH / 8; c++) mm(keysOf(i), false, 'pf.pv');
      }
    };
    // FLASH packs each row block's scores to the keys it sees: 32·b·(b+1) elements a head (chained.c packed_at).
    const count = flash ? 32 * blocks * (blocks + 1) : blocks * 8 * tp;
    const mask = () => {
      vpuEw(VOP.ADD, count, 'pf.mask');
      vpuEw(VOP.RELU, count, 'pf.relu');
    };
    scores();
    if (HEADS === 1) spill(t * rowb, 'pf.k.spill');
    mask();
    if (HEADS > 1) scores();
    for (let h = 0; h < HEADS; h++) {
      const more = h + 2 < HEADS;
      if (h + 1 < HEADS && !more) {
        spill(t * rowb, 'pf.k.spill');
        mask();
      }
      pv();
      if (more) {
        mask();
        scores();
      }
    }
    ringMatmul(G_DD, fused, 'pf.o');
    spill(t * rowb, 'pf.v.spill'); // once the ring is full ahead, during the output projection or the FFN
    // In the last layer the VPU's passes after attention cover the last row only (its logits are the prefill's).
    const rows = l + 1 === LAYERS ? 1 : blocks * 8;
    if (!fused || bounds[l].bound1 === 7) vpuEw(VOP.DYT, rows * D, 'pf.o.residual'); // DYT and ADD cost the same
    ringMatmul(G_DF, false, 'pf.ffn1');
    vpuEw(VOP.RELU, rows * DFF, 'pf.ffn1.relu');
    ringMatmul(G_FD, fused, 'pf.ffn2');
    if (!fused || bounds[l].bound2 === 7) vpuEw(VOP.DYT, rows * D, 'pf.ffn2.residual');
  }
  for (const bytes of chunks[G_OUT]) fill(bytes, 'pf.chunk.head');
  for (let j = 0; j < VOCAB; j++) vop(VOP.DOT, D, 'pf.dot');
}

export interface SeedBusy {
  mxu: number; vpu: number; dma: number;
  /** Commands pushed per unit (GEOM included for the MXU). */
  commands: { mxu: number; vpu: number; dma: number };
  /** Σ over forward passes (the prefill, then each decode step) of the pass's busiest unit (model/predict/analytic.ts's lowerBound). */
  lowerBound: number;
}

/** The busy tally: busy clocks and commands per unit, and per forward pass for the lower bound. */
export class SeedBusyTally implements SeedSink, SeedBusy {
  mxu = 0; vpu = 0; dma = 0;
  commands = { mxu: 0, vpu: 0, dma: 0 };
  lowerBound = 0;
  /** The lower bound of the prefill's pass (at the prefill mark). */
  prefillLowerBound = 0;
  /** Busy per unit of the pass under way (the commands before the first pass count to it). */
  private readonly passBusy = [0, 0, 0];
  private inPass = false;
  pass(): void {
    if (this.inPass) this.closePass();
    this.inPass = true;
  }
  command(unit: number, busy: number): void {
    this.passBusy[unit] += busy;
    if (unit === SEED_MXU) { this.mxu += busy; this.commands.mxu++; } else if (unit === SEED_VPU) { this.vpu += busy; this.commands.vpu++; } else { this.dma += busy; this.commands.dma++; }
  }
  wait(): void {}
  cpu(): void {}
  mark(what: 'prefill' | 'done'): void {
    if (what === 'done') this.closePass();
    else this.prefillLowerBound = this.lowerBound + Math.max(...this.passBusy);
  }
  private closePass(): void {
    this.lowerBound += Math.max(...this.passBusy);
    this.passBusy.fill(0);
  }
  result(): SeedBusy {
    return { mxu: this.mxu, vpu: this.vpu, dma: this.dma, commands: { ...this.commands }, lowerBound: this.lowerBound };
  }
}

/**
 * The busy clocks of a job: `promptLen` prompt tokens, then `generated − 1`
 * decode steps (generated = the tokens the run wrote, stop token included),
 * with the VARIANT bits the firmware acts on (decodeSteps: the job's, when a
 * stop token ended it early).
 */
export function predictSeedBusy(dims: ModelDims, bounds: SeedLayerBounds[], promptLen: number, generated: number, variant: number, decodeSteps = generated - 1): SeedBusy {
  const t = new SeedBusyTally();
  walkSeedJob(dims, bounds, promptLen, generated, variant, t, decodeSteps);
  return t.result();
}
