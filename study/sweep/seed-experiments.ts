// The scaling experiments of `picotpu sweep --board seed`: the same studies as
// experiments.ts, run on the write-up's board (transformer-tpu-int4) with our
// transformer firmware for it (build/fw/seed-model.elf). Its firmware decodes
// one sequence and its scratchpad plan bounds the shapes (model/seed-fit.ts),
// so the shapes are the write-up's where they fit and smaller where they do
// not, and an experiment the board cannot run says why in one line. The
// predictions are seed-points.ts's: busy clocks and the bound per window, run
// clocks where model/seed-schedule.ts covers the job.

import type { TopLevelSpec } from 'vega-lite';
import { SEED_BEST_VARIANT, SEED_RUNGS, SEED_VARIANT, seedVariantName, type ModelDims } from '../../model/format.ts';
import { seedModelMisfit } from '../../model/seed-fit.ts';
import { SEED_MODEL_BOARD } from '../../model/seed-job.ts';
import { BASE_DIMS } from '../bench.ts';
import { BARS_AND_MARKS, BOUND, chartSpec, LINES_AND_POINTS, MEASURED, measuredPhase, PREDICTED, PREDICTED_RUN, predictedPhase, predictedRun, rooflineChart, rowsOf, type ChartRow } from './charts.ts';
import { Compared, section, table, worstBusyError, worstRunError, type Experiment, type Figure, type Scale } from './experiments.ts';
import { errorPct, type MatmulPoint, type ModelPoint, type RunRecord } from './runs.ts';
import { SEED_RUN_UNPREDICTED } from './seed-points.ts';
import { groupDigits } from '../group-digits.ts';

const SMALL_DIMS: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 1, vocab: 16, maxSeq: 32 };
const { DOUBLE_BUFFER, FUSED, FLASH } = SEED_VARIANT;
/** The firmware's variants, one technique added a rung: the write-up's three, then the rungs past it (model/format.ts). */
const RUNGS = SEED_RUNGS.map((r) => r.value);
/** The best variant of the board's firmware. */
const BEST = SEED_BEST_VARIANT;

const f0 = groupDigits;
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const pct = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}%`;

const point = (dims: ModelDims, promptLength: number, decodeSteps: number, variant: number): ModelPoint =>
  ({ kind: 'model', dims, promptLength, decodeSteps, variant, board: SEED_MODEL_BOARD });
const total = (r: RunRecord) => r.measured.reduce((a, p) => a + p.cycles, 0);
const bound = (r: RunRecord) => r.predicted.reduce((a, p) => a + p.lowerBound, 0);
/** A rung by the technique it adds to the rung before ("base" first). */
function rungName(v: number): string {
  const at = RUNGS.indexOf(v);
  return at <= 0 ? seedVariantName(v) : `+${seedVariantName(v & ~RUNGS[at - 1])}`;
}
const need = (m: Map<string, RunRecord>, key: string) => { const r = m.get(key); if (!r) throw new Error(`sweep record ${key} is missing`); return r; };
const byKey = (records: RunRecord[]) => new Map(records.map((r) => [r.key, r]));
const spec = (c: Parameters<typeof chartSpec>[0]): TopLevelSpec => chartSpec(c);

/** A window's predicted run as a cell: "-" until the board's run clocks are predicted. */
const runCell = (r: RunRecord, phase: string, per = 1) => {
  const run = predictedPhase(r, phase).runClocks;
  if (run === null || run === undefined) return '-';
  return `${f0(run / per)} (${pct(errorPct(run, measuredPhase(r, phase).cycles))})`;
};

/** The check every table ends with: busy predictions (exact), run predictions (where there are any). */
function busyCheck(records: RunRecord[], unpredicted = SEED_RUN_UNPREDICTED): string {
  const run = worstRunError(records);
  return `largest busy-clock prediction error (MXU, VPU, DMA, every run): ${worstBusyError(records).toFixed(2)}%\n`
    + `largest run-clock prediction error (model/seed-schedule.ts, ${run.covered} windows${run.uncovered ? `; ${run.uncovered} "-": ${unpredicted}` : ''}): ${run.covered ? `${run.worst.toFixed(2)}%` : '-'}`;
}

/** Why the roofline's run clocks are "-". */
const MMBENCH_UNPREDICTED = 'the run-clock model covers the transformer firmware, not mmbench';

// ---- experiments this board cannot run ----

const unavailable = (name: string, title: string, why: string): Experiment => ({
  name, title, unavailable: why, plan: () => [], report: () => ({ text: why, figures: [], markdown: `## ${title}\n\nNot run on this board: ${why}.\n` }),
});

