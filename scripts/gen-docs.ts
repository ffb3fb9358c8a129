// Regenerates the sections of README.md and docs/*.md that quote the tool's
// own output, so a figure in the docs is what the tool prints today. A section
// lies between
//   <!-- generated: npm run gen:docs -- NAME -->
//   <!-- end generated -->
// and NAME picks its generator below. `npm run gen:docs` rewrites every
// section; `npm run gen:docs -- NAME ...` only those; `--check` rewrites
// nothing and exits 1 naming each stale section (test/gen-docs.test.ts runs it).
//
// A figure inside a sentence is generated the same way, inline:
//   <!--=prefill, base.cycles-->4,133,696<!--/=-->
// names a counter of a `bench` experiment (`bench --json`'s field names;
// `EXPERIMENT>WINDOW.FIELD` for a window, `matmul SHAPE vVARIANT.FIELD` for
// `bench --matmul SHAPE --variant VARIANT`; the field `bound` is the analytic
// model's lower bound of the run or window), or two of them joined by
// ` - ` (their difference), ` / ` (their ratio; ` @N` sets the decimals, 3
// by default), ` % ` (the first as a percentage of the second, one decimal) or
// ` => ` (the change from the first to the second in per cent, signed, one decimal).
// `needs BIT` is what a variant bit needs besides itself (model/firmware-facts.ts
// VARIANT_NEEDS), in words: `<!--=needs STREAM-->PANEL<!--/=-->`.
// Besides the counters, an experiment has `seed:FIELD` (the write-up's figure:
// run, mxu, vpu, dma, idle, overlap), `predRun` (the predicted run clocks) and
// `commands` / `commands:UNIT` (the TPU commands it issues, counted on the
// emulator); `profile JOB vVARIANT.FIELD` is a figure of `run --profile` on
// a profiled window (profileFigure below, study/doc-runs.ts).

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bitNames, VARIANT_NEEDS, type VariantBitName } from '../model/firmware-facts.ts';
import { STUDY_GENERATORS } from './gen-docs-study.ts';
import { experimentCommands, windowProfile } from '../study/doc-runs.ts';
import { RUN_GENERATORS } from './gen-docs-runs.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(root, 'bin', 'picotpu.cjs');

const BEGIN = /^<!-- generated: npm run gen:docs -- ([a-z0-9-]+) -->$/;
const END = '<!-- end generated -->';

