// The VPU: elementwise operations over a 2-D block of the scratchpad
// (PLATFORM.md §6.6), 8 lanes per clock.
//
// Operations (opcodes and argument fields: periph/regs.ts, the one table):
//   ADD          int4  C = sat4(A + B)
//   RELU         int4  C = max(A, 0)
//   HARDTANH     int4  C = sat4(clamp(A, −PARAM, PARAM)), PARAM 0..8 (8 clamps to −8..7)
//   CAUSAL_MASK  int4  C(i, j) = −8 where COL_OFF + j > ROW_OFF + i, else A(i, j)
//                      (i: row within the command, j: column; a following RELU zeroes masked entries)
//   REQUANT      int32 → int4  C = sat4(rshift(A, PARAM)), PARAM 0..31
//   ADD32        int32 C = (A + B) | 0 (wrapping)
//   COPY         int4  C = A
// int4 rows are packed (element 2i in the low nibble) and start on a byte
// boundary, so COLS must be even for any int4 operand; int32 operands and
// their strides are 4-byte aligned. B is read only by ADD and ADD32.
//
// Timing (both models): vpuSetup clocks with no memory access, then
// ROWS * ceil(COLS / 8) data clocks. Data clock d works on row r = d / cpr
// (cpr = ceil(COLS / 8)), elements [8q, min(8q + 8, COLS)), q = d % cpr: its
// tickRead reads those elements of A (and B), its tickWrite writes those
// elements of C (whole bytes for int4: chunks are 8 elements and COLS is even,
// so no other element shares a written byte). The last data clock is the
// command's last clock. Busy clocks = vpuSetup + ROWS * ceil(COLS / 8).

import type { TpuConfig } from './config.ts';
import { ERR, UNIT_BY_NAME, opcode, type ArgField } from './regs.ts';
import {
  argField, blockEnd, CommandCache, footprintOf, getInt4, regionMask, rshift, sat4, setInt4,
  type Cmd, type Footprint, type UnitMemories, type UnitModel, type UnitRules,
} from './unit.ts';
import { doubleFields } from './double-fields.ts';

// ---- Fields and opcodes, from the table ----

const VPU = UNIT_BY_NAME.VPU;

function field(name: string): ArgField {
  const fd = VPU.args.find((x) => x.name === name);
  if (!fd) throw new Error(`no VPU field ${name}`);
  return fd;
}
const F_A_ADDR = field('A_ADDR');
const F_B_ADDR = field('B_ADDR');
const F_C_ADDR = field('C_ADDR');
const F_ROWS = field('ROWS');
const F_A_STRIDE = field('A_STRIDE');
const F_B_STRIDE = field('B_STRIDE');
const F_C_STRIDE = field('C_STRIDE');
const F_COLS = field('COLS');
const F_PARAM = field('PARAM');
const F_ROW_OFF = field('ROW_OFF');
const F_COL_OFF = field('COL_OFF');

// Module-local (tsx runs the sources as CommonJS, where an imported binding is a getter call at each use).
const get = argField;

export const VPU_ADD = opcode('VPU', 'ADD');
export const VPU_RELU = opcode('VPU', 'RELU');
export const VPU_HARDTANH = opcode('VPU', 'HARDTANH');
export const VPU_CAUSAL_MASK = opcode('VPU', 'CAUSAL_MASK');
export const VPU_REQUANT = opcode('VPU', 'REQUANT');
export const VPU_ADD32 = opcode('VPU', 'ADD32');
export const VPU_COPY = opcode('VPU', 'COPY');

/** Lanes: elements handled per data clock. */
export const VPU_LANES = 8;

function known(op: number): boolean {
  return VPU.opcodes.some((o) => o.value === op);
}
/** A (and B) are int32. */
function in32(op: number): boolean {
  return op === VPU_ADD32 || op === VPU_REQUANT;
}
/** C is int32. */
function out32(op: number): boolean {
  return op === VPU_ADD32;
}
/** B is an operand. */
function binary(op: number): boolean {
  return op === VPU_ADD || op === VPU_ADD32;
}
function rowBytes(cols: number, int32: boolean): number {
  return int32 ? cols * 4 : cols >> 1;
}

