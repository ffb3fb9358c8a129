// picotpu's memory map (PLATFORM.md §3): the console, the TPU's registers and
// the SRAM window, each with the AXI wait clocks of its target; any other
// address is a bus error. The program BRAM is the CPU's own (emu/bus.ts).

import { Bus, type SramSharer } from '../../emu/bus.ts';
import type { BusTiming } from '../../emu/config.ts';
import { CONSOLE_BASE, CONSOLE_SIZE } from '../../emu/console.ts';
import { Sram, SRAM_BASE, SRAM_SIZE } from '../../periph/sram.ts';
import { UNIT_REG } from '../../periph/regs.ts';
import type { Tpu } from '../../periph/tpu.ts';

export const BRAM_SIZE = 64 * 1024;
export const TPU_BASE = 0x2000_0000;
export const TPU_SIZE = 0x1000;
/** The last staging register (ARG5) of a unit's register block. */
const LAST_STAGING = UNIT_REG.ARG5;

export class PicotpuBus extends Bus {
  readonly sram: Sram;
  private tpuDevice: Tpu | null = null;
  /** The compute units' staging registers (ARG0..ARG5), DMA, MXU, VPU: the TPU's own arrays. */
  private staging: Uint32Array[] = [];

  get tpu(): Tpu | null {
    return this.tpuDevice;
  }

  set tpu(tpu: Tpu | null) {
    this.tpuDevice = tpu;
    this.staging = tpu === null ? [] : tpu.units.map((u) => u.staging);
  }
  sramSharer: SramSharer | null = null;

  constructor(timing: BusTiming, ramSize = BRAM_SIZE) {
    super(timing, ramSize);
    this.sram = new Sram(timing);
  }

  /** Reads the aligned word at `addr` (PicoRV32 reads whole words). */
  override read(addr: number, clock: number): number {
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
    const tpu = this.tpuDevice;
    if (tpu && tpuOff >= 0 && tpuOff < TPU_SIZE && tpu.isRegister(tpuOff & ~3)) {
      const v = tpu.read(tpuOff & ~3, clock);
      this.wait = this.timing.tpuWait + tpu.extraWait();
      this.repeatUntil = tpu.repeatUntil(tpuOff & ~3);
      return v;
    }
    this.wait = 0;
    this.fault = true;
    return 0;
  }

  /** Writes the byte lanes of `wstrb` of the aligned word at `addr`. */
  override write(addr: number, value: number, wstrb: number, clock: number): void {
    this.fault = false;
    // The TPU's registers first: a firmware stores to them most (staging registers, PUSH).
    const tpuOff = addr - TPU_BASE;
    const tpu = this.tpuDevice;
    if (tpu !== null && tpuOff >= 0 && tpuOff < TPU_SIZE) {
      // A whole word into a compute unit's staging register, the most frequent store, goes
      // straight into it: no unit sees staging registers before a PUSH, and no clock is processed.
      const unit = (tpuOff >> 8) - 1, reg = tpuOff & 0xfc;
      if (unit >= 0 && unit < 3 && reg <= LAST_STAGING && wstrb === 15) {
        this.staging[unit][reg >> 2] = value;
        this.wait = this.timing.tpuWait;
        return;
      }
      const extra = tpu.cpuWrite(tpuOff & ~3, value, wstrb, clock);
      if (extra >= 0) {
        this.wait = this.timing.tpuWait + extra;
        return;
      }
      this.wait = 0;
      this.fault = true;
      return;
    }
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
    this.wait = 0;
    this.fault = true;
  }
}
