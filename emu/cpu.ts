// PicoRV32 (RV32I, plus the optional PCPI multiplier/divider and RV32C) as a
// predecoding interpreter. Each instruction slot of the BRAM (a word, or a
// halfword with COMPRESSED_ISA) is decoded once into flat typed arrays (op, rd,
// rs1, rs2, imm, clocks, length); a store into BRAM drops the decoded form of
// what it overwrote, so self-modifying code sees the new instruction. A
// compressed instruction is expanded to its 32-bit equivalent (isa.ts) and runs
// the same case. The loop allocates nothing and keeps its state in locals; the
// semantics of each instruction is one case. The default board (word slots, the
// native interface) has a loop of its own without RV32C's and AXI-Lite's
// per-instruction work (runWords); the plain instructions of both loops run in
// WebAssembly (cpu-kernel.ts), and poll loops on a TPU register are skipped
// whole iterations at a time (pollRepeats).

import type { CpuBusOptions, CpuFeatures } from './config.ts';
import { Bus } from './bus.ts';
import { cpuKernel, pollHistory, POLL_HISTORY, type CpuKernel, type KernelImports, type KernelRun, type PollHistory } from './cpu-kernel.ts';
import { encode, expandCompressed, INSNS, immOf, matchInsn, rdOf, rs1Of, rs2Of } from './isa.ts';
import * as timing from './timing.ts';
import { doubleFields } from '../periph/double-fields.ts';

// Module-local copies of the constants the run loops read: tsx runs this code as CommonJS,
// where every imported binding is a getter call on each use.
const {
  AXI_CHAINED_EXTRA, AXI_REFETCH_PER_WORD, AXI_SLAVE_ACT_OFFSET, AXI_TRANSACTION_EXTRA, classClocks, DATA_ACCESS_OFFSET, FIRST_LAUNCH_CLOCK, RDCYCLE_OFFSET, RDINSTRET_OFFSET, shiftSteps, storeAccessOffset, STRADDLE_EXTRA,
  TAKEN_BRANCH_EXTRA, trapClocks,
} = timing;

/** Internal op numbers; the same names as INSNS, upper-cased. */
/** Slots decodeAhead() decodes after the one the loop needs. */
const DECODE_AHEAD = 32;

enum Op {
  UNDECODED = 0, ILLEGAL, NOP,
  LUI, AUIPC, JAL, JALR, BEQ, BNE, BLT, BGE, BLTU, BGEU,
  LB, LH, LW, LBU, LHU, SB, SH, SW,
  ADDI, SLTI, SLTIU, XORI, ORI, ANDI, SLLI, SRLI, SRAI,
  ADD, SUB, SLL, SLT, SLTU, XOR, SRL, SRA, OR, AND,
  FENCE, ECALL, EBREAK,
  RDCYCLE, RDCYCLEH, RDTIME, RDTIMEH, RDINSTRET, RDINSTRETH,
  MUL, MULH, MULHSU, MULHU, DIV, DIVU, REM, REMU,
  /** Not an instruction: the slot of the breakpoint (Cpu.setBreakpoint), where run() stops before the instruction. */
  BREAK,
}

/** Op of each INSNS entry, checked at load so the two lists cannot drift. */
const OP_OF_INSN: readonly Op[] = INSNS.map((d) => {
  const op = Op[d.name.toUpperCase() as keyof typeof Op];
  if (op === undefined) throw new Error(`isa.ts entry ${d.name} has no Op`);
  return op;
});

/** Ops that only write rd: with rd = x0 they do nothing (but still cost their clocks). */
const PURE_WRITERS = new Set<Op>([
  Op.LUI, Op.AUIPC, Op.ADDI, Op.SLTI, Op.SLTIU, Op.XORI, Op.ORI, Op.ANDI, Op.SLLI, Op.SRLI, Op.SRAI,
  Op.ADD, Op.SUB, Op.SLT, Op.SLTU, Op.XOR, Op.OR, Op.AND, Op.FENCE,
]);

export enum StopReason {
  /** Still runnable: a clock or instruction budget ran out. */
  LIMIT = 0,
  EXIT,
  TRAP,
  BUS_ERROR,
  /**
   * Still runnable: a device access needs what another board has not yet
   * computed (boards/picotpu/ring.ts, the link's horizon). The instruction did not run:
   * pc, clock and instret are as before it, nothing changed; run again later.
   */
  BLOCKED,
  /**
   * Still runnable: the next instruction is at the breakpoint (Cpu.setBreakpoint).
   * It did not run: pc is its address, the clock its launch.
   */
  BREAK,
}

export enum TrapKind {
  NONE = 0,
  ILLEGAL_INSTRUCTION,
  EBREAK,
  ECALL,
  MISALIGNED_FETCH,
  MISALIGNED_LOAD,
  MISALIGNED_STORE,
  FETCH_OUTSIDE_BRAM,
  LOAD_BUS_ERROR,
  STORE_BUS_ERROR,
}

export const TRAP_TEXT: Record<TrapKind, string> = {
  [TrapKind.NONE]: 'none',
  [TrapKind.ILLEGAL_INSTRUCTION]: 'illegal instruction',
  [TrapKind.EBREAK]: 'ebreak',
  [TrapKind.ECALL]: 'ecall',
  [TrapKind.MISALIGNED_FETCH]: 'misaligned instruction fetch',
  [TrapKind.MISALIGNED_LOAD]: 'misaligned load',
  [TrapKind.MISALIGNED_STORE]: 'misaligned store',
  [TrapKind.FETCH_OUTSIDE_BRAM]: 'bus error: instruction fetch outside BRAM',
  [TrapKind.LOAD_BUS_ERROR]: 'bus error: load from unmapped address',
  [TrapKind.STORE_BUS_ERROR]: 'bus error: store to unmapped address',
};

const TWO32 = 4294967296;

/** High word of the unsigned 64-bit product, exact in doubles via 16-bit halves. */
function mulhu(a: number, b: number): number {
  const al = a & 0xffff, ah = a >>> 16, bl = b & 0xffff, bh = b >>> 16;
  const lh = al * bh, hl = ah * bl;
  const mid = ((al * bl) >>> 16) + (lh & 0xffff) + (hl & 0xffff);
  return (ah * bh + (lh >>> 16) + (hl >>> 16) + (mid >>> 16)) | 0;
}
function mulh(a: number, b: number): number {
  return (mulhu(a, b) - (a < 0 ? b : 0) - (b < 0 ? a : 0)) | 0;
}
function mulhsu(a: number, b: number): number {
  return (mulhu(a, b) - (a < 0 ? b : 0)) | 0;
}

/** Whether the conditional branch `op` is taken on rs1 = a, rs2 = b (small: V8 inlines it into Cpu.run). */
function branchTaken(op: Op, a: number, b: number): boolean {
  switch (op) {
    case Op.BEQ: return a === b;
    case Op.BNE: return a !== b;
    case Op.BLT: return a < b;
    case Op.BGE: return a >= b;
    case Op.BLTU: return a >>> 0 < b >>> 0;
    default: return a >>> 0 >= b >>> 0; // BGEU
  }
}

/** Whether two register files hold the same values (x1..x31). */
/**
 * A slot's `fields` word: the op (6 bits; 0 is Op.UNDECODED), the register
 * numbers (5 bits each), the clocks (8 bits, as their Uint8Array holds them)
 * and whether the instruction is a compressed one (bit 29: 2 bytes, else 4).
 */
function slotFields(op: Op, rd: number, rs1: number, rs2: number, clocks: number, compressed: boolean): number {
  return op | (rd << 6) | (rs1 << 11) | (rs2 << 16) | ((clocks & 255) << 21) | (compressed ? 1 << 29 : 0);
}
if (Op.BREAK > 63) throw new Error('cpu.ts: the ops no longer fit the 6 bits of a fields word');

/** Whether the register file `a` holds the values saved at b[at + 1..at + 31] (x1..x31). */
function sameRegisters(a: Int32Array, b: Int32Array, at: number): boolean {
  for (let i = 1; i < 32; i++) if (a[i] !== b[at + i]) return false;
  return true;
}

/**
 * pollRepeats' copy of the registers: Int32Array's set(), called as a known function (V8 looked
 * `set` up through the array's prototypes at every call: a generic load).
 */
const copyRegisters = Int32Array.prototype.set;
/**
 * runSeed: a read whose promise ends at most this many clocks after it is not offered to
 * pollRepeats (nor is the copy of the registers made): it counts as an effect, as a read without
 * a promise does. It forgoes little: the read, or a later one it would bound, could skip at most
 * 63 / L iterations of a poll loop of L clocks (two of the seed firmware's wait_until, whose
 * iterations are two status reads over the AXI bus, a subtraction and a taken branch), and a
 * loop is skipped once its promises reach further. The seed's TPU promises such short stretches often: its status words
 * hold only up to the polled unit's next event.
 */
const SEED_POLL_WINDOW = 64;
/**
 * runWords and runSeed run in slices of at most this many clocks (runInSlices). A loop that
 * runs long in one call is compiled on the stack (on-stack replacement), where V8 holds the
 * loop's clock, instret and clocks as tagged values, boxed and unboxed at every instruction;
 * called once a slice, the loop is compiled as a function, with them as machine numbers. A
 * slice is short enough that the function is called often from a run's first milliseconds on,
 * and long enough that its calls cost nothing (a seed full inference is some 600 slices, the
 * demo some 250). A cold `picotpu demo` spends about 11 ms less main-thread CPU so.
 */
const SLICE_CLOCKS = 65536;