/** One run of the command line, which must succeed: its standard output and standard error apart. */
function spawn(args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`picotpu ${args.join(' ')}: exit status ${r.status}: ${r.stderr.trim().split('\n').pop()}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

/** 1234567 → "1,234,567", as the docs write counts. */
const n = (x: number) => x.toLocaleString('en-US');
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;

/** The counters of one text report ("run N clocks …", "MXU busy N …"). */
interface Report { run: number; mxu: number; vpu: number; dma: number; idle: number; stalled: number; overlap: number }

function parseReport(lines: string[]): Report {
  const value = (prefix: string) => {
    const line = lines.find((l) => l.startsWith(prefix));
    if (!line) throw new Error(`no "${prefix}" line in a report`);
    return Number(line.slice(prefix.length).trim().split(/\s+/)[0]);
  };
  return {
    run: value('run '),
    mxu: value('MXU busy'),
    vpu: value('VPU busy'),
    dma: value('DMA busy'),
    idle: value('no unit busy (issue overhead)'),
    stalled: value('producer stalled on a full queue'),
    overlap: value('two or more units busy'),
  };
}

/** The standard `bench` run, once per process: its text output. */
let benchText: string | undefined;
function bench(): string {
  benchText ??= spawn(['bench']).stdout;
  return benchText;
}

/** The report of one experiment's window ("" for the whole run) from `bench`'s text. */
function benchReport(experiment: string, window = ''): Report {
  const lines = bench().split('\n');
  const start = lines.findIndex((l) => l.startsWith(`== ${experiment} (`));
  if (start < 0) throw new Error(`bench printed no experiment "${experiment}"`);
  let from = start + 1;
  if (window) {
    from = lines.findIndex((l, i) => i > start && l === `-- ${experiment}: ${window} window --`) + 1;
    if (from <= 0) throw new Error(`bench printed no ${window} window for "${experiment}"`);
  }
  return parseReport(lines.slice(from, from + 7));
}

/** `bench`'s summary block, without the wall-time line (it depends on the machine). */
function benchSummary(): string[] {
  const lines = bench().trimEnd().split('\n');
  const start = lines.indexOf('== summary ==');
  const summary = lines.slice(start).filter((l) => !l.startsWith('wall '));
  while (summary.at(-1) === '') summary.pop();
  return summary;
}

/** One experiment of `bench --json` (the fields the docs quote). */
interface JsonCounters { cycles: number; mxuBusy: number; vpuBusy: number; dmaBusy: number; idle: number; overlap: number }
interface JsonExperiment {
  name: string;
  counters: JsonCounters;
  windows: { label: string; counters: JsonCounters }[];
  prediction?: { total: { lowerBound: number; runClocks?: number | null }; phases: { name: string; lowerBound: number; runClocks?: number | null }[] };
  seed: { run: number; mxu: number; vpu: number; dma: number; idle: number } | null;
}

/** The standard `bench --json` run, once per process. */
let benchJsonCache: JsonExperiment[] | undefined;
function benchJson(): JsonExperiment[] {
  benchJsonCache ??= (JSON.parse(spawn(['bench', '--json']).stdout) as { experiments: JsonExperiment[] }).experiments;
  return benchJsonCache;
}

function experiment(name: string): JsonExperiment {
  const e = benchJson().find((x) => x.name === name);
  if (!e) throw new Error(`bench --json has no experiment "${name}"`);
  return e;
}

/** A signed count as the docs write a difference: −1,234 or +1,234. */
const signed = (x: number) => `${x < 0 ? '−' : '+'}${n(Math.abs(x))}`;

/** The matmuls the docs quote: the transformer's weight matmuls, one row (decode) and 64 rows (prefill). */
const MATMUL_SHAPES = ['1x128x128', '1x128x512', '1x512x128', '64x128x128', '64x128x512', '64x512x128'];

/**
 * `bench --matmul SHAPE --variant V --json`'s counters. One process runs every
 * shape of MATMUL_SHAPES for a variant, once per process.
 */
const matmulJsonCache = new Map<string, JsonCounters>();
const matmulBoundCache = new Map<string, number>();
function matmulJson(shape: string, variant: number): JsonCounters {
  const key = `${shape}/${variant}`;
  if (!matmulJsonCache.has(key)) {
    const shapes = MATMUL_SHAPES.includes(shape) ? MATMUL_SHAPES : [shape];
    const args = ['bench', ...shapes.flatMap((x) => ['--matmul', x]), '--variant', String(variant), '--json'];
    const experiments = (JSON.parse(spawn(args).stdout) as { experiments: JsonExperiment[] }).experiments;
    if (experiments.length !== shapes.length) throw new Error(`bench ${args.join(' ')}: ${experiments.length} experiments, not ${shapes.length}`);
    shapes.forEach((x, i) => {
      matmulJsonCache.set(`${x}/${variant}`, experiments[i].counters);
      matmulBoundCache.set(`${x}/${variant}`, experiments[i].prediction?.total.lowerBound ?? NaN);
    });
  }
  return matmulJsonCache.get(key)!;
}

/** The analytic model's lower bound of a `bench --matmul` run. */
function matmulBound(shape: string, variant: number): number {
  matmulJson(shape, variant);
  return matmulBoundCache.get(`${shape}/${variant}`)!;
}

/**
 * A figure of a profiled window (study/doc-runs.ts PROFILE_JOBS): the
 * profile's totals (`cycles`, `idle`, `stall`, `dmaBusy`, `mxuBusy`,
 * `vpuBusy`), `instructions`, `commands` (`commands:UNIT`), per decode step
 * (`commandsPerStep`, `instructionsPerStep`), or one function's
 * `fn:NAME:FIELD` (clocks, idle, stall, calls, instructions).
 */
function profileFigure(job: string, variant: number, field: string): number {
  const w = windowProfile(job, variant);
  const t = w.profile.totals;
  const fn = /^fn:([^:]+):(clocks|idle|stall|calls|instructions)$/.exec(field);
  if (fn) {
    const f = w.profile.functions.find((x) => x.name === fn[1]);
    if (!f) throw new Error(`the profile of ${job} v${variant} has no function "${fn[1]}"`);
    return f[fn[2] as 'clocks'];
  }
  const unit = /^commands:(DMA|MXU|VPU)$/.exec(field);
  if (unit) return w.commands[unit[1] as 'DMA'];
  const values: Record<string, number> = {
    cycles: t.clocks, idle: t.idle, stall: t.stall, dmaBusy: t.busy.DMA, mxuBusy: t.busy.MXU, vpuBusy: t.busy.VPU,
    instructions: w.instructions, commands: w.commands.total,
    commandsPerStep: Math.round(w.commands.total / w.perStep), instructionsPerStep: Math.round(w.instructions / w.perStep),
  };
  if (!(field in values)) throw new Error(`no profile figure "${field}" (profile ${job} v${variant})`);
  return values[field];
}

/** One counter named as an inline figure names it (see the top of this file). */
function counterOf(path: string): number {
  const dot = path.lastIndexOf('.');
  const where = path.slice(0, dot).trim();
  let field = path.slice(dot + 1);
  let counters: JsonCounters;
  const prof = /^profile ([a-z0-9]+) v(\d+)$/.exec(where);
  if (prof) return profileFigure(prof[1], Number(prof[2]), field);
  const mm = /^matmul (\d+x\d+x\d+) v(\d+)$/.exec(where);
  if (mm && field === 'bound') return matmulBound(mm[1], Number(mm[2]));
  if (mm) counters = matmulJson(mm[1], Number(mm[2]));
  else {
    const [name, window] = where.split('>');
    const e = experiment(name);
    if (field.startsWith('seed:')) {
      const v = (e.seed as Record<string, number> | null)?.[field.slice('seed:'.length)];
      if (v === undefined || window) throw new Error(`bench experiment "${where}" has no write-up figure "${field}"`);
      return v;
    }
    if (field === 'commands' || field.startsWith('commands:')) {
      const c = experimentCommands(name, (window ?? '') as '' | 'prefill' | 'decode');
      return field === 'commands' ? c.total : c[field.slice('commands:'.length) as 'DMA' | 'MXU' | 'VPU'];
    }
    if (field === 'predRun') {
      const v = window ? e.prediction?.phases.find((p) => p.name === window)?.runClocks : e.prediction?.total.runClocks;
      if (typeof v !== 'number') throw new Error(`bench experiment "${where}" has no predicted run clocks`);
      return v;
    }
    if (field === 'bound') {
      const bound = window ? e.prediction?.phases.find((p) => p.name === window)?.lowerBound : e.prediction?.total.lowerBound;
      if (bound === undefined) throw new Error(`bench experiment "${where}" has no predicted bound`);
      return bound;
    }
    if (window) {
      const w = e.windows.find((x) => x.label === window);
      if (!w) throw new Error(`bench experiment "${name}" has no window "${window}"`);
      counters = w.counters;
    } else counters = e.counters;
  }
  let value: unknown = counters;
  if (field.startsWith('depWaitByUnit:')) {
    value = (counters as unknown as { depWaitByUnit: Record<string, number> }).depWaitByUnit;
    field = field.slice('depWaitByUnit:'.length);
  }
  const v = (value as Record<string, unknown>)[field];
  if (typeof v !== 'number') throw new Error(`no counter "${field}" in "${where}"`);
  return v;
}

/** An inline figure's text from its expression. */
export function inlineFigure(expr: string): string {
  const needs = /^needs ([A-Z_]+)$/.exec(expr);
  if (needs) {
    const mask = VARIANT_NEEDS[needs[1] as VariantBitName];
    if (mask === undefined) throw new Error(`VARIANT_NEEDS names no bit "${needs[1]}"`);
    return bitNames(mask);
  }
  const digits = /\s@(\d+)$/.exec(expr);
  const body = digits ? expr.slice(0, digits.index) : expr;
  for (const op of [' => ', ' - ', ' / ', ' % ']) {
    const at = body.indexOf(op);
    if (at < 0) continue;
    const a = counterOf(body.slice(0, at));
    const b = counterOf(body.slice(at + op.length));
    if (op === ' => ') { const c = (100 * (b - a)) / a; return `${c < 0 ? '−' : '+'}${Math.abs(c).toFixed(digits ? Number(digits[1]) : 1)}`; }
    if (op === ' - ') return n(a - b);
    if (op === ' / ') return (a / b).toFixed(digits ? Number(digits[1]) : 3);
    return ((100 * a) / b).toFixed(digits ? Number(digits[1]) : 1);
  }
  return n(counterOf(body));
}

const INLINE = /<!--=(.+?)-->(.*?)<!--\/=-->/g;

/** 8×8 output tiles of an MxKxN matmul. */
function tiles(shape: string): number {
  const [m, , cols] = shape.split('x').map(Number);
  return Math.ceil(m / 8) * Math.ceil(cols / 8);
}

const change = (before: number, after: number) => {
  const c = (100 * (after - before)) / before;
  return `${c < 0 ? '−' : '+'}${Math.abs(c).toFixed(1)} %`;
};

const WEIGHT_SHAPES: [shape: string, label: string][] = [
  ['1x128x128', '1×128×128 (Wq, Wk, Wv, Wo)'],
  ['1x128x512', '1×128×512 (W1)'],
  ['1x512x128', '1×512×128 (W2)'],
];

/** `picotpu run build/fw/tpubench.elf`, once per process (README and debugging.md quote it). */
let tpubenchRun: { stdout: string; stderr: string } | undefined;

/** Each generator returns the section's lines, markers excluded. */
const GENERATORS: Record<string, () => string[]> = {
  'run-report': () => {
    tpubenchRun ??= spawn(['run', 'build/fw/tpubench.elf']);
    const { stdout, stderr } = tpubenchRun;
    return ['```', '$ node bin/picotpu.cjs run build/fw/tpubench.elf', ...stdout.trimEnd().split('\n'), ...stderr.trimEnd().split('\n'), '```'];
  },
  'bench-set': () => {
    const lines = bench().trimEnd().split('\n');
    const rows = benchSummary().slice(3).filter((l) => l.includes('|')).length;
    const wall = lines.find((l) => l.startsWith('wall '));
    const clocks = Number(/, (\d+) emulated clocks/.exec(wall ?? '')?.[1]);
    return [
      `The standard set is ${rows} experiments, ${n(clocks)} emulated clocks; it takes a few`,
      'seconds. A progress bar goes to standard error on a terminal; the reports go to',
      'standard output.',
    ];
  },
  'bench-summary': () => ['```', ...benchSummary(), '```'],
  'bench-base-windows': () => {
    const rows = ['prefill', 'decode'].map((w) => {
      const r = benchReport('full inference, base', w);
      return `| ${w} | ${n(r.run)} | ${n(r.mxu)} | ${n(r.vpu)} | ${n(r.dma)} | ${n(r.idle)} (${pct(r.idle, r.run)}) | ${(r.dma / r.mxu).toFixed(2)} |`;
    });
    return ['| window | run | MXU busy | VPU busy | DMA busy | no unit busy | DMA / MXU |', '|---|---:|---:|---:|---:|---:|---:|', ...rows];
  },
  'decode-share': () => {
    const total = benchReport('full inference, base');
    const d = benchReport('full inference, base', 'decode');
    return [
      `Decode is ${pct(d.run, total.run)} of the full inference (${n(d.run)} of ${n(total.run)} clocks) and`,
      `its DMA is busy ${(d.dma / d.mxu).toFixed(2)} times as long as its MXU.`,
    ];
  },
  'decode-idle': () => {
    const d = benchReport('full inference, base', 'decode');
    return [
      `Yet the DMA is busy only ${pct(d.dma, d.run)} of decode, and **no unit is busy ${pct(d.idle, d.run)} of it**:`,
      `${n(d.idle)} clocks, about ${n(Math.round(d.idle / 64 / 100) * 100)} per decode step. Decode's lower bound is its`,
      `DMA busy (${n(d.dma)}: the DMA is the busiest unit of every decode call), and`,
      `decode runs ${(d.run / d.dma).toFixed(2)} times that.`,
    ];
  },
  'matmul-single-row': () => [
    '| matmul (double-buffered) | run | MXU busy | DMA busy | no unit busy | idle per 8×8 tile | two or more busy |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...WEIGHT_SHAPES.map(([shape, label]) => {
      const r = matmulJson(shape, 1);
      return `| ${label} | ${n(r.cycles)} | ${n(r.mxuBusy)} | ${n(r.dmaBusy)} | ${n(r.idle)} | ${n(Math.round(r.idle / tiles(shape)))} | ${n(r.overlap)} |`;
    }),
  ],
  'matmul-lean': () => [
    '| matmul | double-buffered | + LEAN | change | DB + tokens | + LEAN | change |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...MATMUL_SHAPES.map((shape) => {
      const [db, lean, tok, tokLean] = [1, 17, 9, 25].map((v) => matmulJson(shape, v).cycles);
      return `| ${shape.replaceAll('x', '×')} | ${n(db)} | ${n(lean)} | ${change(db, lean)} | ${n(tok)} | ${n(tokLean)} | ${change(tok, tokLean)} |`;
    }),
  ],
};

