// The seed board's TPU (tpu_top.sv with cpu_subsys.sv's MMIO aperture): the
// command plane (one 128-bit command per push: words 0-2 into one staging
// register shared by all units, the store to word 3 commits, a full queue
// holds the commit store), a depth-8 queue and front end per unit (cmd_mxu,
// cmd_vpu, cmd_dma: S_HEAD/S_RUN, issued/retired/level), the MXU, VPU and
// DMA, the banked scratchpad with its priority arbitration, and the ten
// perf_counters.sv counters over the run window.
//
// Clock protocol: `clock` = CPU clocks since the run pulse released the core.
// advanceTo(c) processes every clock < c. An MMIO or window access at clock c
// sees the state at the start of clock c and takes effect at its edge. Within
// one clock: every unit posts its scratchpad requests, the banks arbitrate,
// granted reads sample the memory (read-first), then every edge: the units'
// FSMs, the front ends (a command committed at clock t is at the head from
// t+1), granted writes.
//
// Two models behind one class: `reference` steps every clock through the
// arbiter with the literal systolic array; the fast model uses the MXU's fast
// datapath and skips stretches in which nothing can interact (skip()): no
// front end about to take a head, every running unit before its DONE clock
// (its horizon()), and the running commands' banks pairwise disjoint; every
// running unit then advances on its own (bulk(): a fill's bytes copied at
// once, the others without the arbiter) and the counters add up at once. Any
// other clock, and every clock of a CPU access, is stepped. Within a quiet
// stretch the units' bulk work is deferred (`lag`, per unit): the CPU's accesses
// in it (status polls) only move the clock and the counters, and a unit alone in
// its banks keeps lagging across the other units' command boundaries, up to a
// lower bound of its own DONE (unitEnd); it catches up once, there or when
// anything looks at the units (catchUp()). A read of a unit's status words before that
// unit's next event (statusPromise()) does not bring the TPU forward at all, nor does a commit
// store to a queue with room (its command is taken from the clock after; write()). Pinned together by
// test/seed-tpu.test.ts and test/seed-units.test.ts, and both held to the
// RTL by test/seed-rtl-streams.test.ts. The fast model's busiest registers and
// its command queues live in the CPU kernel's device window (placeRegisters()),
// where the kernel answers the status polls and takes the commit stores itself.

import { WINDOW_QUEUE_DEPTH, type DeviceWindow } from '../../emu/cpu-kernel.ts';
import type { MmioDevice } from '../../periph/mmio.ts';
import { SRAM_SIZE } from '../../periph/sram.ts';
import * as ports from './ports.ts';
import { SeedDma } from './dma.ts';
import { SeedMxu, seedKernelSpad, seedKernelSram } from './mxu.ts';
import { SeedVpu } from './vpu.ts';
import * as regs from './regs.ts';

// Module-local copies of the constants the hot paths read: tsx runs this code as CommonJS,
// where every imported binding is a getter call on each use.
const { Ports, RD_CPU, WR_CPU, SeedSpad } = ports;
const { SEED_DMA, SEED_MXU, SEED_QUEUE_DEPTH, SEED_VPU } = regs;

/** The seed's ten perf_counters.sv counters over the run-pulse..DONE window, plus the true commit stalls. */
export interface SeedCounters {
  run: number;
  mxu: number;
  mload: number;
  vpu: number;
  dma: number;
  swait: number;
  vmm: number;
  idlec: number;
  qfull: number;
  ovlap: number;
  /** Clocks commit stores were really held on a full queue (the RTL's qfull counts 0). */
  trueQfullStall: number;
}

export const SEED_UNITS = ['MXU', 'VPU', 'DMA'] as const;

/** What the RTL does silently and the emulator reports (docs/seed-board.md). */
export interface SeedHazard {
  clock: number;
  kind: 'unknown-opcode' | 'unknown-vpu-op' | 'odd-vlen' | 'mxu-ab-same-bank' | 'deadlock';
  unit: number;
  text: string;
}

const HEAD = 0, RUN = 1;
/** Indices into SeedTpu.time. */
const CLOCK = 0, QUIET_UNTIL = 1;
/** extraWait() of an access that can never complete (see `stuck`): far beyond any watchdog. */
export const SEED_STUCK_WAIT = 2 ** 40;
const MAX_HAZARDS = 32;
const SAT = 0xffffffff;

export class SeedTpu implements MmioDevice {
  readonly spadMem: InstanceType<typeof SeedSpad>;
  readonly mxu: SeedMxu;
  readonly vpu: SeedVpu;
  readonly dma: SeedDma;
  private readonly ports = new Ports();
  private readonly reference: boolean;

  // ---- command plane ----
  private stage: Uint32Array = new Uint32Array(3);
  /**
   * The queued commands' words, as int32s (their bits: the units take them apart with bit
   * operations): a word of 2^31 or more read from a Uint32Array is a heap number made at every
   * call it is handed to (a unit's start()).
   */
  private qWords: Int32Array = new Int32Array(3 * SEED_QUEUE_DEPTH * 4);
  private qClock: Float64Array = new Float64Array(3 * SEED_QUEUE_DEPTH);
  private qHead: Int32Array = new Int32Array(3);
  private qCount: Int32Array = new Int32Array(3);
  /** Per unit, HEAD or RUN (int32: the CPU kernel's device window reads it, placeRegisters()). */
  private front: Int32Array = new Int32Array(3);
  /** The front ends in RUN as bits (1 MXU, 2 VPU, 4 DMA): `front` read at once. */
  private runBits = 0;
  private issued: Uint32Array = new Uint32Array(3);
  private retired: Uint32Array = new Uint32Array(3);
  private readonly runStart = new Float64Array(3);
  private readonly runOpcode = new Int32Array(3);