export class Cpu {
  /** Clock-valued fields are doubles from the start (double-fields.ts). */
  private readonly doubles = doubleFields(this, ['cycle', 'stopClock', 'lastEffect', 'pollClocks', 'pollInstrs', 'pollCycleLimit', 'pollStopAt']);
  /** x0-x31: in the kernel's memory when there is one. */
  readonly regs: Int32Array;
  pc = 0;
  /** Clock of the next instruction's fetch handshake (clocks since reset release). */
  cycle = FIRST_LAUNCH_CLOCK;
  instret = 0;

  stopReason = StopReason.LIMIT;
  trapKind = TrapKind.NONE;
  /** Clock at which the machine stopped (EXIT handshake, or trap). */
  stopClock = 0;
  /**
   * Address of the data access that faulted; for a misaligned fetch after a
   * jump or taken branch, the pc of that jump (pc is its target); for a fetch
   * outside the BRAM or a misaligned sequential fetch, the pc itself.
   */
  faultAddr = 0;

  /** A word stored into while it was already fetched: invalidated after it has run once (-1: none). */
  private staleWord = -1;

  /**
   * The last POLL_HISTORY device reads that promised to repeat (Bus.repeatUntil), for
   * pollRepeats (PollHistory); in the kernel's memory when there is one, whose runSeed
   * records them and skips poll loops itself (recordRead).
   */
  private readonly poll: PollHistory;
  /**
   * The instret of the last instruction a poll loop must not contain: a store,
   * a device access other than a read with a promise, a read of the clock. A
   * field, not a local of the loop: the hot loop keeps one register free.
   */
  private lastEffect = -1;
  /**
   * The running loop's clock limit and the instret it stops at, for pollRepeats: fields, not
   * arguments (an argument that is no small integer, as an endless budget's Infinity, is a heap
   * number made at every call).
   */
  private pollCycleLimit = 0;
  private pollStopAt = 0;
  /** Clocks and instructions of one iteration of the poll loop pollRepeats last skipped. */
  private pollClocks = 0;
  private pollInstrs = 0;

  /** Bytes of the firmware RAM at 0 (the board's: 64 KiB BRAM on picotpu, 16 KB on the seed). */
  readonly ramSize: number;
  /** log2 of the bytes per instruction slot: 2 (words), 1 with COMPRESSED_ISA (halfwords). */
  private readonly slotShift: number;
  // Predecoded BRAM, one slot per word (per halfword with COMPRESSED_ISA).
  private readonly ops: Uint8Array;
  private readonly imms: Int32Array;
  private readonly clocks: Uint8Array;
  /**
   * Bits 2:0: the instruction's length in bytes (4, or 2 when compressed).
   * Bit 3: the next sequential instruction straddles a word boundary
   * (timing.ts STRADDLE_EXTRA): its clock is in `clocks`, and it delays this
   * instruction's data handshake too. Bit 4: the next sequential instruction
   * is at a word address and the word's upper half has low bits 11 (timing.ts
   * AXI_REFETCH_PER_WORD).
   */
  private readonly lens: Uint8Array;
  /** Clocks from launch to a device data access (only read on the device path). */
  private readonly dataAt: Uint8Array;
  /**
   * op, rd, rs1, rs2, clocks and length of a slot in one word (both loops read
   * it and `imms` where they read seven arrays): bits 5:0 op, 10:6 rd, 15:11
   * rs1, 20:16 rs2, 28:21 clocks, 29 compressed (slotFields). 0 where `ops` is
   * Op.UNDECODED: every place that marks a slot undecoded clears both (forget).
   */
  private readonly fields: Int32Array;
  /** axi-lite: the clocks every jump's target fetch adds (0 on the native interface). */
  private readonly axi: boolean;
  /** Word slots on the native interface (no COMPRESSED_ISA, not axi-lite): run() is runWords, chosen once here. */
  private readonly wordSlots: boolean;
  /** Halfword slots (COMPRESSED_ISA) on axi-lite, the seed board's configuration: run() is runSeed, chosen once here. */
  private readonly seedSlots: boolean;
  /**
   * The fast path of runWords or runSeed (cpu-kernel.ts): the plain instructions in
   * WebAssembly, on the BRAM, slots and registers it shares. Null on the general loop's
   * configurations, without WebAssembly, or when CpuBusOptions.kernel is false.
   */
  private readonly kernel: CpuKernel | null;
  private readonly kernelRun: KernelRun | null;
  private readonly kernelState: Float64Array;

  private readonly mem8: Uint8Array;
  private readonly memS8: Int8Array;
  private readonly mem16: Uint16Array;
  private readonly memS16: Int16Array;
  private readonly mem32: Int32Array;
  private readonly classClocks: ReturnType<typeof classClocks>;
  /** Clocks from a store's launch to its data handshake. */
  private readonly storeOffset: number;
  /** Clocks from a trapping instruction's launch to the trap, per kind (timing.ts). */
  private readonly trapAt: Record<'illegal' | 'ebreak' | 'load' | 'store' | 'jal' | 'branch' | 'jalr', number>;

  constructor(private readonly bus: Bus, private readonly features: CpuFeatures,
    busOptions: CpuBusOptions = { memInterface: 'native' }) {
    this.axi = busOptions.memInterface === 'axi-lite';
    if (this.axi) this.cycle = FIRST_LAUNCH_CLOCK + AXI_TRANSACTION_EXTRA;
    this.slotShift = features.COMPRESSED_ISA ? 1 : 2;
    this.wordSlots = this.slotShift === 2 && !this.axi;
    this.seedSlots = this.slotShift === 1 && this.axi;
    this.ramSize = bus.bram.length;
    const slots = this.ramSize >>> this.slotShift;
    this.storeOffset = storeAccessOffset(features);
    this.kernel = (this.wordSlots || this.seedSlots) && busOptions.kernel !== false
      ? cpuKernel(bus.bram, slots, this.storeOffset, SEED_POLL_WINDOW, this.kernelCalls()) : null;
    this.kernelRun = this.kernel === null ? null : this.wordSlots ? this.kernel.runWords : this.kernel.runSeed;
    this.kernelState = this.kernel?.state ?? new Float64Array(8);
    this.poll = this.kernel?.pollHistory ?? pollHistory();
    this.regs = this.kernel?.regs ?? new Int32Array(32);
    if (busOptions.stackAddr !== undefined) this.regs[2] = busOptions.stackAddr | 0;
    this.ops = new Uint8Array(slots);
    this.imms = this.kernel?.imms ?? new Int32Array(slots);
    this.clocks = new Uint8Array(slots);
    this.lens = this.kernel?.lens ?? new Uint8Array(slots);
    this.dataAt = this.kernel?.dataAt ?? new Uint8Array(slots);
    this.fields = this.kernel?.fields ?? new Int32Array(slots);
    // Views of the BRAM alone (its buffer is the kernel's whole memory): an index past its end reads undefined.
    const buf = bus.bram.buffer, ram = this.ramSize;
    this.mem8 = bus.bram;
    this.memS8 = new Int8Array(buf, 0, ram);
    this.mem16 = new Uint16Array(buf, 0, ram >>> 1);
    this.memS16 = new Int16Array(buf, 0, ram >>> 1);
    this.mem32 = new Int32Array(buf, 0, ram >>> 2);
    this.classClocks = classClocks(features);
    this.trapAt = {
      illegal: trapClocks('illegal', features), ebreak: trapClocks('ebreak', features),
      load: trapClocks('misaligned-load', features), store: trapClocks('misaligned-store', features),
      jal: trapClocks('misaligned-jal', features), branch: trapClocks('misaligned-branch', features),
      jalr: trapClocks('misaligned-jalr', features),
    };
    if (this.wordSlots && !wordLoopWarm) warmUpWordLoop(features);
  }

  /**
   * The kernel's callbacks: its device accesses as the loops make them (the address a uint32 in
   * runWords, an int32 in runSeed). (runSeed skips poll loops itself, as pollRepeats does.)
   */
  private kernelCalls(): KernelImports {
    const bus = this.bus;
    const store = this.wordSlots
      ? (addr: number, wdata: number, wstrb: number, clock: number): number => {
        bus.write(addr >>> 0, wdata, wstrb, clock);
        return bus.fault || bus.attention ? -1 : bus.wait;
      }
      : (addr: number, wdata: number, wstrb: number, clock: number): number => {
        bus.write(addr, wdata, wstrb, clock);
        return bus.fault || bus.attention ? -1 : bus.wait;
      };
    const load = (addr: number, clock: number): number => {
      const word = bus.read(addr, clock);
      if (bus.fault) return -1;
      const io = this.kernel!.io;
      io[0] = word;
      io[1] = bus.attention ? 1 : 0;
      io[2] = bus.wait;
      this.kernel!.ioPromise[0] = bus.repeatUntil;
      return bus.wait + bus.readExtra;
    };
    return { store, load };
  }

  /** Forget every predecoded word (after the host writes BRAM behind our back). */
  invalidateAll(): void {
    this.ops.fill(Op.UNDECODED);
    this.fields.fill(0);
    this.staleWord = -1;
  }

  /** Whether the CPU executes RV32C (pcs may be halfword-aligned). */
  get compressed(): boolean {
    return this.slotShift === 1;
  }

  /** The 32 instruction bits at a BRAM address (a halfword address with COMPRESSED_ISA; its low half first). */
  wordAt(addr: number): number {
    const a = addr & (this.ramSize - 1);
    if ((a & 2) === 0) return this.mem32[a >>> 2];
    return (this.mem16[a >>> 1] | ((a + 2 < this.ramSize ? this.mem16[(a + 2) >>> 1] : 0) << 16)) | 0;
  }

  /** Bytes of the instruction at a BRAM address: 2 for a compressed one (with COMPRESSED_ISA), else 4. */
  lengthAt(addr: number): number {
    return this.slotShift === 1 && (this.mem16[(addr & (this.ramSize - 1)) >>> 1] & 3) !== 3 ? 2 : 4;
  }