// ---- roofline ----

const rooflineCase = (scale: Scale) => (scale === 'full'
  ? { ms: [8, 16, 32, 64, 128, 256], ks: [128, 512], n: 128, variants: [0, DOUBLE_BUFFER] }
  : { ms: [8, 64], ks: [64], n: 64, variants: [DOUBLE_BUFFER] });

const roofline: Experiment = {
  name: 'roofline',
  title: 'Roofline: one matmul, many shapes',
  plan(scale) {
    const c = rooflineCase(scale);
    return c.variants.flatMap((v) => c.ks.flatMap((k) => c.ms.map((m) => ({
      key: `mm ${m}x${k}x${c.n} v${v}`, point: { kind: 'matmul', m, k, n: c.n, variant: v, board: SEED_MODEL_BOARD } as MatmulPoint,
    }))));
  },
  report(records) {
    const rows = records.map((r) => {
      const p = r.point as MatmulPoint, pr = predictedPhase(r, 'matmul'), me = measuredPhase(r, 'matmul');
      const macs = p.m * p.k * p.n, bytes = pr.bytesIn + pr.bytesOut;
      return [`${p.m}x${p.k}x${p.n}`, p.variant ? 'double-buffered' : 'base', f0(macs), f0(bytes), f1(macs / bytes), f0(pr.lowerBound), f0(me.cycles), f2(macs / pr.lowerBound), f2(macs / me.cycles),
        f2(me.cycles / pr.lowerBound), pct(errorPct(pr.mxu, me.mxu)), pct(errorPct(pr.dma, me.dma))];
    });
    const text = [table(['M x K x N', 'variant', 'MACs', 'bytes moved', 'MACs/B', 'bound clk', 'run clk', 'MAC/clk bound', 'MAC/clk run', 'run/bound', 'MXU err', 'DMA err'], rows), busyCheck(records, MMBENCH_UNPREDICTED)].join('\n');
    const fig: Figure = {
      file: 'seed-roofline.svg', title: 'Roofline of the tiled matmul (transformer-tpu-int4)',
      shows: 'MACs per clock each matmul shape achieves on the write-up\'s board against its arithmetic intensity, base and double-buffered: measured runs (points) and the double-buffered kernel\'s bound (line), under the MXU\'s and the DMA\'s roofs.',
      spec: spec(rooflineChart(records)),
    };
    const rate = (r: RunRecord) => { const p = r.point as MatmulPoint; return (p.m * p.k * p.n) / measuredPhase(r, 'matmul').cycles; };
    const best = records.reduce((a, r) => (rate(r) > rate(a) ? r : a), records[0]), bp = best.point as MatmulPoint;
    const mm = (k: number) => `${f1((64 * k) / (k + 25))}`;
    const reading = [
      'Each point is one tiled matmul through `build/fw/seed/mmbench.elf` (firmware-c/seed/mmbench.c), which tiles as the transformer firmware tiles its projections: A by row blocks into the scratchpad, B streamed as 8-column panels of K rows (two panel buffers when double-buffered), each block\'s C spilled after it; C is checked against the seed\'s arithmetic.',
      `The MXU's roof is lower than its 64 MACs a clock: an 8×8×K MM takes K + 25 clocks, so ${mm(128)} MACs a clock at K = 128 and ${mm(512)} at K = 512; the DMA fills one byte a clock and spills at 2 clocks a byte plus 3 a command.`,
      `The best measured point is ${bp.m}x${bp.k}x${bp.n} (${bp.variant ? 'double-buffered' : 'base'}) at ${f2(rate(best))} MACs per clock; run clocks are "-" here (${MMBENCH_UNPREDICTED}).`,
    ].join(' ');
    return { text, figures: [fig], markdown: section(roofline.title, [fig], text, reading) };
  },
};

const whatIf = unavailable('what-if', 'Platform what-ifs',
  'the board runs as its RTL is built: the platform knobs (queue depth, register wait, SRAM timing, scratchpad and MXU size, CPU options) are picotpu\'s');