  // ---- time and window ----
  /** The next clock to process (every clock before it is done). */
  private clk = 0;
  private windowStart = 0;
  done = false;
  doneClock = -1;
  /**
   * Set when the CPU waits on something that can never happen: a starved MXU (A and B in one bank)
   * holds its A bank's read port for ever, so a commit to its queue, or a window read of that bank,
   * or a unit reading that bank, never completes. The RTL hangs; the access reports SEED_STUCK_WAIT
   * wait clocks, and the model stops advancing (its state and counters stay those of that clock).
   */
  stuck = false;
  private lastExtraWait = 0;
  /**
   * [CLOCK]: `clk` as the CPU kernel's device window reads it (its pushes land no earlier);
   * [QUIET_UNTIL], fast model: clocks before this one need no arbiter (see skip()); -1 after any change.
   */
  private time: Float64Array = new Float64Array([0, -1]);
  /**
   * Fast model: clocks each running unit has not done yet (see catchUp()): MXU, VPU, DMA. A unit
   * alone in its banks lags across quiet stretches and the command boundaries of the others, up
   * to its own unitEnd.
   */
  private lagM = 0; private lagV = 0; private lagD = 0;
  /**
   * Fast model: per unit, a lower bound of its running command's DONE clock (its clock then plus
   * horizon()), and its busy flag (constant from its start to its DONE); -1 when not known yet.
   */
  private readonly unitEnd = new Float64Array([-1, -1, -1]);
  private readonly unitBusyBit = new Uint8Array(3);
  /** Fast model, the stretch up to quietUntil: the units busy in it (bits 1 MXU, 2 VPU, 4 DMA), constant over it. */
  private stretchBusy = 0;
  /** ... two or more units running in it; its units' work deferred to catchUp() (no MXU that may starve). */
  private stretchParallel = false;
  /** ... the units running in it (bits 1 MXU, 2 VPU, 4 DMA): they lag over it (skipBy()). */
  private stretchRun = 0;
  private stretchLazy = true;
  /**
   * Fast model, per unit: reads of its issued, retired and level words before this clock see
   * them as they are now (statusPromise()), so such a read neither brings the TPU forward nor
   * looks at its units: a poll costs a compare. -1 after the unit's commit store (or none yet).
   */
  private statusUntil: Float64Array = new Float64Array([-1, -1, -1]);
  /** The CPU kernel's device window, when placeRegisters() moved the status words there. */
  private window: DeviceWindow | null = null;

  // ---- CPU scratchpad request of the clock being stepped ----
  private cpuRd = false; private cpuWr = false;
  private cpuAddr = 0; private cpuData = 0; private cpuRdata = 0;

  // ---- counters (clocks in [windowStart, doneClock]) ----
  /**
   * Window clocks by the units busy in them (bits 1 MXU, 2 VPU, 4 DMA): one add a stretch; the ten
   * counters are sums of these (counters()), saturated there (a saturating sum of non-negative
   * steps is the plain sum, saturated).
   */
  private readonly busyClocks = new Float64Array(8);
  private cStall = 0;

  /** Fast-model statistics: clocks stepped through the arbiter, clocks skipped, stretches with two or more units in bulk. */
  steppedClocks = 0;
  /** Clocks in which some requester lost a bank to a higher-priority one (stepped clocks only). */
  conflictClocks = 0;
  skippedClocks = 0;
  parallelSkips = 0;
  /** Clocks stepped without the arbiter (lightStep()). */
  lightClocks = 0;

  readonly hazards: SeedHazard[] = [];
  hazardCount = 0;
  private starveReported = false;
  /**
   * Called when a unit's command ends (its front end pops it: GEOM and discarded opcodes the clock
   * they are taken), while it is still the head of the unit's queue (queuedPushClock(unit, 0)).
   */
  onCommand?: (unit: number, opcode: number, startClock: number, endClock: number) => void;
  /** Called when a commit store to `unit`'s full queue presented at `clock` was held until `until`. */
  onCommitStall?: (unit: number, clock: number, until: number) => void;
  /** Called when a unit dispatches a command, with its first busy clock (GEOM and discarded opcodes never dispatch). */
  onCommandStart: ((unit: number, clock: number) => void) | undefined = undefined;

  /** The board's SRAM (the DMA's far side): the one given, or the TPU's own (null given). */
  readonly sramMemory: Uint8Array;

  /**
   * `sram`: the board's SRAM (the DMA's far side), or null for one of the TPU's own (SRAM_SIZE
   * bytes; the fast model's in the WebAssembly memory of its scratchpad, where its DMA copies
   * fills of whole words in one call).
   */
  constructor(opts: { reference: boolean; argmax?: boolean }, sram: Uint8Array | null) {
    this.reference = opts.reference;
    // The fast model's scratchpad lives in its MXU's WebAssembly memory (seedKernelSpad).
    this.spadMem = opts.reference ? new SeedSpad() : seedKernelSpad(sram ? 0 : SRAM_SIZE);
    this.sramMemory = sram ?? (opts.reference ? null : seedKernelSram(this.spadMem, SRAM_SIZE)) ?? new Uint8Array(SRAM_SIZE);
    // Its pages written once here, as a new array's are zeroed: not at a run's first fills.
    if (!sram) this.sramMemory.fill(0);
    this.mxu = new SeedMxu(this.spadMem, opts.reference);
    this.vpu = new SeedVpu(this.spadMem, opts.argmax ?? true);
    this.dma = new SeedDma(this.spadMem, this.sramMemory);
  }

  /** The scratchpad bytes (64 KiB), as of the TPU's clock. */
  get spad(): Uint8Array {
    this.catchUp();
    return this.spadMem.bytes;
  }

  /** The board's SRAM (the DMA's far side), as of the TPU's clock. */
  get sram(): Uint8Array {
    this.catchUp();
    return this.sramMemory;
  }

  // ================= MMIO at 0x8000_0000 =================

  isRegister(): boolean {
    return true; // the decoder checks a[31:28] only: every offset answers
  }

  read(offset: number, clock: number): number {
    this.lastExtraWait = 0;
    const o = offset & 0xffc;
    if (o >= 0x40 && o < 0x70) return this.statusWord(o, clock);
    this.advance(clock);
    if (o === 0x70) return 8 | (this.unitIdle(SEED_DMA) << 2) | (this.unitIdle(SEED_VPU) << 1) | this.unitIdle(SEED_MXU);
    return 0;
  }

