// The configuration of the peripherals: the TPU's parameters and the bus
// timing the SRAM and the DMA see. emu/config.ts composes these with the CPU's
// into the platform configuration (PlatformConfig), which applies overrides
// and checks them.

export interface BusTiming {
  /** Wait clocks an AXI4-Lite access to the console/sim-control block adds. */
  consoleWait: number;
  /** Wait clocks an AXI4-Lite access to the TPU register block adds. */
  tpuWait: number;
  /** Wait clocks of the AXI bridge in front of the external SRAM. */
  sramBridgeWait: number;
  /** SRAM clocks per byte read (IS61WV5128 at 12 MHz). */
  sramReadClocksPerByte: number;
  /** SRAM clocks per byte written (WE pulsed on the falling edge). */
  sramWriteClocksPerByte: number;
}

export interface TpuConfig {
  /** Command FIFO depth of each unit (commands waiting, not counting the running one). */
  queueDepth: number;
  /** Scratchpad size in KiB (at most 64: addresses are 16-bit fields). */
  spadKiB: number;
  /** Scratchpad region size in KiB; each region has one read and one write port. */
  regionKiB: number;
  /** MXU array dimension D: 8 as built; 16 is the MXU-size what-if (hardware.md §5.5). */
  mxuDim: number;
  /** Fixed clocks at the start of every DMA command (descriptor decode, address setup). */
  dmaSetup: number;
  /** Fixed issue clocks at the start of every MXU command. */
  mxuSetup: number;
  /** Fixed clocks at the start of every VPU command. */
  vpuSetup: number;
  /** 1: the command-sequencer what-if, a fourth unit feeding command lists (hardware.md §5.11); 0 as built. */
  sequencer: number;
  /** With the sequencer: KiB of its own list memory (0: lists in the scratchpad; hardware.md §5.11). */
  seqListKiB: number;
  /** 1: the board-to-board link, a fifth unit and a mailbox (hardware.md §5.12; on with --boards N); 0 as built. */
  link: number;
  /** Link clocks per byte sent (8 data wires, one byte a clock: 1). */
  linkClocksPerByte: number;
  /** Fixed clocks at the start of every SEND. */
  linkSetup: number;
  /** Clocks from a SEND's last clock until the message has landed whole in the receiver's mailbox (≥ 1). */
  linkLatency: number;
  /** KiB at the top of the scratchpad that are the link's mailbox (whole regions). */
  linkMailboxKiB: number;
}

/** What the TPU reads of the platform configuration (emu/config.ts's PlatformConfig is one). */
export interface TpuPlatform {
  bus: BusTiming;
  tpu: TpuConfig;
}
