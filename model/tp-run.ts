// Runs the tensor-parallel model (build/fw/model_tp.elf) on N boards of the
// multi-board machine: the same ELF and the same model blob on every board,
// then every board's tokens, logits, K/V cache columns, counters and link
// figures read back; and the traces the calibration (scripts/calibrate-tp-issue.ts)
// counts its terms on.

import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { DEFAULT_MAX_CYCLES } from '../emu/machine.ts';
import type { Machine } from '../boards/machine.ts';
import { Boards, type Schedule as BoardsSchedule } from '../boards/registry.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { runOnEmulator, type EmulatorRun } from './run.ts';
import { finishJob, windowsOf } from './emulator-job.ts';
import { buildBlob, type Job, type Model } from './format.ts';
import type { LinkFigures } from './predict/tp-program.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The tensor-parallel model program (firmware-c/model/model_tp.c). */
export const MODEL_TP_ELF = join(root, 'build', 'fw', 'model_tp.elf');

/** One board's trace for the calibration: command records (DMA, MXU, VPU, LINK) by push clock, PERF_CTRL writes, poll reads, landings. */
export interface BoardTrace {
  records: { unit: string; pushClock: number; startClock: number; endClock: number }[];
  perf: number[];
  /** Clocks of the CPU's DONE reads (any unit) and RX_COUNT reads. */
  pollReads: number[];
  /** Clocks at which each message landed in this board's mailbox, in order. */
  landings: number[];
  stalls: { from: number; to: number }[];
}

const DONE_OFFSET = 0x24, RX_COUNT_OFFSET = 0x548, PERF_CTRL = 8;

/** Hooks a machine's TPU accesses into a trace (records, PERF_CTRL writes, DONE and RX_COUNT reads). */
export function traceMachine(m: Machine, t: BoardTrace): void {
  const records: BoardTrace['records'] = [];
  t.records = records;
  m.tpu.records = records as never;
  m.tpu.stallRecords = t.stalls as never;
  const tpu = m.tpu as unknown as { linkRecords?: unknown };
  if ('linkRecords' in tpu) tpu.linkRecords = records;
  const write = m.tpu.write.bind(m.tpu);
  m.tpu.write = (off, value, wstrb, clock) => { if (off === PERF_CTRL) t.perf.push(clock); write(off, value, wstrb, clock); };
  const read = m.tpu.read.bind(m.tpu);
  m.tpu.read = (off, clock) => {
    if ((off >= 0x100 && (off & 0xff) === DONE_OFFSET) || off === RX_COUNT_OFFSET) t.pollReads.push(clock);
    return read(off, clock);
  };
}

const emptyTrace = (): BoardTrace => ({ records: [], perf: [], pollReads: [], landings: [], stalls: [] });

/** One board's results: its tokens and logits, its columns of the K/V caches, counters per window, link figures. */
export interface TpBoardRun {
  tokens: number[];
  logits: Int32Array[];
  /** Per layer: the cache columns c0..c0+cw this board owns (packed int4 rows of width cw). */
  kColumns: Uint8Array[];
  vColumns: Uint8Array[];
  c0: number;
  cw: number;
  windows: CounterSnapshot[];
  /** The link over the whole run, and over the PERF_CTRL windows (model_tp sends only inside them: the same). */
  link: LinkFigures;
  windowLink: LinkFigures;
  stopClock: number;
}
export interface TpBoardsRun { boards: TpBoardRun[]; clocks: number; run: EmulatorRun[] }

export interface TpRunOptions { maxCycles?: number; reference?: boolean; config?: PlatformConfig; elfPath?: string; onMachines?: (ms: Machine[]) => void; schedule?: BoardsSchedule }

/** Columns c0..c0+cw of packed int4 rows of width d: packed rows of width cw. */
export function cacheColumns(rows: Uint8Array, d: number, c0: number, cw: number): Uint8Array {
  const n = rows.length / (d / 2), out = new Uint8Array((n * cw) / 2);
  for (let t = 0; t < n; t++) out.set(rows.subarray(t * (d / 2) + c0 / 2, t * (d / 2) + (c0 + cw) / 2), (t * cw) / 2);
  return out;
}

/**
 * Runs `job` on N boards: model_tp.elf and the blob (buildBlob) at SRAM
 * offset 0 of every board; reads each board's results back like a one-board
 * run (finishJob: throws ModelRunError unless it exited with 0 and STATUS 1).
 */
export function runTpBoards(model: Model, job: Job, boards: number, o: TpRunOptions = {}): TpBoardsRun {
  const machine = new Boards(o.config ?? defaultConfig(), boards, { reference: o.reference ?? false, schedule: o.schedule });
  machine.loadElf(readFileSync(o.elfPath ?? MODEL_TP_ELF));
  const { bytes, layout } = buildBlob(model, job);
  machine.loadSram(bytes, 0);
  o.onMachines?.(machine.machines);
  const r = machine.run(o.maxCycles ?? DEFAULT_MAX_CYCLES);
  const d = model.dims.d, cw = d / boards;
  const runs = machine.machines.map((m, k) => finishJob({ m, model, job, layout }, r.boards[k], 0, 0));
  return {
    clocks: r.clocks, run: runs,
    boards: runs.map((e, k) => {
      const l = r.link[k], link = { busy: l.busy, bytes: l.bytes, messages: l.messages };
      return {
        tokens: e.tokens, logits: e.logits, c0: k * cw, cw,
        kColumns: e.kCache.map((c) => cacheColumns(c, d, k * cw, cw)), vColumns: e.vCache.map((c) => cacheColumns(c, d, k * cw, cw)),
        windows: windowsOf(r.boards[k]), link, windowLink: link, stopClock: r.boards[k].clocks,
      };
    }),
  };
}

/** Every board's trace of a job on N boards (the calibration's input). */
export function traceTpBoards(model: Model, job: Job, boards: number): BoardTrace[] {
  const traces = Array.from({ length: boards }, emptyTrace);
  runTpBoards(model, job, boards, {
    onMachines: (ms) => ms.forEach((m, k) => {
      traceMachine(m, traces[k]);
      const rx = (m.tpu as unknown as { linkRx: { deliver: (msg: { land: number }) => void } }).linkRx;
      const deliver = rx.deliver.bind(rx);
      rx.deliver = (msg) => { traces[k].landings.push(msg.land); deliver(msg); };
    }),
  });
  for (const t of traces) {
    t.records.sort((a, b) => a.pushClock - b.pushClock);
    t.stalls.sort((a, b) => a.from - b.from);
  }
  return traces;
}