  /**
   * read(), extraWait() and repeatUntil() of one CPU read in one call (SeedBus): the word; its
   * wait clocks in out[0], its promise in out[1]. A unit's status word decoded once, its
   * promise the one its read makes.
   */
  readWithPromise(offset: number, clock: number, out: Float64Array): number {
    const o = offset & 0xffc;
    if (o < 0x40 || o >= 0x70) {
      const v = this.read(o, clock);
      out[0] = this.lastExtraWait;
      out[1] = this.repeatUntil(o);
      return v;
    }
    this.lastExtraWait = 0;
    const v = this.statusWord(o, clock);
    out[0] = 0;
    out[1] = this.reference || this.stuck ? 0 : this.statusUntil[(o - 0x40) >>> 4];
    return v;
  }

  /** A read of unit status word `o` (0x40..0x6c) at `clock`: its value, the unit's promise renewed when it ran out. */
  private statusWord(o: number, clock: number): number {
    const u = (o - 0x40) >>> 4, reg = (o >>> 2) & 3;
    // Before statusUntil nothing the word shows can change: the TPU stays where it is (an
    // access that needs it brings it forward then, through the same clocks).
    if (clock >= this.statusUntil[u]) {
      this.advance(clock);
      this.statusUntil[u] = this.statusPromise(u);
    }
    return reg === 0 ? this.issued[u] : reg === 1 ? this.retired[u] : reg === 2 ? this.qCount[u] : 0;
  }

  write(offset: number, value: number, wstrb: number, clock: number): void {
    this.lastExtraWait = 0;
    // A word store (the usual) as its int32 bits: a uint32 of 2^31 or more handed on is a heap number.
    const v = wstrb === 15 ? value | 0 : laneValue(value, wstrb);
    const o = offset & 0xfff;
    const port = (o & 0xf00) === 0 && o >>> 4 <= 2, word = (o >>> 2) & 3;
    // The staging register is read only by a commit: its stores need not bring the clock forward.
    if (port && word < 3) { this.stage[word] = v; return; }
    if (port) {
      const u = (o >>> 4) & 3;
      // Fast model: a queue with room at the TPU's clock has room at `clock` too (only commits fill
      // it), so the commit lands at `clock` without bringing the TPU there: the clocks up to it are
      // processed at the next access that needs them, and the head is taken from clock + 1 on
      // (frontEdge()), as when they are processed now.
      if (!this.reference && !this.stuck && this.qCount[u] < SEED_QUEUE_DEPTH && this.clk <= clock) { this.enqueue(u, v, clock); return; }
      this.advance(clock);
      this.commit(u, v, clock);
      return;
    }
    this.advance(clock);
    if (o === 0x70 && !this.done) {
      this.done = true;
      this.doneClock = clock;
    }
  }

  /**
   * Fast model: the registers the CPU reads and writes most, moved into `window` (the CPU
   * kernel's device window, whose words are offsets 0..0x7c here), where the CPU's kernel
   * answers them without calling read() or write(), as those would: a word store to word 0, 1
   * or 2 of a command port sets the staging register; the commit store to word 3 pushes the
   * command onto the unit's queue when it has room, as enqueue() does (the queues, their heads
   * and clocks, the front ends' HEAD/RUN, `clk` and quietUntil live in the window too); a read
   * of unit u's issued, retired or level word (or the zero after them) before statusUntil[u]
   * reads it, no wait, with that promise. The window is off while the board is stuck (every
   * access hangs).
   */
  placeRegisters(window: DeviceWindow): void {
    if (this.reference) return;
    const values = window.values, buffer = values.buffer, at = values.byteOffset;
    // window.values: the staging register 0-2, issued 3-5, retired 6-8, the levels 9-11, a zero at 12.
    const place = <T extends Uint32Array | Int32Array>(mine: T, make: new (b: ArrayBufferLike, o: number, n: number) => T, first: number): T => {
      const view = new make(buffer, at + 4 * first, 3);
      view.set(mine);
      return view;
    };
    this.stage = place(this.stage, Uint32Array, 0);
    this.issued = place(this.issued, Uint32Array, 3);
    this.retired = place(this.retired, Uint32Array, 6);
    this.qCount = place(this.qCount, Int32Array, 9);
    values[12] = 0;
    const until = new Float64Array(window.promises.buffer, window.promises.byteOffset, 3);
    until.set(this.statusUntil);
    this.statusUntil = until;
    // The command queues, where the kernel pushes a commit store as write() does (enqueue()).
    if (SEED_QUEUE_DEPTH > WINDOW_QUEUE_DEPTH) throw new Error(`seed TPU: a queue of ${SEED_QUEUE_DEPTH} does not fit the device window's ${WINDOW_QUEUE_DEPTH}`);
    const moveTo = <T extends Int32Array | Float64Array>(mine: T, view: T): T => {
      view.set(mine);
      return view.subarray(0, mine.length) as T;
    };
    this.qWords = moveTo(this.qWords, window.queueWords);
    this.qClock = moveTo(this.qClock, window.queueClocks);
    this.qHead = moveTo(this.qHead, window.heads);
    this.front = moveTo(this.front, window.running);
    this.time = moveTo(this.time, window.time);
    window.queueMask[0] = SEED_QUEUE_DEPTH - 1;
    for (let u = 0; u < 3; u++) {
      // A slot is 1 + the value's index (0: through read() or write()); 128 + u pushes onto queue u.
      for (let w = 0; w < 3; w++) window.storeSlot[4 * u + w] = 1 + w;
      window.storeSlot[4 * u + 3] = 128 + u;
      const status = (regs.SEED_STATUS_BASE >>> 2) + 4 * u;
      for (let reg = 0; reg < 4; reg++) {
        window.readSlot[status + reg] = 1 + (reg < 3 ? 3 + 3 * reg + u : 12);
        window.promiseSlot[status + reg] = u;
      }
    }
    window.control[0] = this.stuck ? 0 : 1;
    this.window = window;
  }

