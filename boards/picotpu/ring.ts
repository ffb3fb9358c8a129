// N picotpu boards on a ring (docs/hardware.md §5.12): board k's link TX
// drives board (k+1) mod N's RX. Each board is a whole Machine (CPU, bus,
// TPU, SRAM) loaded with the same ELF; all share one 12 MHz clock.
//
// Exactness by conservative synchronisation. Board k depends on board k−1
// only through messages landing in its mailbox, and a message lands
// linkLatency clocks after its SEND's last clock, which is fixed when the
// SEND starts. So with D(k−1) a clock before which no message of board k−1
// not yet delivered can land (bound() below), board k's TPU may process every
// clock before D(k−1): its horizon. The boards run in slices
// (Machine.advance); a TPU or SRAM access at a clock the TPU may not process
// yet does not happen: the CPU restarts that instruction later (boards/picotpu/link-bus.ts,
// StopReason.BLOCKED) with nothing changed. No board ever sees a state that
// depends on how the host interleaves them, so every clock and byte is the
// same for any slice size and any order (test/multi.test.ts).
//
// No deadlock: a board blocked at an access clock t ≥ its horizon H gets its
// TPU processed up to H − sramBridgeWait at least (boards/picotpu/link-bus.ts), so its own bound
// is at least H − sramBridgeWait + linkLatency > H (config: linkLatency >
// sramBridgeWait): every board's horizon grows by at least one clock per
// round of the ring, so some board always moves. A round in which none moves
// is an internal error, reported with every board's state.

import { applyOverrides, type PlatformConfig } from '../../emu/config.ts';
import { StopReason } from '../../emu/cpu.ts';
import type { MachineOptions, RunResult } from '../../emu/machine.ts';
import { Machine } from '../machine.ts';
import { PICOTPU } from './board.ts';
import type { LinkBus } from './link-bus.ts';
import { unitStatus } from '../../periph/tpu.ts';

/** The link's figures of one board. */
export interface LinkFigures {
  /** Clocks LINK executed a SEND (whole run). */
  busy: number;
  /** Bytes and messages this board sent (SENDs finished). */
  bytes: number;
  messages: number;
  /** Messages landed in this board's mailbox (RX_COUNT) and RX_FULL at the stop. */
  received: number;
  rxFull: number;
}

export interface BoardsResult {
  /** Each board's result, as a one-board run reports it. */
  boards: RunResult[];
  link: LinkFigures[];
  /** Run clocks: the last board's stop. */
  clocks: number;
  /** The first non-zero exit status of the boards (board order), else 0. */
  exit: number;
}

/** How the host interleaves the boards: results do not depend on it (tested). */
export interface Schedule {
  /** Clocks a board runs before the next one gets its turn (it may stop earlier, blocked). */
  quantum?: number;
  /** Board order within a round: 0..N−1, reversed, or shuffled each round by a seeded generator. */
  order?: 'forward' | 'reverse' | 'shuffle';
  seed?: number;
  /**
   * Tests only: no horizon, each board runs as if no message could come. Then
   * results do depend on the host's order (test/multi.test.ts shows the
   * determinism test would catch a broken synchronisation).
   */
  unsynchronised?: boolean;
}

export interface BoardsOptions extends MachineOptions {
  schedule?: Schedule;
  /** Console output of board k (bytes as the board wrote them, in clock order across boards). */
  console?: (board: number, bytes: Uint8Array) => void;
}

export const MAX_BOARDS = 8;

export class BoardsError extends Error {}

export class Boards {
  readonly machines: Machine[];
  readonly config: PlatformConfig;
  private readonly pending: { clock: number; board: number; bytes: Uint8Array }[] = [];

