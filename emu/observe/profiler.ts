// `picotpu run --profile` / `--profile-json FILE`: where the clocks of a run
// go, per firmware function (the ELF symbol containing each pc) and per TPU
// unit. It covers exactly the clocks the performance report covers: the
// PERF_CTRL window when the firmware opens one (the last one, as the counters
// do), else the whole run from reset release (the FIRST_LAUNCH_CLOCK clocks
// before the first instruction's launch are the `<reset>` row). So its totals
// are the report's figures:
//   sum of function clocks          = run clocks
//   sum of function idle            = "no unit busy (issue overhead)"
//   sum of function stall           = "producer stalled on a full queue"
//   per-unit busy                   = "<UNIT> busy"
//
// An instruction owns the clocks [clockBefore, clockAfter) from its launch to
// the next launch (the EXIT store only up to the stop clock, a trapping
// instruction up to the clock its trap goes high); its idle clocks are those
// in which no TPU unit was busy, and the stall clocks of a PUSH into a full
// queue belong to the function executing the store. Busy time comes from the
// TPU's command records (start..end inclusive) and the commands still running. The CPU's
// time is kept as run-length intervals (one per contiguous run in a function)
// and intersected with the busy intervals in batches, never later than the
// TPU's clock, so memory stays bounded whatever the run's length.

import type { ElfSymbol, SymbolTable } from '../elf.ts';
import { StopReason, TrapKind } from '../cpu.ts';
import type { Machine, RunResult } from '../machine.ts';
import type { RunObserver } from './observer.ts';
import type { StepInfo } from '../stepper.ts';
import { expandCompressed } from '../isa.ts';
import { storeAccessOffset } from '../timing.ts';
import { UNIT_NAMES, type CounterSnapshot } from '../../periph/counters.ts';
import { OutputFile } from './output-file.ts';

// ---- pc → function ----

/** Pseudo-function of the clocks before the first instruction's launch (timing.ts FIRST_LAUNCH_CLOCK). */
export const RESET_FN = 0;
/** Pseudo-function of a pc no symbol covers. */
export const NO_SYMBOL_FN = 1;

/**
 * Numbers the firmware's functions (index 0 `<reset>`, 1 `<no symbol>`, then
 * the BRAM symbols by address) and maps a pc to the function containing it.
 * A sized function symbol wins over a size-0 label inside it (the linker's
 * `__stack_min` in the middle of `main`, say), the innermost one where sized
 * symbols nest (libgcc's division routines); elsewhere the nearest symbol below
 * the pc (SymbolTable.at: `_start` of crt0.S has no size).
 */
export class FunctionMap {
  /** Display names (an address is appended to a name several symbols share). */
  readonly names: string[] = ['<reset>', '<no symbol>'];
  /** Entry address of each function (-1 for the pseudo-functions). */
  readonly addrs: number[] = [-1, -1];
  private readonly ids = new Map<ElfSymbol, number>();
  /** Function id per halfword of the firmware RAM (RV32C code has functions on halfwords). */
  private readonly cache: Int32Array;

  /** `ramSize`: the board's firmware RAM, where code runs (Machine.cpu.ramSize). */
  constructor(private readonly symbols: SymbolTable, private readonly ramSize: number) {
    this.cache = new Int32Array(ramSize >>> 1).fill(-1);
    const inBram = symbols.all.filter((s) => s.addr >= 0 && s.addr < ramSize)
      .sort((a, b) => a.addr - b.addr || b.size - a.size);
    for (const s of inBram) this.idOf(this.preferred(s));
    // Sized functions, outer before inner, so the innermost fills last.
    for (const s of inBram) {
      if (!s.isFunction || s.size === 0) continue;
      const id = this.idOf(this.preferred(s));
      const end = Math.min(ramSize, s.addr + s.size);
      for (let a = s.addr & ~1; a < end; a += 2) this.cache[a >>> 1] = id;
    }
    const count = new Map<string, number>();
    for (const n of this.names) count.set(n, (count.get(n) ?? 0) + 1);
    for (let i = 2; i < this.names.length; i++) {
      if (count.get(this.names[i])! > 1) this.names[i] += `@0x${this.addrs[i].toString(16)}`;
    }
  }

