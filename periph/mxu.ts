// The MXU: a D×D output-stationary systolic array of int4×int4 → int32 MACs
// (PLATFORM.md §6.5). D = tpu.mxuDim: 8 as built, 16 the MXU-size what-if
// (hardware.md §5.5). One MATMUL computes a D×D tile
//   C[i][j] = (ACCUMULATE ? Cin[i][j] : 0) + Σ_k A[i][k]·B[k][j]   (mod 2^32)
// with B[k][j] = Bt[j][k] under TRANSPOSE_B, and writes it as int32 rows
// (OUT_INT32) or requantized int4 rows sat4(rshift(x, SHIFT)).
//
// Schedule, in clocks relative to the clock s the command begins (both models):
//   setup      mxuSetup clocks, no memory access;
//   preload    ACCUMULATE only, D clocks: preload clock p reads Cin row p
//              (4·D bytes at CIN_ADDR + p·CIN_STRIDE) in tickRead;
//   stream     K + 2·(D−1) clocks: stream clock t < K reads, in tickRead,
//                A:  D/2 bytes at A_ADDR + (t%D)·A_STRIDE + ⌊t/D⌋·D/2
//                    (row t%D of k-block b = ⌊t/D⌋: A[t%D][D·b .. D·b+D−1]);
//                B:  D/2 bytes at B_ADDR + t·B_STRIDE (row t of B), or, with
//                    TRANSPOSE_B, at B_ADDR + (t%D)·B_STRIDE + ⌊t/D⌋·D/2
//                    (row t%D of k-block b of Bt);
//              the last 2·(D−1) clocks drain the skew;
//   writeback  D clocks: writeback clock w writes C row w (4·D bytes int32 or
//              D/2 bytes int4) at C_ADDR + w·C_STRIDE in tickWrite; the last
//              one is the command's last clock.
// Total: mxuSetup + (ACCUMULATE ? D : 0) + K + 2·(D−1) + D = nominalClocks
// (as built: setup + (ACCUMULATE ? 8 : 0) + K + 14 + 8).
//
// MxuReference moves values through the D² PEs clock by clock. MxuFast reads
// the same bytes, each no earlier than its clock and never after anything
// else wrote it, and multiplies whole k-blocks at once (see the class).
// Sums wrap mod 2^32 in both, so the order of the additions does not matter.

import type { TpuConfig } from './config.ts';
import type { MxuKernel } from './mxu-kernel.ts';
import { ERR, UNIT_BY_NAME, flagBit, opcode, type ArgField } from './regs.ts';
import {
  argField,
  blockEnd,
  CommandCache,
  getInt4,
  footprintOf,
  regionMask,
  rshift,
  sat4,
  type Cmd,
  type Footprint,
  type UnitMemories,
  type UnitModel,
  type UnitRules,
} from './unit.ts';
import { doubleFields } from './double-fields.ts';

// ---- Fields, from the one table in regs.ts ----

const MXU = UNIT_BY_NAME.MXU;

function field(name: string): ArgField {
  const f = MXU.args.find((x) => x.name === name);
  if (!f) throw new Error(`regs.ts has no MXU field ${name}`);
  return f;
}

const F_A_ADDR = field('A_ADDR');
const F_B_ADDR = field('B_ADDR');
const F_C_ADDR = field('C_ADDR');
const F_K = field('K');
const F_A_STRIDE = field('A_STRIDE');
const F_B_STRIDE = field('B_STRIDE');
const F_C_STRIDE = field('C_STRIDE');
const F_SHIFT = field('SHIFT');
const F_CIN_ADDR = field('CIN_ADDR');
const F_CIN_STRIDE = field('CIN_STRIDE');

// Module-local (tsx runs the sources as CommonJS, where an imported binding is a getter call at each use).
const get = argField;

export const MATMUL = opcode('MXU', 'MATMUL');
export const TRANSPOSE_B = flagBit('MXU', 'TRANSPOSE_B');
export const ACCUMULATE = flagBit('MXU', 'ACCUMULATE');
export const OUT_INT32 = flagBit('MXU', 'OUT_INT32');
const DEFINED_FLAGS = MXU.flags.reduce((m, fl) => m | (1 << fl.bit), 0);

// Phase lengths of a D×D array: preload (ACCUMULATE) moves one Cin row per
// clock and writeback one C row per clock through the 32·D-bit port; the skew
// fill and drain beyond the stream's K clocks is 2·(D−1).
const preloadClocks = (dim: number): number => dim;
const skewClocks = (dim: number): number => 2 * (dim - 1);
const writebackClocks = (dim: number): number => dim;

