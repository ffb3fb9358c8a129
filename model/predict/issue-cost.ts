// The issue-cost model: the CPU clocks the firmware spends between one PUSH
// and the next, per code path, and the kernels' command programs that the
// schedule model (model/predict/schedule.ts) runs to predict run clocks.
//
// A code path is named by the PUSH sites at its two ends ("B>M0": from a B
// tile's LOAD to the tile's first MATMUL). Its term has three numbers:
// `issue`, the clocks of the path's instructions when the CPU does not poll;
// where it polls, `firstRead`, the clocks from the previous PUSH to its first
// DONE read, and `afterRead`, from the read that sees the command done to the
// PUSH (the poll loop's exit and the rest of the path); between them the
// poll loop reads every 15 clocks (schedule.ts POLL_LOOP_CLOCKS).
// The terms are counted on the emulator's trace of a few calibration shapes
// per kernel and code class (scripts/calibrate-issue.ts prints the table,
// model/predict/calibration/issue-terms.jsonl) — instruction clocks follow docs/hardware.md §1.2, a TPU
// register access adds tpuWait (2; the accesses per path are counted on the
// same trace, so another wait is a formula: waitTerms), a DONE poll iteration
// is lw + sub + bltz = 7 + 3 + 5 = 15 clocks — and are held on shapes nobody picked
// (test/issue-cost.test.ts). Which path a PUSH takes, which command the CPU
// or a token waits for, and each command's busy clocks come from the kernel's
// code (firmware-c/kernels) and analytic.ts's timing rules.

import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import { classClocks, shiftSteps } from '../../emu/timing.ts';
import { VARIANT } from '../format.ts';
import { buildsNeeded, chunkTiles, FIRMWARE_BUILDS, PANEL_CHUNK_BYTES, STREAM_AHEAD, STREAM_BUFFERS, STREAM_CHUNK_BYTES, STREAM_MAX_ROWS } from '../firmware-facts.ts';
import { DMA, MXU, Schedule, SEQ, VPU, type AnyUnit, type IssueTerm, type ScheduleResult, type Ticket, type Unit } from './schedule.ts';
import type { MatmulShape } from './analytic.ts';
import { calibration } from './calibration.ts';

/** Clocks of a shift by one place (slli, srli): 5 with the two-stage shifter, 3 with BARREL_SHIFTER (hardware.md §1.2). */
export const shiftByOneClocks = (cfg: PlatformConfig) => classClocks(cfg.cpu).shifti + shiftSteps(1, cfg.cpu);
const SHIFT1 = 5;

/**
 * libgcc's shift-and-add multiply (__mulsi3, RV32I has no mul): 15 clocks of
 * call, set-up and return, then one iteration per bit of the multiplier a1
 * (at least one): and 3, beqz 5 (taken on a 0 bit) or 3 + add 3, srli 5,
 * slli 5, bnez 5 (3 on the last); `shift1` the clocks of srli and slli by one.
 * The kernels' per-block addresses (matmul.c: r0 · a_stride and the like) pay it.
 */
export function mulsi3Clocks(multiplier: number, shift1 = SHIFT1): number {
  let clocks = 15 - 2;
  let a1 = multiplier >>> 0;
  const shifts = 2 * (shift1 - SHIFT1);
  do { clocks += (a1 & 1 ? 24 : 23) + shifts; a1 >>>= 1; } while (a1);
  return clocks;
}

/** The rv32im build (model/firmware-facts.ts FIRMWARE_BUILDS: a board with ENABLE_MUL or ENABLE_FAST_MUL runs it). */
export const rv32imBuild = (cfg: PlatformConfig) => FIRMWARE_BUILDS.some((b) => b.name === 'rv32im' && b.needed(cfg));

/**
 * The clocks beyond its term a path spends on a multiply by `multiplier`: libgcc's __mulsi3 on the RV32I
 * builds (its clocks depend on the operand); nothing on the rv32im build, whose MUL is one instruction of
 * constant clocks, counted in the path's term.
 */
export function multiplyExtra(cfg: PlatformConfig, multiplier: number): number {
  return rv32imBuild(cfg) ? 0 : mulsi3Clocks(multiplier, shiftByOneClocks(cfg));
}

