// The board-to-board link (docs/hardware.md §5.12), present with the `link`
// platform option: a fifth TPU unit whose one command, SEND, reads a 2-D
// block of the local scratchpad and sends it to the next board on the ring,
// where it lands whole in the mailbox (the top linkMailboxKiB of that board's
// scratchpad), and the receive side: the mailbox's landings, RX_FULL and
// RX_COUNT.
//
// Timing rule (both models): a SEND that starts at clock s latches its fields
// in s and spends linkSetup clocks (s .. s + setup − 1) on them; byte i is
// read from the scratchpad in the first clock of its transfer, s + setup +
// i·linkClocksPerByte, as it is at the start of that clock; the SEND's last
// clock is e = s + setup + bytes·linkClocksPerByte − 1. The message lands at
// the receiver at clock e + linkLatency: from that clock on its units and its
// CPU see the bytes, the RX_FULL bits and the new RX_COUNT (a landing comes
// before anything else in its clock). Nothing about the receiver changes the
// sender's timing (no flow control: a remote write into a mailbox).
//
// The reference model reads one byte per transfer, clock by clock; the fast
// model copies every byte whose read clock lies in a window at once (the core
// skips only windows in which no other unit writes what the SEND reads).

import type { TpuConfig } from './config.ts';
import { ERR, LINK_SLOTS, LINK_UNIT, opcode } from './regs.ts';
import { admitByParts, bits, blockEnd, footprintOf, regionMask, type Cmd, type Footprint, type UnitMemories, type UnitModel, type UnitRules } from './unit.ts';

const SEND = opcode('LINK', 'SEND');

const field = (name: string) => LINK_UNIT.args.find((a) => a.name === name)!;
const F = {
  spadAddr: field('SPAD_ADDR'), rows: field('ROWS'), rowBytes: field('ROW_BYTES'), spadStride: field('SPAD_STRIDE'),
  dstAddr: field('DST_ADDR'), dstStride: field('DST_STRIDE'), dstBoard: field('DST_BOARD'),
};
const get = (cmd: Cmd, fd: typeof F.rows) => bits(cmd.args[fd.arg], fd.lsb, fd.width);

/** Where a board sits on the ring: its index and the number of boards (1: TX wired to its own RX). */
export interface RingPosition {
  index: number;
  count: number;
}

/** A SEND's fields, decoded once. */
export interface SendFields {
  spadAddr: number;
  rows: number;
  rowBytes: number;
  spadStride: number;
  dstAddr: number;
  dstStride: number;
  dstBoard: number;
}

export function sendFields(cmd: Cmd, into?: SendFields): SendFields {
  const d = into ?? { spadAddr: 0, rows: 0, rowBytes: 0, spadStride: 0, dstAddr: 0, dstStride: 0, dstBoard: 0 };
  d.spadAddr = get(cmd, F.spadAddr);
  d.rows = get(cmd, F.rows);
  d.rowBytes = get(cmd, F.rowBytes);
  d.spadStride = get(cmd, F.spadStride);
  d.dstAddr = get(cmd, F.dstAddr);
  d.dstStride = get(cmd, F.dstStride);
  d.dstBoard = get(cmd, F.dstBoard);
  return d;
}

/** The mailbox: the top linkMailboxKiB of the scratchpad. */
export function mailboxBase(cfg: TpuConfig): number {
  return (cfg.spadKiB - cfg.linkMailboxKiB) * 1024;
}

/** The scratchpad regions of the mailbox, as a region mask: their write port is the link's. */
export function mailboxRegions(cfg: TpuConfig): number {
  const first = (cfg.spadKiB - cfg.linkMailboxKiB) / cfg.regionKiB, count = cfg.linkMailboxKiB / cfg.regionKiB;
  let mask = 0;
  for (let r = first; r < first + count; r++) mask |= 1 << r;
  return mask >>> 0;
}

/** Busy clocks of a SEND of `bytes` bytes. */
export function sendClocks(cfg: TpuConfig, bytes: number): number {
  return cfg.linkSetup + bytes * cfg.linkClocksPerByte;
}

