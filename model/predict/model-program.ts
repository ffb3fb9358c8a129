// The command programs of model.c's flows for the schedule model: each
// kernel the model's firmware calls (kernels/matmul.c, elementwise.c,
// attention.c, panel.c, stream_ffn.c, long.c) transcribed as the commands it pushes,
// in the firmware's order, with its waits (k_need: a wait token or a poll)
// and each command's busy clocks (analytic.ts's rules), over a KernelCpu
// (model/predict/issue-cost.ts). A PUSH site is named by the model's call (its
// context: "q" the Q projection, "a" attention, "H" the head …), the kernel
// ("t" tiled, "p" panel, "s" stream, "f" stream_ffn, "e" elementwise, "E"
// embedding, "F" FlashAttention, "D" decode attention, "K" block attention,
// "L" long.c's attention_long; "S…" SEQUENCER's decode, "SR" its RUNs)
// and the command; the path between two sites has its issue term, counted
// on the emulator's trace of model.elf and of its what-if builds, whose plan
// (KernelPlan: the tile edge, the scratchpad's regions) the transcription
// follows (scripts/calibrate-model-issue.ts).
//
// predictModelRun gives a job's windows (prefill, decode) or null where the
// flows are not modelled: a board no term table covers (issue-cost.ts
// firmwareTag), variant bits this file does not know, SEQUENCER without
// TOKENS or a list memory, a stop token that may end decoding early, paths
// no calibration run took.

import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import { jobPrompts, VARIANT, type Job, type ModelDims } from '../format.ts';
import { chunkTiles, LONG_BLOCK_ROWS, withNeeds, PANEL_AHEAD_BUFFER, PANEL_CHUNK_BYTES, RELU_BLOCKS_MAX, STREAM_AHEAD, STREAM_BUFFERS, STREAM_CHUNK_BYTES, STREAM_MAX_ROWS } from '../firmware-facts.ts';
import { boardTerms, codeClass, firmwareTag, KernelCpu, MissingTermError, multiplyExtra, type TermSource } from './issue-cost.ts';
import { DMA, MXU, VPU, type ScheduleResult, type Unit } from './schedule.ts';

const REGION = 4096;

/**
 * The tile edge and scratchpad plan a build of the kernels was compiled for (kernels.h TILE, SP_KIB): D = 8 or
 * 16 (-DTPU_MXU_DIM=16, the 16×16-MXU what-if), 64 or 32 KiB (-DSP_KIB=32). The 32 KiB plan has eight regions:
 * an A block of two (SP_A_BYTES), FlashAttention's K and V in one each and its int32 accumulator in two
 * (SP_FKV_REGIONS, SP_FO32_REGIONS), five panel ring buffers; the streamed, pipelined-heads, block-attention and
 * long-context kernels need the 64 KiB plan (their *_fits say SP_KIB == 64).
 */
export interface KernelPlan { D: number; ROW4: number; ROW32: number; spad64: boolean; aBytes: number; fkvRegions: number; fo32Regions: number; panelBuffers: number }
export function kernelPlan(cfg: PlatformConfig): KernelPlan {
  const D = cfg.tpu.mxuDim, spad64 = cfg.tpu.spadKiB === 64;
  return {
    D, ROW4: D / 2, ROW32: 4 * D, spad64, aBytes: (spad64 ? 8 : 2) * REGION, fkvRegions: spad64 ? 2 : 1, fo32Regions: spad64 ? 4 : 2,
    panelBuffers: (cfg.tpu.spadKiB * 1024) / REGION - 3,
  };
}
const ceilTo = (n: number, m: number) => Math.ceil(n / m) * m;
const EPI_NONE = 0, EPI_RELU = 1, EPI_RESIDUAL = 2, EPI_MASK_RELU = 3;

/** kernels.h struct mm_args, as far as the commands depend on it. */
interface Mm { m: number; k: number; n: number; transpose?: boolean; out32?: boolean; causal?: boolean; epi?: number; row0?: number }

const STREAM_KEEP_A = 1, STREAM_UP = 2, STREAM_DOWN = 4, STREAM_RES_OUT = 8;

/** kernels/long.c query_block: query rows per block, the most row groups whose Q rows fit a region and whose P block against all ctx keys fits two. */
function longQueryBlock(d: number, ctx: number, D: number): number {
  let qb = 0;
  while (qb + D <= ctx && (qb + D) * (d / 2) <= REGION && (qb + D) * (ctx / 2) <= 2 * REGION) qb += D;
  return qb;
}
/** One query block of attention_long (long.c struct long_block): its first row, rows, row groups, the first group's index, its keys. */
interface LongBlock { q0: number; rows: number; groups: number; gFirst: number; keys: number }

/** The chain state of matmul_stream (panel.c) and of matmul_stream_ffn (stream_ffn.c): their own statics. */
interface StreamChain { ringStart: number; prefetched: number }

/** The model's kernels over one KernelCpu per PERF_CTRL window (the kernels' statics live across windows). */
export class ModelProgram {
  k!: KernelCpu;
  /** The model's call being issued: the first part of every PUSH site's name. */
  private ctx = '';
  private readonly db: boolean;
  private readonly chain: boolean;
  private panelRingStart = 0;
  private panelChunk0Loaded = false;
  private readonly stream: StreamChain = { ringStart: 0, prefetched: 0 };
  private readonly ffn: StreamChain = { ringStart: 0, prefetched: 0 };
  private streamOnChip = 0;
  private readonly streamRelu: number[] = new Array(RELU_BLOCKS_MAX).fill(0);
  private streamReluLog2 = 0;

  /** The build's tile edge and scratchpad plan. */
  readonly plan: KernelPlan;
  constructor(readonly variant: number, readonly cfg: PlatformConfig = defaultConfig()) {
    this.plan = kernelPlan(cfg);
    this.db = (variant & VARIANT.DOUBLE_BUFFER) !== 0;
    this.chain = (variant & VARIANT.CHAIN) !== 0;
  }

  // ---- command busy clocks (hardware.md §5.4–5.6; analytic.ts Work) ----
  private load(bytes: number): number { return this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramReadClocksPerByte; }
  private store(bytes: number): number { return this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramWriteClocksPerByte; }
  private mm(k: number, accumulate = false): number { const D = this.plan.D; return this.cfg.tpu.mxuSetup + (accumulate ? D : 0) + k + 2 * (D - 1) + D; }
  private vec(rows: number, cols: number): number { return this.cfg.tpu.vpuSetup + rows * Math.ceil(cols / 8); }