/**
 * libgcc's restoring divide (__udivsi3): 24 clocks of call, checks and return;
 * a loop doubling the divisor until it reaches the dividend (blez 3, slli 5,
 * slli 5, bltu 5; 16 on the last); then one iteration per quotient bit (bltu
 * 5 on a 0 bit, or 3 + sub 3 + or 3; srli 5, srli 5, bnez 5, 3 on the last); `shift1` as for mulsi3Clocks.
 */
export function udivsi3Clocks(dividend: number, divisor: number, shift1 = SHIFT1): number {
  let clocks = 3 + 3 + 3 + 3 + 3 + 3 + 3 + 6 + 3; // call, moves, checks, li a0, ret
  let d = divisor >>> 0, bit = 1, n = dividend >>> 0;
  const shifts = 2 * (shift1 - SHIFT1);
  if (d < n) {
    while (d < n && d > 0 && (d | 0) > 0) { clocks += 18 + shifts; d = (d * 2) >>> 0; bit *= 2; }
    clocks -= 2;
  }
  for (; bit >= 1; bit /= 2, d = Math.floor(d / 2)) {
    if (n >= d) { n -= d; clocks += 24 + shifts; } else clocks += 20 + shifts;
  }
  return clocks - 2;
}

/** The code class of a variant: the bits that change the tiled matmul's instructions (k_issued/k_need and LEAN). */
export function codeClass(variant: number): string {
  const db = variant & VARIANT.DOUBLE_BUFFER ? 'db' : '', tok = variant & VARIANT.TOKENS ? 'tok' : '', lean = variant & VARIANT.LEAN ? 'lean' : '';
  return [db, tok, lean].filter(Boolean).join('+') || 'base';
}

/** A code path the calibration shapes never took. */
export class MissingTermError extends Error {}

/** Looks a path's term up; a path no calibration shape took throws MissingTermError (predictMatmulRun then predicts nothing). */
export type TermSource = (cls: string, path: string) => IssueTerm;
export const tableTerms: TermSource = (cls, path) => {
  const t = (calibration('issue-terms')[cls] ?? calibration('issue-terms-model')[cls])?.[path];
  if (!t) throw new MissingTermError(`issue-cost: no term for ${cls} ${path}: no calibration run (scripts/calibrate-issue.ts, calibrate-model-issue.ts) takes that path`);
  return { issue: t[0], firstRead: t[1], afterRead: t[2] };
};

/** The TPU register port's wait clocks the terms were counted at (the default board). */
const CALIBRATED_TPU_WAIT = 2;

/**
 * The terms on a board whose TPU register port waits `tpuWait` clocks: each path's clocks are its counted
 * clocks plus, per TPU-register access on it (counted on the same trace, model/predict/calibration/issue-accesses*.jsonl), the
 * change in wait: path clocks = base + accesses × tpuWait. A path whose accesses were not counted throws
 * MissingTermError (no prediction).
 */
export function waitTerms(tpuWait: number, terms: TermSource = tableTerms): TermSource {
  if (tpuWait === CALIBRATED_TPU_WAIT) return terms;
  const dw = tpuWait - CALIBRATED_TPU_WAIT;
  return (cls, path) => {
    const t = terms(cls, path), a = (calibration('issue-accesses')[cls] ?? calibration('issue-accesses-model')[cls])?.[path];
    if (!a) throw new MissingTermError(`issue-cost: no access count for ${cls} ${path}`);
    return { issue: t.issue + a[0] * dw, firstRead: t.firstRead + a[1] * dw, afterRead: t.afterRead + a[2] * dw };
  };
}

/**
 * The terms with each path's clocks less what a CPU what-if takes off the instructions on it (`saved`, counted
 * per path on the calibration trace and the documented clocks, model/predict/calibration/issue-*-savings-model.jsonl): BARREL_SHIFTER's
 * shifts, ENABLE_FAST_MUL's multiplies. A path whose savings were not counted throws MissingTermError.
 */
export function savedTerms(terms: TermSource, saved: (cls: string) => Record<string, [number, number, number]> | undefined, what: string): TermSource {
  return (cls, path) => {
    const t = terms(cls, path), x = saved(cls)?.[path];
    if (!x) throw new MissingTermError(`issue-cost: no ${what} count for ${cls} ${path}`);
    return { issue: t.issue - x[0], firstRead: t.firstRead - x[1], afterRead: t.afterRead - x[2] };
  };
}

