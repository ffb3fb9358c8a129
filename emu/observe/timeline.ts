// `picotpu run --timeline FILE`: the run as Chrome trace-event JSON, for
// Perfetto (ui.perfetto.dev) or chrome://tracing.
//
// The file is a JSON array of events, written as the run goes ("[", events
// separated by commas, "]" at the end), at most --trace-limit events besides
// the track names. Times are µs at the platform clock (ts = clock / 12 at
// 12 MHz); every event's args also hold the exact clocks. Tracks (one "tid"
// each, in process 1 "picotpu"):
//   CPU             a slice per contiguous run of instructions in one firmware
//                   function (the ELF symbol containing the pc)
//   CPU PUSH stall  a slice per PUSH that waited on a full queue
//   PERF_CTRL       the counters' window(s)
//   DMA, MXU, VPU   a slice per command, start to end, named by its opcode, with
//                   its fields, push/start/end clocks and queue wait in args; an
//                   instant event per command dropped with an error
//   SEQ             with the sequencer option (hardware.md §5.11): a slice per
//                   RUN, from its start to its last push, and its drops
// On each track the events are written in time order. A run a signal
// interrupted ends with a global instant event "run interrupted (SIGINT)".

import type { Machine, RunResult } from '../machine.ts';
import type { RunObserver } from './observer.ts';
import { FunctionMap, perfCtrlWrite, RESET_FN, UNIT_INDEX } from './profiler.ts';
import type { StepInfo } from '../stepper.ts';
import { TextSink, type TraceFileOptions } from './vcd.ts';
import { UNIT_NAMES } from '../../periph/counters.ts';
import type { CommandRecord, TpuError, TpuUnitName } from '../../periph/tpu.ts';

/** The SEQ track's place among the unit tracks (DMA 0, MXU 1, VPU 2), for ordering. */
const SEQ_TRACK = 3;

export const TID = { CPU: 1, STALL: 2, PERF: 3, DMA: 4, MXU: 5, VPU: 6, SEQ: 7 } as const;
const PID = 1;

/** A command's description split into its opcode and fields (`LOAD sram=0x00100 rows=8` → LOAD, {sram, rows}). */
export function commandArgs(description: string): { opcode: string; fields: Record<string, string | number> } {
  const [opcode, ...rest] = description.split(' ');
  const fields: Record<string, string | number> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const v = part.slice(eq + 1);
    fields[part.slice(0, eq)] = /^-?\d+$/.test(v) ? Number(v) : v;
  }
  return { opcode, fields };
}

export class TimelineWriter implements RunObserver {
  private readonly sink: TextSink;
  private readonly functions: FunctionMap;
  /** Clocks per µs. */
  private readonly perUs: number;
  private events = 0;
  private first = true;
  private done = false;
  private truncatedAt = -1;

  private cur = RESET_FN;
  private curStart = 0;
  private recCursor = 0;
  private errCursor = 0;
  private stallCursor = 0;
  private seqCursor = 0;
  private perfFrom = -1;

