// A design-space grid a user writes (`picotpu explore GRID.json`): workloads
// and platform axes, expanded to every combination, filtered by the grid's
// exclusions, and each point classified before anything runs — a point whose
// configuration has no firmware build, or whose model does not fit the
// board's memories, is reported as such, never silently skipped.

import { BoardError, boardNamed } from '../../boards/registry.ts';
import type { ModelDims } from '../../model/format.ts';
import { DEFAULT_TARGET, MODEL_TARGETS, modelTargetOf } from '../../model/targets.ts';
import { BASE_DIMS } from '../bench.ts';
import type { ConfigOverride, RunPoint } from '../sweep/runs.ts';
import { checkMatmulShape, checkModelDims, checkOverride, checkRunPoint, pointStatus, PointError, type PointStatus } from './point-check.ts';

/** A bad grid file: one line, exit 165. */
export class GridError extends Error {}

/** The largest grid file read (bytes): a grid's lists multiply, so even the largest grid is a small file. */
export const MAX_GRID_BYTES = 1024 * 1024;

/** The most points a grid may have (every combination, before its exclusions): counted before the grid is expanded. */
export const MAX_GRID_POINTS = 100_000;

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

/** A workload entry as read: every field a list of its values. */
interface ModelWorkload { kind: 'model'; dims: ModelDims; promptLength: number[]; decodeSteps: number[]; batch: number[] }
interface MatmulWorkload { kind: 'matmul'; m: number[]; k: number[]; n: number[] }
type Workload = ModelWorkload | MatmulWorkload;

export interface Grid {
  name: string;
  objective: Objective;
  workloads: Workload[];
  axes: Partial<Record<Knob, KnobValue[]>>;
  /** A point that matches every field of one entry (knobs, board, or promptLength/decodeSteps/batch/m/k/n) is left out. */
  exclude: Record<string, KnobValue>[];
  /** The boards the workloads run on, by registry name (the grid's `board`; picotpu when left out). */
  boards: string[];
}

export type { PointStatus };

export interface GridPoint {
  key: string;
  /** The board it runs on (registry name). */
  board: string;
  knobs: Knobs;
  /** The workload's fields (promptLength, decodeSteps, batch or m, k, n) and its name. */
  workload: { name: string; fields: Record<string, number> };
  run: RunPoint;
  status: PointStatus;
}

function product(axes: [string, KnobValue[]][]): Record<string, KnobValue>[] {
  return axes.reduce<Record<string, KnobValue>[]>((acc, [name, values]) => acc.flatMap((a) => values.map((v) => ({ ...a, [name]: v }))), [{}]);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown) => { const s = JSON.stringify(v) ?? String(v); return s.length > 60 ? `${s.slice(0, 57)}...` : s; };

/** Runs a check of point-check.ts; its PointError becomes a GridError naming `where`. */
function within<T>(where: string, check: () => T): T {
  try { return check(); } catch (e) { if (e instanceof PointError) throw new GridError(`${where}: ${e.message}`); throw e; }
}

/** A workload field: one value or a non-empty list of them, each checked. */
function values(where: string, v: unknown, check: (x: unknown) => void): number[] {
  const all = Array.isArray(v) ? v : [v];
  if (v === undefined) throw new GridError(`${where} is missing`);
  if (!all.length) throw new GridError(`${where} must be a value or a non-empty list of values`);
  all.forEach((x, i) => within(Array.isArray(v) ? `${where}[${i}]` : where, () => check(x)));
  return all as number[];
}

const integer = (what: string, min: number) => (x: unknown) => {
  if (typeof x !== 'number' || !Number.isInteger(x) || x < min) throw new PointError(`${what} must be an integer ≥ ${min}, got ${shown(x)}`);
};