  /** Drops the decoded slots a BRAM store into word `w` may have changed. */
  private invalidateWord(w: number): void {
    if (this.slotShift === 2) { this.forget(w); return; }
    // The word's two halfwords, and the two before: an instruction starting
    // there may extend into this word, or have its straddle bit depend on it.
    const h = w << 1;
    for (let k = Math.max(0, h - 2); k <= h + 1; k++) this.forget(k);
  }

  /** The slot of the breakpoint (-1: none), decoded as Op.BREAK while set. */
  private breakSlot = -1;

  /**
   * Sets the breakpoint at `addr` (-1: clears it): run() stops with
   * StopReason.BREAK before the instruction there, at its launch clock, every
   * time it gets there; clear it to run on. A tool's stop-at-address that
   * costs the free-running loop nothing (the slot decodes to a stop).
   */
  setBreakpoint(addr: number): void {
    if (this.breakSlot >= 0) this.forget(this.breakSlot);
    this.breakSlot = addr >= 0 && addr < this.ramSize ? addr >>> this.slotShift : -1;
    if (this.breakSlot >= 0) this.forget(this.breakSlot);
  }

  /** Marks slot k undecoded, in `ops` and in `fields`. */
  private forget(k: number): void {
    this.ops[k] = Op.UNDECODED;
    this.fields[k] = 0;
  }

  /**
   * Decodes slot k, where the loop is about to run an undecoded instruction, and the slots after it
   * in sequence while they are undecoded (up to DECODE_AHEAD): the kernel leaves every undecoded
   * slot to the loop, so straight-line code run for the first time would otherwise go back and
   * forth between the two at every instruction. Decoding is a function of the BRAM alone, and a
   * store drops the slots it may change (invalidateWord): a slot decoded ahead of its time, or over
   * data, is what decoding it later would give, or is dropped first.
   */
  private decodeAhead(k: number): void {
    this.decode(k);
    const fields = this.fields, lens = this.lens, words = this.slotShift === 2, slots = fields.length;
    for (let i = 0, j = k; i < DECODE_AHEAD; i++) {
      j += words ? 1 : (lens[j] & 6) >>> 1;
      if (j >= slots || fields[j] !== 0) return;
      this.decode(j);
    }
  }

  private decode(k: number): Op {
    let w: number;
    let len = 4;
    if (this.slotShift === 2) w = this.mem32[k];
    else {
      const m16 = this.mem16;
      const h = m16[k];
      if ((h & 3) !== 3) { w = expandCompressed(h); len = 2; } else w = h | ((m16[k + 1] ?? 0) << 16);
    }
    const idx = w === -1 ? -1 : matchInsn(w);
    let op = Op.ILLEGAL;
    let clocks = 0;
    if (idx >= 0) {
      const def = INSNS[idx];
      const f = this.features;
      const enabled = def.ext === 'base' || (def.ext === 'mul' ? f.ENABLE_MUL || f.ENABLE_FAST_MUL : f.ENABLE_DIV);
      if (enabled) {
        op = OP_OF_INSN[idx];
        this.imms[k] = immOf(def.format, w);
        clocks = this.classClocks[def.timing];
        if (def.format === 'SHIFTI') clocks += shiftSteps(this.imms[k], f);
      }
    }
    const rd = rdOf(w);
    if (rd === 0 && PURE_WRITERS.has(op)) op = Op.NOP;
    // With RV32C, a 32-bit instruction at a halfword address straddles two
    // words: whatever runs before it in sequence waits one clock more for it.
    const jump = op === Op.JAL || op === Op.JALR;
    let straddle = 0;
    // Bus transactions for the next sequential instruction: none when it is a
    // compressed one in the upper half of the word already fetched.
    let seqFetches = jump ? 0 : 1;
    // The next sequential instruction is at a word address and its word's upper
    // half has low bits 11 (timing.ts AXI_REFETCH_PER_WORD).
    let seqBuffers = 0;
    if (this.slotShift === 1) {
      const nk = k + (len >>> 1);
      const next32 = ((this.mem16[nk] ?? 0) & 3) === 3;
      if ((nk & 1) && next32 && !jump) straddle = 1;
      if ((nk & 1) && !next32) seqFetches = 0;
      if (!(nk & 1) && ((this.mem16[nk + 1] ?? 0) & 3) === 3) seqBuffers = 1;
    }
    const isData = op >= Op.LB && op <= Op.SW;
    const storeOp = op >= Op.SB && op <= Op.SW;
    let dataAt = (storeOp ? this.storeOffset : DATA_ACCESS_OFFSET) + straddle;
    if (this.axi) {
      if (!isData && seqFetches === 1 && straddle === 0) {
        // The prefetch overlaps execution: the slower of the two sets the pace.
        clocks = Math.max(clocks, this.classClocks.alu + AXI_TRANSACTION_EXTRA);
      } else {
        clocks += AXI_TRANSACTION_EXTRA * (seqFetches + (isData ? 1 : 0));
      }
      dataAt += AXI_TRANSACTION_EXTRA * seqFetches + AXI_SLAVE_ACT_OFFSET;
    }
    this.clocks[k] = clocks + straddle * STRADDLE_EXTRA;
    this.dataAt[k] = dataAt;
    this.lens[k] = len | (straddle << 3) | (seqBuffers << 4);
    if (k === this.breakSlot) op = Op.BREAK;
    this.fields[k] = slotFields(op, rd, rs1Of(w), rs2Of(w), this.clocks[k], len === 2);
    this.ops[k] = op;
    return op;
  }