GENERATORS['seed-comparison'] = () => [
  '| experiment | ours | seed | ours / seed | no unit busy, ours | seed |',
  '|---|---:|---:|---:|---:|---:|',
  ...benchJson()
    .filter((e) => e.seed)
    .map((e) => {
      const seed = e.seed!;
      return `| ${e.name} | ${n(e.counters.cycles)} | ${n(seed.run)} | ${(e.counters.cycles / seed.run).toFixed(3)} | ${n(e.counters.idle)} | ${n(seed.idle)} |`;
    }),
];

GENERATORS['seed-difference'] = () => {
  const full = experiment('full inference, base');
  const prefill = experiment('prefill, base');
  const ours = full.counters;
  const seed = full.seed!;
  const decode = full.windows.find((w) => w.label === 'decode')!.counters;
  const seedDecode = seed.run - prefill.seed!.run;
  const seedDecodeIdle = seed.idle - prefill.seed!.idle;
  return [
    `Our base full inference takes ${n(ours.cycles - seed.run)} clocks more than the seed's, and its`,
    `no-unit-busy clocks are ${n(ours.idle - seed.idle)} more; every unit is busy *less* than in the`,
    `seed (MXU ${signed(ours.mxuBusy - seed.mxu)}, VPU ${signed(ours.vpuBusy - seed.vpu)}, DMA ${signed(ours.dmaBusy - seed.dma)}). Neither run overlaps units`,
    '(base), so run = MXU + VPU + DMA + idle in both, and the whole difference is',
    `CPU time. Of it, ${n(decode.cycles - seedDecode)} clocks are in decode (ours ${n(decode.cycles)}, the seed's`,
    `${n(seed.run)} − ${n(prefill.seed!.run)} = ${n(seedDecode)}), whose idle clocks differ by ${n(decode.idle - seedDecodeIdle)}`,
    `(${n(decode.idle)} against ${n(seedDecodeIdle)}).`,
  ];
};

