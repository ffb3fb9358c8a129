// --vcd (emu/observe/vcd.ts): the file is a well-formed VCD (header, declarations,
// $dumpvars, strictly increasing timestamps, changes only), and its signals
// are what the run did: each unit's busy toggles are its command records'
// start/end, its queue depth is pushes minus starts and drops at every clock,
// push_stall is the TPU's stall records, pc and func follow the instructions,
// perf_window the PERF_CTRL window. --trace-limit bounds the value changes.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { runObserved, type RunObserver } from '../emu/observe/observer.ts';
import { KeepRecords } from './helpers/keep-records.ts';
import { FunctionMap } from '../emu/observe/profiler.ts';
import type { StepInfo } from '../emu/stepper.ts';
import { VcdWriter } from '../emu/observe/vcd.ts';
import { UNIT_NAMES } from '../periph/counters.ts';
import { lastWindow, watchPerfCtrl } from './helpers/perf-writes.ts';
import { expectStopInside, firstDma } from './helpers/first-dma.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const elfPath = (name: string): string => join(root, 'build', 'fw', `${name}.elf`);
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-vcd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Vcd {
  timescale: string;
  /** Full dotted name → id code, and width/type by id. */
  vars: Map<string, { id: string; width: number; type: string }>;
  /** Per id: [time, value] in order (the $dumpvars value at time 0 first). */
  changes: Map<string, [number, string][]>;
  times: number[];
  comments: string[];
  valueChanges: number;
}

function parseVcd(text: string): Vcd {
  const tokens = text.split(/\s+/).filter((t) => t.length > 0);
  const vars = new Map<string, { id: string; width: number; type: string }>();
  const changes = new Map<string, [number, string][]>();
  const comments: string[] = [];
  const scope: string[] = [];
  let timescale = '';
  let i = 0;
  const until = (end: string): string[] => {
    const out: string[] = [];
    while (tokens[i] !== end) {
      if (i >= tokens.length) throw new Error(`no ${end}`);
      out.push(tokens[i++]);
    }
    i++;
    return out;
  };
  for (;;) {
    const t = tokens[i++];
    if (t === '$enddefinitions') { until('$end'); break; }
    if (t === '$timescale') timescale = until('$end').join(' ');
    else if (t === '$scope') scope.push(until('$end')[1]);
    else if (t === '$upscope') { until('$end'); scope.pop(); }
    else if (t === '$var') {
      const [type, width, id, name] = until('$end');
      vars.set([...scope, name].join('.'), { id, width: Number(width), type });
      changes.set(id, []);
    } else if (t === '$comment') comments.push(until('$end').join(' '));
    else if (t === '$date' || t === '$version') until('$end');
    else throw new Error(`unexpected ${t} in the header`);
  }
  let time = -1;
  const times: number[] = [];
  let valueChanges = 0;
  let inDump = false;
  const put = (id: string, v: string) => {
    const list = changes.get(id);
    if (!list) throw new Error(`unknown id ${id}`);
    list.push([time, v]);
    if (!inDump) valueChanges++;
  };
  while (i < tokens.length) {
    const t = tokens[i++];
    if (t[0] === '#') {
      const n = Number(t.slice(1));
      if (!(n > time)) throw new Error(`time ${n} after ${time}`);
      time = n;
      times.push(n);
    } else if (t === '$dumpvars') inDump = true;
    else if (t === '$end') inDump = false;
    else if (t === '$comment') comments.push(until('$end').join(' '));
    else if (t[0] === 'b' || t[0] === 's') put(tokens[i++], t.slice(1));
    else if (/^[01xz]/.test(t)) put(t.slice(1), t[0]);
    else throw new Error(`unexpected ${t}`);
  }
  return { timescale, vars, changes, times, comments, valueChanges };
}

