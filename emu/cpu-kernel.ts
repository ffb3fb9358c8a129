// The CPU's plain instructions in WebAssembly (emu/cpu-kernel.wat, compiled
// into cpu-kernel.wasm.ts by npm run gen:wasm): the fast path of the default
// board's CPU loop (Cpu.runWords). The kernel reads the BRAM, the predecoded
// slots and the registers in place, so they live in its memory: every bus
// makes its BRAM with cpuRam(), at address 0 of a memory laid out for the
// kernel, and a Cpu on word slots takes the kernel and its views with
// cpuKernel(). Where WebAssembly is unavailable the BRAM is a plain array and
// runWords runs every instruction itself, with the same results.

import { moduleOnce, wasm, type WasmMemory } from '../periph/wasm-module.ts';
import { CPU_KERNEL_WASM_BASE64 } from './cpu-kernel.wasm.ts';
import { TAKEN_BRANCH_EXTRA } from './timing.ts';

/** Bytes of the registers and of the state run() returns, after the slots (cpu-kernel.wat). */
const REGS_BYTES = 128;
const STATE_BYTES = 32;
const PAGE = 65536;

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
  const pages = Math.ceil((3 * ramSize + REGS_BYTES + STATE_BYTES) / PAGE);
  // A fixed size: the memory never grows, so views of it stay valid.
  const memory = new wasm!.Memory({ initial: pages, maximum: pages });
  memoryOf.set(memory.buffer, memory);
  return new Uint8Array(memory.buffer, 0, ramSize);
}

/**
 * A store to a device (addr as an int32, wdata, wstrb, the data handshake's clock): the bus's
 * wait clocks, or -1 when the CPU loop must finish the instruction (Cpu.runWords).
 */
export type DeviceStore = (addr: number, wdata: number, wstrb: number, clock: number) => number;

/** One kernel instance and its views of the memory it shares with the Cpu. */
export interface CpuKernel {
  /**
   * Runs from `pc` at clock `cycle` (instret retired so far) until the clock
   * reaches cycleLimit, instret reaches stopAt, or an instruction the caller
   * must run; returns the pc (as an int32), with the clock and the rest in
   * `state`. stale: the stale word's
   * slot (-1: none); barrel: 1 with BARREL_SHIFTER.
   */
  run(pc: number, cycle: number, instret: number, cycleLimit: number, stopAt: number, stale: number, barrel: number): number;
  /** The slots' fields and immediates, one int32 per BRAM word. */
  readonly fields: Int32Array;
  readonly imms: Int32Array;
  /** x0-x31. */
  readonly regs: Int32Array;
  /**
   * After run(): clock, instret, instret of the last store (-1: none), and 1 when the
   * instruction at pc is a device store the kernel made whose end the loop must run (the
   * loop sets it back to 0).
   */
  readonly state: Float64Array;
}

/** The kernel for a BRAM made by cpuRam(), or null (a plain BRAM, or no WebAssembly). */
export function cpuKernel(bram: Uint8Array, storeAt: number, store: DeviceStore): CpuKernel | null {
  const memory = memoryOf.get(bram.buffer as ArrayBuffer);
  const mod = kernelModule();
  if (memory === undefined || mod === null || bram.byteOffset !== 0) return null;
  const ram = bram.length;
  const instance = new wasm!.Instance(mod, { cpu: { memory, ram, takenBranchExtra: TAKEN_BRANCH_EXTRA, storeAt, store } });
  const buffer = memory.buffer;
  return {
    // The export copied into an object of our own: the instance's exports object has no
    // prototype, and V8 would look the function up in its dictionary at every call.
    run: (instance.exports as { run: CpuKernel['run'] }).run,
    fields: new Int32Array(buffer, ram, ram >>> 2),
    imms: new Int32Array(buffer, 2 * ram, ram >>> 2),
    regs: new Int32Array(buffer, 3 * ram, 32),
    state: new Float64Array(buffer, 3 * ram + REGS_BYTES, STATE_BYTES / 8),
  };
}