  get count(): number {
    return this.names.length;
  }

  /** The function containing `pc`. */
  id(pc: number): number {
    if (pc >= 0 && pc < this.ramSize) {
      const k = pc >>> 1;
      let v = this.cache[k];
      if (v < 0) {
        const s = this.symbols.at(pc);
        v = s ? this.idOf(s) : NO_SYMBOL_FN;
        this.cache[k] = v;
      }
      return v;
    }
    // No instruction outside the BRAM runs (its fetch is a bus error): no symbol to look for.
    return NO_SYMBOL_FN;
  }

  /** The alias SymbolTable.at reports for a symbol's address, when it is the same extent. */
  private preferred(s: ElfSymbol): ElfSymbol {
    const p = this.symbols.at(s.addr);
    return p && p.addr === s.addr && p.size === s.size && p.isFunction === s.isFunction ? p : s;
  }

  private idOf(s: ElfSymbol): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(s, id);
      this.names.push(s.name);
      this.addrs.push(s.addr);
    }
    return id;
  }
}

// ---- PERF_CTRL ----

/**
 * If the instruction just stepped was a store to PERF_CTRL, the clock its
 * write reached the TPU and whether it opened (1) or closed (0) the window.
 * The write reaches the TPU at the store's data handshake (launch +
 * storeAccessOffset: one clock later without ENABLE_REGS_DUALPORT). A
 * misaligned store still writes its aligned word before it traps
 * (docs/hardware.md §1.1), so it counts too.
 */
export function perfCtrlWrite(info: StepInfo, machine: Machine): { clock: number; on: boolean } | null {
  const w = info.word;
  if ((w & 0x7f) !== 0x23) return null; // not a store
  const cpu = machine.cpu;
  if (info.clockAfter === info.clockBefore && !(cpu.stopReason === StopReason.TRAP && cpu.trapKind === TrapKind.MISALIGNED_STORE)) {
    return null; // it trapped without writing (a bus error)
  }
  const funct3 = (w >>> 12) & 7;
  if (funct3 > 2) return null;
  const regs = cpu.regs; // a store writes no register: rs1 and rs2 are as the store saw them
  const imm = (((w | 0) >> 25) << 5) | ((w >>> 7) & 31);
  const addr = (regs[(w >>> 15) & 31] + imm) >>> 0;
  if ((addr & ~3) >>> 0 !== machine.devices.perfCtrlAddr) return null;
  // SB/SH replicate the value across the word, so bit 0 of the written word is bit 0 of rs2.
  return { clock: info.clockBefore + storeAccessOffset(machine.config.cpu), on: (regs[(w >>> 20) & 31] & 1) === 1 };
}

/** The 32-bit form of the instruction a step ran (a compressed one expanded; -1 for an illegal one). */
export function expandedWord(info: StepInfo): number {
  return info.length === 2 ? expandCompressed(info.word & 0xffff) : info.word;
}

/** Is the instruction word a jal/jalr that links (rd = ra or the alternate link register t0)? */
export function isLinkingJump(word: number): boolean {
  const op = word & 0x7f;
  if (op !== 0x6f && op !== 0x67) return false;
  const rd = (word >>> 7) & 31;
  return rd === 1 || rd === 5;
}

export const UNIT_INDEX: Record<(typeof UNIT_NAMES)[number], number> = { DMA: 0, MXU: 1, VPU: 2 };

// ---- the profile ----

export interface FunctionProfile {
  name: string;
  /** Entry address, or null for `<reset>` and `<no symbol>`. */
  addr: number | null;
  clocks: number;
  /** Of the profile's clocks. */
  percent: number;
  /** Clocks in which no TPU unit was busy (issue overhead). */
  idle: number;
  /** Clocks its stores waited on a full TPU queue. */
  stall: number;
  /** Entries at the function's address by a linking jal/jalr. */
  calls: number;
  instructions: number;
}

