// The analytic model of the tensor-parallel model on N boards
// (build/fw/model_tp.elf, firmware-c/model/model_tp.c and
// kernels/collective.c): per board, the commands it pushes — the tiled
// kernels through model-program.ts's transcriptions, the row-parallel
// partial matmul and the ring AllReduce transcribed here — run through the
// schedule model (model/predict/schedule.ts) with the LINK's SENDs as a fourth queue
// and the mailbox's arrivals as clocks the CPU polls for.
//
// Timing rules (docs/hardware.md §5.12): a SEND is busy linkSetup + bytes ×
// linkClocksPerByte clocks and lands whole linkLatency clocks after its last.
// Every board runs the same commands on the same sizes, so (up to a few
// clocks of branch differences) the boards run in step: board b's k-th
// arrival is board b−1's k-th SEND, which ends when board b's own k-th SEND
// ends. The link busy clocks are exact (messages × setup + bytes); the run
// clocks come from the schedule, with the CPU's clocks between PUSHes taken
// from issue terms counted on model_tp.elf's own trace
// (scripts/calibrate-tp-issue.ts → model/predict/calibration/issue-terms-tp.jsonl) on jobs other than
// the bench's and the sweep's.

import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import type { Job, ModelDims } from '../format.ts';
import { codeClass, KernelCpu, MissingTermError, type TermSource } from './issue-cost.ts';
import { argmaxRowClocks, ModelProgram } from './model-program.ts';
import { DMA, LINK, MXU, RX, VPU, type AnyUnit, type ScheduleResult } from './schedule.ts';
import { calibration } from './calibration.ts';
import { shardingError } from '../tensor-parallel.ts';

const D = 8, EPI_RELU = 1, SLOTS = 32, SLOT_BYTES = 256, REGION = 4096;
/** The variant bits model_tp.c honours (its TILED_BITS): the tiled kernels'. */
export const TP_VARIANT_BITS = 31;

/** collective.c ring_begin: mailbox slots per buffer and rows per AllReduce block. */
export function ringPlan(d: number, boards: number): { bufSlots: number; rows: number } {
  const cw = Math.floor(d / boards), bufSlots = Math.floor(SLOTS / boards), bufBytes = bufSlots * SLOT_BYTES;
  let rows = 0;
  if (boards === 1) { while ((rows + 1) * 4 * d <= 2 * REGION) rows++; }
  else { while ((rows + 1) * 4 * cw <= bufBytes && (rows + 1) * 4 * d <= 2 * REGION) rows++; }
  return { bufSlots, rows: rows & ~(D - 1) };
}

/** One board's link traffic in a window: SENDs, bytes, busy clocks (exact: Σ linkSetup + bytes × linkClocksPerByte). */
export interface LinkFigures { messages: number; bytes: number; busy: number }

/** A window's prediction for one board. */
export interface TpWindow {
  runClocks: number;
  /** Busy clocks per unit (the sharded work's compute) and the link's. */
  dma: number; mxu: number; vpu: number;
  link: LinkFigures;
  /** Clocks of the AllReduces (from the partial's last MATMUL to the x rows' store), summed. */
  allReduceClocks: number;
  /** AllReduces run (2 per layer and row block). */
  allReduces: number;
}

/** The commands model_tp.c pushes on one board, over a KernelCpu per window. */
export class TpProgram {
  k!: KernelCpu;
  private entry = false;
  private ctx = '';
  link: LinkFigures = { messages: 0, bytes: 0, busy: 0 };
  allReduceClocks = 0;
  allReduces = 0;
  private readonly cw: number;
  private readonly fw: number;
  private readonly block: number;

  constructor(readonly pr: ModelProgram, readonly dims: ModelDims, readonly boards: number, private readonly cfg: PlatformConfig) {
    this.cw = dims.d / boards;
    this.fw = dims.dFF / boards;
    this.block = ringPlan(dims.d, boards).rows;
  }

  private load(bytes: number) { return this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramReadClocksPerByte; }
  private store(bytes: number) { return this.cfg.tpu.dmaSetup + bytes * this.cfg.bus.sramWriteClocksPerByte; }
  private mm(k: number) { return this.cfg.tpu.mxuSetup + k + 2 * (D - 1) + D; }
  private vec(rows: number, cols: number) { return this.cfg.tpu.vpuSetup + rows * Math.ceil(cols / 8); }