export function linkRules(cfg: TpuConfig, ring: RingPosition): UnitRules & { explain(cmd: Cmd, code: number): string } {
  const spadSize = cfg.spadKiB * 1024;
  const mailboxBytes = cfg.linkMailboxKiB * 1024;
  const regionBytes = cfg.regionKiB * 1024;
  const scratch = sendFields({ args: new Uint32Array(5), opcode: SEND, flags: 0, serial: 0, pushClock: 0, token: 0 });
  return {
    validate(cmd: Cmd): number {
      if (cmd.opcode !== SEND || cmd.flags !== 0) return ERR.BAD_OPCODE;
      const d = sendFields(cmd, scratch);
      if (d.rows === 0 || d.rowBytes === 0) return ERR.ZERO_SIZE;
      if (d.dstBoard !== (ring.index + 1) % ring.count) return ERR.BAD_DEST;
      if (blockEnd(d.spadAddr, d.rows, d.rowBytes, d.spadStride) > spadSize) return ERR.RANGE;
      if (blockEnd(d.dstAddr, d.rows, d.rowBytes, d.dstStride) > mailboxBytes) return ERR.RANGE;
      return 0;
    },
    footprint(cmd: Cmd, into?: Footprint): Footprint {
      const d = sendFields(cmd, scratch);
      return footprintOf(regionMask(d.spadAddr, d.rows, d.rowBytes, d.spadStride, regionBytes), 0, false, into);
    },
    nominalClocks(cmd: Cmd): number {
      const d = sendFields(cmd, scratch);
      return sendClocks(cfg, d.rows * d.rowBytes);
    },
    describe(cmd: Cmd): string {
      if (cmd.opcode !== SEND) return `opcode ${cmd.opcode}`;
      const d = sendFields(cmd, scratch);
      const h = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;
      return `SEND spad=${h(d.spadAddr)} rows=${d.rows} row_bytes=${d.rowBytes} spad_stride=${d.spadStride} `
        + `dst=${h(d.dstAddr)} dst_stride=${d.dstStride} board=${d.dstBoard}`;
    },
    admit(cmd: Cmd, into: Footprint): number {
      return admitByParts(this, cmd, into);
    },
    /** The error line's detail: names the boards for BAD_DEST, the memory for RANGE. */
    explain(cmd: Cmd, code: number): string {
      const d = sendFields(cmd, scratch);
      const me = `board ${ring.index}`;
      if (code === ERR.BAD_DEST) {
        return d.dstBoard >= ring.count
          ? `${me} sends to board ${d.dstBoard}: there ${ring.count === 1 ? 'is 1 board' : `are ${ring.count} boards`}`
          : `${me} is wired only to board ${(ring.index + 1) % ring.count}, not to board ${d.dstBoard}`;
      }
      if (code === ERR.RANGE) {
        return blockEnd(d.spadAddr, d.rows, d.rowBytes, d.spadStride) > spadSize
          ? `${me}: the source ends at 0x${blockEnd(d.spadAddr, d.rows, d.rowBytes, d.spadStride).toString(16)}, past the ${cfg.spadKiB} KiB scratchpad`
          : `${me}: the destination ends at mailbox offset 0x${blockEnd(d.dstAddr, d.rows, d.rowBytes, d.dstStride).toString(16)}, past the ${cfg.linkMailboxKiB} KiB mailbox`;
      }
      return '';
    },
  };
}

/** A message on the wire: what a SEND delivers to the next board, landing whole at `land`. */
export interface LinkMessage {
  /** Sending board and its SEND's serial (LINK ISSUED before it was pushed). */
  from: number;
  serial: number;
  /** The clock from which the receiver sees it. */
  land: number;
  dstAddr: number;
  dstStride: number;
  rows: number;
  rowBytes: number;
  /** rows·rowBytes bytes, row after row, at its start (the buffer may be longer). */
  bytes: Uint8Array;
}

/**
 * State shared by both models: the command, the bytes read so far (the
 * message being assembled) and the position. They differ in how they advance.
 */