/** One workload entry of the grid file, every field checked (`where`: workloads[i]). */
function readWorkload(where: string, w: unknown): Workload {
  if (!isObject(w)) throw new GridError(`${where} must be an object {"kind": "model" or "matmul", ...}, got ${shown(w)}`);
  const only = (fields: string[]) => { for (const k of Object.keys(w)) if (!fields.includes(k)) throw new GridError(`${where} has an unknown field "${k}": ${fields.join(', ')}`); };
  if (w.kind === 'matmul') {
    only(['kind', 'm', 'k', 'n', 'comment']);
    const m = values(`${where}.m`, w.m, integer('m', 1)), k = values(`${where}.k`, w.k, integer('k', 1)), n = values(`${where}.n`, w.n, integer('n', 1));
    // The operands grow with each of m, k and n: the largest of each is the largest matmul.
    for (const [f, vs] of [['m', m], ['k', k], ['n', n]] as const) {
      const at = (i: number) => (Array.isArray(w[f]) ? `${where}.${f}[${i}]` : `${where}.${f}`);
      vs.forEach((v, i) => within(at(i), () => checkMatmulShape(f === 'm' ? v : 8, f === 'k' ? v : 8, f === 'n' ? v : 8)));
    }
    within(where, () => checkMatmulShape(Math.max(...m), Math.max(...k), Math.max(...n)));
    return { kind: 'matmul', m, k, n };
  }
  if (w.kind !== 'model') throw new GridError(`${where}: a workload's kind is "model" or "matmul", got ${shown(w.kind)}`);
  only(['kind', 'dims', 'promptLength', 'decodeSteps', 'batch', 'comment']);
  if (w.dims === undefined || w.dims === null) throw new GridError(`${where}.dims is missing: ${Object.keys(DIMS).join(', ')} or an object {d, dFF, heads, layers, vocab, maxSeq}`);
  let dims: ModelDims;
  if (typeof w.dims === 'string') {
    if (!Object.hasOwn(DIMS, w.dims)) throw new GridError(`${where}.dims: unknown model dims "${w.dims}": ${Object.keys(DIMS).join(', ')} or an object`);
    dims = DIMS[w.dims];
  } else {
    dims = within(`${where}`, () => checkModelDims(w.dims));
  }
  return {
    kind: 'model', dims,
    promptLength: values(`${where}.promptLength`, w.promptLength, integer('promptLength', 1)),
    decodeSteps: values(`${where}.decodeSteps`, w.decodeSteps, integer('decodeSteps', 0)),
    batch: values(`${where}.batch`, w.batch ?? 1, integer('batch', 1)),
  };
}

/** The fields an exclusion may name besides the knobs. */
const WORKLOAD_FIELDS = ['promptLength', 'decodeSteps', 'batch', 'm', 'k', 'n'];

/** One knob value of an axis: of the knob's type and in its range (checked as a point with that value takes it). */
function checkKnob(k: Knob, v: unknown): void {
  const knobs = { ...AS_BUILT, [k]: v as KnobValue };
  checkRunPoint({ kind: 'matmul', m: 8, k: 8, n: 8, variant: knobs.variant, config: overrideOf(knobs) });
}

/** Parses and checks a grid file's JSON text: every entry, and the number of points, before anything is expanded. */
export function parseGrid(text: string, fallbackName: string): Grid {
  let raw: unknown;
  try { raw = JSON.parse(text); } catch (e) { throw new GridError(`not JSON: ${(e as Error).message}`); }
  if (!isObject(raw)) throw new GridError('a grid is a JSON object');
  for (const k of Object.keys(raw)) if (!['name', 'objective', 'workloads', 'axes', 'exclude', 'board', 'comment'].includes(k)) throw new GridError(`unknown grid field "${k}"`);
  const boards = readBoards(raw.board);
  const objective = (raw.objective ?? 'full') as Objective;
  if (!OBJECTIVES.includes(objective)) throw new GridError(`objective must be one of ${OBJECTIVES.join(', ')}, got ${shown(raw.objective)}`);
  if (!Array.isArray(raw.workloads) || !raw.workloads.length) throw new GridError('workloads must be a non-empty list');
  const workloads = raw.workloads.map((w, i) => readWorkload(`workloads[${i}]`, w));
  const axes = 'axes' in raw ? raw.axes : {};
  if (!isObject(axes)) throw new GridError(`axes must be an object {knob: [values]}, got ${shown(axes)}`);
  for (const [k, v] of Object.entries(axes)) {
    if (!(KNOBS as readonly string[]).includes(k)) throw new GridError(`unknown axis "${k}": one of ${KNOBS.join(', ')}`);
    if (!Array.isArray(v) || !v.length) throw new GridError(`axis ${k} must be a non-empty list of values`);
    v.forEach((x, i) => within(`axes.${k}[${i}]`, () => checkKnob(k as Knob, x)));
  }
  const exclude = 'exclude' in raw ? raw.exclude : [];
  if (!Array.isArray(exclude)) throw new GridError('exclude must be a list of objects');
  const rules = exclude.map((rule, i) => {
    if (!isObject(rule) || !Object.keys(rule).length) throw new GridError(`exclude[${i}] must be an object naming at least one field, got ${shown(rule)}`);
    for (const [name, v] of Object.entries(rule)) {
      if (!(KNOBS as readonly string[]).includes(name) && !WORKLOAD_FIELDS.includes(name) && name !== 'board') throw new GridError(`exclude[${i}] names unknown field "${name}"`);
      if (!['number', 'boolean', 'string'].includes(typeof v)) throw new GridError(`exclude[${i}].${name} must be a number, true, false or a string, got ${shown(v)}`);
    }
    // A board by any of its names: the rule holds its registry name.
    return 'board' in rule ? { ...rule, board: boardName(`exclude[${i}].board`, rule.board) } : rule;
  });
  const grid: Grid = { name: typeof raw.name === 'string' && /^[\w.-]+$/.test(raw.name) ? raw.name : fallbackName, objective, workloads, axes: axes as Grid['axes'], exclude: rules as Grid['exclude'], boards };
  const size = gridSize(grid);
  if (size > MAX_GRID_POINTS) throw new GridError(`the grid has ${size.toLocaleString('en-US')} points, more than the ${MAX_GRID_POINTS.toLocaleString('en-US')} a grid may have: split it into smaller grids`);
  return grid;
}