  /** A store to word 0, 1 or 2 of a command port, as write() takes it: into the staging register. */
  stageWord(word: number, value: number, wstrb: number): void {
    this.lastExtraWait = 0;
    this.stage[word] = wstrb === 15 ? value : laneValue(value, wstrb);
  }

  extraWait(): number {
    return this.lastExtraWait;
  }

  /**
   * Right after a CPU read of `offset` (a status word, or the idle bits at 0x70): reads of it before
   * the returned clock give the same value, so a poll loop may be skipped up to it (emu/cpu.ts
   * pollRepeats; the TPU catches up at the next access that is not skipped). The end of the quiet
   * stretch the TPU is in: no front end takes a head or pops before it, so issued, retired, the
   * queue levels and the idle bits hold (issued moves only with the CPU's own stores). 0 (no
   * promise) for the reference model, the command ports, a stuck board, outside a quiet stretch,
   * and beside an MXU that may starve (its hazard's clock must not depend on how often it is polled).
   */
  repeatUntil(offset: number): number {
    const o = offset & 0xffc;
    if (this.reference || this.stuck || o < 0x40 || o > 0x70) return 0;
    // A unit's words: the promise its read just made (statusPromise()).
    if (o < 0x70) return this.statusUntil[(o - 0x40) >>> 4];
    if (this.clk >= this.time[QUIET_UNTIL] && !this.findStretch()) return 0;
    return this.stretchLazy ? this.time[QUIET_UNTIL] : 0;
  }

  /**
   * Fast model, right after a read of one of unit u's words brought the TPU to the read's clock:
   * a lower bound of the first clock at which a read may see unit u's issued, retired or level
   * changed without a commit store to u (which clears the promise). They move only with u's own
   * front end: never while it is idle with an empty queue (Infinity); at this clock's edge when
   * a head waits (no promise: the TPU's clock); else at the running command's DONE, whose edge
   * pops it: at the earliest unitEnd, or the unit's clock plus its horizon() (a lost arbitration
   * only delays it), whatever the other units do meanwhile. No promise (-1) from the reference
   * model, a stuck board, or beside an MXU that may starve (its hazard's clock must not depend
   * on how often it is polled).
   */
  private statusPromise(u: number): number {
    const run = this.runBits;
    if (this.reference || this.stuck || ((run & 1) !== 0 && this.mxu.abMayShareBank)) return -1;
    const c = this.clk;
    if ((run & (1 << u)) === 0) return this.qCount[u] > 0 ? c : Infinity;
    const end = this.unitEnd[u];
    if (end > c) return end;
    this.catchUpUnit(u);
    // (each unit's horizon() at its own call site: one class each)
    return c + (u === SEED_MXU ? this.mxu.horizon() : u === SEED_VPU ? this.vpu.horizon() : this.dma.horizon());
  }

  /** The store to word 3: held (the whole AXI write open) until the queue has room at the start of a clock. */
  private commit(u: number, w3: number, clock: number): void {
    const start = this.clk;
    while (this.qCount[u] >= SEED_QUEUE_DEPTH) {
      if (this.stuck || this.neverDrains(u)) { this.freeze(`the commit store to the full ${SEED_UNITS[u]} queue can never land`); return; }
      // Fast model: the clocks up to the pop as advance() does them, unless an MXU that may
      // starve runs (the hang must be seen at its clock); nothing in them is denied (no stale
      // request for neverDrains).
      if (!this.reference && !(this.front[SEED_MXU] === RUN && this.mxu.abMayShareBank) && (this.skip(Infinity) || this.lightStep())) {
        this.ports.clear();
        continue;
      }
      this.stepClock();
    }
    const at = this.clk; // the clock the commit lands (its edge writes the queue)
    const presented = Math.max(clock, start); // (a TPU already past `clock` takes it at its own clock)
    const stalled = at - presented;
    this.lastExtraWait = stalled;
    if (stalled > 0) {
      this.cStall += this.windowClocks(presented, at);
      this.onCommitStall?.(u, clock, clock + stalled);
    }
    this.enqueue(u, w3, at);
  }

  /** The commit landing at clock `at` (its edge writes the queue; the queue has room). */
  private enqueue(u: number, w3: number, at: number): void {
    const slot = u * SEED_QUEUE_DEPTH + ((this.qHead[u] + this.qCount[u]) & (SEED_QUEUE_DEPTH - 1)); // a power of two
    this.qWords[slot * 4] = this.stage[0];
    this.qWords[slot * 4 + 1] = this.stage[1];
    this.qWords[slot * 4 + 2] = this.stage[2];
    this.qWords[slot * 4 + 3] = w3;
    this.qClock[slot] = at;
    this.qCount[u]++;
    // A command queued behind a running one changes nothing before that one's DONE, which a quiet
    // stretch never reaches (findStretch(): every running unit before its horizon()): the stretch
    // holds, and so does the unit's status promise (a lower bound of that DONE; issued and the
    // level the commit moves are read from here as they are). The same when the TPU is behind
    // `at` (write()) and the running command ends before it: the stretch and the promise end at
    // or before that DONE, and the head is not taken before at + 1.
    if (this.front[u] !== RUN) { this.time[QUIET_UNTIL] = -1; this.statusUntil[u] = -1; }
    this.issued[u] = (this.issued[u] + 1) >>> 0;
  }

  // ================= scratchpad window at 0x9000_0000 =================

  readonly spadWindow: MmioDevice = {
    isRegister: () => true,
    read: (offset, clock) => this.windowAccess(false, offset, 0, clock),
    write: (offset, value, wstrb, clock) => { this.windowAccess(true, offset, laneValue(value, wstrb), clock); },
    extraWait: () => this.lastExtraWait,
  };

