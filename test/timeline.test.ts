// --timeline (emu/observe/timeline.ts): the file is a JSON array of Chrome trace
// events; each unit's track holds one complete event per command (named by
// its opcode, args with its fields and clocks), each dropped command an
// instant event; the CPU track's slices tile the run by function; events are
// in time order on every track; times are µs at 12 MHz; --trace-limit bounds
// the events and the file stays valid JSON.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { Machine } from '../boards/machine.ts';
import { runObserved } from '../emu/observe/observer.ts';
import { KeepRecords } from './helpers/keep-records.ts';
import { Profiler } from '../emu/observe/profiler.ts';
import { commandArgs, TID, TimelineWriter } from '../emu/observe/timeline.ts';
import { VcdWriter } from '../emu/observe/vcd.ts';
import { FIRST_LAUNCH_CLOCK } from '../emu/timing.ts';
import { UNIT_NAMES } from '../periph/counters.ts';
import { lastWindow, watchPerfCtrl } from './helpers/perf-writes.ts';
import { expectStopInside, firstDma } from './helpers/first-dma.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const elfPath = (name: string): string => join(root, 'build', 'fw', `${name}.elf`);
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-timeline-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid?: number;
  ts?: number;
  dur?: number;
  cat?: string;
  s?: string;
  args?: Record<string, unknown>;
}

function timelineRun(name: string, limit = 10_000_000, maxCycles = 30_000_000, cfg: PlatformConfig = defaultConfig()) {
  const m = new Machine(cfg);
  m.loadElf(readFileSync(elfPath(name)));
  m.bus.console.captureOutput();
  const perfWrites = watchPerfCtrl(m);
  const path = join(tmp, `${name}-${limit}.json`);
  const warnings: string[] = [];
  const w = new TimelineWriter(m, { path, limit, warn: (s) => warnings.push(s) });
  const profiler = new Profiler(m);
  m.tpu.records = [];
  const r = runObserved(m, maxCycles, [w, profiler, new KeepRecords()]);
  const events = JSON.parse(readFileSync(path, 'utf8')) as TraceEvent[];
  return { m, r, w, warnings, events, profile: profiler.profile!, perfWrites };
}

function expectOrderedTracks(events: TraceEvent[]): void {
  const last = new Map<number, number>();
  for (const e of events) {
    if (e.ph === 'M' || e.s === 'g') continue;
    expect(typeof e.ts).toBe('number');
    const prev = last.get(e.tid!) ?? -1;
    expect(e.ts!, `tid ${e.tid} ${e.name}`).toBeGreaterThanOrEqual(prev);
    last.set(e.tid!, e.ts!);
    if (e.ph === 'X') expect(e.dur!).toBeGreaterThanOrEqual(0);
  }
}