/** A MATMUL command's fields and phase boundaries, decoded once per command. */
export class MxuFields {
  /** Array dimension D. */
  dim = 8;
  aAddr = 0;
  bAddr = 0;
  cAddr = 0;
  k = 0;
  aStride = 0;
  bStride = 0;
  cStride = 0;
  shift = 0;
  cinAddr = 0;
  cinStride = 0;
  transposeB = false;
  accumulate = false;
  outInt32 = false;
  /** Phase starts, relative to the begin clock, and the total clock count. */
  preloadStart = 0;
  streamStart = 0;
  writebackStart = 0;
  total = 0;
  /** Row bytes of the C operand. */
  cRowBytes = 0;
  /** The admission (MxuRules): validate()'s code, and when 0 the footprint. */
  code = 0;
  read = 0;
  write = 0;
  sameRegion = false;

  load(cmd: Cmd, setup: number, dim: number): this {
    this.dim = dim;
    this.aAddr = get(cmd, F_A_ADDR);
    this.bAddr = get(cmd, F_B_ADDR);
    this.cAddr = get(cmd, F_C_ADDR);
    this.k = get(cmd, F_K);
    this.aStride = get(cmd, F_A_STRIDE);
    this.bStride = get(cmd, F_B_STRIDE);
    this.cStride = get(cmd, F_C_STRIDE);
    this.shift = get(cmd, F_SHIFT);
    this.cinAddr = get(cmd, F_CIN_ADDR);
    this.cinStride = get(cmd, F_CIN_STRIDE);
    this.transposeB = (cmd.flags & TRANSPOSE_B) !== 0;
    this.accumulate = (cmd.flags & ACCUMULATE) !== 0;
    this.outInt32 = (cmd.flags & OUT_INT32) !== 0;
    this.preloadStart = setup;
    this.streamStart = setup + (this.accumulate ? preloadClocks(dim) : 0);
    this.writebackStart = this.streamStart + this.k + skewClocks(dim);
    this.total = this.writebackStart + writebackClocks(dim);
    this.cRowBytes = this.outInt32 ? 4 * dim : dim / 2;
    return this;
  }
}

/**
 * The MXU's static rules, and the decoded commands the core starts (CommandCache):
 * the fast model's begin() takes its fields from there (MxuFast's `decoded`).
 */
export class MxuRules extends CommandCache<MxuFields> implements UnitRules {
  private readonly spadBytes: number;
  private readonly regionBytes: number;
  /** Operand rows move through D/2-byte (D int4) ports: addresses and strides are multiples of D/2 (4 as built). */
  private readonly align: number;
  /** The record of validate(), footprint(), nominalClocks() and describe(), not cached. */
  private readonly scratch = new MxuFields();

  constructor(private readonly cfg: TpuConfig) {
    super();
    this.spadBytes = cfg.spadKiB * 1024;
    this.regionBytes = cfg.regionKiB * 1024;
    this.align = cfg.mxuDim / 2;
  }

  protected newRecord(): MxuFields {
    return new MxuFields();
  }

  protected decodeInto(cmd: Cmd, d: MxuFields): void {
    d.load(cmd, this.cfg.mxuSetup, this.cfg.mxuDim);
    d.code = this.check(cmd, d);
    if (d.code === 0) this.regions(d);
  }

  validate(cmd: Cmd): number {
    return this.check(cmd, this.fields(cmd));
  }

  footprint(cmd: Cmd, into?: Footprint): Footprint {
    const d = this.regions(this.fields(cmd));
    return footprintOf(d.read, d.write, d.sameRegion, into);
  }

  nominalClocks(cmd: Cmd): number {
    return this.fields(cmd).total;
  }

  describe(cmd: Cmd): string {
    const d = this.fields(cmd);
    const hex = (n: number) => '0x' + n.toString(16).padStart(4, '0');
    const names = MXU.flags.filter((fl) => cmd.flags & (1 << fl.bit)).map((fl) => fl.name);
    const op = MXU.opcodes.find((o) => o.value === cmd.opcode)?.name ?? `op${cmd.opcode}`;
    let s = `${op} A=${hex(d.aAddr)} B=${hex(d.bAddr)} C=${hex(d.cAddr)} K=${d.k} flags=${names.length ? names.join('|') : 'none'} shift=${d.shift}`;
    if (d.accumulate) s += ` Cin=${hex(d.cinAddr)}`;
    return s;
  }

  private fields(cmd: Cmd): MxuFields {
    return this.scratch.load(cmd, this.cfg.mxuSetup, this.cfg.mxuDim);
  }

  private misaligned(addr: number, stride: number): boolean {
    return addr % this.align !== 0 || stride % this.align !== 0;
  }