const multiDevice = unavailable('multi-device', 'Multi-device: tensor parallelism over the ring link',
  'the board has no board-to-board link (its TPU ignores unit 3, the LINK port; docs/seed-board.md §4)');

// ---- prefill vs decode ----

const prefillDecodeCase = (scale: Scale) => (scale === 'full'
  ? { dims: BASE_DIMS, ps: [8, 16, 32, 48, 64], steps: 16, fullP: 64 }
  : { dims: SMALL_DIMS, ps: [8, 16], steps: 4, fullP: 16 });
const PD_VARIANTS = [0, BEST] as const;

const prefillDecode: Experiment = {
  name: 'prefill-decode',
  title: 'Prefill vs decode',
  plan(scale) {
    const c = prefillDecodeCase(scale);
    return PD_VARIANTS.flatMap((v) => [
      ...c.ps.map((p) => ({ key: `P${p}+${c.steps} v${v}`, point: point(c.dims, p, c.steps, v) })),
      { key: `full ${c.fullP}+${c.fullP} v${v}`, point: point(c.dims, c.fullP, c.fullP, v) },
    ]);
  },
  report(records) {
    const rows: string[][] = [], lines: string[] = [], series: ChartRow[] = [];
    const ratio = { pre: new Compared(), dec: new Compared() };
    const shares: { v: number; share: number; pre: number; dec: number; P: number; D: number }[] = [];
    for (const v of PD_VARIANTS) {
      const mine = records.filter((r) => (r.point as ModelPoint).variant === v);
      const sweepRuns = mine.filter((r) => !r.key.startsWith('full'));
      const name = seedVariantName(v);
      const perToken = (phase: 'prefill' | 'decode', of: (r: RunRecord) => number): [number, number][] => sweepRuns.map((r) => {
        const p = r.point as ModelPoint;
        return [p.promptLength, of(r) / (phase === 'prefill' ? p.promptLength : p.decodeSteps)];
      });
      for (const phase of ['prefill', 'decode'] as const) {
        series.push(...rowsOf(`${phase}, ${name}`, MEASURED, perToken(phase, (r) => measuredPhase(r, phase).cycles)),
          ...rowsOf(`${phase}, ${name}`, BOUND, perToken(phase, (r) => predictedPhase(r, phase).lowerBound)),
          ...rowsOf(`${phase}, ${name}`, PREDICTED_RUN, perToken(phase, (r) => predictedPhase(r, phase).runClocks ?? NaN).filter(([, y]) => Number.isFinite(y))));
      }
      for (const r of sweepRuns) {
        const p = r.point as ModelPoint, P = p.promptLength, D = p.decodeSteps;
        const mp = measuredPhase(r, 'prefill'), pp = predictedPhase(r, 'prefill'), md = measuredPhase(r, 'decode'), pd = predictedPhase(r, 'decode');
        if (v === 0) { ratio.pre.add(P, pp.dma / pp.mxu, mp.dma / mp.mxu); ratio.dec.add(P, pd.dma / pd.mxu, md.dma / md.mxu); }
        rows.push([`${P}, ${name}`, f0(mp.cycles / P), f0(pp.lowerBound / P), f2(mp.dma / mp.mxu), f0(md.cycles / D), f0(pd.lowerBound / D), f2(md.dma / md.mxu),
          f1(md.cycles / D / (mp.cycles / P)), f2(md.cycles / pd.lowerBound), runCell(r, 'prefill', P), runCell(r, 'decode', D)]);
      }
      const full = mine.find((r) => r.key.startsWith('full'));
      if (full) {
        const fp = full.point as ModelPoint, pre = measuredPhase(full, 'prefill').cycles, dec = measuredPhase(full, 'decode').cycles;
        shares.push({ v, share: (100 * dec) / (pre + dec), pre, dec, P: fp.promptLength, D: fp.decodeSteps });
        lines.push(`full inference ${fp.promptLength} + ${fp.decodeSteps} tokens (${name}): prefill ${f0(pre)} clocks, decode ${f0(dec)} clocks, ${f0(pre + dec)} in all (bound ${f0(bound(full))}, ${f2((pre + dec) / bound(full))}x); decode share ${f1((100 * dec) / (pre + dec))}%`);
      }
    }
    const text = [
      table(['prompt, variant', 'prefill clk/token', 'bound/token', 'DMA/MXU', 'decode clk/token', 'bound/token', 'DMA/MXU', 'decode/prefill per token', 'decode run/bound', 'prefill pred run/token (err)', 'decode pred run/token (err)'], rows),
      ...lines, busyCheck(records),
    ].join('\n');
    const fig1: Figure = {
      file: 'seed-prefill-decode-clocks.svg', title: 'Clocks per token, prefill and decode (transformer-tpu-int4)',
      shows: 'Clocks per token of prefill and of decode against the prompt length on the write-up\'s board, base and best variant: measured, bound and predicted run.',
      spec: spec({ title: 'transformer-tpu-int4: clocks per token against prompt length', subtitle: LINES_AND_POINTS, seriesTitle: 'phase, variant', x: { title: 'prompt length (tokens)' }, y: { title: 'clocks per token', log: true }, rows: series }),
    };
    const fig2: Figure = {
      file: 'seed-prefill-decode-ratio.svg', title: 'DMA busy over MXU busy (transformer-tpu-int4)',
      shows: 'DMA busy over MXU busy of prefill and decode (base kernels) on the write-up\'s board: above 1 a phase moves more than it computes.',
      spec: spec({ title: 'transformer-tpu-int4: DMA busy / MXU busy (base kernels)', subtitle: LINES_AND_POINTS, seriesTitle: 'phase', x: { title: 'prompt length (tokens)' }, y: { title: 'DMA busy / MXU busy', zero: true },
        rows: [...ratio.pre.rows('prefill', PREDICTED), ...ratio.dec.rows('decode', PREDICTED)] }),
    };
    const base = rows.filter((r) => r[0].endsWith(', base')), best = rows.filter((r) => !r[0].endsWith(', base'));
    const [s0, sb] = [shares.find((s) => s.v === 0), shares.find((s) => s.v === BEST)];
    const reading = [
      `Decode moves every weight for one row of work: with the base kernels its DMA is busy ${ratio.dec.measured[0] ? f2(ratio.dec.measured[0][1]) : '-'}× as long as its MXU, and at a ${base.at(-1)?.[0].split(',')[0] ?? '-'}-token prompt a decoded token costs ${base.at(-1)?.[7] ?? '-'}× a prefill token, at ${base.at(-1)?.[8] ?? '-'}× its bound: no unit is busy for ${idleShare(records, 0)} of decode's clocks (the base kernels wait for each weight panel before its MXU commands, and ${idleShare(records, BEST)} with the best variant), the time the seed CPU — every fetch and access over one AXI slave, 5 clocks an ALU instruction, 9 a register store — takes to issue and wait.`,
      `Prefill reuses each weight panel over the prompt's rows: at the longest prompt its DMA/MXU ratio is ${ratio.pre.measured.at(-1) ? f2(ratio.pre.measured.at(-1)![1]) : '-'}.`,
      s0 ? `In a full inference of ${s0.P} + ${s0.D} tokens decode takes ${f1(s0.share)}% of the clocks with the base kernels${sb ? ` and ${f1(sb.share)}% with the best variant (${seedVariantName(BEST)}), whose decode costs ${best.at(-1)?.[4] ?? '-'} clocks a token (${best.at(-1)?.[8] ?? '-'}× its bound)` : ''}.` : '',
    ].filter(Boolean).join(' ');
    return { text, figures: [fig1, fig2], markdown: section(prefillDecode.title, [fig1, fig2], text, reading) };
  },
};

