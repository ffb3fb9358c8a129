// The CPU's plain instructions in WebAssembly (emu/cpu-kernel.wat, compiled
// into cpu-kernel.wasm.ts by npm run gen:wasm): the fast paths of the CPU's
// two loops of their own (Cpu.runWords on picotpu's configuration, Cpu.runSeed
// on transformer-tpu-int4's). The kernel reads the BRAM, the predecoded slots
// and the registers in place, so they live in its memory: every bus makes its
// BRAM with cpuRam(), at address 0 of a memory laid out for the kernel, and a
// Cpu takes the kernel and its views with cpuKernel(). Where WebAssembly is
// unavailable the BRAM is a plain array and the loops run every instruction
// themselves, with the same results.

import { moduleOnce, wasm, type WasmMemory } from '../periph/wasm-module.ts';
import { CPU_KERNEL_WASM_BASE64 } from './cpu-kernel.wasm.ts';
import { AXI_CHAINED_EXTRA, AXI_REFETCH_PER_WORD, AXI_TRANSACTION_EXTRA, STRADDLE_EXTRA, TAKEN_BRANCH_EXTRA } from './timing.ts';

const PAGE = 65536;

/** Reads of a device the poll-loop skip remembers (Cpu.pollRepeats), a power of two. */
export const POLL_HISTORY = 4;
/** Words from a device window's base (DeviceWindow). */
export const WINDOW_WORDS = 32;
const WINDOW_VALUES = 16, WINDOW_PROMISES = 8;
/** A device window's command queues (DeviceWindow.queues): at most this many, each at most this deep. */
export const WINDOW_QUEUES = 4, WINDOW_QUEUE_DEPTH = 8;

/**
 * Where the kernel's arrays are in its memory, for a BRAM of `ram` (R) bytes at 0 and slots of
 * 4 (`words`) or 2 bytes: the slots' fields and immediates (int32 a slot) and the registers (32
 * int32), then the state a run returns (8 f64: CpuKernel.state); and, at the same place for
 * either slot size (the device window is laid out before the CPU is made), a device read's
 * answer (CpuKernel.io), the device window (DeviceWindow), the poll history (PollHistory) and
 * the per-slot bytes of the seed configuration (dataAt, lens). cpu-kernel.wat reads them at
 * these offsets; the first three it computes from R (fields at R, immediates at 2R and the
 * registers at 3R with word slots, at 3R and 5R with halfword slots): three imported offsets
 * held through the loop made runWords about a sixth slower, and so did the halfword layout
 * for word slots.
 */
function layout(ram: number, words = false) {
  const slots = ram >>> (words ? 2 : 1);
  const fieldsAt = ram, immsAt = fieldsAt + 4 * slots, regsAt = immsAt + 4 * slots;
  const stateAt = regsAt + 128;
  // The rest after the halfword layout's state.
  const ioAt = 5 * ram + 128 + 64;
  // The window: control (2 int32), promises (f64), values (int32), then a byte per word for each of
  // readSlot, promiseSlot and storeSlot; then its queues: the device's clock and the value a push
  // clears (2 f64), the commands' clocks (f64) and words (4 int32 each), then per queue its head
  // and whether its unit runs (int32), and the depth's mask (int32).
  const windowAt = ioAt + 24, promisesAt = windowAt + 8, valuesAt = promisesAt + 8 * WINDOW_PROMISES;
  const slotsAt = valuesAt + 4 * WINDOW_VALUES;
  const queueSlots = WINDOW_QUEUES * WINDOW_QUEUE_DEPTH;
  const timeAt = slotsAt + 3 * WINDOW_WORDS, queueClocksAt = timeAt + 16, queueWordsAt = queueClocksAt + 8 * queueSlots;
  const headsAt = queueWordsAt + 16 * queueSlots, runningAt = headsAt + 4 * WINDOW_QUEUES, maskAt = runningAt + 4 * WINDOW_QUEUES;
  // The poll history: next and count (2 int32), then f64 arrays of POLL_HISTORY (addrs, values,
  // waits, promises, launches, retireds), pcs (int32) and the registers after each read (32 int32).
  const pollAt = maskAt + 8, pollF64At = pollAt + 8;
  const pollPcsAt = pollF64At + 6 * 8 * POLL_HISTORY, pollRegsAt = pollPcsAt + 4 * POLL_HISTORY;
  const dataAtAt = pollRegsAt + 128 * POLL_HISTORY, lensAt = dataAtAt + (ram >>> 1);
  return {
    slots, fieldsAt, immsAt, regsAt, stateAt, ioAt, windowAt, promisesAt, valuesAt, slotsAt,
    timeAt, queueClocksAt, queueWordsAt, headsAt, runningAt, maskAt, pollAt, pollF64At, pollPcsAt, pollRegsAt, dataAtAt, lensAt, bytes: lensAt + (ram >>> 1),
  };
}