// ---- A decoded command ----

class Decoded {
  op = 0;
  aAddr = 0;
  bAddr = 0;
  cAddr = 0;
  rows = 0;
  cols = 0;
  aStride = 0;
  bStride = 0;
  cStride = 0;
  param = 0;
  rowOff = 0;
  colOff = 0;
  /** Data clocks (chunks) per row. */
  cpr = 0;
  setup = 0;
  /** Busy clocks of the command. */
  total = 0;
  /** The admission (VpuRules): validate()'s code, and when 0 the footprint. */
  code = 0;
  read = 0;
  write = 0;
  sameRegion = false;
}

function decode(cmd: Cmd, cfg: TpuConfig, d: Decoded): void {
  d.op = cmd.opcode;
  d.aAddr = get(cmd, F_A_ADDR);
  d.bAddr = get(cmd, F_B_ADDR);
  d.cAddr = get(cmd, F_C_ADDR);
  d.rows = get(cmd, F_ROWS);
  d.cols = get(cmd, F_COLS);
  d.aStride = get(cmd, F_A_STRIDE);
  d.bStride = get(cmd, F_B_STRIDE);
  d.cStride = get(cmd, F_C_STRIDE);
  d.param = get(cmd, F_PARAM);
  d.rowOff = get(cmd, F_ROW_OFF);
  d.colOff = get(cmd, F_COL_OFF);
  d.cpr = Math.ceil(d.cols / VPU_LANES);
  d.setup = cfg.vpuSetup;
  d.total = d.setup + d.rows * d.cpr;
}

/** One element's result. i: row within the command, j: column. */
function elementOp(d: Decoded, a: number, b: number, i: number, j: number): number {
  switch (d.op) {
    case VPU_ADD: return sat4(a + b);
    case VPU_RELU: return a < 0 ? 0 : a;
    case VPU_HARDTANH: { const p = d.param; return sat4(a < -p ? -p : a > p ? p : a); }
    case VPU_CAUSAL_MASK: return d.colOff + j > d.rowOff + i ? -8 : a;
    case VPU_REQUANT: return sat4(rshift(a, d.param));
    case VPU_ADD32: return (a + b) | 0;
    case VPU_COPY: return a;
    default: throw new Error(`VPU: opcode ${d.op} reached execution`);
  }
}

function rd32(m: Uint8Array, at: number): number {
  return m[at] | (m[at + 1] << 8) | (m[at + 2] << 16) | (m[at + 3] << 24);
}
function wr32(m: Uint8Array, at: number, v: number): void {
  m[at] = v & 0xff;
  m[at + 1] = (v >>> 8) & 0xff;
  m[at + 2] = (v >>> 16) & 0xff;
  m[at + 3] = (v >>> 24) & 0xff;
}

// ---- Static rules ----

/**
 * The VPU's static rules, and the decoded commands the core starts (CommandCache):
 * the fast model's begin() takes its fields from there (VpuFast's `decoded`).
 */
export class VpuRules extends CommandCache<Decoded> implements UnitRules {
  private readonly spadBytes: number;
  private readonly regionBytes: number;
  /** The record of validate(), footprint() and describe(), not cached. */
  private readonly scratch = new Decoded();

  constructor(private readonly cfg: TpuConfig) {
    super();
    this.spadBytes = cfg.spadKiB * 1024;
    this.regionBytes = cfg.regionKiB * 1024;
  }

  protected newRecord(): Decoded {
    return new Decoded();
  }

  protected decodeInto(cmd: Cmd, d: Decoded): void {
    decode(cmd, this.cfg, d);
    d.code = this.check(cmd, d);
    if (d.code === 0) this.regions(d);
  }

  validate(cmd: Cmd): number {
    decode(cmd, this.cfg, this.scratch);
    return this.check(cmd, this.scratch);
  }