GENERATORS['matmul-ladder'] = () => [
  '| matmul | before | run / bound | 1023 | run / bound |',
  '|---|---:|---:|---:|---:|',
  ...MATMUL_SHAPES.map((shape) => {
    const before = shape.startsWith('1x') ? 25 : 31;
    const a = matmulJson(shape, before).cycles;
    const b = matmulJson(shape, 1023).cycles;
    const ratio = (run: number, v: number) => (run / matmulBound(shape, v)).toFixed(2);
    return `| ${shape.replaceAll('x', '×')} | ${n(a)} (${before}) | ${ratio(a, before)} | ${n(b)} | ${ratio(b, 1023)} |`;
  }),
];

/** One `picotpu demo` run, once per process and arguments: its reports and the line the docs quote. */
interface DemoRun { sum: string; correct: string; prefill: Report; decode: Report; whole: Report; clocks: number }
const demoRuns = new Map<string, DemoRun>();
function demo(args: string[]): DemoRun {
  const key = args.join(' ');
  let run = demoRuns.get(key);
  if (!run) {
    const lines = spawn(['demo', ...args]).stdout.split('\n');
    const field = (name: string) => lines.find((l) => l.startsWith(`${name} `))?.slice(name.length).trim() ?? '';
    const report = (header: string) => {
      const at = lines.findIndex((l) => l.startsWith(`== ${header}`));
      if (at < 0) throw new Error(`picotpu demo ${key} printed no "${header}" report`);
      return parseReport(lines.slice(at + 1, at + 8));
    };
    // The wall line's clock count is the run's (reset to EXIT, or run pulse to DONE); its times are the machine's.
    const clocks = Number(/ for ([\d,]+) emulated clocks/.exec(lines.find((l) => l.startsWith('wall ')) ?? '')?.[1].replaceAll(',', ''));
    run = { sum: field('sum'), correct: field('correct'), prefill: report('prefill'), decode: report('decode'), whole: report('whole run'), clocks };
    demoRuns.set(key, run);
  }
  return run;
}

