// The bus of a board on a ring of boards (boards/picotpu/ring.ts): the board's own bus,
// plus the one rule that keeps the boards exact whatever order the host runs
// them in. A TPU register access or an SRAM access (which brings the TPU up
// to date: the DMA shares the SRAM bus) at a clock the TPU may not yet
// process — a message from the previous board could still land before it —
// does not happen: the CPU restarts the instruction later (Bus.restart,
// StopReason.BLOCKED), once the scheduler has run the other boards far
// enough. A board alone (one board, its TX wired to its own RX) never
// restarts: its horizon is unbounded.

import { PicotpuBus, TPU_BASE, TPU_SIZE } from './bus.ts';
import { CONSOLE_BASE, CONSOLE_REG } from '../../emu/console.ts';
import { SRAM_BASE, SRAM_SIZE } from '../../periph/sram.ts';
import type { Tpu } from '../../periph/tpu.ts';

export class LinkBus extends PicotpuBus {
  private linkTpu: Tpu | null = null;
  /** The clock of the access that was restarted last (the TPU may be brought up to it meanwhile). */
  blockedAt = 0;
  /** The clock of the last console TX write: the clock a console line is stamped with. */
  lastConsoleClock = 0;

  attach(tpu: Tpu): void {
    this.linkTpu = tpu;
  }

  /** Would an access to `addr` at `clock` need clocks the TPU may not process yet? */
  private beyondHorizon(addr: number, clock: number): boolean {
    const horizon = this.linkTpu!.linkRx!.horizon;
    if (horizon === Number.POSITIVE_INFINITY) return false;
    const sramOff = addr - SRAM_BASE;
    // The DMA is brought up to the clock the CPU takes the SRAM bus.
    if (sramOff >= 0 && sramOff < SRAM_SIZE) return clock + this.timing.sramBridgeWait >= horizon;
    const tpuOff = addr - TPU_BASE;
    return tpuOff >= 0 && tpuOff < TPU_SIZE && clock >= horizon;
  }

  private restartAt(clock: number): void {
    this.fault = true;
    this.restart = true;
    this.wait = 0;
    this.repeatUntil = 0;
    this.blockedAt = clock;
  }

  override read(addr: number, clock: number): number {
    this.restart = false;
    if (this.beyondHorizon(addr, clock)) {
      this.restartAt(clock);
      return 0;
    }
    const v = super.read(addr, clock);
    // A poll may be skipped only up to where landings are known.
    const horizon = this.linkTpu!.linkRx!.horizon;
    if (this.repeatUntil > horizon) this.repeatUntil = horizon;
    return v;
  }

  override write(addr: number, value: number, wstrb: number, clock: number): void {
    this.restart = false;
    if (this.beyondHorizon(addr, clock)) {
      this.restartAt(clock);
      return;
    }
    if (addr - CONSOLE_BASE === CONSOLE_REG.TX) this.lastConsoleClock = clock;
    super.write(addr, value, wstrb, clock);
    const tpu = this.linkTpu!;
    if (tpu.pushBlocked) {
      // A PUSH stall reached the horizon: the PUSH did not happen.
      tpu.pushBlocked = false;
      this.restartAt(clock);
    }
  }
}