abstract class LinkBase implements UnitModel {
  running = false;
  protected readonly d: SendFields = sendFields({ args: new Uint32Array(5), opcode: SEND, flags: 0, serial: 0, pushClock: 0, token: 0 });
  /** The running SEND's message (its bytes fill as they are read); taken by the core at the end. */
  message: LinkMessage | null = null;
  protected start = 0;
  /** Bytes read so far. */
  protected sent = 0;
  protected total = 0;
  /** The SEND's last clock. */
  end = 0;
  /** Reused message buffers (a message is free again once it has landed). */
  private readonly pool: LinkMessage[] = [];

  constructor(protected readonly mem: UnitMemories, protected readonly cfg: TpuConfig, private readonly board: number) {}

  begin(cmd: Cmd, clock: number): void {
    sendFields(cmd, this.d);
    this.running = true;
    this.start = clock;
    this.sent = 0;
    this.total = this.d.rows * this.d.rowBytes;
    this.end = clock + sendClocks(this.cfg, this.total) - 1;
    const m = this.takeMessage(this.total);
    m.from = this.board;
    m.serial = cmd.serial;
    m.land = this.end + this.cfg.linkLatency;
    m.dstAddr = this.d.dstAddr;
    m.dstStride = this.d.dstStride;
    m.rows = this.d.rows;
    m.rowBytes = this.d.rowBytes;
    this.message = m;
  }

  /** A message object whose buffer holds `bytes` bytes: a free one when there is one. */
  private takeMessage(bytes: number): LinkMessage {
    for (let i = 0; i < this.pool.length; i++) {
      const m = this.pool[i];
      if (m.bytes.length < bytes) continue;
      this.pool[i] = this.pool[this.pool.length - 1];
      this.pool.pop();
      return m;
    }
    return { from: 0, serial: 0, land: 0, dstAddr: 0, dstStride: 0, rows: 0, rowBytes: 0, bytes: new Uint8Array(Math.max(bytes, 256)) };
  }

  /** A landed message's buffer may be reused (called by the receiver of this board's messages). */
  release(m: LinkMessage): void {
    if (this.pool.length < 8) this.pool.push(m);
  }

  /** The clock at which byte i is read. */
  protected readClock(i: number): number {
    return this.start + this.cfg.linkSetup + i * this.cfg.linkClocksPerByte;
  }

  /** Reads bytes [from, to) of the block into the message. */
  protected copy(from: number, to: number): void {
    const d = this.d, spad = this.mem.spad, out = this.message!.bytes;
    let row = Math.floor(from / d.rowBytes), col = from - row * d.rowBytes;
    for (let i = from; i < to;) {
      const n = Math.min(d.rowBytes - col, to - i);
      const at = d.spadAddr + row * d.spadStride + col;
      if (n >= 64) out.set(spad.subarray(at, at + n), i);
      else for (let k = 0; k < n; k++) out[i + k] = spad[at + k];
      i += n;
      row++;
      col = 0;
    }
  }

  tickWrite(clock: number): boolean {
    if (clock < this.end) return false;
    this.running = false;
    return true;
  }

  abstract tickRead(clock: number): void;
  abstract horizon(clock: number): number;
  abstract skip(clock: number, n: number): boolean;
}

/** Literal model: one clock at a time; in a transfer's first clock, its byte. */
export class LinkReference extends LinkBase {
  tickRead(clock: number): void {
    if (this.sent < this.total && clock === this.readClock(this.sent)) {
      this.copy(this.sent, this.sent + 1);
      this.sent++;
    }
  }
  horizon(): number {
    throw new Error('LinkReference is clock by clock');
  }
  skip(): boolean {
    throw new Error('LinkReference is clock by clock');
  }
}

/** Fast model: every byte read in a window, at once. */
export class LinkFast extends LinkBase {
  tickRead(clock: number): void {
    this.readUpTo(clock);
  }

  /** Reads every byte whose read clock is at most `clock`. */
  private readUpTo(clock: number): void {
    const cpb = this.cfg.linkClocksPerByte;
    const first = this.start + this.cfg.linkSetup;
    if (clock < first || this.sent >= this.total) return;
    const upTo = Math.min(this.total, Math.floor((clock - first) / cpb) + 1);
    if (upTo > this.sent) {
      this.copy(this.sent, upTo);
      this.sent = upTo;
    }
  }

