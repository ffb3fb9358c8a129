// 2-D DMA between the external SRAM and the scratchpad. After dmaSetup clocks
// it moves one byte per transfer: a LOAD transfer takes sramReadClocksPerByte
// clocks (1), a STORE transfer sramWriteClocksPerByte (2). A transfer starts
// only when it cannot overlap the clocks the CPU holds the SRAM bus (periph/sram.ts),
// so the CPU's accesses delay the DMA and never the other way round.
//
// Data timing (both models): a LOAD reads the SRAM byte in the first clock of
// its transfer (tickRead) and writes the scratchpad in that clock (tickWrite);
// a STORE reads the scratchpad byte in the first clock and writes the SRAM byte
// in that clock.

import type { BusTiming, TpuConfig } from './config.ts';
import { ERR, opcode, UNIT_BY_NAME } from './regs.ts';
import { SRAM_SIZE, type Sram } from './sram.ts';
import { argField, blockEnd, CommandCache, footprintOf, regionMask, type Cmd, type Footprint, type UnitMemories, type UnitModel, type UnitRules } from './unit.ts';

const LOAD = opcode('DMA', 'LOAD');
const STORE = opcode('DMA', 'STORE');

const field = (name: string) => UNIT_BY_NAME.DMA.args.find((a) => a.name === name)!;
const F = {
  sramAddr: field('SRAM_ADDR'), spadAddr: field('SPAD_ADDR'), rows: field('ROWS'),
  rowBytes: field('ROW_BYTES'), spadStride: field('SPAD_STRIDE'), sramStride: field('SRAM_STRIDE'),
};
// Module-local (tsx runs the sources as CommonJS, where an imported binding is a getter call at each use).
const get = argField;

/** A DMA command's fields, decoded once. */
export class DmaFields {
  store = false;
  sramAddr = 0;
  spadAddr = 0;
  rows = 0;
  rowBytes = 0;
  spadStride = 0;
  sramStride = 0;
  /** The admission (DmaRules): validate()'s code, and when 0 the footprint. */
  code = 0;
  read = 0;
  write = 0;
  sameRegion = false;
}

/** Decodes `cmd` into `into` (a new record when not given). */
export function dmaFields(cmd: Cmd, into: DmaFields = new DmaFields()): DmaFields {
  const d = into;
  d.store = cmd.opcode === STORE;
  d.sramAddr = get(cmd, F.sramAddr);
  d.spadAddr = get(cmd, F.spadAddr);
  d.rows = get(cmd, F.rows);
  d.rowBytes = get(cmd, F.rowBytes);
  d.spadStride = get(cmd, F.spadStride);
  d.sramStride = get(cmd, F.sramStride);
  return d;
}

/**
 * The DMA's static rules, and the decoded commands the core starts (CommandCache):
 * the fast model's begin() takes its fields from there (DmaFast's `decoded`).
 */
export class DmaRules extends CommandCache<DmaFields> implements UnitRules {
  private readonly spadSize: number;
  private readonly regionBytes: number;
  /** The record of validate(), footprint(), nominalClocks() and describe(), not cached. */
  private readonly scratch = new DmaFields();

  constructor(private readonly cfg: TpuConfig, private readonly bus: BusTiming) {
    super();
    this.spadSize = cfg.spadKiB * 1024;
    this.regionBytes = cfg.regionKiB * 1024;
  }

  protected newRecord(): DmaFields {
    return new DmaFields();
  }

  protected decodeInto(cmd: Cmd, d: DmaFields): void {
    dmaFields(cmd, d);
    d.code = this.check(cmd, d);
    if (d.code === 0) this.regions(d);
  }

  validate(cmd: Cmd): number {
    return this.check(cmd, dmaFields(cmd, this.scratch));
  }

  footprint(cmd: Cmd, into?: Footprint): Footprint {
    const d = this.regions(dmaFields(cmd, this.scratch));
    return footprintOf(d.read, d.write, d.sameRegion, into);
  }

