// The command sequencer, a platform what-if (`sequencer` = 1; docs/hardware.md
// §5.11): a fourth TPU unit whose one command, RUN, feeds a list of ordinary
// unit commands from the scratchpad into the DMA, MXU and VPU queues, so the
// CPU issues one command where it issued hundreds.
//
// Timing rule (both models): a RUN that starts at clock s reads nothing in s
// (it latches LIST_ADDR and COUNT and the three units' ISSUED counts, the
// bases of relative tickets). Entry i is fetched — its 32 bytes read from the
// scratchpad, as they are at the start of the clock, through the 256-bit read
// port of its region — in clock f(i): f(0) = s + 1, f(i + 1) = q(i) + 1, where
// q(i) is the first clock ≥ f(i) at whose start the target unit's FIFO holds
// fewer than queueDepth commands (the CPU's PUSH of that clock counted first).
// The entry is pushed at q(i) exactly as a CPU PUSH at q(i) would be. A WAIT
// entry (CMD.UNIT 0) is pushed nowhere: q(i) is the first clock ≥ f(i) at
// whose start its token is met (the DONE a CPU poll would read then). The
// RUN ends at q(COUNT − 1), or at f(i) of a bad entry.
//
// The core (tpu.ts) calls act(c) at the start of every clock c after the
// start clock, before any command starts in c. The reference model does that
// literally every clock, holding the fetched entry as the 32 raw bytes of the
// entry register and decoding them each clock it tries to push; the fast
// model decodes an entry once, from a word view of the scratchpad, and the
// core skips the clocks in which it waits on a full queue (the queue can only
// drain at a start, which ends the core's window).

import type { TpuConfig } from './config.ts';
import { ERR, opcode, packField, SEQ_ENTRY_BYTES, SEQ_ENTRY_FIELD, SEQ_ENTRY_WAIT, SEQ_UNIT, TOKEN_FIELD, unpackField } from './regs.ts';
import { admitByParts, bits, footprintOf, regionMask, type Cmd, type Footprint, type UnitRules } from './unit.ts';

const RUN = opcode('SEQ', 'RUN');
const F_LIST = SEQ_UNIT.args[0];
const F_COUNT = SEQ_UNIT.args[1];
const listAddr = (cmd: Cmd) => bits(cmd.args[F_LIST.arg], F_LIST.lsb, F_LIST.width);
const listCount = (cmd: Cmd) => bits(cmd.args[F_COUNT.arg], F_COUNT.lsb, F_COUNT.width);

/** What the sequencer needs from the TPU core. */
export interface SeqPort {
  /** Does unit u (0 DMA, 1 MXU, 2 VPU) hold fewer than queueDepth waiting commands now? */
  hasRoom(unit: number): boolean;
  /** Pushes one command to unit u at `clock`, as a CPU PUSH at that clock would; `entry` is its list index. */
  feed(unit: number, args: Uint32Array, token: number, opcode: number, flags: number, clock: number, entry: number): void;
  /** Unit u's ISSUED count now. */
  issued(unit: number): number;
  /** Unit u's DONE count as of the start of this clock. */
  doneCount(unit: number): number;
  /** Entry `index` is bad: the core records BAD_ENTRY; the RUN ends in this clock. */
  badEntry(index: number, clock: number, detail: string): void;
}

export interface SeqModel {
  readonly running: boolean;
  /** The unit (0..2) whose full FIFO the fetched entry waits for, WAITING_ON_TOKEN for a WAIT entry's token, or -1. */
  readonly waitingOn: number;
  /** Is the held WAIT entry's token met now? */
  tokenMet(): boolean;
  /** The index in its list of the entry fetched next (or held). */
  readonly entryIndex: number;
  begin(cmd: Cmd, clock: number): void;
  /** Clock c's work, at its start (c after the start clock); true when the RUN ended at c. */
  act(clock: number): boolean;
}

