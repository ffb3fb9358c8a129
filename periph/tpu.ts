// The TPU core: register block, one in-order command FIFO per unit, the start
// rule, wait tokens, the scratchpad port rule, errors and counters. The CPU's
// accesses drive it lazily: before any register or SRAM access at clock t the
// TPU is advanced through every clock before t, so everything the CPU can
// observe is as a clock-by-clock simulation would have it.
//
// Rules (docs/hardware.md has them for users):
//  - A command pushed at clock p may start at p + 1; a command whose
//    predecessor on the same unit ended (or was dropped) at e may start at e + 1;
//    with a wait token it also waits until that unit's DONE has reached the ticket.
//  - DONE counts a command at the end of its last clock.
//  - At its start a command is validated; a malformed one, one with two read
//    operands in one region, or one that needs a port another running command
//    holds, is dropped (it counts as done in that clock) and ERROR records it.
//    Units start in the order DMA, MXU, VPU within a clock.
//  - A PUSH reaching a full FIFO at clock t is accepted at the first clock s in
//    which fewer than DEPTH commands wait; a command leaves the FIFO in the
//    clock it starts. The CPU waits s - t clocks (STALL).
//  - Wait-token deadlock: when no command runs and every waiting head's token
//    names a DONE not reached, nothing can start until the CPU pushes; a CPU
//    that keeps reading DONE or STATUS DEADLOCK_POLL_CLOCKS after that, with
//    no PUSH, is polling a TPU that cannot move, and the machine stops (163).

import type { TpuPlatform } from './config.ts';
import type { MmioDevice, SramSharer } from './mmio.ts';
import { Counters, UNIT_NAMES, type CounterSnapshot } from './counters.ts';
import { DmaFast, DmaReference, dmaRules } from './dma.ts';
import { MxuFast, MxuReference, mxuRules } from './mxu.ts';
import { LinkFast, LinkReceiver, LinkReference, linkRules, mailboxRegions, type LinkMessage, type RingPosition } from './link.ts';
import { createScratchpad } from './mxu-kernel.ts';
import {
  CONFIG_FIELD, ERR, ERROR_CODES, ERROR_FIELD, GLOBAL, LINK_BOARD_FIELD, LINK_REG, packField, PUSH_FIELD, SEQ_LIST_REG, statusWord, TOKEN_FIELD, TPU_ID_VALUE,
  UNIT_REG, UNITS, unpackField,
} from './regs.ts';
import type { Sram } from './sram.ts';
import { SeqFast, SeqListMemory, SeqReference, seqRules, WAITING_ON_TOKEN, type SeqModel, type SeqPort } from './seq.ts';
import type { Cmd, Footprint, UnitModel, UnitRules } from './unit.ts';
import { VpuFast, VpuReference, vpuRules } from './vpu.ts';
import { doubleFields } from './double-fields.ts';

/** The three compute units, and the sequencer of the `sequencer` what-if (§5.11). */
export type TpuUnitName = (typeof UNIT_NAMES)[number] | 'SEQ' | 'LINK';
const ALL_UNIT_NAMES: readonly TpuUnitName[] = [...UNIT_NAMES, 'SEQ', 'LINK'];
/** UnitState.index of the link (ERROR.UNIT 5). */
const LINK_INDEX = 4;

export interface TpuError {
  clock: number;
  unit: TpuUnitName;
  serial: number;
  code: number;
  codeName: string;
  command: string;
  detail: string;
}

/** One finished command, for traces and the profiler (kept only on request). */
export interface CommandRecord<N extends TpuUnitName = (typeof UNIT_NAMES)[number]> {
  unit: N;
  serial: number;
  command: string;
  pushClock: number;
  startClock: number;
  endClock: number;
}

// The fields a command's start and PUSH decode, as shifts and masks (regs.ts's table): the
// per-command path reads them in place, without a call (a cold process runs it unoptimized).
const OPCODE_LSB = PUSH_FIELD.OPCODE.lsb, OPCODE_MASK = PUSH_FIELD.OPCODE.mask;
const FLAGS_LSB = PUSH_FIELD.FLAGS.lsb, FLAGS_MASK = PUSH_FIELD.FLAGS.mask;
const TOKEN_UNIT_LSB = TOKEN_FIELD.UNIT.lsb, TOKEN_UNIT_MASK = TOKEN_FIELD.UNIT.mask;
const TOKEN_TICKET_LSB = TOKEN_FIELD.TICKET.lsb, TOKEN_TICKET_MASK = TOKEN_FIELD.TICKET.mask;

/** portHolder()'s answers besides a unit's index. */
const PORTS_FREE = -1, PORT_OF_MAILBOX = -2;

/** A pushed command; the core reuses these objects (UnitState.cmdPool). */
type PushedCmd = { -readonly [K in keyof Cmd]: Cmd[K] };

/** A unit's STATUS register as the CPU reads it (the debugger and GDB views show the same word). */
export function unitStatus(u: { readonly running: Cmd | null; readonly fifo: readonly Cmd[]; readonly errorFlag: boolean }): number {
  return statusWord(u.running !== null, u.fifo.length, u.errorFlag);
}

export class UnitState<M = UnitModel, N extends TpuUnitName = (typeof UNIT_NAMES)[number]> {
  /** Clock-valued fields are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['lastEnd', 'runningStart']);
  readonly staging = new Uint32Array(6);
  readonly fifo: Cmd[] = [];
  /**
   * Command objects, reused in turn so that a PUSH allocates nothing. At most
   * DEPTH queued and one running are alive, all pushed after the slot being
   * refilled, which is DEPTH + 2 pushes old.
   */
  private readonly cmdPool: PushedCmd[];
  private poolNext = 0;
  issued = 0;
  done = 0;
  /** Clock of the last end (or drop), -1 before the first. */
  lastEnd = -1;
  running: Cmd | null = null;
  runningStart = 0;
  /** The running command's regions (all zero while idle); the start logic fills this object in place. */
  readonly footprint: Footprint = { read: 0, write: 0, sameRegion: false };
  errorFlag = false;
  /** Head of the FIFO is ready but blocked on its wait token. */
  depWaiting = false;

  constructor(readonly index: number, readonly rules: UnitRules, readonly model: M, queueDepth: number) {
    // pushClock and token (a word with bit 31) are doubles from the start (emu/double-fields.ts); takeCmd sets them.
    this.cmdPool = Array.from({ length: queueDepth + 2 }, () => ({ args: new Uint32Array(5), opcode: 0, flags: 0, serial: 0, pushClock: Number.NaN, token: Number.NaN, entry: -1 }));
  }

  private nextPooled(): PushedCmd {
    const cmd = this.cmdPool[this.poolNext];
    this.poolNext = this.poolNext + 1 === this.cmdPool.length ? 0 : this.poolNext + 1;
    return cmd;
  }

  /** The next pooled command object, filled from the staging registers and PUSH's value. */
  takeCmd(value: number, pushClock: number): Cmd {
    const cmd = this.nextPooled();
    const st = this.staging, args = cmd.args;
    args[0] = st[0]; args[1] = st[1]; args[2] = st[2]; args[3] = st[3]; args[4] = st[4];
    cmd.opcode = (value >>> OPCODE_LSB) & OPCODE_MASK;
    cmd.flags = (value >>> FLAGS_LSB) & FLAGS_MASK;
    cmd.serial = this.issued;
    cmd.pushClock = pushClock;
    cmd.token = st[5];
    cmd.entry = -1;
    return cmd;
  }

  /** The next pooled command object, filled from a sequencer list entry pushed at `pushClock`. */
  takeEntry(args: Uint32Array, token: number, opcode: number, flags: number, pushClock: number, entry: number): Cmd {
    const cmd = this.nextPooled();
    cmd.args[0] = args[0]; cmd.args[1] = args[1]; cmd.args[2] = args[2]; cmd.args[3] = args[3]; cmd.args[4] = args[4];
    cmd.opcode = opcode;
    cmd.flags = flags;
    cmd.serial = this.issued;
    cmd.pushClock = pushClock;
    cmd.token = token;
    cmd.entry = entry;
    return cmd;
  }

