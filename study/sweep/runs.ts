// One sweep point = one emulator run (a single matmul through mmbench.elf,
// or a model job through model.elf, or through another board's model
// firmware: seed-points.ts) next to the analytic model's prediction
// for the same configuration. Points are plain JSON so they cross to worker
// threads and into the JSON-lines results file unchanged.

import { dirname, join } from 'node:path';
import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import { predict, predictMatmul, type PhasePrediction } from '../../model/predict/analytic.ts';
import type { Job, Model, ModelDims } from '../../model/format.ts';
import { randomModel, randomPrompt } from '../../model/random.ts';
import { runGoldenBatch } from '../../model/golden.ts';
import { MMBENCH_ELF, MODEL_ELF, runMatmulOnEmulator, runOnEmulator } from '../../model/run.ts';
import type { CounterSnapshot } from '../../periph/counters.ts';
import { predictTpRun } from '../../model/predict/tp-program.ts';
import { MODEL_TP_ELF, runTpBoards } from '../../model/tp-run.ts';
import { buildElfName, buildsNeeded } from '../../model/firmware-facts.ts';
import { SEED_MODEL_BOARD } from '../../model/seed-run.ts';
import { DEFAULT_TARGET, MODEL_TARGETS } from '../../model/targets.ts';
import { runSeedMatmulPoint, runSeedPoint, seedMatmulPointMisfit, SEED_SWEEP_ELFS } from './seed-points.ts';
import { SEED_MMBENCH_VARIANTS } from './seed-matmul.ts';

/** Platform knobs a what-if changes (the rest stay at defaultConfig()). */
export interface ConfigOverride {
  queueDepth?: number;
  sramReadClocksPerByte?: number;
  sramWriteClocksPerByte?: number;
  /** Wait clocks of an AXI access to the TPU's registers (the CPU's issue cost per MMIO word). */
  tpuWait?: number;
  /** PicoRV32's single-cycle shifter (the firmware packs command words with shifts). */
  barrelShifter?: boolean;
  /** Scratchpad KiB: 32 runs the firmware built for half the scratchpad (build/fw/*-spad32.elf). */
  spadKiB?: 32 | 64;
  /** MXU array dimension: 16 runs the firmware built for a 16×16 MXU (build/fw/*-mxu16.elf). */
  mxuDim?: 8 | 16;
  /** PicoRV32's M extension through PCPI: 'mul' is ENABLE_MUL, 'fast' ENABLE_FAST_MUL; both run the rv32im build (build/fw/*-rv32im.elf). */
  multiply?: 'mul' | 'fast';
  /** The command sequencer with a list memory of this many KiB (hardware.md §5.11; sequencer = 1, seqListKiB). */
  seqListKiB?: number;
}

interface FirmwareElfs { model: string; mmbench: string }
/** A what-if build's ELFs (model/firmware-facts.ts FIRMWARE_BUILDS), beside the as-built ones. */
const build = (name: string): FirmwareElfs =>
  ({ model: join(dirname(MODEL_ELF), buildElfName('model', name)), mmbench: join(dirname(MMBENCH_ELF), buildElfName('mmbench', name)) });

/** The firmware built for a 32 KiB scratchpad (firmware-c/Makefile SPAD32). */
export const SPAD32_ELFS = build('spad32');
/** The firmware built for a 16×16 MXU (firmware-c/Makefile MXU16). */
export const MXU16_ELFS = build('mxu16');
/** The firmware built with -march=rv32im for a core with a multiplier (firmware-c/Makefile RV32IM). */
export const RV32IM_ELFS = build('rv32im');
/** Every model and mmbench build a sweep may run (the results' fingerprint covers them all). */
export const SWEEP_ELFS = [MODEL_ELF, MMBENCH_ELF, SPAD32_ELFS.model, SPAD32_ELFS.mmbench, MXU16_ELFS.model, MXU16_ELFS.mmbench, RV32IM_ELFS.model, RV32IM_ELFS.mmbench, MODEL_TP_ELF];