  /** Set by each kernel call: its first PUSH site is marked "^" (the path from the previous call crosses the caller's code). */
  private entry = false;
  private call(): void { this.entry = true; }
  private push(unit: Unit, busy: number, site: string): number { return this.k.push(unit, busy, this.site(site)); }
  private need(unit: Unit, on: Unit, ticket: number): void { this.k.need(unit, on, ticket); }
  private barrier(): void { this.need(DMA, MXU, this.k.pushed(MXU)); this.need(DMA, VPU, this.k.pushed(VPU)); }
  fuses(rows: number): boolean { return (this.variant & VARIANT.FUSED) !== 0 && rows >= this.plan.D; }
  at(ctx: string): this { this.ctx = ctx; return this; }

  /** kernels/matmul.c matmul(). */
  matmul(p: Mm): void {
    this.call();
    const { D, ROW4, ROW32, aBytes } = this.plan;
    const arow = p.k / 2, crow = p.out32 ? ROW32 : ROW4, row0 = p.row0 ?? 0;
    const epi = this.fuses(p.m) ? (p.epi ?? EPI_NONE) : EPI_NONE, db = this.db;
    const causalCols = !!(p.causal && p.transpose), causalK = !!(p.causal && !p.transpose);
    let block = Math.min(Math.floor(aBytes / arow), Math.floor(REGION / crow)) & ~(D - 1);
    block = Math.min(block, ceilTo(p.m, D));
    const tiles = p.n / D;
    this.barrier();
    const bRead = [0, 0], rRead = [0, 0], loaded = [0, 0];
    for (let r0 = 0; r0 < p.m; r0 += block) {
      const rows = Math.min(block, p.m - r0), groups = Math.ceil(rows / D);
      const groupLast = (g: number) => row0 + r0 + Math.min(D * g + D - 1, rows - 1);
      let blockTiles = tiles;
      if (causalCols) blockTiles = Math.min(blockTiles, Math.floor(groupLast(groups - 1) / D) + 1);
      let g0 = 0;
      this.need(DMA, MXU, this.k.pushed(MXU));
      this.push(DMA, this.load(rows * arow), 'tA');
      const loadTile = (j: number) => {
        const bi = db ? j & 1 : 0;
        this.need(DMA, MXU, bRead[bi]);
        let t = this.push(DMA, this.load(p.transpose ? D * arow : p.k * ROW4), 'tB');
        if (epi === EPI_RESIDUAL) { this.need(DMA, VPU, rRead[bi]); t = this.push(DMA, this.load(rows * ROW4), 'tR'); }
        loaded[bi] = t;
      };
      if (db) loadTile(0);
      for (let j = 0; j < blockTiles; j++) {
        if (!db) loadTile(j);
        else if (j + 1 < blockTiles) loadTile(j + 1);
        if (causalCols) {
          const base = row0 + r0, first = D * j > base ? Math.floor((D * j - base) / D) : 0;
          if (g0 < first) g0 = first;
        }
        const bi = db ? j & 1 : 0;
        this.need(MXU, DMA, loaded[bi]);
        let last = 0;
        for (let g = g0; g < groups; g++) {
          const k = causalK ? Math.min(p.k, Math.floor((groupLast(g) + D) / D) * D) : p.k;
          last = this.push(MXU, this.mm(k), g === g0 ? 'tM0' : 'tM');
        }
        bRead[bi] = last;
        const vr = rows - D * g0;
        if (epi !== EPI_NONE) {
          this.need(VPU, MXU, last);
          let v: number;
          if (epi === EPI_RELU) v = this.push(VPU, this.vec(vr, D), 'tVr');
          else if (epi === EPI_RESIDUAL) { this.push(VPU, this.vec(vr, D), 'tVa'); v = this.push(VPU, this.vec(vr, D), 'tVh'); }
          else { this.push(VPU, this.vec(vr, D), 'tVm'); v = this.push(VPU, this.vec(vr, D), 'tVr'); }
          rRead[bi] = v;
          this.need(DMA, VPU, v);
        } else this.need(DMA, MXU, last);
        this.push(DMA, this.store(vr * crow), 'tS');
      }
    }
  }

  /** kernels/elementwise.c: residual (2 inputs, add + hardtanh), ReLU, mask + ReLU passes. */
  elementwise(kind: 'residual' | 'relu' | 'mask', rows: number, cols: number): void {
    this.call();
    const rb = cols / 2, chunk = Math.floor(REGION / rb), chunks = Math.ceil(rows / chunk), db = this.db;
    const used = [0, 0], loaded = [0, 0];
    const n = (i: number) => Math.min(chunk, rows - i * chunk);
    this.barrier();
    const ewLoad = (i: number) => {
      const b = db ? i & 1 : 0;
      this.need(DMA, VPU, used[b]);
      let t = this.push(DMA, this.load(n(i) * rb), 'eL');
      if (kind === 'residual') t = this.push(DMA, this.load(n(i) * rb), 'eL2');
      loaded[b] = t;
    };
    if (db) ewLoad(0);
    for (let i = 0; i < chunks; i++) {
      if (!db) ewLoad(i);
      else if (i + 1 < chunks) ewLoad(i + 1);
      const b = db ? i & 1 : 0, busy = this.vec(n(i), cols);
      this.need(VPU, DMA, loaded[b]);
      let last: number;
      if (kind === 'residual') { this.push(VPU, busy, 'eVa'); last = this.push(VPU, busy, 'eVh'); }
      else if (kind === 'relu') last = this.push(VPU, busy, 'eVr');
      else { this.push(VPU, busy, 'eVm'); last = this.push(VPU, busy, 'eVr'); }
      used[b] = last;
      this.need(DMA, VPU, last);
      this.push(DMA, this.store(n(i) * rb), 'eS');
    }
  }

  /** kernels/elementwise.c embed(). */
  embed(rows: number, d: number): void {
    this.call();
    const rb = d / 2, chunk = Math.floor(REGION / rb);
    this.barrier();
    for (let r = 0; r < rows; r += chunk) {
      const n = Math.min(chunk, rows - r);
      this.need(DMA, VPU, this.k.pushed(VPU));
      // Each token's row address: tokens[i] · rb by libgcc's __mulsi3 (the multiplier rb; a MUL on the rv32im build), after any poll.
      for (let i = 0; i < n; i++) { this.k.workAfterPoll(multiplyExtra(this.cfg, rb)); this.push(DMA, this.load(rb), 'Et'); }
      const t = this.push(DMA, this.load(n * rb), 'Ep');
      this.need(VPU, DMA, t);
      const a = this.push(VPU, this.vec(n, d), 'Ev');
      this.need(DMA, VPU, a);
      this.push(DMA, this.store(n * rb), 'Es');
    }
  }

