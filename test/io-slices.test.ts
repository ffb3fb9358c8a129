// What issue #22's fixes must not change: a run in slices (cli/run-control.ts)
// has the clocks of one run, and the observers' files are the same whether the
// TPU's records are released every few commands or kept to the end
// (emu/observe/observer.ts). The reference in each case is the run without the fix.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StopReason } from '../emu/cpu.ts';
import { type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { runObserved } from '../emu/observe/observer.ts';
import { Profiler } from '../emu/observe/profiler.ts';
import { TimelineWriter } from '../emu/observe/timeline.ts';
import { TraceWriter } from '../emu/observe/trace.ts';
import { VcdWriter } from '../emu/observe/vcd.ts';
import { elfPath } from './helpers/cli-process.ts';

const tmp = mkdtempSync(join(tmpdir(), 'picotpu-slices-'));

function load(name: string, strict = false): Machine {
  const m = new Machine(undefined, { strict });
  m.loadElf(readFileSync(elfPath(name)));
  m.bus.console.captureOutput();
  return m;
}

/** The run in slices of `slice` clocks, as runSliced drives it. */
function sliced(m: Machine, slice: number, maxCycles = 1e10): RunResult {
  let reason: StopReason;
  do reason = m.advance(Math.min(maxCycles, m.cpu.cycle + slice));
  while (reason === StopReason.LIMIT && m.cpu.cycle < maxCycles && !m.tpu.fatal);
  return m.finishRun(reason);
}

const summary = (r: RunResult, m: Machine) => ({
  reason: r.reason, exit: r.exit, clocks: r.clocks, instret: r.instret, counters: r.counters, windows: r.windows,
  errors: r.tpuErrors.length, out: m.bus.console.capturedText(),
});

describe('slices and released records change nothing', () => {
  for (const [name, strict] of [['tpu_tokens', false], ['tpu_errors', true], ['tpu_queue_full', false]] as const) {
    it(`${name}${strict ? ' --strict' : ''}: slices of 997 clocks give the clocks, counters and output of one run`, () => {
      const one = load(name, strict);
      const a = one.run();
      const sl = load(name, strict);
      const b = sliced(sl, 997);
      expect(summary(b, sl)).toEqual(summary(a, one));
    });
  }

  it('tpubench (80,000 commands): trace, VCD, timeline and profile are byte for byte the same with records released every 7 or never', () => {
    const files = (window: number) => {
      const m = load('tpubench');
      const dir = mkdtempSync(join(tmp, `w${window}-`));
      const limit = 200_000;
      const prof = new Profiler(m, { jsonPath: join(dir, 'p.json') });
      const obs = [new TraceWriter(join(dir, 't'), m, 20_000), new VcdWriter(m, { path: join(dir, 'v'), limit }),
        new TimelineWriter(m, { path: join(dir, 'tl'), limit }), prof];
      m.tpu.records = [];
      const r = runObserved(m, 4_000_000, obs, window);
      const read = (f: string) => readFileSync(join(dir, f), 'utf8');
      return { r: r.clocks, t: read('t'), v: read('v').replace(/^\$date .*$/m, ''), tl: read('tl'), p: read('p.json') };
    };
    const kept = files(Number.POSITIVE_INFINITY);
    const released = files(7);
    expect(released.r).toBe(kept.r);
    for (const k of ['t', 'v', 'tl', 'p'] as const) expect(released[k] === kept[k], k).toBe(true);
  });
});
