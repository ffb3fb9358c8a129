// What the tools show of the transformer-tpu-int4 board: the debugger's
// `info units` and GDB's `monitor units`/`monitor clocks` (each unit's queue
// and commands as the run observers see them, the ten counters so far and the
// aliased accesses), and the run's report and --report-json fields.

import type { BoardFigures } from '../../emu/board.ts';
import { formatReport, type CounterSnapshot } from '../../periph/counters.ts';
import type { SeedActivity } from './activity.ts';
import type { AliasCounts, SeedBus } from './bus.ts';
import type { SeedCounters, SeedHazard, SeedTpu } from './tpu.ts';

/** The board's own figures of a run (BoardFigures.extra). */
export interface SeedFigures {
  /** Its ten counters over the run-pulse..DONE window (or to the stop). */
  seedCounters: SeedCounters;
  /** Accesses the RTL aliases or drops (docs/seed-board.md). */
  aliases: AliasCounts;
  /** The word the DONE store wrote (the RTL ignores it), or null. */
  doneValue: number | null;
  /** What the RTL does silently and the emulator reports, the first few and the count. */
  hazards: { count: number; first: SeedHazard[] };
}

export function seedStatusLines(seed: SeedTpu, activity: SeedActivity, bus: SeedBus, clockHz: number, now: number): string[] {
  activity.advanceTo(now);
  const lines = [`seed TPU at clock ${now}${seed.done ? ` (DONE stored at clock ${seed.doneClock})` : ''}`];
  const seedIndex = { MXU: 0, VPU: 1, DMA: 2 } as const;
  for (const u of activity.units) {
    const level = seed.queueLevel(seedIndex[u.name]);
    lines.push(`${u.name}: ${seed.unitBusy(seedIndex[u.name]) ? 'busy' : 'idle'}, issued ${u.issued}, queue level ${level}`);
    if (u.running) lines.push(`  running #${u.running.serial} since clock ${u.runningStart} (pushed at ${u.running.pushClock}): ${u.rules.describe(u.running)}`);
  }
  const c = seed.counters();
  lines.push('counters (run pulse .. now):');
  lines.push(...formatReport(reportOfSeedCounters(c), clockHz).trimEnd().split('\n'));
  lines.push(`${Object.entries(c).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const n = bus.aliasedAccesses;
  if (n > 0) lines.push(`aliased accesses (the RTL decodes only a[31:28]): ${n}`);
  return lines;
}

/**
 * The seed board's performance report: PLATFORM.md §7's shape from the seed's
 * counters, with the MXU's weight-load clocks (mload) under its busy line, the
 * true queue-full stall beside the RTL's qfull (which never counts), and a
 * warning when the firmware made accesses the RTL aliases.
 */
export function formatSeedReport(r: BoardFigures, clockHz: number): string {
  const x = r.extra as unknown as SeedFigures;
  const c = x.seedCounters;
  const pct = (n: number) => (c.run ? (100 * n) / c.run : 0).toFixed(1);
  const lines = formatReport(r.counters, clockHz).trimEnd().split('\n');
  const mxuLine = lines.findIndex((l) => l.startsWith('MXU busy'));
  lines.splice(mxuLine + 1, 0, `  of which weight load ${c.mload} ${pct(c.mload)}%`);
  const stallLine = lines.findIndex((l) => l.startsWith('producer stalled'));
  lines[stallLine] += ` (as the RTL counts it; really held ${c.trueQfullStall} ${pct(c.trueQfullStall)}%)`;
  const a = x.aliases;
  if (a) {
    const n = a.ram + a.mmio + a.spad + a.unmapped;
    if (n > 0) {
      lines.push(`warning: ${n} access${n === 1 ? '' : 'es'} the seed's decoder aliases (RAM ${a.ram}, MMIO ${a.mmio}, scratchpad ${a.spad}, `
        + `outside every region ${a.unmapped}); the first at 0x${(a.firstAddr >>> 0).toString(16).padStart(8, '0')}, clock ${a.firstClock}`);
    }
    const h = x.hazards;
    if (h && h.count > 0) {
      lines.push(`warning: ${h.count} command${h.count === 1 ? '' : 's'} the seed's RTL executes silently as a hazard; the first: clock ${h.first[0].clock}: ${h.first[0].text}`);
    }
    if (a.spadNarrowStores > 0) lines.push(`warning: ${a.spadNarrowStores} byte/half store${a.spadNarrowStores === 1 ? '' : 's'} to the scratchpad window wrote the whole word (the RTL ignores the strobes)`);
  }
  return lines.join('\n') + '\n';
}

/** The seed board's fields of --report-json: the ten counters under the seed's names, and the aliases. */
export function seedReportFields(r: BoardFigures, board: string): Record<string, unknown> {
  const x = r.extra as unknown as SeedFigures;
  return {
    board,
    counters: x.seedCounters,
    countersWindow: 'run pulse .. DONE store (or the stop)',
    report: r.counters,
    aliases: x.aliases,
    doneValue: x.doneValue,
    hazards: x.hazards,
  };
}

/**
 * The seed's counters in PLATFORM.md §7's shape: run, busy per unit (the seed's
 * definitions: mxu and vpu include their DONE clock, dma does not), idlec,
 * qfull (as the RTL counts it: 0) and ovlap.
 */
export function reportOfSeedCounters(c: SeedCounters): CounterSnapshot {
  return {
    cycles: c.run, mxuBusy: c.mxu, vpuBusy: c.vpu, dmaBusy: c.dma, idle: c.idlec, stall: c.qfull, overlap: c.ovlap,
    depWait: 0, depWaitByUnit: { DMA: 0, MXU: 0, VPU: 0 },
  };
}
