// The profiler (emu/observe/profiler.ts, `picotpu run --profile`): its totals are the
// performance report's figures exactly (run clocks, no-unit-busy, stall, busy
// per unit), over the whole run or the PERF_CTRL window as the report is; and
// per function, clocks, idle and stall are what a clock-by-clock recount from
// the instruction trace and the TPU's command records gives.

import { spawnSync } from 'node:child_process';
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
import { Profiler, type Profile } from '../emu/observe/profiler.ts';
import type { StepInfo } from '../emu/stepper.ts';
import { FIRST_LAUNCH_CLOCK } from '../emu/timing.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { lastWindow, watchPerfCtrl, type PerfWrite } from './helpers/perf-writes.ts';
import { expectStopInside, firstDma } from './helpers/first-dma.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const elfPath = (name: string): string => join(root, 'build', 'fw', `${name}.elf`);
const MAX_CYCLES = 30_000_000;
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-profile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Keeps every instruction's pc and clocks (for the recount). */
class Trace implements RunObserver {
  pc: number[] = [];
  from: number[] = [];
  to: number[] = [];
  step(info: StepInfo): void {
    this.pc.push(info.pc);
    this.from.push(info.clockBefore);
    this.to.push(info.clockAfter);
  }
  finish(): void {}
}

function profileRun(name: string, trace = false, cfg: PlatformConfig = defaultConfig()): { m: Machine; r: RunResult; p: Profile; profiler: Profiler; t: Trace; perf: PerfWrite[] } {
  const m = new Machine(cfg);
  m.loadElf(readFileSync(elfPath(name)));
  m.bus.console.captureOutput();
  const perf = watchPerfCtrl(m);
  const profiler = new Profiler(m);
  const t = new Trace();
  m.tpu.records = [];
  // The profile must come out the same when runObserved empties the records as it goes (tpubench: many times).
  const r = runObserved(m, MAX_CYCLES, trace ? [profiler, t, new KeepRecords()] : [profiler, new KeepRecords()]);
  expect(r.reason).toBe('exit');
  expect(r.exit).toBe(0);
  return { m, r, p: profiler.profile!, profiler, t, perf };
}

/** The identities the profile promises. */
function expectTotalsMatch(p: Profile, c: CounterSnapshot): void {
  const sum = (k: 'clocks' | 'idle' | 'stall') => p.functions.reduce((s, f) => s + f[k], 0);
  expect(sum('clocks')).toBe(c.cycles);
  expect(p.to - p.from).toBe(c.cycles);
  expect(sum('idle')).toBe(c.idle);
  expect(sum('stall')).toBe(c.stall);
  expect(p.totals).toEqual({ clocks: c.cycles, idle: c.idle, stall: c.stall, busy: { DMA: c.dmaBusy, MXU: c.mxuBusy, VPU: c.vpuBusy } });
  const busy = Object.fromEntries(p.units.map((u) => [u.unit, u.busy]));
  expect(busy).toEqual({ DMA: c.dmaBusy, MXU: c.mxuBusy, VPU: c.vpuBusy });
  const pct = p.functions.reduce((s, f) => s + f.percent, 0);
  expect(pct).toBeCloseTo(100, 6);
}

/** Clock-by-clock recount of clocks, idle and stall per function name from the trace and the records. */
function recount(m: Machine, r: RunResult, t: Trace, profiler: Profiler, from: number, to: number) {
  const busy = new Uint8Array(r.clocks);
  for (const rec of m.tpu.records!) busy.fill(1, rec.startClock, rec.endClock + 1);
  for (const u of m.tpu.units) if (u.running) busy.fill(1, u.runningStart, r.clocks);
  const names = profiler.functions.names;
  const out = new Map<string, { clocks: number; idle: number; stall: number }>();
  const row = (n: string) => {
    let x = out.get(n);
    if (!x) out.set(n, (x = { clocks: 0, idle: 0, stall: 0 }));
    return x;
  };
  const addSpan = (n: string, a: number, b: number) => {
    for (let c = Math.max(a, from); c < Math.min(b, to); c++) {
      row(n).clocks++;
      if (!busy[c]) row(n).idle++;
    }
  };
  addSpan('<reset>', 0, t.from[0]);
  for (let i = 0; i < t.pc.length; i++) addSpan(names[profiler.functions.id(t.pc[i])], t.from[i], Math.min(t.to[i], r.clocks));
  for (const s of m.tpu.stallRecords!) {
    if (s.from < from || s.from >= to) continue;
    // The store whose clocks hold the stall.
    let i = 0;
    while (!(t.from[i] <= s.from && s.from < t.to[i])) i++;
    row(names[profiler.functions.id(t.pc[i])]).stall += s.to - s.from;
  }
  for (const [k, v] of out) if (v.clocks === 0 && v.stall === 0) out.delete(k);
  return out;
}