  get name(): N {
    return ALL_UNIT_NAMES[this.index] as N;
  }

  /** Earliest clock the FIFO head may start by the start rule. */
  headReady(): number {
    const pushed = this.fifo[0].pushClock, ended = this.lastEnd;
    return (pushed > ended ? pushed : ended) + 1;
  }
}

export class TpuFatal extends Error {}

/** How many TPU errors and PERF_CTRL windows a run keeps in full (docs/hardware.md §7: memory stays bounded). */
export const KEPT_RECORDS = 100_000;

/**
 * Clocks a wait-token deadlock must have lasted, with no PUSH, before a CPU
 * read of a unit's DONE or STATUS (the second since it began) stops the machine.
 * Long enough that a program which looks once and then pushes the missing
 * command is not stopped, short enough to stop within a few thousand clocks.
 */
export const DEADLOCK_POLL_CLOCKS = 1024;

export class Tpu implements MmioDevice, SramSharer, SeqPort {
  /** Clock-valued fields are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['clock', 'lastStall', 'lastPushClock', 'quietUntil', 'startAt']);
  readonly spad: Uint8Array;
  /** The three compute units, DMA, MXU, VPU: the counters, observers and tools see these. */
  readonly units: UnitState[];
  /** The command sequencer, with the `sequencer` option (hardware.md §5.11); null as built. */
  readonly seq: UnitState<SeqModel, 'SEQ'> | null;
  /** The compute units, then the sequencer and the link when present: the order commands start in within a clock. */
  private readonly all: UnitState<UnitModel | SeqModel, TpuUnitName>[];
  /** The units by register block (and UnitState.index): DMA, MXU, VPU, SEQ, LINK; null where absent. */
  private readonly blocks: (UnitState<UnitModel | SeqModel, TpuUnitName> | null)[];
  /** The board-to-board link, with the `link` option (hardware.md §5.12); null as built. */
  readonly link: UnitState<LinkFast | LinkReference, 'LINK'> | null;
  /** The link's receive side: the mailbox's landings, RX_FULL, RX_COUNT. */
  readonly linkRx: LinkReceiver | null;
  /** Where this board's messages go: its own receiver (one board), or the next board's (boards/picotpu/ring.ts). */
  linkOut: ((m: LinkMessage) => void) | null = null;
  /** The mailbox's regions (their write port is the link's), 0 without a link. */
  private readonly mailboxMask: number;
  /** LINK figures: busy clocks (whole run and PERF_CTRL window), SENDs finished and their bytes. */
  readonly linkStats = { busy: 0, windowBusy: 0, messages: 0, bytes: 0 };
  /** Finished SENDs, when a test asks for them. */
  linkRecords: CommandRecord<'LINK'>[] | null = null;
  /** Set by a PUSH whose stall would have to process clocks past the link's horizon: it did not happen (boards/picotpu/link-bus.ts restarts it). */
  pushBlocked = false;

  /** The sequencer's own list memory (seqListKiB > 0), else null: lists are in the scratchpad. */
  readonly listMemory: SeqListMemory | null;
  /** Finished sequencer commands, when a test asks for them. */
  seqRecords: CommandRecord<'SEQ'>[] | null = null;
  readonly whole = new Counters();
  readonly window = new Counters();
  /** Every closed PERF_CTRL window (a write of 0 while counting), in order. */
  readonly windows: CounterSnapshot[] = [];
  readonly errors: TpuError[] = [];
  /** Dropped commands beyond the first KEPT_RECORDS, counted but not kept. */
  errorsNotKept = 0;
  /** PERF_CTRL windows closed beyond the first KEPT_RECORDS, counted but not kept. */
  windowsNotKept = 0;
  /** Finished commands, when recording is on. */
  records: CommandRecord[] | null = null;
  /** PUSH stalls [from, to) per unit, kept with the records. */
  stallRecords: { unit: (typeof UNIT_NAMES)[number]; from: number; to: number }[] | null = null;
  /** First error since ERROR was cleared (the register's value), 0 for none. */
  private errorReg = 0;
  private counting = false;
  private perfUsed = false;
  /** Next clock to process. */
  clock = 0;
  private lastStall = 0;
  /** A unit whose FIFO a stalled PUSH waits on (ends windows right after a start). */
  private pushWaitUnit = -1;
  /** Set when the machine must stop: the first error under strict, or a deadlock. */
  fatal: string | null = null;
  /** Clock of the last accepted PUSH, -1 before the first. */
  private lastPushClock = -1;
  /** First clock of the wait-token deadlock the CPU's reads have seen, -1 for none. */
  private stuckFrom = -1;
  /** CPU reads of DONE or STATUS since stuckFrom. */
  private stuckReads = 0;

  constructor(
    private readonly cfg: TpuPlatform,
    private readonly sram: Sram,
    readonly reference: boolean,
    private readonly strict: boolean,
    readonly ring: RingPosition = { index: 0, count: 1 },
  ) {
    const t = cfg.tpu;
    // The fast MXU multiplies in WebAssembly, reading the scratchpad in place (periph/mxu-kernel.ts).
    const pad = reference ? { spad: new Uint8Array(t.spadKiB * 1024), kernel: null } : createScratchpad(t.spadKiB * 1024);
    this.spad = pad.spad;
    const mem = { spad: this.spad, sram: sram.bytes, mxuKernel: pad.kernel };
    // The fast models take each command's fields from their rules' cache, which the start fills.
    const dma = dmaRules(t, cfg.bus), mxu = mxuRules(t), vpu = vpuRules(t);
    this.units = [
      new UnitState(0, dma, reference ? new DmaReference(mem, sram, t, cfg.bus) : new DmaFast(mem, sram, t, cfg.bus, dma), t.queueDepth),
      new UnitState(1, mxu, reference ? new MxuReference(mem, t) : new MxuFast(mem, t, true, mxu), t.queueDepth),
      new UnitState(2, vpu, reference ? new VpuReference(mem, t) : new VpuFast(mem, t, vpu), t.queueDepth),
    ];
    this.listMemory = t.sequencer && t.seqListKiB > 0 ? new SeqListMemory(t.seqListKiB) : null;
    const lists = this.listMemory ? this.listMemory.bytes : this.spad;
    this.seq = t.sequencer
      ? new UnitState<SeqModel, 'SEQ'>(3, seqRules(t), reference ? new SeqReference(lists, this) : new SeqFast(lists, this), t.queueDepth)
      : null;
    if (t.link) {
      this.linkRx = new LinkReceiver(t, this.spad);
      const model = reference ? new LinkReference(mem, t, ring.index) : new LinkFast(mem, t, ring.index);
      this.link = new UnitState<LinkFast | LinkReference, 'LINK'>(LINK_INDEX, linkRules(t, ring), model, t.queueDepth);
      this.mailboxMask = mailboxRegions(t);
      this.wireLink(this.linkRx, model);
    } else {
      this.linkRx = null;
      this.link = null;
      this.mailboxMask = 0;
    }
    this.all = [...this.units, ...(this.seq ? [this.seq] : []), ...(this.link ? [this.link] : [])];
    this.blocks = [...this.units, this.seq, this.link];
    this.pushesTakeNoTime = !reference && !strict && this.seq === null && this.link === null;
    this.plain = !reference && this.seq === null && this.link === null;
  }

  /** The receiver's events, and one board's ring: its messages come back to itself. */
  private wireLink(rx: LinkReceiver, model: LinkFast | LinkReference): void {
    rx.onArrival = () => {
      this.quietUntil = 0;
      this.coupledCache = null;
    };
    rx.onOverrun = (m, slots) => this.overrun(m, slots);
    rx.onLanded = (m) => this.linkReleases?.(m);
    this.linkOut = (m) => rx.deliver(m);
    this.linkReleases = (m) => model.release(m);
  }