  // The 2-D blocks (addr, rows, rowBytes, stride) a command reads and writes.
  // A: D rows of K/2 bytes. B: K rows of D/2 bytes, or under TRANSPOSE_B D rows
  // of K/2 bytes. Cin (ACCUMULATE): D rows of 4·D bytes. C: D rows of cRowBytes.

  /** validate()'s code for `cmd`, decoded into `d`. */
  private check(cmd: Cmd, d: MxuFields): number {
    if (cmd.opcode !== MATMUL || (cmd.flags & ~DEFINED_FLAGS) !== 0) return ERR.BAD_OPCODE;
    const n = d.dim, spadBytes = this.spadBytes;
    if (d.k === 0) return ERR.ZERO_SIZE;
    if (d.k % n !== 0) return ERR.BAD_K;
    if (this.misaligned(d.aAddr, d.aStride) || this.misaligned(d.bAddr, d.bStride)
      || (d.accumulate && this.misaligned(d.cinAddr, d.cinStride)) || this.misaligned(d.cAddr, d.cStride)) return ERR.MISALIGNED;
    if (blockEnd(d.aAddr, n, d.k / 2, d.aStride) > spadBytes
      || blockEnd(d.bAddr, d.transposeB ? n : d.k, d.transposeB ? d.k / 2 : n / 2, d.bStride) > spadBytes
      || (d.accumulate && blockEnd(d.cinAddr, n, 4 * n, d.cinStride) > spadBytes)
      || blockEnd(d.cAddr, n, d.cRowBytes, d.cStride) > spadBytes) return ERR.RANGE;
    return 0;
  }

  /** The footprint of `d`, into its read, write and sameRegion. */
  private regions(d: MxuFields): MxuFields {
    const n = d.dim, regionBytes = this.regionBytes;
    const ma = regionMask(d.aAddr, n, d.k / 2, d.aStride, regionBytes);
    const mb = regionMask(d.bAddr, d.transposeB ? n : d.k, d.transposeB ? d.k / 2 : n / 2, d.bStride, regionBytes);
    const mc = d.accumulate ? regionMask(d.cinAddr, n, 4 * n, d.cinStride, regionBytes) : 0;
    d.read = (ma | mb | mc) >>> 0;
    d.write = regionMask(d.cAddr, n, d.cRowBytes, d.cStride, regionBytes);
    d.sameRegion = (ma & mb) !== 0 || (ma & mc) !== 0 || (mb & mc) !== 0;
    return d;
  }
}

export function mxuRules(cfg: TpuConfig): MxuRules {
  return new MxuRules(cfg);
}

// ---- Shared clock bookkeeping ----

/**
 * Checks the clock protocol: begin(s), then for c = s, s+1, ...: tickRead(c)
 * then tickWrite(c) (or, fast model, skip(c, n) in place of n such pairs).
 */
abstract class MxuBase {
  /** Clock-valued fields are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['start', 'next']);
  running = false;
  /** The running command's fields: this model's own record, or the rules' cached one (MxuFast's `decoded`). */
  protected d: MxuFields;
  private readonly own = new MxuFields();
  /** The rules whose decoded commands begin() takes, or null: it decodes each command itself. */
  protected decodedBy: MxuRules | null = null;
  protected start = 0;
  /** The next clock to process. */
  protected next = 0;
  /** tickRead(next) was called, tickWrite(next) not yet. */
  protected readDone = false;

  /** Array dimension D, and log2 D: stream clock t is row t & (D−1) of k-block t >> log2D. */
  protected readonly n: number;
  protected readonly log2n: number;

  constructor(
    protected readonly mem: UnitMemories,
    protected readonly cfg: TpuConfig,
  ) {
    this.d = this.own;
    this.n = cfg.mxuDim;
    this.log2n = Math.log2(cfg.mxuDim);
    if (!Number.isInteger(this.log2n) || this.n < 2) throw new Error(`MXU: array dimension ${cfg.mxuDim} is not a power of two`);
  }

  protected beginCommon(cmd: Cmd, clock: number): void {
    if (this.running) throw new Error(`MXU: begin at clock ${clock} while a command is running`);
    this.d = this.decodedBy !== null ? this.decodedBy.recordToBegin(cmd) : this.own.load(cmd, this.cfg.mxuSetup, this.cfg.mxuDim);
    this.start = clock;
    this.next = clock;
    this.readDone = false;
    this.running = true;
  }

  protected checkRead(clock: number): void {
    if (!this.running || clock !== this.next || this.readDone) this.protocolError('tickRead', clock);
    this.readDone = true;
  }

