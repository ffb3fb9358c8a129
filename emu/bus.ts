// What the CPU reaches besides its firmware RAM: the base of every board's
// bus (emu/board.ts). The firmware RAM is accessed by the CPU directly; every
// other access goes through the board's bus, which says how many wait clocks
// it took (so the CPU's timing comes from the bus, never from an address it
// knows), whether no device answered (a bus error), and whether the machine
// must stop or look up. The console is every bus's (a board without one
// never maps it).

import type { BusTiming } from './config.ts';
import { Console } from './console.ts';
import type { MmioDevice, SramSharer } from '../periph/mmio.ts';
import { doubleFields } from '../periph/double-fields.ts';
import { cpuRam } from './cpu-kernel.ts';

export type { MmioDevice, SramSharer };

export abstract class Bus {
  /** Clock-valued fields are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['wait', 'repeatUntil']);
  /**
   * The firmware RAM at 0 (the board's size; the CPU reads and writes it directly), in the
   * memory of the CPU's WebAssembly fast path (cpu-kernel.ts).
   */
  readonly bram: Uint8Array;
  readonly console: Console;
  /** Set by a device that must stop the machine (a TPU error under --strict, a deadlock). */
  deviceHalt = false;
  /** Set by a device that wants the CPU to return to the machine's loop after this instruction. */
  yieldCpu = false;

  /** Wait clocks of the last read()/write(). */
  wait = 0;
  /**
   * Clocks a read adds after its wait that a halt does not wait for (the CPU
   * adds them to the instruction, not to a stop's clock): set by a board whose
   * slave answers some reads a clock late (transformer-tpu-int4's scratchpad
   * window), else always 0.
   */
  readExtra = 0;
  /** Set when the last read()/write() hit no device. */
  fault = false;
  /**
   * Set with `fault` when the access must not happen yet: it needs what
   * another board has not computed (boards/picotpu/link-bus.ts). The CPU then restarts
   * the instruction later (StopReason.BLOCKED). Never set on one board.
   */
  restart = false;
  /**
   * After a read(): the device's promise that the same read repeats unchanged
   * before this clock (MmioDevice.repeatUntil), 0 for none. Only TPU unit
   * registers give one: a firmware polling DONE is a loop the CPU can skip.
   */
  repeatUntil = 0;

  constructor(protected readonly timing: BusTiming, ramSize: number) {
    this.bram = cpuRam(ramSize);
    this.console = new Console();
  }

  /** Reads the aligned word at `addr` (PicoRV32 reads whole words): sets wait, fault (no device there), readExtra, repeatUntil. */
  abstract read(addr: number, clock: number): number;

  /** Writes the byte lanes of `wstrb` of the aligned word at `addr`: sets wait and fault. */
  abstract write(addr: number, value: number, wstrb: number, clock: number): void;

  /** The CPU must look up after its current instruction: a halt, or a device asked it to yield. */
  get attention(): boolean {
    return this.yieldCpu || this.halted;
  }

  /** True when the guest has written EXIT or a device stopped the machine. */
  get halted(): boolean {
    return this.console.exitCode !== null || this.deviceHalt;
  }
}
