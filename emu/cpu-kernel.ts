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

/**
 * Where the kernel's arrays are in its memory, for a BRAM of `ram` bytes at 0: the slots'
 * fields and immediates (int32 a slot, room for halfword slots), the registers (32 int32), the
 * state a run returns (6 f64: CpuKernel.state), a load's word and flags (2 int32), and the
 * per-slot bytes of the seed configuration (dataAt, lens).
 */
function layout(ram: number) {
  const slots = ram >>> 1;
  const fieldsAt = ram, immsAt = fieldsAt + 4 * slots, regsAt = immsAt + 4 * slots;
  const stateAt = regsAt + 128, ioAt = stateAt + 48, dataAtAt = ioAt + 16, lensAt = dataAtAt + slots;
  return { slots, fieldsAt, immsAt, regsAt, stateAt, ioAt, dataAtAt, lensAt, bytes: lensAt + slots };
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
 * runSeed's reads of a device (addr as an int32, the data handshake's clock): the wait clocks
 * (with Bus.readExtra), the word and flags in CpuKernel.io (1: a promise to repeat past the poll
 * window, 2: the machine must look up); -1 for a bus error or a restart.
 */
export type DeviceLoad = (addr: number, clock: number) => number;

/**
 * Cpu.pollRepeats for a read with a promise (pc, addr, value, its clock, the next launch, the
 * retired count after it) and the instret of the kernel run's last store (-1: none): the
 * iterations to skip, their clocks and instructions in CpuKernel.state[4] and [5].
 */
export type PollRepeats = (pc: number, addr: number, value: number, readClock: number, launch: number, retired: number, lastStore: number) => number;

/** What the kernel calls back: the bus's device accesses and the poll-loop skip. */
export interface KernelImports { store: DeviceStore; load: DeviceLoad; poll: PollRepeats }

/**
 * A loop's fast path: runs from `pc` at clock `cycle` (instret retired so far) until the clock
 * reaches cycleLimit, instret reaches stopAt, or an instruction the loop must run; returns the pc
 * (as an int32), with the clock and the rest in CpuKernel.state. stale: the stale word's slot
 * (-1: none); barrel: 1 with BARREL_SHIFTER.
 */
export type KernelRun = (pc: number, cycle: number, instret: number, cycleLimit: number, stopAt: number, stale: number, barrel: number) => number;

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
   * After a run: clock, instret, instret of the last store (-1: none), and what the loop must
   * finish of the instruction at pc (the loop sets it back to 0): 1 a device store the bus
   * answered with more than a wait, 2 a device read after which the machine must look up (its
   * register written), 3 a device read the bus refused (a bus error or restart). Then, for
   * the poll callback to fill, a skipped iteration's clocks and instructions.
   */
  readonly state: Float64Array;
  /** A device read's word and flags (DeviceLoad). */
  readonly io: Int32Array;
}

/**
 * The kernel for a BRAM made by cpuRam() and `slots` instruction slots, or null (a plain BRAM,
 * or no WebAssembly). storeAt: clocks from a store's launch to its data handshake on the native
 * interface; calls: the Cpu's callbacks.
 */
export function cpuKernel(bram: Uint8Array, slots: number, storeAt: number, calls: KernelImports): CpuKernel | null {
  const memory = memoryOf.get(bram.buffer as ArrayBuffer);
  const mod = kernelModule();
  if (memory === undefined || mod === null || bram.byteOffset !== 0) return null;
  const ram = bram.length;
  const at = layout(ram);
  if (slots > at.slots) return null;
  const instance = new wasm!.Instance(mod, {
    cpu: {
      memory, ram, fieldsAt: at.fieldsAt, immsAt: at.immsAt, regsAt: at.regsAt, dataAtAt: at.dataAtAt, lensAt: at.lensAt,
      takenBranchExtra: TAKEN_BRANCH_EXTRA, axiExtra: AXI_TRANSACTION_EXTRA, straddleTarget: STRADDLE_EXTRA + AXI_TRANSACTION_EXTRA + AXI_CHAINED_EXTRA,
      refetchPerWord: AXI_REFETCH_PER_WORD, storeAt, ioAt: at.ioAt, store: calls.store, load: calls.load, poll: calls.poll,
    },
  });
  const buffer = memory.buffer;
  const exports = instance.exports as { runWords: KernelRun; runSeed: KernelRun };
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
    state: new Float64Array(buffer, at.stateAt, 6),
    io: new Int32Array(buffer, at.ioAt, 2),
  };
}