export function seqRules(cfg: TpuConfig): UnitRules {
  // With a list memory of its own (seqListKiB > 0) lists live there and hold no scratchpad port.
  const ownMemory = cfg.seqListKiB > 0;
  const spadSize = (ownMemory ? cfg.seqListKiB : cfg.spadKiB) * 1024;
  const regionBytes = cfg.regionKiB * 1024;
  return {
    validate(cmd: Cmd): number {
      if (cmd.opcode !== RUN || cmd.flags !== 0) return ERR.BAD_OPCODE;
      const addr = listAddr(cmd), count = listCount(cmd);
      if (count === 0) return ERR.ZERO_SIZE;
      if (addr % SEQ_ENTRY_BYTES !== 0) return ERR.MISALIGNED;
      if (addr + count * SEQ_ENTRY_BYTES > spadSize) return ERR.RANGE;
      return 0;
    },
    footprint(cmd: Cmd, into?: Footprint): Footprint {
      // The list's regions' read ports, for the whole RUN (none with a list memory of its own).
      const bytes = listCount(cmd) * SEQ_ENTRY_BYTES;
      return footprintOf(ownMemory ? 0 : regionMask(listAddr(cmd), 1, bytes, bytes, regionBytes), 0, false, into);
    },
    nominalClocks(cmd: Cmd): number {
      return 1 + listCount(cmd);
    },
    describe(cmd: Cmd): string {
      if (cmd.opcode !== RUN) return `opcode ${cmd.opcode}`;
      return `RUN list=0x${listAddr(cmd).toString(16).padStart(4, '0')} count=${listCount(cmd)}`;
    },
    admit(cmd: Cmd, into: Footprint): number {
      return admitByParts(this, cmd, into);
    },
  };
}

/** waitingOn of a sequencer holding a WAIT entry whose token is not met. */
export const WAITING_ON_TOKEN = 3;

/** A decoded entry; `bad` is '' for a good one. */
interface Entry {
  /** 0..2, or -1 for a WAIT entry. */
  unit: number;
  opcode: number;
  flags: number;
  token: number;
  readonly args: Uint32Array;
  bad: string;
}

/** 2^30: tickets are 30 bits. */
const TICKET_SPAN = 0x4000_0000;

/**
 * Decodes entry words w[0..7] into `e`, resolving a relative ticket against
 * `bases` (the units' ISSUED counts when the RUN started).
 */
function decodeEntry(w: ArrayLike<number>, bases: readonly number[], e: Entry): void {
  const cmdWord = w[6] >>> 0;
  const unit = unpackField(SEQ_ENTRY_FIELD.UNIT, cmdWord);
  e.opcode = unpackField(SEQ_ENTRY_FIELD.OPCODE, cmdWord);
  e.flags = unpackField(SEQ_ENTRY_FIELD.FLAGS, cmdWord);
  e.bad = unit === 0 && (e.opcode !== SEQ_ENTRY_WAIT || e.flags !== 0) ? `its CMD.UNIT is 0 (the sequencer) but it is no WAIT (opcode ${e.opcode}, flags ${e.flags})`
    : unpackField(SEQ_ENTRY_FIELD.RESERVED, cmdWord) !== 0 ? `reserved bits of CMD are set (0x${cmdWord.toString(16)})`
      : w[7] !== 0 ? `its reserved word is 0x${(w[7] >>> 0).toString(16)}` : '';
  e.unit = unit - 1;
  for (let a = 0; a < 5; a++) e.args[a] = w[a];
  let token = w[5] >>> 0;
  const tokenUnit = unpackField(SEQ_ENTRY_FIELD.TOKEN_UNIT, token);
  if (tokenUnit !== 0 && unpackField(SEQ_ENTRY_FIELD.REL_TOKEN, cmdWord)) {
    // A signed 30-bit offset from the base; a ticket below 0 is met at once (0).
    const raw = unpackField(SEQ_ENTRY_FIELD.TOKEN_TICKET, token);
    const offset = raw >= TICKET_SPAN / 2 ? raw - TICKET_SPAN : raw;
    const ticket = Math.min(TICKET_SPAN - 1, Math.max(0, bases[tokenUnit - 1] + offset));
    token = ((tokenUnit << 30) | ticket) >>> 0;
  }
  e.token = token;
}