export interface UnitProfile {
  unit: (typeof UNIT_NAMES)[number];
  /** Commands that started in the profile's clocks (still running at the end included). */
  commands: number;
  /** Of those, still running when the run stopped. */
  inFlight: number;
  /** Commands dropped with an error in the profile's clocks. */
  dropped: number;
  busy: number;
  percent: number;
  /** Mean clocks from the accepted PUSH to the start, over `commands`; null with none. */
  meanQueueWait: number | null;
}

export interface Profile {
  /** What the clocks cover: the same as the performance report. */
  scope: 'whole run' | 'PERF_CTRL window';
  /** The clocks covered: [from, to). */
  from: number;
  to: number;
  clockHz: number;
  totals: { clocks: number; idle: number; stall: number; busy: { DMA: number; MXU: number; VPU: number } };
  /** By clocks, most first; every function that executed (or `<reset>`) in the scope. */
  functions: FunctionProfile[];
  units: UnitProfile[];
  /**
   * With the sequencer option (hardware.md §5.11): RUNs started in the clocks,
   * clocks in which a RUN was feeding its list (start to last push; not unit
   * busy clocks: idle keeps its meaning), and RUNs dropped. Absent without it.
   */
  sequencer?: { runs: number; feeding: number; dropped: number };
  /** The report's counters, for comparison. */
  report: CounterSnapshot;
}

export interface ProfilerOptions {
  /** Write the profile as JSON here at the end of the run. */
  jsonPath?: string;
}

/** A busy interval [s, e) of one unit, with the command's push clock. */
interface Busy {
  u: number;
  s: number;
  e: number;
  push: number;
}

const RUN_BATCH = 4096;

export class Profiler implements RunObserver {
  readonly functions: FunctionMap;
  profile: Profile | null = null;

  private readonly clocks: Float64Array;
  private readonly idle: Float64Array;
  private readonly stall: Float64Array;
  private readonly calls: Float64Array;
  private readonly instrs: Float64Array;
  private readonly busy = [0, 0, 0];
  private readonly commands = [0, 0, 0];
  private readonly waitSum = [0, 0, 0];
  private readonly dropped = [0, 0, 0];

  /** The clocks counted: [scopeStart, scopeEnd). */
  private scopeStart = 0;
  private scopeEnd = Number.POSITIVE_INFINITY;
  private counting = false;
  private windowed = false;

  /** Closed runs not yet intersected with the busy time. */
  private readonly runFn = new Int32Array(RUN_BATCH);
  private readonly runFrom = new Float64Array(RUN_BATCH);
  private readonly runTo = new Float64Array(RUN_BATCH);
  private runCount = 0;
  private cur = RESET_FN;
  private curStart = 0;
  /** Every clock before this is accounted. */
  private resolved = 0;
  /** Command intervals that may reach past `resolved`. */
  private active: Busy[] = [];
  private recCursor = 0;
  /** The sequencer's RUNs, accounted like the units' commands but apart from them (they are no busy unit). */
  private readonly seq = { active: [] as Busy[], cursor: 0, runs: 0, feeding: 0, dropped: 0 };
  private errCursor = 0;
  private stallCursor = 0;
  private prevLink = false;

  /** The --profile-json file, opened at once so a bad path fails before the run (OutputError). */
  private readonly json: OutputFile | null = null;

  constructor(private readonly machine: Machine, options: ProfilerOptions = {}) {
    if (options.jsonPath !== undefined) this.json = new OutputFile(options.jsonPath, '--profile-json');
    this.functions = new FunctionMap(machine.symbols, machine.cpu.ramSize);
    if (machine.activity.seq) machine.activity.seqRecords ??= [];
    const n = this.functions.count;
    this.clocks = new Float64Array(n);
    this.idle = new Float64Array(n);
    this.stall = new Float64Array(n);
    this.calls = new Float64Array(n);
    this.instrs = new Float64Array(n);
    machine.activity.stallRecords ??= [];
    // machine.activity.records is set by the CLI after the observers exist; read it lazily.
  }