  footprint(cmd: Cmd, into?: Footprint): Footprint {
    const d = this.scratch;
    decode(cmd, this.cfg, d);
    this.regions(d);
    return footprintOf(d.read, d.write, d.sameRegion, into);
  }

  nominalClocks(cmd: Cmd): number {
    return this.cfg.vpuSetup + get(cmd, F_ROWS) * Math.ceil(get(cmd, F_COLS) / VPU_LANES);
  }

  describe(cmd: Cmd): string {
    const name = VPU.opcodes.find((o) => o.value === cmd.opcode)?.name ?? `OP_0x${cmd.opcode.toString(16)}`;
    const d = this.scratch;
    decode(cmd, this.cfg, d);
    const hex = (v: number): string => '0x' + v.toString(16).padStart(4, '0');
    const op = d.op;
    let s = `${name} A=${hex(d.aAddr)}`;
    if (binary(op)) s += ` B=${hex(d.bAddr)}`;
    s += ` C=${hex(d.cAddr)} rows=${d.rows} cols=${d.cols}`;
    // Strides only when some operand's rows are not packed back to back.
    const inB = rowBytes(d.cols, in32(op));
    const outB = rowBytes(d.cols, out32(op));
    if (d.rows > 1 && (d.aStride !== inB || (binary(op) && d.bStride !== inB) || d.cStride !== outB)) {
      s += ` strides=${d.aStride}` + (binary(op) ? `/${d.bStride}` : '') + `/${d.cStride}`;
    }
    if (op === VPU_HARDTANH) s += ` bound=${d.param}`;
    else if (op === VPU_REQUANT) s += ` shift=${d.param}`;
    else if (op === VPU_CAUSAL_MASK) s += ` row_off=${d.rowOff} col_off=${d.colOff}`;
    if (cmd.flags !== 0) s += ` flags=0x${cmd.flags.toString(16)}`;
    return s;
  }

  /** validate()'s code for `cmd`, decoded into `d`. */
  private check(cmd: Cmd, d: Decoded): number {
    if (!known(cmd.opcode) || cmd.flags !== 0) return ERR.BAD_OPCODE;
    const op = d.op, spadBytes = this.spadBytes;
    if (d.rows === 0 || d.cols === 0) return ERR.ZERO_SIZE;
    // Every op but ADD32 has an int4 operand (REQUANT: its output).
    if (op !== VPU_ADD32 && (d.cols & 1) !== 0) return ERR.ODD_COLS;
    if (in32(op) && ((d.aAddr | d.aStride) & 3) !== 0) return ERR.MISALIGNED;
    if (in32(op) && binary(op) && ((d.bAddr | d.bStride) & 3) !== 0) return ERR.MISALIGNED;
    if (out32(op) && ((d.cAddr | d.cStride) & 3) !== 0) return ERR.MISALIGNED;
    if (op === VPU_HARDTANH && d.param > 8) return ERR.PARAM;
    if (op === VPU_REQUANT && d.param > 31) return ERR.PARAM;
    const inBytes = rowBytes(d.cols, in32(op));
    if (blockEnd(d.aAddr, d.rows, inBytes, d.aStride) > spadBytes) return ERR.RANGE;
    if (binary(op) && blockEnd(d.bAddr, d.rows, inBytes, d.bStride) > spadBytes) return ERR.RANGE;
    if (blockEnd(d.cAddr, d.rows, rowBytes(d.cols, out32(op)), d.cStride) > spadBytes) return ERR.RANGE;
    return 0;
  }

  /** The footprint of `d`, into its read, write and sameRegion. */
  private regions(d: Decoded): void {
    const inBytes = rowBytes(d.cols, in32(d.op)), regionBytes = this.regionBytes;
    const a = regionMask(d.aAddr, d.rows, inBytes, d.aStride, regionBytes);
    const b = binary(d.op) ? regionMask(d.bAddr, d.rows, inBytes, d.bStride, regionBytes) : 0;
    d.read = (a | b) >>> 0;
    d.write = regionMask(d.cAddr, d.rows, rowBytes(d.cols, out32(d.op)), d.cStride, regionBytes);
    d.sameRegion = (a & b) !== 0;
  }
}

