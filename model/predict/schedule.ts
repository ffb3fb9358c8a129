// The schedule model: a small event simulation of the CPU issuing commands
// to the TPU's three in-order unit queues (docs/hardware.md §5.3), which turns
// a kernel's command program (model/predict/issue-cost.ts) — the commands with their
// busy clocks (model/predict/analytic.ts's rules), the CPU clocks spent before each
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
/** The command sequencer of the sequencer what-if (hardware.md §5.11): its RUN commands, which the CPU polls for. */
export const SEQ = 3;
export type Unit = typeof DMA | typeof MXU | typeof VPU | typeof SEQ;
/**
 * The multi-board what-if's queues (model/predict/tp-program.ts): the LINK unit's
 * SENDs, and RX, the messages landing in this board's mailbox — not a unit
 * but a list of clocks the CPU can poll for (link_wait_rx), each "ending" the
 * clock before it lands, so that a read at the landing clock sees it.
 */
export const LINK = 4, RX = 5;
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
  private readonly ends: number[][] = [[], [], [], [], [], []];
  private readonly starts: number[][] = [[], [], [], [], [], []];
  /** While a RUN feeds its list: the clock the sequencer fetches its next entry (−1: no list running). */
  private fetchAt = -1;
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
    // Queue full: the oldest waiting command must start first.
    const free = this.roomAt(unit);
    if (free > at) { this.stall += free - at; at = free; }
    this.cpu = at;
    return this.enqueue(unit, busy, at, token);
  }

  /** The first clock at whose start `unit`'s queue holds fewer than queueDepth waiting commands (a command waits until its start clock has begun). */
  private roomAt(unit: AnyUnit): number {
    const n = this.ends[unit].length;
    return n >= this.queueDepth ? this.starts[unit][n - this.queueDepth] + 1 : 0;
  }

  /** A command pushed at `at` (by the CPU or the sequencer): it starts at the earliest of at + 1, its unit's previous end + 1 and its token's end + 1. */
  private enqueue(unit: AnyUnit, busy: number, at: number, token?: Ticket): Ticket {
    const starts = this.starts[unit], ends = this.ends[unit], n = ends.length;
    let start = at + 1;
    if (n) start = Math.max(start, ends[n - 1] + 1);
    if (token && token.ticket > 0) start = Math.max(start, this.ends[token.unit][token.ticket - 1] + 1);
    starts.push(start);
    ends.push(start + busy - 1);
    return { unit, ticket: n + 1 };
  }

  /**
   * The CPU's PUSH of RUN (hardware.md §5.11) at the end of `term`'s path: it starts the clock after, or after the
   * previous RUN's end; feed() then pushes the list's entries, endRun() ends it.
   */
  beginRun(term: IssueTerm): void {
    const at = this.reach(term);
    this.polledEnd = -1;
    if (this.pollLog) { this.pollLog.push(this.polled); this.polled = []; }
    this.cpu = at;
    const runs = this.ends[SEQ];
    const start = Math.max(at + 1, runs.length ? runs[runs.length - 1] + 1 : 0);
    this.starts[SEQ].push(start);
    this.fetchAt = start + 1;
  }

  /**
   * The list's next entry: fetched at f (the RUN's start + 1, or the clock after the previous entry's push), pushed
   * at q, the first clock ≥ f at whose start its unit's queue has room, as a CPU PUSH at q would be. Tokens are the
   * recorded ones, made absolute (the CPU pushes nothing while the list runs).
   */
  feed(unit: AnyUnit, busy: number, token?: Ticket): Ticket {
    if (this.fetchAt < 0) throw new Error('schedule: a list entry outside a RUN');
    const q = Math.max(this.fetchAt, this.roomAt(unit));
    this.fetchAt = q + 1;
    return this.enqueue(unit, busy, q, token);
  }

  /** The RUN ends at its last entry's push (its DONE counts it then): its ticket, for the CPU's poll of SEQ's DONE. */
  endRun(): Ticket {
    const runs = this.ends[SEQ];
    runs.push(this.fetchAt - 1);
    this.fetchAt = -1;
    return { unit: SEQ, ticket: runs.length };
  }

  /** The window's stop: the PERF_CTRL write at the end of the path from the last PUSH. */
  finish(term: IssueTerm): ScheduleResult {
    const at = this.reach(term);
    if (this.pollLog) { this.pollLog.push(this.polled); this.polled = []; }
    return { runClocks: at, commands: [this.ends[0].length, this.ends[1].length, this.ends[2].length], stallClocks: this.stall };
  }
}