  /** kernels/attention.c attention(): FlashAttention or the standard one (scores through SRAM). */
  attention(rows: number, row0: number, d: number, heads: number): void {
    if (this.variant & VARIANT.FLASH) { this.flash(rows, row0, d, heads); return; }
    const dh = d / heads, ctx = ceilTo(row0 + rows, this.plan.D), c = this.ctx;
    for (let h = 0; h < heads; h++) {
      this.at(`${c}s`).matmul({ m: rows, k: dh, n: ctx, transpose: true, causal: true, epi: EPI_MASK_RELU, row0 });
      if (!this.fuses(rows)) this.at(`${c}m`).elementwise('mask', rows, ctx);
      this.at(`${c}o`).matmul({ m: rows, k: ctx, n: dh, causal: true, row0 });
    }
    this.ctx = c;
  }

  /** kernels/attention.c flash_attention(). */
  flash(rows: number, row0: number, d: number, heads: number): void {
    this.call();
    const { D, fkvRegions, fo32Regions } = this.plan;
    const dh = d / heads, hb = dh / 2, pipelined = (this.variant & (VARIANT.DOUBLE_BUFFER | VARIANT.TOKENS)) !== 0;
    const bq = Math.min(Math.floor(REGION / hb), Math.floor((fo32Regions * REGION) / (dh * 4)), ceilTo(rows, D)) & ~(D - 1);
    const ctx = ceilTo(row0 + rows, D);
    const bk = Math.min(Math.floor((fkvRegions * REGION) / hb), 2 * REGION, ctx) & ~(D - 1);
    const scoresDone = [0, 0], maskDone = [0, 0];
    let lastPv = 0;
    for (let h = 0; h < heads; h++) {
      for (let q0 = 0; q0 < rows; q0 += bq) {
        const mq = Math.min(bq, rows - q0), groups = Math.ceil(mq / D);
        const groupLast = (g: number) => row0 + q0 + Math.min(D * g + D - 1, mq - 1);
        this.barrier();
        this.push(DMA, this.load(mq * hb), 'FQ');
        const last = groupLast(groups - 1);
        for (let kv0 = 0; kv0 <= last; kv0 += bk) {
          const tilesOf = (g: number) => { const gl = groupLast(g); return kv0 > gl ? 0 : Math.min(Math.floor((gl + D - kv0) / D), bk / D); };
          const nk = Math.min(last + 1 - kv0, bk);
          this.need(DMA, MXU, this.k.pushed(MXU));
          this.push(DMA, this.load(nk * hb), 'FK');
          const kvLoaded = this.push(DMA, this.load(nk * hb), 'FV');
          const scores = (g: number) => {
            const n = tilesOf(g), pb = g & 1;
            this.need(MXU, DMA, kvLoaded);
            for (let c = 0; c < n; c++) scoresDone[pb] = this.push(MXU, this.mm(dh), 'FMs');
          };
          const mask = (g: number) => {
            const n = tilesOf(g), pb = g & 1;
            this.need(VPU, MXU, scoresDone[pb]);
            this.push(VPU, this.vec(D, D * n), 'FVm');
            maskDone[pb] = this.push(VPU, this.vec(D, D * n), 'FVr');
          };
          const pv = (g: number) => {
            const n = tilesOf(g), pb = g & 1;
            this.need(MXU, VPU, maskDone[pb]);
            for (let c = 0; c < dh / D; c++) lastPv = this.push(MXU, this.mm(D * n, kv0 > 0), 'FMp');
          };
          let prev = -1;
          for (let g = 0; g < groups; g++) {
            if (!tilesOf(g)) continue;
            scores(g);
            if (!pipelined) { mask(g); pv(g); continue; }
            if (prev >= 0) pv(prev);
            mask(g);
            prev = g;
          }
          if (pipelined && prev >= 0) pv(prev);
        }
        this.need(VPU, MXU, lastPv);
        const t = this.push(VPU, this.vec(mq, dh), 'FVq');
        this.need(DMA, VPU, t);
        this.push(DMA, this.store(mq * hb), 'FS');
      }
    }
  }

  /** kernels/attention.c attention_decode() (HEADS); `ahead`: the matmul_panel call after it (CHAIN loads its first chunk). */
  decodeAttention(pos: number, d: number, heads: number, ahead: Mm | null): void {
    this.call();
    const D = this.plan.D, rs = d / 2, dh = d / heads, hb = dh / 2, keys = pos + 1, ctx = ceilTo(keys, D), tiles = ctx / D;
    this.push(DMA, this.load(rs), 'DQ');
    const kLoaded = this.push(DMA, this.load(keys * rs), 'DK');
    this.need(MXU, DMA, kLoaded);
    const pv = () => {
      this.push(VPU, this.vec(1, ctx), 'DVm');
      const relu = this.push(VPU, this.vec(1, ctx), 'DVr');
      this.need(MXU, VPU, relu);
      let last = 0;
      for (let t = 0; t < dh / D; t++) last = this.push(MXU, this.mm(ctx), 'DMp');
      return last;
    };
    let scores = 0, vLoaded = 0;
    for (let h = 0; h < heads; h++) {
      if (h) this.need(DMA, MXU, scores);
      vLoaded = this.push(DMA, this.load(keys * hb), 'DV');
      for (let t = 0; t < tiles; t++) scores = this.push(MXU, this.mm(dh), 'DMs');
      if (h) { this.need(VPU, DMA, vLoaded); pv(); }
    }
    this.need(VPU, DMA, vLoaded);
    this.need(VPU, MXU, scores);
    const last = pv();
    if (ahead && this.chain) this.panelLoadAhead(ahead, PANEL_AHEAD_BUFFER);
    this.need(DMA, MXU, last);
    this.push(DMA, this.store(rs), 'DS');
  }