  constructor(config: PlatformConfig, count: number, private readonly options: BoardsOptions = {}) {
    if (!Number.isInteger(count) || count < 1 || count > MAX_BOARDS) throw new BoardsError(`--boards must be 1..${MAX_BOARDS}, got ${count}`);
    // Every board has the link; the configuration is checked with it on.
    this.config = applyOverrides(structuredClone(config), { link: 1 });
    this.machines = Array.from({ length: count }, (_, index) => new Machine(this.config, { ...options, board: PICOTPU, ring: { index, count } }));
    for (let k = 0; k < count; k++) {
      const from = this.machines[k].tpu, to = this.machines[(k + 1) % count].tpu;
      from.linkOut = (m) => to.linkRx!.deliver(m);
      to.linkReleases = (m) => from.link!.model.release(m);
      const bus = this.machines[k].bus as LinkBus;
      this.machines[k].bus.console.setSink(options.console ? (bytes) => this.pending.push({ clock: bus.lastConsoleClock, board: k, bytes }) : null);
    }
  }

  /** Loads the same ELF into every board. */
  loadElf(bytes: Uint8Array): void {
    for (const m of this.machines) m.loadElf(bytes);
  }

  loadSram(data: Uint8Array, offset: number, board = -1): void {
    this.machines.forEach((m, k) => { if (board < 0 || board === k) m.loadSram(data, offset); });
  }

  /**
   * A clock before which no message of board k that has not reached the next
   * board yet can land there: its running SEND's landing, or the earliest a
   * queued or future SEND could land (one byte, starting at the first clock
   * not processed, or after the CPU's next PUSH). Infinity once the board has
   * stopped and been accounted (nothing more leaves it).
   */
  private bound(k: number, stopped: boolean, finished: boolean): number {
    if (finished) return Number.POSITIVE_INFINITY;
    const m = this.machines[k], t = this.config.tpu, tpu = m.tpu, link = tpu.link!;
    const minSend = t.linkSetup + t.linkClocksPerByte - 1;
    if (link.running) return link.model.end + t.linkLatency;
    if (link.fifo.length > 0) return tpu.clock + minSend + t.linkLatency;
    if (stopped) return Number.POSITIVE_INFINITY;
    return Math.max(tpu.clock, m.cpu.cycle + 1) + minSend + t.linkLatency;
  }

  // The scheduler's state: which boards have stopped (their CPU), which are accounted (finishRun done).
  private stopped: boolean[] = [];
  private finished: boolean[] = [];
  private reasons: StopReason[] = [];
  private order: number[] = [];
  private rand = 1;
  /** The board a debugger or GDB drives (attach), or -1. */
  private attached = -1;

  private resetSchedule(): void {
    const n = this.machines.length;
    this.stopped = new Array<boolean>(n).fill(false);
    this.finished = new Array<boolean>(n).fill(false);
    this.reasons = new Array<StopReason>(n).fill(StopReason.LIMIT);
    this.results = new Array(n);
    this.order = Array.from({ length: n }, (_, k) => k);
    if (this.options.schedule?.order === 'reverse') this.order.reverse();
    this.rand = (this.options.schedule?.seed ?? 1) >>> 0;
  }

  /** Runs every board to its stop (EXIT, trap, TPU stop) or to maxCycles. */
  run(maxCycles: number): BoardsResult {
    this.begin();
    for (;;) {
      const r = this.runRounds(maxCycles, Number.POSITIVE_INFINITY);
      if (r) return r;
    }
  }

  /** Scheduler rounds run since begin(). */
  private rounds = 0;

  /** Starts a run that goes in pieces (runRounds): the command line's, which a signal may stop between them. */
  begin(): void {
    this.resetSchedule();
    this.rounds = 0;
  }

  /**
   * Up to `rounds` more scheduler rounds of the run begin() started: the
   * result once every board has stopped, else null (call again to go on).
   * A run in pieces has the clocks of one run (the rounds are the same).
   */
  runRounds(maxCycles: number, rounds: number): BoardsResult | null {
    for (let i = 0; i < rounds; i++, this.rounds++) {
      const { progress, left } = this.round(maxCycles, -1);
      if (left === 0) return this.combine(this.results as RunResult[]);
      if (!progress) throw new Error(`internal: the boards' scheduler made no progress in round ${this.rounds}: ${this.states().join('; ')}`);
    }
    return null;
  }

