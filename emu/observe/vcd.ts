// `picotpu run --vcd FILE`: a Value Change Dump of the run for GTKWave (or
// any IEEE 1364 VCD reader).
//
// Time: one VCD time unit is one CPU clock ($timescale 1 ns, so GTKWave's "ns"
// read as clocks; at 12 MHz a clock is 83.333 ns). Signals:
//   picotpu.cpu.pc          32-bit  pc of the instruction launched at that clock
//   picotpu.cpu.func        string  function containing the pc (GTKWave string extension)
//   picotpu.cpu.func_id     vector  the same as a number; the legend is the $comment in the header
//   picotpu.cpu.push_stall  1 bit   the CPU waits on a PUSH into a full queue
//   picotpu.tpu.perf_window 1 bit   the PERF_CTRL counters are counting
//   picotpu.tpu.<unit>.busy   1 bit  a command is executing (start..end clocks)
//   picotpu.tpu.<unit>.depth  8-bit  commands waiting in the unit's FIFO (from the accepted PUSH to the start)
//   picotpu.tpu.seq.busy      1 bit  with the sequencer option: a RUN is feeding its list (start..last push)
// A value at time t holds during clock t. Only changes are written, and at most
// --trace-limit of them; the file then ends with a $comment saying so, as it
// does when a signal interrupted the run (cli/run-control.ts).
//
// Order: the CPU's changes come in time order as it steps; the TPU's come from
// its command records, which appear only when a command ends. Every TPU event
// before the TPU's clock is known once the records, the errors and the running
// commands have been read (a running command's start is read from the unit),
// so the changes are buffered and written up to that clock in batches.

import type { CommandRecord } from '../../periph/tpu.ts';
import type { Machine, RunResult } from '../machine.ts';
import { OutputFile } from './output-file.ts';
import type { RunObserver } from './observer.ts';
import { expandedWord, FunctionMap, perfCtrlWrite, RESET_FN, UNIT_INDEX } from './profiler.ts';
import type { StepInfo } from '../stepper.ts';
import { storeAccessOffset } from '../timing.ts';
import { UNIT_NAMES } from '../../periph/counters.ts';

/** Buffered synchronous text output to a file (flushed in 64 KiB pieces; complete or untouched, emu/observe/output-file.ts). */
export class TextSink extends OutputFile {
  /** Flushes, closes and puts the file in place. */
  close(): void {
    this.commit();
  }
}

/** Default of --trace-limit. */
export const DEFAULT_TRACE_LIMIT = 1_000_000;

export interface TraceFileOptions {
  path: string;
  /** Most value changes (VCD) or events (timeline) to write. */
  limit: number;
  /** Says something on the emulator's standard error (the trace limit was reached). */
  warn?: (message: string) => void;
}

// Signal numbers.
const BUSY = 0; // + unit
const DEPTH = 3; // + unit
const STALL = 6;
const PC = 7;
const FUNC = 8; // func (string) and func_id together
const PERF = 9;
const SEQ_BUSY = 10; // only with the sequencer option
const SIGNALS = 11;

const CPU_BATCH = 8192;

export class VcdWriter implements RunObserver {
  private readonly sink: TextSink;
  private readonly functions: FunctionMap;
  private readonly funcWidth: number;
  /** Value-change codes of the signals (func_id is FUNC's second code). */
  private readonly codes = ['!', '"', '#', '$', '%', '&', "'", '(', ')', '+', ','];
  private readonly funcIdCode = '*';

  /** CPU events, in time order: time, signal, value (absolute; for a depth, a push's +1). */
  private cpuT: number[] = [];
  private cpuS: number[] = [];
  private cpuV: number[] = [];
  /** TPU events, any order: time, signal, delta. */
  private tpuT: number[] = [];
  private tpuS: number[] = [];
  private tpuV: number[] = [];

  /** Current level of each signal (busy: running commands, depth: queued). */
  private readonly level = new Array<number>(SIGNALS).fill(0);
  private readonly shown = new Array<number>(SIGNALS).fill(0);
  private lastTime = -1;
  private changes = 0;
  private done = false;
  private truncatedAt = -1;

  private lastPc = -1;
  private lastFn = RESET_FN;
  private recCursor = 0;
  private errCursor = 0;
  private stallCursor = 0;
  private readonly startSeen = [-1, -1, -1];
  /** With the sequencer: its finished RUNs read so far, and the last RUN whose start was seen. */
  private readonly seqRuns: CommandRecord<'SEQ'>[] | null;
  private seqCursor = 0;
  private seqStartSeen = -1;
  private readonly issuedSeen = [0, 0, 0];

