// What every TPU unit (DMA, MXU, VPU) looks like to the TPU core (tpu.ts),
// which owns the queues, the start rule, wait tokens, the port rule and the
// counters. A unit only executes one command at a time.
//
// Clock protocol. The core processes clocks in order. For clock c it first
// starts commands (begin), then for every running unit calls tickRead(c), then
// for every running unit tickWrite(c): within one clock all reads see the
// memories as they were at the start of the clock, whatever the order of the
// units. A command that began at clock s and returns true from tickWrite(e)
// was busy for e - s + 1 clocks.
//
// Each unit has two models with the same observable behaviour (the bytes read
// and written at every clock, and the end clock):
//   - the reference model, literal and clock by clock; it is only ever driven
//     through tickRead/tickWrite;
//   - the fast model, which the core may also advance n clocks at once with
//     skip(c, n), but only over a window in which no other unit writes what it
//     reads (the core checks region masks) and n <= horizon(c).
//
// The same protocol serves units behind a banked memory with a per-clock
// request and grant (BankedUnit: the write-up's board's units,
// boards/transformer-tpu-int4/ports.ts): the read phase is preceded by the
// requests and the arbitration, the write phase is the clock's edge, and the
// fast model's skip is bulk(n) over clocks in which no other requester shares
// the unit's banks.

import type { MxuKernel } from './mxu-kernel.ts';

export interface Cmd {
  /** ARG0..ARG4 as pushed. */
  readonly args: Uint32Array;
  readonly opcode: number;
  readonly flags: number;
  /** The unit's ISSUED count before this push: the command's serial number. */
  readonly serial: number;
  readonly pushClock: number;
  /** Wait token (ARG5): unit number in 31:30, ticket in 29:0. */
  readonly token: number;
  /** The sequencer list entry that pushed it (its index), or -1 (or absent) when the CPU did. */
  readonly entry?: number;
}

/** Memories a unit reaches. Nothing else is reachable from a command. */
export interface UnitMemories {
  readonly spad: Uint8Array;
  readonly sram: Uint8Array;
  /** The fast MXU's WebAssembly kernel over this scratchpad (periph/mxu-kernel.ts), when it lives in the kernel's memory. */
  readonly mxuKernel?: MxuKernel | null;
}

/** The scratchpad regions a command holds ports of, as bitmasks (bit r = region r). */
export interface Footprint {
  read: number;
  write: number;
  /** Set when two operands of the command read the same region. */
  sameRegion: boolean;
}

export interface UnitModel {
  /** True from begin() until the tickWrite/skip that ends the command. */
  readonly running: boolean;
  /** Starts executing a command that passed validation, at clock `clock`. */
  begin(cmd: Cmd, clock: number): void;
  tickRead(clock: number): void;
  /** Returns true when the command's last clock was `clock`. */
  tickWrite(clock: number): boolean;
  /**
   * Fast model only: how many clocks from `clock` on can be skipped in one go
   * (>= 1); the command ends at clock + horizon - 1 at the latest.
   */
  horizon(clock: number): number;
  /** Fast model only: advances n clocks; returns true if the command ended at clock + n - 1. */
  skip(clock: number, n: number): boolean;
}

/** Per-unit static rules shared by both models. */
export interface UnitRules {
  /** 0 when the command is well formed, else an ERR code (periph/regs.ts). */
  validate(cmd: Cmd): number;
  /**
   * Regions the command reads and writes; only called on valid commands.
   * Written into `into` when given (the core reuses one per unit: a started
   * command allocates nothing), else into a new object.
   */
  footprint(cmd: Cmd, into?: Footprint): Footprint;
  /** Busy clocks of the command when nothing slows it down (documented timing). */
  nominalClocks(cmd: Cmd): number;
  /** A one-line description for reports: opcode and fields. */
  describe(cmd: Cmd): string;
  /**
   * The core's start of a command: validate(), and when that returns 0, the
   * footprint into `into`. Returns validate()'s code.
   */
  admit(cmd: Cmd, into: Footprint): number;
}

/** admit() from validate() and footprint(): for a unit whose commands are few (the sequencer, the link). */
export function admitByParts(rules: UnitRules, cmd: Cmd, into: Footprint): number {
  const code = rules.validate(cmd);
  if (code === 0) rules.footprint(cmd, into);
  return code;
}

/** A decoded command's admission: validate()'s code and, when 0, its footprint. */
export interface Admission {
  code: number;
  read: number;
  write: number;
  sameRegion: boolean;
}