/** The share of the decode windows' clocks with no unit busy, over one variant's runs of the prefill-decode sweep. */
function idleShare(records: RunRecord[], variant: number): string {
  const dec = records.filter((r) => (r.point as ModelPoint).variant === variant && r.measured.length > 1).map((r) => measuredPhase(r, 'decode'));
  const idle = dec.reduce((a, m) => a + m.idle, 0), all = dec.reduce((a, m) => a + m.cycles, 0);
  return all ? `${f1((100 * idle) / all)}%` : '-';
}

// ---- batched decode: batch 1 ----

const BATCH_CASE = (scale: Scale) => (scale === 'full' ? { dims: { ...BASE_DIMS, layers: 1, maxSeq: 16 }, P: 8, steps: 8 } : { dims: SMALL_DIMS, P: 4, steps: 2 });

const batchedDecode: Experiment = {
  name: 'batched-decode',
  title: 'Batched decode: from memory-bound to compute-bound',
  plan(scale) {
    const c = BATCH_CASE(scale);
    return [{ key: 'B1', point: point(c.dims, c.P, c.steps, BEST) }];
  },
  report(records, scale) {
    const c = BATCH_CASE(scale);
    const rows = records.map((r) => {
      const steps = (r.point as ModelPoint).decodeSteps, md = measuredPhase(r, 'decode'), pd = predictedPhase(r, 'decode');
      return ['1', f0(md.cycles / steps), f0(pd.lowerBound / steps), f0(md.dma / steps), f0(pd.dma / steps), f0(md.mxu / steps), f0(pd.mxu / steps), f2(md.dma / md.mxu), runCell(r, 'decode', steps)];
    });
    const why = seedModelMisfit(c.dims, c.P, c.steps, 2) ?? 'batches above 1 run';
    const text = [
      table(['batch', 'clk/step', 'bound/step', 'DMA/step', 'pred', 'MXU/step', 'pred', 'DMA/MXU', 'pred run/step (err)'], rows),
      `batches above 1: not run — ${why}`, busyCheck(records),
    ].join('\n');
    const d = c.dims;
    const reading = `d = ${d.d}, d_ff = ${d.dFF}, ${d.layers} layer, a ${c.P}-token prompt, ${c.steps} decode steps with the best variant (${seedVariantName(BEST)}). The write-up's board decodes one sequence: ${why}, so a step loads every weight for one row, and the DMA/MXU ratio above is where batching would start from.`;
    return { text, figures: [], markdown: section(batchedDecode.title, [], text, reading) };
  },
};