  /**
   * Runs until the machine stops, the clock reaches `cycleLimit`, or
   * `instrLimit` instructions have retired. Returns the stop reason
   * (LIMIT when only a budget ran out and the CPU can go on). This is the
   * general loop (halfword slots with RV32C, the axi-lite fetch clocks); the
   * default board runs runWords.
   */
  run(cycleLimit: number, instrLimit = Number.POSITIVE_INFINITY): StopReason {
    if (this.wordSlots || this.seedSlots) return this.runInSlices(cycleLimit, instrLimit);
    const r = this.regs, fields = this.fields;
    const imms = this.imms, lens = this.lens, dataAt = this.dataAt;
    // axi-lite: a jump's or taken branch's target fetch is one more transaction.
    const jumpFetch = this.axi ? AXI_TRANSACTION_EXTRA : 0;
    const axi = this.axi;
    const m8 = this.mem8, ms8 = this.memS8, m16 = this.mem16, ms16 = this.memS16, m32 = this.mem32;
    const bus = this.bus;
    const barrel = this.features.BARREL_SHIFTER;
    // A fetch is legal only from an aligned address inside the BRAM (a halfword with RV32C).
    const rvc = this.slotShift === 1;
    const slotShift = this.slotShift;
    const ramSize = this.ramSize;
    const badPc = ~(ramSize - 1) | (rvc ? 1 : 3);
    const stopAtInstret = this.instret + instrLimit;
    this.pollCycleLimit = cycleLimit; this.pollStopAt = stopAtInstret;
    let pc = this.pc, cycle = this.cycle, instret = this.instret;
    let stale = this.staleWord;
    let reason = StopReason.LIMIT;
    this.poll.index[1] = 0;

    outer: for (;;) {
      if (cycle >= cycleLimit || instret >= stopAtInstret) break;
      if (pc & badPc) {
        // Sequential flow off the end of the BRAM (jumps check their own targets):
        // the fetch handshake, one clock before the launch, is the bus error.
        reason = this.trap(pc & 3 ? TrapKind.MISALIGNED_FETCH : TrapKind.FETCH_OUTSIDE_BRAM, cycle - 1, pc);
        break;
      }
      const k = rvc ? pc >>> 1 : pc >>> 2;
      let f = fields[k];
      if (f === 0) { this.decode(k); f = fields[k]; }
      const op: Op = f & 63, imm = imms[k];
      const rd = (f >>> 6) & 31;
      const a = r[(f >>> 11) & 31];
      let clocks = (f >>> 21) & 255;
      // Bit 29: a compressed instruction (2 bytes).
      let next = pc + 4 - ((f >>> 28) & 2);

      switch (op) {
        case Op.NOP: break;
        case Op.LUI: r[rd] = imm; break;
        case Op.AUIPC: r[rd] = pc + imm; break;
        case Op.JAL:
          r[rd] = next; r[0] = 0; next = (pc + imm) >>> 0;
          clocks += jumpFetch;
          if (next & 2) {
            if (rvc) { clocks += this.targetStraddle(next); break; }
            instret++; reason = this.trap(TrapKind.MISALIGNED_FETCH, cycle + this.trapAt.jal, pc); pc = next; break outer;
          }
          break;
        // JALR clears bit 0 of the target, as the spec (and PicoRV32) do.
        case Op.JALR:
          r[rd] = next; r[0] = 0; next = ((a + imm) & ~1) >>> 0;
          clocks += jumpFetch;
          if (next & 2) {
            if (rvc) { clocks += this.targetStraddle(next); break; }
            instret++; reason = this.trap(TrapKind.MISALIGNED_FETCH, cycle + this.trapAt.jalr, pc); pc = next; break outer;
          }
          break;
        case Op.BEQ: case Op.BNE: case Op.BLT: case Op.BGE: case Op.BLTU: case Op.BGEU:
          if (!branchTaken(op, a, r[(f >>> 16) & 31])) break;
          next = (pc + imm) >>> 0;
          clocks += TAKEN_BRANCH_EXTRA + jumpFetch;
          if (next & 2) {
            if (rvc) { clocks += this.branchTargetExtra(next, lens[k]); break; }
            instret++; reason = this.trap(TrapKind.MISALIGNED_FETCH, cycle + this.trapAt.branch, pc); pc = next; break outer;
          }
          break;

        case Op.LB: case Op.LBU: case Op.LH: case Op.LHU: case Op.LW: {
          const addr = (a + imm) >>> 0;
          const size = op === Op.LW ? 4 : op === Op.LH || op === Op.LHU ? 2 : 1;
          if (addr & (size - 1)) {
            // PicoRV32 still performs the aligned word's read (side effects on a device) before trapping;
            // through picorv32_axi the trap comes before that read's data (AR only, no R: s_trap_misaligned_load.S).
            if (addr >= ramSize && !axi) {
              bus.read(addr & ~3, cycle + DATA_ACCESS_OFFSET);
              if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.LOAD_BUS_ERROR, cycle + DATA_ACCESS_OFFSET, addr); break outer; }
            }
            reason = this.trap(TrapKind.MISALIGNED_LOAD, cycle + this.trapAt.load + this.misalignPrefetch(k), addr);
            break outer;
          }
          let v: number;
          if (addr < ramSize) {
            v = op === Op.LW ? m32[addr >>> 2] : op === Op.LBU ? m8[addr] : op === Op.LB ? ms8[addr]
              : op === Op.LHU ? m16[addr >>> 1] : ms16[addr >>> 1];
          } else {
            const at = dataAt[k];
            const word = bus.read(addr, cycle + at);
            if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.LOAD_BUS_ERROR, cycle + at, addr); break outer; }
            clocks += bus.wait;
            clocks += bus.readExtra;
            const sh = (addr & 3) << 3;
            v = op === Op.LW ? word : op === Op.LBU ? (word >>> sh) & 0xff : op === Op.LB ? (word << (24 - sh)) >> 24
              : op === Op.LHU ? (word >>> sh) & 0xffff : (word << (16 - sh)) >> 16;
            r[rd] = v; r[0] = 0;
            if (bus.attention) return this.lookUp(next, cycle, clocks, instret, at, k, stale);
            if (bus.repeatUntil > cycle + at) {
              // The read repeats unchanged for a while: maybe a poll loop to skip.
              const n = this.pollRepeats(pc, addr, v, bus.wait, bus.repeatUntil, cycle + at, cycle + clocks, instret + 1);
              if (n !== 0) { cycle += n * this.pollClocks; instret += n * this.pollInstrs; }
            } else {
              this.lastEffect = instret;
            }
            break;
          }
          r[rd] = v; r[0] = 0;
          break;
        }

        case Op.SB: case Op.SH: case Op.SW: {
          const addr = (a + imm) >>> 0;
          const size = op === Op.SW ? 4 : op === Op.SH ? 2 : 1;
          const v = r[(f >>> 16) & 31];
          if (addr & (size - 1)) { reason = this.misalignedStore(addr, size, v, cycle, k); break outer; }
          if (addr < ramSize) {
            const w = addr >>> 2;
            // PicoRV32 has already fetched the next instruction while a store
            // executes: a store into that word is seen only from its next fetch on.
            this.lastEffect = instret;
            if (rvc) {
              // RV32C: the new bits are seen from the next fetch on (PicoRV32's
              // prefetch buffer with compressed code is not modelled; hardware.md).
              if (op === Op.SW) m32[w] = v; else if (op === Op.SB) m8[addr] = v; else m16[addr >>> 1] = v;
              this.invalidateWord(w);
              break;
            }
            const prefetched = w === k + 1;
            if (prefetched && fields[w] === 0) this.decode(w);
            if (op === Op.SW) m32[w] = v; else if (op === Op.SB) m8[addr] = v; else m16[addr >>> 1] = v;
            if (prefetched) stale = w; else this.forget(w); // the word may be code
          } else {
            // PicoRV32 replicates a byte or half across the word and selects lanes with wstrb.
            const sh = addr & 3;
            const wdata = size === 4 ? v : size === 2 ? (v & 0xffff) * 0x10001 : (v & 0xff) * 0x1010101;
            const wstrb = size === 4 ? 15 : size === 2 ? 3 << sh : 1 << sh;
            const at = dataAt[k];
            this.lastEffect = instret;
            bus.write(addr, wdata | 0, wstrb, cycle + at);
            if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.STORE_BUS_ERROR, cycle + at, addr); break outer; }
            clocks += bus.wait;
            if (bus.attention) return this.lookUp(next, cycle, clocks, instret, at, k, stale);
          }
          break;
        }

        case Op.ADDI: r[rd] = a + imm; break;
        case Op.SLTI: r[rd] = a < imm ? 1 : 0; break;
        case Op.SLTIU: r[rd] = a >>> 0 < imm >>> 0 ? 1 : 0; break;
        case Op.XORI: r[rd] = a ^ imm; break;
        case Op.ORI: r[rd] = a | imm; break;
        case Op.ANDI: r[rd] = a & imm; break;
        case Op.SLLI: r[rd] = a << imm; break;
        case Op.SRLI: r[rd] = a >>> imm; break;
        case Op.SRAI: r[rd] = a >> imm; break;

        case Op.ADD: r[rd] = a + r[(f >>> 16) & 31]; break;
        case Op.SUB: r[rd] = a - r[(f >>> 16) & 31]; break;
        case Op.SLT: r[rd] = a < r[(f >>> 16) & 31] ? 1 : 0; break;
        case Op.SLTU: r[rd] = a >>> 0 < r[(f >>> 16) & 31] >>> 0 ? 1 : 0; break;
        case Op.XOR: r[rd] = a ^ r[(f >>> 16) & 31]; break;
        case Op.OR: r[rd] = a | r[(f >>> 16) & 31]; break;
        case Op.AND: r[rd] = a & r[(f >>> 16) & 31]; break;
        case Op.SLL: case Op.SRL: case Op.SRA: {
          const n = r[(f >>> 16) & 31] & 31;
          if (!barrel) clocks += (n >>> 2) + (n & 3);
          r[rd] = op === Op.SLL ? a << n : op === Op.SRL ? a >>> n : a >> n;
          r[0] = 0;
          break;
        }

        case Op.FENCE: break;
        case Op.ECALL: reason = this.trap(TrapKind.ECALL, cycle + this.trapAt.ebreak); break outer;
        case Op.EBREAK: reason = this.trap(TrapKind.EBREAK, cycle + this.trapAt.ebreak); break outer;

        case Op.RDCYCLE: case Op.RDTIME: r[rd] = cycle + RDCYCLE_OFFSET; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDCYCLEH: case Op.RDTIMEH: r[rd] = (cycle + RDCYCLE_OFFSET) / TWO32; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDINSTRET: r[rd] = instret + RDINSTRET_OFFSET; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDINSTRETH: r[rd] = (instret + RDINSTRET_OFFSET) / TWO32; r[0] = 0; this.lastEffect = instret; break;

        case Op.MUL: r[rd] = Math.imul(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULH: r[rd] = mulh(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULHSU: r[rd] = mulhsu(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULHU: r[rd] = mulhu(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.DIV: { const b = r[(f >>> 16) & 31]; r[rd] = b === 0 ? -1 : (a / b) | 0; r[0] = 0; break; }
        case Op.DIVU: { const b = r[(f >>> 16) & 31] >>> 0; r[rd] = b === 0 ? -1 : (a >>> 0) / b; r[0] = 0; break; }
        case Op.REM: { const b = r[(f >>> 16) & 31]; r[rd] = b === 0 ? a : a % b; r[0] = 0; break; }
        case Op.REMU: { const b = r[(f >>> 16) & 31] >>> 0; r[rd] = b === 0 ? a : (a >>> 0) % b; r[0] = 0; break; }

        case Op.BREAK: reason = StopReason.BREAK; break outer;
        default: reason = this.trap(TrapKind.ILLEGAL_INSTRUCTION, cycle + this.trapAt.illegal); break outer;
      }
      if (k === stale) { this.forget(k); stale = -1; } // the prefetched old word has run
      pc = next;
      cycle += clocks;
      instret++;
    }

    // On a trap the instruction does not retire and pc names it.
    this.pc = pc; this.cycle = cycle; this.instret = instret; this.staleWord = stale;
    this.stopReason = reason;
    return reason;
  }

  /**
   * run() for word slots on the native memory interface (the default board):
   * the same cases without RV32C's slot index, fall-through length and
   * compressed targets or AXI-Lite's fetch clocks, which cost the CPU-only
   * speed a test per instruction (docs/performance.md, The CPU, "A loop per
   * board"). A change to an instruction's case goes into both loops; the timing tests
   * of both boards hold them (cpu-timing and diff-qemu this one, rvc and
   * cpu-seed-axi the other). runInSlices calls it, a slice at a time.
   * With the kernel (cpu-kernel.ts) this loop runs only what the kernel leaves
   * to it: an instruction's first run, device reads, traps, counter reads,
   * stores into code, and the end of a device store the bus answered with
   * more than a wait; a change to a case goes into cpu-kernel.wat too
   * (test/cpu-kernel.test.ts holds the two together).
   */
  private runWords(cycleLimit: number, instrLimit: number): StopReason {
    const r = this.regs, fields = this.fields, ops = this.ops;
    const imms = this.imms;
    const m8 = this.mem8, ms8 = this.memS8, m16 = this.mem16, ms16 = this.memS16, m32 = this.mem32;
    const bus = this.bus;
    // Clocks from launch to a device data access: fixed on this board (no straddles, no AXI).
    const loadAt = DATA_ACCESS_OFFSET, storeAt = this.storeOffset;
    const barrel = this.features.BARREL_SHIFTER;
    // A fetch is legal only from an aligned address inside the BRAM (a halfword with RV32C).
    const ramSize = this.ramSize;
    const badPc = ~(ramSize - 1) | 3;
    const stopAtInstret = this.instret + instrLimit;
    this.pollCycleLimit = cycleLimit; this.pollStopAt = stopAtInstret;
    let pc = this.pc, cycle = this.cycle, instret = this.instret;
    let stale = this.staleWord;
    let reason = StopReason.LIMIT;
    const kernelRun = this.kernelRun, kernelState = this.kernelState, barrelBit = barrel ? 1 : 0;

    outer: for (;;) {
      if (cycle >= cycleLimit || instret >= stopAtInstret) break;
      if (kernelRun !== null) {
        // The plain instructions up to the next one this loop runs, in WebAssembly.
        pc = kernelRun(pc, cycle, instret, cycleLimit, stopAtInstret, stale, barrelBit) >>> 0;
        cycle = kernelState[0]; instret = kernelState[1];
        if (kernelState[2] >= 0) this.lastEffect = kernelState[2];
        if (kernelState[3] !== 0) {
          // The kernel made the device store at pc and the bus reported more than a wait:
          // its end, as in the store case below.
          kernelState[3] = 0;
          const k = pc >>> 2, f = fields[k];
          if (bus.fault) {
            reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.STORE_BUS_ERROR, cycle + storeAt, (r[(f >>> 11) & 31] + imms[k]) >>> 0);
            break;
          }
          return this.lookUp(pc + 4, cycle, (f >>> 21) + bus.wait, instret, storeAt, k, stale);
        }
        if (cycle >= cycleLimit || instret >= stopAtInstret) break;
      }
      if (pc & badPc) {
        // Sequential flow off the end of the BRAM (jumps check their own targets):
        // the fetch handshake, one clock before the launch, is the bus error.
        reason = this.trap(pc & 3 ? TrapKind.MISALIGNED_FETCH : TrapKind.FETCH_OUTSIDE_BRAM, cycle - 1, pc);
        break;
      }
      const k = pc >>> 2;
      let f = fields[k];
      if (f === 0) { this.decodeAhead(k); f = fields[k]; }
      const op: Op = f & 63, imm = imms[k];
      const rd = (f >>> 6) & 31;
      const a = r[(f >>> 11) & 31];
      let clocks = f >>> 21;
      let next = pc + 4;

      switch (op) {
        case Op.NOP: break;
        case Op.LUI: r[rd] = imm; break;
        case Op.AUIPC: r[rd] = pc + imm; break;
        case Op.JAL:
          r[rd] = next; r[0] = 0; next = (pc + imm) >>> 0;
          if (next & 2) {
            instret++; reason = this.trap(TrapKind.MISALIGNED_FETCH, cycle + this.trapAt.jal, pc); pc = next; break outer;
          }
          break;
        // JALR clears bit 0 of the target, as the spec (and PicoRV32) do.
        case Op.JALR:
          r[rd] = next; r[0] = 0; next = ((a + imm) & ~1) >>> 0;
          if (next & 2) {
            instret++; reason = this.trap(TrapKind.MISALIGNED_FETCH, cycle + this.trapAt.jalr, pc); pc = next; break outer;
          }
          break;
        case Op.BEQ: case Op.BNE: case Op.BLT: case Op.BGE: case Op.BLTU: case Op.BGEU:
          if (!branchTaken(op, a, r[(f >>> 16) & 31])) break;
          next = (pc + imm) >>> 0;
          clocks += TAKEN_BRANCH_EXTRA;
          if (next & 2) {
            instret++; reason = this.trap(TrapKind.MISALIGNED_FETCH, cycle + this.trapAt.branch, pc); pc = next; break outer;
          }
          break;

        case Op.LB: case Op.LBU: case Op.LH: case Op.LHU: case Op.LW: {
          const addr = (a + imm) >>> 0;
          const size = op === Op.LW ? 4 : op === Op.LH || op === Op.LHU ? 2 : 1;
          if (addr & (size - 1)) {
            // PicoRV32 still performs the aligned word's read (side effects on a device) before trapping;
            // through picorv32_axi the trap comes before that read's data (AR only, no R: s_trap_misaligned_load.S).
            if (addr >= ramSize) {
              bus.read(addr & ~3, cycle + DATA_ACCESS_OFFSET);
              if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.LOAD_BUS_ERROR, cycle + DATA_ACCESS_OFFSET, addr); break outer; }
            }
            reason = this.trap(TrapKind.MISALIGNED_LOAD, cycle + this.trapAt.load + this.misalignPrefetch(k), addr);
            break outer;
          }
          let v: number;
          if (addr < ramSize) {
            v = op === Op.LW ? m32[addr >>> 2] : op === Op.LBU ? m8[addr] : op === Op.LB ? ms8[addr]
              : op === Op.LHU ? m16[addr >>> 1] : ms16[addr >>> 1];
          } else {
            const at = loadAt;
            const word = bus.read(addr, cycle + at);
            if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.LOAD_BUS_ERROR, cycle + at, addr); break outer; }
            clocks += bus.wait;
            const sh = (addr & 3) << 3;
            v = op === Op.LW ? word : op === Op.LBU ? (word >>> sh) & 0xff : op === Op.LB ? (word << (24 - sh)) >> 24
              : op === Op.LHU ? (word >>> sh) & 0xffff : (word << (16 - sh)) >> 16;
            r[rd] = v; r[0] = 0;
            if (bus.attention) return this.lookUp(next, cycle, clocks, instret, at, k, stale);
            if (bus.repeatUntil > cycle + at) {
              // The read repeats unchanged for a while: maybe a poll loop to skip.
              const n = this.pollRepeats(pc, addr, v, bus.wait, bus.repeatUntil, cycle + at, cycle + clocks, instret + 1);
              if (n !== 0) { cycle += n * this.pollClocks; instret += n * this.pollInstrs; }
            } else {
              this.lastEffect = instret;
            }
            break;
          }
          r[rd] = v; r[0] = 0;
          break;
        }

        case Op.SB: case Op.SH: case Op.SW: {
          const addr = (a + imm) >>> 0;
          const size = op === Op.SW ? 4 : op === Op.SH ? 2 : 1;
          const v = r[(f >>> 16) & 31];
          if (addr & (size - 1)) { reason = this.misalignedStore(addr, size, v, cycle, k); break outer; }
          if (addr < ramSize) {
            const w = addr >>> 2;
            // PicoRV32 has already fetched the next instruction while a store
            // executes: a store into that word is seen only from its next fetch on.
            this.lastEffect = instret;
            const prefetched = w === k + 1;
            if (prefetched && fields[w] === 0) this.decode(w);
            if (op === Op.SW) m32[w] = v; else if (op === Op.SB) m8[addr] = v; else m16[addr >>> 1] = v;
            if (prefetched) stale = w; else this.forget(w); // the word may be code
          } else {
            // PicoRV32 replicates a byte or half across the word and selects lanes with wstrb.
            const sh = addr & 3;
            const wdata = size === 4 ? v : size === 2 ? (v & 0xffff) * 0x10001 : (v & 0xff) * 0x1010101;
            const wstrb = size === 4 ? 15 : size === 2 ? 3 << sh : 1 << sh;
            const at = storeAt;
            this.lastEffect = instret;
            bus.write(addr, wdata | 0, wstrb, cycle + at);
            if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.STORE_BUS_ERROR, cycle + at, addr); break outer; }
            clocks += bus.wait;
            if (bus.attention) return this.lookUp(next, cycle, clocks, instret, at, k, stale);
          }
          break;
        }

        case Op.ADDI: r[rd] = a + imm; break;
        case Op.SLTI: r[rd] = a < imm ? 1 : 0; break;
        case Op.SLTIU: r[rd] = a >>> 0 < imm >>> 0 ? 1 : 0; break;
        case Op.XORI: r[rd] = a ^ imm; break;
        case Op.ORI: r[rd] = a | imm; break;
        case Op.ANDI: r[rd] = a & imm; break;
        case Op.SLLI: r[rd] = a << imm; break;
        case Op.SRLI: r[rd] = a >>> imm; break;
        case Op.SRAI: r[rd] = a >> imm; break;

        case Op.ADD: r[rd] = a + r[(f >>> 16) & 31]; break;
        case Op.SUB: r[rd] = a - r[(f >>> 16) & 31]; break;
        case Op.SLT: r[rd] = a < r[(f >>> 16) & 31] ? 1 : 0; break;
        case Op.SLTU: r[rd] = a >>> 0 < r[(f >>> 16) & 31] >>> 0 ? 1 : 0; break;
        case Op.XOR: r[rd] = a ^ r[(f >>> 16) & 31]; break;
        case Op.OR: r[rd] = a | r[(f >>> 16) & 31]; break;
        case Op.AND: r[rd] = a & r[(f >>> 16) & 31]; break;
        case Op.SLL: case Op.SRL: case Op.SRA: {
          const n = r[(f >>> 16) & 31] & 31;
          if (!barrel) clocks += (n >>> 2) + (n & 3);
          r[rd] = op === Op.SLL ? a << n : op === Op.SRL ? a >>> n : a >> n;
          r[0] = 0;
          break;
        }

        case Op.FENCE: break;
        case Op.ECALL: reason = this.trap(TrapKind.ECALL, cycle + this.trapAt.ebreak); break outer;
        case Op.EBREAK: reason = this.trap(TrapKind.EBREAK, cycle + this.trapAt.ebreak); break outer;

        case Op.RDCYCLE: case Op.RDTIME: r[rd] = cycle + RDCYCLE_OFFSET; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDCYCLEH: case Op.RDTIMEH: r[rd] = (cycle + RDCYCLE_OFFSET) / TWO32; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDINSTRET: r[rd] = instret + RDINSTRET_OFFSET; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDINSTRETH: r[rd] = (instret + RDINSTRET_OFFSET) / TWO32; r[0] = 0; this.lastEffect = instret; break;

        case Op.MUL: r[rd] = Math.imul(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULH: r[rd] = mulh(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULHSU: r[rd] = mulhsu(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULHU: r[rd] = mulhu(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.DIV: { const b = r[(f >>> 16) & 31]; r[rd] = b === 0 ? -1 : (a / b) | 0; r[0] = 0; break; }
        case Op.DIVU: { const b = r[(f >>> 16) & 31] >>> 0; r[rd] = b === 0 ? -1 : (a >>> 0) / b; r[0] = 0; break; }
        case Op.REM: { const b = r[(f >>> 16) & 31]; r[rd] = b === 0 ? a : a % b; r[0] = 0; break; }
        case Op.REMU: { const b = r[(f >>> 16) & 31] >>> 0; r[rd] = b === 0 ? a : (a >>> 0) % b; r[0] = 0; break; }

        case Op.BREAK: reason = StopReason.BREAK; break outer;
        default: reason = this.trap(TrapKind.ILLEGAL_INSTRUCTION, cycle + this.trapAt.illegal); break outer;
      }
      if (k === stale) { this.forget(k); stale = -1; } // the prefetched old word has run
      pc = next;
      cycle += clocks;
      instret++;
    }

    // On a trap the instruction does not retire and pc names it.
    this.pc = pc; this.cycle = cycle; this.instret = instret; this.staleWord = stale;
    this.stopReason = reason;
    return reason;
  }

  /**
   * run() for a configuration with a loop of its own (word slots: runWords; the seed board's:
   * runSeed), in slices of SLICE_CLOCKS, the poll history kept across them.
   */
  private runInSlices(cycleLimit: number, instrLimit: number): StopReason {
    const stopAtInstret = this.instret + instrLimit;
    const words = this.wordSlots;
    this.poll.index[1] = 0;
    for (;;) {
      const sliceLimit = Math.min(cycleLimit, this.cycle + SLICE_CLOCKS);
      const left = stopAtInstret - this.instret;
      const reason = words ? this.runWords(sliceLimit, left) : this.runSeed(sliceLimit, left);
      // Any stop but the slice's own end (a halt, a trap, a yield, a budget) is the run's.
      if (reason !== StopReason.LIMIT || sliceLimit >= cycleLimit || this.cycle < sliceLimit
        || this.instret >= stopAtInstret || this.bus.yieldCpu) return reason;
    }
  }

  /**
   * run() for the seed board's configuration (halfword slots with RV32C, the
   * axi-lite interface): the general loop's cases with its per-instruction
   * tests on the configuration gone. The constants are the timing rules the
   * general loop applies (timing.ts): every jump's and taken branch's target
   * fetch is a transaction (AXI_TRANSACTION_EXTRA), a target that straddles
   * two words adds its chained second fetch, and a store into BRAM drops the
   * slots it may have changed without a loop. RV32C has no stale words
   * (staleWord stays -1: a BRAM store drops the decoded slots at once).
   * A change to an instruction's case goes into run() and runWords too; the
   * timing tests hold this one (rvc, cpu-seed-axi, the seed RTL fixtures).
   * runInSlices calls it, a slice at a time.
   */
  private runSeed(cycleLimit: number, instrLimit: number): StopReason {
    const r = this.regs, fields = this.fields;
    const imms = this.imms, lens = this.lens, dataAt = this.dataAt;
    const m8 = this.mem8, ms8 = this.memS8, m16 = this.mem16, ms16 = this.memS16, m32 = this.mem32;
    const bus = this.bus;
    const barrel = this.features.BARREL_SHIFTER;
    const ramSize = this.ramSize;
    // A fetch is legal only from a halfword address inside the BRAM.
    const badPc = ~(ramSize - 1) | 1;
    // A jump's target that straddles two words: the straddle and the chained second fetch.
    const straddleTarget = STRADDLE_EXTRA + AXI_TRANSACTION_EXTRA + AXI_CHAINED_EXTRA;
    const stopAtInstret = this.instret + instrLimit;
    this.pollCycleLimit = cycleLimit; this.pollStopAt = stopAtInstret;
    let pc = this.pc, cycle = this.cycle, instret = this.instret;
    let reason = StopReason.LIMIT;
    const kernelRun = this.kernelRun, kernelState = this.kernelState, barrelBit = barrel ? 1 : 0;

    outer: for (;;) {
      if (cycle >= cycleLimit || instret >= stopAtInstret) break;
      if (kernelRun !== null) {
        // The plain instructions up to the next one this loop runs, in WebAssembly.
        kernelState[6] = this.lastEffect;
        pc = kernelRun(pc, cycle, instret, cycleLimit, stopAtInstret, -1, barrelBit) >>> 0;
        cycle = kernelState[0]; instret = kernelState[1];
        if (kernelState[2] >= 0) this.lastEffect = kernelState[2];
        const unfinished = kernelState[3];
        if (unfinished !== 0) {
          // The kernel made the device access at pc and the bus answered more than a wait: its
          // end, as in the load and store cases below (1: a store, 2: a read, its register
          // written, after which the machine must look up, 3: a read the bus refused).
          kernelState[3] = 0;
          const k = pc >>> 1, f = fields[k], at = dataAt[k];
          if (unfinished === 3 || (unfinished === 1 && bus.fault)) {
            const kind = unfinished === 3 ? TrapKind.LOAD_BUS_ERROR : TrapKind.STORE_BUS_ERROR;
            reason = bus.restart ? StopReason.BLOCKED : this.trap(kind, cycle + at, (r[(f >>> 11) & 31] + imms[k]) | 0);
            break;
          }
          const clocks = ((f >>> 21) & 255) + bus.wait + (unfinished === 2 ? bus.readExtra : 0);
          return this.lookUp(pc + 4 - ((f >>> 28) & 2), cycle, clocks, instret, at, k, -1);
        }
        if (cycle >= cycleLimit || instret >= stopAtInstret) break;
      }
      if (pc & badPc) {
        // Sequential flow off the end of the BRAM (jumps check their own targets):
        // the fetch handshake, one clock before the launch, is the bus error.
        reason = this.trap(pc & 3 ? TrapKind.MISALIGNED_FETCH : TrapKind.FETCH_OUTSIDE_BRAM, cycle - 1, pc);
        break;
      }
      const k = pc >>> 1;
      let f = fields[k];
      if (f === 0) { this.decodeAhead(k); f = fields[k]; }
      const op: Op = f & 63, imm = imms[k];
      const rd = (f >>> 6) & 31;
      const a = r[(f >>> 11) & 31];
      let clocks = (f >>> 21) & 255;
      // Bit 29: a compressed instruction (2 bytes).
      let next = pc + 4 - ((f >>> 28) & 2);

      switch (op) {
        case Op.NOP: break;
        case Op.LUI: r[rd] = imm; break;
        case Op.AUIPC: r[rd] = pc + imm; break;
        case Op.JAL:
          r[rd] = next; r[0] = 0; next = (pc + imm) >>> 0;
          clocks += AXI_TRANSACTION_EXTRA;
          if (next & 2 && next < ramSize && (m16[next >>> 1] & 3) === 3) clocks += straddleTarget;
          break;
        // JALR clears bit 0 of the target, as the spec (and PicoRV32) do.
        case Op.JALR:
          r[rd] = next; r[0] = 0; next = ((a + imm) & ~1) >>> 0;
          clocks += AXI_TRANSACTION_EXTRA;
          if (next & 2 && next < ramSize && (m16[next >>> 1] & 3) === 3) clocks += straddleTarget;
          break;
        case Op.BEQ: case Op.BNE: case Op.BLT: case Op.BGE: case Op.BLTU: case Op.BGEU:
          if (!branchTaken(op, a, r[(f >>> 16) & 31])) break;
          next = (pc + imm) >>> 0;
          clocks += TAKEN_BRANCH_EXTRA + AXI_TRANSACTION_EXTRA;
          if (next & 2) {
            // branchTargetExtra: the straddle, and the refetch when the fall-through's word has it (bit 4 of lens).
            const straddle = next < ramSize && (m16[next >>> 1] & 3) === 3;
            if (straddle) clocks += straddleTarget;
            if (lens[k] & 16) clocks += straddle ? 2 * AXI_REFETCH_PER_WORD : AXI_REFETCH_PER_WORD;
          }
          break;

        case Op.LB: case Op.LBU: case Op.LH: case Op.LHU: case Op.LW: {
          // The address as an int32 (its bits), as every call below is given it: a uint32 of 2^31 or
          // more is a heap number as an argument, and V8 makes that tagged value once, ahead of the
          // switch, for every instruction (the BRAM test is unsigned).
          const addr = (a + imm) | 0;
          const size = op === Op.LW ? 4 : op === Op.LH || op === Op.LHU ? 2 : 1;
          if (addr & (size - 1)) {
            // Through picorv32_axi the trap comes before the aligned word's read (AR only, no R: s_trap_misaligned_load.S).
            reason = this.trap(TrapKind.MISALIGNED_LOAD, cycle + this.trapAt.load + this.misalignPrefetch(k), addr);
            break outer;
          }
          if (addr >>> 0 < ramSize) {
            r[rd] = op === Op.LW ? m32[addr >>> 2] : op === Op.LBU ? m8[addr] : op === Op.LB ? ms8[addr]
              : op === Op.LHU ? m16[addr >>> 1] : ms16[addr >>> 1];
            r[0] = 0;
            break;
          }
          const at = dataAt[k];
          const word = bus.read(addr, cycle + at);
          if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.LOAD_BUS_ERROR, cycle + at, addr); break outer; }
          clocks += bus.wait;
          clocks += bus.readExtra;
          const sh = (addr & 3) << 3;
          const v = op === Op.LW ? word : op === Op.LBU ? (word >>> sh) & 0xff : op === Op.LB ? (word << (24 - sh)) >> 24
            : op === Op.LHU ? (word >>> sh) & 0xffff : (word << (16 - sh)) >> 16;
          r[rd] = v; r[0] = 0;
          if (bus.attention) return this.lookUp(next, cycle, clocks, instret, at, k, -1);
          if (bus.repeatUntil > cycle + at + SEED_POLL_WINDOW) {
            // The read repeats unchanged for a while: maybe a poll loop to skip.
            const n = this.pollRepeats(pc, addr, v | 0, bus.wait, bus.repeatUntil, cycle + at, cycle + clocks, instret + 1);
            if (n !== 0) { cycle += n * this.pollClocks; instret += n * this.pollInstrs; }
          } else {
            this.lastEffect = instret;
          }
          break;
        }

        case Op.SB: case Op.SH: case Op.SW: {
          const addr = (a + imm) | 0; // an int32, as for a load
          const size = op === Op.SW ? 4 : op === Op.SH ? 2 : 1;
          const v = r[(f >>> 16) & 31];
          if (addr & (size - 1)) { reason = this.misalignedStore(addr, size, v, cycle, k); break outer; }
          if (addr >>> 0 < ramSize) {
            // The new bits are seen from the next fetch on (PicoRV32's prefetch
            // buffer with compressed code is not modelled; hardware.md).
            this.lastEffect = instret;
            if (op === Op.SW) m32[addr >>> 2] = v; else if (op === Op.SB) m8[addr] = v; else m16[addr >>> 1] = v;
            // invalidateWord: the word's two halfwords and the two before, each only when decoded.
            const h = (addr >>> 1) & ~1;
            if (fields[h] !== 0) this.forget(h);
            if (fields[h + 1] !== 0) this.forget(h + 1);
            if (h >= 2) {
              if (fields[h - 1] !== 0) this.forget(h - 1);
              if (fields[h - 2] !== 0) this.forget(h - 2);
            }
            break;
          }
          // PicoRV32 replicates a byte or half across the word and selects lanes with wstrb.
          const sh = addr & 3;
          const wdata = size === 4 ? v : size === 2 ? (v & 0xffff) * 0x10001 : (v & 0xff) * 0x1010101;
          const wstrb = size === 4 ? 15 : size === 2 ? 3 << sh : 1 << sh;
          const at = dataAt[k];
          this.lastEffect = instret;
          bus.write(addr, wdata | 0, wstrb, cycle + at);
          if (bus.fault) { reason = bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.STORE_BUS_ERROR, cycle + at, addr); break outer; }
          clocks += bus.wait;
          if (bus.attention) return this.lookUp(next, cycle, clocks, instret, at, k, -1);
          break;
        }

        case Op.ADDI: r[rd] = a + imm; break;
        case Op.SLTI: r[rd] = a < imm ? 1 : 0; break;
        case Op.SLTIU: r[rd] = a >>> 0 < imm >>> 0 ? 1 : 0; break;
        case Op.XORI: r[rd] = a ^ imm; break;
        case Op.ORI: r[rd] = a | imm; break;
        case Op.ANDI: r[rd] = a & imm; break;
        case Op.SLLI: r[rd] = a << imm; break;
        case Op.SRLI: r[rd] = a >>> imm; break;
        case Op.SRAI: r[rd] = a >> imm; break;

        case Op.ADD: r[rd] = a + r[(f >>> 16) & 31]; break;
        case Op.SUB: r[rd] = a - r[(f >>> 16) & 31]; break;
        case Op.SLT: r[rd] = a < r[(f >>> 16) & 31] ? 1 : 0; break;
        case Op.SLTU: r[rd] = a >>> 0 < r[(f >>> 16) & 31] >>> 0 ? 1 : 0; break;
        case Op.XOR: r[rd] = a ^ r[(f >>> 16) & 31]; break;
        case Op.OR: r[rd] = a | r[(f >>> 16) & 31]; break;
        case Op.AND: r[rd] = a & r[(f >>> 16) & 31]; break;
        case Op.SLL: case Op.SRL: case Op.SRA: {
          const n = r[(f >>> 16) & 31] & 31;
          if (!barrel) clocks += (n >>> 2) + (n & 3);
          r[rd] = op === Op.SLL ? a << n : op === Op.SRL ? a >>> n : a >> n;
          r[0] = 0;
          break;
        }

        case Op.FENCE: break;
        case Op.ECALL: reason = this.trap(TrapKind.ECALL, cycle + this.trapAt.ebreak); break outer;
        case Op.EBREAK: reason = this.trap(TrapKind.EBREAK, cycle + this.trapAt.ebreak); break outer;

        case Op.RDCYCLE: case Op.RDTIME: r[rd] = cycle + RDCYCLE_OFFSET; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDCYCLEH: case Op.RDTIMEH: r[rd] = (cycle + RDCYCLE_OFFSET) / TWO32; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDINSTRET: r[rd] = instret + RDINSTRET_OFFSET; r[0] = 0; this.lastEffect = instret; break;
        case Op.RDINSTRETH: r[rd] = (instret + RDINSTRET_OFFSET) / TWO32; r[0] = 0; this.lastEffect = instret; break;

        case Op.MUL: r[rd] = Math.imul(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULH: r[rd] = mulh(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULHSU: r[rd] = mulhsu(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.MULHU: r[rd] = mulhu(a, r[(f >>> 16) & 31]); r[0] = 0; break;
        case Op.DIV: { const b = r[(f >>> 16) & 31]; r[rd] = b === 0 ? -1 : (a / b) | 0; r[0] = 0; break; }
        case Op.DIVU: { const b = r[(f >>> 16) & 31] >>> 0; r[rd] = b === 0 ? -1 : (a >>> 0) / b; r[0] = 0; break; }
        case Op.REM: { const b = r[(f >>> 16) & 31]; r[rd] = b === 0 ? a : a % b; r[0] = 0; break; }
        case Op.REMU: { const b = r[(f >>> 16) & 31] >>> 0; r[rd] = b === 0 ? a : (a >>> 0) % b; r[0] = 0; break; }

        case Op.BREAK: reason = StopReason.BREAK; break outer;
        default: reason = this.trap(TrapKind.ILLEGAL_INSTRUCTION, cycle + this.trapAt.illegal); break outer;
      }
      pc = next;
      cycle += clocks;
      instret++;
    }

    // On a trap the instruction does not retire and pc names it.
    this.pc = pc; this.cycle = cycle; this.instret = instret;
    this.stopReason = reason;
    return reason;
  }

  /**
   * A device read at `pc` that the device promised to repeat unchanged before
   * bus.repeatUntil (the TPU's status while no command can end). If an earlier
   * such read among the last POLL_HISTORY was this one (same pc, address,
   * value and wait), with the same registers after it and nothing since but
   * instructions on registers, BRAM loads and other reads with a promise
   * (lastEffect: no store, other device access or clock read), the CPU is in
   * a poll loop whose every iteration is the same: the same instructions, the
   * same clocks, the same values read (each read's promise holds them). A
   * loop may read several registers (issued, then retired). Returns how many
   * more whole iterations to skip — every one whose reads come before their
   * promises run out and whose instructions launch before the loop's clock
   * limit and retire within its budget (pollCycleLimit, pollStopAt), as running them would — each pollClocks
   * clocks and pollInstrs instructions long. The TPU is not touched: those
   * reads would process no clocks. `launch` and `retired` are the next
   * instruction's launch clock and the retired count after this read.
   */
  private pollRepeats(pc: number, addr: number, value: number, wait: number, promise: number, readClock: number, launch: number, retired: number): number {
    const cycleLimit = this.pollCycleLimit, stopAtInstret = this.pollStopAt;
    const r = this.regs, h = this.poll, index = h.index;
    const next = index[0], count = index[1];
    // The latest earlier read at this pc, and the earliest promise of the reads after it (the loop's others).
    let e = -1, back = 1, bound = promise;
    for (; back <= count; back++) {
      const i = (next - back) & (POLL_HISTORY - 1);
      if (h.pcs[i] === pc) { e = i; break; }
      if (h.promises[i] < bound) bound = h.promises[i];
    }
    let n = 0, clocks = 0, instrs = 0;
    if (e >= 0 && addr === h.addrs[e] && value === h.values[e] && wait === h.waits[e]
      && this.lastEffect < h.retireds[e]) {
      clocks = launch - h.launches[e];
      instrs = retired - h.retireds[e];
      n = Math.min(Math.floor((bound - 1 - readClock) / clocks),
        Math.floor((cycleLimit - launch) / clocks), Math.floor((stopAtInstret - retired) / instrs));
      // The registers last (the dearest test): an iteration that changes one is no repeat.
      if (!(n > 0 && n < Number.MAX_SAFE_INTEGER) || !sameRegisters(r, h.regs, 32 * e)) n = 0;
      this.pollClocks = clocks;
      this.pollInstrs = instrs;
    }
    if (n > 0) {
      // The loop's reads move on with the skipped iterations; the reads before it are forgotten
      // (their retired counts would no longer say what ran since).
      for (let k = 1; k < back; k++) {
        const i = (next - k) & (POLL_HISTORY - 1);
        h.launches[i] += n * clocks;
        h.retireds[i] += n * instrs;
      }
      index[1] = back - 1;
    }
    // (cpu-kernel.wat's recordRead does all of this the same way.)
    const i = next;
    h.pcs[i] = pc;
    h.addrs[i] = addr;
    h.values[i] = value;
    h.waits[i] = wait;
    h.promises[i] = promise;
    h.launches[i] = launch + n * clocks;
    h.retireds[i] = retired + n * instrs;
    copyRegisters.call(h.regs, r, 32 * i);
    index[0] = (i + 1) & (POLL_HISTORY - 1);
    if (index[1] < POLL_HISTORY) index[1]++;
    return n;
  }


  /**
   * Extra clocks of a jump or taken branch to halfword address `pc` when the
   * target is a 32-bit instruction straddling two words (its second word is a
   * second fetch, chained to the first on the AXI bus), else 0.
   */
  private targetStraddle(pc: number): number {
    if (((this.mem16[pc >>> 1] ?? 0) & 3) !== 3) return 0;
    return STRADDLE_EXTRA + (this.axi ? AXI_TRANSACTION_EXTRA + AXI_CHAINED_EXTRA : 0);
  }

  /**
   * A taken branch to halfword address `pc`: targetStraddle, and on the AXI
   * bus, when the branch's fall-through is word-aligned and its word's upper
   * half has low bits 11 (bit 4 of `lens`), the target's words are fetched
   * twice (timing.ts AXI_REFETCH_PER_WORD).
   */
  private branchTargetExtra(pc: number, lens: number): number {
    const straddle = this.targetStraddle(pc);
    if (!this.axi || !(lens & 16)) return straddle;
    return straddle + AXI_REFETCH_PER_WORD * (straddle ? 2 : 1);
  }

  /**
   * The data access of the instruction at `cycle` halted the machine (EXIT, or
   * a device), or a device asked the CPU to yield: the instruction retires and
   * the loop returns.
   */
  private lookUp(next: number, cycle: number, clocks: number, instret: number, accessOffset: number, k: number, stale: number): StopReason {
    this.pc = next; this.cycle = cycle + clocks; this.instret = instret + 1;
    // Only device accesses come here: this instruction stored into no BRAM word.
    if (k === stale) { this.forget(k); stale = -1; }
    this.staleWord = stale;
    if (!this.bus.halted) {
      this.stopReason = StopReason.LIMIT;
      return StopReason.LIMIT;
    }
    this.stopClock = cycle + accessOffset + this.bus.wait;
    this.stopReason = StopReason.EXIT;
    return StopReason.EXIT;
  }

  /**
   * A misaligned store: PicoRV32 still writes the aligned word, with the lanes
   * its wstrb logic picks from address bits 1:0 (a word: all four; a half: the
   * half that bit 1 selects), and then traps.
   */
  private misalignedStore(addr: number, size: number, v: number, cycle: number, k: number): StopReason {
    const word = addr & ~3;
    const wstrb = size === 4 ? 15 : addr & 2 ? 12 : 3;
    const wdata = size === 4 ? v : (v & 0xffff) * 0x10001;
    if (word < this.ramSize) {
      for (let lane = 0; lane < 4; lane++) if (wstrb & (1 << lane)) this.mem8[word + lane] = wdata >>> (8 * lane);
      this.invalidateWord(word >>> 2);
    } else {
      this.bus.write(word, wdata | 0, wstrb, cycle + this.storeOffset);
      if (this.bus.fault) return this.bus.restart ? StopReason.BLOCKED : this.trap(TrapKind.STORE_BUS_ERROR, cycle + this.storeOffset, addr);
    }
    return this.trap(TrapKind.MISALIGNED_STORE, cycle + this.trapAt.store + this.misalignPrefetch(k), addr);
  }

  /**
   * axi-lite: a misaligned load or store traps only once the next instruction's
   * prefetch is done (picorv32.v's ldmem/stmem states wait for it before the
   * CATCH_MISALIGN check), and on AXI that prefetch is a transaction of its own:
   * AXI_TRANSACTION_EXTRA when the next word must be fetched, 0 when the fetch of
   * this instruction already brought it (measured: test/rtl/seed/s_trap_misaligned_*.S).
   * It is the part of the slot's data-access offset that the sequential fetches add.
   */
  private misalignPrefetch(k: number): number {
    if (!this.axi) return 0;
    const store = this.ops[k] >= Op.SB && this.ops[k] <= Op.SW;
    const straddle = (this.lens[k] >>> 3) & 1;
    return this.dataAt[k] - (store ? this.storeOffset : DATA_ACCESS_OFFSET) - straddle - AXI_SLAVE_ACT_OFFSET;
  }

  /** Records a trap or bus error; `stopClock` is the clock PicoRV32 raises `trap` (or the faulting handshake). */
  private trap(kind: TrapKind, stopClock: number, addr = 0): StopReason {
    this.trapKind = kind;
    this.faultAddr = addr >>> 0; // runSeed gives an address as an int32
    this.stopClock = stopClock;
    const busError = kind === TrapKind.FETCH_OUTSIDE_BRAM || kind === TrapKind.LOAD_BUS_ERROR
      || kind === TrapKind.STORE_BUS_ERROR;
    return busError ? StopReason.BUS_ERROR : StopReason.TRAP;
  }
}