  /** Where a run stopped in its pieces is: the clock of the running board furthest behind (the last stop if none runs). */
  slowestClock(): number {
    const running = this.machines.filter((_, k) => !this.results[k]).map((m) => m.cpu.cycle);
    return running.length > 0 ? Math.min(...running) : Math.max(...this.results.map((r) => r?.clocks ?? 0));
  }

  /** One turn of every board not yet accounted, except `skip`: did any move, and how many are left. */
  private round(maxCycles: number, skip: number): { progress: boolean; left: number } {
    const n = this.machines.length, order = this.order;
    if (this.options.schedule?.order === 'shuffle') {
      for (let i = n - 1; i > 0; i--) {
        this.rand = (Math.imul(this.rand, 1664525) + 1013904223) >>> 0;
        const j = this.rand % (i + 1);
        [order[i], order[j]] = [order[j], order[i]];
      }
    }
    let progress = false, left = 0;
    for (const k of order) {
      if (this.finished[k] || k === skip) continue;
      left++;
      if (this.turn(k, maxCycles)) progress = true;
    }
    this.flushConsole();
    return { progress, left };
  }

  /** Board k's horizon: the clock before which every landing from its predecessor is known. */
  private horizonOf(k: number): number {
    const n = this.machines.length, prev = (k + n - 1) % n;
    if (n === 1 || this.options.schedule?.unsynchronised) return Number.POSITIVE_INFINITY;
    return this.bound(prev, this.stopped[prev], this.finished[prev]);
  }

  /** Board k runs one slice, as far as its horizon lets it; true when anything moved. */
  private turn(k: number, maxCycles: number): boolean {
    const m = this.machines[k], tpu = m.tpu, bus = m.bus as LinkBus;
    const quantum = Math.max(1, this.options.schedule?.quantum ?? 1 << 16);
    const horizon = this.horizonOf(k);
    tpu.linkRx!.horizon = horizon;
    const cycle = m.cpu.cycle, instret = m.cpu.instret, tpuBefore = tpu.clock;
    let blocked = false;
    if (!this.stopped[k]) {
      const reason = m.cpu.cycle >= maxCycles ? StopReason.LIMIT : m.advance(Math.min(maxCycles, m.cpu.cycle + quantum));
      blocked = reason === StopReason.BLOCKED;
      if (reason === StopReason.EXIT || reason === StopReason.TRAP || reason === StopReason.BUS_ERROR || m.cpu.cycle >= maxCycles) {
        this.stopped[k] = true;
        this.reasons[k] = reason === StopReason.BLOCKED ? StopReason.LIMIT : reason;
      }
    }
    // The TPU may be brought up to the CPU (or the restarted access) as far as the horizon allows;
    // of a running CPU, to the clock before its own: a fetch fault found at the next
    // instruction stops the run there (Cpu.stopClock = cycle − 1), and the TPU must not have counted past it.
    const stop = this.stopped[k] ? this.stopClock(m, this.reasons[k]) : Math.max(m.cpu.cycle - 1, blocked ? bus.blockedAt : 0);
    const target = Math.min(stop, horizon);
    if (tpu.clock < target) tpu.advanceTo(target);
    if (this.stopped[k] && horizon >= stop) {
      this.results[k] = m.finishRun(this.reasons[k]);
      this.finished[k] = true;
    }
    return this.finished[k] || m.cpu.cycle !== cycle || m.cpu.instret !== instret || tpu.clock !== tpuBefore;
  }

  /**
   * Attaches a debugger or GDB to board k (`--board K`): board k is driven by
   * its own Machine (stepped, continued); whenever it would need clocks past
   * its horizon, the other boards run underneath until the horizon is past them.
   */
  attach(k: number, maxCycles: number): Machine {
    this.resetSchedule();
    this.attached = k;
    const m = this.machines[k];
    m.tpu.linkRx!.horizon = this.horizonOf(k);
    m.unblock = (clock) => {
      for (let round = 0; ; round++) {
        const horizon = this.horizonOf(k);
        m.tpu.linkRx!.horizon = horizon;
        if (horizon > clock) return;
        // This board's TPU up to its CPU, as far as it may: what the others wait on (its bound) grows.
        const tpuBefore = m.tpu.clock;
        if (m.tpu.clock < Math.min(m.cpu.cycle, horizon)) m.tpu.advanceTo(Math.min(m.cpu.cycle, horizon));
        if (!this.round(maxCycles, k).progress && m.tpu.clock === tpuBefore) {
          throw new Error(`internal: the boards under board ${k} made no progress in round ${round}: ${this.states().join('; ')}`);
        }
      }
    };
    return m;
  }

