// `picotpu bench --devices N`: the tensor-parallel model (build/fw/model_tp.elf)
// on N boards of the multi-board machine, checked against the golden model
// and set against the analytic prediction (model/predict/tp-program.ts): per board
// its counters per window, LINK busy clocks, bytes and messages; the run's
// total clocks (the last board's stop); each window's measured clocks (the
// slowest board's) and the predicted ones with the error; the predicted link
// busy (exact by construction: messages × linkSetup + bytes × linkClocksPerByte).

import { defaultConfig } from '../emu/config.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import type { Job, ModelDims } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { shardingError } from '../model/tensor-parallel.ts';
import { predictTpRun, ringAllReduceClocks, type LinkFigures, type TpWindow } from '../model/predict/tp-program.ts';
import { runTpBoards, type TpBoardsRun } from '../model/tp-run.ts';
import { BASE_DIMS, BenchUsageError, RANDOM_SEED, predictionError } from './bench.ts';

/** The --devices job: the bench model, a 64-token prompt and 8 decode steps, the tiled kernels with every bit (31). */
export const DEVICES_JOB = { promptLength: 64, decodeSteps: 8, variant: 31 };

export interface DeviceWindow {
  label: string;
  /** The slowest board's window clocks, and each board's. */
  measured: number;
  perBoard: number[];
  predicted: number | null;
  /** (predicted − measured) / measured, in %. */
  errorPct: number | null;
  /** Predicted busy clocks per unit (one board) and of the AllReduces. */
  prediction: TpWindow | null;
}

export interface DeviceBoard {
  board: number;
  windows: { label: string; counters: CounterSnapshot }[];
  link: LinkFigures;
  stopClock: number;
}

export interface DevicesBenchResult {
  devices: number;
  dims: ModelDims;
  job: { promptLength: number; decodeSteps: number; variant: number };
  boards: DeviceBoard[];
  /** The last board's stop clock. */
  totalClocks: number;
  windows: DeviceWindow[];
  /** Predicted link figures per board (the whole run) and whether every board's measured ones equal them. */
  linkPredicted: LinkFigures | null;
  linkExact: boolean;
  tokens: number[];
  tokensCorrect: boolean;
  logitsCorrect: boolean;
  cachesCorrect: boolean;
  wallMs: number;
}

export interface DevicesOptions { devices: number; dims?: ModelDims; promptLength?: number; decodeSteps?: number; variant?: number; maxCycles?: number; reference?: boolean }

const LABELS = ['prefill', 'decode'];

/** Runs the job on N boards and compares it with the golden model and the prediction. */
export function runDevicesBench(o: DevicesOptions): DevicesBenchResult {
  const dims = o.dims ?? BASE_DIMS, n = o.devices;
  const why = shardingError(dims, n);
  if (why) throw new BenchUsageError(`--devices ${n}: ${why}`);
  const job: Job = {
    prompt: randomPrompt(dims, o.promptLength ?? DEVICES_JOB.promptLength, RANDOM_SEED), decodeSteps: o.decodeSteps ?? DEVICES_JOB.decodeSteps,
    variant: o.variant ?? DEVICES_JOB.variant, stopToken: 255,
  };
  const model = randomModel(dims, RANDOM_SEED);
  const t0 = performance.now();
  const run: TpBoardsRun = runTpBoards(model, job, n, { maxCycles: o.maxCycles, reference: o.reference });
  const wallMs = performance.now() - t0;
  const golden = runGolden(model, job);
  const predicted = predictTpRun(dims, job, n, defaultConfig());
  const boards: DeviceBoard[] = run.boards.map((b, i) => ({
    board: i, windows: b.windows.map((c, w) => ({ label: LABELS[w] ?? `window ${w + 1}`, counters: c })), link: b.link, stopClock: b.stopClock,
  }));
  const windows: DeviceWindow[] = run.boards[0].windows.map((_, w) => {
    const perBoard = run.boards.map((b) => b.windows[w].cycles), measured = Math.max(...perBoard), p = predicted?.[w] ?? null;
    return { label: LABELS[w] ?? `window ${w + 1}`, measured, perBoard, predicted: p?.runClocks ?? null, errorPct: p ? predictionError(p.runClocks, measured) : null, prediction: p };
  });
  const linkPredicted = predicted ? predicted.reduce((a, w) => ({ messages: a.messages + w.link.messages, bytes: a.bytes + w.link.bytes, busy: a.busy + w.link.busy }), { messages: 0, bytes: 0, busy: 0 }) : null;
  const same = (a: LinkFigures, b: LinkFigures) => a.messages === b.messages && a.bytes === b.bytes && a.busy === b.busy;
  const eq = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.from(a).every((x, i) => x === b[i]);
  return {
    devices: n, dims, job: { promptLength: job.prompt.length, decodeSteps: job.decodeSteps, variant: job.variant },
    boards, totalClocks: run.clocks, windows, linkPredicted,
    // The link figures of the PERF_CTRL windows (the run's SENDs all happen inside them).
    linkExact: linkPredicted !== null && run.boards.every((b) => same(b.windowLink, linkPredicted)),
    tokens: run.boards[0].tokens,
    tokensCorrect: run.boards.every((b) => eq(b.tokens, golden.tokens)),
    logitsCorrect: run.boards.every((b) => b.logits.length === golden.logits.length && b.logits.every((l, i) => eq(l, golden.logits[i]))),
    cachesCorrect: run.boards.every((b) => b.kColumns.every((c, l) => eq(c, columnsOf(golden.kCache[l], dims.d, b.c0, b.cw)))
      && b.vColumns.every((c, l) => eq(c, columnsOf(golden.vCache[l], dims.d, b.c0, b.cw)))),
    wallMs,
  };
}