/**
 * The terms a board's runs take (tableTerms on the default board): the TPU register port's wait (waitTerms),
 * and the CPU's shifter and multiplier: the terms were counted with the two-stage shifter and, on the rv32im
 * build, ENABLE_MUL's 40-clock MUL; BARREL_SHIFTER and ENABLE_FAST_MUL take their counted savings off.
 */
export function boardTerms(cfg: PlatformConfig): TermSource {
  let terms = waitTerms(cfg.bus.tpuWait);
  // Counted for model.elf's builds only: mmbench on the barrel shifter (which no sweep or bench run reaches) predicts nothing.
  if (cfg.cpu.BARREL_SHIFTER) terms = savedTerms(terms, (cls) => calibration('issue-shift-savings-model')[cls], 'shift');
  if (cfg.cpu.ENABLE_FAST_MUL) terms = savedTerms(terms, (cls) => calibration('issue-mul-savings-model')[cls], 'multiply');
  return terms;
}

/**
 * The kernels' helpers (kernels.h k_need, k_issued; tpu.h tpu_push) over a
 * Schedule: which waits the CPU makes and which tokens ride on commands, and
 * the path names between PUSH sites.
 */
export class KernelCpu {
  readonly s: Schedule;
  private readonly tokens: boolean;
  private readonly polls: boolean;
  /** No DOUBLE_BUFFER or TOKENS: k_issued waits for every command as soon as it is pushed. */
  readonly serial: boolean;
  private readonly next: (Ticket | null)[] = [null, null, null, null, null];
  private site = 'start';
  /** Each PUSH's path, in order (the calibration aligns them with the trace). */
  readonly paths: string[] = [];
  /** Each PUSH's unit, in order (the calibration checks them against the trace). */
  readonly units: AnyUnit[] = [];
  constructor(variant: number, private readonly terms: TermSource, readonly cls = codeClass(variant), cfg: PlatformConfig = defaultConfig()) {
    this.s = new Schedule(cfg.tpu.queueDepth, cfg.bus.tpuWait);
    this.tokens = (variant & VARIANT.TOKENS) !== 0;
    this.serial = (variant & (VARIANT.DOUBLE_BUFFER | VARIANT.TOKENS)) === 0;
    this.polls = !this.serial && !this.tokens;
  }
  /** k_need_slow calls since the last PUSH: each is a call the inline k_need does not skip. */
  private slowNeeds = 0;
  /** The token each unit's ARG5 holds (tpu_staged_token): tpu_push writes ARG5 only when it changes. */
  private readonly staged: (string | null)[] = [null, null, null, null, null];
  /** kernels.h k_need: unit's next command must follow `ticket` of `on`. */
  need(unit: Unit, on: Unit, ticket: number): void {
    if (this.serial || unit === on || ticket === 0) return;
    if (!this.listing) this.slowNeeds++;
    if (this.polls) { this.poll({ unit: on, ticket }); return; }
    const cur = this.next[unit];
    if (cur) {
      if (cur.unit === on) ticket = Math.max(ticket, cur.ticket);
      else this.poll(cur);
    }
    this.next[unit] = { unit: on, ticket };
  }
  private poll(t: Ticket): void {
    // RECORD captures PUSHes only (hardware.md §5.11): a kernel that polls cannot be replayed from a list.
    if (this.listing) throw new MissingTermError('issue-cost: a replayed list cannot hold a CPU poll');
    this.s.wait(t);
  }