  /** The clock a stopped board's run ends at (Machine.result's clocks). */
  private stopClock(m: Machine, reason: StopReason): number {
    return reason === StopReason.LIMIT || m.bus.deviceHalt && m.bus.console.exitCode === null ? m.cpu.cycle : m.cpu.stopClock;
  }

  /** Console chunks in clock order (then board order), up to the slowest board still running. */
  private flushConsole(): void {
    const sink = this.options.console;
    if (!sink || this.pending.length === 0) return;
    let upTo = Number.POSITIVE_INFINITY;
    // The board a debugger drives does not hold the others' lines back (it may stay paused for long).
    this.machines.forEach((m, k) => { if (!this.finished[k] && k !== this.attached) upTo = Math.min(upTo, m.cpu.cycle); });
    this.pending.sort((a, b) => a.clock - b.clock || a.board - b.board);
    let i = 0;
    for (; i < this.pending.length && this.pending[i].clock < upTo; i++) sink(this.pending[i].board, this.pending[i].bytes);
    this.pending.splice(0, i);
  }

  private combine(results: RunResult[]): BoardsResult {
    const link = this.machines.map((m) => {
      const s = m.tpu.linkStats, rx = m.tpu.linkRx!;
      return { busy: s.busy, bytes: s.bytes, messages: s.messages, received: rx.rxCount, rxFull: rx.rxFull };
    });
    const exit = results.find((r) => r.exit !== 0)?.exit ?? 0;
    return { boards: results, link, clocks: Math.max(...results.map((r) => r.clocks)), exit };
  }

  /** Each board's result once it has stopped and been accounted (during and after run()). */
  private results: (RunResult | undefined)[] = [];

  /** One line per board: where it is (or how it stopped) and what its link is doing (the --max-cycles report). */
  states(): string[] {
    return this.machines.map((m, k) => {
      const tpu = m.tpu, link = tpu.link!, rx = tpu.linkRx!;
      const where = m.symbols.describe(m.cpu.pc);
      const r = this.results[k];
      const how = r ? (r.reason === 'exit' ? `exited ${r.exit} at clock ${r.clocks}` : `stopped (${r.reason}) at clock ${r.clocks}`) : `running, clock ${m.cpu.cycle}`;
      return `board ${k}: ${how}, pc 0x${(m.cpu.pc >>> 0).toString(16).padStart(8, '0')}${where ? ` <${where}>` : ''}, `
        + `LINK ISSUED ${link.issued} DONE ${link.done} STATUS 0x${unitStatus(link).toString(16)}, RX_COUNT ${rx.rxCount}, RX_FULL 0x${rx.rxFull.toString(16).padStart(8, '0')}`;
    });
  }
}

export interface RunBoardsOptions extends BoardsOptions {
  maxCycles?: number;
  /** Console input, the same bytes for every board. */
  input?: Uint8Array;
  /** SRAM images, loaded into every board (board: only that one). */
  sram?: { data: Uint8Array; offset: number; board?: number }[];
}

/**
 * The multi-board run API (bench --devices, tests): the same ELF on `count`
 * boards; each board's RunResult, its link figures, and the run's clocks.
 */
export function runBoards(elf: Uint8Array, count: number, config: PlatformConfig, options: RunBoardsOptions = {}): BoardsResult {
  const boards = new Boards(config, count, options);
  boards.loadElf(elf);
  for (const s of options.sram ?? []) boards.loadSram(s.data, s.offset, s.board ?? -1);
  if (options.input) for (const m of boards.machines) m.bus.console.setInput(options.input);
  return boards.run(options.maxCycles ?? DEFAULT_BOARDS_MAX_CYCLES);
}

export const DEFAULT_BOARDS_MAX_CYCLES = 10_000_000_000;