/** The value of a signal during each clock [0, end). */
function wave(v: Vcd, name: string, end: number, parse: (s: string) => number = (s) => parseInt(s, 2)): Float64Array {
  const id = v.vars.get(name)!.id;
  const out = new Float64Array(end);
  const list = v.changes.get(id)!;
  for (let k = 0; k < list.length; k++) {
    const [t, s] = list[k];
    const next = k + 1 < list.length ? list[k + 1][0] : end;
    out.fill(parse(s), t, Math.min(next, end));
  }
  return out;
}

/** Compares two waves; the first clock where they differ, or null. */
function diff(got: Float64Array, want: Float64Array): { clock: number; got: number; want: number } | null {
  if (got.length !== want.length) return { clock: -1, got: got.length, want: want.length };
  for (let c = 0; c < got.length; c++) if (got[c] !== want[c]) return { clock: c, got: got[c], want: want[c] };
  return null;
}

/** Test-side record of every accepted PUSH, by chaining the TPU's onPush hook. */
function watchPushes(m: Machine): { unit: number; serial: number; clock: number }[] {
  const pushes: { unit: number; serial: number; clock: number }[] = [];
  const prev = m.tpu.onPush;
  const seen = [0, 0, 0];
  m.tpu.onPush = () => {
    prev?.();
    m.tpu.units.forEach((u, i) => {
      if (u.issued > seen[i]) {
        const cmd = u.fifo[u.fifo.length - 1];
        pushes.push({ unit: i, serial: cmd.serial, clock: cmd.pushClock });
        seen[i] = u.issued;
      }
    });
  };
  return pushes;
}

class Trace implements RunObserver {
  pc: number[] = [];
  from: number[] = [];
  step(info: StepInfo): void {
    this.pc.push(info.pc);
    this.from.push(info.clockBefore);
  }
  finish(): void {}
}

function vcdRun(name: string, limit = 10_000_000, maxCycles = 30_000_000, cfg: PlatformConfig = defaultConfig()) {
  const m = new Machine(cfg);
  m.loadElf(readFileSync(elfPath(name)));
  m.bus.console.captureOutput();
  const perfWrites = watchPerfCtrl(m);
  const path = join(tmp, `${name}-${limit}-${cfg.cpu.ENABLE_REGS_DUALPORT ? 'dp' : 'sp'}.vcd`);
  const warnings: string[] = [];
  const w = new VcdWriter(m, { path, limit, warn: (s) => warnings.push(s) });
  const trace = new Trace();
  const pushes = watchPushes(m);
  m.tpu.records = [];
  const r: RunResult = runObserved(m, maxCycles, [w, trace, new KeepRecords()]);
  return { m, r, w, trace, pushes, perfWrites, warnings, vcd: parseVcd(readFileSync(path, 'utf8')) };
}

/** Checks every TPU signal of the dump against the records, clock by clock, up to `end`. */
function checkTpuSignals(run: ReturnType<typeof vcdRun>, end: number): void {
  const { m, r, vcd, pushes } = run;
  for (let u = 0; u < 3; u++) {
    const unit = UNIT_NAMES[u];
    const scope = `picotpu.tpu.${unit.toLowerCase()}`;
    // busy: exactly the clocks some command of the unit executed.
    const busyRef = new Float64Array(end);
    const recs = m.tpu.records!.filter((x) => x.unit === unit);
    for (const x of recs) busyRef.fill(1, x.startClock, Math.min(x.endClock + 1, end));
    const running = m.tpu.units[u].running;
    if (running) busyRef.fill(1, m.tpu.units[u].runningStart, end);
    expect(diff(wave(vcd, `${scope}.busy`, end), busyRef), `${unit} busy`).toBeNull();
    // Toggles: a rise at each start that does not follow the previous end directly, a fall after each end.
    const toggles = vcd.changes.get(vcd.vars.get(`${scope}.busy`)!.id)!.slice(1).filter(([t]) => t < end);
    const expected: [number, string][] = [];
    let lastEnd = -2;
    for (const x of recs) {
      if (x.startClock >= end) break;
      if (x.startClock !== lastEnd + 1) expected.push([x.startClock, '1']);
      else expected.pop(); // back to back: no fall and rise
      if (x.endClock + 1 < end) expected.push([x.endClock + 1, '0']);
      lastEnd = x.endClock;
    }
    if (running && m.tpu.units[u].runningStart < end) {
      if (m.tpu.units[u].runningStart !== lastEnd + 1) expected.push([m.tpu.units[u].runningStart, '1']);
      else expected.pop();
    }
    expect(toggles, `${unit} busy toggles`).toEqual(expected);
    // depth: pushes accepted minus commands that left the FIFO (started or dropped).
    const delta = new Float64Array(end + 1);
    for (const p of pushes) if (p.unit === u && p.clock < end) delta[p.clock]++;
    for (const x of recs) if (x.startClock < end) delta[x.startClock]--;
    if (running && m.tpu.units[u].runningStart < end) delta[m.tpu.units[u].runningStart]--;
    for (const e of r.tpuErrors) if (e.unit === unit && e.clock < end) delta[e.clock]--;
    const depthRef = new Float64Array(end);
    let d = 0;
    for (let c = 0; c < end; c++) { d += delta[c]; depthRef[c] = d; }
    expect(diff(wave(vcd, `${scope}.depth`, end), depthRef), `${unit} depth`).toBeNull();
  }
  const stallRef = new Float64Array(end);
  for (const s of m.tpu.stallRecords!) stallRef.fill(1, s.from, Math.min(s.to, end));
  expect(diff(wave(vcd, 'picotpu.cpu.push_stall', end), stallRef), 'push_stall').toBeNull();
}