/**
 * The grid's `board`: one name or a non-empty list of them (aliases too),
 * each a board with model firmware (model/targets.ts); their registry names,
 * picotpu when left out.
 */
function readBoards(v: unknown): string[] {
  if (v === undefined) return [DEFAULT_TARGET.board];
  const all = Array.isArray(v) ? v : [v];
  if (!all.length) throw new GridError('board must be a board\'s name or a non-empty list of them');
  const out: string[] = [];
  all.forEach((x, i) => {
    const where = Array.isArray(v) ? `board[${i}]` : 'board';
    const name = boardName(where, x);
    if (out.includes(name)) throw new GridError(`${where}: the board ${name} is already in the list`);
    out.push(name);
  });
  return out;
}

/** The registry name of a board with model firmware, by any of its names; else GridError naming `where`. */
function boardName(where: string, x: unknown): string {
  if (typeof x !== 'string') throw new GridError(`${where} must be a board's name, got ${shown(x)}`);
  let name: string;
  try { name = boardNamed(x).name; } catch (e) { if (e instanceof BoardError) throw new GridError(`${where}: ${e.message}`); throw e; }
  if (!modelTargetOf(name)) throw new GridError(`${where}: no model firmware runs on the ${name} board (boards with one: ${MODEL_TARGETS.map((t) => t.board).join(', ')})`);
  return name;
}

/** The values of the variant axis on a board: the grid's, else the board's default (picotpu's as built, another board's every variant bit). */
function variantsOn(g: Grid, board: string): KnobValue[] {
  const target = modelTargetOf(board)!;
  return g.axes.variant ?? [target === DEFAULT_TARGET ? AS_BUILT.variant : target.variantBits];
}

/** The grid's points before exclusions: the workloads' combinations times the axes' (arithmetic, nothing expanded); a board other than picotpu takes only the variant axis. */
export function gridSize(g: Grid): number {
  const combos = g.workloads.reduce((sum, w) => sum + (w.kind === 'matmul' ? w.m.length * w.k.length * w.n.length : w.promptLength.length * w.decodeSteps.length * w.batch.length), 0);
  return g.boards.reduce((n, board) => n + (modelTargetOf(board) === DEFAULT_TARGET
    ? Object.values(g.axes).reduce((m, v) => m * (v?.length ?? 1), combos)
    : combos * variantsOn(g, board).length), 0);
}

/** The knobs as the sweep's ConfigOverride; a value the platform cannot take is a PointError. */
export function overrideOf(k: Knobs): ConfigOverride {
  if (!['none', 'mul', 'fast'].includes(k.multiply as string)) throw new PointError(`multiply must be "none", "mul" or "fast", got ${shown(k.multiply)}`);
  return checkOverride({
    queueDepth: k.queueDepth, tpuWait: k.tpuWait, sramReadClocksPerByte: k.sramReadClocksPerByte, sramWriteClocksPerByte: k.sramWriteClocksPerByte,
    spadKiB: k.spadKiB, mxuDim: k.mxuDim, barrelShifter: k.barrelShifter, ...(k.multiply !== 'none' ? { multiply: k.multiply } : {}),
  });
}

/** The point's name: workload, then every knob (so the same point has the same key in every grid). */
function keyOf(workload: string, k: Knobs): string {
  return `${workload} v${k.variant} mxu${k.mxuDim} spad${k.spadKiB} q${k.queueDepth} wait${k.tpuWait} sram${k.sramReadClocksPerByte}/${k.sramWriteClocksPerByte}`
    + ` ${k.barrelShifter ? 'barrel' : 'shift2'} mul-${k.multiply}`;
}