  constructor(private readonly machine: Machine, private readonly options: TraceFileOptions) {
    this.functions = new FunctionMap(machine.symbols, machine.cpu.ramSize);
    this.perUs = machine.config.clockHz / 1e6;
    machine.activity.stallRecords ??= [];
    this.sink = new TextSink(options.path, '--timeline');
    this.sink.write('[\n');
    const meta = (tid: number, name: string) => {
      this.raw({ name: 'thread_name', ph: 'M', pid: PID, tid, args: { name } });
      this.raw({ name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: tid } });
    };
    this.raw({ name: 'process_name', ph: 'M', pid: PID, args: { name: `picotpu (${this.perUs} MHz; ts in µs, args in clocks)` } });
    meta(TID.CPU, 'CPU');
    meta(TID.STALL, 'CPU PUSH stall');
    meta(TID.PERF, 'PERF_CTRL');
    for (const u of UNIT_NAMES) meta(TID[u], u);
    const tpu = machine.activity;
    if (tpu.seq) {
      tpu.seqRecords ??= [];
      meta(TID.SEQ, 'SEQ');
    }
  }

  /** The sequencer's finished RUNs (the `sequencer` option), or null. */
  private seqRecords(machine: Machine): CommandRecord<'SEQ'>[] | null {
    return machine.activity.seqRecords ?? null;
  }

  /** Events written (not counting the track names). */
  get written(): number {
    return this.events;
  }

  get truncated(): boolean {
    return this.truncatedAt >= 0;
  }

  step(info: StepInfo, machine: Machine): void {
    if (this.done) return;
    const fn = this.functions.id(info.pc);
    if (fn !== this.cur) {
      this.cpuSlice(info.clockBefore);
      this.cur = fn;
    }
    const tpu = machine.activity;
    const stalls = tpu.stallRecords!;
    for (; this.stallCursor < stalls.length && !this.done; this.stallCursor++) {
      const s = stalls[this.stallCursor];
      this.slice(TID.STALL, `PUSH ${s.unit} (queue full)`, s.from, s.to, { unit: s.unit, from: s.from, to: s.to, clocks: s.to - s.from });
    }
    if ((info.word & 0x7f) === 0x23) {
      const p = perfCtrlWrite(info, machine);
      if (p) this.perfCtrl(p.clock, p.on);
    }
    const records = tpu.records, runs = this.seqRecords(machine);
    if ((records && records.length > this.recCursor) || tpu.errors.length > this.errCursor || (runs && runs.length > this.seqCursor)) this.readTpu(machine);
  }

  /** Takes the TPU's records so far, which are emptied next (emu/observe/observer.ts). */
  releaseTpuRecords(machine: Machine): void {
    if (!this.done) this.readTpu(machine);
    this.recCursor = 0;
    this.stallCursor = 0;
    this.seqCursor = 0;
  }

  finish(result: RunResult, machine: Machine): void {
    const end = result.clocks;
    if (!this.done) {
      this.readTpu(machine);
      this.cpuSlice(Math.max(end, this.curStart));
      if (this.perfFrom >= 0) this.perfCtrl(end, false);
      // Commands still running at the stop: up to the stop.
      machine.activity.units.forEach((u, i) => {
        const cmd = u.running;
        if (!cmd || this.done) return;
        const description = u.rules.describe(cmd);
        this.command({ unit: UNIT_NAMES[i], serial: cmd.serial, command: description, pushClock: cmd.pushClock, startClock: u.runningStart, endClock: end - 1 }, true);
      });
      const seq = machine.activity.seq ?? null;
      if (seq?.running && !this.done) {
        const cmd = seq.running;
        this.command({ unit: 'SEQ', serial: cmd.serial, command: seq.rules.describe(cmd), pushClock: cmd.pushClock, startClock: seq.runningStart, endClock: end - 1 }, true);
      }
    }
    if (result.reason === 'interrupted') {
      this.raw({ name: `run interrupted (${result.signal})`, ph: 'i', s: 'g', pid: PID, tid: TID.CPU, ts: this.ts(end), args: { clock: end } });
    }
    this.sink.write('\n]\n');
    this.sink.close();
    if (this.truncated) {
      this.options.warn?.(`--timeline: the trace limit of ${this.options.limit} events was reached at clock ${this.truncatedAt}; `
        + `${this.options.path} ends there (raise --trace-limit)`);
    }
  }

  // ---- internals ----

  private ts(clock: number): number {
    return Math.round((clock / this.perUs) * 1e6) / 1e6;
  }

  private raw(e: object): void {
    this.sink.write((this.first ? '' : ',\n') + JSON.stringify(e));
    this.first = false;
  }

  /** A counted event; false once the limit is reached. */
  private event(e: object, clock: number): boolean {
    if (this.done) return false;
    if (this.events >= this.options.limit) {
      this.done = true;
      this.truncatedAt = clock;
      this.raw({ name: `trace limit of ${this.options.limit} events reached`, ph: 'i', s: 'g', pid: PID, tid: TID.CPU, ts: this.ts(clock) });
      return false;
    }
    this.events++;
    this.raw(e);
    return true;
  }

  /** A complete event over the clocks [from, to). */
  private slice(tid: number, name: string, from: number, to: number, args: object, cat = 'cpu'): void {
    const ts = this.ts(from);
    // dur from the rounded ends, so adjacent slices neither overlap nor gap.
    this.event({ name, cat, ph: 'X', pid: PID, tid, ts, dur: Math.round((this.ts(to) - ts) * 1e6) / 1e6, args }, from);
  }

  private cpuSlice(to: number): void {
    if (to > this.curStart) {
      const f = this.functions;
      const addr = f.addrs[this.cur];
      this.slice(TID.CPU, f.names[this.cur], this.curStart, to, {
        from: this.curStart, to, clocks: to - this.curStart, ...(addr >= 0 ? { addr: `0x${addr.toString(16)}` } : {}),
      });
    }
    this.curStart = to;
  }

  private perfCtrl(clock: number, on: boolean): void {
    if (this.perfFrom >= 0) {
      this.slice(TID.PERF, 'PERF_CTRL window', this.perfFrom, clock, { from: this.perfFrom, to: clock, clocks: clock - this.perfFrom });
      this.perfFrom = -1;
    }
    if (on) this.perfFrom = clock;
  }

  /** Ended commands and drops, per unit in serial order (so in time order). */
  private readTpu(machine: Machine): void {
    const tpu = machine.activity;
    const records = tpu.records ?? [];
    const newRecords = records.slice(this.recCursor);
    const newErrors = tpu.errors.slice(this.errCursor);
    this.recCursor = records.length;
    this.errCursor = tpu.errors.length;
    const items: { u: number; serial: number; record?: CommandRecord<TpuUnitName>; error?: TpuError }[] = [];
    for (const r of newRecords) items.push({ u: UNIT_INDEX[r.unit], serial: r.serial, record: r });
    const runs = this.seqRecords(machine) ?? [], newRuns = runs.slice(this.seqCursor);
    for (const r of newRuns) items.push({ u: SEQ_TRACK, serial: r.serial, record: r });
    this.seqCursor = runs.length;
    // The link has no track (yet): its errors are in the run report.
    for (const e of newErrors) if (e.unit !== 'LINK') items.push({ u: e.unit === 'SEQ' ? SEQ_TRACK : UNIT_INDEX[e.unit], serial: e.serial, error: e });
    if (newErrors.length > 0 || newRuns.length > 0) items.sort((a, b) => a.u - b.u || a.serial - b.serial);
    for (const it of items) {
      if (this.done) return;
      if (it.record) this.command(it.record, false);
      else {
        const e = it.error!;
        const { opcode, fields } = commandArgs(e.command);
        this.event({
          name: `${opcode} dropped: ${e.codeName}`, cat: 'tpu-error', ph: 'i', s: 't', pid: PID, tid: TID[e.unit as Exclude<TpuUnitName, 'LINK'>], ts: this.ts(e.clock),
          args: { serial: e.serial, command: e.command, error: e.codeName, detail: e.detail, clock: e.clock, ...fields },
        }, e.clock);
      }
    }
  }

  private command(r: CommandRecord<TpuUnitName>, inFlight: boolean): void {
    const { opcode, fields } = commandArgs(r.command);
    this.slice(TID[r.unit as Exclude<TpuUnitName, 'LINK'>], opcode, r.startClock, r.endClock + 1, {
      serial: r.serial, command: r.command, ...fields,
      push: r.pushClock, start: r.startClock, end: r.endClock,
      queueWait: r.startClock - r.pushClock, busy: r.endClock - r.startClock + 1,
      ...(inFlight ? { inFlight: true } : {}),
    }, 'tpu');
  }
}