  protected checkWrite(clock: number): void {
    if (!this.running || clock !== this.next || !this.readDone) this.protocolError('tickWrite', clock);
    this.readDone = false;
    this.next = clock + 1;
  }

  protected protocolError(what: string, clock: number): never {
    throw new Error(
      `MXU: ${what}(${clock}) out of protocol (running=${this.running}, next clock ${this.next}, read done ${this.readDone})`,
    );
  }
}

// ---- Reference: the literal systolic array ----

const NONE = -1;

export class MxuReference extends MxuBase implements UnitModel {
  // PE (i, j) is index i*D + j. Each holds an A register, a B register and
  // its int32 sum; kA/kB tag each register with the k of the value it holds
  // (NONE: no data), which lets the model check its own skew: a PE only ever
  // multiplies an A and a B of the same k.
  private readonly sum: Int32Array;
  private readonly aReg: Int32Array;
  private readonly bReg: Int32Array;
  private readonly kA: Int32Array;
  private readonly kB: Int32Array;
  /** MACs each PE did with valid data, checked against K at the end of the stream. */
  private readonly macs: Int32Array;
  // A row buffers (D per array row): loaded with one D/2-byte read (D values
  // of one row of one k-block) and shifted out into PE(i, 0) one value per clock.
  private readonly aBuf: Int32Array;
  private readonly aBufK: Int32Array;
  // B input skew: without TRANSPOSE_B, column j goes through a chain of j delay
  // registers (bDelay[j*D + r], r = 0 newest); with TRANSPOSE_B, column buffers
  // like A's (bBuf[j*D + m]).
  private readonly bDelay: Int32Array;
  private readonly bDelayK: Int32Array;
  private readonly bBuf: Int32Array;
  private readonly bBufK: Int32Array;
  // Values entering the array this clock.
  private readonly aIn: Int32Array;
  private readonly aInK: Int32Array;
  private readonly bIn: Int32Array;
  private readonly bInK: Int32Array;

  constructor(mem: UnitMemories, cfg: TpuConfig) {
    super(mem, cfg);
    const pes = this.n * this.n;
    this.sum = new Int32Array(pes);
    this.aReg = new Int32Array(pes);
    this.bReg = new Int32Array(pes);
    this.kA = new Int32Array(pes);
    this.kB = new Int32Array(pes);
    this.macs = new Int32Array(pes);
    this.aBuf = new Int32Array(pes);
    this.aBufK = new Int32Array(pes);
    this.bDelay = new Int32Array(pes);
    this.bDelayK = new Int32Array(pes);
    this.bBuf = new Int32Array(pes);
    this.bBufK = new Int32Array(pes);
    this.aIn = new Int32Array(this.n);
    this.aInK = new Int32Array(this.n);
    this.bIn = new Int32Array(this.n);
    this.bInK = new Int32Array(this.n);
  }

  begin(cmd: Cmd, clock: number): void {
    this.beginCommon(cmd, clock);
    this.sum.fill(0);
    this.aReg.fill(0);
    this.bReg.fill(0);
    this.kA.fill(NONE);
    this.kB.fill(NONE);
    this.macs.fill(0);
    this.aBuf.fill(0);
    this.aBufK.fill(NONE);
    this.bDelay.fill(0);
    this.bDelayK.fill(NONE);
    this.bBuf.fill(0);
    this.bBufK.fill(NONE);
  }

  tickRead(clock: number): void {
    this.checkRead(clock);
    const d = this.d;
    const rel = clock - this.start;
    if (rel < d.preloadStart) return; // setup
    if (rel < d.streamStart) {
      this.preload(rel - d.preloadStart);
      return;
    }
    if (rel < d.writebackStart) this.streamClock(rel - d.streamStart);
  }

  tickWrite(clock: number): boolean {
    this.checkWrite(clock);
    const d = this.d;
    const rel = clock - this.start;
    if (rel < d.writebackStart) return false;
    const w = rel - d.writebackStart;
    this.drainRow(w);
    if (rel === d.total - 1) {
      this.running = false;
      return true;
    }
    return false;
  }

  horizon(_clock: number): number {
    throw new Error('MxuReference is driven clock by clock only');
  }

  skip(_clock: number, _n: number): boolean {
    throw new Error('MxuReference is driven clock by clock only');
  }

  /** Preload clock p: Cin row p (D int32) into the sums of PE row p. */
  private preload(p: number): void {
    const n = this.n;
    const spad = this.mem.spad;
    const base = this.d.cinAddr + p * this.d.cinStride;
    for (let j = 0; j < n; j++) {
      const at = base + 4 * j;
      this.sum[p * n + j] = spad[at] | (spad[at + 1] << 8) | (spad[at + 2] << 16) | (spad[at + 3] << 24);
    }
  }