export function vpuRules(cfg: TpuConfig): VpuRules {
  return new VpuRules(cfg);
}

// ---- The clock protocol both models keep (periph/unit.ts) ----

abstract class VpuProtocol {
  /** Clock-valued fields are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['start', 'pos']);
  /** The running command's fields: this model's own record, or the rules' cached one (VpuFast's `decoded`). */
  protected d: Decoded;
  private readonly own = new Decoded();
  /** The rules whose decoded commands begin() takes, or null: it decodes each command itself. */
  protected decodedBy: VpuRules | null = null;
  protected isRunning = false;
  protected start = 0;
  /** Clocks of the command completed (tickWrite done). */
  protected pos = 0;
  /** The chunk tickRead latched for this clock's tickWrite. */
  protected latched = false;
  protected row = 0;
  protected e0 = 0;
  protected n = 0;

  constructor(protected readonly mem: UnitMemories, protected readonly cfg: TpuConfig) {
    this.d = this.own;
  }

  get running(): boolean {
    return this.isRunning;
  }

  /** Decodes the command and starts the clock count at `clock`. */
  protected startCommand(cmd: Cmd, clock: number): void {
    if (this.isRunning) throw new Error('VPU: begin while a command is running');
    if (this.decodedBy !== null) {
      this.d = this.decodedBy.recordToBegin(cmd);
    } else {
      this.d = this.own;
      decode(cmd, this.cfg, this.own);
    }
    this.start = clock;
    this.pos = 0;
    this.latched = false;
    this.isRunning = true;
  }

  protected expect(clock: number): void {
    if (!this.isRunning || clock !== this.start + this.pos) {
      throw new Error(`VPU: clock ${clock} out of protocol (running=${this.isRunning}, expected ${this.start + this.pos})`);
    }
  }
}

// ---- Reference model: literal, 8 lanes, one chunk per clock ----

export class VpuReference extends VpuProtocol implements UnitModel {
  private readonly laneA = new Int32Array(VPU_LANES);
  private readonly laneB = new Int32Array(VPU_LANES);

  begin(cmd: Cmd, clock: number): void {
    this.startCommand(cmd, clock);
  }

  tickRead(clock: number): void {
    this.expect(clock);
    const d = this.d;
    const k = this.pos;
    this.latched = false;
    if (k < d.setup) return;
    const dc = k - d.setup;
    const row = Math.floor(dc / d.cpr);
    const q = dc % d.cpr;
    const e0 = q * VPU_LANES;
    const n = Math.min(VPU_LANES, d.cols - e0);
    const spad = this.mem.spad;
    const wide = in32(d.op);
    const aBase = d.aAddr + row * d.aStride;
    const bBase = d.bAddr + row * d.bStride;
    for (let i = 0; i < n; i++) {
      const e = e0 + i;
      this.laneA[i] = wide ? rd32(spad, aBase + 4 * e) : getInt4(spad, aBase, e);
      this.laneB[i] = !binary(d.op) ? 0 : wide ? rd32(spad, bBase + 4 * e) : getInt4(spad, bBase, e);
    }
    this.row = row;
    this.e0 = e0;
    this.n = n;
    this.latched = true;
  }

  tickWrite(clock: number): boolean {
    this.expect(clock);
    const d = this.d;
    if (this.latched) {
      const spad = this.mem.spad;
      const cBase = d.cAddr + this.row * d.cStride;
      for (let i = 0; i < this.n; i++) {
        const e = this.e0 + i;
        const v = elementOp(d, this.laneA[i], this.laneB[i], this.row, e);
        if (out32(d.op)) wr32(spad, cBase + 4 * e, v);
        else setInt4(spad, cBase, e, v);
      }
      this.latched = false;
    }
    this.pos++;
    if (this.pos === d.total) {
      this.isRunning = false;
      return true;
    }
    return false;
  }

  horizon(_clock: number): number {
    throw new Error('VpuReference: horizon is a fast-model call');
  }

  skip(_clock: number, _n: number): boolean {
    throw new Error('VpuReference: skip is a fast-model call');
  }
}