/** Sets of a CommandCache, of two slots each: a model's firmware uses a few thousand distinct commands per unit. */
const CACHE_BITS = 11;
const CACHE_SETS = 1 << CACHE_BITS;
/** Words of a slot's key: ARG0..ARG4, then opcode | flags << 8 (-1: an empty slot). */
const KEY_WORDS = 6;
/** Words of a set in CommandCache.keys: its two slots' keys, then its slot used last (0 or 1), in one 64-byte line. */
const SET_WORDS = 16;
const RECENT = 2 * KEY_WORDS;

/**
 * Decoded commands of one unit, by their words (ARG0..ARG4, opcode, flags): a
 * firmware pushes the same few thousand commands over and over (every token of a
 * model's inference repeats its layers'), so a start decodes, validates and works
 * out the footprint of a command once, and afterwards finds it by a hash of its
 * words. Two slots a hash (a command whose slot another one took is decoded
 * again, in the slot used less recently). A slot's record is decoded again in
 * place when another command takes the slot: a unit's fast model holds its
 * running command's record (begin()), so admit() is called only while that
 * model is idle, at the start of a command.
 */
export abstract class CommandCache<D extends Admission> {
  /** Per set, SET_WORDS words: the keys of its two slots and its slot used last; a lookup reads one memory line. */
  private readonly keys = new Int32Array(CACHE_SETS * SET_WORDS).fill(-1);
  private readonly records: (D | null)[] = new Array<D | null>(2 * CACHE_SETS).fill(null);

  /** A new, empty record (one per slot, made the first time the slot is used). */
  protected abstract newRecord(): D;
  /** Decodes `cmd` into `d`: its fields, its admission code, and its footprint when the code is 0. */
  protected abstract decodeInto(cmd: Cmd, d: D): void;

  /** The command admit() decoded last (and its serial: the core reuses command objects), and its record. */
  private admittedCmd: Cmd | null = null;
  private admittedSerial = -1;
  private admittedRecord: D | null = null;
  /** The footprint of an admit() whose caller needs only the record. */
  private readonly unusedFootprint: Footprint = { read: 0, write: 0, sameRegion: false };

  /**
   * UnitRules.admit(): `cmd` decoded and admitted, from its set when the same
   * words were decoded last in one of its slots. Its record is kept for the
   * fast model's begin() (recordToBegin()). The lookup is written out here,
   * the one call a start makes into the cache.
   */
  admit(cmd: Cmd, into: Footprint): number {
    const args = cmd.args;
    const a0 = args[0] | 0, a1 = args[1] | 0, a2 = args[2] | 0, a3 = args[3] | 0, a4 = args[4] | 0;
    const op = cmd.opcode | (cmd.flags << 8);
    let h = Math.imul(a0, 0x9e3779b1) + a1;
    h = Math.imul(h ^ (h >>> 15), 0x85ebca77) + a2;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae3d) + a3;
    h = Math.imul(h ^ (h >>> 16), 0x27d4eb2f) + a4;
    h = Math.imul(h ^ (h >>> 15), 0x165667b1) + op;
    h = Math.imul(h ^ (h >>> 16), 0x2c1b3c6d);
    const set = (h ^ (h >>> 13)) & (CACHE_SETS - 1);
    const keys = this.keys, k = set * SET_WORDS;
    let d: D;
    if (keys[k] === a0 && keys[k + 1] === a1 && keys[k + 2] === a2 && keys[k + 3] === a3 && keys[k + 4] === a4 && keys[k + 5] === op) {
      keys[k + RECENT] = 0;
      d = this.records[2 * set]!;
    } else if (keys[k + 6] === a0 && keys[k + 7] === a1 && keys[k + 8] === a2 && keys[k + 9] === a3 && keys[k + 10] === a4 && keys[k + 11] === op) {
      keys[k + RECENT] = 1;
      d = this.records[2 * set + 1]!;
    } else {
      // A miss: into the slot used less recently (an empty set's recent word is -1: slot 0).
      const way = (keys[k + RECENT] & 1) ^ 1, slot = 2 * set + way, at = k + way * KEY_WORDS;
      keys[k + RECENT] = way;
      d = this.records[slot] ?? (this.records[slot] = this.newRecord());
      this.decodeInto(cmd, d);
      keys[at] = a0; keys[at + 1] = a1; keys[at + 2] = a2; keys[at + 3] = a3; keys[at + 4] = a4; keys[at + 5] = op;
    }
    this.admittedCmd = cmd;
    this.admittedSerial = cmd.serial;
    this.admittedRecord = d;
    if (d.code === 0) {
      into.read = d.read;
      into.write = d.write;
      into.sameRegion = d.sameRegion;
    }
    return d.code;
  }

  /**
   * The record of `cmd` for the fast model's begin(): the one admit() just
   * found, when `cmd` is the command admitted last (the core admits a command,
   * then begins it), else admit()'s for it now (another caller's begin()).
   */
  recordToBegin(cmd: Cmd): D {
    if (this.admittedRecord === null || cmd !== this.admittedCmd || cmd.serial !== this.admittedSerial) this.admit(cmd, this.unusedFootprint);
    const d = this.admittedRecord!;
    this.admittedRecord = null;
    return d;
  }
}