// ---- context length ----

/** Prompts past the resident plan (T = 128 and 256 at d = 128) stream their prefill in chunks. */
const contextCases = (scale: Scale) => (scale === 'full' ? [{ d: 128, ts: [16, 32, 64, 128, 256] }, { d: 64, ts: [16, 32, 64, 128, 256] }] : [{ d: 32, ts: [16, 32] }]);
const contextDims = (d: number, t: number, scale: Scale): ModelDims => ({ d, dFF: 4 * d, heads: scale === 'full' ? 4 : 2, layers: 1, vocab: 16, maxSeq: t });
const STANDARD = DOUBLE_BUFFER | FUSED, FLASH_V = DOUBLE_BUFFER | FUSED | FLASH;
/** The write-up's long-context case: T = 256 at d = 128, one layer. */
const WRITE_UP_T = 256;

const context: Experiment = {
  name: 'context',
  title: 'Context length: standard attention vs FlashAttention',
  plan(scale) {
    return contextCases(scale).flatMap(({ d, ts }) => ts.flatMap((t) => [STANDARD, FLASH_V].map((v) => ({ key: `d${d} T${t} v${v}`, point: point(contextDims(d, t, scale), t, 0, v) }))));
  },
  report(records, scale) {
    const m = byKey(records), rows: string[][] = [], savings: string[] = [];
    const clocks: ChartRow[] = [], dma: ChartRow[] = [];
    for (const { d, ts } of contextCases(scale)) {
      const get = (t: number, v: number) => need(m, `d${d} T${t} v${v}`);
      for (const [name, v] of [['standard', STANDARD], ['Flash', FLASH_V]] as const) {
        const pts = (of: (r: RunRecord) => number) => ts.map((t) => [t, of(get(t, v))] as [number, number]);
        clocks.push(...rowsOf(`d = ${d}, ${name}`, MEASURED, pts((r) => measuredPhase(r, 'prefill').cycles)), ...rowsOf(`d = ${d}, ${name}`, BOUND, pts((r) => predictedPhase(r, 'prefill').lowerBound)),
          ...rowsOf(`d = ${d}, ${name}`, PREDICTED_RUN, pts((r) => predictedRun(r)).filter(([, y]) => Number.isFinite(y))));
        dma.push(...rowsOf(`d = ${d}, ${name}`, MEASURED, pts((r) => measuredPhase(r, 'prefill').dma)), ...rowsOf(`d = ${d}, ${name}`, PREDICTED, pts((r) => predictedPhase(r, 'prefill').dma)));
      }
      for (const t of ts) {
        const s = measuredPhase(get(t, STANDARD), 'prefill'), f = measuredPhase(get(t, FLASH_V), 'prefill');
        const saved = (100 * (s.dma - f.dma)) / s.dma;
        rows.push([`d=${d} T=${t}`, f0(s.cycles), f0(f.cycles), f2(s.cycles / f.cycles), f0(s.mxu), f0(f.mxu), pct(100 * (f.mxu / s.mxu - 1)), f0(s.dma), f0(f.dma), pct(-saved),
          runCell(get(t, STANDARD), 'prefill'), runCell(get(t, FLASH_V), 'prefill')]);
        if (t === ts.at(-1)) savings.push(`d = ${d}, T = ${t}: FlashAttention changes MXU busy by ${pct(100 * (f.mxu / s.mxu - 1))}, DMA busy by ${pct(-saved)} and run clocks by ${pct(100 * (f.cycles / s.cycles - 1))}`);
      }
    }
    const longest = seedModelMisfit(contextDims(128, WRITE_UP_T, 'full'), WRITE_UP_T, 0);
    const sameDma = rows.every((r) => r[7] === r[8]);
    const text = [
      table(['case (1 layer, prefill)', 'standard clk', 'Flash clk', 'speed-up', 'standard MXU', 'Flash MXU', 'MXU change', 'standard DMA', 'Flash DMA', 'DMA change', 'standard pred run (err)', 'Flash pred run (err)'], rows),
      ...savings, ...(longest ? [`T = ${WRITE_UP_T} at d = 128 (the write-up's case): not run — ${longest}`] : []), busyCheck(records),
    ].join('\n');
    const fig1: Figure = {
      file: 'seed-context-clocks.svg', title: 'Prefill clocks against context length (transformer-tpu-int4)',
      shows: 'Prefill clocks of one layer against the context length on the write-up\'s board, standard attention against FlashAttention: measured, bound and predicted run.',
      spec: spec({ title: 'transformer-tpu-int4: prefill clocks against context (1 layer)', subtitle: LINES_AND_POINTS, seriesTitle: 'width, attention', x: { title: 'context length T (tokens)', log: true }, y: { title: 'clocks', log: true }, rows: clocks }),
    };
    const fig2: Figure = {
      file: 'seed-context-dma.svg', title: 'DMA busy against context length (transformer-tpu-int4)',
      shows: 'DMA busy clocks of prefill against the context length on the write-up\'s board, standard attention and FlashAttention: predicted (lines) and measured (points).',
      spec: spec({ title: 'transformer-tpu-int4: DMA busy against context', subtitle: LINES_AND_POINTS, seriesTitle: 'width, attention', x: { title: 'context length T (tokens)', log: true }, y: { title: 'DMA busy clocks', log: true }, rows: dma }),
    };
    const reading = [
      sameDma
        ? 'On this board\'s firmware both variants keep one head\'s scores in the scratchpad, so neither moves scores through the SRAM and the DMA columns agree; FlashAttention runs each 8-row query block over only the key blocks it may see, which takes the masked blocks\' matmuls off the MXU but pushes a command sequence per query block from the CPU.'
        : 'FlashAttention runs each 8-row query block over only the key blocks it may see, which takes the masked blocks\' matmuls off the MXU but pushes a command sequence per query block from the CPU; the DMA columns show what each variant moves through the SRAM.',
      'Past the resident plan (a prompt\'s rows of d in one 4 KB bank, one head\'s scores in another) the prefill streams in chunks of 32 rows with X in the SRAM, so the longest contexts pay that traffic too.',
      `${savings.join('; ')}.`,
      longest ? `The write-up's T = ${WRITE_UP_T} does not fit this firmware's plan (${longest}): the sweep stops at the longest context that fits.` : '',
    ].filter(Boolean).join(' ');
    return { text, figures: [fig1, fig2], markdown: section(context.title, [fig1, fig2], text, reading) };
  },
};