  constructor(private readonly machine: Machine, private readonly options: TraceFileOptions) {
    this.functions = new FunctionMap(machine.symbols, machine.cpu.ramSize);
    this.funcWidth = Math.max(1, Math.ceil(Math.log2(this.functions.count)));
    machine.activity.stallRecords ??= [];
    this.seqRuns = machine.activity.seq ? (machine.activity.seqRecords ??= []) : null;
    this.sink = new TextSink(options.path, '--vcd');
    this.header();
  }

  /** Value changes written. */
  get written(): number {
    return this.changes;
  }

  get truncated(): boolean {
    return this.truncatedAt >= 0;
  }

  step(info: StepInfo, machine: Machine): void {
    if (this.done) return;
    const cb = info.clockBefore;
    const fn = this.functions.id(info.pc);
    if (fn !== this.lastFn) {
      this.cpu(cb, FUNC, fn);
      this.lastFn = fn;
    }
    if (info.pc !== this.lastPc) {
      this.cpu(cb, PC, info.pc >>> 0);
      this.lastPc = info.pc;
    }
    const tpu = machine.activity;
    const stalls = tpu.stallRecords!;
    let stallTo = -1, stallUnit = '';
    for (; this.stallCursor < stalls.length; this.stallCursor++) {
      const s = stalls[this.stallCursor];
      this.cpu(s.from, STALL, 1);
      this.cpu(s.to, STALL, 0);
      stallTo = s.to;
      stallUnit = s.unit;
    }
    if ((expandedWord(info) & 0x7f) === 0x23) {
      const p = perfCtrlWrite(info, machine);
      if (p) this.cpu(p.clock, PERF, p.on ? 1 : 0);
      this.pushes(info, stallTo, stallUnit);
    }
    if (this.cpuT.length >= CPU_BATCH) this.flush(Math.min(tpu.clock, machine.cpu.cycle));
  }

  /** Takes the TPU's records so far, which are emptied next (emu/observe/observer.ts). */
  releaseTpuRecords(machine: Machine): void {
    if (!this.done) this.readTpu(machine);
    this.recCursor = 0;
    this.stallCursor = 0;
    this.seqCursor = 0;
  }

  finish(result: RunResult, machine: Machine): void {
    if (!this.done) {
      this.readTpu(machine);
      this.flush(Number.POSITIVE_INFINITY);
      if (!this.done && result.clocks > this.lastTime) this.sink.write(`#${result.clocks}\n`);
    }
    if (result.reason === 'interrupted') this.sink.write(`$comment run interrupted at clock ${result.clocks} (${result.signal}) $end\n`);
    this.sink.close();
    if (this.truncated) {
      this.options.warn?.(`--vcd: the trace limit of ${this.options.limit} value changes was reached at clock ${this.truncatedAt}; `
        + `${this.options.path} ends there (raise --trace-limit)`);
    }
  }

  // ---- internals ----

  private header(): void {
    const m = this.machine;
    const f = this.functions;
    const legend = f.names.map((n, i) => `  ${i} ${n}`).join('\n');
    const mhz = m.config.clockHz / 1e6;
    const w = (s: string) => this.sink.write(s);
    w(`$date ${new Date().toISOString()} $end\n`);
    w('$version picotpu --vcd $end\n');
    w(`$comment\n  One time unit is one CPU clock (${(1e3 / mhz).toFixed(3)} ns at ${mhz} MHz): read GTKWave's ns as clocks.\n`
      + '  A value at time t holds during clock t. depth: commands waiting in the FIFO; busy: a command executing.\n'
      + `  cpu.func_id legend:\n${legend}\n$end\n`);
    w('$timescale 1 ns $end\n');
    w('$scope module picotpu $end\n');
    w('$scope module cpu $end\n');
    w(`$var wire 32 ${this.codes[PC]} pc [31:0] $end\n`);
    w(`$var string 1 ${this.codes[FUNC]} func $end\n`);
    w(`$var wire ${this.funcWidth} ${this.funcIdCode} func_id [${this.funcWidth - 1}:0] $end\n`);
    w(`$var wire 1 ${this.codes[STALL]} push_stall $end\n`);
    w('$upscope $end\n');
    w('$scope module tpu $end\n');
    w(`$var wire 1 ${this.codes[PERF]} perf_window $end\n`);
    for (let u = 0; u < 3; u++) {
      w(`$scope module ${UNIT_NAMES[u].toLowerCase()} $end\n`);
      w(`$var wire 1 ${this.codes[BUSY + u]} busy $end\n`);
      w(`$var wire 8 ${this.codes[DEPTH + u]} depth [7:0] $end\n`);
      w('$upscope $end\n');
    }
    if (this.seqRuns) w(`$scope module seq $end\n$var wire 1 ${this.codes[SEQ_BUSY]} busy $end\n$upscope $end\n`);
    w('$upscope $end\n$upscope $end\n$enddefinitions $end\n');
    w('#0\n$dumpvars\n');
    for (let s = 0; s < (this.seqRuns ? SIGNALS : SEQ_BUSY); s++) w(this.valueText(s, 0));
    w('$end\n');
    this.lastTime = 0;
    this.lastPc = 0;
  }

