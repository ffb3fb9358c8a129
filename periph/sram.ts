// External SRAM: IS61WV5128, 512 KiB, one 8-bit bus. Reads take 1 clock per
// byte and writes 2 (WE is pulsed on the falling edge), for the CPU window and
// the DMA alike.

import type { BusTiming } from './config.ts';
import { doubleFields } from './double-fields.ts';

export const SRAM_BASE = 0x4000_0000;
export const SRAM_SIZE = 512 * 1024;

/**
 * Arbitration of the one 8-bit SRAM bus: fixed priority to the CPU. A CPU
 * access reaches the bridge at clock t and holds the bus during
 * [t + sramBridgeWait, t + sramBridgeWait + its byte clocks); the DMA sees the
 * request at t and starts no byte transfer that would overlap that interval.
 * So the CPU never waits for the DMA, and the DMA loses exactly the clocks the
 * CPU holds the bus (plus, for a 2-clock write, a clock it cannot fill).
 */
export class Sram {
  readonly bytes = new Uint8Array(SRAM_SIZE);
  /** Clock-valued fields are doubles from the start (emu/double-fields.ts). */
  private readonly doubles = doubleFields(this, ['cpuFrom', 'cpuUntil']);
  /** The CPU holds the SRAM bus during [cpuFrom, cpuUntil). */
  cpuFrom = 0;
  cpuUntil = 0;

  constructor(private readonly timing: BusTiming) {}

  /**
   * SRAM bus clocks of a CPU read. PicoRV32's native interface has no read
   * size (every read is a whole word), so the bridge reads the four bytes of
   * the aligned word.
   */
  cpuReadBusClocks(): number {
    return 4 * this.timing.sramReadClocksPerByte;
  }

  /** SRAM bus clocks of a CPU write: one SRAM write per enabled byte lane. */
  cpuWriteBusClocks(wstrb: number): number {
    const lanes = (wstrb & 1) + ((wstrb >> 1) & 1) + ((wstrb >> 2) & 1) + ((wstrb >> 3) & 1);
    return lanes * this.timing.sramWriteClocksPerByte;
  }

  get bridgeWait(): number {
    return this.timing.sramBridgeWait;
  }

  /** Records a CPU access that reached the bridge at `clock` and holds the bus for `busClocks`. */
  reserveForCpu(clock: number, busClocks: number): void {
    this.cpuFrom = clock + this.timing.sramBridgeWait;
    this.cpuUntil = this.cpuFrom + busClocks;
  }

  readWord(offset: number): number {
    const b = this.bytes;
    return b[offset] | (b[offset + 1] << 8) | (b[offset + 2] << 16) | (b[offset + 3] << 24);
  }

  writeLanes(offset: number, value: number, wstrb: number): void {
    const b = this.bytes;
    if (wstrb & 1) b[offset] = value;
    if (wstrb & 2) b[offset + 1] = value >>> 8;
    if (wstrb & 4) b[offset + 2] = value >>> 16;
    if (wstrb & 8) b[offset + 3] = value >>> 24;
  }
}