/** The workload combinations of one entry: a RunPoint without its knobs. */
function workloadsOf(w: Workload): { name: string; fields: Record<string, number>; point: (k: Knobs, o: ConfigOverride) => RunPoint }[] {
  if (w.kind === 'matmul') {
    return product([['m', w.m], ['k', w.k], ['n', w.n]]).map((f) => {
      const m = f.m as number, k = f.k as number, n = f.n as number;
      return { name: `mm ${m}x${k}x${n}`, fields: { m, k, n }, point: (kn, config) => ({ kind: 'matmul', m, k, n, variant: kn.variant as number, config }) };
    });
  }
  const { dims } = w;
  const dimsName = `d${dims.d} ff${dims.dFF} h${dims.heads} L${dims.layers} V${dims.vocab} S${dims.maxSeq}`;
  return product([['promptLength', w.promptLength], ['decodeSteps', w.decodeSteps], ['batch', w.batch]]).map((f) => {
    const P = f.promptLength as number, D = f.decodeSteps as number, B = f.batch as number;
    return {
      name: `model ${dimsName} P${P} D${D}${B > 1 ? ` B${B}` : ''}`, fields: { promptLength: P, decodeSteps: D, batch: B },
      point: (kn, config) => ({ kind: 'model', dims, promptLength: P, decodeSteps: D, variant: kn.variant as number, config, check: true, ...(B > 1 ? { batch: B } : {}) }),
    };
  });
}

const matches = (rule: Record<string, KnobValue>, k: Knobs, fields: Record<string, number>, board: string) =>
  Object.entries(rule).every(([name, v]) => (name === 'board' ? board === v : name in k ? k[name as Knob] === v : fields[name] === v));

/** Every point of the grid, in grid order, and how many the exclusions left out. */
export function expandGrid(g: Grid): { points: GridPoint[]; excluded: number } {
  const size = gridSize(g);
  if (size > MAX_GRID_POINTS) throw new GridError(`the grid has ${size} points, more than the ${MAX_GRID_POINTS} a grid may have`);
  const axes = KNOBS.map((k) => [k, g.axes[k] ?? [AS_BUILT[k]]] as [string, KnobValue[]]);
  const points: GridPoint[] = [];
  const seen = new Set<string>();
  let excluded = 0;
  for (const board of g.boards) {
    if (modelTargetOf(board) === DEFAULT_TARGET) excluded += expandOnPicotpu(g, axes, points, seen);
    else excluded += expandOnBoard(g, board, points, seen);
  }
  return { points, excluded };
}

/** A rule that can match a point of a board that runs as built: it names no platform knob but the variant. */
const asBuiltRule = (rule: Record<string, KnobValue>) => Object.keys(rule).every((name) => name === 'variant' || !(KNOBS as readonly string[]).includes(name));

/** A board other than picotpu runs as built: each workload once per variant, keyed by the board. */
function expandOnBoard(g: Grid, board: string, points: GridPoint[], seen: Set<string>): number {
  let excluded = 0;
  for (const w of g.workloads.flatMap(workloadsOf)) {
    for (const variant of variantsOn(g, board)) {
      const knobs = { ...AS_BUILT, variant } as Knobs;
      if (g.exclude.some((rule) => asBuiltRule(rule) && matches(rule, knobs, w.fields, board))) { excluded++; continue; }
      const key = `${w.name} v${variant} on ${board}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const { config: _asBuilt, ...planned } = w.point(knobs, {});
      const run = within(key, () => checkRunPoint({ ...planned, board }));
      points.push({ key, board, knobs, workload: { name: w.name, fields: w.fields }, run, status: pointStatus(run) });
    }
  }
  return excluded;
}

/** picotpu: every workload at every combination of the knobs. */
function expandOnPicotpu(g: Grid, axes: [string, KnobValue[]][], points: GridPoint[], seen: Set<string>): number {
  let excluded = 0;
  for (const w of g.workloads.flatMap(workloadsOf)) {
    for (const combo of product(axes)) {
      const knobs = combo as Knobs;
      if (g.exclude.some((rule) => matches(rule, knobs, w.fields, DEFAULT_TARGET.board))) { excluded++; continue; }
      const key = keyOf(w.name, knobs);
      if (seen.has(key)) continue;
      seen.add(key);
      // The point through the one schema every job and record passes (point-check.ts).
      const run = within(key, () => checkRunPoint(w.point(knobs, overrideOf(knobs))));
      points.push({ key, board: DEFAULT_TARGET.board, knobs, workload: { name: w.name, fields: w.fields }, run, status: pointStatus(run) });
    }
  }
  return excluded;
}