  private streamClock(t: number): void {
    const d = this.d;
    const n = this.n;
    const spad = this.mem.spad;
    const reading = t < d.k;
    const r = t & (n - 1);
    const blk = t >> this.log2n;

    // 1. Memory: D/2 bytes of A into the row buffer of A row t%D.
    if (reading) {
      const at = d.aAddr + r * d.aStride + blk * (n / 2);
      for (let m = 0; m < n; m++) {
        this.aBuf[r * n + m] = getInt4(spad, at, m);
        this.aBufK[r * n + m] = blk * n + m;
      }
    }
    // 2. A row buffers shift one value each into column 0 of the array.
    for (let i = 0; i < n; i++) {
      this.aIn[i] = this.aBuf[i * n];
      this.aInK[i] = this.aBufK[i * n];
      for (let m = 0; m < n - 1; m++) {
        this.aBuf[i * n + m] = this.aBuf[i * n + m + 1];
        this.aBufK[i * n + m] = this.aBufK[i * n + m + 1];
      }
      this.aBuf[i * n + n - 1] = 0;
      this.aBufK[i * n + n - 1] = NONE;
    }

    // 3. B: D/2 bytes into the skew registers, one value per column into row 0.
    if (d.transposeB) {
      if (reading) {
        // Row t%D of block t/D of Bt: B[D·blk + m][t%D], m = 0..D−1.
        const at = d.bAddr + r * d.bStride + blk * (n / 2);
        for (let m = 0; m < n; m++) {
          this.bBuf[r * n + m] = getInt4(spad, at, m);
          this.bBufK[r * n + m] = blk * n + m;
        }
      }
      for (let j = 0; j < n; j++) {
        this.bIn[j] = this.bBuf[j * n];
        this.bInK[j] = this.bBufK[j * n];
        for (let m = 0; m < n - 1; m++) {
          this.bBuf[j * n + m] = this.bBuf[j * n + m + 1];
          this.bBufK[j * n + m] = this.bBufK[j * n + m + 1];
        }
        this.bBuf[j * n + n - 1] = 0;
        this.bBufK[j * n + n - 1] = NONE;
      }
    } else {
      // Row t of B: B[t][j] enters column j's chain of j delay registers.
      const at = d.bAddr + t * d.bStride;
      for (let j = 0; j < n; j++) {
        const v = reading ? getInt4(spad, at, j) : 0;
        const vk = reading ? t : NONE;
        if (j === 0) {
          this.bIn[0] = v;
          this.bInK[0] = vk;
          continue;
        }
        this.bIn[j] = this.bDelay[j * n + j - 1];
        this.bInK[j] = this.bDelayK[j * n + j - 1];
        for (let q = j - 1; q > 0; q--) {
          this.bDelay[j * n + q] = this.bDelay[j * n + q - 1];
          this.bDelayK[j * n + q] = this.bDelayK[j * n + q - 1];
        }
        this.bDelay[j * n] = v;
        this.bDelayK[j * n] = vk;
      }
    }

    // 4. The array: A moves right, B moves down, one PE per clock.
    for (let i = 0; i < n; i++) {
      for (let j = n - 1; j > 0; j--) {
        this.aReg[i * n + j] = this.aReg[i * n + j - 1];
        this.kA[i * n + j] = this.kA[i * n + j - 1];
      }
      this.aReg[i * n] = this.aIn[i];
      this.kA[i * n] = this.aInK[i];
    }
    for (let j = 0; j < n; j++) {
      for (let i = n - 1; i > 0; i--) {
        this.bReg[i * n + j] = this.bReg[(i - 1) * n + j];
        this.kB[i * n + j] = this.kB[(i - 1) * n + j];
      }
      this.bReg[j] = this.bIn[j];
      this.kB[j] = this.bInK[j];
    }

    // 5. Every PE multiplies the pair it holds and adds it to its sum.
    for (let p = 0; p < n * n; p++) {
      if (this.kA[p] !== this.kB[p]) {
        throw new Error(`MxuReference: PE(${p >> this.log2n},${p & (n - 1)}) holds A k=${this.kA[p]} and B k=${this.kB[p]} at stream clock ${t}`);
      }
      if (this.kA[p] !== NONE) this.macs[p]++;
      this.sum[p] = (this.sum[p] + this.aReg[p] * this.bReg[p]) | 0;
    }

    if (t === d.writebackStart - d.streamStart - 1) {
      for (let p = 0; p < n * n; p++) {
        if (this.macs[p] !== d.k) throw new Error(`MxuReference: PE(${p >> this.log2n},${p & (n - 1)}) did ${this.macs[p]} MACs, K=${d.k}`);
      }
    }
  }