describe('--timeline', () => {
  it('tpu_tokens: a slice per command on each unit\'s track, CPU slices tiling the run, ordered tracks', () => {
    const { m, r, w, events, profile } = timelineRun('tpu_tokens');
    expect(r.exit).toBe(0);
    expect(w.truncated).toBe(false);
    expect(events.filter((e) => e.ph !== 'M')).toHaveLength(w.written);
    const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [e.tid, (e.args as { name: string }).name]));
    expect([...threads.values()]).toEqual(['CPU', 'CPU PUSH stall', 'PERF_CTRL', 'DMA', 'MXU', 'VPU']);
    expectOrderedTracks(events);

    for (const unit of UNIT_NAMES) {
      const recs = m.tpu.records!.filter((x) => x.unit === unit);
      const slices = events.filter((e) => e.ph === 'X' && e.tid === TID[unit]);
      expect(slices.length, unit).toBe(recs.length);
      expect(recs.length, unit).toBeGreaterThan(0);
      slices.forEach((e, k) => {
        const x = recs[k];
        expect(e.name).toBe(x.command.split(' ')[0]);
        expect(e.args).toMatchObject({ serial: x.serial, command: x.command, push: x.pushClock, start: x.startClock, end: x.endClock,
          queueWait: x.startClock - x.pushClock, busy: x.endClock - x.startClock + 1, ...commandArgs(x.command).fields });
        expect(e.ts).toBeCloseTo(x.startClock / 12, 5);
        expect(e.dur).toBeCloseTo((x.endClock + 1 - x.startClock) / 12, 5);
      });
      // Busy time on the track is the unit's busy clocks (whole run: tpu.whole).
      const busy = slices.reduce((s, e) => s + (e.args!.busy as number), 0);
      expect(busy).toBe(m.tpu.whole.busy[UNIT_NAMES.indexOf(unit)]);
    }

    // CPU: contiguous slices from clock 0 to the end, per function; a slice per change of function.
    const cpu = events.filter((e) => e.ph === 'X' && e.tid === TID.CPU);
    let at = 0;
    for (const e of cpu) {
      expect(e.args!.from).toBe(at);
      at = e.args!.to as number;
    }
    expect(at).toBe(r.clocks);
    for (let k = 1; k < cpu.length; k++) expect(cpu[k].name).not.toBe(cpu[k - 1].name);
    // The clocks before the first instruction's launch (docs/hardware.md §1.2).
    expect(cpu[0]).toMatchObject({ name: '<reset>', ts: 0, args: { from: 0, to: FIRST_LAUNCH_CLOCK } });
    expect(cpu.some((e) => e.name === 'main')).toBe(true);
    // The CPU slices' clocks per function are the profile's clocks outside a window: check the window's share.
    const inWindow = new Map<string, number>();
    for (const e of cpu) {
      const a = Math.max(e.args!.from as number, profile.from), b = Math.min(e.args!.to as number, profile.to);
      if (a < b) inWindow.set(e.name, (inWindow.get(e.name) ?? 0) + b - a);
    }
    expect(inWindow).toEqual(new Map(profile.functions.filter((f) => f.clocks > 0).map((f) => [f.name, f.clocks])));

    // PERF_CTRL: the window, as long as the report's clocks.
    const perf = events.filter((e) => e.ph === 'X' && e.tid === TID.PERF);
    expect(perf).toHaveLength(1);
    expect(perf[0].args).toMatchObject({ from: profile.from, to: profile.to, clocks: r.counters.cycles });
  });

  it('the PERF_CTRL slice spans the clocks the TPU counted, with and without a dual-ported register file', () => {
    for (const dual of [true, false]) {
      const cfg = defaultConfig();
      cfg.cpu.ENABLE_REGS_DUALPORT = dual;
      const { r, events, perfWrites } = timelineRun('tpu_tokens', 10_000_000, 30_000_000, cfg);
      const want = lastWindow(perfWrites, r.clocks)!;
      const perf = events.filter((e) => e.ph === 'X' && e.tid === TID.PERF);
      expect(perf, `dual port ${dual}`).toHaveLength(1);
      expect(perf[0].args, `dual port ${dual}`).toMatchObject({ from: want.from, to: want.to, clocks: r.counters.cycles });
    }
  });

  it('tpu_queue_full: a stall slice per stalled PUSH; tpu_errors: an instant event per dropped command', () => {
    const q = timelineRun('tpu_queue_full');
    const stalls = q.events.filter((e) => e.tid === TID.STALL && e.ph === 'X');
    expect(stalls.map((e) => [e.args!.from, e.args!.to])).toEqual(q.m.tpu.stallRecords!.map((s) => [s.from, s.to]));
    expect(stalls.length).toBeGreaterThan(0);
    expectOrderedTracks(q.events);

    const x = timelineRun('tpu_errors');
    expectOrderedTracks(x.events);
    const drops = x.events.filter((e) => e.ph === 'i' && e.cat === 'tpu-error');
    expect(drops).toHaveLength(x.r.tpuErrors.length);
    for (const unit of UNIT_NAMES) {
      const got = drops.filter((e) => e.tid === TID[unit]).map((e) => [e.args!.serial, e.args!.error, e.args!.clock]);
      const want = x.r.tpuErrors.filter((e) => e.unit === unit).map((e) => [e.serial, e.codeName, e.clock]);
      expect(got, unit).toEqual(want);
    }
  });

  it('--trace-limit: at most that many events, still a valid JSON array, ending with a marker', () => {
    const { events, w, warnings } = timelineRun('tpu_matmul', 100);
    expect(w.truncated).toBe(true);
    const counted = events.filter((e) => e.ph !== 'M' && e.s !== 'g');
    expect(counted).toHaveLength(100);
    expect(events[events.length - 1]).toMatchObject({ ph: 'i', s: 'g', name: 'trace limit of 100 events reached' });
    expect(warnings[0]).toMatch(/--timeline: the trace limit of 100 events was reached/);
    expectOrderedTracks(events);
  });

  it('a cycle limit mid-command: the running command is a slice up to the stop, marked in flight', () => {
    const first = firstDma(elfPath('tpu_matmul'));
    const { events, r } = timelineRun('tpu_matmul', 10_000_000, first.stopClock);
    expect(r.reason).toBe('cycle-limit');
    expectStopInside(first, r.clocks);
    const dma = events.filter((e) => e.ph === 'X' && e.tid === TID.DMA);
    expect(dma.length).toBe(1);
    expect(dma[0].args).toMatchObject({
      inFlight: true, serial: first.record.serial, push: first.record.pushClock, start: first.record.startClock, end: r.clocks - 1,
    });
  });

  it('picotpu run --timeline writes the file with the other outputs', () => {
    const path = join(tmp, 'cli.json');
    const res = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', elfPath('tpu_errors'), '--timeline', path, '--no-report'],
      { encoding: 'utf8' });
    expect(res.status).toBe(0);
    const events = JSON.parse(readFileSync(path, 'utf8')) as TraceEvent[];
    expect(events.filter((e) => e.tid === TID.CPU && e.ph === 'X').length).toBeGreaterThan(10);
  });
});

