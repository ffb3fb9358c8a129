// The one schema of a grid point (a RunPoint of kind matmul or model, and its
// platform override), used wherever a point comes from outside: the grid
// reader builds its points through it, a queue worker checks every job with
// it before running anything, and the coordinator and the results-file reader
// check every record with it. checkRunPoint says whether a point is well
// formed (else PointError, one line); pointStatus whether any firmware build
// can run it and whether it fits the board — using sizes only, so a point
// with absurd dimensions is classified without allocating anything.

import { applyOverrides, ConfigError } from '../../emu/config.ts';
import { checkDims, LAYER_RECORD_BYTES, MAX_BATCH, planLayout, VARIANT_ALL, type Job, type ModelDims } from '../../model/format.ts';
import { matmulLayout, MATMUL_MAX_K } from '../../model/run.ts';
import { SRAM_SIZE } from '../../periph/sram.ts';
import { DEFAULT_TARGET, MODEL_TARGETS, modelTargetOf, type ModelTarget } from '../../model/targets.ts';
import type { PlannedRun } from '../sweep/engine.ts';
import { boardPointsOf, configFor, firmwareFor, recordShapeError, type ConfigOverride, type MatmulPoint, type ModelPoint, type RunPoint, type RunRecord } from '../sweep/runs.ts';

/** A point, job or record that is not well formed: its one-line reason. */
export class PointError extends Error {}

export type PointStatus = { kind: 'run' } | { kind: 'no firmware build' | 'does not fit'; why: string };

/** The longest point key a job or record may carry (a grid's keys are about 100 characters). */
export const MAX_KEY_LENGTH = 1000;

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function int(what: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new PointError(`${what} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `${min}..${max}`}, got ${show(v)}`);
  }
  return v;
}

function onlyFields(what: string, o: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new PointError(`${what} has an unknown field "${k}": ${allowed.join(', ')}`);
}

/** The platform knobs a grid point may override, and what each takes (the bounds are emu/config.ts's). */
const OVERRIDE_FIELDS = ['queueDepth', 'tpuWait', 'sramReadClocksPerByte', 'sramWriteClocksPerByte', 'spadKiB', 'mxuDim', 'barrelShifter', 'multiply'] as const;
const COUNT_FIELDS: readonly string[] = ['queueDepth', 'tpuWait', 'sramReadClocksPerByte', 'sramWriteClocksPerByte', 'spadKiB', 'mxuDim'];

/** A point's platform override: known knobs, each of its type, and a platform emu/config.ts accepts. */
export function checkOverride(x: unknown): ConfigOverride {
  if (x === undefined) return {};
  if (!isObject(x)) throw new PointError(`config must be an object, got ${show(x)}`);
  onlyFields('config', x, OVERRIDE_FIELDS);
  for (const k of COUNT_FIELDS) if (k in x) int(k, x[k], 0, 1000);
  if ('barrelShifter' in x && typeof x.barrelShifter !== 'boolean') throw new PointError(`barrelShifter must be true or false, got ${show(x.barrelShifter)}`);
  if ('multiply' in x && x.multiply !== 'mul' && x.multiply !== 'fast') throw new PointError(`multiply must be "mul" or "fast" (or left out), got ${show(x.multiply)}`);
  const o = x as ConfigOverride;
  try { applyOverrides(configFor(o), {}); } catch (e) { if (e instanceof ConfigError) throw new PointError(e.message); throw e; }
  return o;
}

const DIM_FIELDS = ['d', 'dFF', 'heads', 'layers', 'vocab', 'maxSeq'] as const;

/** Model dimensions: the six fields, positive integers that model/format.ts checkDims accepts. */
export function checkModelDims(x: unknown): ModelDims {
  if (!isObject(x)) throw new PointError(`dims must be an object {${DIM_FIELDS.join(', ')}}, got ${show(x)}`);
  onlyFields('dims', x, DIM_FIELDS);
  for (const k of DIM_FIELDS) {
    if (!(k in x)) throw new PointError(`dims.${k} is missing (dims has ${DIM_FIELDS.join(', ')})`);
    int(`dims.${k}`, x[k], 1);
  }
  const dims = x as unknown as ModelDims;
  try { checkDims(dims); } catch (e) { throw new PointError(`dims: ${(e as Error).message}`); }
  return dims;
}