/** State shared by both models: the list, the next entry, the entry register. */
abstract class SeqBase implements SeqModel {
  running = false;
  waitingOn = -1;
  protected addr = 0;
  protected count = 0;
  protected next = 0;
  protected readonly bases = [0, 0, 0];
  protected readonly entry: Entry = { unit: 0, opcode: 0, flags: 0, token: 0, args: new Uint32Array(5), bad: '' };

  /** `list`: the memory lists are read from (the scratchpad, or the sequencer's own list memory). */
  constructor(protected readonly list: Uint8Array, protected readonly port: SeqPort) {}

  begin(cmd: Cmd, _clock: number): void {
    this.running = true;
    this.addr = listAddr(cmd);
    this.count = listCount(cmd);
    this.next = 0;
    this.waitingOn = -1;
    for (let u = 0; u < 3; u++) this.bases[u] = this.port.issued(u);
  }

  act(clock: number): boolean {
    if (this.waitingOn < 0) {
      // Fetch stage: entry `next` into the entry register.
      this.fetch(this.addr + this.next * SEQ_ENTRY_BYTES);
      const e = this.decoded();
      if (e.bad) {
        this.port.badEntry(this.next, clock, e.bad);
        return this.end();
      }
      this.waitingOn = e.unit < 0 ? WAITING_ON_TOKEN : e.unit;
    }
    if (this.waitingOn === WAITING_ON_TOKEN) {
      if (!this.tokenMet()) return false;
    } else {
      if (!this.port.hasRoom(this.waitingOn)) return false;
      const e = this.decoded();
      this.port.feed(e.unit, e.args, e.token, e.opcode, e.flags, clock, this.next);
    }
    this.waitingOn = -1;
    return ++this.next === this.count ? this.end() : false;
  }

  get entryIndex(): number {
    return this.next;
  }

  tokenMet(): boolean {
    const token = this.decoded().token;
    const unit = unpackField(TOKEN_FIELD.UNIT, token);
    return unit === 0 || this.port.doneCount(unit - 1) >= unpackField(TOKEN_FIELD.TICKET, token);
  }

  private end(): boolean {
    this.running = false;
    this.waitingOn = -1;
    return true;
  }

  /** Reads the entry at `at` into the entry register. */
  protected abstract fetch(at: number): void;
  /** The entry register, decoded. */
  protected abstract decoded(): Entry;
}

/** Literal model: the entry register holds raw bytes, decoded every clock the sequencer looks at it. */
export class SeqReference extends SeqBase {
  private readonly register = new Uint8Array(SEQ_ENTRY_BYTES);
  private readonly words = [0, 0, 0, 0, 0, 0, 0, 0];

  protected fetch(at: number): void {
    for (let b = 0; b < SEQ_ENTRY_BYTES; b++) this.register[b] = this.list[at + b];
  }

  protected decoded(): Entry {
    const r = this.register;
    for (let i = 0; i < 8; i++) this.words[i] = (r[4 * i] | (r[4 * i + 1] << 8) | (r[4 * i + 2] << 16) | (r[4 * i + 3] << 24)) >>> 0;
    decodeEntry(this.words, this.bases, this.entry);
    return this.entry;
  }
}

/** Fast model: decodes each entry once, from a word view of the scratchpad; the core skips its waits. */
export class SeqFast extends SeqBase {
  private readonly spad32: Uint32Array;
  private readonly words = new Uint32Array(8);