  private cpu(t: number, sig: number, v: number): void {
    this.cpuT.push(t);
    this.cpuS.push(sig);
    this.cpuV.push(v);
  }

  private tpuEvent(t: number, sig: number, delta: number): void {
    this.tpuT.push(t);
    this.tpuS.push(sig);
    this.tpuV.push(delta);
  }

  /**
   * The pushes since the last look, as TPU events (any order): the CPU's (the
   * store's write reaches the TPU at its data handshake, clockBefore +
   * storeAccessOffset, or is accepted at the stall's end) and, with the
   * sequencer, the commands its lists fed, at their push clocks (`info` null:
   * read between steps, when only those can be new).
   */
  private pushes(info: StepInfo | null, stallTo: number, stallUnit: string): void {
    const units = this.machine.activity.units;
    // A board without a TPU has no units.
    for (let u = 0; u < units.length; u++) {
      const issued = units[u].issued;
      for (let serial = this.issuedSeen[u]; serial < issued; serial++) {
        this.tpuEvent(this.pushClock(u, serial, info, stallUnit === UNIT_NAMES[u] ? stallTo : -1), DEPTH + u, 1);
      }
      this.issuedSeen[u] = issued;
    }
  }

  /** The clock at which PUSH number `serial` of unit `u` was accepted (in this step, or fed by the sequencer). */
  private pushClock(u: number, serial: number, info: StepInfo | null, stallTo: number): number {
    const unit = this.machine.activity.units[u];
    for (const c of unit.fifo) if (c.serial === serial) return c.pushClock;
    if (unit.running && unit.running.serial === serial) return unit.running.pushClock;
    const records = this.machine.activity.records ?? [];
    // (All of them: a command the sequencer fed may have ended before this step.)
    for (let i = records.length - 1; i >= 0; i--) {
      if (records[i].serial === serial && records[i].unit === UNIT_NAMES[u]) return records[i].pushClock;
    }
    // Dropped already: only the clock of the write tells (a fed command's drop: its start, the error's clock).
    if (!info) return this.machine.activity.errors.find((e) => e.unit === UNIT_NAMES[u] && e.serial === serial)?.clock ?? this.machine.activity.clock;
    return stallTo >= 0 ? stallTo : info.clockBefore + storeAccessOffset(this.machine.config.cpu);
  }

  /** Reads the TPU events known so far: ended commands, drops, and the starts of running commands. */
  private readTpu(machine: Machine): void {
    const tpu = machine.activity;
    if (machine.activity.seq) this.pushes(null, -1, '');
    const records = tpu.records ?? [];
    for (; this.recCursor < records.length; this.recCursor++) {
      const r = records[this.recCursor];
      const u = UNIT_INDEX[r.unit];
      if (r.serial > this.startSeen[u]) this.started(u, r.serial, r.startClock);
      this.tpuEvent(r.endClock + 1, BUSY + u, -1);
    }
    for (; this.errCursor < tpu.errors.length; this.errCursor++) {
      const e = tpu.errors[this.errCursor];
      if (e.unit !== 'SEQ' && e.unit !== 'LINK') this.tpuEvent(e.clock, DEPTH + UNIT_INDEX[e.unit], -1);
    }
    tpu.units.forEach((unit, u) => {
      if (unit.running && unit.running.serial > this.startSeen[u]) this.started(u, unit.running.serial, unit.runningStart);
    });
    if (this.seqRuns) this.readRuns(machine.activity.seq!);
  }