  horizon(clock: number): number {
    return this.end - clock + 1;
  }

  skip(clock: number, n: number): boolean {
    const last = clock + n - 1;
    this.readUpTo(last);
    return this.tickWrite(last);
  }
}

/**
 * The receive side of a board: the messages on their way to its mailbox
 * (from the previous board, or from itself with one board), applied at their
 * landing clocks, and the RX_FULL and RX_COUNT registers.
 */
export class LinkReceiver {
  /** Messages not landed yet, in landing order (one sender: its SENDs end in order). */
  private readonly queue: LinkMessage[] = [];
  private head = 0;
  rxFull = 0;
  rxCount = 0;
  /** Every landing at a clock up to this one has been applied (-1: none yet). */
  landedUpTo = -1;
  /**
   * The first clock this board may not yet process: landings before it are
   * all known (boards/picotpu/ring.ts sets it from the previous board's progress);
   * Infinity with one board, whose only sender is itself.
   */
  horizon = Number.POSITIVE_INFINITY;
  private readonly base: number;
  private readonly slotBytes: number;
  /** Called on a landing whose slots were still full (the core records OVERRUN). */
  onOverrun: ((m: LinkMessage, slots: number) => void) | null = null;
  /** Called when a message is queued (the core's cached windows may end earlier now). */
  onArrival: (() => void) | null = null;
  /** Called when a message has landed: its buffer may be reused by its sender. */
  onLanded: ((m: LinkMessage) => void) | null = null;

  constructor(cfg: TpuConfig, private readonly spad: Uint8Array) {
    this.base = mailboxBase(cfg);
    this.slotBytes = cfg.linkMailboxKiB * 1024 / LINK_SLOTS;
  }

  /** The clock of the next landing, Infinity when none is on its way. */
  get nextLand(): number {
    return this.head < this.queue.length ? this.queue[this.head].land : Number.POSITIVE_INFINITY;
  }

  /** Is a message on its way (its landing will write the mailbox)? */
  get pending(): boolean {
    return this.head < this.queue.length;
  }

  /** A message from the sender: it lands at m.land. */
  deliver(m: LinkMessage): void {
    if (m.land <= this.landedUpTo) {
      throw new Error(`internal: a message from board ${m.from} lands at clock ${m.land}, but this board has processed clock ${this.landedUpTo} (the boards' synchronisation is broken)`);
    }
    if (this.head === this.queue.length) { this.queue.length = 0; this.head = 0; }
    this.queue.push(m);
    this.onArrival?.();
  }

  /** Applies every landing at a clock up to `clock`. */
  landUpTo(clock: number): void {
    if (clock <= this.landedUpTo) return;
    if (clock >= this.horizon) throw new Error(`internal: clock ${clock} processed past the link horizon ${this.horizon}`);
    while (this.head < this.queue.length && this.queue[this.head].land <= clock) this.land(this.queue[this.head++]);
    this.landedUpTo = clock;
  }

  private land(m: LinkMessage): void {
    const slots = regionMask(m.dstAddr, m.rows, m.rowBytes, m.dstStride, this.slotBytes);
    if (slots & this.rxFull) this.onOverrun?.(m, (slots & this.rxFull) >>> 0);
    for (let r = 0; r < m.rows; r++) {
      const from = r * m.rowBytes;
      this.spad.set(m.bytes.subarray(from, from + m.rowBytes), this.base + m.dstAddr + r * m.dstStride);
    }
    this.rxFull = (this.rxFull | slots) >>> 0;
    this.rxCount++;
    this.onLanded?.(m);
  }

  /** The CPU's W1C write of RX_FULL. */
  release(slots: number): void {
    this.rxFull = (this.rxFull & ~slots) >>> 0;
  }

  /** The lowest slot of a mask, for messages. */
  static firstSlot(mask: number): number {
    return 31 - Math.clz32(mask & -mask);
  }
}