  nominalClocks(cmd: Cmd): number {
    const d = dmaFields(cmd, this.scratch);
    const perByte = d.store ? this.bus.sramWriteClocksPerByte : this.bus.sramReadClocksPerByte;
    return this.cfg.dmaSetup + d.rows * d.rowBytes * perByte;
  }

  describe(cmd: Cmd): string {
    if (cmd.opcode !== LOAD && cmd.opcode !== STORE) return `opcode ${cmd.opcode}`;
    const d = dmaFields(cmd, this.scratch);
    const h = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;
    return `${d.store ? 'STORE' : 'LOAD'} sram=0x${d.sramAddr.toString(16).padStart(5, '0')} spad=${h(d.spadAddr)} `
      + `rows=${d.rows} row_bytes=${d.rowBytes} sram_stride=${d.sramStride} spad_stride=${d.spadStride}`;
  }

  /** validate()'s code for `cmd`, decoded into `d`. */
  private check(cmd: Cmd, d: DmaFields): number {
    if ((cmd.opcode !== LOAD && cmd.opcode !== STORE) || cmd.flags !== 0) return ERR.BAD_OPCODE;
    if (d.rows === 0 || d.rowBytes === 0) return ERR.ZERO_SIZE;
    if (blockEnd(d.spadAddr, d.rows, d.rowBytes, d.spadStride) > this.spadSize) return ERR.RANGE;
    if (blockEnd(d.sramAddr, d.rows, d.rowBytes, d.sramStride) > SRAM_SIZE) return ERR.RANGE;
    return 0;
  }

  /** The footprint of `d`, into its read, write and sameRegion: a LOAD writes the scratchpad, a STORE reads it. */
  private regions(d: DmaFields): DmaFields {
    const mask = regionMask(d.spadAddr, d.rows, d.rowBytes, d.spadStride, this.regionBytes);
    d.read = d.store ? mask : 0;
    d.write = d.store ? 0 : mask;
    d.sameRegion = false;
    return d;
  }
}

export function dmaRules(cfg: TpuConfig, bus: BusTiming): DmaRules {
  return new DmaRules(cfg, bus);
}

/**
 * State shared by both models: the command, the transfer position and the
 * transfer in flight. The models differ in how they advance it.
 */
abstract class DmaBase implements UnitModel {
  running = false;
  /** The running command's fields: this model's own record, or the rules' cached one (DmaFast's `decoded`). */
  protected d: DmaFields;
  private readonly own = new DmaFields();
  /** The rules whose decoded commands begin() takes, or null: it decodes each command itself. */
  protected decodedBy: DmaRules | null = null;
  protected setupLeft = 0;
  /** Bytes moved so far, and the row/column of the next one. */
  protected moved = 0;
  protected total = 0;
  protected row = 0;
  protected col = 0;
  /** Clocks left of the transfer in flight (0: none). */
  protected slotLeft = 0;
  /** Clocks per transfer of the current command. */
  protected perByte = 1;
  private latched = 0;

  constructor(protected readonly mem: UnitMemories, protected readonly sram: Sram,
    protected readonly cfg: TpuConfig, protected readonly bus: BusTiming) {
    this.d = this.own;
  }

  begin(cmd: Cmd, _clock: number): void {
    this.d = this.decodedBy !== null ? this.decodedBy.recordToBegin(cmd) : dmaFields(cmd, this.own);
    this.running = true;
    this.setupLeft = this.cfg.dmaSetup;
    this.moved = 0;
    this.total = this.d.rows * this.d.rowBytes;
    this.row = 0;
    this.col = 0;
    this.slotLeft = 0;
    this.perByte = this.d.store ? this.bus.sramWriteClocksPerByte : this.bus.sramReadClocksPerByte;
  }

  /** May a transfer start at `clock`: would [clock, clock + perByte) miss the CPU's bus time? */
  protected canStart(clock: number): boolean {
    return clock + this.perByte <= this.sram.cpuFrom || clock >= this.sram.cpuUntil;
  }