  /** kernels/attention.c attention_block() (BLOCK_ATTN). */
  blockAttention(rows: number, d: number, heads: number): void {
    this.call();
    const D = this.plan.D, rs = d / 2, dh = d / heads, hb = dh / 2, ctx = ceilTo(rows, D), groups = ctx / D;
    const scoresOf = () => {
      let last = 0;
      for (let g = 0; g < groups; g++) for (let t = 0; t <= g; t++) last = this.push(MXU, this.mm(dh), 'KMs');
      return last;
    };
    const pvOf = () => {
      this.push(VPU, this.vec(rows, ctx), 'KVm');
      this.need(MXU, VPU, this.push(VPU, this.vec(rows, ctx), 'KVr'));
      let last = 0;
      for (let g = 0; g < groups; g++) for (let t = 0; t < dh; t += D) last = this.push(MXU, this.mm(D * (g + 1)), 'KMp');
      return last;
    };
    this.push(DMA, this.load(rows * rs), 'KQ');
    const kLoaded = this.push(DMA, this.load(rows * rs), 'KK');
    this.need(MXU, DMA, kLoaded);
    let scores = scoresOf();
    this.need(DMA, MXU, scores);
    const vLoaded = this.push(DMA, this.load(rows * rs), 'KV');
    for (let h = 1; h < heads; h++) {
      const next = scoresOf();
      if (h === 1) this.need(VPU, DMA, vLoaded); else this.need(VPU, MXU, scores);
      const last = pvOf();
      this.need(DMA, MXU, last);
      this.push(DMA, this.store(rows * hb), 'KS');
      scores = next;
    }
    if (heads === 1) this.need(VPU, DMA, vLoaded); else this.need(VPU, MXU, scores);
    const last = pvOf();
    this.need(DMA, MXU, last);
    this.push(DMA, this.store(rows * hb), 'KS');
  }

  /** kernels/long.c attention_long() (LONG_CONTEXT): query blocks of qb rows against K and V whole, the (block, head) items pipelined, MATMULs pushed in bursts. */
  longAttention(rows: number, d: number, heads: number): void {
    this.call();
    const D = this.plan.D, rs = d / 2, dh = d / heads, hb = dh / 2, qb = longQueryBlock(d, ceilTo(rows, D), D);
    const blockAt = (q0: number): LongBlock => {
      const n = Math.min(qb, rows - q0);
      return { q0, rows: n, groups: Math.ceil(n / D), gFirst: q0 / D, keys: ceilTo(q0 + n, D) };
    };
    const loadQK = (b: LongBlock) => { this.push(DMA, this.load(b.rows * rs), 'LQ'); return this.push(DMA, this.load(b.rows * rs), 'LK'); };
    // long_scores: row group g against key tiles 0..G, one burst (a group's first command pays the group loop).
    const scores = (b: LongBlock) => {
      let last = 0, burst = false;
      for (let g = 0; g < b.groups; g++) {
        for (let t = 0; t <= b.gFirst + g; t++, burst = true) last = this.k.push(MXU, this.mm(dh), this.site(t === 0 ? 'LMs0' : 'LMs'), 0, burst);
      }
      return last;
    };
    // long_pv: mask + ReLU over the block's keys, P·V per row group over its keys (one burst), the head's columns stored.
    const pv = (b: LongBlock) => {
      this.push(VPU, this.vec(b.rows, b.keys), 'LVm');
      this.need(MXU, VPU, this.push(VPU, this.vec(b.rows, b.keys), 'LVr'));
      let last = 0, burst = false;
      for (let g = 0; g < b.groups; g++) {
        for (let t = 0; t < dh / D; t++, burst = true) last = this.k.push(MXU, this.mm(D * (b.gFirst + g + 1)), this.site(t === 0 ? 'LMp0' : 'LMp'), 0, burst);
      }
      this.need(DMA, MXU, last);
      this.push(DMA, this.store(b.rows * hb), 'LS');
    };
    let kqLoaded = loadQK(blockAt(0)), vLoaded = 0, lastScores = 0, item = 0, prev = blockAt(0), prevFirst = false;
    for (let q0 = 0; q0 < rows; q0 += qb) {
      const cur = blockAt(q0);
      for (let h = 0; h < heads; h++, item++) {
        if (h === 0) this.need(MXU, DMA, kqLoaded);
        const next = scores(cur);
        if (h === 0) {
          this.need(DMA, MXU, next);
          vLoaded = this.push(DMA, this.load(cur.rows * rs), 'LV');
          if (q0 + qb < rows) kqLoaded = loadQK(blockAt(q0 + qb));
        }
        // Item i−1: a block's first waits for its V (loaded after its scores), the others for their scores.
        if (item) { this.need(VPU, prevFirst ? DMA : MXU, prevFirst ? vLoaded : lastScores); pv(prev); }
        prev = cur; prevFirst = h === 0; lastScores = next;
      }
    }
    this.need(VPU, prevFirst ? DMA : MXU, prevFirst ? vLoaded : lastScores);
    pv(prev);
  }

  /** A PUSH site's full name (the model's call, the site, "^" on a kernel call's first PUSH). */
  private site(site: string): string {
    const mark = this.entry ? '^' : '';
    this.entry = false;
    return `${this.ctx}${site}${mark}`;
  }

  /** LONG_CONTEXT: stream_ffn_chain_resume, the chain state W2 handed to panel.c back to stream_ffn.c (the next row block's Wo). */
  resumeFfnChain(): void {
    this.ffn.ringStart = this.stream.ringStart; this.ffn.prefetched = this.stream.prefetched;
    this.stream.ringStart = this.stream.prefetched = 0;
  }

  /** panel.c panel_load_ahead. */
  private panelLoadAhead(next: Mm, buf: number): void {
    const { D, ROW4 } = this.plan, nt = Math.min(next.n / D, chunkTiles(next.k, PANEL_CHUNK_BYTES, ROW4));
    this.push(DMA, this.load(next.k * nt * ROW4), 'pP');
    this.panelRingStart = buf;
    this.panelChunk0Loaded = true;
  }

