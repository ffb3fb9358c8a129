// The schedule model of the write-up's board: predicts a model job's run
// clocks on the seed board (build/fw/seed-model.elf) by replaying the event
// stream of model/seed-analytic.ts against the board's timing
// (docs/seed-board.md §4–§5), as model/predict/schedule.ts does for picotpu:
//
// - the CPU: each event (a commit store, a wait's first status read, the
//   prefill mark, the DONE store) comes a path's clocks after the previous
//   event's — the path named by the firmware sites at its two ends, its clocks
//   a constant plus, where the firmware loops over the job's shape between
//   them (the causal mask, the header, the argmax), so many clocks per trip.
//   The clocks are counted on the emulator's trace of small calibration jobs
//   (scripts/calibrate-seed-issue.ts, model/predict/calibration/issue-terms-seed.jsonl,
//   stamped with the ELF's program hash);
// - a commit store in clock p lands at p, or, on a full queue (8 entries, the
//   running command included), in the clock after the oldest entry pops; the
//   CPU goes on from there;
// - the unit dispatches the command in the first clock after both its commit
//   and the previous command's retire, is busy from the next clock for the
//   command's busy clocks, and retires in its last busy clock (MXU, VPU) or
//   the clock after (DMA: its DONE clock is not busy) — so back-to-back
//   commands leave 1 idle clock (MXU, VPU) or 2 (DMA), GEOM retires in its
//   dispatch clock;
// - wait_until(unit, left) reads the unit's retired count every poll period
//   of its site; a read in clock r sees the commands retired before r.
// Bank conflicts are not modelled: the firmware's plan keeps the units in
// different banks (its busy clocks equal the analytic ones, test/seed-analytic.test.ts).
//
// chained.c's flows (CHAINED's decode, PIPELINED's prefill) run through the
// schedule as the firmware runs them (model/seed-ring.ts): the schedule answers
// their reads of RETIRED and LEVEL (a read in clock r sees the commands retired
// before r; LEVEL counts the rest), so the pump queues its chunks when the
// units let it. A path after a pump event that no calibration job took is
// completed from the same pump's other events (afterPump).

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { CALIBRATIONS, calibrationFile, firmwareFile, programSha256, type CalibrationHeader } from './predict/calibration.ts';
import { SEED_VARIANT, type ModelDims } from './format.ts';
import { seedModelMisfit } from './seed-fit.ts';
import { SEED_DMA, SeedBusyTally, walkSeedJob, type SeedLayerBounds, type SeedSink } from './seed-analytic.ts';
import type { SeedIo } from './seed-ring.ts';

/** The calibration table of the seed board's issue costs. */
export const SEED_TERMS_TABLE = 'issue-terms-seed' as const;
const QUEUE_DEPTH = 8;

/** A path between two events: its constant clocks and the clocks per trip of each loop count on it. */
export interface SeedPath { clocks: number; perCount: number[] }
/** The table: paths by "from>to" site, poll periods by wait site ("*": every site's, when they agree). */
export interface SeedTerms { paths: Map<string, SeedPath>; polls: Map<string, number> }

/** A path no calibration job took: no prediction. */
export class MissingSeedTermError extends Error {}

/** One table record: a path (class "path") or a poll loop's period (class "poll"). */
interface SeedRecord { class: 'path' | 'poll'; path: string; clocks: number; perCount?: number[] }

let loaded: SeedTerms | null = null;

/** The seed table, read from model/predict/calibration/issue-terms-seed.jsonl the first time it is asked for. */
export function seedTerms(): SeedTerms {
  if (!loaded) loaded = parseSeedTerms(readFileSync(calibrationFile(SEED_TERMS_TABLE), 'utf8'));
  return loaded;
}

export function parseSeedTerms(text: string): SeedTerms {
  const terms: SeedTerms = { paths: new Map(), polls: new Map() };
  const lines = text.split('\n').filter((l) => l !== '');
  for (let i = 1; i < lines.length; i++) {
    const r = JSON.parse(lines[i]) as SeedRecord;
    if (r.class === 'poll') terms.polls.set(r.path, r.clocks);
    else terms.paths.set(r.path, { clocks: r.clocks, perCount: r.perCount ?? [] });
  }
  return terms;
}