/** The compiled module, or null where WebAssembly is unavailable. */
const kernelModule = moduleOnce(CPU_KERNEL_WASM_BASE64);

/** The memory each cpuRam() BRAM lives in, by its buffer. */
const memoryOf = new WeakMap<ArrayBuffer, WasmMemory>();

/**
 * A zeroed BRAM of `ramSize` bytes (a power of two) at address 0 of a memory
 * with room after it for the kernel's slots and registers; a plain array where
 * WebAssembly is unavailable.
 */
export function cpuRam(ramSize: number): Uint8Array {
  if (kernelModule() === null) return new Uint8Array(ramSize);
  const pages = Math.ceil(layout(ramSize).bytes / PAGE);
  // A fixed size: the memory never grows, so views of it stay valid.
  const memory = new wasm!.Memory({ initial: pages, maximum: pages });
  memoryOf.set(memory.buffer, memory);
  return new Uint8Array(memory.buffer, 0, ramSize);
}

/**
 * A store to a device (addr, wdata, wstrb as int32, the data handshake's clock): the bus's wait
 * clocks, or -1 when the CPU loop must finish the instruction (a bus error, a restart, or the
 * machine must look up).
 */
export type DeviceStore = (addr: number, wdata: number, wstrb: number, clock: number) => number;

/**
 * runSeed's reads of a device (addr as an int32, the data handshake's clock): the clocks the
 * read adds (Bus.wait + Bus.readExtra), with the word, whether the machine must look up,
 * Bus.wait and Bus.repeatUntil in CpuKernel.io; -1 for a bus error or a restart.
 */
export type DeviceLoad = (addr: number, clock: number) => number;

/** What the kernel calls back: the bus's device accesses. */
export interface KernelImports { store: DeviceStore; load: DeviceLoad }

/**
 * A loop's fast path: runs from `pc` at clock `cycle` (instret retired so far) until the clock
 * reaches cycleLimit, instret reaches stopAt, or an instruction the loop must run; returns the pc
 * (as an int32), with the clock and the rest in CpuKernel.state. stale: the stale word's slot
 * (-1: none); barrel: 1 with BARREL_SHIFTER.
 */
export type KernelRun = (pc: number, cycle: number, instret: number, cycleLimit: number, stopAt: number, stale: number, barrel: number) => number;

/**
 * A device's registers that runSeed's kernel reads and writes itself, without a call into the
 * bus, in the memory the BRAM lives in (deviceWindow()). The device keeps those registers'
 * state in `values` and `promises`, and says per word of the window (WINDOW_WORDS words from
 * control[1]) what an access does:
 * - a load of a word whose readSlot is s > 0, at a clock before promises[promiseSlot], reads
 *   values[s - 1] with no wait and that promise (Bus.repeatUntil): the device promises the
 *   word holds till then, and that such a read changes nothing;
 * - a word store (all four lanes) to a word whose storeSlot is s in 1..127 sets values[s - 1] with
 *   no wait, and changes nothing else;
 * - a word store to a word whose storeSlot is 128 + q pushes a command onto queue q when the
 *   queue has room (values[9 + q], its level, below its depth): values[0..2] and the stored word
 *   as the command's four words, landing at the store's clock or the device's clock (time[0]),
 *   whichever is later, with no wait; the queue's level and its issued count (values[3 + q])
 *   go up by one, and when its unit is not running (running[q] 0) the push clears promises[q]
 *   and time[1] to -1. A full queue's push goes through the bus.
 * Any other access goes through the bus, as do all of them while control[0] is 0. The bus
 * must answer those accesses the same way (test/cpu-kernel.test.ts runs both).
 */