/** The model points of a board other than picotpu: its runner, and the firmware its results' fingerprint covers. */
interface BoardPoints {
  run(key: string, p: ModelPoint, model: Model, job: Job): RunRecord;
  /** Its matmul benchmark: the runner, why a shape does not run (null: it runs), the VARIANT bits it acts on. */
  matmul: { run(key: string, p: MatmulPoint): RunRecord; misfit(p: MatmulPoint): string | null; variantBits: number };
  elfs: readonly string[];
}
const BOARD_POINTS: Readonly<Record<string, BoardPoints>> = {
  [SEED_MODEL_BOARD]: { run: runSeedPoint, matmul: { run: runSeedMatmulPoint, misfit: seedMatmulPointMisfit, variantBits: SEED_MMBENCH_VARIANTS }, elfs: SEED_SWEEP_ELFS },
};

/** The runner of a model point on `board` (a registry name); undefined for picotpu, whose points run below. */
export const boardPointsOf = (board: string | undefined): BoardPoints | undefined => (board === undefined ? undefined : BOARD_POINTS[board]);

/** The firmware the points of `board` run (the fingerprint of their results): picotpu's builds when absent. */
export const sweepElfsOf = (board?: string): readonly string[] => boardPointsOf(board)?.elfs ?? SWEEP_ELFS;

/** The firmware the points of several boards run, in the target table's order (so a set of boards has one fingerprint, whatever order a grid lists them in). */
export const elfsOfBoards = (boards: readonly string[]): string[] =>
  [...new Set(MODEL_TARGETS.filter((t) => boards.includes(t.board)).flatMap((t) => sweepElfsOf(t.board)))];

/** Every non-empty set of the boards with model firmware (what a queue worker may be asked to run points of). */
export const boardSets = (): string[][] =>
  MODEL_TARGETS.reduce<string[][]>((sets, t) => [...sets, ...sets.map((s) => [...s, t.board]), [t.board]], []);

/** The kernels are compiled for one scratchpad plan, one MXU size and one ISA: the build a configuration needs. */
export function firmwareFor(c: PlatformConfig): FirmwareElfs {
  if (c.tpu.spadKiB !== 64 && c.tpu.spadKiB !== 32) throw new Error(`no firmware build plans a ${c.tpu.spadKiB} KiB scratchpad (the builds plan 64 and 32)`);
  if (c.tpu.mxuDim !== 8 && c.tpu.mxuDim !== 16) throw new Error(`no firmware build drives a ${c.tpu.mxuDim}x${c.tpu.mxuDim} MXU (the builds drive 8x8 and 16x16)`);
  // An RV32I build runs on a core with a multiplier too, but would not measure it: the what-if needs the rv32im build.
  const builds = buildsNeeded(c);
  if (builds.length > 1) throw new Error('no firmware build changes more than one of the scratchpad, the MXU and the multiplier');
  return builds.length ? build(builds[0].name) : { model: MODEL_ELF, mmbench: MMBENCH_ELF };
}

export interface MatmulPoint {
  kind: 'matmul'; m: number; k: number; n: number; variant: number; config?: ConfigOverride;
  /** The board the matmul runs on, by its registry name; picotpu when absent. */
  board?: string;
}
export interface ModelPoint {
  kind: 'model'; dims: ModelDims; promptLength: number; decodeSteps: number; variant: number;
  /** Sequences decoded together (batched decode); 1 when absent. */
  batch?: number;
  config?: ConfigOverride;
  /** Also run the golden model and record whether the TPU's tokens are its tokens (picotpu explore). */
  check?: boolean;
  /** The board the model runs on, by its registry name (model/targets.ts); picotpu when absent. */
  board?: string;
}
/** The tensor-parallel model (build/fw/model_tp.elf) on `boards` boards of the multi-board machine (as-built platform). */
export interface TpPoint {
  kind: 'tp'; dims: ModelDims; promptLength: number; decodeSteps: number; variant: number; boards: number;
  /** The multi-board points run the as-built platform (with the link): no override, one sequence. */
  config?: undefined; batch?: 1;
}
export type RunPoint = MatmulPoint | ModelPoint | TpPoint;

/**
 * A tp point's link and AllReduce figures: each board's measured link busy over the run (model_tp sends only
 * inside its windows), and per window the predicted link busy, messages, bytes and AllReduce clocks (one board).
 */
export interface TpFigures { linkBusy: number[]; linkPredicted: number[]; allReducePredicted: number[]; allReduces: number[]; messages: number[]; bytes: number[] }