  /** While a RUN replays a recorded list (sequencer.c seq_replay): the kernels' commands are its entries, the CPU runs none of their code. */
  private listing = false;
  /**
   * seq_replay: the CPU's path to its PUSH of RUN at site `site` (seq_patch's register writes on it); then the
   * kernels' calls push the list's entries (they issue the commands their recording captured), until endList.
   */
  beginList(site: string): void {
    this.s.beginRun(this.pathTerm(SEQ, site, false));
    this.site = site;
    this.listing = true;
  }
  /** The list's last entry: seq_wait polls SEQ's DONE until the RUN has pushed it. */
  endList(): void {
    this.listing = false;
    this.s.wait(this.s.endRun());
  }
  /** The path to a PUSH at `site` (its name, logged for the calibration) and its term. */
  private pathTerm(unit: AnyUnit, site: string, writesArg5: boolean, extra = 0): IssueTerm {
    const path = `${this.site}>${site}${this.slowNeeds ? `/${this.slowNeeds}` : ''}${writesArg5 ? '+arg5' : ''}`;
    this.slowNeeds = 0;
    this.paths.push(path);
    this.units.push(unit);
    this.extras.push(extra);
    return this.withAfterPoll(this.terms(this.cls, path));
  }
  /** Clocks the path spends beyond its table term, per PUSH (libgcc calls whose cost depends on the operands). */
  readonly extras: number[] = [];
  /** Clocks of CPU work after the CPU's poll on the path to the next PUSH (or the window's end): the head's argmax after its drain. */
  private pendingAfterPoll = 0;
  /** Each PUSH's after-poll clocks, in order (the calibration takes them out of the counted path). */
  readonly afterPoll: number[] = [];
  /** The CPU works `clocks` after its poll and before the next PUSH (their number depends on the operands). */
  workAfterPoll(clocks: number): void { this.pendingAfterPoll += clocks; }
  private withAfterPoll(term: IssueTerm): IssueTerm {
    const x = this.pendingAfterPoll;
    this.afterPoll.push(x);
    this.pendingAfterPoll = 0;
    return x ? { issue: term.issue + x, firstRead: term.firstRead, afterRead: term.afterRead + x } : term;
  }
  /**
   * tpu_push at PUSH site `site`, then kernels.h k_issued (the base variant waits for every command).
   * `burst`: a command of a run pushed back to back after its first (long.c BURST_PUSH): no k_need, no token check;
   * ARG5 keeps the run's token, which the unit's earlier command already met.
   */
  push(unit: AnyUnit, busy: number, site: string, extra = 0, burst = false): number {
    const token = burst ? undefined : this.next[unit] ?? undefined;
    if (!burst) this.next[unit] = null;
    // A list's entry: the command its recording captured, with its token; the CPU's ARG5 stays as it was.
    if (this.listing) return this.s.feed(unit, busy, token).ticket;
    // The path's name says how many k_need_slow calls it makes and whether it writes ARG5 (a new token): both are instructions on it.
    const tokenKey = token ? `${token.unit}:${token.ticket}` : null, writesArg5 = !burst && tokenKey !== this.staged[unit];
    if (!burst) this.staged[unit] = tokenKey;
    const term = this.pathTerm(unit, site, writesArg5, extra);
    // The serial variant polls right after the previous PUSH (k_issued), so a path's extra work comes after its poll; the others poll just before the PUSH.
    const t = this.s.push(unit, busy, this.serial
      ? { issue: term.issue + extra, firstRead: term.firstRead, afterRead: term.afterRead + extra }
      : { issue: term.issue + extra, firstRead: term.firstRead + extra, afterRead: term.afterRead }, token);
    this.site = site;
    if (this.serial) this.s.wait(t);
    return t.ticket;
  }
  pushed(unit: AnyUnit): number { return this.s.pushed(unit); }
  /** tpu_drain_all (or the drains given), then PERF_CTRL = 0. */
  finish(units: Unit[] = [DMA, MXU, VPU]): ScheduleResult {
    for (const u of units) this.s.drain(u);
    const path = `${this.site}>end${this.slowNeeds ? `/${this.slowNeeds}` : ''}`;
    this.paths.push(path);
    this.extras.push(0);
    return this.s.finish(this.withAfterPoll(this.terms(this.cls, path)));
  }
}

/** Busy clocks of single commands (hardware.md §5.4–5.5; analytic.ts Work has the same rules). */
export function busyRules(cfg: PlatformConfig) {
  const D = cfg.tpu.mxuDim;
  return {
    load: (bytes: number) => cfg.tpu.dmaSetup + bytes * cfg.bus.sramReadClocksPerByte,
    store: (bytes: number) => cfg.tpu.dmaSetup + bytes * cfg.bus.sramWriteClocksPerByte,
    matmul: (k: number) => cfg.tpu.mxuSetup + k + 2 * (D - 1) + D,
  };
}