  /** Gives a landed message's buffer back to its sender's pool (the sender's link model). */
  linkReleases: ((m: LinkMessage) => void) | null = null;

  /** A landing on full slots: OVERRUN on this board, at the landing clock (the message lands anyway). */
  private overrun(m: LinkMessage, slots: number): void {
    const link = this.link!;
    const slot = 31 - Math.clz32(slots & -slots);
    this.recordError({ clock: m.land, unit: 'LINK', serial: m.serial, code: ERR.OVERRUN, codeName: 'OVERRUN',
      command: `message from board ${m.from}, SEND #${m.serial}`,
      detail: `board ${this.ring.index}: message from board ${m.from} lands on mailbox slot ${slot}, still full, at clock ${m.land} (an overlapping transfer; it lands anyway)` },
    m.serial, link);
  }

  /** The unit whose register block is at `offset` (0x100, 0x200, 0x300, and 0x400 with the sequencer). */
  private unitAt(offset: number): UnitState<UnitModel | SeqModel, TpuUnitName> {
    return this.blocks[(offset >> 8) - 1]!;
  }

  // ---- the register block ----

  isRegister(offset: number): boolean {
    if (offset < 0x100) return offset <= GLOBAL.DEP_WAIT && offset % 4 === 0;
    const u = (offset >> 8) - 1, reg = offset & 0xff;
    if (u === 3 && this.listMemory && reg >= SEQ_LIST_REG.LIST_PTR) return reg <= SEQ_LIST_REG.RECORD && reg % 4 === 0;
    if (u === LINK_INDEX && this.link && reg >= LINK_REG.BOARD) return reg <= LINK_REG.RX_COUNT && reg % 4 === 0;
    return u < this.blocks.length && this.blocks[u] !== null && reg <= UNIT_REG.DONE;
  }

  /**
   * No command can start or end before this clock, as of the last unit
   * register read (0: not known). A unit's registers (STATUS, ISSUED, DONE,
   * staging) change only at a start, an end, a PUSH or an ERROR clear, so a
   * read before it needs no clocks processed: a firmware polling DONE then
   * costs nothing until the answer can change, and the TPU advances in one
   * window instead of one per poll. Counter registers always bring time up to date.
   */
  private quietUntil = 0;

  /** A CPU read (through the bus): a poll of DONE or STATUS counts toward the deadlock rule (§5.3). */
  read(offset: number, clock: number): number {
    this.lastStall = 0;
    if (offset >= 0x100 && !this.isLinkRegister(offset)) {
      if (clock >= this.quietUntil) {
        this.advanceTo(clock);
        this.linkRx?.landUpTo(clock); // an OVERRUN at this clock sets LINK STATUS.ERROR
        if (!this.reference) this.quietUntil = this.nextStartClock();
      }
      const reg = offset & 0xff;
      if (reg === UNIT_REG.DONE || reg === UNIT_REG.STATUS) this.watchDeadlock(clock);
      return this.readUnit(this.unitAt(offset), reg);
    }
    return this.peek(offset, clock);
  }

  /**
   * Right after a CPU read of `offset`: reads of it before the returned clock
   * give the same value and process no clocks (the quiet window above), and
   * a poll then only repeats what the deadlock rule saw, so a poll loop may be
   * skipped up to it. 0 (no promise) for the counters (they count every
   * clock), for the reference models (they process every clock), and while a
   * deadlock is in force (every poll counts toward stopping the machine).
   */
  repeatUntil(offset: number): number {
    return offset < 0x100 || this.reference || this.stuckFrom >= 0 || this.fatal ? 0 : this.quietUntil;
  }

  /** A read by a tool (the debugger): the same value, but not the CPU polling. */
  peek(offset: number, clock: number): number {
    this.advanceTo(clock);
    // The landings of this clock come first (an OVERRUN in ERROR, RX_FULL, RX_COUNT).
    this.linkRx?.landUpTo(clock);
    if (offset >= 0x100) return this.readUnit(this.unitAt(offset), offset & 0xff);
    const c = this.window;
    switch (offset) {
      case GLOBAL.ID: return TPU_ID_VALUE;
      case GLOBAL.CONFIG: {
        const t = this.cfg.tpu;
        return (packField(CONFIG_FIELD.ARRAY_DIM, t.mxuDim) | packField(CONFIG_FIELD.QUEUE_DEPTH, t.queueDepth)
          | packField(CONFIG_FIELD.SPAD_KIB, Math.min(255, t.spadKiB)) | packField(CONFIG_FIELD.REGION_KIB, t.regionKiB)) >>> 0;
      }
      case GLOBAL.ERROR: return this.errorReg;
      case GLOBAL.CYCLES_LO: return c.cycles >>> 0;
      case GLOBAL.CYCLES_HI: return Math.floor(c.cycles / 2 ** 32) >>> 0;
      case GLOBAL.MXU_BUSY: return c.busy[1] >>> 0;
      case GLOBAL.VPU_BUSY: return c.busy[2] >>> 0;
      case GLOBAL.DMA_BUSY: return c.busy[0] >>> 0;
      case GLOBAL.IDLE: return c.idle >>> 0;
      case GLOBAL.STALL: return c.stall >>> 0;
      case GLOBAL.OVERLAP: return c.overlap >>> 0;
      case GLOBAL.DEP_WAIT: return c.depWait >>> 0;
      default: return 0; // PERF_CTRL is write-only
    }
  }

  /** BOARD, RX_FULL or RX_COUNT: registers of the LINK block beyond the unit's own. */
  private isLinkRegister(offset: number): boolean {
    return this.link !== null && offset >> 8 === LINK_INDEX + 1 && (offset & 0xff) >= LINK_REG.BOARD;
  }

  private readUnit(u: UnitState<unknown, TpuUnitName>, reg: number): number {
    if (reg <= UNIT_REG.ARG5) return u.staging[reg >> 2];
    if (u === this.link && reg >= LINK_REG.BOARD) {
      const rx = this.linkRx!;
      if (reg === LINK_REG.BOARD) return (packField(LINK_BOARD_FIELD.INDEX, this.ring.index) | packField(LINK_BOARD_FIELD.COUNT, this.ring.count)) >>> 0;
      return reg === LINK_REG.RX_FULL ? rx.rxFull : rx.rxCount >>> 0;
    }
    if (u === this.seq && this.listMemory && reg >= SEQ_LIST_REG.LIST_PTR) {
      return reg === SEQ_LIST_REG.LIST_PTR ? this.listMemory.ptr : reg === SEQ_LIST_REG.RECORD ? +this.listMemory.recording : 0;
    }
    switch (reg) {
      case UNIT_REG.STATUS: return unitStatus(u);
      case UNIT_REG.ISSUED: return u.issued >>> 0;
      case UNIT_REG.DONE: return u.done >>> 0;
      default: return 0; // PUSH is write-only
    }
  }

  /**
   * A CPU store through the bus (boards/picotpu/bus.ts): isRegister, write and
   * extraWait in one call. Returns the wait clocks beyond the interconnect's
   * own (a stalled PUSH's), or -1 when `offset` holds no register (a bus error).
   * A compute unit's PUSH goes straight to push() where a PUSH may take no time
   * (the same effects as write()); the bus stores whole words into the staging
   * registers itself.
   */
  cpuWrite(offset: number, value: number, wstrb: number, clock: number): number {
    const index = (offset >> 8) - 1;
    if (index >= 0 && index < 3) {
      // A PUSH to a full queue too: roomFoundAt brings time up to date itself.
      if ((offset & 0xff) === UNIT_REG.PUSH && this.pushesTakeNoTime) {
        this.lastStall = 0;
        this.quietUntil = 0;
        this.push(this.units[index], value >>> 0, clock);
        return this.lastStall;
      }
    }
    if (!this.isRegister(offset)) return -1;
    this.write(offset, value, wstrb, clock);
    return this.lastStall;
  }

