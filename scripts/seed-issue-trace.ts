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
import type { SeedIo } from '../model/seed-ring.ts';
import { runOnSeed } from '../model/seed-run.ts';

/** The retired-count and queue-level registers (regs.ts: RETIRED(u) = 0x44 + 16 u, LEVEL(u) = 0x48 + 16 u), by unit. */
const reg = (what: string) => [board.SEED_MXU, board.SEED_VPU, board.SEED_DMA].map((u) => {
  const name = ['MXU', 'VPU', 'DMA'][u];
  return board.SEED_REGS.find((r) => r.name === `${name}_${what}`)!.offset;
});
const RETIRED = reg('RETIRED'), LEVEL = reg('LEVEL');

if (walk.SEED_MXU !== board.SEED_MXU || walk.SEED_VPU !== board.SEED_VPU || walk.SEED_DMA !== board.SEED_DMA) {
  throw new Error("seed-issue-trace: model/seed-analytic.ts numbers the units otherwise than the board's regs.ts");
}

/** A trace entry: a commit store (its clock and the clocks it was held) or a read of a unit's RETIRED or LEVEL (its value). */
export interface Access { commit: boolean; unit: number; clock: number; stall: number; reg?: 'retired' | 'level'; value?: number }

export interface SeedTrace {
  trace: Access[];
  windowStart: number;
  run: number;
  /** The prefill window's run clocks (null without decode steps: runOnSeed splits runs of two tokens or more). */
  prefill: number | null;
  generated: number;
}

/** Runs `job` on the reference models with the commit stores and the RETIRED and LEVEL reads logged. */
export function traceSeedJob(model: Model, job: Job): SeedTrace {
  const trace: Access[] = [];
  let windowStart = 0;
  const r = runOnSeed(model, job, {
    reference: true, splitPrefill: true,
    onMachine: (m) => {
      const dev = m.devices as unknown as TransformerTpuInt4Devices;
      const tpu = dev.tpu, read = tpu.read.bind(tpu), readWithPromise = tpu.readWithPromise.bind(tpu), write = tpu.write.bind(tpu), pulse = tpu.runPulse.bind(tpu);
      tpu.runPulse = (clock) => { windowStart = clock; pulse(clock); };
      const logRead = (offset: number, clock: number, value: number) => {
        const o = offset & 0xffc;
        const retired = RETIRED.indexOf(o), level = LEVEL.indexOf(o);
        if (retired >= 0) trace.push({ commit: false, unit: retired, clock, stall: 0, reg: 'retired', value: value >>> 0 });
        else if (level >= 0) trace.push({ commit: false, unit: level, clock, stall: 0, reg: 'level', value: value >>> 0 });
        return value;
      };
      // The bus reads the MMIO words through readWithPromise() (an aliased address through read()).
      tpu.read = (offset, clock) => logRead(offset, clock, read(offset, clock));
      tpu.readWithPromise = (offset, clock, out) => logRead(offset, clock, readWithPromise(offset, clock, out));
      // On the reference models every commit store reaches the TPU's write() (no CPU kernel window):
      // word 3 of a command port (cpu_subsys.sv: offset[11:8] = 0, offset[7:4] <= 2), held extraWait() clocks.
      tpu.write = (offset, value, wstrb, clock) => {
        write(offset, value, wstrb, clock);
        const o = offset & 0xffc;
        if (o < 0x30 && ((o >> 2) & 3) === 3) trace.push({ commit: true, unit: o >> 4, clock, stall: tpu.extraWait() });
      };
    },
  });
  const c = r.result.seedCounters!;
  return { trace, windowStart, run: c.run, prefill: r.windows.length ? r.windows[0].cycles : null, generated: r.generated };
}

/** A wait_until whose reads are not yet matched: they end where the next event shows. */
interface PendingWait { unit: number; site: string; counts: number[]; index: number }

/**
 * The walk's events matched with the trace as they come (chained.c's reads take their values from it, so its
 * pump's choices are the run's): every commit store's unit, every read's unit and register; the clocks of
 * each path between two events ("from>to" by site, with the loop counts on it) go to `path`, every poll
 * loop's period of model.c's wait_until to `gap`.
 */
class Replay implements SeedSink, SeedIo {
  readonly io: SeedIo = this;
  private at = 0;
  private cpuClock: number;
  private from = 'start';
  private counts: number[] = [];
  private pending: PendingWait | null = null;
  private readonly marks: { what: 'prefill' | 'done'; tag: string; counts: number[] }[] = [];
  private event = 0;
  private readonly pushed = [0, 0, 0];

  constructor(private readonly t: SeedTrace, private readonly where: string,
    private readonly path: (path: string, clocks: number, counts: number[], clock?: number) => void, private readonly gap: (site: string, clocks: number) => void) {
    this.cpuClock = t.windowStart;
  }