/** Seconds on the 12 MHz board, as the docs write them. */
const seconds = (clocks: number, digits = 2) => (clocks / 12e6).toFixed(digits);

GENERATORS['demo-clocks'] = () => {
  const best = demo(['123456789+987654321']);
  const v2047 = demo(['123456789+987654321', '--variant', '2047']);
  return [
    '`picotpu demo 123456789+987654321` on the trained model (default variant',
    `4095; sum ${best.sum}, ${best.correct === 'yes' ? 'correct' : 'wrong'}) prints a prefill window of ${n(best.prefill.run)} clocks,`,
    `a decode window of ${n(best.decode.run)} clocks (32 steps), ${n(best.whole.run)} for both, and`,
    `${n(best.clocks)} emulated clocks from reset to EXIT: about ${seconds(best.clocks)} s on the 12 MHz`,
    `board (variant 2047: ${n(v2047.prefill.run)}, ${n(v2047.decode.run)}, ${n(v2047.whole.run)} and ${n(v2047.clocks)}).`,
  ];
};

/** The seed board's demo at the write-up's ladder: base, double-buffered, fused, FlashAttention (4095 acts as 7); its clocks are the board's counters, run pulse to DONE. */
const SEED_LADDER: [variant: number, label: string][] = [[0, 'base'], [1, 'double-buffered'], [3, '+ fused'], [4095, '+ FlashAttention']];