  step(info: StepInfo, machine: Machine): void {
    const pc = info.pc, cb = info.clockBefore;
    const fn = this.functions.id(pc);
    if (fn !== this.cur) {
      this.closeRun(cb);
      this.cur = fn;
    }
    if (cb >= this.scopeStart && cb < this.scopeEnd) {
      this.instrs[fn]++;
      if (this.prevLink && pc === this.functions.addrs[fn]) this.calls[fn]++;
    }
    this.prevLink = isLinkingJump(expandedWord(info));

    const stalls = machine.activity.stallRecords;
    if (stalls && stalls.length > this.stallCursor) {
      for (let i = this.stallCursor; i < stalls.length; i++) {
        const s = stalls[i];
        if (s.from >= this.scopeStart && s.from < this.scopeEnd) this.stall[fn] += s.to - s.from;
      }
      this.stallCursor = stalls.length;
    }

    const records = machine.activity.records;
    if (this.runCount >= RUN_BATCH - 2 || (records && records.length - this.recCursor >= RUN_BATCH)) {
      this.closeRun(cb);
      this.resolve(cb);
    }
    if ((info.word & 0x7f) === 0x23) {
      const p = perfCtrlWrite(info, machine);
      if (p) this.perfCtrl(p.clock, p.on);
    }
  }

  /** Accounts everything up to the CPU's clock (the TPU is there), so the records can go (emu/observe/observer.ts). */
  releaseTpuRecords(machine: Machine): void {
    const t = Math.max(machine.cpu.cycle, this.curStart);
    this.closeRun(t);
    this.resolve(t);
    this.recCursor = 0;
    this.stallCursor = 0;
    this.seq.cursor = 0;
  }

  finish(result: RunResult, machine: Machine): void {
    const end = Math.max(result.clocks, this.curStart);
    this.closeRun(end);
    if (this.scopeEnd > end) this.scopeEnd = end;
    this.resolve(end);
    this.profile = this.build(result, machine);
    if (this.json !== null) {
      this.json.write(JSON.stringify(this.profile, null, 2) + '\n');
      this.json.commit();
    }
  }

  /** The terminal table (after the run). */
  format(): string {
    return this.profile ? formatProfile(this.profile) : '';
  }

  // ---- internals ----

  private perfCtrl(clock: number, on: boolean): void {
    if (!on && !this.counting) return;
    this.closeRun(clock);
    this.resolve(clock);
    if (on) {
      // PERF_CTRL = 1 zeroes the counters: so does the profile.
      for (const a of [this.clocks, this.idle, this.stall, this.calls, this.instrs]) a.fill(0);
      for (const a of [this.busy, this.commands, this.waitSum, this.dropped]) a.fill(0);
      this.scopeStart = clock;
      this.scopeEnd = Number.POSITIVE_INFINITY;
      this.counting = true;
      this.windowed = true;
    } else {
      this.scopeEnd = clock;
      this.counting = false;
    }
  }

  private closeRun(t: number): void {
    if (t <= this.curStart) return;
    if (this.runCount === RUN_BATCH) this.resolve(this.curStart);
    const i = this.runCount++;
    this.runFn[i] = this.cur;
    this.runFrom[i] = this.curStart;
    this.runTo[i] = t;
    this.curStart = t;
  }

  /** The sequencer's RUNs in [lo, tEnd): feeding clocks within the scope [S, E), and the RUNs that start there. */
  private resolveSeq(lo: number, tEnd: number, S: number, E: number): void {
    const unit = this.machine.activity.seq ?? null;
    const runs = unit ? this.machine.activity.seqRecords ?? null : null;
    if (!unit || !runs) return;
    const q = this.seq;
    for (; q.cursor < runs.length; q.cursor++) q.active.push({ u: 3, s: runs[q.cursor].startClock, e: runs[q.cursor].endClock + 1, push: 0 });
    const take = (b: Busy) => {
      const sx = Math.max(b.s, lo, S), sy = Math.min(b.e, tEnd, E);
      if (sx < sy) q.feeding += sy - sx;
      if (b.s >= lo && b.s < tEnd && b.s >= this.scopeStart && b.s < this.scopeEnd) q.runs++;
    };
    for (const b of q.active) take(b);
    if (unit.running) take({ u: 3, s: unit.runningStart, e: Number.POSITIVE_INFINITY, push: 0 });
    q.active = q.active.filter((b) => b.e > tEnd);
  }