  private take(): number[] { const c = this.counts; this.counts = []; return c; }

  private fail(what: string): never {
    const a = this.t.trace[this.at];
    throw new Error(`${this.where}: event ${this.event} (${what}) is not the trace's (${a ? `${a.commit ? 'commit' : `read ${a.reg}`} unit ${a.unit} at ${a.clock}` : 'end'})`);
  }

  /** Ends the pending wait's reads: the same unit's RETIRED reads up to the next commit or other read; a read of the same unit next takes the last. */
  private settle(nextReadOf: number): void {
    const w = this.pending;
    if (!w) return;
    this.pending = null;
    const trace = this.t.trace;
    let end = this.at;
    const ours = (a: Access) => !a.commit && a.unit === w.unit && a.reg === 'retired';
    while (end < trace.length && ours(trace[end])) end++;
    if (nextReadOf === w.unit) end--;
    if (end <= this.at) this.fail(`wait ${w.site}, unit ${w.unit}: no reads`);
    this.path(`${this.from}>${w.site}`, trace[this.at].clock - this.cpuClock, w.counts);
    for (let i = this.at + 1; i < end; i++) this.gap(w.site, trace[i].clock - trace[i - 1].clock);
    this.cpuClock = trace[end - 1].clock;
    this.at = end;
    this.from = w.site;
    // The marks after the wait: their paths end where its reads did.
    for (const m of this.marks.splice(0)) this.markNow(m.what, m.tag, m.counts);
  }

  pass(): void {}

  command(unit: number, _busy: number, site: string): void {
    this.settle(-1);
    this.event++;
    const a = this.t.trace[this.at];
    if (!a || !a.commit || a.unit !== unit) this.fail(`command ${site}, unit ${unit}`);
    this.path(`${this.from}>${site}`, a.clock - this.cpuClock, this.take(), a.clock - this.t.windowStart);
    this.cpuClock = a.clock + a.stall;
    this.at++;
    this.pushed[unit]++;
    this.from = site;
  }

  commit(unit: number, busy: number, site: string, as?: string): void {
    this.command(unit, busy, site);
    if (as !== undefined) this.from = as;
  }

  issued(unit: number): number { return this.pushed[unit]; }

  resume(site: string): void { this.from = site; }

  read(reg: 'retired' | 'level', unit: number, site: string, as?: string): number {
    this.settle(reg === 'retired' ? unit : -1);
    this.event++;
    const a = this.t.trace[this.at];
    if (!a || a.commit || a.unit !== unit || a.reg !== reg) this.fail(`read ${reg} ${site}, unit ${unit}`);
    this.path(`${this.from}>${site}`, a.clock - this.cpuClock, this.take(), a.clock - this.t.windowStart);
    this.cpuClock = a.clock;
    this.at++;
    this.from = as ?? site;
    return a.value!;
  }

  wait(unit: number, _left: number, site: string): void {
    this.settle(unit);
    this.event++;
    this.pending = { unit, site, counts: this.take(), index: this.event };
  }

  cpu(_site: string, counts: readonly number[]): void { this.counts.push(...counts); }

  /** A mark after a wait waits for it: the next event tells where the wait's reads end. */
  mark(what: 'prefill' | 'done', tag = ''): void {
    if (this.pending) this.marks.push({ what, tag, counts: this.take() });
    else this.markNow(what, tag, this.take());
  }

  private markNow(what: 'prefill' | 'done', tag: string, counts: number[]): void {
    const key = `${this.from}>${what}`;
    if (what === 'done') this.path(key, this.t.run - (this.cpuClock - this.t.windowStart), counts);
    else if (this.t.prefill !== null) this.path(key, this.t.prefill - (this.cpuClock - this.t.windowStart), counts);
    if (what === 'prefill') this.from = `${this.from}+prefill${tag}`;
  }

  finish(): void {
    this.settle(-1);
    if (this.at !== this.t.trace.length) throw new Error(`${this.where}: ${this.t.trace.length - this.at} trace entries past the walk's events`);
  }
}

/**
 * Matches the trace with the walk of the same job (throws where they part) and tells `path` the clocks of every
 * path between two events ("from>to" by site, with the loop counts on it) and `gap` every poll loop's period seen.
 * Clocks run from the last event: a commit's landing (its clock + the clocks it was held), a wait's last read.
 */
export function alignSeedTrace(model: Model, promptLen: number, variant: number, t: SeedTrace,
  path: (path: string, clocks: number, counts: number[], clock?: number) => void = () => {}, gap: (site: string, clocks: number) => void = () => {}, decodeSteps = t.generated - 1): void {
  const r = new Replay(t, `d ${model.dims.d} prompt ${promptLen}, ${t.generated} tokens, variant ${variant}`, path, gap);
  walkSeedJob(model.dims, model.layers, promptLen, t.generated, variant, r, decodeSteps);
  r.finish();
}
