// The memory map of PLATFORM.md §3. The program BRAM is accessed by the CPU
// directly (it is on the core's own look-ahead port and costs no wait clocks);
// everything else goes through this bus, which adds the AXI wait clocks of the
// target and reports accesses to unmapped addresses as bus errors.

import type { BusTiming } from './config.ts';
import { Console, CONSOLE_BASE, CONSOLE_SIZE } from './console.ts';
import { Sram, SRAM_BASE, SRAM_SIZE } from '../periph/sram.ts';
import type { MmioDevice, SramSharer } from '../periph/mmio.ts';

export type { MmioDevice, SramSharer };

export const BRAM_BASE = 0x0000_0000;
export const BRAM_SIZE = 64 * 1024;
export const TPU_BASE = 0x2000_0000;
export const TPU_SIZE = 0x1000;

export class Bus {
  /** The firmware RAM at 0 (the board's size; the CPU reads and writes it directly). */
  readonly bram: Uint8Array;
  readonly sram: Sram;
  readonly console: Console;
  tpu: MmioDevice | null = null;
  sramSharer: SramSharer | null = null;
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
   * another board has not computed (emu/link-bus.ts). The CPU then restarts
   * the instruction later (StopReason.BLOCKED). Never set on one board.
   */
  restart = false;
  /**
   * After a read(): the device's promise that the same read repeats unchanged
   * before this clock (MmioDevice.repeatUntil), 0 for none. Only TPU unit
   * registers give one: a firmware polling DONE is a loop the CPU can skip.
   */
  repeatUntil = 0;

  constructor(protected readonly timing: BusTiming, ramSize = BRAM_SIZE) {
    this.bram = new Uint8Array(ramSize);
    this.sram = new Sram(timing);
    this.console = new Console();
  }

  /** Reads the aligned word at `addr` (PicoRV32 reads whole words). */
  read(addr: number, clock: number): number {
    this.fault = false;
    this.repeatUntil = 0;
    const sramOff = addr - SRAM_BASE;
    if (sramOff >= 0 && sramOff < SRAM_SIZE) {
      const busClocks = this.sram.cpuReadBusClocks();
      this.sramSharer?.cpuSramAccess(clock, busClocks);
      this.wait = this.sram.bridgeWait + busClocks;
      return this.sram.readWord(sramOff & ~3);
    }
    const conOff = addr - CONSOLE_BASE;
    if (conOff >= 0 && conOff < CONSOLE_SIZE && this.console.isRegister(conOff & ~3)) {
      this.wait = this.timing.consoleWait;
      return this.console.read(conOff & ~3);
    }
    const tpuOff = addr - TPU_BASE;
    const tpu = this.tpu;
    if (tpu && tpuOff >= 0 && tpuOff < TPU_SIZE && tpu.isRegister(tpuOff & ~3)) {
      const v = tpu.read(tpuOff & ~3, clock);
      this.wait = this.timing.tpuWait + (tpu.extraWait ? tpu.extraWait() : 0);
      if (tpu.repeatUntil) this.repeatUntil = tpu.repeatUntil(tpuOff & ~3);
      return v;
    }
    this.wait = 0;
    this.fault = true;
    return 0;
  }

  /** Writes the byte lanes of `wstrb` of the aligned word at `addr`. */
  write(addr: number, value: number, wstrb: number, clock: number): void {
    this.fault = false;
    const sramOff = addr - SRAM_BASE;
    if (sramOff >= 0 && sramOff < SRAM_SIZE) {
      const busClocks = this.sram.cpuWriteBusClocks(wstrb);
      this.sramSharer?.cpuSramAccess(clock, busClocks);
      this.wait = this.sram.bridgeWait + busClocks;
      this.sram.writeLanes(sramOff & ~3, value, wstrb);
      return;
    }
    const conOff = addr - CONSOLE_BASE;
    if (conOff >= 0 && conOff < CONSOLE_SIZE && this.console.isRegister(conOff & ~3)) {
      this.wait = this.timing.consoleWait;
      this.console.write(conOff & ~3, value);
      return;
    }
    const tpuOff = addr - TPU_BASE;
    const tpu = this.tpu;
    if (tpu && tpuOff >= 0 && tpuOff < TPU_SIZE && tpu.isRegister(tpuOff & ~3)) {
      tpu.write(tpuOff & ~3, value, wstrb, clock);
      this.wait = this.timing.tpuWait + (tpu.extraWait ? tpu.extraWait() : 0);
      return;
    }
    this.wait = 0;
    this.fault = true;
  }

  /** The CPU must look up after its current instruction: a halt, or a device asked it to yield. */
  get attention(): boolean {
    return this.yieldCpu || this.halted;
  }

  /** True when the guest has written EXIT or a device stopped the machine. */
  get halted(): boolean {
    return this.console.exitCode !== null || this.deviceHalt;
  }
}

/** Describes an address for reports: which memory or device it falls in. */
export function regionOf(addr: number): string {
  if (addr >= BRAM_BASE && addr < BRAM_BASE + BRAM_SIZE) return 'BRAM';
  if (addr >= SRAM_BASE && addr < SRAM_BASE + SRAM_SIZE) return 'SRAM';
  if (addr >= CONSOLE_BASE && addr < CONSOLE_BASE + CONSOLE_SIZE) return 'console';
  if (addr >= TPU_BASE && addr < TPU_BASE + TPU_SIZE) return 'TPU registers';
  return 'unmapped';
}
