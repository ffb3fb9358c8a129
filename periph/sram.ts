// External SRAM: IS61WV5128, 512 KiB, one 8-bit bus. Reads take 1 clock per
// byte and writes 2 (WE is pulsed on the falling edge), for the CPU window and
// the DMA alike.

import type { BusTiming } from '../emu/config.ts';

export const SRAM_BASE = 0x4000_0000;
export const SRAM_SIZE = 512 * 1024;

export class Sram {
  readonly bytes = new Uint8Array(SRAM_SIZE);

  constructor(private readonly timing: BusTiming) {}

  /**
   * Wait clocks of a CPU read through the AXI bridge. PicoRV32's native
   * interface has no read size (every read is a whole word), so the bridge
   * always reads the four bytes of the aligned word.
   */
  cpuReadWait(): number {
    return this.timing.sramBridgeWait + 4 * this.timing.sramReadClocksPerByte;
  }

  /** Wait clocks of a CPU write: one SRAM write per enabled byte lane. */
  cpuWriteWait(wstrb: number): number {
    const lanes = (wstrb & 1) + ((wstrb >> 1) & 1) + ((wstrb >> 2) & 1) + ((wstrb >> 3) & 1);
    return this.timing.sramBridgeWait + lanes * this.timing.sramWriteClocksPerByte;
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