  /** A CPU word access presented to the arbiter from `clock` on (lowest priority): retried until granted. */
  private windowAccess(write: boolean, offset: number, data: number, clock: number): number {
    this.advance(clock);
    const start = this.clk;
    this.cpuAddr = offset & 0xfffc;
    this.cpuData = data >>> 0;
    for (;;) {
      if (this.stuck || (!write && this.mxu.starvedBank === ((this.cpuAddr >>> 12) & 15))) {
        this.cpuRd = false; this.cpuWr = false;
        this.freeze(`the window read of bank ${(this.cpuAddr >>> 12) & 15} can never be granted`);
        return 0;
      }
      this.cpuRd = !write; this.cpuWr = write;
      const granted = this.stepClock();
      if (granted) break;
    }
    this.cpuRd = false; this.cpuWr = false;
    this.lastExtraWait = this.clk - 1 - start;
    return this.cpuRdata;
  }

  // ================= run window, time =================

  runPulse(clock: number): void {
    this.advanceTo(clock);
    this.windowStart = clock;
    this.done = false;
    this.doneClock = -1;
    this.busyClocks.fill(0);
    this.cStall = 0;
  }

  /** Processes every clock before `clock`; the units, the scratchpad and the SRAM are then as of that clock. */
  advanceTo(clock: number): void {
    this.advance(clock);
    this.catchUp();
  }

  /** Processes every clock before `clock`, the units possibly behind in a quiet stretch (MMIO accesses). */
  private advance(clock: number): void {
    if (this.stuck) return;
    if (this.reference) {
      while (this.clk < clock) this.stepClock();
      return;
    }
    // The fast model's loop apart: no test of the model per clock.
    while (this.clk < clock) if (!this.skip(clock) && !this.lightStep()) this.stepClock();
  }

  /**
   * A lower bound of the next clock at which a command starts or retires without the CPU (the TPU's
   * clock when one may do so now), or Infinity when every unit is idle and every queue empty.
   */
  nextEventClock(): number {
    this.catchUp();
    let next = Infinity;
    for (let u = 0; u < 3; u++) {
      if (this.front[u] === HEAD) {
        if (this.qCount[u] > 0) return this.clk;
        continue;
      }
      const unit = u === SEED_MXU ? this.mxu : u === SEED_VPU ? this.vpu : this.dma;
      next = Math.min(next, this.clk + unit.horizon()); // a lower bound of its DONE (pop) clock
    }
    return next;
  }

  /** The clock the TPU has processed up to (exclusive). */
  get clock(): number {
    return this.clk;
  }

  unitBusy(u: number): boolean {
    this.catchUp();
    return u === SEED_MXU ? this.mxu.busy : u === SEED_VPU ? this.vpu.busy : this.dma.busy;
  }

  queueLevel(u: number): number {
    return this.qCount[u];
  }

  // ---- unit u's queue as the tools see it (activity.ts): its commands, oldest (the head) first ----

  /** Whether unit u's front end runs its head command (taken, not yet popped). */
  runsHead(u: number): boolean {
    return this.front[u] === RUN;
  }

  /** The clock unit u's running command started (its first busy clock). */
  runStartClock(u: number): number {
    return this.runStart[u];
  }

  /** Commands committed to unit u so far; and retired (popped): the head's serial number. */
  issuedCount(u: number): number {
    return this.issued[u];
  }

  retiredCount(u: number): number {
    return this.retired[u];
  }

  /** The clock the i-th command of unit u's queue landed (its commit's edge), and its opcode. */
  queuedPushClock(u: number, i: number): number {
    return this.qClock[this.queueSlot(u, i)];
  }

  queuedOpcode(u: number, i: number): number {
    return this.qWords[4 * this.queueSlot(u, i)] & 0xff;
  }

  private queueSlot(u: number, i: number): number {
    return u * SEED_QUEUE_DEPTH + ((this.qHead[u] + i) & (SEED_QUEUE_DEPTH - 1));
  }

  counters(): SeedCounters {
    if (this.done) this.advanceTo(this.doneClock + 1);
    this.catchUp();
    const b = this.busyClocks;
    let run = 0, mxu = 0, vpu = 0, dma = 0, ovlap = 0;
    for (let m = 0; m < 8; m++) {
      run += b[m];
      if (m & 1) mxu += b[m];
      if (m & 2) vpu += b[m];
      if (m & 4) dma += b[m];
      if (m === 3 || m >= 5) ovlap += b[m];
    }
    return {
      run: sat(run), mxu: sat(mxu), mload: 0, vpu: sat(vpu), dma: sat(dma), swait: 0, vmm: 0,
      idlec: sat(b[0]), qfull: 0, ovlap: sat(ovlap), trueQfullStall: this.cStall,
    };
  }

  /** True when unit u's queue can never drain: the MXU is starved, and u is the MXU or is denied a read of its bank. */
  private neverDrains(u: number): boolean {
    const bank = this.mxu.starvedBank;
    if (bank < 0) return false;
    if (u === SEED_MXU) return true;
    const p = this.ports, r = u === SEED_VPU ? 3 : 4; // RD_V, RD_DMA: the requests of the last stepped clock
    return p.rdReq[r] === 1 && p.rdGnt[r] === 0 && ((p.rdAddr[r] >>> 12) & 15) === bank;
  }

  private freeze(why: string): void {
    if (!this.stuck) this.hazard(this.clk, 'deadlock', SEED_MXU, `${why}: the MXU is starved (A and B in bank ${this.mxu.starvedBank}); the board hangs here`);
    this.stuck = true;
    // Every access goes through read() and write() now: each one hangs.
    if (this.window) this.window.control[0] = 0;
    this.lastExtraWait = SEED_STUCK_WAIT;
  }

  private unitIdle(u: number): number {
    return this.qCount[u] === 0 && this.front[u] === HEAD ? 1 : 0;
  }

  private inWindow(c: number): boolean {
    return c >= this.windowStart && (!this.done || c <= this.doneClock);
  }

  /** Clocks of [from, to) inside the run window. */
  private windowClocks(from: number, to: number): number {
    const lo = Math.max(from, this.windowStart);
    const hi = this.done ? Math.min(to, this.doneClock + 1) : to;
    return hi > lo ? hi - lo : 0;
  }