  tickRead(clock: number): void {
    if (this.setupLeft > 0 || this.slotLeft > 0 || !this.canStart(clock)) return;
    this.slotLeft = this.perByte;
    const d = this.d;
    this.latched = d.store
      ? this.mem.spad[d.spadAddr + this.row * d.spadStride + this.col]
      : this.mem.sram[d.sramAddr + this.row * d.sramStride + this.col];
  }

  tickWrite(clock: number): boolean {
    if (this.setupLeft > 0) {
      this.setupLeft--;
      return false;
    }
    if (this.slotLeft === 0) return false; // waiting for the SRAM bus
    const d = this.d;
    if (this.slotLeft === this.perByte) {
      if (d.store) this.mem.sram[d.sramAddr + this.row * d.sramStride + this.col] = this.latched;
      else this.mem.spad[d.spadAddr + this.row * d.spadStride + this.col] = this.latched;
    }
    if (--this.slotLeft > 0) return false;
    return this.advanceBytes(1, clock);
  }

  /** Counts `n` finished transfers; true (and idle) when that was the last. */
  protected advanceBytes(n: number, _clock: number): boolean {
    this.moved += n;
    const at = this.col + n;
    this.row += Math.floor(at / this.d.rowBytes);
    this.col = at % this.d.rowBytes;
    if (this.moved < this.total) return false;
    this.running = false;
    return true;
  }

  abstract horizon(clock: number): number;
  abstract skip(clock: number, n: number): boolean;
}

/** Literal model: one clock at a time, one byte transfer in flight. */
export class DmaReference extends DmaBase {
  horizon(): number {
    throw new Error('DmaReference is clock by clock');
  }
  skip(): boolean {
    throw new Error('DmaReference is clock by clock');
  }
}

/** Fast model: whole runs of transfers between the CPU's SRAM bus clocks. */
export class DmaFast extends DmaBase {
  /** Word views of both memories, for rows of whole aligned words (most rows: a 4-byte weight column). */
  private readonly spad32: Uint32Array | null;
  private readonly sram32: Uint32Array | null;

  /**
   * @param decoded the rules of the core's DMA (same configuration): begin() takes the
   *   command's fields from their cache, which the core's start has just filled, instead
   *   of decoding it again. The core calls begin() only right after admitting the command.
   */
  constructor(mem: UnitMemories, sram: Sram, cfg: TpuConfig, bus: BusTiming, decoded: DmaRules | null = null) {
    super(mem, sram, cfg, bus);
    this.decodedBy = decoded;
    const words = (m: Uint8Array) => (m.byteOffset % 4 === 0 && m.length % 4 === 0 ? new Uint32Array(m.buffer, m.byteOffset, m.length >> 2) : null);
    this.spad32 = words(mem.spad);
    this.sram32 = words(mem.sram);
  }

  horizon(clock: number): number {
    // The setup clocks and the transfers after them: one window, not two (skip goes on from the one into the other).
    if (this.setupLeft > 0) return this.setupLeft + this.transfersHorizon(clock + this.setupLeft);
    if (this.slotLeft > 0) return this.slotLeft;
    return this.transfersHorizon(clock);
  }

  /** horizon() at a clock with no transfer in flight and the setup done. */
  private transfersHorizon(clock: number): number {
    if (!this.canStart(clock)) return this.sram.cpuUntil - clock;
    const left = this.total - this.moved;
    // Transfers that fit before the CPU's next bus time, if it lies ahead.
    const room = this.sram.cpuFrom > clock ? Math.floor((this.sram.cpuFrom - clock) / this.perByte) : left;
    return Math.min(left, room) * this.perByte;
  }

  skip(clock: number, n: number): boolean {
    if (this.setupLeft > 0) {
      if (n <= this.setupLeft) {
        this.setupLeft -= n;
        return false;
      }
      // The window goes on past the setup: the rest of it is transfers.
      clock += this.setupLeft;
      n -= this.setupLeft;
      this.setupLeft = 0;
    }
    if (this.slotLeft > 0) {
      this.slotLeft -= n;
      return this.slotLeft === 0 ? this.advanceBytes(1, clock) : false;
    }
    if (!this.canStart(clock)) return false;
    // n may end inside a transfer (the window was cut by another event): the
    // whole transfers complete, the last one is left in flight.
    const whole = Math.floor(n / this.perByte);
    const partial = n - whole * this.perByte;
    this.copy(whole + (partial > 0 ? 1 : 0));
    if (partial > 0) this.slotLeft = this.perByte - partial;
    return this.advanceBytes(whole, clock);
  }