  /** The sequencer's RUNs: busy from the start to the last push (hardware.md §5.11). */
  private readRuns(seq: NonNullable<Machine['activity']['seq']>): void {
    const runs = this.seqRuns!;
    for (; this.seqCursor < runs.length; this.seqCursor++) {
      const r = runs[this.seqCursor];
      if (r.serial > this.seqStartSeen) this.tpuEvent(r.startClock, SEQ_BUSY, 1);
      this.seqStartSeen = r.serial;
      this.tpuEvent(r.endClock + 1, SEQ_BUSY, -1);
    }
    if (seq.running && seq.running.serial > this.seqStartSeen) {
      this.seqStartSeen = seq.running.serial;
      this.tpuEvent(seq.runningStart, SEQ_BUSY, 1);
    }
  }

  private started(u: number, serial: number, clock: number): void {
    this.startSeen[u] = serial;
    this.tpuEvent(clock, BUSY + u, 1);
    this.tpuEvent(clock, DEPTH + u, -1);
  }

  /** Writes every event before `horizon` (all of them are known), in time order. */
  private flush(horizon: number): void {
    this.readTpu(this.machine);
    // TPU events: the ones before the horizon, sorted by time.
    const n = this.tpuT.length;
    const ready: number[] = [];
    const keepT: number[] = [], keepS: number[] = [], keepV: number[] = [];
    for (let i = 0; i < n; i++) {
      if (this.tpuT[i] < horizon) ready.push(i);
      else { keepT.push(this.tpuT[i]); keepS.push(this.tpuS[i]); keepV.push(this.tpuV[i]); }
    }
    const tT = this.tpuT;
    ready.sort((a, b) => tT[a] - tT[b]);
    // CPU events before the horizon (they are in order).
    let cpuN = 0;
    while (cpuN < this.cpuT.length && this.cpuT[cpuN] < horizon) cpuN++;

    let i = 0, j = 0;
    while (!this.done && (i < cpuN || j < ready.length)) {
      const t = Math.min(i < cpuN ? this.cpuT[i] : Number.POSITIVE_INFINITY, j < ready.length ? tT[ready[j]] : Number.POSITIVE_INFINITY);
      if (t < this.lastTime) throw new Error(`internal: VCD event at clock ${t} after clock ${this.lastTime}`);
      while (i < cpuN && this.cpuT[i] === t) {
        const sig = this.cpuS[i];
        // A push adds to a depth; the CPU's other signals are set.
        if (sig >= DEPTH && sig < DEPTH + 3) this.level[sig] += this.cpuV[i];
        else this.level[sig] = this.cpuV[i];
        i++;
      }
      while (j < ready.length && tT[ready[j]] === t) {
        this.level[this.tpuS[ready[j]]] += this.tpuV[ready[j]];
        j++;
      }
      this.emitTime(t);
    }
    this.cpuT.splice(0, cpuN);
    this.cpuS.splice(0, cpuN);
    this.cpuV.splice(0, cpuN);
    this.tpuT = keepT;
    this.tpuS = keepS;
    this.tpuV = keepV;
    this.sink.flush();
  }

  /** Writes the changes of clock t (the levels are those after every event at t). */
  private emitTime(t: number): void {
    let stamped = false;
    for (let s = 0; s < SIGNALS; s++) {
      const v = s < DEPTH ? (this.level[s] > 0 ? 1 : 0) : this.level[s];
      if (v === this.shown[s]) continue;
      const cost = s === FUNC ? 2 : 1;
      if (this.changes + cost > this.options.limit) {
        this.done = true;
        this.truncatedAt = t;
        if (!stamped) this.sink.write(`#${t}\n`);
        this.sink.write(`$comment trace limit of ${this.options.limit} value changes reached $end\n`);
        this.cpuT = []; this.cpuS = []; this.cpuV = [];
        return;
      }
      if (!stamped) {
        this.sink.write(`#${t}\n`);
        stamped = true;
        this.lastTime = t;
      }
      this.sink.write(this.valueText(s, v));
      this.shown[s] = v;
      this.changes += cost;
    }
  }

  private valueText(s: number, v: number): string {
    const code = this.codes[s];
    if (s < DEPTH || s === STALL || s === PERF || s === SEQ_BUSY) return `${v}${code}\n`;
    if (s === FUNC) {
      const name = this.functions.names[v].replace(/\s/g, '_');
      return `s${name} ${code}\nb${v.toString(2)} ${this.funcIdCode}\n`;
    }
    return `b${(v >>> 0).toString(2)} ${code}\n`;
  }
}