  // ================= one clock =================

  /** Steps clock `clk`; returns whether the CPU's window request (if any) was granted. */
  private stepClock(): boolean {
    this.catchUp();
    const c = this.clk;
    const p = this.ports;
    p.clear();
    const mxu = this.mxu, vpu = this.vpu, dma = this.dma;
    mxu.request(p);
    vpu.request(p);
    dma.request(p);
    if (this.cpuRd) { p.rdReq[RD_CPU] = 1; p.rdAddr[RD_CPU] = this.cpuAddr; }
    if (this.cpuWr) { p.wrReq[WR_CPU] = 1; p.wrAddr[WR_CPU] = this.cpuAddr; }
    p.arbitrate();
    if ((p.rdLost | p.wrLost) !== 0) this.conflictClocks++;
    mxu.read(p);
    vpu.read(p);
    dma.read(p);
    let cpuGranted = false;
    if (this.cpuRd && p.rdGnt[RD_CPU]) { this.cpuRdata = this.spadMem.word(this.cpuAddr); cpuGranted = true; }
    if (mxu.starvedBank >= 0 && !this.starveReported) {
      this.starveReported = true;
      this.hazard(c, 'mxu-ab-same-bank', SEED_MXU, `MXU A and B in bank ${mxu.starvedBank}: B is denied for ever, the MXU never finishes (scratchpad.sv warns once)`);
    }
    // perf events: combinational from the state at the start of the clock
    if (this.inWindow(c)) this.count(mxu.busy, vpu.busy, dma.busy, 1);
    const mxuDone = mxu.isDone, vpuDone = vpu.isDone, dmaDone = dma.isDone;
    mxu.edge(p);
    vpu.edge(p);
    dma.edge(p);
    if (this.cpuWr && p.wrGnt[WR_CPU]) { this.spadMem.writeWord(this.cpuAddr, this.cpuData, 15); cpuGranted = true; }
    this.frontEdge(SEED_MXU, mxuDone, c);
    this.frontEdge(SEED_VPU, vpuDone, c);
    this.frontEdge(SEED_DMA, dmaDone, c);
    this.steppedClocks++;
    this.time[QUIET_UNTIL] = -1;
    this.clk = c + 1;
    this.time[CLOCK] = c + 1;
    return cpuGranted;
  }

  private count(mxuBusy: boolean, vpuBusy: boolean, dmaBusy: boolean, n: number): void {
    this.busyClocks[(mxuBusy ? 1 : 0) | (vpuBusy ? 2 : 0) | (dmaBusy ? 4 : 0)] += n;
  }

  /** cmd_*.sv at the edge of clock c: pop on the unit's DONE, or take the head (start, GEOM, discard). */
  private frontEdge(u: number, unitWasDone: boolean, c: number): void {
    if (this.front[u] === RUN) {
      if (unitWasDone) this.retire(u, c);
      return;
    }
    if (this.qCount[u] !== 0) this.takeHead(u, c);
  }

  /** The edge of the running command's DONE clock c: popped, the front end back to its head. */
  private retire(u: number, c: number): void {
    this.front[u] = HEAD;
    this.runBits &= ~(1 << u);
    this.onCommand?.(u, this.runOpcode[u], this.runStart[u], c);
    this.pop(u);
    // A head committed by now is taken at the next clock: the fast model steps it without
    // looking for a quiet stretch there (skip()); stepClock() clears this after.
    if (this.qCount[u] > 0 && this.qClock[u * SEED_QUEUE_DEPTH + this.qHead[u]] <= c) this.time[QUIET_UNTIL] = c + 1;
  }

  /** An idle front end with a queued command at the edge of clock c: takes its head (start, GEOM, discard). */
  private takeHead(u: number, c: number): void {
    const slot = u * SEED_QUEUE_DEPTH + this.qHead[u];
    if (this.qClock[slot] >= c) return; // committed at this clock's edge: at the head from the next clock
    const q = this.qWords, b = slot * 4;
    const w0 = q[b], w1 = q[b + 1], w2 = q[b + 2], w3 = q[b + 3];
    const op = w0 & 0xff;
    if (u === SEED_MXU) {
      if (op === 0x02) { this.mxu.start(w0, w1, w2); this.startUnit(u, op, c); }
      else {
        if (op === 0x01) this.mxu.geom(w0, w1, w2);
        else this.unknownOpcode(u, op, c);
        this.onCommand?.(u, op, c, c);
        this.pop(u);
      }
    } else if (u === SEED_VPU) {
      if (op === 0x01) {
        const vop = (w0 >>> 8) & 31, vlen = w2 & 0x3ff;
        if (!this.vpu.isKnown(vop)) this.hazard(c, 'unknown-vpu-op', u, `VPU op ${vop} is not decoded: src0 is read and dst gets zeros (${(vlen + 7) >>> 3} words)`);
        else if ((vlen & 1) && !this.vpu.isReduction(vop)) this.hazard(c, 'odd-vlen', u, `VPU vlen ${vlen} is odd: the last byte's high nibble is written 0`);
        this.vpu.start(w0, w1, w2);
        this.startUnit(u, op, c);
      } else { this.unknownOpcode(u, op, c); this.onCommand?.(u, op, c, c); this.pop(u); }
    } else if (op === 0x01) {
      this.dma.start(w0, w1, w2, w3);
      this.startUnit(u, op, c);
    } else { this.unknownOpcode(u, op, c); this.onCommand?.(u, op, c, c); this.pop(u); }
  }

  /** The unit's start() latched the head at this edge: the front runs it until its DONE. */
  private startUnit(u: number, op: number, c: number): void {
    this.onCommandStart?.(u, c + 1);
    this.unitEnd[u] = -1;
    this.front[u] = RUN;
    this.runBits |= 1 << u;
    this.runStart[u] = c + 1;
    this.runOpcode[u] = op;
  }