  write(offset: number, value: number, wstrb: number, clock: number): void {
    this.lastStall = 0;
    this.quietUntil = 0;
    // Staging registers are seen by no unit until PUSH: no need to bring time up to date.
    // Nor is a PUSH that finds room (pushTakesNoTime).
    if (offset < 0x100 || ((offset & 0xff) > UNIT_REG.ARG5 && !this.pushTakesNoTime(offset))) this.advanceTo(clock);
    if (offset >= 0x100) {
      this.writeUnit(this.unitAt(offset), offset & 0xff, value, wstrb, clock);
      return;
    }
    switch (offset) {
      case GLOBAL.PERF_CTRL:
        if (value & 1) {
          this.window.reset();
          this.counting = true;
          this.perfUsed = true;
        } else {
          if (this.counting) {
            if (this.windows.length < KEPT_RECORDS) this.windows.push(this.window.snapshot()); else this.windowsNotKept++;
          }
          this.counting = false;
        }
        break;
      case GLOBAL.ERROR:
        if (value !== 0) {
          this.errorReg = 0;
          for (const u of this.all) u.errorFlag = false;
        }
        break;
      default: break; // read-only registers ignore writes
    }
  }

  /**
   * A PUSH to a compute unit whose queue has room at the TPU's clock has room
   * at any later one: until the PUSH's clock only starts can change the queue,
   * and they take commands out. So the command goes in at its clock without
   * the clocks before it processed first: it cannot start before the clock
   * after its PUSH (the start rule), and no unit sees it before then. One
   * scheduling window less a command, and the units' windows run on across
   * the PUSH. Not with a sequencer (it pushes into the queues in its own
   * clocks) or a link, not under --strict (the machine plans its CPU from the
   * TPU's clock), and not for the reference models (literally clock by clock).
   */
  /** This TPU's configuration lets a PUSH with room take no time (pushTakesNoTime). */
  private readonly pushesTakeNoTime: boolean;

  private pushTakesNoTime(offset: number): boolean {
    if ((offset & 0xff) !== UNIT_REG.PUSH || !this.pushesTakeNoTime) return false;
    const u = (offset >> 8) - 1;
    return u < 3 && this.units[u].fifo.length < this.cfg.tpu.queueDepth;
  }

  private writeUnit(u: UnitState<unknown, TpuUnitName>, reg: number, value: number, wstrb: number, clock: number): void {
    if (reg <= UNIT_REG.ARG5) {
      const i = reg >> 2;
      u.staging[i] = mergeLanes(u.staging[i], value, wstrb);
    } else if (reg === UNIT_REG.PUSH) {
      this.push(u, value >>> 0, clock);
    } else if (u === this.seq && this.listMemory) {
      this.writeListRegister(reg, value);
    } else if (u === this.link && reg === LINK_REG.RX_FULL) {
      // A landing in this clock comes first: its slots are released too if the mask says so.
      this.linkRx!.landUpTo(clock);
      this.linkRx!.release(value >>> 0);
    }
  }

  /** LIST_PTR, LIST_DATA and RECORD (SEQ block, with a list memory; hardware.md §5.11). */
  private writeListRegister(reg: number, value: number): void {
    const lm = this.listMemory!;
    if (reg === SEQ_LIST_REG.LIST_PTR) lm.setPtr(value);
    else if (reg === SEQ_LIST_REG.LIST_DATA) lm.writeWord(value >>> 0);
    else if (reg === SEQ_LIST_REG.RECORD) lm.setRecording((value & 1) !== 0, [this.units[0].issued, this.units[1].issued, this.units[2].issued]);
  }

  /** RECORD's capture of a CPU PUSH to compute unit u; a list memory full (or a misaligned LIST_PTR) is a RANGE error of the sequencer. */
  private capturePush(u: UnitState<unknown, TpuUnitName>, value: number, clock: number): void {
    const lm = this.listMemory!, at = lm.ptr;
    if (lm.capture(u.index, u.staging, unpackField(PUSH_FIELD.OPCODE, value), unpackField(PUSH_FIELD.FLAGS, value))) return;
    const seq = this.seq!;
    this.recordError({ clock, unit: 'SEQ', serial: seq.issued, code: ERR.RANGE, codeName: 'RANGE', command: 'RECORD',
      detail: `the captured ${u.name} command does not fit at list-memory address 0x${at.toString(16)} (${lm.bytes.length} bytes, entries 32-byte aligned); RECORD is off` }, seq.issued, seq);
  }

  extraWait(): number {
    return this.lastStall;
  }

  private push(u: UnitState<unknown, TpuUnitName>, value: number, clock: number): void {
    const depth = this.cfg.tpu.queueDepth;
    let at = clock;
    if (u.fifo.length >= depth) {
      at = this.pushesTakeNoTime ? this.roomFoundAt(u, clock) : this.waitForRoom(u);
      if (at < 0) return;
      // (A queue found full before the PUSH's clock may have room by then: no stall.)
      if (at > clock) this.countStall(u, clock, at);
    }
    if (this.listMemory?.recording && u !== this.seq && u !== this.link) this.capturePush(u, value, at);
    u.fifo.push(u.takeCmd(value, at));
    // A new head of an idle unit may start earlier than any other (stepPlain's startAt).
    if (u.fifo.length === 1 && u.running === null) this.startAt = Math.min(this.startAt, Math.max(at + 1, u.lastEnd + 1));
    u.issued++;
    this.lastPushClock = at;
    this.onPush?.();
  }

  /** A PUSH at `clock` accepted at `at`: the CPU's wait, STALL, the stall records. */
  private countStall(u: UnitState<unknown, TpuUnitName>, clock: number, at: number): void {
    this.lastStall = at - clock;
    if (this.stallRecords !== null && u.index < 3) this.stallRecords.push({ unit: UNIT_NAMES[u.index], from: clock, to: at });
    this.whole.stall += this.lastStall;
    if (this.counting) this.window.stall += this.lastStall;
  }

  /**
   * A PUSH stall, clock by clock as the CPU waits: the windows up to the one
   * that starts a command of `u`'s full queue, which ends after that clock.
   * Returns the clock the PUSH is accepted at (the TPU's clock), or -1 when it
   * did not happen (a ring's horizon, or a deadlock that stops the machine).
   */
  private waitForRoom(u: UnitState<unknown, TpuUnitName>): number {
    const depth = this.cfg.tpu.queueDepth;
    this.pushWaitUnit = u.index;
    while (u.fifo.length >= depth) {
      if (this.linkRx && this.linkRx.horizon !== Number.POSITIVE_INFINITY) {
        if (!this.stallWithinHorizon(this.linkRx.horizon)) return -1;
      } else if (!(this.plain ? this.stepPlain(Number.POSITIVE_INFINITY) : this.step(Number.POSITIVE_INFINITY))) {
        this.pushWaitUnit = -1;
        this.stopMachine(this.fullQueueDeadlock(u.name));
        return -1;
      }
    }
    this.pushWaitUnit = -1;
    return this.clock;
  }

  /**
   * waitForRoom() where a PUSH with room takes no time (pushTakesNoTime), for
   * a PUSH at `clock` that found `u`'s queue full at the TPU's clock (not
   * later than `clock`): the windows up to the clock c whose starts take a
   * command out of that queue. From c ≥ `clock` on, the PUSH is accepted at
   * c + 1, as waitForRoom's; before, it is not stalled. Clock c itself is not
   * processed yet (its starts are: startAt is past c): it goes into the next
   * window, with the ones after it, instead of a window of its own, as the
   * command pushed then cannot start before c + 2. Nor are the clocks before
   * `clock` processed first in windows that end there. Returns -1 on a
   * deadlock (the queue can never drain: the machine stops).
   */
  private roomFoundAt(u: UnitState<unknown, TpuUnitName>, clock: number): number {
    const depth = this.cfg.tpu.queueDepth;
    for (;;) {
      const c = this.clock;
      if (c >= this.startAt) {
        this.startPlain(c);
        if (u.fifo.length < depth) return c + 1 > clock ? c + 1 : clock;
      }
      if (!this.stepPlain(Number.POSITIVE_INFINITY)) {
        // The counters count the idle clocks up to the PUSH, as when time is brought up to it first.
        this.advanceTo(clock);
        this.stopMachine(this.fullQueueDeadlock(u.name));
        return -1;
      }
    }
  }