  /**
   * Moves the next `count` bytes, row by row. Most rows are short (a 4- or
   * 8-byte weight column) and a window of transfers usually begins and ends
   * inside a row (the CPU's SRAM accesses and other units' events cut it): the
   * pieces of rows at both ends go through piece(), the whole rows between
   * them a word at a time when both sides are word-aligned.
   */
  private copy(count: number): void {
    const d = this.d;
    const rb = d.rowBytes;
    let left = count;
    let p = d.spadAddr + this.row * d.spadStride + this.col;
    let q = d.sramAddr + this.row * d.sramStride + this.col;
    if (d.spadStride === rb && d.sramStride === rb && left >= 64) {
      // Rows back to back on both sides: one run of bytes, a memcpy.
      this.piece(p, q, left);
      return;
    }
    if (this.col !== 0) {
      // The rest of the row the window starts in.
      const first = rb - this.col < left ? rb - this.col : left;
      this.piece(p, q, first);
      left -= first;
      p += first + d.spadStride - rb;
      q += first + d.sramStride - rb;
    }
    const spad32 = this.spad32, sram32 = this.sram32;
    if (left >= rb && rb < 64 && spad32 !== null && sram32 !== null && ((p | q | rb | d.spadStride | d.sramStride) & 3) === 0) {
      const words = rb >> 2, rows = (left - left % rb) / rb;
      // The direction's arrays, word indices and row steps: into the scratchpad on a load, out of it on a store.
      const to = d.store ? sram32 : spad32, from = d.store ? spad32 : sram32;
      const toStep = (d.store ? d.sramStride : d.spadStride) >> 2, fromStep = (d.store ? d.spadStride : d.sramStride) >> 2;
      let t = (d.store ? q : p) >> 2, f = (d.store ? p : q) >> 2;
      // Rows of one word (4-byte rows: weight tiles, int4 vectors) without the inner loop.
      if (words === 1) for (let r = 0; r < rows; r++, t += toStep, f += fromStep) to[t] = from[f];
      else for (let r = 0; r < rows; r++, t += toStep, f += fromStep) for (let w = 0; w < words; w++) to[t + w] = from[f + w];
      left -= rows * rb;
      p += rows * d.spadStride;
      q += rows * d.sramStride;
    }
    for (; left >= rb; left -= rb, p += d.spadStride, q += d.sramStride) this.piece(p, q, rb);
    if (left > 0) this.piece(p, q, left); // the start of the row the window ends in
  }

  /** Moves `bytes` bytes of one row (or of back-to-back rows) from scratchpad `p` / SRAM `q`, whichever way the command goes. */
  private piece(p: number, q: number, bytes: number): void {
    const spad = this.mem.spad, sram = this.mem.sram;
    const store = this.d.store;
    if (bytes >= 64) {
      // A view, not a byte at a time: set() is a memcpy.
      if (store) sram.set(spad.subarray(p, p + bytes), q);
      else spad.set(sram.subarray(q, q + bytes), p);
    } else if (((p | q | bytes) & 3) === 0 && this.spad32 !== null && this.sram32 !== null) {
      // Whole aligned words (the byte order is the same on both sides).
      const spad32 = this.spad32, sram32 = this.sram32;
      const end = (p + bytes) >> 2;
      let p4 = p >> 2, q4 = q >> 2;
      if (store) for (; p4 < end;) sram32[q4++] = spad32[p4++];
      else for (; p4 < end;) spad32[p4++] = sram32[q4++];
    } else if (store) {
      for (const end = p + bytes; p < end;) sram[q++] = spad[p++];
    } else {
      for (const end = p + bytes; p < end;) spad[p++] = sram[q++];
    }
  }
}