  private pop(u: number): void {
    this.qHead[u] = (this.qHead[u] + 1) & (SEED_QUEUE_DEPTH - 1);
    this.qCount[u]--;
    this.retired[u] = (this.retired[u] + 1) >>> 0;
  }

  private unknownOpcode(u: number, op: number, c: number): void {
    this.hazard(c, 'unknown-opcode', u, `${SEED_UNITS[u]} opcode 0x${op.toString(16).padStart(2, '0')} is unknown: popped and discarded in one clock (counts as retired)`);
  }

  private hazard(clock: number, kind: SeedHazard['kind'], unit: number, text: string): void {
    this.hazardCount++;
    if (this.hazards.length < MAX_HAZARDS) this.hazards.push({ clock, kind, unit, text });
  }

  // ================= fast model: skipping =================

  /**
   * Fast model: steps clock `clk` without the arbiter when the running commands' banks are
   * pairwise disjoint (no request can lose, no unit reads what another writes) and the CPU
   * presents nothing: each running unit does its clock on its own (bulk(1): the clock a command
   * is DONE included), then the front ends' edges (a head taken, a pop), as stepClock() does.
   * The clocks a command starts or ends at, between quiet stretches. False when the clock needs
   * the arbiter.
   */
  private lightStep(): boolean {
    const run = this.runBits;
    const mxu = this.mxu, vpu = this.vpu, dma = this.dma;
    // Banks to compare only with two or more units running (most event clocks have one or none).
    if ((run & (run - 1)) !== 0) {
      const mxuBanks = (run & 1) !== 0 ? mxu.readMask | mxu.writeMask : 0, vpuBanks = (run & 2) !== 0 ? vpu.readMask | vpu.writeMask : 0;
      const dmaBanks = (run & 4) !== 0 ? dma.readMask | dma.writeMask : 0;
      if ((mxuBanks & vpuBanks) | (mxuBanks & dmaBanks) | (vpuBanks & dmaBanks)) return false;
    }
    const c = this.clk;
    // A running unit before its unitEnd is not DONE at this clock and busy: it lags one more clock
    // (an MXU that may starve never lags: its hazard is seen at its clock); the others catch up
    // and do their clock. One unit after another: their banks are their own.
    const end = this.unitEnd;
    let busy = 0, done = 0;
    if ((run & 1) !== 0) {
      if (end[SEED_MXU] > c && !mxu.abMayShareBank) { busy = this.unitBusyBit[SEED_MXU]; this.lagM++; }
      else {
        this.catchUpUnit(SEED_MXU);
        if (mxu.busy) busy = 1;
        if (mxu.isDone) done = 1;
        mxu.bulk(1);
        if (mxu.starvedBank >= 0 && !this.starveReported) {
          this.starveReported = true;
          this.hazard(c, 'mxu-ab-same-bank', SEED_MXU, `MXU A and B in bank ${mxu.starvedBank}: B is denied for ever, the MXU never finishes (scratchpad.sv warns once)`);
        }
      }
    }
    if ((run & 2) !== 0) {
      if (end[SEED_VPU] > c) { busy |= this.unitBusyBit[SEED_VPU] << 1; this.lagV++; }
      else {
        this.catchUpUnit(SEED_VPU);
        if (vpu.busy) busy |= 2;
        if (vpu.isDone) done |= 2;
        vpu.bulk(1);
      }
    }
    if ((run & 4) !== 0) {
      if (end[SEED_DMA] > c) { busy |= this.unitBusyBit[SEED_DMA] << 2; this.lagD++; }
      else {
        this.catchUpUnit(SEED_DMA);
        if (dma.busy) busy |= 4;
        if (dma.isDone) done |= 4;
        dma.bulk(1);
      }
    }
    if (this.inWindow(c)) this.busyClocks[busy] += 1;
    this.time[QUIET_UNTIL] = -1; // (a pop may set it: see retire())
    // Only the front ends with something to do (a running command DONE, or a queued head): most have none.
    const q = this.qCount;
    if ((run & 1) !== 0) { if ((done & 1) !== 0) this.retire(SEED_MXU, c); } else if (q[SEED_MXU] > 0) this.takeHead(SEED_MXU, c);
    if ((run & 2) !== 0) { if ((done & 2) !== 0) this.retire(SEED_VPU, c); } else if (q[SEED_VPU] > 0) this.takeHead(SEED_VPU, c);
    if ((run & 4) !== 0) { if ((done & 4) !== 0) this.retire(SEED_DMA, c); } else if (q[SEED_DMA] > 0) this.takeHead(SEED_DMA, c);
    this.lightClocks++;
    this.clk = c + 1;
    this.time[CLOCK] = c + 1;
    return true;
  }

  /**
   * Skips a stretch of clocks below `target` in which nothing can interact: no front end takes a
   * head, every running unit is before its DONE clock (horizon()) and the running commands' banks
   * are pairwise disjoint, so no arbitration is lost and no unit reads what another writes. Each
   * running unit then advances on its own (bulk()); the busy flags are constant over the stretch.
   * Returns false when the next clock must be stepped through the arbiter.
   */
  private skip(target: number): boolean {
    // A stretch found by the last call stays valid until a clock is stepped or a command committed.
    // One run to its end almost always ends at an event (a head taken, a command DONE): that clock
    // is stepped (lightStep(), exact at any clock) without looking for a stretch there first.
    let until = this.time[QUIET_UNTIL];
    if (this.clk >= until) {
      if (this.clk === until || !this.findStretch()) return false;
      until = this.time[QUIET_UNTIL];
    }
    return this.skipBy(Math.min(target, until) - this.clk);
  }