  /**
   * One window of a PUSH stall on a board of a ring (boards/picotpu/ring.ts): the clocks
   * before `horizon` may be processed, later ones not yet (a landing may still
   * come). False when the PUSH cannot go on now: it did not happen
   * (pushBlocked: the CPU restarts it later; the clocks processed stay, as the
   * CPU only waits), or the queue can never drain (a deadlock, the machine stops).
   */
  private stallWithinHorizon(horizon: number): boolean {
    // Seen before any clock is processed, as one board sees it (step() finds nothing to do):
    // the TPU's clock, and so its counters, stop where they stop on one board.
    if (this.deadlockFrom() >= 0) {
      const unit = this.blocks[this.pushWaitUnit]!.name;
      this.pushWaitUnit = -1;
      this.stopMachine(this.fullQueueDeadlock(unit));
      return false;
    }
    if (this.clock >= horizon) {
      this.pushWaitUnit = -1;
      this.pushBlocked = true;
      return false;
    }
    this.step(horizon);
    return true;
  }

  /**
   * The line of a PUSH to a full queue that can never drain. Its clock is the
   * deadlock's first (deadlockFrom, §5.3), as for a poll of a deadlocked TPU:
   * not the clock it was found at, which depends on when the PUSH came and, on a
   * ring of boards, on the host's interleaving.
   */
  private fullQueueDeadlock(unit: TpuUnitName): string {
    return `TPU deadlock at clock ${this.deadlockFrom()}: a PUSH to the full ${unit} queue can never be accepted: ${this.blockedText()}`;
  }

  /** Called after every accepted PUSH (the strict machine re-plans the CPU's run). */
  onPush: (() => void) | null = null;

  /**
   * A clock no later than the next at which a command can start (and so be
   * dropped with an error); Infinity when no command is waiting or running.
   */
  nextStartClock(): number {
    let next = Number.POSITIVE_INFINITY;
    // A running sequencer may push in any clock: ISSUED and STATUS may change now.
    if (this.seq?.running) return this.clock;
    for (let i = 0; i < this.all.length; i++) {
      const u = this.all[i];
      if (u.running) {
        next = Math.min(next, this.reference ? this.clock + 1 : this.clock + (u.model as UnitModel).horizon(this.clock));
      } else if (u.fifo.length > 0 && !this.tokenUnmet(u.fifo[0])) {
        next = Math.min(next, Math.max(this.clock, u.headReady()));
      }
      // A head whose token is unmet cannot start before some DONE changes,
      // that is before another command ends or starts: that unit's clock bounds it.
    }
    // A landing changes RX_FULL and RX_COUNT, and may be an OVERRUN.
    if (this.linkRx) next = Math.min(next, Math.max(this.clock, this.linkRx.nextLand));
    return next;
  }

  /** Does `cmd` wait on a DONE count not reached yet? */
  private tokenUnmet(cmd: Cmd): boolean {
    const tokenUnit = unpackField(TOKEN_FIELD.UNIT, cmd.token);
    return tokenUnit !== 0 && this.units[tokenUnit - 1].done < unpackField(TOKEN_FIELD.TICKET, cmd.token);
  }

  /**
   * The first clock of a wait-token deadlock in force now, or -1: no command
   * runs and every waiting head's token is unmet, so no DONE can change and
   * nothing can start until the CPU pushes. It began the clock after the last
   * end (or drop) or accepted PUSH, whichever came later.
   */
  private deadlockFrom(): number {
    let waiting = false, last = this.lastPushClock;
    for (let i = 0; i < this.all.length; i++) {
      const u = this.all[i];
      // A sequencer holding an entry for a full queue, or a WAIT, moves only when a unit does:
      // it waits, as a token-blocked head does.
      if (u.running) {
        if (!(u === this.seq && this.seq.model.waitingOn >= 0)) return -1;
        waiting = true;
      }
      if (u.fifo.length > 0) {
        if (!this.tokenUnmet(u.fifo[0])) return -1;
        waiting = true;
      }
      if (u.lastEnd > last) last = u.lastEnd;
    }
    return waiting ? last + 1 : -1;
  }

  /** A CPU read at `clock`: stops the machine when it polls a deadlocked TPU (docs/hardware.md §5.3). */
  private watchDeadlock(clock: number): void {
    const from = this.deadlockFrom();
    if (from < 0) {
      this.stuckFrom = -1;
      return;
    }
    if (from !== this.stuckFrom) {
      this.stuckFrom = from;
      this.stuckReads = 0;
    }
    if (++this.stuckReads >= 2 && clock - from >= DEADLOCK_POLL_CLOCKS && !this.fatal) {
      this.stopMachine(`TPU deadlock at clock ${from}: no TPU command can ever start: ${this.blockedText()}; `
        + `the CPU polls DONE/STATUS with no PUSH since (detected at clock ${clock})`);
    }
  }

  /** What each waiting head waits on, and the state of the unit it waits on. */
  private blockedText(): string {
    const seq = this.seq;
    const held = seq?.running && seq.model.waitingOn === WAITING_ON_TOKEN
      ? [`SEQ command #${seq.running.serial} (${seq.rules.describe(seq.running)}) holds a WAIT entry whose token is not met`] : [];
    return held.concat(this.all.filter((u) => u.fifo.length > 0)
      .map((u) => {
        const head = u.fifo[0], t = head.token;
        const what = `${u.name} command #${head.serial} (${u.rules.describe(head)})`;
        const tokenUnit = unpackField(TOKEN_FIELD.UNIT, t);
        if (!tokenUnit) return what;
        const on = this.units[tokenUnit - 1];
        const queue = on.fifo.length === 0 ? 'queue empty'
          : `${on.fifo.length} queued, ${on === u ? 'this head first' : this.tokenUnmet(on.fifo[0]) ? 'its head waiting too' : 'its head ready'}`;
        return `${what} waits for ${on.name} DONE ${unpackField(TOKEN_FIELD.TICKET, t)}: ${on.name} has DONE ${on.done} of ${on.issued} issued, `
          + `${on.running ? 'running' : 'idle'}, ${queue}`;
      })).join('; ');
  }

  // ---- the SRAM bus, shared with the CPU ----

  cpuSramAccess(clock: number, busClocks: number): void {
    this.quietUntil = 0; // the DMA's timing changes
    this.advanceTo(clock);
    this.sram.reserveForCpu(clock, busClocks);
    // The bytes move while the CPU holds the bus; bring the DMA up to then.
    this.advanceTo(this.sram.cpuFrom);
  }

  // ---- time ----

  /** Processes every clock before `target`. */
  advanceTo(target: number): void {
    if (this.plain) {
      while (this.clock < target) this.stepPlain(target);
    } else {
      while (this.clock < target) this.step(target);
    }
  }