/** What the emulator measured in one window (a phase). */
export interface MeasuredPhase { name: string; cycles: number; mxu: number; vpu: number; dma: number; idle: number; overlap: number }

export interface RunRecord {
  key: string;
  point: RunPoint;
  measured: MeasuredPhase[];
  predicted: PhasePrediction[];
  /** Clocks from reset to EXIT, and the host time the emulation took. */
  emulatedClocks: number;
  wallMs: number;
  /** Every sequence's tokens equal the golden model's (only for a point with `check`, and every tp point). */
  tokensCorrect?: boolean;
  tp?: TpFigures;
}

/** Weights and prompts are random with this seed: they do not change clocks, only bytes. */
const SEED = 1;

export function configFor(o: ConfigOverride = {}): PlatformConfig {
  const c = defaultConfig();
  if (o.queueDepth !== undefined) c.tpu.queueDepth = o.queueDepth;
  if (o.sramReadClocksPerByte !== undefined) c.bus.sramReadClocksPerByte = o.sramReadClocksPerByte;
  if (o.sramWriteClocksPerByte !== undefined) c.bus.sramWriteClocksPerByte = o.sramWriteClocksPerByte;
  if (o.tpuWait !== undefined) c.bus.tpuWait = o.tpuWait;
  if (o.barrelShifter !== undefined) c.cpu.BARREL_SHIFTER = o.barrelShifter;
  if (o.spadKiB !== undefined) c.tpu.spadKiB = o.spadKiB;
  if (o.mxuDim !== undefined) c.tpu.mxuDim = o.mxuDim;
  if (o.multiply === 'mul') c.cpu.ENABLE_MUL = true;
  if (o.multiply === 'fast') c.cpu.ENABLE_FAST_MUL = true;
  if (o.seqListKiB !== undefined) { c.tpu.sequencer = 1; c.tpu.seqListKiB = o.seqListKiB; }
  return c;
}

const measuredOf = (name: string, c: CounterSnapshot): MeasuredPhase =>
  ({ name, cycles: c.cycles, mxu: c.mxuBusy, vpu: c.vpuBusy, dma: c.dmaBusy, idle: c.idle, overlap: c.overlap });

/** The job of a model point: B prompts of the same length (batch 1: the plain single-prompt job). */
export function jobFor(p: ModelPoint): Job {
  const b = p.batch ?? 1;
  const prompts = Array.from({ length: b }, (_, s) => randomPrompt(p.dims, p.promptLength, SEED + s));
  // The stop token is out of the vocabulary so every job runs all its decode steps.
  const job: Job = { prompt: prompts[0], decodeSteps: p.decodeSteps, variant: p.variant, stopToken: 255 };
  if (b > 1) job.prompts = prompts;
  return job;
}

/** Runs one point on the emulator (fast unit models) and predicts it. */
export function runPoint(key: string, p: RunPoint): RunRecord {
  const config = configFor(p.config);
  if (p.kind === 'matmul') {
    const other = boardPointsOf(p.board);
    if (other) return other.matmul.run(key, p);
    if (p.board !== undefined && p.board !== DEFAULT_TARGET.board) throw new Error(`no matmul benchmark runs on the board "${p.board}"`);
    const shape = { m: p.m, k: p.k, n: p.n };
    const r = runMatmulOnEmulator(shape, p.variant, { config, elfPath: firmwareFor(config).mmbench });
    const w = r.windows.length ? r.windows : [r.result.counters];
    return {
      key, point: p, measured: w.map((c) => measuredOf('matmul', c)), predicted: [predictMatmul(shape, p.variant, config)],
      emulatedClocks: r.result.clocks, wallMs: r.wallMs,
    };
  }
  if (p.kind === 'tp') return runTpPoint(key, p);
  const job = jobFor(p), model = randomModel(p.dims, SEED);
  const other = boardPointsOf(p.board);
  if (other) return other.run(key, p, model, job);
  if (p.board !== undefined && p.board !== DEFAULT_TARGET.board) throw new Error(`no model firmware runs on the board "${p.board}"`);
  const r = runOnEmulator(model, job, { config, elfPath: firmwareFor(config).model });
  const names = ['prefill', 'decode'];
  const record: RunRecord = {
    key, point: p, measured: r.windows.map((c, i) => measuredOf(names[i] ?? `window ${i + 1}`, c)),
    predicted: predict(p.dims, job, config).phases, emulatedClocks: r.result.clocks, wallMs: r.wallMs,
  };
  if (p.check) {
    const golden = runGoldenBatch(model, job);
    record.tokensCorrect = golden.every((g, s) => JSON.stringify(g.tokens) === JSON.stringify(r.sequences[s]?.tokens));
  }
  return record;
}