  /** Accounts every closed run; they end at `tEnd`, which the TPU has reached. */
  private resolve(tEnd: number): void {
    const lo = this.resolved;
    if (tEnd < lo) throw new Error(`internal: profiler resolving back to clock ${tEnd} after ${lo}`);
    const tpu = this.machine.activity;
    const S = Math.max(lo, this.scopeStart), E = Math.min(tEnd, this.scopeEnd);

    const records = tpu.records ?? [];
    for (let i = this.recCursor; i < records.length; i++) {
      const r = records[i];
      this.active.push({ u: UNIT_INDEX[r.unit], s: r.startClock, e: r.endClock + 1, push: r.pushClock });
    }
    this.recCursor = records.length;
    const spans: Busy[] = [];
    const take = (b: Busy) => {
      const x = Math.max(b.s, lo), y = Math.min(b.e, tEnd);
      if (x < y) spans.push({ u: b.u, s: x, e: y, push: 0 });
      const sx = Math.max(x, S), sy = Math.min(y, E);
      if (sx < sy) this.busy[b.u] += sy - sx;
      // Each command is counted in the one batch that holds its start.
      if (b.s >= lo && b.s < tEnd && b.s >= this.scopeStart && b.s < this.scopeEnd) {
        this.commands[b.u]++;
        this.waitSum[b.u] += b.s - b.push;
      }
    };
    for (const b of this.active) take(b);
    tpu.units.forEach((u, i) => {
      // Still running at the TPU's clock (>= tEnd): busy from its start on.
      if (u.running) take({ u: i, s: u.runningStart, e: Number.POSITIVE_INFINITY, push: u.running.pushClock });
    });
    this.active = this.active.filter((b) => b.e > tEnd);
    this.resolveSeq(lo, tEnd, S, E);
    const errors = tpu.errors;
    while (this.errCursor < errors.length && errors[this.errCursor].clock < tEnd) {
      const e = errors[this.errCursor++];
      if (e.clock < this.scopeStart || e.clock >= this.scopeEnd) continue;
      if (e.unit === 'SEQ') this.seq.dropped++; else if (e.unit !== 'LINK') this.dropped[UNIT_INDEX[e.unit]]++; // LINK errors: in the run report
    }

    // The union of the busy spans, in order.
    spans.sort((a, b) => a.s - b.s);
    const us: number[] = [], ue: number[] = [];
    for (const b of spans) {
      const n = us.length;
      if (n > 0 && b.s <= ue[n - 1]) {
        if (b.e > ue[n - 1]) ue[n - 1] = b.e;
      } else {
        us.push(b.s);
        ue.push(b.e);
      }
    }

    let j = 0;
    let expect = lo;
    for (let i = 0; i < this.runCount; i++) {
      const from = this.runFrom[i], to = this.runTo[i];
      if (from !== expect) throw new Error(`internal: profiler runs not contiguous at clock ${from} (expected ${expect})`);
      expect = to;
      const a = Math.max(from, this.scopeStart), b = Math.min(to, this.scopeEnd);
      if (a >= b) continue;
      const fn = this.runFn[i];
      this.clocks[fn] += b - a;
      while (j < us.length && ue[j] <= a) j++;
      let covered = 0;
      for (let k = j; k < us.length && us[k] < b; k++) covered += Math.min(ue[k], b) - Math.max(us[k], a);
      this.idle[fn] += b - a - covered;
    }
    if (expect !== tEnd) throw new Error(`internal: profiler runs end at clock ${expect}, not ${tEnd}`);
    this.runCount = 0;
    this.resolved = tEnd;
  }