/** Set once runWords has run the warm-up program in this process. */
let wordLoopWarm = false;

/**
 * The warm-up's bus: every address outside its BRAM answers after a wait
 * clock, a read of an address with bit 2 set with a promise to repeat (the
 * poll-loop path), so the device paths of the loop run too.
 */
class WarmUpBus extends Bus {
  read(addr: number): number {
    this.wait = 1;
    this.repeatUntil = addr & 4 ? Number.MAX_SAFE_INTEGER : 0;
    return addr ^ 0x5a5a5a5a;
  }
  write(): void { this.wait = 1; }
}

/**
 * Runs, once per process, a short program through runWords on a scratch CPU
 * with every instruction kind of the loop, both ways of a branch, and operands
 * of either sign. V8 compiles the loop with the type feedback of the cases
 * that have run; a case that has not yet run is a deoptimization point, so a
 * firmware that meets its kinds one after the other deoptimized and
 * recompiled the loop several times in its first tenth of a second (a cold
 * `picotpu demo`). The scratch CPU and its bus share nothing with any board:
 * no board's state, clock or output can depend on it.
 */
function warmUpWordLoop(features: CpuFeatures): void {
  wordLoopWarm = true;
  const bus = new WarmUpBus({ consoleWait: 0, tpuWait: 0, sramBridgeWait: 0, sramReadClocksPerByte: 0, sramWriteClocksPerByte: 0 }, 4096);
  const cpu = new Cpu(bus, { ...features, ENABLE_MUL: true, ENABLE_FAST_MUL: false, ENABLE_DIV: true, COMPRESSED_ISA: false });
  const byName = new Map(INSNS.map((d) => [d.name, d]));
  const code: number[] = [];
  const op = (name: string, rd: number, rs1: number, rs2: number, imm: number) => code.push(encode(byName.get(name)!, rd, rs1, rs2, imm));
  // x5 = 0x80000000, x6 = -7, x7 = 3, x8 = 0x400 (data), x10 = iterations, x11 = a device.
  op('lui', 5, 0, 0, 0x80000000 | 0);
  op('addi', 6, 0, 0, -7);
  op('addi', 7, 0, 0, 3);
  op('addi', 8, 0, 0, 0x400);
  // Six iterations: V8 gives the loop its feedback vector only after a few hundred
  // instructions, and the rest run every case with feedback. More cost a short
  // program's start for nothing (forty made `picotpu run hello.elf` 18 ms slower).
  op('addi', 10, 0, 0, 6);
  op('lui', 11, 0, 0, 0x10000000);
  const loop = code.length;
  op('auipc', 12, 0, 0, 0);
  for (const name of ['addi', 'slti', 'sltiu', 'xori', 'ori', 'andi']) { op(name, 12, 6, 0, 5); op(name, 13, 5, 0, -1); }
  for (const name of ['slli', 'srli', 'srai']) { op(name, 12, 6, 0, 3); op(name, 13, 5, 0, 31); }
  for (const name of ['add', 'sub', 'sll', 'slt', 'sltu', 'xor', 'srl', 'sra', 'or', 'and',
    'mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu']) {
    op(name, 12, 6, 7, 0); op(name, 13, 5, 6, 0); op(name, 14, 7, 0, 0);
  }
  for (const name of ['sw', 'sh', 'sb']) op(name, 0, 8, 6, 0);
  for (const name of ['lw', 'lh', 'lhu', 'lb', 'lbu']) op(name, 12, 8, 0, 0);
  // The same through the bus: x11 = 0x10000000, outside the BRAM.
  for (const name of ['sw', 'sh', 'sb']) op(name, 0, 11, 6, 0);
  for (const name of ['lw', 'lh', 'lhu', 'lb', 'lbu']) { op(name, 12, 11, 0, 0); op(name, 13, 11, 0, 4); }
  // Every branch both ways: taken over the next instruction, and not taken.
  for (const [name, t1, t2, n1, n2] of [['beq', 0, 0, 6, 0], ['bne', 6, 0, 0, 0], ['blt', 6, 7, 7, 6],
    ['bge', 7, 6, 6, 7], ['bltu', 7, 6, 6, 7], ['bgeu', 6, 7, 7, 6]] as const) {
    op(name, 0, t1, t2, 8); op('addi', 0, 0, 0, 0);
    op(name, 0, n1, n2, 8); op('addi', 0, 0, 0, 0);
  }
  op('jal', 1, 0, 0, 8); op('addi', 0, 0, 0, 0);
  op('auipc', 9, 0, 0, 0); op('jalr', 1, 9, 0, 12); op('addi', 0, 0, 0, 0);
  for (const name of ['rdcycle', 'rdcycleh', 'rdtime', 'rdtimeh', 'rdinstret', 'rdinstreth', 'fence']) op(name, 12, 0, 0, 0);
  op('addi', 10, 10, 0, -1);
  op('bne', 0, 10, 0, (loop - code.length) * 4);
  op('ebreak', 0, 0, 0, 0);
  const words = new DataView(bus.bram.buffer);
  for (let i = 0; i < code.length; i++) words.setInt32(4 * i, code[i], true);
  // It ends at its EBREAK with every iteration done: else the program (not the loop) is wrong.
  if (cpu.run(Number.MAX_SAFE_INTEGER) !== StopReason.TRAP || cpu.trapKind !== TrapKind.EBREAK || cpu.regs[10] !== 0) {
    throw new Error(`runWords warm-up stopped early at pc 0x${cpu.pc.toString(16)}`);
  }
}