/** kernels/matmul.c matmul(), plain (not transposed, not causal, no epilogue), as mmbench's run_tiled issues it. */
export function tiledMatmulProgram(k: KernelCpu, sh: MatmulShape, variant: number, cfg: PlatformConfig = defaultConfig()): ScheduleResult {
  const D = cfg.tpu.mxuDim, REGION = 4096, aBytes = cfg.tpu.spadKiB === 64 ? 8 * REGION : 2 * REGION;
  const busy = busyRules(cfg);
  const db = (variant & VARIANT.DOUBLE_BUFFER) !== 0;
  const arow = sh.k / 2, crow = D / 2;
  let block = Math.min(Math.floor(aBytes / arow), Math.floor(REGION / crow)) & ~(D - 1);
  block = Math.min(block, Math.ceil(sh.m / D) * D);
  const tiles = sh.n / D;
  k.need(DMA, MXU, k.pushed(MXU)); k.need(DMA, VPU, k.pushed(VPU)); // k_barrier
  const bRead = [0, 0], loaded = [0, 0];
  for (let r0 = 0; r0 < sh.m; r0 += block) {
    const rows = Math.min(block, sh.m - r0), groups = Math.ceil(rows / D);
    k.need(DMA, MXU, k.pushed(MXU));
    // The block's addresses: three multiplies by r0 (A, C and residual rows; mmbench's residual stride is 0); the first block also divides for its size.
    const setup = (r0 === 0 ? udivsi3Clocks(aBytes, arow, shiftByOneClocks(cfg)) : 0) + multiplyExtra(cfg, r0) + multiplyExtra(cfg, sh.n / 2) + multiplyExtra(cfg, 0);
    k.push(DMA, busy.load(rows * arow), 'A', setup);
    const loadTile = (j: number) => {
      const bi = db ? j & 1 : 0;
      k.need(DMA, MXU, bRead[bi]);
      loaded[bi] = k.push(DMA, busy.load(sh.k * crow), 'B');
    };
    if (db) loadTile(0);
    for (let j = 0; j < tiles; j++) {
      if (!db) loadTile(j);
      else if (j + 1 < tiles) loadTile(j + 1);
      const bi = db ? j & 1 : 0;
      k.need(MXU, DMA, loaded[bi]);
      let last = 0;
      for (let g = 0; g < groups; g++) last = k.push(MXU, busy.matmul(sh.k), g === 0 ? 'M0' : 'M');
      bRead[bi] = last;
      k.need(DMA, MXU, last);
      k.push(DMA, busy.store(rows * crow), 'S');
    }
  }
  return k.finish();
}

/** kernels/panel.c panel_chunk: tiles per B chunk, the largest power of two whose K × 4-byte tiles (8×8 MXU) fit `limit` bytes. */
const tilesPerChunk = (k: number, limit: number) => chunkTiles(k, limit, 4);
/** One doubling of panel_chunk's loop (slli 5, slli 5, bgeu 5): the call's set-up pays it log2(chunk) times. */
const CHUNK_LOOP_CLOCKS = 15;
const log2 = (n: number) => 31 - Math.clz32(n);
/** matmul_stream's and matmul_panel's set-up when their chunk loops run at all (chunk > 1). */
const STREAM_LOOP_ENTRY = 20, PANEL_LOOP_ENTRY = 19;

/** kernels/panel.c PANEL_BUFFERS: 16 regions − A, C, residual (the chunk and stream constants are model/firmware-facts.ts's). */
const PANEL_BUFFERS = 13;

/** kernels/panel.c matmul_panel() with no epilogue, A not kept, no next call, as mmbench's run_panel issues it (then drains the DMA). */
export function panelMatmulProgram(k: KernelCpu, sh: MatmulShape, cfg: PlatformConfig = defaultConfig()): ScheduleResult {
  const busy = busyRules(cfg), tiles = sh.n / 8, chunk = tilesPerChunk(sh.k, PANEL_CHUNK_BYTES);
  // panel_chunk's loop (counted on the trace: 464 clocks for a chunk of 1, 498 for 2, 15 more a doubling).
  k.push(DMA, busy.load(sh.m * (sh.k / 2)), 'PA', CHUNK_LOOP_CLOCKS * log2(chunk) + (chunk > 1 ? PANEL_LOOP_ENTRY : 0));
  const bufferRead: number[] = new Array(PANEL_BUFFERS).fill(0);
  let last = 0;
  for (let i = 0, j = 0, buf = 0; j < tiles; i++) {
    const nt = Math.min(chunk, tiles - j);
    if (i >= PANEL_BUFFERS) k.need(DMA, MXU, bufferRead[buf]);
    // A short last chunk stages its ROW_BYTES again: its own PUSH site.
    const loaded = k.push(DMA, busy.load(sh.k * nt * 4), nt === chunk ? 'PB' : 'PBshort');
    k.need(MXU, DMA, loaded);
    for (let t = 0; t < nt; t++, j++) last = k.push(MXU, busy.matmul(sh.k), 'PM');
    bufferRead[buf] = last;
    buf = buf + 1 === PANEL_BUFFERS ? 0 : buf + 1;
  }
  k.need(DMA, MXU, last);
  k.push(DMA, busy.store(sh.m * (sh.n / 2)), 'PS');
  return k.finish([DMA]);
}