  private build(result: RunResult, machine: Machine): Profile {
    const from = this.scopeStart, to = this.scopeEnd;
    const total = to - from;
    const pct = (n: number) => (total > 0 ? (100 * n) / total : 0);
    const f = this.functions;
    const functions: FunctionProfile[] = [];
    for (let i = 0; i < f.count; i++) {
      if (this.clocks[i] === 0 && this.instrs[i] === 0) continue;
      functions.push({
        name: f.names[i], addr: f.addrs[i] < 0 ? null : f.addrs[i], clocks: this.clocks[i], percent: pct(this.clocks[i]),
        idle: this.idle[i], stall: this.stall[i], calls: this.calls[i], instructions: this.instrs[i],
      });
    }
    functions.sort((a, b) => b.clocks - a.clocks || a.name.localeCompare(b.name));
    const running = machine.activity.units.map((u) => (u.running && u.runningStart >= from && u.runningStart < to ? 1 : 0));
    const units: UnitProfile[] = UNIT_NAMES.map((unit, i) => ({
      unit, commands: this.commands[i], inFlight: running[i] ?? 0, dropped: this.dropped[i], busy: this.busy[i], percent: pct(this.busy[i]),
      meanQueueWait: this.commands[i] ? this.waitSum[i] / this.commands[i] : null,
    }));
    const sum = (a: Float64Array) => a.reduce((s, x) => s + x, 0);
    return {
      scope: this.windowed ? 'PERF_CTRL window' : 'whole run',
      from, to, clockHz: machine.config.clockHz,
      totals: {
        clocks: sum(this.clocks), idle: sum(this.idle), stall: sum(this.stall),
        busy: { DMA: this.busy[0], MXU: this.busy[1], VPU: this.busy[2] },
      },
      functions, units, report: result.counters,
      ...(machine.activity.seq ? { sequencer: { runs: this.seq.runs, feeding: this.seq.feeding, dropped: this.seq.dropped } } : {}),
    };
  }
}

/** The profile as a table for the terminal. */
export function formatProfile(p: Profile): string {
  const total = p.to - p.from;
  const ms = ((total / p.clockHz) * 1000).toFixed(3);
  const where = p.scope === 'whole run' ? 'whole run' : `PERF_CTRL window, clocks ${p.from}..${p.to}`;
  const nameW = Math.min(40, Math.max(8, ...p.functions.map((f) => f.name.length)));
  const cut = (s: string) => (s.length > nameW ? s.slice(0, nameW - 1) + '~' : s.padEnd(nameW));
  const num = (n: number, w: number) => String(n).padStart(w);
  const pc = (n: number) => `${(total ? (100 * n) / total : 0).toFixed(1)}%`.padStart(7);
  const lines = [
    `profile (${where}: ${total} clocks ${ms} ms)`,
    `${'function'.padEnd(nameW)} ${'clocks'.padStart(12)} ${'%'.padStart(7)} ${'idle'.padStart(12)} ${'stall'.padStart(12)} ${'calls'.padStart(9)} ${'instrs'.padStart(11)}`,
  ];
  for (const f of p.functions) {
    lines.push(`${cut(f.name)} ${num(f.clocks, 12)} ${pc(f.clocks)} ${num(f.idle, 12)} ${num(f.stall, 12)} ${num(f.calls, 9)} ${num(f.instructions, 11)}`);
  }
  const t = p.totals;
  lines.push(`${'total'.padEnd(nameW)} ${num(t.clocks, 12)} ${pc(t.clocks)} ${num(t.idle, 12)} ${num(t.stall, 12)}`);
  lines.push('idle: clocks no TPU unit was busy; stall: clocks a PUSH waited on a full queue');
  lines.push(`${'unit'.padEnd(6)} ${'commands'.padStart(9)} ${'busy'.padStart(12)} ${'%'.padStart(7)} ${'mean wait'.padStart(10)} ${'dropped'.padStart(8)} ${'running'.padStart(8)}`);
  for (const u of p.units) {
    const wait = u.meanQueueWait === null ? '-' : u.meanQueueWait.toFixed(1);
    lines.push(`${u.unit.padEnd(6)} ${num(u.commands, 9)} ${num(u.busy, 12)} ${pc(u.busy)} ${wait.padStart(10)} ${num(u.dropped, 8)} ${num(u.inFlight, 8)}`);
  }
  lines.push('mean wait: clocks from the accepted PUSH to the start; running: still busy at the stop');
  const q = p.sequencer;
  if (q) lines.push(`SEQ: ${q.runs} RUNs, feeding ${q.feeding} clocks ${pc(q.feeding).trim()}, ${q.dropped} dropped (feeding: from a RUN's start to its last push; no unit busy clock)`);
  return lines.join('\n') + '\n';
}