/** Columns c0..c0+cw of packed int4 rows of width d (c0, cw even): packed rows of width cw. */
export function columnsOf(rows: Uint8Array, d: number, c0: number, cw: number): Uint8Array {
  const n = rows.length / (d / 2), out = new Uint8Array((n * cw) / 2);
  for (let t = 0; t < n; t++) out.set(rows.subarray(t * (d / 2) + c0 / 2, t * (d / 2) + (c0 + cw) / 2), (t * cw) / 2);
  return out;
}

const pct = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : ''}${x.toFixed(2)} %`);

export function formatDevices(r: DevicesBenchResult): string {
  const lines: string[] = [];
  const { d, dFF, heads, layers } = r.dims;
  lines.push(`tensor-parallel model on ${r.devices} board(s): d ${d}, d_ff ${dFF}, ${heads} heads, ${layers} layers; prompt ${r.job.promptLength}, decode ${r.job.decodeSteps}, variant ${r.job.variant}`);
  lines.push(`tokens ${r.tokensCorrect ? 'equal' : 'DIFFER from'} the golden model's; logits ${r.logitsCorrect ? 'equal' : 'DIFFER'}; K/V cache columns ${r.cachesCorrect ? 'equal' : 'DIFFER'}`);
  lines.push('');
  lines.push('board  window    clocks      MXU busy   VPU busy   DMA busy   LINK busy  bytes sent  messages');
  for (const b of r.boards) {
    b.windows.forEach((w, i) => {
      const c = w.counters;
      const link = i === 0 ? `${String(b.link.busy).padStart(10)} ${String(b.link.bytes).padStart(11)} ${String(b.link.messages).padStart(9)}` : '';
      lines.push(`${String(b.board).padStart(5)}  ${w.label.padEnd(8)} ${String(c.cycles).padStart(9)} ${String(c.mxuBusy).padStart(10)} ${String(c.vpuBusy).padStart(10)} ${String(c.dmaBusy).padStart(10)} ${link}`);
    });
  }
  lines.push('');
  lines.push('window    measured   predicted  error     AllReduce clocks (predicted, one board)');
  for (const w of r.windows) {
    lines.push(`${w.label.padEnd(8)} ${String(w.measured).padStart(9)} ${String(w.predicted ?? '—').padStart(11)}  ${pct(w.errorPct).padEnd(9)} ${w.prediction ? `${w.prediction.allReduceClocks} in ${w.prediction.allReduces} AllReduces` : ''}`);
  }
  // The textbook ring term for one decode token's AllReduce (d int32 values a board) at one byte a clock.
  const ring = ringAllReduceClocks(4 * r.dims.d, r.devices), dec = r.windows[1]?.prediction;
  if (dec && r.devices > 1) {
    lines.push(`decode AllReduce: ${Math.round(dec.allReduceClocks / dec.allReduces)} clocks each (predicted) against the ring's 2(N-1)/N x bytes / bandwidth = ${Math.round(ring.textbook)} clocks `
      + `for ${4 * r.dims.d} bytes (${Math.round(ring.int4Gather)} with the int4 all-gather): latency, not bandwidth`);
  }
  lines.push('');
  lines.push('window    busy per board: predicted / measured (board 0)');
  for (const w of r.windows) {
    const c = r.boards[0].windows.find((x) => x.label === w.label)!.counters, p = w.prediction;
    if (p) lines.push(`${w.label.padEnd(8)}  MXU ${p.mxu} / ${c.mxuBusy}, VPU ${p.vpu} / ${c.vpuBusy}, DMA ${p.dma} / ${c.dmaBusy}, LINK ${p.link.busy}`);
  }
  const lp = r.linkPredicted;
  lines.push(`link busy per board: predicted ${lp ? `${lp.busy} clocks (${lp.messages} messages, ${lp.bytes} bytes)` : '—'}, measured ${r.boards.map((b) => b.link.busy).join(' / ')}: ${r.linkExact ? 'exact' : 'NOT exact'}`);
  lines.push(`total run clocks (the last board's stop): ${r.totalClocks}; host ${(r.wallMs / 1000).toFixed(1)} s`);
  return lines.join('\n') + '\n';
}

export function devicesJson(r: DevicesBenchResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}