  /**
   * Processes one window of clocks from this.clock, at most up to `limit`.
   * Returns false when nothing can ever happen again (no limit given and no
   * unit can run): the caller is waiting for a deadlocked queue.
   */
  private step(limit: number): boolean {
    const c = this.clock;
    const units = this.units;
    const seq = this.seq;
    const link = this.link;
    // A landing comes first in its clock: every read in it sees the message.
    if (link !== null) this.linkRx!.landUpTo(c);
    // The sequencer's fetch and push come first in a clock: it sees the queues as
    // the clock begins (after the CPU's PUSH of this clock), as a PUSH would.
    if (seq?.running && seq.model.act(c)) this.finishSeq(seq, c);
    // A drop changes DONE at c: a token waiting on it may start at c + 1.
    const dropped = this.startCommands(c);

    let n = limit - c;
    let busyMask = 0, depMask = 0;
    // The models' calls are written out per unit: each call site then sees one class (fast path).
    const dma = units[0], mxu = units[1], vpu = units[2];
    if (!this.reference) {
      if (dma.running) n = Math.min(n, dma.model.horizon(c));
      if (mxu.running) n = Math.min(n, mxu.model.horizon(c));
      if (vpu.running) n = Math.min(n, vpu.model.horizon(c));
    }
    for (let i = 0; i < units.length; i++) {
      const u = units[i];
      if (u.running) {
        busyMask |= 1 << u.index;
        if (this.reference) n = 1;
      } else if (u.fifo.length > 0) {
        const ready = u.headReady();
        if (ready > c) n = Math.min(n, ready - c);
        else if (u.depWaiting) depMask |= 1 << u.index;
        else n = 1; // a head that is ready starts next clock (dropped this clock)
      }
    }
    if (seq) n = this.seqWindow(seq, c, n);
    if (link !== null) {
      n = this.linkWindow(link, c, n);
      depMask |= this.linkDepMask;
    }
    if (this.pushWaitUnit >= 0 && this.blocks[this.pushWaitUnit]!.fifo.length < this.cfg.tpu.queueDepth) n = 1;
    if (dropped) n = 1;
    if (n === Number.POSITIVE_INFINITY) return false;
    if (seq && seq.fifo.length > 0 && !seq.running && seq.depWaiting) depMask |= 1 << seq.index;
    if (n > 1 && this.coupled()) n = 1;
    if (this.reference) n = 1;

    this.whole.add(n, busyMask, depMask);
    if (this.counting) this.window.add(n, busyMask, depMask);
    if (link !== null) this.linkBusy(link, n);

    if (n === 1) {
      // A fast MXU no other unit is coupled to skips the clock: its reads may stay deferred (mxu.ts).
      const mxuSkips = !this.reference && mxu.running !== null && !this.coupled();
      // Written out per unit, as below: a call site that met one model class first and another
      // later would throw away the compiled code of the function it is in.
      if (dma.running) dma.model.tickRead(c);
      if (mxu.running && !mxuSkips) mxu.model.tickRead(c);
      if (vpu.running) vpu.model.tickRead(c);
      // The link writes no memory in a clock: its read and its end may come before the units' writes.
      if (link !== null) this.linkClock(link, c);
      if (dma.running && dma.model.tickWrite(c)) this.finish(dma, c);
      if (mxu.running && (mxuSkips ? mxu.model.skip(c, 1) : mxu.model.tickWrite(c))) this.finish(mxu, c);
      if (vpu.running && vpu.model.tickWrite(c)) this.finish(vpu, c);
      if (this.reference) this.checkPorts(c);
    } else {
      if (dma.running && dma.model.skip(c, n)) this.finish(dma, c + n - 1);
      if (mxu.running && mxu.model.skip(c, n)) this.finish(mxu, c + n - 1);
      if (vpu.running && vpu.model.skip(c, n)) this.finish(vpu, c + n - 1);
      if (link !== null) this.linkSkip(link, c, n);
    }
    this.clock = c + n;
    return true;
  }

  /**
   * Whether this TPU is the usual one: fast models, no sequencer, no link.
   * Its windows are then processed by stepPlain, step() without the checks
   * for the others.
   */
  private readonly plain: boolean;

  /**
   * No command can start (or be dropped, or have its wait token met) before
   * this clock; 0: to be worked out by the next startCommands. Exact after
   * each startCommands (the earliest head's start, a drop's next clock) and
   * kept so by a PUSH and by an end (the unit's next head; the clock after
   * it for a head waiting on a token its DONE meets). Only
   * stepPlain relies on it: it calls startCommands only then.
   */
  private startAt = 0;

  /**
   * step() for the usual TPU (`plain`): the same window, the same order of
   * calls into the models, with no sequencer, link or reference model to
   * consider, and startCommands only in a clock in which a command may start.
   */
  private stepPlain(limit: number): boolean {
    const c = this.clock;
    const units = this.units;
    const dma = units[0], mxu = units[1], vpu = units[2];
    const dropped = c >= this.startAt && this.startPlain(c);

    let n = limit - c;
    // The earliest idle head's start ends the window before it (startAt > c here).
    if (this.startAt - c < n) n = this.startAt - c;
    let busyMask = 0, depMask = 0;
    if (dma.running !== null) {
      busyMask = 1;
      n = Math.min(n, dma.model.horizon(c));
    } else if (dma.depWaiting) depMask = 1;
    if (mxu.running !== null) {
      busyMask |= 2;
      n = Math.min(n, mxu.model.horizon(c));
    } else if (mxu.depWaiting) depMask |= 2;
    if (vpu.running !== null) {
      busyMask |= 4;
      n = Math.min(n, vpu.model.horizon(c));
    } else if (vpu.depWaiting) depMask |= 4;
    if (this.pushWaitUnit >= 0 && units[this.pushWaitUnit].fifo.length < this.cfg.tpu.queueDepth) n = 1;
    if (dropped) n = 1;
    if (n === Number.POSITIVE_INFINITY) return false;
    if (n > 1 && (this.coupledCache ?? this.coupled())) n = 1;

    this.whole.add(n, busyMask, depMask);
    if (this.counting) this.window.add(n, busyMask, depMask);

    if (n === 1) {
      this.plainClock(c);
    } else {
      if (dma.running !== null && dma.model.skip(c, n)) this.finish(dma, c + n - 1);
      if (mxu.running !== null && mxu.model.skip(c, n)) this.finish(mxu, c + n - 1);
      if (vpu.running !== null && vpu.model.skip(c, n)) this.finish(vpu, c + n - 1);
    }
    this.clock = c + n;
    return true;
  }

  /**
   * stepPlain's window of one clock, c: the units' reads, then their writes.
   * A function of its own: a window of one clock is rare, and stepPlain,
   * smaller, is compiled sooner.
   */
  private plainClock(c: number): void {
    const units = this.units;
    const dma = units[0], mxu = units[1], vpu = units[2];
    // A fast MXU no other unit is coupled to skips the clock: its reads may stay deferred (mxu.ts).
    const mxuSkips = mxu.running !== null && !this.coupled();
    if (dma.running !== null) dma.model.tickRead(c);
    if (mxu.running !== null && !mxuSkips) mxu.model.tickRead(c);
    if (vpu.running !== null) vpu.model.tickRead(c);
    if (dma.running !== null && dma.model.tickWrite(c)) this.finish(dma, c);
    if (mxu.running !== null && (mxuSkips ? mxu.model.skip(c, 1) : mxu.model.tickWrite(c))) this.finish(mxu, c);
    if (vpu.running !== null && vpu.model.tickWrite(c)) this.finish(vpu, c);
  }

  /**
   * The window from c allowed by the sequencer: one clock when it will fetch or
   * push at c + 1 or its next RUN may start then; unbounded while it waits on
   * a full queue (that queue drains only at a start, which ends the window).
   */
  private seqWindow(seq: UnitState<SeqModel, 'SEQ'>, c: number, n: number): number {
    if (seq.running) {
      const on = seq.model.waitingOn;
      if (on === WAITING_ON_TOKEN) return seq.model.tokenMet() ? 1 : n; // DONE changes only at an end or a drop
      return on < 0 || this.units[on].fifo.length < this.cfg.tpu.queueDepth ? 1 : n;
    }
    if (seq.fifo.length === 0 || seq.depWaiting) return n;
    const ready = seq.headReady();
    return ready > c ? Math.min(n, ready - c) : 1;
  }