/** A tp point: every board's windows, the slowest board's clocks as the window's measurement, the prediction per window (one board). */
function runTpPoint(key: string, p: TpPoint): RunRecord {
  const job: Job = { prompt: randomPrompt(p.dims, p.promptLength, SEED), decodeSteps: p.decodeSteps, variant: p.variant, stopToken: 255 };
  const model = randomModel(p.dims, SEED), t0 = performance.now();
  const r = runTpBoards(model, job, p.boards);
  const wallMs = performance.now() - t0;
  const names = ['prefill', 'decode'], pred = predictTpRun(p.dims, job, p.boards) ?? [];
  const golden = runGoldenBatch(model, job)[0];
  const slowest = (w: number) => r.boards.reduce((a, b) => (b.windows[w].cycles > a.windows[w].cycles ? b : a)).windows[w];
  const measured = r.boards[0].windows.map((_, w) => measuredOf(names[w], { ...slowest(w) }));
  const predicted: PhasePrediction[] = pred.map((w, i) => ({
    name: names[i], mxu: w.mxu, vpu: w.vpu, dma: w.dma, lowerBound: Math.max(w.mxu, w.vpu, w.dma, w.link.busy), bytesIn: 0, bytesOut: 0, runClocks: w.runClocks,
  }));
  return {
    key, point: p, measured, predicted, emulatedClocks: r.clocks, wallMs,
    tokensCorrect: r.boards.every((b) => JSON.stringify(b.tokens) === JSON.stringify(golden.tokens)),
    tp: {
      linkBusy: r.boards.map((b) => b.link.busy), linkPredicted: pred.map((w) => w.link.busy), allReducePredicted: pred.map((w) => w.allReduceClocks),
      allReduces: pred.map((w) => w.allReduces), messages: pred.map((w) => w.link.messages), bytes: pred.map((w) => w.link.bytes),
    },
  };
}

const PHASE_NUMBERS: Record<'measured' | 'predicted', readonly string[]> = {
  measured: ['cycles', 'mxu', 'vpu', 'dma', 'idle', 'overlap'], predicted: ['mxu', 'vpu', 'dma', 'lowerBound'],
};

/**
 * Why a value read back (a results-file line, a queue job's return value) is
 * not a RunRecord as runPoint makes it, in one line; null when it is. The
 * point itself is checked by whoever knows its kinds (study/explore/point-check.ts).
 */
export function recordShapeError(x: unknown): string | null {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return `a record must be an object, got ${x === null ? 'null' : Array.isArray(x) ? 'a list' : typeof x}`;
  const r = x as Record<string, unknown>;
  if (typeof r.key !== 'string' || !r.key) return 'a record\'s key must be a non-empty string';
  if (typeof r.point !== 'object' || r.point === null) return `record ${r.key}: point must be an object`;
  for (const list of ['measured', 'predicted'] as const) {
    const phases = r[list];
    if (!Array.isArray(phases)) return `record ${r.key}: ${list} must be a list`;
    for (const [i, p] of phases.entries()) {
      if (typeof p !== 'object' || p === null || typeof (p as { name?: unknown }).name !== 'string') return `record ${r.key}: ${list}[${i}] must be an object with a name`;
      for (const k of PHASE_NUMBERS[list]) if (!Number.isFinite((p as Record<string, unknown>)[k])) return `record ${r.key}: ${list}[${i}].${k} must be a number`;
    }
  }
  for (const k of ['emulatedClocks', 'wallMs']) if (!Number.isFinite(r[k])) return `record ${r.key}: ${k} must be a number`;
  if (r.tokensCorrect !== undefined && typeof r.tokensCorrect !== 'boolean') return `record ${r.key}: tokensCorrect must be true or false`;
  return null;
}

/** Signed relative error of a prediction, in percent. */
export const errorPct = (pred: number, meas: number) => (meas === 0 ? (pred === 0 ? 0 : Infinity) : (100 * (pred - meas)) / meas);