  /** panel.c matmul_panel(). */
  panel(p: Mm, keepA: boolean, next: Mm | null): void {
    this.call();
    const { D, ROW4, panelBuffers: PANEL_BUFFERS } = this.plan;
    const crow = p.out32 ? 4 * p.n : p.n / 2, chunk = chunkTiles(p.k, PANEL_CHUNK_BYTES, ROW4), epi = p.epi ?? EPI_NONE;
    const prefetched = this.panelChunk0Loaded;
    this.panelChunk0Loaded = false;
    const bufferRead: number[] = new Array(PANEL_BUFFERS).fill(0);
    if (!keepA) this.push(DMA, this.load(p.m * (p.k / 2)), 'pA');
    if (epi === EPI_RESIDUAL) this.push(DMA, this.load(p.m * (p.n / 2)), 'pR');
    const tiles = p.n / D;
    let buf = this.panelRingStart, count = 0, last = 0;
    for (let i = 0, j = 0; j < tiles; i++) {
      const nt = Math.min(chunk, tiles - j);
      let loaded: number;
      if (i === 0 && prefetched) loaded = this.k.pushed(DMA);
      else {
        if (i >= PANEL_BUFFERS) this.need(DMA, MXU, bufferRead[buf]);
        loaded = this.push(DMA, this.load(p.k * nt * ROW4), nt === chunk ? 'pB' : 'pBs');
      }
      this.need(MXU, DMA, loaded);
      for (let t = 0; t < nt; t++, j++) last = this.push(MXU, this.mm(p.k), 'pM');
      bufferRead[buf] = last;
      buf = buf + 1 === PANEL_BUFFERS ? 0 : buf + 1;
      count++;
    }
    let done = last, on: Unit = MXU;
    if (epi !== EPI_NONE) {
      this.need(VPU, MXU, last);
      if (epi === EPI_RESIDUAL) { this.push(VPU, this.vec(p.m, p.n), 'pVa'); done = this.push(VPU, this.vec(p.m, p.n), 'pVh'); }
      else done = this.push(VPU, this.vec(p.m, p.n), 'pVr');
      on = VPU;
    }
    this.panelRingStart = 0;
    if (next && this.chain) {
      if (count >= PANEL_BUFFERS) this.need(DMA, MXU, bufferRead[buf]);
      this.panelLoadAhead(next, buf);
    }
    this.need(DMA, on, done);
    this.push(DMA, this.store(p.m * crow), 'pS');
  }

  /**
   * panel.c matmul_stream() (opts undefined) or stream_ffn.c matmul_stream_ffn() (opts: STREAM_*):
   * the same scheme, each with its own chain state.
   */
  streamCall(p: Mm, keepA: boolean, next: Mm | null, opts?: number): void {
    this.call();
    const ffn = opts !== undefined, o = opts ?? 0, st = ffn ? this.ffn : this.stream, s = ffn ? 'f' : 's';
    const up = (o & STREAM_UP) !== 0, down = (o & STREAM_DOWN) !== 0, resOut = (o & STREAM_RES_OUT) !== 0;
    const { D, ROW4 } = this.plan;
    const chunk = chunkTiles(p.k, STREAM_CHUNK_BYTES, ROW4), tiles = p.n / D, groups = Math.ceil(p.m / D), epi = p.epi ?? EPI_NONE;
    const loaded: number[] = new Array(STREAM_BUFFERS).fill(0), bufferRead: number[] = new Array(STREAM_BUFFERS).fill(0);
    let workBuf = st.ringStart, buf = st.ringStart, count = 0, tilesLeft = tiles;
    const prefetched = st.prefetched;
    st.ringStart = st.prefetched = 0;
    for (let i = 0; i < prefetched; i++) { tilesLeft -= Math.min(tilesLeft, chunk); count++; buf = buf + 1 === STREAM_BUFFERS ? 0 : buf + 1; }
    const load = () => {
      const nt = Math.min(tilesLeft, chunk);
      if (count >= STREAM_BUFFERS) this.need(DMA, MXU, bufferRead[buf]);
      loaded[buf] = this.push(DMA, this.load(p.k * nt * ROW4), `${s}B`);
      tilesLeft -= nt; count++;
      buf = buf + 1 === STREAM_BUFFERS ? 0 : buf + 1;
    };
    const prefetch = (nx: Mm) => {
      const nChunk = chunkTiles(nx.k, STREAM_CHUNK_BYTES, ROW4);
      let nLeft = nx.n / D, pf = 0;
      st.ringStart = buf;
      for (; pf < STREAM_AHEAD && nLeft; pf++) {
        const nt = Math.min(nLeft, nChunk);
        if (count >= STREAM_BUFFERS) this.need(DMA, MXU, bufferRead[buf]);
        this.push(DMA, this.load(nx.k * nt * ROW4), `${s}P`);
        nLeft -= nt; count++;
        buf = buf + 1 === STREAM_BUFFERS ? 0 : buf + 1;
      }
      st.prefetched = pf;
    };
    if (ffn) { if (!(o & (STREAM_KEEP_A | STREAM_DOWN))) this.push(DMA, this.load(p.m * (p.k / 2)), `${s}A`); }
    else if (!keepA) this.push(DMA, this.load(p.m * (p.k / 2)), `${s}A`);
    const resLate = resOut && !prefetched;
    let resLoaded = 0;
    if (epi === EPI_RESIDUAL && !down && !resLate) this.push(DMA, this.load(p.m * (p.n / 2)), `${s}R`);
    if (up && (o & STREAM_KEEP_A)) this.need(MXU, VPU, this.streamOnChip);
    let reluWait = down;
    const gmask = (1 << this.streamReluLog2) - 1;
    for (let i = 0, b = workBuf; i < prefetched; i++, b = b + 1 === STREAM_BUFFERS ? 0 : b + 1) loaded[b] = this.k.pushed(DMA);
    for (let i = prefetched; i < STREAM_AHEAD && tilesLeft; i++) load();
    if (resLate) resLoaded = this.push(DMA, this.load(p.m * (p.n / 2)), `${s}R`);
    let nextLoaded = !(next && this.chain);
    let last = 0;
    for (let i = 0, j = 0; j < tiles; i++) {
      const nt = Math.min(chunk, tiles - j);
      this.need(MXU, DMA, loaded[workBuf]);
      for (let t = 0; t < nt; t++, j++) {
        for (let g = 0; g < groups; g++) {
          if (reluWait && t === 0 && !(g & gmask)) this.need(MXU, VPU, this.streamRelu[g >> this.streamReluLog2]);
          last = this.push(MXU, this.mm(p.k), g === 0 ? `${s}Mt` : `${s}M`);
        }
        reluWait = false;
      }
      bufferRead[workBuf] = last;
      workBuf = workBuf + 1 === STREAM_BUFFERS ? 0 : workBuf + 1;
      if (up) {
        if (tilesLeft) load();
        else if (!nextLoaded) { prefetch(next!); nextLoaded = true; }
        continue;
      }
      let done = last, on: Unit = MXU;
      if (epi !== EPI_NONE) {
        if (resLoaded) { this.need(VPU, DMA, resLoaded); resLoaded = 0; }
        this.need(VPU, MXU, last);
        const busy = this.vec(p.m, nt * D);
        if (epi === EPI_RESIDUAL) { this.push(VPU, busy, `${s}Va`); done = this.push(VPU, busy, `${s}Vh`); }
        else done = this.push(VPU, busy, `${s}Vr`);
        on = VPU;
      }
      if (tilesLeft) load();
      else if (!nextLoaded) { prefetch(next!); nextLoaded = true; }
      if (resOut) this.streamOnChip = done;
      else {
        this.need(DMA, on, done);
        this.push(DMA, this.store(p.m * nt * ROW4), `${s}S`);
      }
    }
    if (up) {
      const cRow = p.n / 2;
      let log2 = 0;
      while (cRow * (D << (log2 + 1)) <= REGION && (1 << (log2 + 1)) <= RELU_BLOCKS_MAX) log2++;
      const blockRows = D << log2;
      this.need(VPU, MXU, last);
      for (let r = 0, q = 0; r < p.m; r += blockRows, q++) this.streamRelu[q] = this.push(VPU, this.vec(Math.min(blockRows, p.m - r), p.n), `${s}Vu`);
      this.streamReluLog2 = log2;
    }
    if (down) {
      this.stream.ringStart = this.ffn.ringStart; this.stream.prefetched = this.ffn.prefetched;
      this.ffn.ringStart = this.ffn.prefetched = 0;
    }
  }
}