/** kernels/panel.c matmul_stream() with no epilogue, A not kept, no next call, as mmbench's run_panel issues it (then drains the DMA). */
export function streamMatmulProgram(k: KernelCpu, sh: MatmulShape, cfg: PlatformConfig = defaultConfig()): ScheduleResult {
  const busy = busyRules(cfg), tiles = sh.n / 8, chunk = tilesPerChunk(sh.k, STREAM_CHUNK_BYTES), groups = Math.ceil(sh.m / 8);
  const loaded: number[] = new Array(STREAM_BUFFERS).fill(0), bufferRead: number[] = new Array(STREAM_BUFFERS).fill(0);
  let tilesLeft = tiles, buf = 0, count = 0, workBuf = 0;
  const load = () => {
    const nt = Math.min(chunk, tilesLeft);
    if (count >= STREAM_BUFFERS) k.need(DMA, MXU, bufferRead[buf]);
    loaded[buf] = k.push(DMA, busy.load(sh.k * nt * 4), 'SB');
    tilesLeft -= nt; count++;
    buf = buf + 1 === STREAM_BUFFERS ? 0 : buf + 1;
  };
  // In the window: matmul_stream_fits and stream_init; their chunk loops cost CHUNK_LOOP_CLOCKS a doubling,
  // and entering a loop (chunk > 1) STREAM_LOOP_ENTRY more (counted on the trace: 475, 510, 525, 540, 555, 585 clocks for chunks 1 … 64).
  k.push(DMA, busy.load(sh.m * (sh.k / 2)), 'SA', CHUNK_LOOP_CLOCKS * log2(chunk) + (chunk > 1 ? STREAM_LOOP_ENTRY : 0));
  for (let i = 0; i < STREAM_AHEAD && tilesLeft; i++) load();
  for (let j = 0; j < tiles;) {
    const nt = Math.min(chunk, tiles - j);
    k.need(MXU, DMA, loaded[workBuf]);
    let last = 0;
    for (let t = 0; t < nt; t++, j++) for (let g = 0; g < groups; g++) last = k.push(MXU, busy.matmul(sh.k), g === 0 ? 'SMtile' : 'SM');
    bufferRead[workBuf] = last;
    workBuf = workBuf + 1 === STREAM_BUFFERS ? 0 : workBuf + 1;
    if (tilesLeft) load();
    k.need(DMA, MXU, last);
    k.push(DMA, busy.store(sh.m * nt * 4), 'SS');
  }
  return k.finish([DMA]);
}

/** The mmbench program a shape and variant take (mmbench.c main: matmul_panel_fits, then matmul_stream_fits, else the tiled kernel). */
export function matmulProgramKind(sh: MatmulShape, variant: number): 'tiled' | 'panel' | 'stream' {
  const REGION = 4096, rows = Math.ceil(sh.m / 8) * 8;
  if ((variant & VARIANT.PANEL) && sh.m <= 8 && 8 * (sh.n / 2) <= REGION && 8 * (sh.k / 2) <= REGION && sh.k * 4 <= REGION) return 'panel';
  if ((variant & VARIANT.STREAM) && sh.m <= STREAM_MAX_ROWS && rows * (sh.k / 2) <= 4 * REGION && rows * tilesPerChunk(sh.k, STREAM_CHUNK_BYTES) * 4 <= REGION && sh.k * 4 <= REGION) return 'stream';
  return 'tiled';
}

/** Runs the program a shape and variant take on `k`. */
export function matmulProgram(k: KernelCpu, sh: MatmulShape, variant: number, cfg: PlatformConfig = defaultConfig()): ScheduleResult {
  const kind = matmulProgramKind(sh, variant);
  return kind === 'panel' ? panelMatmulProgram(k, sh, cfg) : kind === 'stream' ? streamMatmulProgram(k, sh, cfg) : tiledMatmulProgram(k, sh, variant, cfg);
}