GENERATORS['seed-demo'] = () => {
  const run = demo(['--board', 'seed', '1234+5678', '--variant', '4095']);
  return [
    '`demo --board seed 1234+5678` on the trained model (default variant 4095, of',
    `which the seed firmware acts on bits 1, 2 and 4) prints \`sum ${run.sum}\` and`,
    `\`correct ${run.correct}\`, a prefill of ${n(run.prefill.run)} clocks, a decode of ${n(run.decode.run)} clocks`,
    `(32 steps) and ${n(run.whole.run)} clocks from the run pulse to DONE: ${seconds(run.whole.run)} s on the`,
    "seed's 12 MHz clock. Whole runs of that problem, as `demo --board seed",
    '1234+5678 --variant V` prints them:',
    '',
    '| variant | | run pulse to DONE | MXU busy | VPU busy | DMA busy |',
    '|---|---|---:|---:|---:|---:|',
    ...SEED_LADDER.map(([v, label]) => {
      const r = demo(['--board', 'seed', '1234+5678', '--variant', String(v)]);
      return `| ${v === 4095 ? 7 : v} | ${label} | ${n(r.whole.run)} | ${n(r.whole.mxu)} | ${n(r.whole.vpu)} | ${n(r.whole.dma)} |`;
    }),
  ];
};
Object.assign(GENERATORS, STUDY_GENERATORS, RUN_GENERATORS);

export const GENERATOR_NAMES = Object.keys(GENERATORS);

/** README.md and docs/*.md, relative to the repository. */
export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

/** A text with its generated sections rewritten (only those in `only`, if given). */
export function regenerate(file: string, text: string, only?: Set<string>): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(only ? lines[i] : lines[i].replace(INLINE, (_, expr: string) => `<!--=${expr}-->${inlineFigure(expr)}<!--/=-->`));
    const m = BEGIN.exec(lines[i]);
    if (!m) continue;
    const end = lines.indexOf(END, i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: generated section "${m[1]}" has no "${END}"`);
    const generate = GENERATORS[m[1]];
    if (!generate) throw new Error(`${file}:${i + 1}: no generator named "${m[1]}" (known: ${GENERATOR_NAMES.join(', ')})`);
    if (only && !only.has(m[1])) out.push(...lines.slice(i + 1, end));
    else out.push(...generate());
    out.push(END);
    i = end;
  }
  return out.join('\n');
}

/** The files whose generated sections differ from what the generators print now. */
export function staleFiles(only?: Set<string>): string[] {
  return docFiles().filter((f) => {
    const text = readFileSync(join(root, f), 'utf8');
    return regenerate(f, text, only) !== text;
  });
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const names = argv.filter((a) => a !== '--check');
  for (const name of names) {
    if (!GENERATORS[name]) {
      process.stderr.write(`gen-docs: no generator named "${name}" (known: ${GENERATOR_NAMES.join(', ')})\n`);
      return 165;
    }
  }
  const only = names.length ? new Set(names) : undefined;
  let stale = 0;
  for (const f of docFiles()) {
    const text = readFileSync(join(root, f), 'utf8');
    const fresh = regenerate(f, text, only);
    if (fresh === text) continue;
    stale++;
    if (check) process.stderr.write(`gen-docs: ${f} has stale generated sections (npm run gen:docs)\n`);
    else {
      writeFileSync(join(root, f), fresh);
      process.stdout.write(`gen-docs: rewrote ${f}\n`);
    }
  }
  return check && stale ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