// ---- model.c's flows ----

/** model.c's fit checks (kernels' *_fits) on a build's plan: the streamed, pipelined-heads, block-attention and long-context kernels need the 64 KiB one. */
const panelFits = (pl: KernelPlan, v: number, p: Mm) => {
  const { D, ROW4 } = pl, crow = p.out32 ? 4 * p.n : p.n / 2;
  return (v & VARIANT.PANEL) !== 0 && p.m <= D && !p.transpose && !p.causal && D * crow <= REGION && D * (p.k / 2) <= REGION && p.k * ROW4 <= REGION;
};
const streamFits = (pl: KernelPlan, v: number, p: Mm) => {
  const { D, ROW4 } = pl, rows = ceilTo(p.m, D), chunk = chunkTiles(p.k, STREAM_CHUNK_BYTES, ROW4);
  return (v & VARIANT.STREAM) !== 0 && pl.spad64 && p.m <= STREAM_MAX_ROWS && !p.transpose && !p.causal && !p.out32 && rows * (p.k / 2) <= 4 * REGION
    && rows * chunk * ROW4 <= REGION && (p.epi !== EPI_RESIDUAL || p.m * (p.n / 2) <= REGION) && p.k * ROW4 <= REGION;
};
const streamUpFits = (pl: KernelPlan, v: number, p: Mm) =>
  (v & VARIANT.FFN_ON_CHIP) !== 0 && streamFits(pl, v, p) && p.epi === EPI_RELU && p.m * (p.k / 2) <= REGION && p.m * (p.n / 2) <= 4 * REGION;
const decodeAttentionFits = (pl: KernelPlan, v: number, d: number, maxKeys: number) => {
  const D = pl.D, ctx = ceilTo(maxKeys, D);
  return (v & VARIANT.HEADS) !== 0 && pl.spad64 && ctx * (d / 2) <= 2 * REGION && D * (ctx / 2) <= REGION && D * (d / 2) <= REGION;
};
/** kernels/long.c attention_long_fits: LONG_CONTEXT with TOKENS, K and V in four regions each, at least one row group a query block. */
const longAttentionFits = (pl: KernelPlan, v: number, d: number, rows: number) => {
  const D = pl.D, ctx = ceilTo(rows, D);
  return (v & VARIANT.LONG_CONTEXT) !== 0 && (v & VARIANT.TOKENS) !== 0 && pl.spad64 && ctx * (d / 2) <= 4 * REGION && longQueryBlock(d, ctx, D) >= D;
};
/** LONG_CONTEXT with the bits its flow needs (model/firmware-facts.ts VARIANT_NEEDS). */
export const LONG_CONTEXT_NEEDS = withNeeds('LONG_CONTEXT');
/** model.c long_prefill_fits: a block of LONG_BLOCK_ROWS rows takes FFN_ON_CHIP's matmuls, and attention_long holds the prompt. */
const longPrefillFits = (pl: KernelPlan, v: number, d: number, dFF: number, P: number) => {
  const R = LONG_BLOCK_ROWS, up: Mm = { m: R, k: d, n: dFF, epi: EPI_RELU };
  return streamFits(pl, v, { m: R, k: d, n: d, epi: EPI_RESIDUAL }) && streamFits(pl, v, up) && streamFits(pl, v, { m: R, k: dFF, n: d, epi: EPI_RESIDUAL })
    && streamUpFits(pl, v, up) && longAttentionFits(pl, v, d, P);
};
const blockAttentionFits = (pl: KernelPlan, v: number, d: number, rows: number) => {
  const ctx = ceilTo(rows, pl.D);
  return (v & VARIANT.BLOCK_ATTN) !== 0 && pl.spad64 && ctx * (d / 2) <= REGION && ctx * (ctx / 2) <= REGION;
};

/**
 * The CPU clocks of one logits row's argmax (model.c head, batch_head) and the batch's per-sequence bookkeeping
 * after it: 15 a vocabulary entry (lw from the SRAM, the compare and branch, the loop), 35 a row (counted on the
 * trace: batch_head's path to the next PUSH grows 260 clocks a row at vocab 16, 500 at vocab 32).
 */
export const argmaxRowClocks = (vocab: number) => 15 * (vocab - 1) + 35;

