// Platform configuration: the knobs PLATFORM.md marks *(config)*, named the way
// PicoRV32 names its parameters, so a reader can map each one to the RTL.
// The TPU's and the bus's parts are periph/config.ts's; this composes them
// with the CPU's.

import type { BusTiming, TpuConfig } from '../periph/config.ts';

export type { BusTiming, TpuConfig };

export interface CpuFeatures {
  /** Single-cycle barrel shifter instead of the 4-then-1 two-stage shifter. */
  BARREL_SHIFTER: boolean;
  /** M-extension multiplies through PCPI (picorv32_pcpi_mul). */
  ENABLE_MUL: boolean;
  /** M-extension multiplies through PCPI (picorv32_pcpi_fast_mul); wins over ENABLE_MUL, as in the RTL. */
  ENABLE_FAST_MUL: boolean;
  /** M-extension divides through PCPI (picorv32_pcpi_div). */
  ENABLE_DIV: boolean;
  /** Register file with two read ports: reg+reg instructions read both in one clock. */
  ENABLE_REGS_DUALPORT: boolean;
  /** RV32C: 16-bit instructions, pcs on halfwords (PicoRV32's COMPRESSED_ISA; off on picotpu). */
  COMPRESSED_ISA: boolean;
}

/**
 * How the CPU reaches memory: 'native' is PicoRV32's own look-ahead interface
 * on a zero-wait BRAM (picotpu); 'axi-lite' is picorv32_axi behind the seed's
 * cpu_subsys AXI4-Lite slave, every fetch and access one transaction
 * (timing.ts, AXI_*).
 */
export type MemInterface = 'native' | 'axi-lite';

/** What the CPU needs besides its PicoRV32 parameters: its bus, and STACKADDR. */
export interface CpuBusOptions {
  memInterface: MemInterface;
  /** PicoRV32's STACKADDR: sp at reset (undefined: PicoRV32's default, sp not set). */
  stackAddr?: number;
  /**
   * false: the default board's CPU loop runs every instruction in JavaScript, without its
   * WebAssembly fast path (emu/cpu-kernel.ts), as the tests that compare the two do.
   */
  kernel?: boolean;
}

export interface PlatformConfig {
  cpu: CpuFeatures;
  bus: BusTiming;
  tpu: TpuConfig;
  /** Clock frequency, only used to convert clocks to milliseconds in reports. */
  clockHz: number;
}

export function defaultConfig(): PlatformConfig {
  return {
    cpu: {
      BARREL_SHIFTER: false,
      ENABLE_MUL: false,
      ENABLE_FAST_MUL: false,
      ENABLE_DIV: false,
      ENABLE_REGS_DUALPORT: true,
      COMPRESSED_ISA: false,
    },
    bus: {
      consoleWait: 2,
      tpuWait: 2,
      sramBridgeWait: 2,
      sramReadClocksPerByte: 1,
      sramWriteClocksPerByte: 2,
    },
    tpu: {
      queueDepth: 8,
      spadKiB: 64,
      regionKiB: 4,
      mxuDim: 8,
      dmaSetup: 2,
      mxuSetup: 2,
      vpuSetup: 2,
      sequencer: 0,
      seqListKiB: 0,
      link: 0,
      linkClocksPerByte: 1,
      linkSetup: 2,
      linkLatency: 8,
      linkMailboxKiB: 8,
    },
    clockHz: 12_000_000,
  };
}

/** The names accepted in a config file and as `--set NAME=VALUE` flags. */
export const CPU_FEATURE_NAMES = [
  'BARREL_SHIFTER',
  'ENABLE_MUL',
  'ENABLE_FAST_MUL',
  'ENABLE_DIV',
  'ENABLE_REGS_DUALPORT',
  'COMPRESSED_ISA',
] as const satisfies readonly (keyof CpuFeatures)[];

export const BUS_TIMING_NAMES = [
  'consoleWait',
  'tpuWait',
  'sramBridgeWait',
  'sramReadClocksPerByte',
  'sramWriteClocksPerByte',
] as const satisfies readonly (keyof BusTiming)[];

export const TPU_CONFIG_NAMES = [
  'queueDepth',
  'spadKiB',
  'regionKiB',
  'mxuDim',
  'dmaSetup',
  'mxuSetup',
  'vpuSetup',
  'sequencer',
  'seqListKiB',
  'link',
  'linkClocksPerByte',
  'linkSetup',
  'linkLatency',
  'linkMailboxKiB',
] as const satisfies readonly (keyof TpuConfig)[];

export class ConfigError extends Error {}

function parseBool(name: string, v: unknown): boolean {
  if (v === true || v === 1 || v === '1' || v === 'true') return true;
  if (v === false || v === 0 || v === '0' || v === 'false') return false;
  throw new ConfigError(`${name} must be 0/1 or true/false, got ${JSON.stringify(v)}`);
}