export interface DeviceWindow {
  /** [0]: 1 while the window answers; [1]: its base address (an int32). */
  readonly control: Int32Array;
  readonly values: Int32Array;
  readonly promises: Float64Array;
  readonly readSlot: Uint8Array;
  readonly promiseSlot: Uint8Array;
  readonly storeSlot: Uint8Array;
  /** [0]: the device's clock (a push lands no earlier); [1]: a value a push to an idle queue clears to -1. */
  readonly time: Float64Array;
  /** Queue q's commands: slot q * depth + i holds its clock here and its four words at 4 × slot in queueWords. */
  readonly queueClocks: Float64Array;
  readonly queueWords: Int32Array;
  /** Per queue: the slot of its oldest command, and 1 while its unit runs one. */
  readonly heads: Int32Array;
  readonly running: Int32Array;
  /** [0]: the queues' depth less one (a power of two, at most WINDOW_QUEUE_DEPTH). */
  readonly queueMask: Int32Array;
}

/**
 * The device window of the kernel memory `bram` lives in (cpuRam()), or one of plain arrays
 * where there is no kernel memory (nothing reads it then but its device). Off at first.
 */
export function deviceWindow(bram: Uint8Array): DeviceWindow {
  const memory = memoryOf.get(bram.buffer as ArrayBuffer);
  if (memory === undefined) {
    const slots = WINDOW_QUEUES * WINDOW_QUEUE_DEPTH;
    return {
      control: new Int32Array(2), values: new Int32Array(WINDOW_VALUES), promises: new Float64Array(WINDOW_PROMISES),
      readSlot: new Uint8Array(WINDOW_WORDS), promiseSlot: new Uint8Array(WINDOW_WORDS), storeSlot: new Uint8Array(WINDOW_WORDS),
      time: new Float64Array(2), queueClocks: new Float64Array(slots), queueWords: new Int32Array(4 * slots),
      heads: new Int32Array(WINDOW_QUEUES), running: new Int32Array(WINDOW_QUEUES), queueMask: new Int32Array(1),
    };
  }
  const at = layout(bram.length), buffer = memory.buffer, slots = WINDOW_QUEUES * WINDOW_QUEUE_DEPTH;
  return {
    control: new Int32Array(buffer, at.windowAt, 2),
    values: new Int32Array(buffer, at.valuesAt, WINDOW_VALUES),
    promises: new Float64Array(buffer, at.promisesAt, WINDOW_PROMISES),
    readSlot: new Uint8Array(buffer, at.slotsAt, WINDOW_WORDS),
    promiseSlot: new Uint8Array(buffer, at.slotsAt + WINDOW_WORDS, WINDOW_WORDS),
    storeSlot: new Uint8Array(buffer, at.slotsAt + 2 * WINDOW_WORDS, WINDOW_WORDS),
    time: new Float64Array(buffer, at.timeAt, 2),
    queueClocks: new Float64Array(buffer, at.queueClocksAt, slots),
    queueWords: new Int32Array(buffer, at.queueWordsAt, 4 * slots),
    heads: new Int32Array(buffer, at.headsAt, WINDOW_QUEUES),
    running: new Int32Array(buffer, at.runningAt, WINDOW_QUEUES),
    queueMask: new Int32Array(buffer, at.maskAt, 1),
  };
}

/**
 * The device reads Cpu.pollRepeats remembers, the latest at slot (index[0] - 1) & (POLL_HISTORY - 1),
 * index[1] of them: each one's pc, address, value, wait, promise, the launch after it, the
 * retired count after it and the registers after it (32 a read).
 */
export interface PollHistory {
  readonly index: Int32Array;
  readonly pcs: Int32Array;
  readonly addrs: Float64Array;
  readonly values: Float64Array;
  readonly waits: Float64Array;
  readonly promises: Float64Array;
  readonly launches: Float64Array;
  readonly retireds: Float64Array;
  readonly regs: Int32Array;
}

/** A poll history of plain arrays (a Cpu without the kernel). */
export function pollHistory(): PollHistory {
  const f64 = () => new Float64Array(POLL_HISTORY);
  return {
    index: new Int32Array(2), pcs: new Int32Array(POLL_HISTORY), addrs: f64(), values: f64(), waits: f64(),
    promises: f64(), launches: f64(), retireds: f64(), regs: new Int32Array(32 * POLL_HISTORY),
  };
}