  /** Writeback clock w: C row w out of the sums of PE row w. */
  private drainRow(w: number): void {
    const d = this.d;
    const n = this.n;
    const spad = this.mem.spad;
    const base = d.cAddr + w * d.cStride;
    for (let j = 0; j < n; j++) {
      const v = this.sum[w * n + j];
      if (d.outInt32) {
        spad[base + 4 * j] = v & 0xff;
        spad[base + 4 * j + 1] = (v >>> 8) & 0xff;
        spad[base + 4 * j + 2] = (v >>> 16) & 0xff;
        spad[base + 4 * j + 3] = (v >>> 24) & 0xff;
      } else if (j & 1) {
        // Two nibbles per byte, element 2q low: the byte is written whole.
        const lo = sat4(rshift(this.sum[w * n + j - 1], d.shift));
        const hi = sat4(rshift(v, d.shift));
        spad[base + (j >> 1)] = (lo & 15) | ((hi & 15) << 4);
      }
    }
  }
}

// ---- Fast: whole k-blocks at once, stream reads deferred where allowed ----
//
// The fast model reads the bytes the reference reads. Under the unit.ts
// contract it reads a clock's bytes in that clock's tickRead, or within the
// skip() call whose window holds the clock. The TPU core allows more
// (deferReads): a stream read of clock t may happen at any later clock up to
// the first writeback clock as long as nothing wrote A or B in between. Only
// another unit could, and only while the core steps clock by clock because
// that unit's writes meet this command's reads ("coupled"); then the core
// calls tickRead, which catches up on every deferred read first, and in every
// other clock it calls skip. So the reads pile up and are done at writeback,
// or at the first coupled clock: whole k-blocks by the WebAssembly SIMD kernel
// (periph/mxu-kernel.ts) straight from the scratchpad bytes, a k-block the
// range cuts row by row into the block buffers.

export class MxuFast extends MxuBase implements UnitModel {
  /** The WebAssembly SIMD kernel of the scratchpad, or null: JavaScript loops only. */
  private readonly kernel: MxuKernel | null;
  /** The D×D sums, row-major (i·D + j); the kernel's own when there is one. */
  private readonly acc: Int32Array;
  /** A of the current k-block: a[i*D + m] = A[i][D·b + m]. */
  private readonly a: Int32Array;
  /** B of the current k-block: b[m*D + j] = B[D·b + m][j]. */
  private readonly b: Int32Array;
  /** The first stream clock whose reads have not been done yet (0..K). */
  private streamRead = 0;
  /** The kernel's `packed` holds this command's int4 C rows (it did the last stream reads). */
  private packedRows = false;
  /** The scratchpad as int32 words (the kernel's; null without one): Cin and int32 C rows are whole aligned words. */
  private readonly spad32: Int32Array | null;

  /**
   * @param deferReads set by the TPU core (tpu.ts), which then calls tickRead in
   *   every clock in which another unit may write what this command reads: skip
   *   may then leave stream reads for later. Otherwise (the unit.ts contract)
   *   a window's reads are all done when skip returns.
   * @param decoded the rules of the core's MXU (same configuration): begin() takes the
   *   command's fields from their cache, which the core's start has just filled, instead
   *   of decoding it again. The core calls begin() only right after admitting the command.
   */
  constructor(mem: UnitMemories, cfg: TpuConfig, private readonly deferReads = false, decoded: MxuRules | null = null) {
    super(mem, cfg);
    this.decodedBy = decoded;
    this.kernel = mem.mxuKernel ?? null;
    this.acc = this.kernel ? this.kernel.acc.subarray(0, this.n * this.n) : new Int32Array(this.n * this.n);
    this.a = new Int32Array(this.n * this.n);
    this.b = new Int32Array(this.n * this.n);
    this.spad32 = this.kernel ? this.kernel.spadWords : null;
  }

  begin(cmd: Cmd, clock: number): void {
    this.beginCommon(cmd, clock);
    this.acc.fill(0);
    this.streamRead = 0;
    this.packedRows = false;
  }

  /** A clock stepped on its own, maybe coupled: every read up to and including this clock's, now. */
  tickRead(clock: number): void {
    this.checkRead(clock);
    const rel = clock - this.start;
    const d = this.d;
    if (rel < d.streamStart) this.preloadAt(rel);
    else if (this.streamRead < d.k) this.readStream(Math.min(rel - d.streamStart + 1, d.k));
  }