/** Writes the table (whole, through a temporary file), stamped with seed-model.elf's program hash. */
export function writeSeedTerms(about: string, terms: SeedTerms): void {
  const { script, elfs } = CALIBRATIONS[SEED_TERMS_TABLE];
  const stamps = Object.fromEntries(elfs.map((e) => [e, programSha256(readFileSync(firmwareFile(e)))]));
  const header: CalibrationHeader = { table: SEED_TERMS_TABLE, script, about, elfs: stamps };
  const lines = [JSON.stringify(header)];
  for (const [path, p] of [...terms.paths].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const r: SeedRecord = { class: 'path', path, clocks: p.clocks };
    if (p.perCount.length) r.perCount = p.perCount;
    lines.push(JSON.stringify(r));
  }
  for (const [site, clocks] of [...terms.polls].sort((a, b) => (a[0] < b[0] ? -1 : 1))) lines.push(JSON.stringify({ class: 'poll', path: site, clocks } satisfies SeedRecord));
  const file = calibrationFile(SEED_TERMS_TABLE), tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${lines.join('\n')}\n`);
  renameSync(tmp, file);
  loaded = null;
}

/** Predicted clocks of a window (the whole run, the prefill, the decode steps). */
export interface SeedWindowPrediction {
  runClocks: number; mxu: number; vpu: number; dma: number;
  /** Σ over the window's forward passes of the pass's busiest unit. */
  lowerBound: number;
}
export interface SeedRunPrediction extends SeedWindowPrediction {
  /** The prefill (run pulse to prefill_done()) and the decode steps after it. */
  phases: [SeedWindowPrediction, SeedWindowPrediction];
  /** Clocks the CPU spent held in commit stores to full queues. */
  stallClocks: number;
}

/** The event before each of chained.c's pumps (model/seed-ring.ts) whose code between them has no event. */
const BEFORE_PUMP: Record<string, string[]> = {
  rmp: ['rm.mm'], rm: ['rm.mm0'], fch: ['fc.dot'], cah: ['ca.qk', 'ca.qk0'], pmp: ['pm.mm', 'pm.mm0'], pvp: ['pvp.op'],
};

const completedPaths = new WeakMap<SeedTerms, Map<string, Map<string, SeedPath>>>();
const byEnds = new WeakMap<SeedTerms, Map<string, Map<string, SeedPath>>>();

/** The paths of a table by "from", then "to" (built once per table). */
function pathsByEnds(terms: SeedTerms): Map<string, Map<string, SeedPath>> {
  let m = byEnds.get(terms);
  if (!m) {
    m = new Map();
    for (const [key, p] of terms.paths) {
      const at = key.lastIndexOf('>');
      const from = key.slice(0, at), to = key.slice(at + 1);
      let inner = m.get(from);
      if (!inner) m.set(from, (inner = new Map()));
      inner.set(to, p);
    }
    byEnds.set(terms, m);
  }
  return m;
}

/**
 * The event simulation: a SeedSink that keeps the CPU's clock (from the run
 * pulse, clock 0) and each unit's retire clocks. Every number it needs per
 * event is in typed arrays; a path's term is looked up once per event.
 */
export class SeedSchedule implements SeedSink, SeedIo {
  /** chained.c's flows run through the schedule's own clocks (model/seed-ring.ts). */
  readonly io: SeedIo = this;
  /** Per unit: the commands a read has seen retired (reads come in the CPU's clock order). */
  private readonly seen = new Int32Array(3);
  /** The clock the CPU finished its last event in (a commit landed, a wait's last read). */
  private cpuClock = 0;
  private from = 'start';
  /** Loop counts of the CPU work since the last event, in order. */
  private counts: number[] = [];
  /** Per unit: commands committed, and the retire clocks of the last 16 (a ring). */
  private readonly pushed = new Int32Array(3);
  private readonly retire = new Float64Array(3 * 16);
  private readonly lastRetire = new Float64Array(3).fill(-1);
  stallClocks = 0;
  /** Busy per unit: the whole run, the prefill, the pass under way; and the lower bounds. */
  private readonly busy = new Float64Array(3);
  private readonly prefillBusy = new Float64Array(3);
  private readonly passBusy = new Float64Array(3);
  private lowerBound = 0;
  private prefillLowerBound = 0;
  private passes = 0;
  prefillClocks = -1;
  runClocks = -1;

  /** The table's paths by their two ends (no key to build per event). */
  private readonly paths: Map<string, Map<string, SeedPath>>;
  /** The paths afterPump completed, by "from", then "to" (apart from the table's: a completion reads only counted paths). */
  private readonly completed: Map<string, Map<string, SeedPath>>;

  constructor(private readonly terms: SeedTerms) {
    this.paths = pathsByEnds(terms);
    let c = completedPaths.get(terms);
    if (!c) completedPaths.set(terms, (c = new Map()));
    this.completed = c;
  }

  /** The clock the CPU reaches the event at `site`: the path from the last event. */
  private reach(site: string): number {
    const p = this.paths.get(this.from)?.get(site) ?? this.completed.get(this.from)?.get(site) ?? this.afterPump(this.from, site);
    if (!p) throw new MissingSeedTermError(`seed-schedule: no term for the path ${this.from}>${site}: no calibration job takes it (scripts/calibrate-seed-issue.ts)`);
    let clocks = p.clocks;
    const n = Math.min(p.perCount.length, this.counts.length);
    for (let i = 0; i < n; i++) clocks += p.perCount[i] * this.counts[i];
    this.counts.length = 0;
    this.from = site;
    return this.cpuClock + clocks;
  }

  /**
   * A path from an event of chained.c's pump (its LEVEL read, its slot's RETIRED read, its push) that no
   * calibration job took. The pump's code after any of its events runs to the pump's return, and the
   * caller's from there to `to`: a path from event x of the pump at call site F is tail(F.x) + head(to).
   * So F.x>to = F.x>b + F.y>to − F.y>b for another event y of the same pump and a site b both reach;
   * failing that, F.y>to + (G.x>b − G.y>b), the difference of the two events' tails at another call
   * site G (the table's first such). The event before a pump with no event between (BEFORE_PUMP) is
   * one of the pump's too, when the pump is silent: its tail is the whole pump. Kept apart from the table
   * (a completion reads counted paths only, so it does not depend on which jobs were predicted before).
   */
  private afterPump(from: string, to: string): SeedPath | undefined {
    // The pump's call site and the event's kind; the event before a pump counts as one of its events (its tail: the whole pump).
    const before = Object.entries(BEFORE_PUMP).find(([, sites]) => sites.includes(from));
    const m = before ? ['', before[0], 'before'] : /^(.*)\.(level|slot|push)$/.exec(from);
    const fromPaths = m ? this.paths.get(from) : undefined;
    if (!m || !fromPaths) return undefined;
    const sum = (terms: [SeedPath, number][]): SeedPath => {
      const n = Math.max(...terms.map(([p]) => p.perCount.length));
      return {
        clocks: terms.reduce((a, [p, k]) => a + k * p.clocks, 0),
        perCount: Array.from({ length: n }, (_, i) => terms.reduce((a, [p, k]) => a + k * (p.perCount[i] ?? 0), 0)),
      };
    };
    /** F.x>b − F.y>b for a site b both reach at call site F. */
    const tailDiff = (x: Map<string, SeedPath> | undefined, y: Map<string, SeedPath> | undefined): [SeedPath, SeedPath] | undefined => {
      if (!x || !y) return undefined;
      for (const [b, xb] of x) { const yb = y.get(b); if (yb) return [xb, yb]; }
      return undefined;
    };
    const others = ['level', 'slot', 'push'].filter((o) => o !== m[2]);
    // The pump's other events, and the event before it, when the pump is silent (its tail is the whole pump).
    for (const other of [...others.map((o) => `${m[1]}.${o}`), ...(before ? [] : BEFORE_PUMP[m[1]] ?? [])]) {
      const alt = this.paths.get(other), altTo = alt?.get(to);
      const d = altTo && tailDiff(fromPaths, alt);
      if (d) return this.complete(from, to, sum([[d[0], 1], [altTo, 1], [d[1], -1]]));
    }
    for (const other of others) {
      const altTo = this.paths.get(`${m[1]}.${other}`)?.get(to);
      if (!altTo) continue;
      for (const [site, fromSite] of this.paths) {
        const g = /^(.*)\.(level|slot|push)$/.exec(site);
        if (!g || g[2] !== m[2] || g[1] === m[1]) continue;
        const d = tailDiff(fromSite, this.paths.get(`${g[1]}.${other}`));
        if (d) return this.complete(from, to, sum([[altTo, 1], [d[0], 1], [d[1], -1]]));
      }
    }
    return undefined;
  }

  private complete(from: string, to: string, p: SeedPath): SeedPath {
    let m = this.completed.get(from);
    if (!m) this.completed.set(from, (m = new Map()));
    m.set(to, p);
    return p;
  }

  private retireOf(unit: number, index: number): number {
    return this.retire[unit * 16 + (index & 15)];
  }

  pass(): void {
    if (this.passes++ > 0) this.closePass();
  }

  command(unit: number, busy: number, site: string): void {
    let at = this.reach(site);
    const n = this.pushed[unit];
    // Queue full: the store is held until the clock after the oldest entry pops.
    if (n >= QUEUE_DEPTH) {
      const room = this.retireOf(unit, n - QUEUE_DEPTH) + 1;
      if (room > at) { this.stallClocks += room - at; at = room; }
    }
    this.cpuClock = at;
    const dispatch = Math.max(at + 1, this.lastRetire[unit] + 1);
    const retire = dispatch + busy + (unit === SEED_DMA ? 1 : 0);
    this.retire[unit * 16 + (n & 15)] = retire;
    this.lastRetire[unit] = retire;
    this.pushed[unit] = n + 1;
    this.busy[unit] += busy;
    this.passBusy[unit] += busy;
  }

  wait(unit: number, left: number, site: string): void {
    const first = this.reach(site);
    const need = this.pushed[unit] - left - 1; // the command whose retire lets the loop out
    let read = first;
    if (need >= 0) {
      const seen = this.retireOf(unit, need) + 1;
      if (seen > first) {
        const period = this.terms.polls.get(site) ?? this.terms.polls.get('*');
        if (period === undefined) throw new MissingSeedTermError(`seed-schedule: no poll period for ${site} (scripts/calibrate-seed-issue.ts)`);
        read = first + Math.ceil((seen - first) / period) * period;
      }
    }
    this.cpuClock = read;
  }

  commit(unit: number, busy: number, site: string, as?: string): void {
    this.command(unit, busy, site);
    if (as !== undefined) this.from = as;
  }

  issued(unit: number): number {
    return this.pushed[unit];
  }

  resume(site: string): void {
    this.from = site;
  }

  /** A read of RETIRED or LEVEL in the clock the path to `site` reaches: it sees the commands retired before that clock. */
  read(reg: 'retired' | 'level', unit: number, site: string, as?: string): number {
    const r = this.reach(site), n = this.pushed[unit];
    this.cpuClock = r;
    if (as !== undefined) this.from = as;
    // Every command but the last QUEUE_DEPTH retired before the last commit landed.
    let seen = Math.max(this.seen[unit], n - QUEUE_DEPTH);
    while (seen < n && this.retireOf(unit, seen) < r) seen++;
    this.seen[unit] = seen;
    return reg === 'retired' ? seen : n - seen;
  }

  cpu(_site: string, counts: readonly number[]): void {
    for (const c of counts) this.counts.push(c);
  }

  mark(what: 'prefill' | 'done', tag = ''): void {
    const from = this.from, at = this.reach(what);
    // A mark is no event of the CPU's: the next path starts at the last event, named for the mark
    // (after the prefill, main calls prefill_done() on its way to the first decode step).
    this.from = what === 'prefill' ? `${from}+prefill${tag}` : from;
    if (what === 'prefill') {
      // The prefill's pass goes on to the end of the run when no decode step follows (the GENERATED and STATUS words).
      this.prefillClocks = at;
      this.prefillBusy.set(this.busy);
      this.prefillLowerBound = this.lowerBound + Math.max(this.passBusy[0], this.passBusy[1], this.passBusy[2]);
    } else {
      this.runClocks = at;
      this.closePass();
    }
  }

  private closePass(): void {
    this.lowerBound += Math.max(this.passBusy[0], this.passBusy[1], this.passBusy[2]);
    this.passBusy.fill(0);
  }

  /** Whole clocks: a path's fitted clocks per trip are fractions (the argmax's updates depend on the logits). */
  result(): SeedRunPrediction {
    const [mxu, vpu, dma] = this.busy, [pm, pv, pd] = this.prefillBusy;
    const run = Math.round(this.runClocks), pre = Math.round(this.prefillClocks);
    const prefill = { runClocks: pre, mxu: pm, vpu: pv, dma: pd, lowerBound: this.prefillLowerBound };
    const decode = { runClocks: run - pre, mxu: mxu - pm, vpu: vpu - pv, dma: dma - pd, lowerBound: this.lowerBound - this.prefillLowerBound };
    return { runClocks: run, mxu, vpu, dma, lowerBound: this.lowerBound, phases: [prefill, decode], stallClocks: this.stallClocks };
  }
}

/**
 * Whether model.c's load_header takes the job (model/seed-fit.ts holds its
 * limits and plans); a job it refuses writes STATUS 2 and stops, which the
 * walk does not follow. The divisibility checks stand for model/format.ts's
 * checkDims, which seedModelMisfit assumes passed.
 */
export function seedShapeFits(dims: ModelDims, promptLen: number, decodeSteps: number): boolean {
  const { d, dFF, heads, layers, vocab } = dims;
  const dh = d / heads;
  return Number.isInteger(dh) && d % 8 === 0 && dFF % 8 === 0 && dh % 8 === 0 && vocab % 8 === 0 && layers >= 1 && promptLen >= 1
    && seedModelMisfit(dims, promptLen, decodeSteps) === null;
}

/**
 * Predicted run clocks, busy clocks and lower bounds of a model job on the
 * seed board: `promptLen` prompt tokens and `generated` tokens written (the
 * prefill's, then one per decode step; a stop token ends it early, so pass
 * the job's `decodeSteps` when it may have), with the layers' hardtanh bounds
 * and the VARIANT bits. Null when the firmware
 * refuses the shape (seedShapeFits) or a path the job takes was never
 * calibrated (a variant bit the calibration jobs never ran).
 */
export function predictSeedRun(dims: ModelDims, bounds: SeedLayerBounds[], promptLen: number, generated: number, variant: number,
  decodeSteps = generated - 1, terms: SeedTerms = seedTerms()): SeedRunPrediction | null {
  if (!seedShapeFits(dims, promptLen, decodeSteps)) return null;
  const s = new SeedSchedule(terms);
  try {
    walkSeedJob(dims, bounds, promptLen, generated, variant, s, decodeSteps);
  } catch (e) {
    if (e instanceof MissingSeedTermError) return null;
    throw e;
  }
  const p = s.result();
  if (variant & (SEED_VARIANT.CHAINED | SEED_VARIANT.PIPELINED)) {
    // chained.c's pump queues a step's chunks while the step before runs: the lower bound counts each to the
    // pass whose weights it carries (the busy tally's), not to the pass under way when it was queued.
    const t = new SeedBusyTally();
    walkSeedJob(dims, bounds, promptLen, generated, variant, t, decodeSteps);
    p.lowerBound = t.lowerBound;
    p.phases[0].lowerBound = t.prefillLowerBound;
    p.phases[1].lowerBound = t.lowerBound - t.prefillLowerBound;
  }
  return p;
}