  /** A PUSH of the collective kernels, waited for at once (collective.c waits for every command). */
  private push(unit: AnyUnit, busy: number, site: string, wait = true): number {
    const mark = this.entry ? '^' : '';
    this.entry = false;
    const t = this.k.push(unit, busy, `${this.ctx}${site}${mark}`);
    if (wait) this.k.s.wait({ unit, ticket: t });
    return t;
  }

  /** link_send, then the poll for the arrival of the neighbour's SEND of the same index. */
  private sendAndReceive(bytes: number, site: string): void {
    const { linkSetup, linkClocksPerByte, linkLatency } = this.cfg.tpu;
    const busy = linkSetup + bytes * linkClocksPerByte;
    const t = this.push(LINK, busy, site, false);
    this.link.messages++; this.link.bytes += bytes; this.link.busy += busy;
    const landing = this.k.s.endOf({ unit: LINK, ticket: t }) + linkLatency;
    this.k.s.wait(this.k.s.arrive(landing));
  }

  /** collective.c partial_matmul: rows × k times this board's k rows of a [·, d] weight into the int32 block. */
  partialMatmul(rows: number, k: number): void {
    this.entry = true;
    for (const u of [DMA, MXU, VPU]) this.k.s.drain(u as AnyUnit);
    this.push(DMA, this.load(rows * (k / 2)), 'pA');
    for (let j = 0; j < this.dims.d / D; j++) {
      this.push(DMA, this.load(k * (D / 2)), 'pB');
      for (let r = 0; r < rows; r += D) this.push(MXU, this.mm(k), 'pM');
    }
  }

  /** collective.c allreduce_residual over `rows` rows. */
  allReduceResidual(rows: number): void {
    this.entry = true;
    const n = this.boards, cw = this.cw, start = this.k.s.endOf({ unit: MXU, ticket: this.k.pushed(MXU) });
    for (let s = 0; s + 1 < n; s++) {
      this.sendAndReceive(rows * cw * 4, 'rS');
      this.k.s.wait({ unit: LINK, ticket: this.k.pushed(LINK) });
      this.push(VPU, this.vec(rows, cw), 'rA');
    }
    this.push(DMA, this.load(rows * (cw / 2)), 'xL');
    this.push(VPU, this.vec(rows, cw), 'xQ');
    this.push(VPU, this.vec(rows, cw), 'xA');
    this.push(VPU, this.vec(rows, cw), 'xH');
    for (let s = 0; s + 1 < n; s++) {
      this.sendAndReceive(rows * (cw / 2), 'gS');
      this.push(VPU, this.vec(rows, cw), 'gC');
    }
    if (n > 1) this.k.s.wait({ unit: LINK, ticket: this.k.pushed(LINK) });
    const t = this.push(DMA, this.store(rows * (this.dims.d / 2)), 'xS');
    this.allReduceClocks += this.k.s.endOf({ unit: DMA, ticket: t }) - start;
    this.allReduces++;
  }

  /** model_tp.c row_parallel_residual. */
  private rowParallel(ctx: string, rows: number, k: number): void {
    for (let r = 0; r < rows; r += this.block) {
      const n = Math.min(this.block, rows - r);
      this.ctx = ctx;
      this.partialMatmul(n, k);
      this.allReduceResidual(n);
    }
  }

  /** model_tp.c forward(): `rows` positions from row0, then the head and its argmax. */
  forward(rows: number, row0: number): void {
    const { d, heads, layers, vocab } = this.dims, pr = this.pr, cw = this.cw, fw = this.fw;
    pr.at('TE').embed(rows, d);
    for (let l = 0; l < layers; l++) {
      for (const c of ['Tq', 'Tk', 'Tv']) pr.at(c).matmul({ m: rows, k: d, n: cw });
      pr.at('Ta').attention(rows, row0, cw, heads / this.boards);
      this.rowParallel('To', rows, cw);
      pr.at('T1').matmul({ m: rows, k: d, n: fw, epi: EPI_RELU });
      if (!pr.fuses(rows)) pr.at('T1r').elementwise('relu', rows, fw);
      this.rowParallel('T2', rows, fw);
    }
    pr.at('TH').matmul({ m: 1, k: d, n: vocab, out32: true });
    this.k.s.drain(DMA);
    this.k.workAfterPoll(argmaxRowClocks(vocab));
  }
}

