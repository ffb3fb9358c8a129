// The interfaces a peripheral offers the CPU's bus (emu/bus.ts): a register
// block behind the AXI4-Lite interconnect, and a sharer of the SRAM bus. They
// live here, with the devices that implement them, so periph/ imports nothing
// from emu/.

/** A register block behind the AXI4-Lite interconnect. */
export interface MmioDevice {
  /** False for offsets that hold no register: the access is a bus error. */
  isRegister(offset: number): boolean;
  /** `clock` is the clock the request reaches the device. */
  read(offset: number, clock: number): number;
  write(offset: number, value: number, wstrb: number, clock: number): void;
  /** Wait clocks beyond the interconnect's own that the last access took (a stalled PUSH). */
  extraWait?(): number;
  /**
   * Right after a read of `offset`: a clock before which reading it again
   * returns the same value with the same wait and changes nothing the
   * machine can observe (0: no such promise). The CPU skips poll loops with it.
   */
  repeatUntil?(offset: number): number;
}

/** Who else uses the SRAM bus: told of every CPU SRAM access before it happens. */
export interface SramSharer {
  /** The CPU's request reached the bridge at `clock`; the bus is the CPU's from sram.cpuFrom. */
  cpuSramAccess(clock: number, busClocks: number): void;
}