/** A footprint: `into` filled in, or a new one. */
export function footprintOf(read: number, write: number, sameRegion: boolean, into?: Footprint): Footprint {
  if (!into) return { read, write, sameRegion };
  into.read = read;
  into.write = write;
  into.sameRegion = sameRegion;
  return into;
}

/** LOW_BITS[i] = 2^i − 1: the mask of regions 0..i−1 (i ≤ 32). */
const LOW_BITS = Array.from({ length: 33 }, (_, i) => 2 ** i - 1);

/** Helper: the mask of regions touched by `rows` rows of `rowBytes` bytes from `addr`. */
export function regionMask(addr: number, rows: number, rowBytes: number, stride: number, regionBytes: number): number {
  const first = Math.floor(addr / regionBytes);
  const last = Math.floor((addr + (rows - 1) * stride + rowBytes - 1) / regionBytes);
  // Rows whose gaps are shorter than a region cover every region between the first and the last byte.
  if (stride >= rowBytes && stride - rowBytes < regionBytes) {
    return (LOW_BITS[last >= 31 ? 32 : last + 1] - LOW_BITS[first]) >>> 0;
  }
  let mask = 0;
  for (let r = 0; r < rows; r++) {
    const first = addr + r * stride;
    const last = first + rowBytes - 1;
    for (let g = Math.floor(first / regionBytes); g <= Math.floor(last / regionBytes); g++) mask |= 1 << g;
  }
  return mask >>> 0;
}

/** Last byte (exclusive) of a 2-D block, to range-check it. */
export function blockEnd(addr: number, rows: number, rowBytes: number, stride: number): number {
  return addr + (rows - 1) * stride + rowBytes;
}

/** Field accessor: bits [lsb, lsb+width) of a staging register. */
export function bits(v: number, lsb: number, width: number): number {
  return width >= 32 ? v >>> 0 : (v >>> lsb) & ((1 << width) - 1);
}

/**
 * A command's argument field: bits() of its staging register, in one call. A unit decodes a
 * dozen of these a command, unoptimized for a while in a cold process, where each call counts.
 */
export function argField(cmd: Cmd, f: { readonly arg: number; readonly lsb: number; readonly width: number }): number {
  return f.width >= 32 ? cmd.args[f.arg] >>> 0 : (cmd.args[f.arg] >>> f.lsb) & ((1 << f.width) - 1);
}

/** int4 rounding shift and saturation of PLATFORM.md §6.2. */
export function rshift(x: number, s: number): number {
  // (x + 2^(s-1)) >> s without overflowing the addition: floor(x / 2^s) plus the bit below.
  return s === 0 ? x : (x >> s) + ((x >> (s - 1)) & 1);
}
export function sat4(x: number): number {
  return x < -8 ? -8 : x > 7 ? 7 : x;
}
/** Signed nibble `i` of a packed int4 buffer (element 2i in the low nibble). */
export function getInt4(buf: Uint8Array, base: number, i: number): number {
  const b = buf[base + (i >> 1)];
  const n = i & 1 ? b >> 4 : b & 15;
  return (n << 28) >> 28;
}
export function setInt4(buf: Uint8Array, base: number, i: number, v: number): void {
  const at = base + (i >> 1);
  buf[at] = i & 1 ? (buf[at] & 0x0f) | ((v & 15) << 4) : (buf[at] & 0xf0) | (v & 15);
}

/**
 * The clock protocol of a unit behind a banked memory with request/grant
 * arbitration (ports type P; the write-up's board: its scratchpad's Ports).
 * One clock: request(p) posts the unit's requests from its state at the start
 * of the clock; after the arbitration, read(p) samples granted reads (the
 * memory before this clock's writes), edge(p) is the clock's edge (the FSM's
 * registers, granted writes). The front end's dispatch is taken at the edge of
 * a clock in which the unit is idle. The fast model may instead call bulk(n)
 * for n <= horizon() clocks while no other requester shares the unit's banks;
 * horizon() is a lower bound of the clocks before the unit's DONE state with
 * every access granted.
 */
export interface BankedUnit<P> {
  readonly busy: boolean;
  readonly isDone: boolean;
  /** Banks (bitmasks) the running command may read and write. */
  readonly readMask: number;
  readonly writeMask: number;
  request(p: P): void;
  read(p: P): void;
  edge(p: P): void;
  horizon(): number;
  bulk(n: number): void;
}