/** A matmul's shape as mmbench.c takes it (m ≥ 1; k and n multiples of 8, k ≤ 1024) and its operands within the SRAM. */
export function checkMatmulShape(m: unknown, k: unknown, n: unknown): void {
  int('m', m, 1);
  int('k', k, 8, MATMUL_MAX_K);
  int('n', n, 8);
  if ((k as number) % 8 || (n as number) % 8) throw new PointError(`k and n must be multiples of 8 (the MXU's tile), got k ${k}, n ${n}`);
  const end = matmulLayout({ m: m as number, k: k as number, n: n as number }).end;
  if (end > SRAM_SIZE) throw new PointError(`a ${m}x${k}x${n} matmul's operands need ${end} bytes of SRAM, more than the board's ${SRAM_SIZE}`);
}

/** A well-formed grid point: a matmul or model RunPoint whose every field is of its type and range. */
export function checkRunPoint(x: unknown): RunPoint {
  if (!isObject(x)) throw new PointError(`a point must be an object, got ${show(x)}`);
  if (x.kind === 'matmul') {
    onlyFields('a matmul point', x, ['kind', 'm', 'k', 'n', 'variant', 'config', 'board']);
    if (x.board !== undefined) checkPointBoard(x.board, x.config);
    checkMatmulShape(x.m, x.k, x.n);
  } else if (x.kind === 'model') {
    onlyFields('a model point', x, ['kind', 'dims', 'promptLength', 'decodeSteps', 'variant', 'batch', 'config', 'check', 'board']);
    if (x.board !== undefined) checkPointBoard(x.board, x.config);
    checkModelDims(x.dims);
    int('promptLength', x.promptLength, 1);
    int('decodeSteps', x.decodeSteps, 0);
    if (x.batch !== undefined) int('batch', x.batch, 1);
    if (x.check !== undefined && typeof x.check !== 'boolean') throw new PointError(`check must be true or false, got ${show(x.check)}`);
  } else {
    throw new PointError(`a point's kind is "model" or "matmul", got ${show(x.kind)}`);
  }
  int('variant', x.variant, 0, VARIANT_ALL);
  checkOverride(x.config);
  return x as unknown as RunPoint;
}

/** The board of a model point: a registry name with model firmware (model/targets.ts); a board other than picotpu runs as built. */
function checkPointBoard(board: unknown, config: unknown): ModelTarget {
  const target = typeof board === 'string' ? modelTargetOf(board) : undefined;
  if (!target) throw new PointError(`board must name a board with model firmware (${MODEL_TARGETS.map((t) => t.board).join(', ')}), got ${show(board)}`);
  if (target !== DEFAULT_TARGET && config !== undefined) throw new PointError(`a point on the ${target.board} board takes no platform override (config): the board runs as built`);
  return target;
}

/** Whether a model point on a board other than picotpu can run: a variant of its firmware, and a job its firmware takes that fits the SRAM. */
function targetStatus(run: ModelPoint, target: ModelTarget): PointStatus {
  if (run.variant & ~target.variantBits) return { kind: 'no firmware build', why: `variant ${run.variant} has bits the ${target.board} firmware does not have (its variants are 0..${target.variantBits})` };
  const { dims, promptLength: P, decodeSteps: D } = run, B = run.batch ?? 1;
  const why = target.jobMisfit?.(dims, P, D, B);
  if (why) return { kind: 'does not fit', why };
  return layoutStatus(dims, P, D, B);
}

/** Whether a matmul point runs on another board's matmul benchmark (study/sweep/runs.ts boardPointsOf): its variants and its shapes. */
function matmulStatusOn(run: MatmulPoint, target: ModelTarget): PointStatus {
  const bench = boardPointsOf(target.board)?.matmul;
  if (!bench) return { kind: 'no firmware build', why: `no matmul benchmark runs on the ${target.board} board` };
  if (run.variant & ~bench.variantBits) return { kind: 'no firmware build', why: `variant ${run.variant} has bits the ${target.board} matmul benchmark does not have (its variants are 0..${bench.variantBits})` };
  const why = bench.misfit(run);
  return why ? { kind: 'does not fit', why } : { kind: 'run' };
}

