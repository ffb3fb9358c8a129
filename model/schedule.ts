// The schedule model: a small event simulation of the CPU issuing commands
// to the TPU's three in-order unit queues (docs/hardware.md §5.3), which turns
// a kernel's command program (model/issue-cost.ts) — the commands with their
// busy clocks (model/analytic.ts's rules), the CPU clocks spent before each
// PUSH, the CPU's polls and the wait tokens — into a predicted run length.
//
// Rules it follows (hardware.md §5.3): a command pushed at p starts at the
// earliest of p + 1, its unit's previous end + 1 and, with a wait token, the
// awaited command's end + 1; it ends busy − 1 clocks after its start. A PUSH
// to a unit whose queue holds queueDepth waiting commands is acknowledged the
// clock after the oldest of them starts. A CPU poll (tpu_wait, k_wait) reads
// DONE every POLL_LOOP_CLOCKS until a read sees the ticket; the path's term
// says when the first read comes and how long from the last read to the PUSH.

export const DMA = 0, MXU = 1, VPU = 2;
export type Unit = typeof DMA | typeof MXU | typeof VPU;
/**
 * The multi-board what-if's queues (model/tp-program.ts): the LINK unit's
 * SENDs, and RX, the messages landing in this board's mailbox — not a unit
 * but a list of clocks the CPU can poll for (link_wait_rx), each "ending" the
 * clock before it lands, so that a read at the landing clock sees it.
 */
export const LINK = 3, RX = 4;
export type AnyUnit = Unit | typeof LINK | typeof RX;

/** A command's ticket: the unit's DONE count once it has finished (1-based, as tpu_push returns). */
export interface Ticket { unit: AnyUnit; ticket: number }

/**
 * The CPU-side cost of reaching one PUSH. `issue`: clocks after the previous
 * PUSH when the CPU does not poll. When it polls: its first DONE read's
 * handshake comes `firstRead` clocks after the previous PUSH, one more every
 * POLL_LOOP_CLOCKS until a read sees the awaited command done (a read at t
 * sees commands that ended before t), and the PUSH `afterRead` clocks after
 * that read.
 */
export interface IssueTerm { issue: number; firstRead: number; afterRead: number }

/** One iteration of the firmware's DONE poll (tpu_wait, k_wait) but the read's wait: lw 5, sub 3, bltz taken 5. */
export const POLL_LOOP_BASE_CLOCKS = 13;
/** One iteration of the DONE poll on the default board (tpuWait 2). */
export const POLL_LOOP_CLOCKS = POLL_LOOP_BASE_CLOCKS + 2;

/** Clocks of a finished schedule. */
export interface ScheduleResult {
  /** From the window's start (the CPU's PERF_CTRL write) to its stop. */
  runClocks: number;
  /** Commands per unit, and CPU clocks lost to PUSH stalls on full queues. */
  commands: [number, number, number];
  stallClocks: number;
}

/**
 * The event simulation. The kernel program calls push() in the order the
 * firmware issues, wait() where the CPU polls, and finish() at the window's
 * end. Tickets count from 1 per unit, as tpu_push returns them.
 */
export class Schedule {
  /** The clock of the CPU's last PUSH handshake (the window's start at first). */
  private cpu = 0;
  /** The latest end clock the CPU has polled for since its last PUSH (−1: none). */
  private polledEnd = -1;
  private readonly ends: number[][] = [[], [], [], [], []];
  private readonly starts: number[][] = [[], [], [], [], []];
  private stall = 0;
  /** When set (calibration), the tickets the CPU polled for before each PUSH and before the finish. */
  pollLog: Ticket[][] | null = null;
  private polled: Ticket[] = [];
  /** `tpuWait`: the TPU register port's wait clocks, which each poll iteration's read pays. */
  constructor(private readonly queueDepth = 8, tpuWait = 2) { this.pollLoop = POLL_LOOP_BASE_CLOCKS + tpuWait; }
  private readonly pollLoop: number;

  pushed(unit: AnyUnit): number { return this.ends[unit].length; }

  /** Busy clocks of a unit's commands so far (RX: none). */
  busyOf(unit: AnyUnit): number {
    if (unit === RX) return 0;
    let b = 0;
    for (let i = 0; i < this.ends[unit].length; i++) b += this.ends[unit][i] - this.starts[unit][i] + 1;
    return b;
  }

  /** The end clock of a unit's command (1-based ticket). */
  endOf(t: Ticket): number { return this.ends[t.unit][t.ticket - 1]; }

  /** A message lands in the mailbox at `clock` (seen by reads from that clock on); its RX ticket. */
  arrive(clock: number): Ticket {
    this.starts[RX].push(clock);
    this.ends[RX].push(clock - 1);
    return { unit: RX, ticket: this.ends[RX].length };
  }

  /** The CPU polls until `t` is done (nothing when ticket 0 or already issued long ago: the release clock is what matters). */
  wait(t: Ticket): void {
    if (t.ticket <= 0) return;
    this.polledEnd = Math.max(this.polledEnd, this.ends[t.unit][t.ticket - 1]);
    if (this.pollLog) this.polled.push(t);
  }

  /** Waits for everything pushed to `unit` so far. */
  drain(unit: AnyUnit): void { this.wait({ unit, ticket: this.pushed(unit) }); }

  /** One PUSH: returns its ticket. `token`: the wait token in ARG5 (the unit, not the CPU, waits). */
  /** The clock the CPU reaches the end of a path from its last PUSH. */
  private reach(term: IssueTerm): number {
    if (this.polledEnd < 0) return this.cpu + term.issue;
    const read = this.cpu + term.firstRead, seen = this.polledEnd + 1;
    const polls = read >= seen ? 0 : Math.ceil((seen - read) / this.pollLoop);
    return read + polls * this.pollLoop + term.afterRead;
  }

  push(unit: AnyUnit, busy: number, term: IssueTerm, token?: Ticket): Ticket {
    let at = this.reach(term);
    this.polledEnd = -1;
    if (this.pollLog) { this.pollLog.push(this.polled); this.polled = []; }
    const starts = this.starts[unit], ends = this.ends[unit], n = ends.length;
    // Queue full: the oldest waiting command must start first.
    if (n >= this.queueDepth) {
      const free = starts[n - this.queueDepth] + 1;
      if (free > at) { this.stall += free - at; at = free; }
    }
    let start = at + 1;
    if (n) start = Math.max(start, ends[n - 1] + 1);
    if (token && token.ticket > 0) start = Math.max(start, this.ends[token.unit][token.ticket - 1] + 1);
    starts.push(start);
    ends.push(start + busy - 1);
    this.cpu = at;
    return { unit, ticket: n + 1 };
  }

  /** The window's stop: the PERF_CTRL write at the end of the path from the last PUSH. */
  finish(term: IssueTerm): ScheduleResult {
    const at = this.reach(term);
    if (this.pollLog) { this.pollLog.push(this.polled); this.polled = []; }
    return { runClocks: at, commands: [this.ends[0].length, this.ends[1].length, this.ends[2].length], stallClocks: this.stall };
  }
}