function parseCount(name: string, v: unknown): number {
  // Number('') and Number(' ') are 0: a string must be decimal digits.
  const n = typeof v === 'string' ? (/^\d+$/.test(v) ? Number(v) : NaN) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1000) {
    throw new ConfigError(`${name} must be an integer 0..1000, got ${JSON.stringify(v)}`);
  }
  return n;
}

/**
 * Applies a flat set of overrides (from a JSON config file or from flags) to a
 * config. Unknown names are an error: a typo must not silently run the defaults.
 */
export function applyOverrides(cfg: PlatformConfig, overrides: Record<string, unknown>): PlatformConfig {
  for (const [name, value] of Object.entries(overrides)) {
    if ((CPU_FEATURE_NAMES as readonly string[]).includes(name)) {
      cfg.cpu[name as keyof CpuFeatures] = parseBool(name, value);
    } else if ((BUS_TIMING_NAMES as readonly string[]).includes(name)) {
      cfg.bus[name as keyof BusTiming] = parseCount(name, value);
    } else if ((TPU_CONFIG_NAMES as readonly string[]).includes(name)) {
      cfg.tpu[name as keyof TpuConfig] = parseCount(name, value);
    } else if (name === 'clockHz') {
      const hz = typeof value === 'string' && value.trim() === '' ? NaN : Number(value);
      if (!(Number.isFinite(hz) && hz > 0)) throw new ConfigError(`clockHz must be a positive finite number of Hz, got ${JSON.stringify(value)}`);
      cfg.clockHz = hz;
    } else {
      throw new ConfigError(`unknown platform option "${name}"`);
    }
  }
  checkConsistent(cfg);
  return cfg;
}

function checkConsistent(cfg: PlatformConfig): void {
  const t = cfg.tpu;
  if (t.queueDepth < 1 || t.queueDepth > 255) throw new ConfigError('queueDepth must be 1..255');
  if (t.spadKiB < 1 || t.spadKiB > 64) throw new ConfigError('spadKiB must be 1..64 (16-bit scratchpad addresses)');
  if (t.regionKiB < 1 || t.spadKiB % t.regionKiB !== 0 || t.spadKiB / t.regionKiB > 32) {
    throw new ConfigError('regionKiB must divide spadKiB into at most 32 regions');
  }
  if (t.mxuDim !== 8 && t.mxuDim !== 16) throw new ConfigError('mxuDim must be 8 (as built) or 16 (the what-if)');
  if (t.sequencer !== 0 && t.sequencer !== 1) throw new ConfigError('sequencer must be 0 (as built) or 1 (the command-sequencer what-if)');
  if (t.seqListKiB > 64) throw new ConfigError('seqListKiB must be 0..64 (16-bit list addresses)');
  if (t.seqListKiB > 0 && t.sequencer !== 1) throw new ConfigError('seqListKiB needs sequencer = 1 (it is the sequencer\'s list memory)');
  checkLink(cfg);
  const b = cfg.bus;
  if (b.sramReadClocksPerByte < 1 || b.sramWriteClocksPerByte < 1) throw new ConfigError('SRAM clocks per byte must be at least 1');
  // The DMA sees a CPU request bridgeWait clocks before the CPU takes the SRAM
  // bus; a byte transfer it already started must end by then.
  if (b.sramBridgeWait + 1 < Math.max(b.sramReadClocksPerByte, b.sramWriteClocksPerByte)) {
    throw new ConfigError('sramBridgeWait must be at least the SRAM clocks per byte minus one');
  }
}

function checkLink(cfg: PlatformConfig): void {
  const t = cfg.tpu;
  if (t.link !== 0 && t.link !== 1) throw new ConfigError('link must be 0 (as built) or 1 (the board-to-board link, --boards N)');
  // A list in the mailbox would make the sequencer's timing depend on what lands there, which the
  // boards' synchronisation does not allow for; the two what-ifs are not modelled together.
  if (t.link === 1 && t.sequencer === 1) throw new ConfigError('link and sequencer are not modelled together (hardware.md §5.12)');
  if (t.linkClocksPerByte < 1) throw new ConfigError('linkClocksPerByte must be at least 1');
  // The boards' conservative synchronisation looks ahead by the latency (boards/picotpu/ring.ts): it must
  // exceed the clocks an SRAM access brings the TPU ahead of the CPU, or the boards could wait on each other.
  if (t.linkLatency < 1) throw new ConfigError('linkLatency must be at least 1 (a message cannot land in the clock it is sent)');
  if (t.link === 1 && t.linkLatency <= cfg.bus.sramBridgeWait) throw new ConfigError('linkLatency must exceed sramBridgeWait (the boards\' synchronisation looks ahead by it; hardware.md §5.12)');
  // The mailbox's shape matters only when there is a link: no as-built configuration may fail on it.
  const mailboxOk = t.link === 0 || t.linkMailboxKiB >= t.regionKiB && t.linkMailboxKiB % t.regionKiB === 0 && t.linkMailboxKiB < t.spadKiB;
  if (!mailboxOk) throw new ConfigError('linkMailboxKiB must be whole scratchpad regions (regionKiB) and leave at least one region for the rest');
}