/** The job's flows (a single job, or a batch of `batch` prompts of P tokens), one PERF_CTRL window after the other, issuing through `window(i)`'s KernelCpu. */
export function modelProgram(pr: ModelProgram, dims: ModelDims, P: number, decodeSteps: number, window: (i: number) => KernelCpu, batch = 1): ScheduleResult[] {
  const v = pr.variant, pl = pr.plan, { d, dFF, heads, layers, vocab } = dims;
  const head: Mm = { m: 1, k: d, n: vocab, out32: true };
  const wq: Mm = { m: 1, k: d, n: d }, wUp: Mm = { m: 1, k: d, n: dFF }, wDown: Mm = { m: 1, k: dFF, n: d };
  // The head drains the DMA (the logits are in SRAM), then the CPU takes each row's argmax over the vocabulary.
  const argmax = (rows: number) => { pr.k.s.drain(DMA); pr.k.workAfterPoll(rows * argmaxRowClocks(vocab)); };
  const residualProjection = (ctx: string, rows: number, k: number) => {
    if (pr.fuses(rows)) pr.at(ctx).matmul({ m: rows, k, n: d, epi: EPI_RESIDUAL });
    else { pr.at(ctx).matmul({ m: rows, k, n: d }); pr.at(`${ctx}r`).elementwise('residual', rows, d); }
  };
  /** model.c forward(): the tiled kernels and the head; `rows` at positions row0.. */
  const forward = (rows: number, row0: number) => {
    pr.at('E').embed(rows, d);
    for (let l = 0; l < layers; l++) {
      for (const c of ['q', 'k', 'v']) pr.at(c).matmul({ m: rows, k: d, n: d });
      pr.at('a').attention(rows, row0, d, heads);
      residualProjection('o', rows, d);
      pr.at('1').matmul({ m: rows, k: d, n: dFF, epi: EPI_RELU });
      if (!pr.fuses(rows)) pr.at('1r').elementwise('relu', rows, dFF);
      residualProjection('2', rows, dFF);
    }
    pr.at('H').matmul(head);
    argmax(1);
  };
  const panelHead = () => {
    if (panelFits(pl, v, head)) pr.at('H').panel(head, false, null);
    else pr.at('H').matmul(head);
    argmax(1);
  };
  const streamForward = (onChip: boolean, blockAttn: boolean) => {
    pr.at('E').embed(P, d);
    for (let l = 0; l < layers; l++) {
      const after = l + 1 < layers ? { m: 1, k: d, n: d } : null, x: Mm = { m: P, k: d, n: d };
      pr.at('q').streamCall(x, false, wq);
      pr.at('k').streamCall(x, true, wq);
      pr.at('v').streamCall(x, true, null);
      if (blockAttn) pr.at('a').blockAttention(P, d, heads);
      else pr.at('a').attention(P, 0, d, heads);
      const o: Mm = { m: P, k: d, n: d, epi: EPI_RESIDUAL }, f1: Mm = { m: P, k: d, n: dFF, epi: EPI_RELU }, f2: Mm = { m: P, k: dFF, n: d, epi: EPI_RESIDUAL };
      if (onChip) {
        pr.at('o').streamCall(o, false, wUp, STREAM_RES_OUT);
        pr.at('1').streamCall(f1, false, wDown, STREAM_UP | STREAM_KEEP_A);
        pr.at('2').streamCall(f2, false, after, STREAM_DOWN);
      } else {
        pr.at('o').streamCall(o, false, wUp);
        pr.at('1').streamCall(f1, false, wDown);
        pr.at('2').streamCall(f2, false, after);
      }
    }
    panelHead();
  };
  /** model.c stream_forward_long (LONG_CONTEXT): per layer Q, K, V by 64-row blocks, attention_long, then Wo, W1, W2 (FFN on chip) by blocks, each call chained to the next. */
  const longForward = () => {
    pr.at('E').embed(P, d);
    const blocks: number[] = [];
    for (let r0 = 0; r0 < P; r0 += LONG_BLOCK_ROWS) blocks.push(Math.min(LONG_BLOCK_ROWS, P - r0));
    for (let l = 0; l < layers; l++) {
      const after = l + 1 < layers ? wq : null;
      blocks.forEach((m, b) => {
        const x: Mm = { m, k: d, n: d }, more = b + 1 < blocks.length;
        pr.at('q').streamCall(x, false, wq);
        pr.at('k').streamCall(x, true, wq);
        pr.at('v').streamCall(x, true, more ? wq : null);
      });
      pr.at('a').longAttention(P, d, heads);
      blocks.forEach((m, b) => {
        const more = b + 1 < blocks.length;
        pr.at('o').streamCall({ m, k: d, n: d, epi: EPI_RESIDUAL }, false, wUp, STREAM_RES_OUT);
        pr.at('1').streamCall({ m, k: d, n: dFF, epi: EPI_RELU }, false, wDown, STREAM_UP | STREAM_KEEP_A);
        pr.at('2').streamCall({ m, k: dFF, n: d, epi: EPI_RESIDUAL }, false, more ? wq : after, STREAM_DOWN);
        if (more) pr.resumeFfnChain();
      });
    }
    panelHead();
  };
  /** seq_ffn: layer l's Wo, W1, W2, the last chained to the next layer's Wq or the head. */
  const ffnPanels = (l: number) => {
    pr.at('So').panel({ m: 1, k: d, n: d, epi: EPI_RESIDUAL }, false, wUp);
    pr.at('S1').panel({ m: 1, k: d, n: dFF, epi: EPI_RELU }, false, wDown);
    pr.at('S2').panel({ m: 1, k: dFF, n: d, epi: EPI_RESIDUAL }, false, l + 1 < layers ? wq : head);
  };
  /** seq_qkv: Q, K, V of a layer, chained. */
  const qkvPanels = () => {
    pr.at('Sq').panel(wq, false, wq);
    pr.at('Sk').panel(wq, true, wq);
    pr.at('Sv').panel(wq, true, null);
  };
  /**
   * model.c seq_forward (SEQUENCER): the first step records list l — layer l−1's Wo, W1, W2 and layer l's Q, K, V
   * (seq_ffn, seq_qkv) — and list n — the last layer's FFN and the head — as it issues them; every later step
   * replays each list with one RUN (seq_patch points its K, V and logits stores at the step's rows first) and
   * issues only the embedding and attention_decode itself. A replayed list pushes the commands its recording
   * captured, so the kernels' calls give its entries (KernelCpu.beginList).
   */
  const seqForward = (pos: number, record: boolean) => {
    pr.at('SE').embed(1, d);
    for (let l = 0; l < layers; l++) {
      if (!record) pr.k.beginList('SR');
      if (!record && l > 0) ffnPanels(l - 1);
      qkvPanels();
      if (!record) pr.k.endList();
      pr.at('Sa').decodeAttention(pos, d, heads, wq);
      if (record) ffnPanels(l);
    }
    if (!record) { pr.k.beginList('SRH'); ffnPanels(layers - 1); }
    pr.at('SH').panel(head, false, null);
    if (!record) pr.k.endList();
    argmax(1);
  };
  const panelForward = (pos: number, headsPipelined: boolean) => {
    pr.at('E').embed(1, d);
    for (let l = 0; l < layers; l++) {
      const after = l + 1 < layers ? wq : panelFits(pl, v, head) ? head : null;
      pr.at('q').panel(wq, false, wq);
      pr.at('k').panel(wq, true, wq);
      pr.at('v').panel(wq, true, null);
      if (headsPipelined) pr.at('a').decodeAttention(pos, d, heads, wq);
      else pr.at('a').attention(1, pos, d, heads);
      pr.at('o').panel({ m: 1, k: d, n: d, epi: EPI_RESIDUAL }, false, wUp);
      pr.at('1').panel({ m: 1, k: d, n: dFF, epi: EPI_RELU }, false, wDown);
      pr.at('2').panel({ m: 1, k: dFF, n: d, epi: EPI_RESIDUAL }, false, after);
    }
    panelHead();
  };

  const P1: Mm = { m: P, k: d, n: d, epi: EPI_RESIDUAL }, Pup: Mm = { m: P, k: d, n: dFF, epi: EPI_RELU }, Pdown: Mm = { m: P, k: dFF, n: d, epi: EPI_RESIDUAL };
  const panel = (v & VARIANT.PANEL) !== 0;
  const streams = panel && streamFits(pl, v, P1) && streamFits(pl, v, Pup) && streamFits(pl, v, Pdown);
  const onChip = panel && streams && streamUpFits(pl, v, Pup);
  const panels = panel && panelFits(pl, v, wq) && panelFits(pl, v, wUp) && panelFits(pl, v, wDown);
  const headsPipelined = panel && decodeAttentionFits(pl, v, d, dims.maxSeq);
  const blockAttn = panel && blockAttentionFits(pl, v, d, P);
  // model.c main_panel_or_ffn: LONG_CONTEXT's flow when its kernels hold the prompt, before FFN_ON_CHIP's and main_panel's.
  const long = panel && longPrefillFits(pl, v, d, dFF, P);
  // model.c seq_fits: SEQUENCER's decode when every decode matmul (the head's too) takes matmul_panel, attention attention_decode, and the prefill streams.
  const seq = (v & VARIANT.SEQUENCER) !== 0 && (v & VARIANT.CHAIN) !== 0 && headsPipelined && panels && panelFits(pl, v, head) && streams;
  // A list cannot hold a poll (hardware.md §5.11): without TOKENS the recorded chains' waits are not in it; RECORD needs the list memory.
  if (seq && decodeSteps > 0 && !((v & VARIANT.TOKENS) && pr.cfg.tpu.sequencer && pr.cfg.tpu.seqListKiB > 0)) throw new MissingTermError('issue-cost: SEQUENCER without TOKENS or a list memory is not modelled');

  const results: ScheduleResult[] = [];
  if (batch > 1) {
    // model.c run_batch: every sequence's prefill (batch_prefill, then its head row) in one window, the decode steps over the B rows in the other.
    const layer = (rows: number, seqs: number, attnRows: number, row0: number) => {
      for (const c of ['q', 'k', 'v']) pr.at(`b${c}`).matmul({ m: rows, k: d, n: d });
      for (let s = 0; s < seqs; s++) pr.at('ba').attention(attnRows, row0, d, heads);
      residualProjection('bo', rows, d);
      pr.at('b1').matmul({ m: rows, k: d, n: dFF, epi: EPI_RELU });
      if (!pr.fuses(rows)) pr.at('b1r').elementwise('relu', rows, dFF);
      residualProjection('b2', rows, dFF);
    };
    const batchHead = (ctx: string, rows: number) => { pr.at(ctx).matmul({ ...head, m: rows }); argmax(rows); };
    pr.k = window(0);
    for (let s = 0; s < batch; s++) {
      pr.at('bE').embed(P, d);
      for (let l = 0; l < layers; l++) layer(P, 1, P, 0);
      batchHead('bH', 1);
    }
    results.push(pr.k.finish([]));
    if (decodeSteps > 0) {
      pr.k = window(1);
      for (let i = 1; i <= decodeSteps; i++) {
        for (let s = 0; s < batch; s++) pr.at('bE').embed(1, d);
        for (let l = 0; l < layers; l++) layer(batch, batch, 1, P + i - 1);
        batchHead('bHd', batch);
      }
      results.push(pr.k.finish([]));
    }
    return results;
  }
  pr.k = window(0);
  if (long) longForward(); else if (streams) streamForward(onChip, blockAttn); else forward(P, 0);
  results.push(pr.k.finish([]));
  if (decodeSteps > 0) {
    pr.k = window(1);
    for (let i = 1; i <= decodeSteps; i++) {
      if (seq) seqForward(P + i - 1, i === 1);
      else if (panels) panelForward(P + i - 1, headsPipelined); else forward(1, P + i - 1);
    }
    results.push(pr.k.finish([]));
  }
  return results;
}