  /**
   * The window from c allowed by the link: a running SEND's horizon, its
   * next command's start, and the next landing (it comes first in its clock,
   * so the window ends before it).
   */
  private linkWindow(link: UnitState<LinkFast | LinkReference, 'LINK'>, c: number, n: number): number {
    this.linkDepMask = !link.running && link.fifo.length > 0 && link.depWaiting ? 1 << LINK_INDEX : 0;
    if (link.running) {
      n = this.reference ? 1 : Math.min(n, link.model.horizon(c));
    } else if (link.fifo.length > 0) {
      const ready = link.headReady();
      if (ready > c) n = Math.min(n, ready - c);
      else if (!link.depWaiting) n = 1;
    }
    const land = this.linkRx!.nextLand;
    return land - c < n ? land - c : n;
  }

  /** LINK's bit of DEP_WAIT's mask in the window linkWindow() planned. */
  private linkDepMask = 0;

  /** LINK's busy clocks, its own figure: IDLE and OVERLAP stay the compute units' (hardware.md §5.12). */
  private linkBusy(link: UnitState<LinkFast | LinkReference, 'LINK'>, n: number): void {
    if (!link.running) return;
    this.linkStats.busy += n;
    if (this.counting) this.linkStats.windowBusy += n;
  }

  /** One clock of a running SEND: its read, then maybe its end. */
  private linkClock(link: UnitState<LinkFast | LinkReference, 'LINK'>, c: number): void {
    if (!link.running) return;
    link.model.tickRead(c);
    if (link.model.tickWrite(c)) this.finishLink(link, c);
  }

  /** A window of n clocks of a running SEND (fast model). */
  private linkSkip(link: UnitState<LinkFast | LinkReference, 'LINK'>, c: number, n: number): void {
    if (link.running && link.model.skip(c, n)) this.finishLink(link, c + n - 1);
  }

  /** A SEND's last clock was `end`: its message leaves for the next board. */
  private finishLink(link: UnitState<LinkFast | LinkReference, 'LINK'>, end: number): void {
    const cmd = link.running!, m = link.model.message!;
    this.linkRecords?.push({ unit: 'LINK', serial: cmd.serial, command: link.rules.describe(cmd), pushClock: cmd.pushClock, startClock: link.runningStart, endClock: end });
    link.running = null;
    this.coupledCache = null;
    clearFootprint(link.footprint);
    link.done++;
    link.lastEnd = end;
    this.linkStats.messages++;
    this.linkStats.bytes += m.rows * m.rowBytes;
    link.model.message = null;
    this.linkOut!(m);
  }

  // ---- the sequencer's view of the core (SeqPort) ----

  hasRoom(unit: number): boolean {
    return this.units[unit].fifo.length < this.cfg.tpu.queueDepth;
  }

  feed(unit: number, args: Uint32Array, token: number, opcode: number, flags: number, clock: number, entry: number): void {
    const u = this.units[unit];
    u.fifo.push(u.takeEntry(args, token, opcode, flags, clock, entry));
    this.startAt = 0;
    u.issued++;
    this.lastPushClock = clock;
  }

  issued(unit: number): number {
    return this.units[unit].issued;
  }

  doneCount(unit: number): number {
    return this.units[unit].done;
  }

  badEntry(index: number, clock: number, detail: string): void {
    const seq = this.seq!, cmd = seq.running!;
    this.recordError({ clock, unit: 'SEQ', serial: cmd.serial, code: ERR.BAD_ENTRY, codeName: 'BAD_ENTRY', command: seq.rules.describe(cmd),
      detail: `entry ${index} is bad: ${detail}; the list stops there` }, index, seq);
  }

  private finishSeq(seq: UnitState<SeqModel, 'SEQ'>, end: number): void {
    const cmd = seq.running!;
    this.seqRecords?.push({ unit: 'SEQ', serial: cmd.serial, command: seq.rules.describe(cmd), pushClock: cmd.pushClock, startClock: seq.runningStart, endClock: end });
    seq.running = null;
    this.coupledCache = null;
    seq.footprint.read = 0;
    seq.done++;
    seq.lastEnd = end;
  }

  /** coupled()'s answer while no command starts or ends; null: to be worked out. */
  private coupledCache: boolean | null = false;

  /** Does a running unit write a region another running unit reads? Then step clock by clock. */
  private coupled(): boolean {
    if (this.coupledCache === null) this.coupledCache = this.findCoupling();
    return this.coupledCache;
  }

  private findCoupling(): boolean {
    let reads = 0, writes = 0, hazard = false;
    for (let i = 0; i < this.units.length; i++) {
      const u = this.units[i];
      if (!u.running) continue;
      if ((u.footprint.write & reads) || (u.footprint.read & writes)) hazard = true;
      reads |= u.footprint.read;
      writes |= u.footprint.write;
    }
    const link = this.link;
    if (link === null) return hazard;
    if (link.running) {
      if (link.footprint.read & writes) hazard = true;
      reads |= link.footprint.read;
    }
    // A message on its way writes the mailbox when it lands: its readers step clock by clock meanwhile.
    return hazard || (this.linkRx!.pending && (reads & this.mailboxMask) !== 0);
  }

  /** DONE counts as of the start of the clock being processed: a token sees a drop in the same clock only from the next. */
  private readonly doneAtStart = [0, 0, 0];

  /** Starts (or drops) the commands that may start at clock c; returns true if any was dropped. */
  private startCommands(c: number): boolean {
    const units = this.units, all = this.all;
    // Most clocks start nothing: no idle unit has a head that may start.
    let startable = false;
    for (let i = 0; i < all.length; i++) {
      const u = all[i];
      if (u.depWaiting || (!u.running && u.fifo.length > 0 && u.headReady() <= c)) startable = true;
    }
    if (!startable) {
      this.startAt = this.nextHeadClock();
      return false;
    }
    for (let i = 0; i < 3; i++) this.doneAtStart[i] = units[i].done;
    const doneBefore = units[0].done + units[1].done + units[2].done;
    for (let i = 0; i < all.length; i++) this.startHead(all[i], c);
    // (A dropped RUN changes only the sequencer's DONE, which no token names.)
    const dropped = units[0].done + units[1].done + units[2].done !== doneBefore;
    // After a drop a waiting token may be met at c + 1.
    this.startAt = dropped ? c + 1 : this.nextHeadClock();
    return dropped;
  }

  /**
   * startCommands() for the usual TPU (stepPlain), called only in a clock at
   * or after startAt: there is a head to start, drop or check the token of.
   */
  private startPlain(c: number): boolean {
    const units = this.units, dma = units[0], mxu = units[1], vpu = units[2];
    const doneAtStart = this.doneAtStart;
    doneAtStart[0] = dma.done;
    doneAtStart[1] = mxu.done;
    doneAtStart[2] = vpu.done;
    const doneBefore = dma.done + mxu.done + vpu.done;
    // Only an idle unit with a head has one to start (a busy or empty one waits on no token either).
    if (dma.running === null && dma.fifo.length > 0) this.startHead(dma, c);
    if (mxu.running === null && mxu.fifo.length > 0) this.startHead(mxu, c);
    if (vpu.running === null && vpu.fifo.length > 0) this.startHead(vpu, c);
    const dropped = dma.done + mxu.done + vpu.done !== doneBefore;
    this.startAt = dropped ? c + 1 : this.nextHeadClock();
    return dropped;
  }