describe('the observers with the command sequencer (hardware.md §5.11)', () => {
  it('tpu_seq: a SEQ track with a slice per RUN and its drops, VCD seq.busy per RUN and FIFO depths never below 0, the profiler\'s RUNs', () => {
    const cfg = defaultConfig();
    cfg.tpu.sequencer = 1;
    const m = new Machine(cfg);
    m.loadElf(readFileSync(elfPath('tpu_seq')));
    m.bus.console.captureOutput();
    const path = join(tmp, 'tpu_seq.json'), vcdPath = join(tmp, 'tpu_seq.vcd');
    const profiler = new Profiler(m);
    m.tpu.records = [];
    const r = runObserved(m, 30_000_000, [new TimelineWriter(m, { path, limit: 10_000_000 }), new VcdWriter(m, { path: vcdPath, limit: 10_000_000 }), profiler, new KeepRecords()]);
    expect(r.exit).toBe(0);
    const events = JSON.parse(readFileSync(path, 'utf8')) as TraceEvent[];
    const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [e.tid, (e.args as { name: string }).name]));
    expect(threads.get(TID.SEQ)).toBe('SEQ');
    expectOrderedTracks(events);
    const runs = events.filter((e) => e.tid === TID.SEQ && e.ph === 'X'), drops = events.filter((e) => e.tid === TID.SEQ && e.ph === 'i');
    const seqErrors = m.tpu.errors.filter((e) => e.unit === 'SEQ' && e.codeName !== 'BAD_ENTRY').length;
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.length + seqErrors).toBe(m.tpu.seq!.done);
    expect(drops.length).toBe(m.tpu.errors.filter((e) => e.unit === 'SEQ').length);
    // A RUN's slice: from its start to its last push (COUNT + 1 clocks with no full queue).
    for (const e of runs) expect(Math.round(e.dur! * 12)).toBe((e.args!.end as number) - (e.args!.start as number) + 1);
    const vcd = readFileSync(vcdPath, 'utf8');
    const code = /\$var wire 1 (\S+) busy \$end\n\$upscope \$end\n\$upscope/.exec(vcd.slice(vcd.indexOf('$scope module seq')))![1];
    const busyChanges = vcd.split('\n').filter((l) => l === `1${code}` || l === `0${code}`);
    expect(busyChanges.length).toBeGreaterThanOrEqual(1 + 2 * (runs.length > 0 ? 1 : 0));
    expect(vcd.split('\n').filter((l) => /^b1{31}[01] [$%&]$/.test(l))).toEqual([]); // no negative depth
    // The profile covers tpu_seq's PERF_CTRL window: the RUNs that start in it.
    const p = profiler.profile!, inWindow = runs.filter((e) => (e.args!.start as number) >= p.from && (e.args!.start as number) < p.to);
    expect(inWindow.length).toBeGreaterThan(0);
    expect(p.sequencer!.runs).toBe(inWindow.length);
  });
});