  tickWrite(clock: number): boolean {
    this.checkWrite(clock);
    const rel = clock - this.start;
    if (rel < this.d.writebackStart) return false;
    this.writeRow(rel - this.d.writebackStart);
    if (rel === this.d.total - 1) {
      this.running = false;
      return true;
    }
    return false;
  }

  /** Clocks from `clock` to the end of the command, inclusive. */
  horizon(clock: number): number {
    if (!this.running || clock !== this.next || this.readDone) this.protocolError('horizon', clock);
    return this.start + this.d.total - clock;
  }

  skip(clock: number, n: number): boolean {
    if (!this.running || clock !== this.next || this.readDone) this.protocolError('skip', clock);
    const d = this.d;
    let rel = clock - this.start;
    const stop = rel + n;
    if (!(n >= 1) || stop > d.total || !Number.isInteger(n)) {
      throw new Error(`MXU: skip(${clock}, ${n}) past the horizon ${this.start + d.total - clock}`);
    }
    while (rel < stop) {
      if (rel < d.preloadStart) {
        rel = d.preloadStart < stop ? d.preloadStart : stop; // setup: nothing
      } else if (rel < d.streamStart) {
        this.preloadAt(rel++);
      } else if (rel < d.writebackStart) {
        const to = d.writebackStart < stop ? d.writebackStart : stop;
        // Stream reads (deferred when the core allows it); skew drain: nothing.
        if (!this.deferReads && rel < d.streamStart + d.k) this.readStream(Math.min(to - d.streamStart, d.k));
        rel = to;
      } else {
        // Writeback: the window's C rows in one go.
        this.writeRows(rel - d.writebackStart, stop - d.writebackStart);
        rel = stop;
      }
    }
    this.next = clock + n;
    if (stop === d.total) {
      this.running = false;
      return true;
    }
    return false;
  }

  /** Preload clock rel (rel ≥ preloadStart): Cin row rel − preloadStart into the sums. */
  private preloadAt(rel: number): void {
    const d = this.d;
    if (rel < d.preloadStart) return;
    const n = this.n;
    const spad = this.mem.spad;
    const p = rel - d.preloadStart;
    let at = d.cinAddr + p * d.cinStride;
    const spad32 = this.spad32;
    if (spad32 && (at & 3) === 0) {
      // Little-endian words, as the bytes below assemble them.
      for (let j = 0, w = at >> 2; j < n; j++) this.acc[p * n + j] = spad32[w + j];
      return;
    }
    for (let j = 0; j < n; j++, at += 4) {
      this.acc[p * n + j] = spad[at] | (spad[at + 1] << 8) | (spad[at + 2] << 16) | (spad[at + 3] << 24);
    }
  }

  /** Does the stream reads of clocks streamRead..end−1 (end ≤ K). */
  private readStream(end: number): void {
    const d = this.d;
    const mask = this.n - 1;
    let t = this.streamRead;
    while (t < end && (t & mask) !== 0) this.readRow(t++);
    const whole = end & ~mask;
    if (this.kernel && whole > t) {
      // The command's last reads with int4 output: the kernel packs the C rows too (packedRows).
      const last = whole === d.k && !d.outInt32;
      this.kernel.matmul(this.n, d.aAddr, d.aStride, d.bAddr, d.bStride, d.transposeB, t, whole, last ? d.shift : -1);
      this.packedRows = last;
      t = whole;
    }
    while (t < end) this.readRow(t++);
    this.streamRead = end;
  }

  /** Stream clock t's reads into the k-block buffers; the k-block's MACs at its last row. */
  private readRow(t: number): void {
    const d = this.d;
    const n = this.n;
    const half = n >> 1;
    const spad = this.mem.spad;
    const r = t & (n - 1);
    const blk = t >> this.log2n;
    const a = this.a;
    const b = this.b;
    // A row r of block blk: A[r][D·blk .. D·blk+D−1].
    let at = d.aAddr + r * d.aStride + blk * half;
    for (let q = 0; q < half; q++) {
      const v = spad[at + q];
      a[r * n + 2 * q] = (v << 28) >> 28;
      a[r * n + 2 * q + 1] = (v << 24) >> 28;
    }
    if (d.transposeB) {
      // Bt row r of block blk: B[D·blk + m][r].
      at = d.bAddr + r * d.bStride + blk * half;
      for (let q = 0; q < half; q++) {
        const v = spad[at + q];
        b[2 * q * n + r] = (v << 28) >> 28;
        b[(2 * q + 1) * n + r] = (v << 24) >> 28;
      }
    } else {
      // B row t: B[D·blk + r][0..D−1].
      at = d.bAddr + t * d.bStride;
      for (let q = 0; q < half; q++) {
        const v = spad[at + q];
        b[r * n + 2 * q] = (v << 28) >> 28;
        b[r * n + 2 * q + 1] = (v << 24) >> 28;
      }
    }
    if (r === n - 1) {
      if (n === 8) this.macBlock8();
      else this.macBlock();
    }
  }