/** One kernel instance and its views of the memory it shares with the Cpu. */
export interface CpuKernel {
  /** Cpu.runWords' fast path (word slots, the native interface). */
  readonly runWords: KernelRun;
  /** Cpu.runSeed's fast path (halfword slots with RV32C, AXI-Lite). */
  readonly runSeed: KernelRun;
  /** The slots' fields and immediates (`slots` of each: a BRAM word's or halfword's). */
  readonly fields: Int32Array;
  readonly imms: Int32Array;
  /** The seed configuration's per-slot clocks to a data access and lengths (Cpu.dataAt, Cpu.lens). */
  readonly dataAt: Uint8Array;
  readonly lens: Uint8Array;
  /** x0-x31. */
  readonly regs: Int32Array;
  /**
   * Clock, instret, instret of the last effect (a store or a device access without a promise;
   * -1: none), and what the loop must finish of the instruction at pc (the loop sets it back to
   * 0): 1 a device store the bus answered with more than a wait, 2 a device read after which
   * the machine must look up (its register written), 3 a device read the bus refused (a bus
   * error or restart). Then a skipped poll-loop iteration's clocks and instructions (the
   * kernel's Cpu.pollRepeats); then, set by the loop before a run, Cpu.lastEffect.
   */
  readonly state: Float64Array;
  /** A device read's answer (DeviceLoad): the word, 1 when the machine must look up, Bus.wait (int32), Bus.repeatUntil (f64 at [4..5]). */
  readonly io: Int32Array;
  readonly ioPromise: Float64Array;
  readonly pollHistory: PollHistory;
}

/**
 * The kernel for a BRAM made by cpuRam() and `slots` instruction slots, or null (a plain BRAM,
 * or no WebAssembly). storeAt: clocks from a store's launch to its data handshake on the native
 * interface; pollWindow: the clocks a read's promise must reach past it to be a poll-loop
 * candidate (cpu.ts SEED_POLL_WINDOW); calls: the Cpu's callbacks.
 */
export function cpuKernel(bram: Uint8Array, slots: number, storeAt: number, pollWindow: number, calls: KernelImports): CpuKernel | null {
  const memory = memoryOf.get(bram.buffer as ArrayBuffer);
  const mod = kernelModule();
  if (memory === undefined || mod === null || bram.byteOffset !== 0) return null;
  const ram = bram.length;
  const words = slots === ram >>> 2;
  const at = layout(ram, words);
  if (slots > at.slots) return null;
  // cpu-kernel.wat derives these from R, and reads the device window's queues at fixed offsets ($push).
  if (at.immsAt !== (words ? 2 : 3) * ram || at.regsAt !== (words ? 3 : 5) * ram || at.timeAt - at.windowAt !== 232 || at.maskAt - at.windowAt !== 1048) {
    throw new Error('cpu-kernel: layout() and cpu-kernel.wat disagree');
  }
  const instance = new wasm!.Instance(mod, {
    cpu: {
      memory, ram, dataAtAt: at.dataAtAt, lensAt: at.lensAt,
      takenBranchExtra: TAKEN_BRANCH_EXTRA, axiExtra: AXI_TRANSACTION_EXTRA, straddleTarget: STRADDLE_EXTRA + AXI_TRANSACTION_EXTRA + AXI_CHAINED_EXTRA,
      refetchPerWord: AXI_REFETCH_PER_WORD, storeAt, ioAt: at.ioAt, windowAt: at.windowAt, pollAt: at.pollAt, pollWindow,
      store: calls.store, load: calls.load,
    },
  });
  const buffer = memory.buffer;
  const exports = instance.exports as { runWords: KernelRun; runSeed: KernelRun };
  const f64 = (i: number) => new Float64Array(buffer, at.pollF64At + 8 * POLL_HISTORY * i, POLL_HISTORY);
  return {
    // The exports copied into an object of our own: the instance's exports object has no
    // prototype, and V8 would look a function up in its dictionary at every call.
    runWords: exports.runWords,
    runSeed: exports.runSeed,
    fields: new Int32Array(buffer, at.fieldsAt, slots),
    imms: new Int32Array(buffer, at.immsAt, slots),
    dataAt: new Uint8Array(buffer, at.dataAtAt, slots),
    lens: new Uint8Array(buffer, at.lensAt, slots),
    regs: new Int32Array(buffer, at.regsAt, 32),
    state: new Float64Array(buffer, at.stateAt, 8),
    io: new Int32Array(buffer, at.ioAt, 4),
    ioPromise: new Float64Array(buffer, at.ioAt + 16, 1),
    pollHistory: {
      index: new Int32Array(buffer, at.pollAt, 2), pcs: new Int32Array(buffer, at.pollPcsAt, POLL_HISTORY),
      addrs: f64(0), values: f64(1), waits: f64(2), promises: f64(3), launches: f64(4), retireds: f64(5),
      regs: new Int32Array(buffer, at.pollRegsAt, 32 * POLL_HISTORY),
    },
  };
}