  /** Sets quietUntil (and the stretch's flags) when a quiet stretch starts at clk; false when clk must be stepped. */
  private findStretch(): boolean {
    let n = Infinity;
    const c = this.clk, end = this.unitEnd, run = this.runBits, q = this.qCount;
    // An idle front end's head is taken at the edge of the clock after its commit's (frontEdge()):
    // up to that clock nothing happens there (a commit landing now ends the stretch at the next).
    for (let u = 0; u < 3; u++) {
      if ((run & (1 << u)) === 0 && q[u] > 0) {
        const taken = this.qClock[u * SEED_QUEUE_DEPTH + this.qHead[u]] + 1;
        if (taken <= c) return false;
        if (taken - c < n) n = taken - c;
      }
    }
    // Each running unit, one by one (each call site sees one class): a lagging unit's bound still
    // ahead holds; otherwise the unit catches up and bounds afresh. Their banks must be disjoint.
    let banks = 0, busy = 0;
    if ((run & 1) !== 0) {
      const mxu = this.mxu;
      if (end[SEED_MXU] <= c) {
        this.catchUpUnit(SEED_MXU);
        const h = mxu.horizon();
        if (h <= 0) return false;
        end[SEED_MXU] = c + h;
        this.unitBusyBit[SEED_MXU] = mxu.busy ? 1 : 0;
      }
      if (end[SEED_MXU] - c < n) n = end[SEED_MXU] - c;
      banks = mxu.readMask | mxu.writeMask;
      busy = this.unitBusyBit[SEED_MXU];
    }
    if ((run & 2) !== 0) {
      const vpu = this.vpu;
      if (end[SEED_VPU] <= c) {
        this.catchUpUnit(SEED_VPU);
        const h = vpu.horizon();
        if (h <= 0) return false;
        end[SEED_VPU] = c + h;
        this.unitBusyBit[SEED_VPU] = vpu.busy ? 1 : 0;
      }
      if (end[SEED_VPU] - c < n) n = end[SEED_VPU] - c;
      const m = vpu.readMask | vpu.writeMask;
      if (banks & m) return false;
      banks |= m;
      busy |= this.unitBusyBit[SEED_VPU] << 1;
    }
    if ((run & 4) !== 0) {
      const dma = this.dma;
      if (end[SEED_DMA] <= c) {
        this.catchUpUnit(SEED_DMA);
        const h = dma.horizon();
        if (h <= 0) return false;
        end[SEED_DMA] = c + h;
        this.unitBusyBit[SEED_DMA] = dma.busy ? 1 : 0;
      }
      if (end[SEED_DMA] - c < n) n = end[SEED_DMA] - c;
      if (banks & (dma.readMask | dma.writeMask)) return false;
      busy |= this.unitBusyBit[SEED_DMA] << 2;
    }
    this.time[QUIET_UNTIL] = c + n; // Infinity with every unit idle: nothing happens until the CPU acts
    this.stretchBusy = busy;
    this.stretchRun = run;
    this.stretchParallel = (run & (run - 1)) !== 0;
    this.stretchLazy = !((run & 1) !== 0 && this.mxu.abMayShareBank);
    return true;
  }

  /**
   * Advances every running unit n clocks on its own (the stretch is quiet: see skip()): deferred to
   * catchUp() (their busy flags are constant over the stretch), except for an MXU whose A and B may
   * share a bank, whose starvation must be seen at its clock.
   */
  private skipBy(n: number): boolean {
    if (this.stretchParallel) this.parallelSkips++;
    this.skippedClocks += n;
    const from = this.clk;
    // Clipped to the run window only when the stretch is not all inside it.
    if (from >= this.windowStart && (!this.done || from + n <= this.doneClock + 1)) this.busyClocks[this.stretchBusy] += n;
    else {
      const k = this.windowClocks(from, from + n);
      if (k > 0) this.busyClocks[this.stretchBusy] += k;
    }
    const run = this.stretchRun;
    if ((run & 1) !== 0) this.lagM += n;
    if ((run & 2) !== 0) this.lagV += n;
    if ((run & 4) !== 0) this.lagD += n;
    if (!this.stretchLazy) this.catchUp();
    this.clk += n;
    this.time[CLOCK] = this.clk;
    return true;
  }

  /** Fast model: the running units do the clocks they are behind (skipBy(), lightStep()) in one bulk step each. */
  private catchUp(): void {
    if (this.lagM + this.lagV + this.lagD === 0) return;
    this.catchUpUnit(SEED_MXU);
    this.catchUpUnit(SEED_VPU);
    this.catchUpUnit(SEED_DMA);
    if (this.mxu.starvedBank >= 0 && !this.starveReported) {
      this.starveReported = true;
      // At the clock the reference model sees it: the starving clock within the stretch.
      this.hazard(this.clk + Math.max(0, this.mxu.starvedAfter), 'mxu-ab-same-bank', SEED_MXU, `MXU A and B in bank ${this.mxu.starvedBank}: B is denied for ever, the MXU never finishes (scratchpad.sv warns once)`);
    }
  }
  /** Fast model: unit u does the clocks it is behind in one bulk step (its banks were its own in them). */
  private catchUpUnit(u: number): void {
    if (u === SEED_MXU) { const n = this.lagM; if (n !== 0) { this.lagM = 0; this.mxu.bulk(n); } }
    else if (u === SEED_VPU) { const n = this.lagV; if (n !== 0) { this.lagV = 0; this.vpu.bulk(n); } }
    else { const n = this.lagD; if (n !== 0) { this.lagD = 0; this.dma.bulk(n); } }
  }

}

function sat(v: number): number {
  return v > SAT ? SAT : v;
}

/** PicoRV32's mem_wdata for a store: a byte or half store repeats its value in every lane, and the seed's slaves ignore wstrb. */
export function laneValue(value: number, wstrb: number): number {
  switch (wstrb) {
    case 0x1: case 0x2: case 0x4: case 0x8: {
      const lane = wstrb === 1 ? 0 : wstrb === 2 ? 1 : wstrb === 4 ? 2 : 3;
      const b = (value >>> (8 * lane)) & 0xff;
      return (b * 0x01010101) >>> 0;
    }
    case 0x3: case 0xc: {
      const h = (value >>> (wstrb === 3 ? 0 : 16)) & 0xffff;
      return (h * 0x10001) >>> 0;
    }
    default:
      return value >>> 0;
  }
}