/** The term class of a model_tp run (the tiled kernels' code class). */
export const tpClass = (variant: number) => `tp:${codeClass(variant & TP_VARIANT_BITS)}`;

export const tpTableTerms: TermSource = (cls, path) => {
  const t = calibration('issue-terms-tp')[cls]?.[path];
  if (!t) throw new MissingTermError(`issue-cost: no term for ${cls} ${path}: no calibration run (scripts/calibrate-tp-issue.ts) takes that path`);
  return { issue: t[0], firstRead: t[1], afterRead: t[2] };
};

/** Runs the program over one KernelCpu per window (prefill, then decode when there are steps); the KernelCpus and results. */
export function tpProgram(dims: ModelDims, P: number, decodeSteps: number, boards: number, variant: number,
                          window: () => KernelCpu, cfg: PlatformConfig = defaultConfig()): { cpus: KernelCpu[]; windows: TpWindow[] } {
  const v = variant & TP_VARIANT_BITS, pr = new ModelProgram(v, cfg), tp = new TpProgram(pr, dims, boards, cfg);
  const cpus: KernelCpu[] = [], windows: TpWindow[] = [];
  const run = (body: () => void) => {
    const k = window();
    cpus.push(k);
    pr.k = tp.k = k;
    tp.link = { messages: 0, bytes: 0, busy: 0 };
    tp.allReduceClocks = tp.allReduces = 0;
    body();
    const r: ScheduleResult = k.finish([DMA, MXU, VPU]);
    windows.push({
      runClocks: r.runClocks, dma: k.s.busyOf(DMA), mxu: k.s.busyOf(MXU), vpu: k.s.busyOf(VPU),
      link: { ...tp.link }, allReduceClocks: tp.allReduceClocks, allReduces: tp.allReduces,
    });
  };
  run(() => tp.forward(P, 0));
  if (decodeSteps > 0) run(() => { for (let i = 1; i <= decodeSteps; i++) tp.forward(1, P + i - 1); });
  return { cpus, windows };
}

/**
 * The predicted windows of a model_tp job on N boards (every board alike), or
 * null where the model cannot say: a platform whose CPU timing the terms were
 * not counted on, a stop token that may end decoding early, a path no
 * calibration run took. Throws when the model does not shard over N.
 */
export function predictTpRun(dims: ModelDims, job: Job, boards: number, cfg: PlatformConfig = defaultConfig(),
                             terms: TermSource = tpTableTerms): TpWindow[] | null {
  const why = shardingError(dims, boards);
  if (why) throw new Error(why);
  if (job.decodeSteps > 0 && job.stopToken !== undefined && job.stopToken >= 0 && job.stopToken < dims.vocab) return null;
  try {
    const cls = tpClass(job.variant);
    return tpProgram(dims, job.prompt.length, job.decodeSteps, boards, job.variant, () => new KernelCpu(job.variant & TP_VARIANT_BITS, terms, cls, cfg), cfg).windows;
  } catch (e) {
    if (e instanceof MissingTermError) return null;
    throw e;
  }
}

/**
 * The textbook ring figures for one AllReduce of `bytes` bytes per board
 * over N boards at `bytesPerClock`: 2·(N−1)/N · bytes / bandwidth clocks
 * (each board sends 2(N−1) chunks of bytes/N). The firmware's cheap variant
 * sends its all-gather half as int4 (1/8 of the int32 bytes):
 * (N−1)/N · bytes · (1 + 1/8) / bandwidth.
 */
export function ringAllReduceClocks(bytes: number, boards: number, bytesPerClock = 1): { textbook: number; int4Gather: number } {
  const f = (boards - 1) / boards;
  return { textbook: (2 * f * bytes) / bytesPerClock, int4Gather: (f * bytes * (1 + 1 / 8)) / bytesPerClock };
}
