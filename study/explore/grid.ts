// A design-space grid a user writes (`picotpu explore GRID.json`): workloads
// and platform axes, expanded to every combination, filtered by the grid's
// exclusions, and each point classified before anything runs — a point whose
// configuration has no firmware build, or whose model does not fit the
// board's memories, is reported as such, never silently skipped.

import { applyOverrides, ConfigError } from '../../emu/config.ts';
import { checkJob, planLayout, VARIANT_ALL, type ModelDims } from '../../model/format.ts';
import { BASE_DIMS } from '../bench.ts';
import { configFor, firmwareFor, jobFor, type ConfigOverride, type RunPoint } from '../sweep/runs.ts';

/** A bad grid file: one line, exit 165. */
export class GridError extends Error {}

/** The platform knobs a grid may vary (study/sweep/runs.ts ConfigOverride), and the kernel variant. */
export const KNOBS = ['variant', 'mxuDim', 'spadKiB', 'queueDepth', 'tpuWait', 'sramReadClocksPerByte', 'sramWriteClocksPerByte', 'barrelShifter', 'multiply'] as const;
export type Knob = (typeof KNOBS)[number];
export type KnobValue = number | boolean | string;
export type Knobs = Record<Knob, KnobValue>;

/** The platform as built: the value of every knob a grid leaves out. */
const AS_BUILT: Knobs = {
  variant: 15, mxuDim: 8, spadKiB: 64, queueDepth: 8, tpuWait: 2, sramReadClocksPerByte: 1, sramWriteClocksPerByte: 2, barrelShifter: false, multiply: 'none',
};

export const OBJECTIVES = ['prefill', 'decode', 'full', 'clocks per token'] as const;
export type Objective = (typeof OBJECTIVES)[number];

/** Named model sizes: the tests' small model and the benchmark model. */
const DIMS: Record<string, ModelDims> = { small: { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 }, base: BASE_DIMS };

type Many<T> = T | T[];
interface ModelWorkloadSpec { kind: 'model'; dims: string | ModelDims; promptLength: Many<number>; decodeSteps: Many<number>; batch?: Many<number> }
interface MatmulWorkloadSpec { kind: 'matmul'; m: Many<number>; k: Many<number>; n: Many<number> }
type WorkloadSpec = ModelWorkloadSpec | MatmulWorkloadSpec;

export interface Grid {
  name: string;
  objective: Objective;
  workloads: WorkloadSpec[];
  axes: Partial<Record<Knob, KnobValue[]>>;
  /** A point that matches every field of one entry (knobs, or promptLength/decodeSteps/batch/m/k/n) is left out. */
  exclude: Record<string, KnobValue>[];
}

export type PointStatus = { kind: 'run' } | { kind: 'no firmware build' | 'does not fit'; why: string };

export interface GridPoint {
  key: string;
  knobs: Knobs;
  /** The workload's fields (promptLength, decodeSteps, batch or m, k, n) and its name. */
  workload: { name: string; fields: Record<string, number> };
  run: RunPoint;
  status: PointStatus;
}

const list = <T>(v: Many<T>): T[] => (Array.isArray(v) ? v : [v]);

function product(axes: [string, KnobValue[]][]): Record<string, KnobValue>[] {
  return axes.reduce<Record<string, KnobValue>[]>((acc, [name, values]) => acc.flatMap((a) => values.map((v) => ({ ...a, [name]: v }))), [{}]);
}

/** Parses and checks a grid file's JSON text. */
export function parseGrid(text: string, fallbackName: string): Grid {
  let raw: Record<string, unknown>;
  try { raw = JSON.parse(text) as Record<string, unknown>; } catch (e) { throw new GridError(`not JSON: ${(e as Error).message}`); }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new GridError('a grid is a JSON object');
  for (const k of Object.keys(raw)) if (!['name', 'objective', 'workloads', 'axes', 'exclude', 'comment'].includes(k)) throw new GridError(`unknown grid field "${k}"`);
  const objective = (raw.objective ?? 'full') as Objective;
  if (!OBJECTIVES.includes(objective)) throw new GridError(`objective must be one of ${OBJECTIVES.join(', ')}, got ${JSON.stringify(raw.objective)}`);
  const workloads = raw.workloads as WorkloadSpec[];
  if (!Array.isArray(workloads) || !workloads.length) throw new GridError('workloads must be a non-empty list');
  const axes = (raw.axes ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(axes)) {
    if (!(KNOBS as readonly string[]).includes(k)) throw new GridError(`unknown axis "${k}": one of ${KNOBS.join(', ')}`);
    if (!Array.isArray(v) || !v.length) throw new GridError(`axis ${k} must be a non-empty list of values`);
  }
  const exclude = (raw.exclude ?? []) as Record<string, KnobValue>[];
  if (!Array.isArray(exclude)) throw new GridError('exclude must be a list of objects');
  const name = typeof raw.name === 'string' && /^[\w.-]+$/.test(raw.name) ? raw.name : fallbackName;
  return { name, objective, workloads, axes: axes as Grid['axes'], exclude };
}

