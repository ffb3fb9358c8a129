// What the run observers see of the transformer-tpu-int4 board's TPU
// (emu/tpu-activity.ts): it follows the TPU's commit stores on the bus and its
// command callbacks (a command's first busy clock when its unit takes it, its
// start and end clocks when it ends), so every tool runs unchanged on this board.

import { UNIT_NAMES } from '../../periph/counters.ts';
import type { CommandRecord, TpuError } from '../../periph/tpu.ts';
import type { QueuedView, StallRecord, TpuActivity, UnitActivity, UnitName } from '../../emu/tpu-activity.ts';
import type { SeedTpu } from './tpu.ts';

/** The seed's unit numbers (cmd_unit: MXU 0, VPU 1, DMA 2) in picotpu's UNIT_NAMES order. */
const VIEW_OF_SEED_UNIT = [UNIT_NAMES.indexOf('MXU'), UNIT_NAMES.indexOf('VPU'), UNIT_NAMES.indexOf('DMA')];
const SEED_OPCODE_NAMES: Record<UnitName, Record<number, string>> = {
  MXU: { 1: 'MXU_GEOM', 2: 'MXU_MM' },
  VPU: { 1: 'VPU_OP' },
  DMA: { 1: 'DMA_MOVE' },
};

interface SeedQueued extends QueuedView {
  opcode: number;
}
/** A ring record: written in place as commands come (the view hands out SeedQueued). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Queued commands a unit's view holds: its queue's depth and the one running, with room to spare (a power of two). */
const RING = 16;

class SeedUnitView implements UnitActivity {
  issued = 0;
  /**
   * The accepted commands not yet started, oldest first, in a ring of records reused as commands
   * come and go (a commit store allocates nothing): at most a queue's depth are waiting and one
   * running, so a record is not reused while the view still names it.
   */
  private readonly ring: Mutable<SeedQueued>[] = Array.from({ length: RING }, () => ({ serial: 0, pushClock: 0, opcode: 0 }));
  private head = 0;
  private count = 0;
  /** The command its unit has taken (told by the seed's onCommandStart), until it ends. */
  running: SeedQueued | null = null;
  runningStart = 0;
  lastEnd = -1;
  readonly rules = { describe: (cmd: QueuedView) => this.describe(cmd) };

  constructor(readonly name: UnitName) {}

  /** Accepted, not started (a copy, for the tools). */
  get fifo(): readonly SeedQueued[] {
    const out: SeedQueued[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.ring[(this.head + i) & (RING - 1)]);
    return out;
  }

  push(pushClock: number, opcode: number): void {
    if (this.count === RING - 1) this.shift(); // never on the RTL's queue of eight; keeps the one running intact
    const r = this.ring[(this.head + this.count) & (RING - 1)];
    r.serial = this.issued++;
    r.pushClock = pushClock;
    r.opcode = opcode;
    this.count++;
  }

  /** The oldest waiting command, taken off the queue, or null. */
  shift(): SeedQueued | null {
    if (this.count === 0) return null;
    const r = this.ring[this.head];
    this.head = (this.head + 1) & (RING - 1);
    this.count--;
    return r;
  }

  private describe(cmd: QueuedView): string {
    const op = (cmd as SeedQueued).opcode;
    return SEED_OPCODE_NAMES[this.name][op] ?? `${this.name} opcode 0x${op.toString(16)}`;
  }
}

export class SeedActivity implements TpuActivity {
  records: CommandRecord[] | null = null;
  stallRecords: StallRecord[] | null = null;
  readonly errors: readonly TpuError[] = [];
  readonly units: SeedUnitView[] = UNIT_NAMES.map((n) => new SeedUnitView(n));
  clock = 0;

  constructor(private readonly seed: SeedTpu) {
    seed.onCommand = (unit, opcode, start, end) => this.ended(unit, opcode, start, end);
    // A command's start is known when its unit takes it, not only when it ends: a waveform or
    // profile written up to a clock then holds every start before it (emu/observe/vcd.ts).
    seed.onCommandStart = (unit, clock) => this.started(unit, clock);
  }

  /** A commit store of seed unit `unit` reached the TPU at `clock` and was accepted `stall` clocks later. */
  committed(unit: number, opcode: number, clock: number, stall: number): void {
    const v = this.units[VIEW_OF_SEED_UNIT[unit]];
    if (!v) return;
    v.push(clock + stall, opcode);
    if (stall > 0) this.stallRecords?.push({ unit: v.name, from: clock, to: clock + stall });
  }

  /** The board hangs (an access that can never complete): the deadlock the seed's TPU reported. */
  get fatal(): string | null {
    if (!this.seed.stuck) return null;
    const h = this.seed.hazards.find((x) => x.kind === 'deadlock');
    return `TPU deadlock: ${h ? h.text : 'an access that can never complete'}`;
  }

  advanceTo(clock: number): void {
    this.seed.advanceTo(clock);
    if (clock > this.clock) this.clock = clock;
  }

  private started(unit: number, clock: number): void {
    const v = this.units[VIEW_OF_SEED_UNIT[unit]];
    if (!v) return;
    v.running = v.shift();
    v.runningStart = clock;
  }

  /** GEOM and discarded opcodes end without a start (onCommandStart): they leave the FIFO here. */
  private ended(unit: number, opcode: number, start: number, end: number): void {
    const v = this.units[VIEW_OF_SEED_UNIT[unit]];
    if (!v) return;
    const cmd = v.running ?? v.shift() ?? { serial: v.issued, pushClock: start - 1, opcode };
    v.running = null;
    v.lastEnd = end;
    this.records?.push({
      unit: v.name, serial: cmd.serial, command: v.rules.describe(cmd), pushClock: cmd.pushClock, startClock: start, endClock: end,
    });
  }
}