  constructor(list: Uint8Array, port: SeqPort) {
    super(list, port);
    if (list.byteOffset % 4 !== 0) throw new Error('internal: the list memory is not word-aligned');
    this.spad32 = new Uint32Array(list.buffer, list.byteOffset, list.length >> 2);
  }

  protected fetch(at: number): void {
    const w = at >> 2;
    for (let i = 0; i < 8; i++) this.words[i] = this.spad32[w + i];
    decodeEntry(this.words, this.bases, this.entry);
  }

  protected decoded(): Entry {
    return this.entry;
  }
}

/**
 * The sequencer's own list memory (seqListKiB > 0; hardware.md §5.11): a
 * 256-bit-wide block RAM the RUN reads one entry a clock from, written by
 * the CPU one word at a time (LIST_PTR, LIST_DATA) or by RECORD, which
 * captures every command the CPU pushes while it is on.
 */
export class SeqListMemory {
  readonly bytes: Uint8Array;
  private readonly words: Uint32Array;
  /** LIST_PTR: the byte address the next LIST_DATA write or capture goes to. */
  ptr = 0;
  recording = false;
  /** The units' ISSUED counts when RECORD was switched on: captured tickets are relative to them. */
  private readonly bases = [0, 0, 0];

  constructor(kib: number) {
    this.words = new Uint32Array(kib * 256);
    this.bytes = new Uint8Array(this.words.buffer);
  }

  setPtr(value: number): void {
    this.ptr = ((value >>> 0) % this.bytes.length) & ~3;
  }

  /** LIST_DATA: the word at LIST_PTR (wrapping at the end of the memory). */
  writeWord(value: number): void {
    this.words[this.ptr >> 2] = value;
    this.setPtr(this.ptr + 4);
  }

  /** RECORD ← on: latches the units' ISSUED counts. */
  setRecording(on: boolean, issued: readonly number[]): void {
    this.recording = on;
    if (on) for (let u = 0; u < 3; u++) this.bases[u] = issued[u];
  }

  /**
   * RECORD's capture of a CPU PUSH to `unit` (0..2) with staging registers
   * `staging` (ARG0..ARG5): false when the entry does not fit below the end
   * of the memory or LIST_PTR is not entry-aligned (nothing written, RECORD off).
   */
  capture(unit: number, staging: Uint32Array, opcode: number, flags: number): boolean {
    if (this.ptr % SEQ_ENTRY_BYTES !== 0 || this.ptr + SEQ_ENTRY_BYTES > this.bytes.length) {
      this.recording = false;
      return false;
    }
    const w = this.ptr >> 2, token = staging[5] >>> 0, tokenUnit = unpackField(SEQ_ENTRY_FIELD.TOKEN_UNIT, token);
    for (let a = 0; a < 5; a++) this.words[w + a] = staging[a];
    let rel = 0;
    if (tokenUnit !== 0) {
      // The ticket as a signed 30-bit offset from the base: the inverse of decodeEntry.
      const offset = unpackField(SEQ_ENTRY_FIELD.TOKEN_TICKET, token) - this.bases[tokenUnit - 1];
      this.words[w + 5] = (packField(SEQ_ENTRY_FIELD.TOKEN_UNIT, tokenUnit) | packField(SEQ_ENTRY_FIELD.TOKEN_TICKET, offset & (TICKET_SPAN - 1))) >>> 0;
      rel = 1;
    } else {
      this.words[w + 5] = 0;
    }
    this.words[w + 6] = (packField(SEQ_ENTRY_FIELD.OPCODE, opcode) | packField(SEQ_ENTRY_FIELD.FLAGS, flags)
      | packField(SEQ_ENTRY_FIELD.UNIT, unit + 1) | packField(SEQ_ENTRY_FIELD.REL_TOKEN, rel)) >>> 0;
    this.words[w + 7] = 0;
    this.ptr += SEQ_ENTRY_BYTES;
    return true;
  }
}
