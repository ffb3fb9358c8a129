// The trace the seed board's issue costs are counted on (scripts/calibrate-seed-issue.ts)
// and the walk is checked against (test/seed-schedule.test.ts): a model job run on the
// reference models with every commit store (its clock and the clocks it was held) and
// every read of a unit's retired count logged, then matched event by event with
// model/seed-analytic.ts's walk of the same job, which must push the same commands to
// the same units in the same order and poll where the firmware polls.

import type { TransformerTpuInt4Devices } from '../boards/transformer-tpu-int4/board.ts';
import * as board from '../boards/transformer-tpu-int4/regs.ts';
import type { Job, Model } from '../model/format.ts';
import * as walk from '../model/seed-analytic.ts';
import { walkSeedJob, type SeedSink } from '../model/seed-analytic.ts';
import { runOnSeed } from '../model/seed-run.ts';

/** The retired-count registers (regs.ts: RETIRED(u) = 0x44 + 16 u), by unit. */
const RETIRED = [board.SEED_MXU, board.SEED_VPU, board.SEED_DMA].map((u) => {
  const name = ['MXU', 'VPU', 'DMA'][u];
  return board.SEED_REGS.find((r) => r.name === `${name}_RETIRED`)!.offset;
});

if (walk.SEED_MXU !== board.SEED_MXU || walk.SEED_VPU !== board.SEED_VPU || walk.SEED_DMA !== board.SEED_DMA) {
  throw new Error("seed-issue-trace: model/seed-analytic.ts numbers the units otherwise than the board's regs.ts");
}

/** A trace entry: a commit store (its clock and the clocks it was held) or a read of a unit's retired count. */
export interface Access { commit: boolean; unit: number; clock: number; stall: number }

export interface SeedTrace {
  trace: Access[];
  windowStart: number;
  run: number;
  /** The prefill window's run clocks (null without decode steps: runOnSeed splits runs of two tokens or more). */
  prefill: number | null;
  generated: number;
}

/** Runs `job` on the reference models with the commit stores and the retired-count reads logged. */
export function traceSeedJob(model: Model, job: Job): SeedTrace {
  const trace: Access[] = [];
  let windowStart = 0;
  const r = runOnSeed(model, job, {
    reference: true, splitPrefill: true,
    onMachine: (m) => {
      const dev = m.devices as unknown as TransformerTpuInt4Devices;
      const tpu = dev.tpu, read = tpu.read.bind(tpu), pulse = tpu.runPulse.bind(tpu), commit = dev.bus.onCommit;
      tpu.runPulse = (clock) => { windowStart = clock; pulse(clock); };
      tpu.read = (offset, clock) => {
        const o = offset & 0xffc;
        const unit = RETIRED.indexOf(o);
        if (unit >= 0) trace.push({ commit: false, unit, clock, stall: 0 });
        return read(offset, clock);
      };
      dev.bus.onCommit = (unit, opcode, clock, stall) => { trace.push({ commit: true, unit, clock, stall }); commit?.(unit, opcode, clock, stall); };
    },
  });
  const c = r.result.seedCounters!;
  return { trace, windowStart, run: c.run, prefill: r.windows.length ? r.windows[0].cycles : null, generated: r.generated };
}

/** The events of a walk, in order, with the loop counts of the CPU work before each. */
type Ev = { kind: 'command' | 'wait'; unit: number; site: string; counts: number[] } | { kind: 'mark'; what: 'prefill' | 'done'; unit: -1; site: string; counts: number[] };
class Recorder implements SeedSink {
  events: Ev[] = [];
  private counts: number[] = [];
  pass(): void {}
  command(unit: number, _busy: number, site: string): void { this.events.push({ kind: 'command', unit, site, counts: this.take() }); }
  wait(unit: number, _left: number, site: string): void { this.events.push({ kind: 'wait', unit, site, counts: this.take() }); }
  cpu(_site: string, counts: readonly number[]): void { this.counts.push(...counts); }
  mark(what: 'prefill' | 'done'): void { this.events.push({ kind: 'mark', what, unit: -1, site: what, counts: this.take() }); }
  private take(): number[] { const c = this.counts; this.counts = []; return c; }
}

/**
 * Matches the trace with the walk of the same job (throws where they part) and tells `path` the clocks of every
 * path between two events ("from>to" by site, with the loop counts on it) and `gap` every poll loop's period seen.
 * Clocks run from the last event: a commit's landing (its clock + the clocks it was held), a wait's last read.
 */
export function alignSeedTrace(model: Model, promptLen: number, variant: number, t: SeedTrace,
  path: (path: string, clocks: number, counts: number[]) => void = () => {}, gap: (site: string, clocks: number) => void = () => {}): void {
  const rec = new Recorder();
  walkSeedJob(model.dims, model.layers, promptLen, t.generated, variant, rec);
  const evs = rec.events, trace = t.trace;
  let at = 0, cpu = t.windowStart, from = 'start';
  const where = () => `d ${model.dims.d} prompt ${promptLen}, ${t.generated} tokens, variant ${variant}`;
  for (let e = 0; e < evs.length; e++) {
    const ev = evs[e];
    const key = `${from}>${ev.site}`;
    if (ev.kind === 'mark') {
      if (ev.what === 'done') path(key, t.run - (cpu - t.windowStart), ev.counts);
      else if (t.prefill !== null) path(key, t.prefill - (cpu - t.windowStart), ev.counts);
      if (ev.what === 'prefill') from = `${from}+prefill`;
      continue;
    }
    const a = trace[at];
    if (!a || a.commit !== (ev.kind === 'command') || a.unit !== ev.unit) {
      throw new Error(`${where()}: event ${e} (${ev.kind} ${ev.site}, unit ${ev.unit}) is not the trace's (${a ? `${a.commit ? 'commit' : 'read'} unit ${a.unit} at ${a.clock}` : 'end'})`);
    }
    path(key, a.clock - cpu, ev.counts);
    if (ev.kind === 'command') {
      cpu = a.clock + a.stall;
      at++;
    } else {
      // The reads of this wait: the same unit's, up to the next commit or another unit's read; a wait of the
      // same unit right after it (no command between) takes the last one.
      let end = at;
      while (end < trace.length && !trace[end].commit && trace[end].unit === ev.unit) end++;
      const next = evs.slice(e + 1).find((x) => x.kind !== 'mark');
      if (next && next.kind === 'wait' && next.unit === ev.unit) end--;
      if (end <= at) throw new Error(`${where()}: wait ${ev.site} has no reads`);
      for (let i = at + 1; i < end; i++) gap(ev.site, trace[i].clock - trace[i - 1].clock);
      cpu = trace[end - 1].clock;
      at = end;
    }
    from = ev.site;
  }
  if (at !== trace.length) throw new Error(`${where()}: ${trace.length - at} trace entries past the walk's events`);
}