/** Whether the model's blob and buffers fit the SRAM (sizes only: the layer table and weights alone first, before planLayout walks the layers one by one). */
function layoutStatus(dims: ModelDims, P: number, D: number, B: number): PointStatus {
  const least = dims.layers * (LAYER_RECORD_BYTES + (4 * dims.d * dims.d + 2 * dims.d * dims.dFF) / 2);
  if (least > SRAM_SIZE) return { kind: 'does not fit', why: `the layers' weights alone need ${least} bytes of SRAM, more than the board's ${SRAM_SIZE}` };
  try { planLayout(dims, shapeOnlyJob(P, D, B)); } catch (e) { return { kind: 'does not fit', why: (e as Error).message }; }
  return { kind: 'run' };
}

/** A job's planned run: a key (a non-empty string) and a well-formed point. */
export function checkPlannedRun(x: unknown): PlannedRun {
  if (!isObject(x)) throw new PointError(`a job's run must be an object {key, point}, got ${show(x)}`);
  if (typeof x.key !== 'string' || !x.key || x.key.length > MAX_KEY_LENGTH || /[\x00-\x1f\x7f-\x9f]/.test(x.key)) {
    throw new PointError(`a job's key must be a string of 1 to ${MAX_KEY_LENGTH} printable characters, got ${show(x.key)}`);
  }
  return { key: x.key, point: checkRunPoint(x.point) };
}

/**
 * A job of this shape without its tokens: planLayout reads only how many
 * prompts there are and how long the first is, so the layout of a huge batch
 * or prompt is known before any prompt is made.
 */
function shapeOnlyJob(promptLength: number, decodeSteps: number, batch: number): Job {
  const prompt = { length: promptLength } as unknown as number[];
  return { prompt, decodeSteps, variant: 0, ...(batch > 1 ? { prompts: Array<number[]>(batch).fill(prompt) } : {}) };
}

/** Whether a well-formed point can run: a firmware build for its platform, and operands or a model that fit. */
export function pointStatus(run: RunPoint): PointStatus {
  const board = run.kind === 'tp' ? undefined : run.board;
  const target = board !== undefined ? modelTargetOf(board) : DEFAULT_TARGET;
  if (!target) return { kind: 'no firmware build', why: `no model firmware runs on the board ${show(board)}` };
  if (target !== DEFAULT_TARGET) return run.kind === 'matmul' ? matmulStatusOn(run, target) : targetStatus(run as ModelPoint, target);
  const config = configFor(run.config);
  try { firmwareFor(config); } catch (e) { return { kind: 'no firmware build', why: (e as Error).message }; }
  const tile = config.tpu.mxuDim;
  if (run.kind === 'matmul') {
    if (run.k % tile || run.n % tile) return { kind: 'does not fit', why: `the ${tile}x${tile} MXU's build takes k and n in multiples of ${tile}` };
    return { kind: 'run' };
  }
  if (run.kind !== 'model') return { kind: 'no firmware build', why: `a grid point is a model or a matmul, not ${run.kind}` };
  const { dims, promptLength: P, decodeSteps: D } = run, B = run.batch ?? 1;
  if (B > MAX_BATCH) return { kind: 'does not fit', why: `a batch holds 1 to ${MAX_BATCH} sequences, not ${B}` };
  if (P + D > dims.maxSeq) return { kind: 'does not fit', why: 'prompt_len + decode_steps exceeds max_seq' };
  return layoutStatus(dims, P, D, B);
}

/** A point that is well formed and runnable, or the one-line reason it is not (what a queue worker checks before a job). */
export function checkRunnable(x: unknown): PlannedRun {
  const run = checkPlannedRun(x);
  const status = pointStatus(run.point);
  if (status.kind !== 'run') throw new PointError(`${status.kind}: ${status.why}`);
  return run;
}

/** A record as the engine writes it (study/sweep/runs.ts recordShapeError) for a well-formed grid point; `key`, when given, is the key it must carry. */
export function checkRecord(x: unknown, key?: string): RunRecord {
  const why = recordShapeError(x);
  if (why) throw new PointError(why);
  const r = x as RunRecord;
  if (key !== undefined && r.key !== key) throw new PointError(`the record is of point ${show(r.key)}, not of ${show(key)}`);
  checkRunPoint(r.point);
  return r;
}