describe('--vcd', () => {
  it('tpu_queue_full: header, busy toggles and queue depth from the records, stalls, pc, func, perf window', () => {
    const run = vcdRun('tpu_queue_full');
    const { m, r, vcd, trace, w } = run;
    expect(r.exit).toBe(0);
    expect(vcd.timescale).toBe('1 ns');
    expect(vcd.comments[0]).toMatch(/One time unit is one CPU clock/);
    for (const u of ['dma', 'mxu', 'vpu']) {
      expect(vcd.vars.get(`picotpu.tpu.${u}.busy`)).toMatchObject({ width: 1, type: 'wire' });
      expect(vcd.vars.get(`picotpu.tpu.${u}.depth`)).toMatchObject({ width: 8, type: 'wire' });
    }
    expect(vcd.vars.get('picotpu.cpu.pc')).toMatchObject({ width: 32 });
    expect(vcd.vars.get('picotpu.cpu.func')).toMatchObject({ type: 'string' });
    expect(vcd.vars.get('picotpu.cpu.push_stall')).toMatchObject({ width: 1 });
    expect(vcd.times[vcd.times.length - 1]).toBe(r.clocks);
    expect(vcd.valueChanges).toBe(w.written);
    expect(w.truncated).toBe(false);
    // Values change only: no signal repeats its value.
    for (const [id, list] of vcd.changes) {
      for (let k = 1; k < list.length; k++) expect(list[k][1], `id ${id} at ${list[k][0]}`).not.toBe(list[k - 1][1]);
    }
    // The queue fills up: depth reaches the configured FIFO depth and PUSHes stall.
    expect(wave(vcd, 'picotpu.tpu.dma.depth', r.clocks).reduce((a, b) => Math.max(a, b), 0)).toBe(m.config.tpu.queueDepth);
    expect(m.tpu.stallRecords!.length).toBeGreaterThan(0);
    checkTpuSignals(run, r.clocks);

    // pc: the pc of the instruction launched at each clockBefore.
    const pc = wave(vcd, 'picotpu.cpu.pc', r.clocks);
    for (let i = 0; i < trace.pc.length; i++) expect(pc[trace.from[i]]).toBe(trace.pc[i]);
    // func and func_id: the function of the pc, by name and through the legend.
    const fm = new FunctionMap(m.symbols, m.cpu.ramSize);
    const names = fm.names;
    const funcId = vcd.vars.get('picotpu.cpu.func')!.id;
    const funcAt = (c: number) => {
      const list = vcd.changes.get(funcId)!;
      let k = 0;
      while (k + 1 < list.length && list[k + 1][0] <= c) k++;
      return list[k][1];
    };
    const ids = wave(vcd, 'picotpu.cpu.func_id', r.clocks);
    for (let i = 0; i < trace.pc.length; i += 97) {
      expect(funcAt(trace.from[i])).toBe(names[fm.id(trace.pc[i])]);
      expect(ids[trace.from[i]]).toBe(fm.id(trace.pc[i]));
    }
    expect(funcAt(0)).toBe('<reset>');
    expect(vcd.comments[0]).toContain(`${fm.id(m.symbols.lookup('main')!.addr)} main`);
    // perf_window: one window, as long as the report's clocks.
    const perf = wave(vcd, 'picotpu.tpu.perf_window', r.clocks);
    expect(perf.reduce((s, x) => s + x, 0)).toBe(r.counters.cycles);
  });

  it('tpu_errors: dropped commands leave the queue at the drop (depth) and are never busy', () => {
    const run = vcdRun('tpu_errors');
    expect(run.r.tpuErrors.length).toBeGreaterThan(10);
    checkTpuSignals(run, run.r.clocks);
  });

  it('without a dual-ported register file: pushes (dropped ones too) and the perf window at the clocks the TPU saw the stores', () => {
    // A store's write reaches the TPU one clock later then (docs/hardware.md §1.2).
    const cfg = defaultConfig();
    cfg.cpu.ENABLE_REGS_DUALPORT = false;
    const errors = vcdRun('tpu_errors', 10_000_000, 30_000_000, cfg);
    expect(errors.r.exit).toBe(0);
    expect(errors.r.tpuErrors.length).toBeGreaterThan(10);
    checkTpuSignals(errors, errors.r.clocks);
    const q = vcdRun('tpu_queue_full', 10_000_000, 30_000_000, cfg);
    expect(q.r.exit).toBe(0);
    checkTpuSignals(q, q.r.clocks);
    const want = lastWindow(q.perfWrites, q.r.clocks)!;
    const ref = new Float64Array(q.r.clocks).fill(1, want.from, want.to);
    expect(diff(wave(q.vcd, 'picotpu.tpu.perf_window', q.r.clocks), ref), 'perf_window').toBeNull();
  });

  it('tpu_tokens: three units with wait tokens', () => {
    const run = vcdRun('tpu_tokens');
    for (const u of ['DMA', 'MXU', 'VPU']) expect(run.m.tpu.records!.some((x) => x.unit === u), u).toBe(true);
    checkTpuSignals(run, run.r.clocks);
  });

  it('--trace-limit: at most that many value changes, the file ends with a comment, in order up to there', () => {
    const limit = 5000;
    const run = vcdRun('tpu_queue_full', limit);
    const { vcd, w, warnings } = run;
    expect(w.truncated).toBe(true);
    expect(vcd.valueChanges).toBe(w.written);
    expect(vcd.valueChanges).toBeLessThanOrEqual(limit);
    expect(vcd.valueChanges).toBeGreaterThan(limit - 2);
    expect(vcd.comments[vcd.comments.length - 1]).toMatch(/trace limit of 5000 value changes reached/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/--vcd: the trace limit of 5000 value changes was reached at clock \d+/);
    // What was written is right up to the last timestamp before the cut.
    const cut = vcd.times[vcd.times.length - 1];
    checkTpuSignals(run, cut);
  });

  it('a cycle limit mid-command: the busy unit stays busy to the end', () => {
    const first = firstDma(elfPath('tpu_matmul'));
    const run = vcdRun('tpu_matmul', 10_000_000, first.stopClock);
    expect(run.r.reason).toBe('cycle-limit');
    expectStopInside(first, run.r.clocks);
    expect(run.m.tpu.units[0].running).not.toBeNull();
    expect(run.m.tpu.units[0].runningStart).toBe(first.record.startClock);
    expect(run.m.tpu.units[0].running!.serial).toBe(first.record.serial);
    checkTpuSignals(run, run.r.clocks);
  });
});