const byName = (p: Profile) => new Map(p.functions.map((f) => [f.name, f]));

describe('profiler', () => {
  it('tpu_matmul (whole run): totals are the report\'s, <reset> holds the clocks before the first launch', () => {
    const { r, p } = profileRun('tpu_matmul');
    expect(r.perfWindow).toBe(false);
    expect(p.scope).toBe('whole run');
    expect(p.from).toBe(0);
    expect(p.to).toBe(r.clocks);
    expectTotalsMatch(p, r.counters);
    const f = byName(p);
    // The first instruction launches at FIRST_LAUNCH_CLOCK (docs/hardware.md §1.2): clocks 0, 1, 2.
    expect(FIRST_LAUNCH_CLOCK).toBe(3);
    expect(f.get('<reset>')).toMatchObject({ clocks: FIRST_LAUNCH_CLOCK, idle: FIRST_LAUNCH_CLOCK, stall: 0, instructions: 0 });
    for (const n of ['_start', 'main', 'mm', 'check4', 'check32', 'dma_2d.isra.0', 'printf']) expect(f.has(n), n).toBe(true);
    // The firmware prints "59 matmuls": mm is called once per matmul, main once by _start.
    expect(f.get('mm')!.calls).toBe(59);
    expect(f.get('main')!.calls).toBe(1);
    expect(p.units.find((u) => u.unit === 'MXU')).toMatchObject({ commands: 59, inFlight: 0, dropped: 0 });
    expect(p.units.find((u) => u.unit === 'DMA')!.commands).toBe(20);
    const instrs = p.functions.reduce((s, x) => s + x.instructions, 0);
    expect(instrs).toBe(r.instret);
  });

  it('tpubench (PERF_CTRL window): totals are the report\'s window figures', () => {
    const { m, r, p } = profileRun('tpubench');
    expect(r.perfWindow).toBe(true);
    expect(p.scope).toBe('PERF_CTRL window');
    expect(p.to - p.from).toBeLessThan(r.clocks);
    expectTotalsMatch(p, r.counters);
    // Everything in the window runs in main (the TPU helpers are inline); the stalls are its PUSHes.
    const main = byName(p).get('main')!;
    expect(main.clocks).toBe(r.counters.cycles);
    expect(main.stall).toBe(r.counters.stall);
    expect(byName(p).has('<reset>')).toBe(false);
    const units = Object.fromEntries(p.units.map((u) => [u.unit, u]));
    expect(units.DMA.commands).toBe(60000);
    expect(units.MXU.commands).toBe(20000);
    // Mean wait in queue, recomputed from the records.
    for (const u of ['DMA', 'MXU'] as const) {
      const recs = m.tpu.records!.filter((x) => x.unit === u && x.startClock >= p.from && x.startClock < p.to);
      expect(recs.length).toBe(units[u].commands);
      expect(units[u].meanQueueWait).toBeCloseTo(recs.reduce((s, x) => s + x.startClock - x.pushClock, 0) / recs.length, 9);
    }
  });

  it('per function, clocks, idle and stall match a clock-by-clock recount (tpu_queue_full, windowed, stalls)', () => {
    const { m, r, p, profiler, t } = profileRun('tpu_queue_full', true);
    expectTotalsMatch(p, r.counters);
    expect(r.counters.stall).toBeGreaterThan(0);
    const ref = recount(m, r, t, profiler, p.from, p.to);
    const got = new Map(p.functions.filter((f) => f.clocks || f.stall).map((f) => [f.name, { clocks: f.clocks, idle: f.idle, stall: f.stall }]));
    expect(got).toEqual(ref);
  });

  it('the window is the TPU\'s: it opens and closes where PERF_CTRL writes reach the TPU, with and without a dual-ported register file', () => {
    for (const dual of [true, false]) {
      const cfg = defaultConfig();
      cfg.cpu.ENABLE_REGS_DUALPORT = dual;
      const { m, r, p, profiler, t, perf } = profileRun('tpu_queue_full', true, cfg);
      const w = lastWindow(perf, r.clocks)!;
      expect(w, `dual port ${dual}`).not.toBeNull();
      expect([p.from, p.to], `dual port ${dual}`).toEqual([w.from, w.to]);
      expectTotalsMatch(p, r.counters);
      // Each write is the data handshake of a store: its launch + 4, + 5 without dual port (docs/hardware.md §1.2).
      for (const x of perf) {
        const i = t.from.findIndex((from, k) => from <= x.clock && x.clock < t.to[k]);
        expect(x.clock - t.from[i], `dual port ${dual}, write at ${x.clock}`).toBe(dual ? 4 : 5);
      }
      const ref = recount(m, r, t, profiler, p.from, p.to);
      const got = new Map(p.functions.filter((f) => f.clocks || f.stall).map((f) => [f.name, { clocks: f.clocks, idle: f.idle, stall: f.stall }]));
      expect(got).toEqual(ref);
    }
  });

  it('per function recount and dropped commands (tpu_errors, whole run)', () => {
    const { m, r, p, profiler, t } = profileRun('tpu_errors', true);
    expectTotalsMatch(p, r.counters);
    const ref = recount(m, r, t, profiler, 0, r.clocks);
    const got = new Map(p.functions.filter((f) => f.clocks || f.stall).map((f) => [f.name, { clocks: f.clocks, idle: f.idle, stall: f.stall }]));
    expect(got).toEqual(ref);
    for (const u of p.units) expect(u.dropped, u.unit).toBe(r.tpuErrors.filter((e) => e.unit === u.unit).length);
    expect(p.units.reduce((s, u) => s + u.dropped, 0)).toBeGreaterThan(0);
  });

  it('a cycle limit mid-run: totals still match, commands in flight are counted busy', () => {
    const m = new Machine(defaultConfig());
    m.loadElf(readFileSync(elfPath('tpu_matmul')));
    m.bus.console.captureOutput();
    const profiler = new Profiler(m);
    m.tpu.records = [];
    // Stop inside the first DMA command, where a full run's records place it.
    const first = firstDma(elfPath('tpu_matmul'));
    const r = runObserved(m, first.stopClock, [profiler]);
    expect(r.reason).toBe('cycle-limit');
    expectStopInside(first, r.clocks);
    const p = profiler.profile!;
    expectTotalsMatch(p, r.counters);
    expect(p.units.find((u) => u.unit === 'DMA')!.inFlight).toBe(1);
  });

  it('picotpu run --profile prints the table after the report; --profile-json matches --report-json', () => {
    const json = join(tmp, 'matmul.profile.json'), report = join(tmp, 'matmul.report.json');
    const res = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', elfPath('tpu_matmul'),
      '--profile', '--profile-json', json, '--report-json', report], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    const lines = res.stderr.split('\n');
    const reportEnd = lines.findIndex((l) => l.startsWith('two or more units busy'));
    const profileStart = lines.findIndex((l) => l.startsWith('profile (whole run'));
    expect(reportEnd).toBeGreaterThanOrEqual(0);
    expect(profileStart).toBe(reportEnd + 1);
    expect(lines.some((l) => /^main\s+\d+\s+[\d.]+%/.test(l))).toBe(true);
    const p = JSON.parse(readFileSync(json, 'utf8')) as Profile;
    const c = (JSON.parse(readFileSync(report, 'utf8')) as { counters: CounterSnapshot }).counters;
    expectTotalsMatch(p, c);
    const total = lines.find((l) => l.startsWith('total '))!.trim().split(/\s+/);
    expect(Number(total[1])).toBe(c.cycles);
    expect(Number(total[3])).toBe(c.idle);
    expect(Number(total[4])).toBe(c.stall);
  });

  it('an unwritable --profile-json is a command-line error (exit 165) before the run', () => {
    const res = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', elfPath('tpu_errors'),
      '--profile-json', join(tmp, 'no', 'such', 'dir', 'p.json')], { encoding: 'utf8' });
    expect(res.status).toBe(165);
    expect(res.stderr).toMatch(/cannot write --profile-json .*ENOENT/);
    expect(res.stdout).toBe('');
  });
});