  /** Starts (or drops) unit u's head if it may start at clock c, or marks it waiting on its token. */
  private startHead(u: UnitState<UnitModel | SeqModel, TpuUnitName>, c: number): void {
    u.depWaiting = false;
    if (u.running !== null || u.fifo.length === 0 || u.headReady() > c) return;
    const cmd = u.fifo[0], token = cmd.token;
    const tokenUnit = (token >>> TOKEN_UNIT_LSB) & TOKEN_UNIT_MASK;
    if (tokenUnit !== 0 && this.doneAtStart[tokenUnit - 1] < ((token >>> TOKEN_TICKET_LSB) & TOKEN_TICKET_MASK)) {
      u.depWaiting = true;
      return;
    }
    u.fifo.shift();
    // The footprint goes into the unit's own (all zero while it is idle), cleared again on a drop.
    const fp = u.footprint;
    const code = u.rules.admit(cmd, fp);
    if (code !== 0) {
      const doc = ERROR_CODES.find((e) => e.value === code)!.doc;
      this.drop(u, cmd, c, code, u === this.link ? (u.rules as ReturnType<typeof linkRules>).explain(cmd, code) || doc : doc);
      return;
    }
    if (fp.sameRegion) {
      clearFootprint(fp);
      this.drop(u, cmd, c, ERR.SAME_REGION, 'two of its operands read the same region');
      return;
    }
    const holder = this.portHolder(u, fp);
    if (holder !== PORTS_FREE) {
      const detail = this.portClash(fp, holder);
      clearFootprint(fp);
      this.drop(u, cmd, c, ERR.PORT_CONFLICT, detail);
      return;
    }
    u.running = cmd;
    this.coupledCache = null;
    u.runningStart = c;
    u.model.begin(cmd, c);
  }

  /** The first clock at which an idle unit's head not waiting on its token may start; Infinity when there is none. */
  private nextHeadClock(): number {
    let next = Number.POSITIVE_INFINITY;
    const all = this.all;
    for (let i = 0; i < all.length; i++) {
      const u = all[i];
      if (u.running === null && u.fifo.length > 0 && !u.depWaiting) {
        const ready = u.headReady();
        if (ready < next) next = ready;
      }
    }
    return next;
  }

  /** Describes the first port of `fp` that a running command already holds, or ''. */
  /**
   * The port rule at a start: PORTS_FREE, PORT_OF_MAILBOX when `fp` writes the link's mailbox
   * region, else the index in `all` of the first running unit that holds a port `fp` needs.
   */
  private portHolder(u: UnitState<unknown, TpuUnitName>, fp: Footprint): number {
    if ((fp.write & this.mailboxMask) !== 0) return PORT_OF_MAILBOX;
    const all = this.all;
    for (let i = 0; i < all.length; i++) {
      const o = all[i];
      if (o !== u && o.running !== null && ((fp.read & o.footprint.read) | (fp.write & o.footprint.write)) !== 0) return i;
    }
    return PORTS_FREE;
  }

  /** The error line's detail for a start portHolder() refused: which port, held by what. */
  private portClash(fp: Footprint, holder: number): string {
    if (holder === PORT_OF_MAILBOX) {
      const mailbox = fp.write & this.mailboxMask;
      return `the write port of region ${31 - Math.clz32(mailbox & -mailbox)} is the link's: it is the mailbox (hardware.md §5.12)`;
    }
    const o = this.all[holder], running = o.running!;
    const r = fp.read & o.footprint.read, w = fp.write & o.footprint.write;
    const region = 31 - Math.clz32((r | w) & -(r | w));
    return `the ${r ? 'read' : 'write'} port of region ${region} is held by ${o.name} command #${running.serial} `
      + `(${o.rules.describe(running)})`;
  }

  /** Reference model: the port rule, checked literally every clock. */
  private checkPorts(c: number): void {
    let reads = 0, writes = 0;
    for (const u of this.all) {
      if (!u.running) continue;
      if ((u.footprint.read & reads) || (u.footprint.write & writes)) {
        throw new Error(`internal: two running commands hold one port at clock ${c}`);
      }
      reads |= u.footprint.read;
      writes |= u.footprint.write;
    }
  }

  private finish(u: UnitState, end: number): void {
    const cmd = u.running!;
    this.records?.push({ unit: u.name, serial: cmd.serial, command: u.rules.describe(cmd), pushClock: cmd.pushClock, startClock: u.runningStart, endClock: end });
    u.running = null;
    this.coupledCache = null;
    clearFootprint(u.footprint);
    u.done++;
    u.lastEnd = end;
    // Its next head may start now, and a head whose token this DONE meets may start in the next clock.
    let startAt = this.startAt;
    if (u.fifo.length > 0) startAt = Math.min(startAt, u.headReady());
    const units = this.units;
    if ((units[0].depWaiting && this.tokenMetBy(units[0], u)) || (units[1].depWaiting && this.tokenMetBy(units[1], u))
      || (units[2].depWaiting && this.tokenMetBy(units[2], u))) startAt = Math.min(startAt, end + 1);
    this.startAt = startAt;
  }

  /** Is the token w's head waits on (w.depWaiting) one that u's DONE now meets? */
  private tokenMetBy(w: UnitState, u: UnitState): boolean {
    const token = w.fifo[0].token;
    return ((token >>> TOKEN_UNIT_LSB) & TOKEN_UNIT_MASK) === u.index + 1 && u.done >= ((token >>> TOKEN_TICKET_LSB) & TOKEN_TICKET_MASK);
  }

  private drop(u: UnitState<unknown, TpuUnitName>, cmd: Cmd, c: number, code: number, detail: string): void {
    const codeName = ERROR_CODES.find((e) => e.value === code)!.name;
    const from = cmd.entry !== undefined && cmd.entry >= 0 ? ` (pushed by sequencer list entry ${cmd.entry})` : '';
    this.recordError({ clock: c, unit: u.name, serial: cmd.serial, code, codeName, command: u.rules.describe(cmd), detail: detail + from }, cmd.serial, u);
    u.done++;
    u.lastEnd = c;
  }

  /** Keeps `err`, sets ERROR (SERIAL = `serial`) if clear and the unit's STATUS error bit; stops a strict machine. */
  private recordError(err: TpuError, serial: number, u: UnitState<unknown, TpuUnitName>): void {
    // Memory stays bounded however long a firmware keeps dropping commands: the first
    // KEPT_RECORDS are kept in full (reports, observers), the rest only counted.
    if (this.errors.length < KEPT_RECORDS) this.errors.push(err); else this.errorsNotKept++;
    if (this.errorReg === 0) {
      this.errorReg = (packField(ERROR_FIELD.CODE, err.code) | packField(ERROR_FIELD.UNIT, u.index + 1)
        | packField(ERROR_FIELD.SERIAL, serial)) >>> 0;
    }
    u.errorFlag = true;
    if (this.strict && !this.fatal) this.stopMachine(describeError(err));
  }

  private stopMachine(message: string): void {
    if (!this.fatal) this.fatal = message;
    this.onFatal?.();
  }

  /** Called when the machine must stop (wired to the bus by the Machine). */
  onFatal: (() => void) | null = null;

  // ---- reports ----

  /** The counters of the PERF_CTRL window, or of the whole run when the firmware never used it. */
  report(): CounterSnapshot {
    return (this.perfUsed ? this.window : this.whole).snapshot();
  }

  get usedPerfCtrl(): boolean {
    return this.perfUsed;
  }

  /** Whether the PERF_CTRL window is counting now (else frozen or never started). */
  get perfCounting(): boolean {
    return this.counting;
  }
}

/** `old` with the byte lanes of `wstrb` taken from `value`. */
function mergeLanes(old: number, value: number, wstrb: number): number {
  const mask = (wstrb & 1 ? 0xff : 0) | (wstrb & 2 ? 0xff00 : 0) | (wstrb & 4 ? 0xff0000 : 0) | (wstrb & 8 ? 0xff000000 : 0);
  return (old & ~mask) | (value & mask);
}

/** An idle unit's footprint: no region. */
function clearFootprint(fp: Footprint): void {
  fp.read = 0;
  fp.write = 0;
  fp.sameRegion = false;
}

export function describeError(e: TpuError): string {
  // An OVERRUN is the receiver's: no command of its own is dropped, the message lands anyway.
  if (e.code === ERR.OVERRUN) return `TPU error at clock ${e.clock}: LINK: OVERRUN: ${e.detail}`;
  // A bad list entry stops its RUN there; every other error drops the command.
  return `TPU error at clock ${e.clock}: ${e.unit} command #${e.serial} (${e.command}) ${e.code === ERR.BAD_ENTRY ? 'stopped' : 'dropped'}: `
    + `${e.codeName}: ${e.detail}`;
}
