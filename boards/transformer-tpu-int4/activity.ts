// What the run observers see of the transformer-tpu-int4 board's TPU
// (emu/tpu-activity.ts): every unit's queue, running command and issued count
// are read from the TPU's own queues (the CPU kernel pushes most commit stores
// there itself, with no call to tell anyone), and finished commands are
// recorded from the TPU's command callback while recording is on, so every
// tool runs unchanged on this board.

import { UNIT_NAMES } from '../../periph/counters.ts';
import type { CommandRecord, TpuError } from '../../periph/tpu.ts';
import type { QueuedView, StallRecord, TpuActivity, UnitActivity, UnitName } from '../../emu/tpu-activity.ts';
import { SEED_QUEUE_DEPTH } from './regs.ts';
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
/** A record written in place (the view hands out SeedQueued). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

class SeedUnitView implements UnitActivity {
  /**
   * A record per place in the queue, rewritten whenever the view is asked: one names a command
   * for as long as that command is in the same place (the TPU's queue holds its depth, the head
   * included while it runs).
   */
  private readonly places: Mutable<SeedQueued>[] = Array.from({ length: SEED_QUEUE_DEPTH }, () => ({ serial: 0, pushClock: 0, opcode: 0 }));
  readonly rules = { describe: (cmd: QueuedView) => this.describe(cmd) };

  /** `unit`: the seed's unit number (SEED_MXU, SEED_VPU, SEED_DMA). */
  constructor(readonly name: UnitName, private readonly tpu: SeedTpu, private readonly unit: number) {}

  get issued(): number {
    return this.tpu.issuedCount(this.unit);
  }

  /** Accepted, not started (a copy, for the tools). */
  get fifo(): readonly SeedQueued[] {
    const out: SeedQueued[] = [];
    const first = this.tpu.runsHead(this.unit) ? 1 : 0;
    for (let i = first; i < this.tpu.queueLevel(this.unit); i++) out.push(this.queued(i));
    return out;
  }

  /** The command its unit has taken, until it ends. */
  get running(): SeedQueued | null {
    return this.tpu.runsHead(this.unit) ? this.queued(0) : null;
  }

  get runningStart(): number {
    return this.tpu.runStartClock(this.unit);
  }

  /** The i-th command of the queue (0: the head), as a record. */
  queued(i: number): SeedQueued {
    const tpu = this.tpu, u = this.unit;
    const r = this.places[(tpu.retiredCount(u) + i) % SEED_QUEUE_DEPTH];
    r.serial = tpu.retiredCount(u) + i;
    r.pushClock = tpu.queuedPushClock(u, i);
    r.opcode = tpu.queuedOpcode(u, i);
    return r;
  }

  private describe(cmd: QueuedView): string {
    const op = (cmd as SeedQueued).opcode;
    return SEED_OPCODE_NAMES[this.name][op] ?? `${this.name} opcode 0x${op.toString(16)}`;
  }
}

export class SeedActivity implements TpuActivity {
  private recorded: CommandRecord[] | null = null;
  stallRecords: StallRecord[] | null = null;
  readonly errors: readonly TpuError[] = [];
  readonly units: SeedUnitView[];
  clock = 0;

  constructor(private readonly seed: SeedTpu) {
    this.units = UNIT_NAMES.map((n) => new SeedUnitView(n, seed, VIEW_OF_SEED_UNIT.indexOf(UNIT_NAMES.indexOf(n))));
    seed.onCommitStall = (unit, clock, until) => this.stallRecords?.push({ unit: this.units[VIEW_OF_SEED_UNIT[unit]].name, from: clock, to: until });
  }

  /** Finished commands, while recording (set to [] to turn it on): the TPU tells of each only then. */
  get records(): CommandRecord[] | null {
    return this.recorded;
  }

  set records(list: CommandRecord[] | null) {
    this.recorded = list;
    this.seed.onCommand = list ? (unit, opcode, start, end) => this.ended(unit, opcode, start, end) : undefined;
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

  /** A command ends, still at its queue's head (GEOM and discarded opcodes the clock they are taken). */
  private ended(unit: number, opcode: number, start: number, end: number): void {
    const v = this.units[VIEW_OF_SEED_UNIT[unit]];
    const cmd = v.queued(0);
    this.recorded?.push({
      unit: v.name, serial: cmd.serial, command: v.rules.describe(cmd), pushClock: cmd.pushClock, startClock: start, endClock: end,
    });
  }
}