const nat = (what: string, v: unknown): number => {
  if (!Number.isInteger(v) || (v as number) < 0) throw new GridError(`${what} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v as number;
};

/** The knobs as the sweep's ConfigOverride; a value the platform cannot take is a grid error. */
export function overrideOf(k: Knobs): ConfigOverride {
  const o: ConfigOverride = {
    queueDepth: nat('queueDepth', k.queueDepth), tpuWait: nat('tpuWait', k.tpuWait),
    sramReadClocksPerByte: nat('sramReadClocksPerByte', k.sramReadClocksPerByte), sramWriteClocksPerByte: nat('sramWriteClocksPerByte', k.sramWriteClocksPerByte),
    spadKiB: nat('spadKiB', k.spadKiB) as 32 | 64, mxuDim: nat('mxuDim', k.mxuDim) as 8 | 16,
  };
  if (typeof k.barrelShifter !== 'boolean') throw new GridError(`barrelShifter must be true or false, got ${JSON.stringify(k.barrelShifter)}`);
  o.barrelShifter = k.barrelShifter;
  if (!['none', 'mul', 'fast'].includes(k.multiply as string)) throw new GridError(`multiply must be "none", "mul" or "fast", got ${JSON.stringify(k.multiply)}`);
  if (k.multiply !== 'none') o.multiply = k.multiply as 'mul' | 'fast';
  try { applyOverrides(configFor(o), {}); } catch (e) { if (e instanceof ConfigError) throw new GridError(e.message); throw e; }
  return o;
}

/** The point's name: workload, then every knob (so the same point has the same key in every grid). */
function keyOf(workload: string, k: Knobs): string {
  return `${workload} v${k.variant} mxu${k.mxuDim} spad${k.spadKiB} q${k.queueDepth} wait${k.tpuWait} sram${k.sramReadClocksPerByte}/${k.sramWriteClocksPerByte}`
    + ` ${k.barrelShifter ? 'barrel' : 'shift2'} mul-${k.multiply}`;
}

function dimsOf(d: string | ModelDims): ModelDims {
  if (typeof d === 'string') { if (!DIMS[d]) throw new GridError(`unknown model dims "${d}": ${Object.keys(DIMS).join(', ')} or an object`); return DIMS[d]; }
  return d;
}

/** The workload combinations of one entry: a RunPoint without its knobs. */
function workloadsOf(w: WorkloadSpec): { name: string; fields: Record<string, number>; point: (k: Knobs, o: ConfigOverride) => RunPoint }[] {
  if (w.kind === 'matmul') {
    return product([['m', list(w.m)], ['k', list(w.k)], ['n', list(w.n)]]).map((f) => {
      const m = nat('m', f.m), k = nat('k', f.k), n = nat('n', f.n);
      return { name: `mm ${m}x${k}x${n}`, fields: { m, k, n }, point: (kn, config) => ({ kind: 'matmul', m, k, n, variant: kn.variant as number, config }) };
    });
  }
  if (w.kind !== 'model') throw new GridError(`a workload's kind is "model" or "matmul", got ${JSON.stringify((w as { kind: unknown }).kind)}`);
  const dims = dimsOf(w.dims);
  const dimsName = `d${dims.d} ff${dims.dFF} h${dims.heads} L${dims.layers} V${dims.vocab} S${dims.maxSeq}`;
  return product([['promptLength', list(w.promptLength)], ['decodeSteps', list(w.decodeSteps)], ['batch', list(w.batch ?? 1)]]).map((f) => {
    const P = nat('promptLength', f.promptLength), D = nat('decodeSteps', f.decodeSteps), B = nat('batch', f.batch);
    return {
      name: `model ${dimsName} P${P} D${D}${B > 1 ? ` B${B}` : ''}`, fields: { promptLength: P, decodeSteps: D, batch: B },
      point: (kn, config) => ({ kind: 'model', dims, promptLength: P, decodeSteps: D, variant: kn.variant as number, config, check: true, ...(B > 1 ? { batch: B } : {}) }),
    };
  });
}

/** Whether the point can run: a firmware build for its configuration, and a model that fits the SRAM and max_seq. */
function statusOf(run: RunPoint): PointStatus {
  const config = configFor(run.config);
  try { firmwareFor(config); } catch (e) { return { kind: 'no firmware build', why: (e as Error).message }; }
  if (run.kind === 'model') {
    try {
      const job = jobFor(run);
      checkJob(run.dims, job);
      planLayout(run.dims, job);
    } catch (e) { return { kind: 'does not fit', why: (e as Error).message }; }
  }
  return { kind: 'run' };
}

const matches = (rule: Record<string, KnobValue>, k: Knobs, fields: Record<string, number>) =>
  Object.entries(rule).every(([name, v]) => (name in k ? k[name as Knob] === v : fields[name] === v));

/** Every point of the grid, in grid order, and how many the exclusions left out. */
export function expandGrid(g: Grid): { points: GridPoint[]; excluded: number } {
  const axes = KNOBS.map((k) => [k, g.axes[k] ?? [AS_BUILT[k]]] as [string, KnobValue[]]);
  for (const rule of g.exclude) {
    for (const name of Object.keys(rule)) {
      if (!(KNOBS as readonly string[]).includes(name) && !['promptLength', 'decodeSteps', 'batch', 'm', 'k', 'n'].includes(name)) throw new GridError(`exclude names unknown field "${name}"`);
    }
  }
  const points: GridPoint[] = [];
  const seen = new Set<string>();
  let excluded = 0;
  for (const w of g.workloads.flatMap(workloadsOf)) {
    for (const combo of product(axes)) {
      const knobs = combo as Knobs;
      const variant = knobs.variant;
      if (!Number.isInteger(variant) || (variant as number) < 0 || (variant as number) > VARIANT_ALL) throw new GridError(`variant must be an integer 0-${VARIANT_ALL}, got ${JSON.stringify(variant)}`);
      if (g.exclude.some((rule) => matches(rule, knobs, w.fields))) { excluded++; continue; }
      const key = keyOf(w.name, knobs);
      if (seen.has(key)) continue;
      seen.add(key);
      const run = w.point(knobs, overrideOf(knobs));
      points.push({ key, knobs, workload: { name: w.name, fields: w.fields }, run, status: statusOf(run) });
    }
  }
  return { points, excluded };
}