  /** acc += a·b for one 8×8×8 k-block (the as-built array): row by row, eight sums in locals. */
  private macBlock8(): void {
    const a = this.a, b = this.b, acc = this.acc;
    for (let i = 0; i < 64; i += 8) {
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
      for (let m = 0; m < 8; m++) {
        const av = a[i + m];
        if (av === 0) continue;
        const o = m * 8;
        s0 += av * b[o]; s1 += av * b[o + 1]; s2 += av * b[o + 2]; s3 += av * b[o + 3];
        s4 += av * b[o + 4]; s5 += av * b[o + 5]; s6 += av * b[o + 6]; s7 += av * b[o + 7];
      }
      acc[i] = (acc[i] + s0) | 0; acc[i + 1] = (acc[i + 1] + s1) | 0;
      acc[i + 2] = (acc[i + 2] + s2) | 0; acc[i + 3] = (acc[i + 3] + s3) | 0;
      acc[i + 4] = (acc[i + 4] + s4) | 0; acc[i + 5] = (acc[i + 5] + s5) | 0;
      acc[i + 6] = (acc[i + 6] + s6) | 0; acc[i + 7] = (acc[i + 7] + s7) | 0;
    }
  }

  /** acc += a·b for one D×D×D k-block, any D. A k-block's D products of int4s fit an int32 exactly. */
  private macBlock(): void {
    const a = this.a, b = this.b, acc = this.acc, n = this.n;
    for (let i = 0; i < n * n; i += n) {
      for (let m = 0; m < n; m++) {
        const av = a[i + m];
        if (av === 0) continue;
        const o = m * n;
        for (let j = 0; j < n; j++) acc[i + j] = (acc[i + j] + av * b[o + j]) | 0;
      }
    }
  }

  /** Writeback clocks w0..w1−1: C rows w0..w1−1 (the deferred stream reads first). */
  private writeRows(w0: number, w1: number): void {
    const d = this.d;
    if (this.streamRead < d.k) this.readStream(d.k);
    const base = d.cAddr + w0 * d.cStride;
    if (!d.outInt32 && this.packedRows && (base & 3) === 0 && (d.cStride & 3) === 0) {
      // Requantized by the kernel: D/8 words a row, every row word-aligned.
      const packed = this.kernel!.packed, spad32 = this.spad32!, words = this.n >> 3, step = d.cStride >> 2;
      if (words === 1) {
        // The as-built 8×8 array: a row is one word.
        for (let w = w0, at = base >> 2; w < w1; w++, at += step) spad32[at] = packed[w];
        return;
      }
      for (let w = w0, at = base >> 2; w < w1; w++, at += step) {
        for (let q = 0; q < words; q++) spad32[at + q] = packed[w * words + q];
      }
      return;
    }
    for (let w = w0; w < w1; w++) this.writeRow(w);
  }

  /** Writeback clock w: C row w (the deferred stream reads first). */
  private writeRow(w: number): void {
    const d = this.d;
    if (this.streamRead < d.k) this.readStream(d.k);
    const n = this.n;
    const spad = this.mem.spad;
    const acc = this.acc;
    const base = d.cAddr + w * d.cStride;
    const spad32 = this.spad32;
    if (d.outInt32 && spad32 && (base & 3) === 0) {
      for (let j = 0, at = base >> 2; j < n; j++) spad32[at + j] = acc[w * n + j];
    } else if (d.outInt32) {
      for (let j = 0; j < n; j++) {
        const v = acc[w * n + j];
        const at = base + 4 * j;
        spad[at] = v;
        spad[at + 1] = v >> 8;
        spad[at + 2] = v >> 16;
        spad[at + 3] = v >> 24;
      }
    } else if (this.packedRows && (base & 3) === 0) {
      // Requantized by the kernel: D/8 words a row (C rows are D/2-byte aligned).
      const packed = this.kernel!.packed, words = n >> 3;
      for (let q = 0, at = base >> 2; q < words; q++) spad32![at + q] = packed[w * words + q];
    } else {
      const s = d.shift;
      for (let q = 0; q < n >> 1; q++) {
        const lo = sat4(rshift(acc[w * n + 2 * q], s));
        const hi = sat4(rshift(acc[w * n + 2 * q + 1], s));
        spad[base + q] = (lo & 15) | ((hi & 15) << 4);
      }
    }
  }
}
