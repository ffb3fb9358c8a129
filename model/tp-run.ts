// Runs the tensor-parallel model (build/fw/model_tp.elf) on N boards of the
// multi-board machine: the same ELF and the same model blob on every board,
// then every board's tokens, logits, K/V cache columns, counters and link
// figures read back; and the traces the calibration (scripts/calibrate-tp-issue.ts)
// counts its terms on.

import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Machine } from '../emu/machine.ts';
import { runOnEmulator, type EmulatorRun } from './run.ts';
import type { Job, Model } from './format.ts';

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

/** Every board's trace of a job on N boards (the calibration's input). */
export function traceTpBoards(model: Model, job: Job, boards: number): BoardTrace[] {
  const stub = process.env.TP_STUB_ELF;
  if (boards === 1 && stub) {
    // Before the multi-board machine: a build of model_tp whose link_board()/link_boards() are 0/1 (no LINK block).
    const t = emptyTrace();
    runOnEmulator(model, job, { elfPath: stub, onMachine: (m) => traceMachine(m, t) });
    for (const x of [t.records, t.stalls]) (x as { pushClock?: number; from?: number }[]).sort((a, b) => (a.pushClock ?? a.from!) - (b.pushClock ?? b.from!));
    return [t];
  }
  throw new Error('traceTpBoards: the multi-board machine (emu/multi.ts) is not there yet');
}

/** model_tp on one board through the single-board path (N = 1 stub build), for the checks before the machine lands. */
export function runTpStub(model: Model, job: Job, elf: string): EmulatorRun {
  readFileSync(elf);
  return runOnEmulator(model, job, { elfPath: elf });
}