describe('profiler: a misaligned store to PERF_CTRL', () => {
  it('still writes the aligned word (docs/hardware.md §1.1): the window opens, and it ends at the trap', () => {
    const m = new Machine(defaultConfig());
    m.loadElf(assemble('  .text\n  .globl _start\n_start:\n  li t0, 0x20000009\n  li t1, 1\nfault:\n  sw t1, 0(t0)\n  li a0, 6\n'));
    const perf = watchPerfCtrl(m);
    const profiler = new Profiler(m);
    m.tpu.records = [];
    const r = runObserved(m, MAX_CYCLES, [profiler]);
    expect(r.reason).toBe('trap');
    expect(r.trap!.kind).toBe('misaligned store');
    // lui + addi + addi at 3 clocks each from FIRST_LAUNCH_CLOCK; the store's write reaches the TPU
    // 4 clocks after its launch, and the trap goes high 5 clocks after it (docs/hardware.md §1.1, §1.2).
    const launch = FIRST_LAUNCH_CLOCK + 9;
    expect(perf).toEqual([{ clock: launch + 4, on: true }]);
    expect(r.clocks).toBe(launch + 5);
    expect(r.perfWindow).toBe(true);
    const p = profiler.profile!;
    expect([p.scope, p.from, p.to]).toEqual(['PERF_CTRL window', launch + 4, launch + 5]);
    expectTotalsMatch(p, r.counters);
    // The clock belongs to the store (at label fault), launched before the window opened.
    expect(p.functions.map((f) => [f.name, f.clocks, f.instructions])).toEqual([['fault', 1, 0]]);
  });
});