// ---- Fast model ----

/** Packed int4 byte from two element values. */
function pack(lo: number, hi: number): number {
  return (lo & 15) | ((hi & 15) << 4);
}
function nib(x: number): number {
  return (x << 28) >> 28;
}

/**
 * ADD on a packed byte pair: ADD_TAB[a | b << 8]. Its buffer holds 4096 more bytes past the
 * table, the blocks it is copied from when it is built (below).
 */
const ADD_TAB_AND_BLOCKS = new Uint8Array(65536 + 4096);
const ADD_TAB = ADD_TAB_AND_BLOCKS.subarray(0, 65536);
/** RELU on a packed byte. */
const RELU_TAB = new Uint8Array(256);
/** HARDTANH with bound p on a packed byte: HARDTANH_TAB[p * 256 + byte]. */
const HARDTANH_TAB = new Uint8Array(9 * 256);
{
  const clamp = (x: number, p: number): number => sat4(x < -p ? -p : x > p ? p : x);
  // ADD of two nibbles: NIBBLE_ADD[a | b << 4]. The tables are built at every start, before
  // the JIT has compiled anything: with few calls and few loop iterations.
  const NIBBLE_ADD = new Uint8Array(256);
  for (let a = 0; a < 16; a++) for (let b = 0; b < 16; b++) NIBBLE_ADD[a | (b << 4)] = sat4(nib(a) + nib(b)) & 15;
  for (let x = 0; x < 256; x++) {
    const lo = nib(x & 15);
    const hi = nib(x >> 4);
    RELU_TAB[x] = pack(lo < 0 ? 0 : lo, hi < 0 ? 0 : hi);
    for (let p = 0; p <= 8; p++) HARDTANH_TAB[p * 256 + x] = pack(clamp(lo, p), clamp(hi, p));
  }
  // ADD_TAB[y << 8 | x]'s low nibble is NIBBLE_ADD of x's and y's low nibbles, its high nibble
  // that of their high nibbles. So each 16 bytes of a row (x's high nibble fixed) are one of 256
  // blocks, a low nibble of y and a high nibble h: BLOCK[h << 8 | yl << 4 | xl] =
  // NIBBLE_ADD[xl | yl << 4] | h << 4. The blocks are built past the table, then copied into it.
  const BLOCKS = 65536;
  for (let i = 0; i < 4096; i++) ADD_TAB_AND_BLOCKS[BLOCKS + i] = NIBBLE_ADD[i & 255] | ((i >> 8) << 4);
  for (let y = 0; y < 256; y++) {
    const yLo = (y & 15) << 4, yHi = y & 0xf0, row = y << 8;
    for (let xh = 0; xh < 16; xh++) {
      const from = BLOCKS + ((NIBBLE_ADD[xh | yHi] << 8) | yLo);
      ADD_TAB_AND_BLOCKS.copyWithin(row | (xh << 4), from, from + 16);
    }
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Rounding shift of §6.2 without overflow: floor(x / 2^s + 1/2). */
function rq(x: number, s: number): number {
  return s === 0 ? x : (x >> s) + ((x >> (s - 1)) & 1);
}

/**
 * Same bytes and clocks as VpuReference. skip() processes whole rows with
 * per-op byte loops (lookup tables, memmove, int32 views) when the row's C
 * cannot overwrite a byte of A or B that a later chunk of the same row still
 * has to read; otherwise, and for partial rows, it steps chunk by chunk
 * exactly like the clock-by-clock path. No allocation after begin().
 */
export class VpuFast extends VpuProtocol implements UnitModel {
  /** Results of the chunk read this clock, written by tickWrite. */
  private readonly out = new Int32Array(VPU_LANES);
  private spad: Uint8Array;
  /** int32 view of the scratchpad (null if unaligned or big-endian). */
  private i32: Int32Array | null = null;
  // Per-command constants.
  private wide = false;
  private wideOut = false;
  private bin = false;
  private aRowBytes = 0;
  private cRowBytes = 0;

  /**
   * @param decoded the rules of the core's VPU (same configuration): begin() takes the
   *   command's fields from their cache, which the core's start has just filled, instead
   *   of decoding it again. The core calls begin() only right after admitting the command.
   */
  constructor(mem: UnitMemories, cfg: TpuConfig, decoded: VpuRules | null = null) {
    super(mem, cfg);
    this.decodedBy = decoded;
    this.spad = mem.spad;
    this.makeView();
  }

  private makeView(): void {
    const s = this.spad;
    this.i32 = LITTLE_ENDIAN && s.byteOffset % 4 === 0 ? new Int32Array(s.buffer, s.byteOffset, s.length >> 2) : null;
  }

  begin(cmd: Cmd, clock: number): void {
    if (this.mem.spad !== this.spad) {
      this.spad = this.mem.spad;
      this.makeView();
    }
    this.startCommand(cmd, clock);
    const d = this.d;
    this.wide = in32(d.op);
    this.wideOut = out32(d.op);
    this.bin = binary(d.op);
    this.aRowBytes = rowBytes(d.cols, this.wide);
    this.cRowBytes = rowBytes(d.cols, this.wideOut);
  }

  tickRead(clock: number): void {
    this.expect(clock);
    this.latched = false;
    const dc = this.pos - this.d.setup;
    if (dc < 0) return;
    this.readChunk(dc);
    this.latched = true;
  }

  tickWrite(clock: number): boolean {
    this.expect(clock);
    if (this.latched) {
      this.writeChunk();
      this.latched = false;
    }
    return this.advance(1);
  }

  horizon(clock: number): number {
    this.expect(clock);
    return this.d.total - this.pos;
  }

  skip(clock: number, n: number): boolean {
    this.expect(clock);
    const d = this.d;
    if (!(n >= 1) || this.pos + n > d.total) throw new Error(`VPU: skip(${clock}, ${n}) past the command's end`);
    if (this.latched) throw new Error('VPU: skip between tickRead and tickWrite');
    const endPos = this.pos + n;
    let dc = Math.max(0, this.pos - d.setup);
    const dEnd = endPos - d.setup;
    const cpr = d.cpr;
    // Partial row at the start.
    while (dc < dEnd && dc % cpr !== 0) this.chunk(dc++);
    // Whole rows.
    if (dc + cpr <= dEnd) {
      const rows = Math.floor((dEnd - dc) / cpr);
      this.bulkRows(dc / cpr, rows);
      dc += rows * cpr;
    }
    // Partial row at the end.
    while (dc < dEnd) this.chunk(dc++);
    return this.advance(n);
  }

  private advance(n: number): boolean {
    this.pos += n;
    if (this.pos === this.d.total) {
      this.isRunning = false;
      return true;
    }
    return false;
  }

  /** One data clock, read then write. */
  private chunk(dc: number): void {
    this.readChunk(dc);
    this.writeChunk();
  }

  /** Reads data clock dc's elements of A (and B) and latches the results. */
  private readChunk(dc: number): void {
    const d = this.d;
    const spad = this.spad;
    const row = (dc / d.cpr) | 0;
    const e0 = (dc - row * d.cpr) * VPU_LANES;
    const n = Math.min(VPU_LANES, d.cols - e0);
    const aBase = d.aAddr + row * d.aStride;
    const bBase = d.bAddr + row * d.bStride;
    const out = this.out;
    for (let i = 0; i < n; i++) {
      const e = e0 + i;
      let a: number;
      let b = 0;
      if (this.wide) {
        a = rd32(spad, aBase + 4 * e);
        if (this.bin) b = rd32(spad, bBase + 4 * e);
      } else {
        a = getInt4(spad, aBase, e);
        if (this.bin) b = getInt4(spad, bBase, e);
      }
      out[i] = elementOp(d, a, b, row, e);
    }
    this.row = row;
    this.e0 = e0;
    this.n = n;
  }

  private writeChunk(): void {
    const d = this.d;
    const spad = this.spad;
    const out = this.out;
    const n = this.n;
    const cBase = d.cAddr + this.row * d.cStride;
    if (this.wideOut) {
      for (let i = 0; i < n; i++) wr32(spad, cBase + 4 * (this.e0 + i), out[i]);
    } else {
      // n and e0 are even: whole bytes.
      const at = cBase + (this.e0 >> 1);
      for (let i = 0; i < n; i += 2) spad[at + (i >> 1)] = pack(out[i], out[i + 1]);
    }
  }

  /**
   * Rows r0 .. r0 + rows − 1, in order, each in one pass when the result
   * equals the chunk-by-chunk schedule: C's bytes never run ahead of A's (or
   * B's) within the row. Since no op writes more bytes per element than it
   * reads, that holds when C's row starts at or before the operand's row, or
   * after its end; a row where it does not goes chunk by chunk. One call for
   * a window's rows (a vector is often 64 rows of a few bytes).
   */
  private bulkRows(r0: number, rows: number): void {
    const d = this.d;
    const spad = this.spad;
    const nb = this.cRowBytes, aRowBytes = this.aRowBytes, bin = this.bin;
    const aStride = d.aStride, bStride = d.bStride, cStride = d.cStride;
    const op = d.op;
    let a = d.aAddr + r0 * aStride, c = d.cAddr + r0 * cStride;
    for (let r = r0; r < r0 + rows; r++, a += aStride, c += cStride) {
      const b = bin ? d.bAddr + r * bStride : 0;
      if ((c > a && c < a + aRowBytes) || (bin && c > b && c < b + aRowBytes)) {
        const dc = r * d.cpr;
        for (let q = 0; q < d.cpr; q++) this.chunk(dc + q);
        continue;
      }
      switch (op) {
        case VPU_ADD:
          for (let k = 0; k < nb; k++) spad[c + k] = ADD_TAB[spad[a + k] | (spad[b + k] << 8)];
          break;
        case VPU_RELU:
          for (let k = 0; k < nb; k++) spad[c + k] = RELU_TAB[spad[a + k]];
          break;
        case VPU_HARDTANH: {
          const t = d.param * 256;
          for (let k = 0; k < nb; k++) spad[c + k] = HARDTANH_TAB[t + spad[a + k]];
          break;
        }
        case VPU_COPY:
          if (c !== a) spad.copyWithin(c, a, a + nb);
          break;
        case VPU_CAUSAL_MASK: {
          // Columns j <= rowOff + r - colOff keep A, the rest become -8.
          const keep = Math.min(d.cols, Math.max(0, d.rowOff + r - d.colOff + 1));
          const full = keep >> 1;
          if (c !== a && full > 0) spad.copyWithin(c, a, a + full);
          let k = full;
          if (keep & 1) {
            spad[c + k] = (spad[a + k] & 0x0f) | 0x80;
            k++;
          }
          if (k < nb) spad.fill(0x88, c + k, c + nb);
          break;
        }
        case VPU_REQUANT: {
          const s = d.param;
          const v = this.i32;
          if (v) {
            const ai = a >> 2;
            for (let k = 0; k < nb; k++) {
              spad[c + k] = pack(sat4(rq(v[ai + 2 * k], s)), sat4(rq(v[ai + 2 * k + 1], s)));
            }
          } else {
            for (let k = 0; k < nb; k++) {
              spad[c + k] = pack(sat4(rq(rd32(spad, a + 8 * k), s)), sat4(rq(rd32(spad, a + 8 * k + 4), s)));
            }
          }
          break;
        }
        case VPU_ADD32: {
          const v = this.i32;
          const cols = d.cols;
          if (v) {
            const ai = a >> 2, bi = b >> 2, ci = c >> 2;
            for (let j = 0; j < cols; j++) v[ci + j] = (v[ai + j] + v[bi + j]) | 0;
          } else {
            for (let j = 0; j < cols; j++) wr32(spad, c + 4 * j, (rd32(spad, a + 4 * j) + rd32(spad, b + 4 * j)) | 0);
          }
          break;
        }
        default:
          throw new Error(`VPU: opcode ${d.op} reached execution`);
      }
    }
  }
}