// ---- the ladder ----

const ladderCase = (scale: Scale) => (scale === 'full' ? { dims: BASE_DIMS, P: 64, steps: 64 } : { dims: SMALL_DIMS, P: 16, steps: 4 });

const ladder: Experiment = {
  name: 'ladder',
  title: 'The optimisation ladder',
  plan(scale) {
    const c = ladderCase(scale);
    return RUNGS.flatMap((v) => [
      { key: `prefill v${v}`, point: point(c.dims, c.P, 0, v) },
      { key: `full v${v}`, point: point(c.dims, c.P, c.steps, v) },
    ]);
  },
  report(records, scale) {
    const m = byKey(records), c = ladderCase(scale);
    const p0 = need(m, `prefill v${RUNGS[0]}`), full0 = need(m, `full v${RUNGS[0]}`);
    const rows: string[][] = [], bars: ChartRow[] = [];
    const runOf = (r: RunRecord) => (Number.isFinite(predictedRun(r)) ? `${f0(predictedRun(r))} (${pct(errorPct(predictedRun(r), total(r)))})` : '-');
    for (const v of RUNGS) {
      const p = need(m, `prefill v${v}`), f = need(m, `full v${v}`), x = rungName(v);
      rows.push([x, f0(total(p)), `${f2(total(p0) / total(p))}x`, f0(bound(p)), f2(total(p) / bound(p)), f0(total(f)), `${f2(total(full0) / total(f))}x`, f0(bound(f)), f2(total(f) / bound(f)), runOf(p), runOf(f)]);
      for (const [series, r, r0] of [['prefill', p, p0], ['full inference', f, full0]] as const) {
        bars.push({ series, kind: MEASURED, x, y: total(r0) / total(r) }, { series, kind: BOUND, x, y: bound(r0) / bound(r) });
        if (Number.isFinite(predictedRun(r)) && Number.isFinite(predictedRun(r0))) bars.push({ series, kind: PREDICTED_RUN, x, y: predictedRun(r0) / predictedRun(r) });
      }
    }
    const text = [table(['variant', 'prefill clk', 'vs base', 'prefill bound', 'run/bound', 'full inference clk', 'vs base', 'full bound', 'run/bound', 'prefill pred run (err)', 'full pred run (err)'], rows), busyCheck(records)].join('\n');
    const fig: Figure = {
      file: 'seed-ladder.svg', title: 'The optimisation ladder (transformer-tpu-int4)',
      shows: 'Speed-up over the base kernels on the write-up\'s board as each technique is added, prefill and full inference: measured (bars), bound and predicted run (marks across them).',
      spec: spec({ title: 'transformer-tpu-int4: speed-up over base, one technique at a time', subtitle: BARS_AND_MARKS, seriesTitle: 'run', categories: RUNGS.map(rungName), reference: 1,
        x: { title: 'kernel variant (each adds one technique)' }, y: { title: 'speed-up over base (×)', zero: true }, rows: bars }),
    };
    const last = rows.at(-1)!;
    const reading = [
      `The write-up's shape: d = ${c.dims.d}, d_ff = ${c.dims.dFF}, ${c.dims.heads} heads, ${c.dims.layers} layer${c.dims.layers > 1 ? 's' : ''}, a ${c.P}-token prompt and ${c.steps} decode steps. Each rung adds one technique: the write-up's three — double buffering loads the next weight panel during this panel's matmuls, fusion accumulates the projections onto the residual in the MXU, FlashAttention skips the masked key blocks — then the rungs past it (model/format.ts SEED_RUNGS): chained weights stream every decode step's weights through a ring of panel buffers across matmuls, attention and steps, so the DMA never drains; pipelined prefill does the same for the prefill's weights, with K and V written in place and the next head's scores beside this one's mask.`,
      `All together: prefill ${last[2]} and full inference ${last[6]} faster than base, at ${last[4]}x and ${last[8]}x their bounds (${last[1]} and ${last[5]} clocks). The bound is each forward pass's busiest unit, summed; the distance to it is the seed CPU issuing commands and waiting on them, which the predicted run counts where it is calibrated.`,
    ].join(' ');
    return { text, figures: [fig], markdown: section(ladder.title, [fig], text, reading) };
  },
};

/** The experiments of `picotpu sweep --board seed`, in picotpu's order; those the board cannot run say why. */
export const SEED_EXPERIMENTS: readonly Experiment[] = [roofline, prefillDecode, batchedDecode, context, whatIf, ladder, multiDevice];