/**
 * The terms were counted on the default board and the what-if builds' boards: a configuration that changes
 * the CPU's clocks otherwise (a what-if, --set) is not modelled. Queue depth and the SRAM's clocks per byte
 * change the units' side only (the schedule and the busy rules take them; the CPU reads the SRAM only for the
 * head's argmax); the TPU register port's wait and the barrel shifter are terms of every path (boardTerms); the
 * sequencer what-if changes nothing the firmware does not ask it for. (The build knobs: firmwareTag.)
 */
export function isModelledBoard(cfg: PlatformConfig): boolean {
  const c = structuredClone(cfg), d = defaultConfig();
  c.tpu.queueDepth = d.tpu.queueDepth; c.bus.sramReadClocksPerByte = d.bus.sramReadClocksPerByte; c.bus.sramWriteClocksPerByte = d.bus.sramWriteClocksPerByte;
  c.bus.tpuWait = d.bus.tpuWait; c.cpu.BARREL_SHIFTER = d.cpu.BARREL_SHIFTER;
  // The command sequencer (hardware.md §5.11) is idle unless the firmware runs lists: only model.c's VARIANT.SEQUENCER
  // decode does (predictModelRun leaves that out), and the CPU's instructions are the same with or without it.
  c.tpu.sequencer = d.tpu.sequencer; c.tpu.seqListKiB = d.tpu.seqListKiB;
  return JSON.stringify(c) === JSON.stringify(d);
}

/**
 * The prefix of the term table's classes for the mmbench build a board runs (study/sweep/runs.ts firmwareFor):
 * '' for mmbench.elf, 'mxu16:' and 'spad32:' for the 16×16-MXU and 32 KiB-scratchpad builds, whose tiled
 * kernel scripts/calibrate-issue.ts counts on their own ELFs; null for a board no term table covers.
 */
export function matmulFirmwareTag(cfg: PlatformConfig): string | null {
  const tag = firmwareTag(cfg);
  return tag === null || FIRMWARE_BUILDS.some((b) => `${b.name}:` === tag && !b.matmulCalibrated) ? null : tag;
}

/**
 * The prefix of the term table's classes for the firmware build a board runs (study/sweep/runs.ts firmwareFor):
 * '' for the as-built ELFs, 'mxu16:', 'spad32:' and 'rv32im:' for the 16×16-MXU, 32 KiB-scratchpad and
 * multiplier builds (a board with ENABLE_MUL or ENABLE_FAST_MUL runs the rv32im build); null for a board no
 * term table covers (two build knobs at once, or another CPU or TPU change).
 */
export function firmwareTag(cfg: PlatformConfig): string | null {
  const c = structuredClone(cfg), d = defaultConfig();
  const builds = buildsNeeded(c);
  if (builds.length > 1) return null;
  const tag = builds.length ? `${builds[0].name}:` : '';
  c.tpu.mxuDim = d.tpu.mxuDim; c.tpu.spadKiB = d.tpu.spadKiB; c.cpu.ENABLE_MUL = d.cpu.ENABLE_MUL; c.cpu.ENABLE_FAST_MUL = d.cpu.ENABLE_FAST_MUL;
  return isModelledBoard(c) ? tag : null;
}

/** Predicted run clocks of one mmbench window, or null where the program is not modelled. */
export function predictMatmulRun(sh: MatmulShape, variant: number, cfg: PlatformConfig = defaultConfig(), terms: TermSource = boardTerms(cfg)): number | null {
  const tag = matmulFirmwareTag(cfg);
  if (tag === null) return null;
  const kind = matmulProgramKind(sh, variant);
  // The other builds' panel and stream kernels (their ring buffers, their chunk sizes) are not transcribed.
  if (tag && kind !== 'tiled') return null;
  try {
    // Whole clocks: the counted savings and accesses are means over the calibration runs.
    return Math.round(matmulProgram(new KernelCpu(variant, terms, `${tag}${kind === 'tiled' ? '' : kind + ':'}${codeClass(variant)}`, cfg), sh, variant, cfg).runClocks);
  } catch (e) {
    // A path no calibration shape took: no prediction (the bench prints "-"; the random-shape test fails on it).
    if (e instanceof MissingTermError) return null;
    throw e;
  }
}