/** The term class of a model run: the matmul's code class (the bits that change the helpers' instructions). */
export const modelClass = (variant: number, tag = '') => `model:${tag}${codeClass(variant)}`;

/**
 * The variant bits whose kernels this file transcribes: DOUBLE_BUFFER … SEQUENCER. Any other bit (a later
 * VARIANT, such as 8192) predicts nothing until its kernels are transcribed and calibrated.
 */
export const MODELLED_BITS = 8191;


/**
 * Predicted run clocks of a model job's windows (prefill, then decode when it has
 * decode steps), or null where the flows are not modelled: a batch, another
 * platform configuration, an unknown variant bit, a path no calibration run took.
 */
export function predictModelRun(dims: ModelDims, job: Job, cfg: PlatformConfig = defaultConfig(), terms: TermSource = boardTerms(cfg)): number[] | null {
  const tag = firmwareTag(cfg);
  if (tag === null) return null;
  if ((job.variant & ~MODELLED_BITS) !== 0) return null;
  const stop = job.stopToken;
  // A stop token in the vocabulary may end decoding early: the model does not know where.
  if (job.decodeSteps > 0 && stop !== undefined && stop >= 0 && stop < dims.vocab) return null;
  try {
    const pr = new ModelProgram(job.variant, cfg);
    const cls = modelClass(job.variant, tag);
    const B = jobPrompts(job).length;
    // Whole clocks: the counted savings and accesses are means over the calibration runs.
    return modelProgram(pr, dims, job.prompt.length, job.decodeSteps, () => new KernelCpu(job.variant, terms, cls, cfg), B).map((r) => Math.round(r.runClocks));
  } catch (e) {
    if (e instanceof MissingTermError) return null;
    throw e;
  }
}
