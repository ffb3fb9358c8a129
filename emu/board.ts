// The board contract: what a board is (its description: the CPU options its
// RTL fixes, its memory interface, address map, settings and how a run ends)
// and what a built board gives the machine and every tool (its bus, its TPU's
// activity, the memories the debugger and GDB may reach, its unit state, its
// report). emu/ defines the contract and imports no board; each board is a
// folder under boards/ and one line of boards/registry.ts (docs/boards.md).

import type { Bus } from './bus.ts';
import type { CpuFeatures, MemInterface, PlatformConfig } from './config.ts';
import type { Cpu } from './cpu.ts';
import type { TpuActivity } from './tpu-activity.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import type { TpuError } from '../periph/tpu.ts';

/** A region of the board's address map, for reports and the debugger. */
export interface BoardRegion {
  name: string;
  base: number;
  size: number;
}

/** A memory the CPU addresses that the debugger, GDB and the ELF loader may read and write without side effects. */
export interface MemoryRegion {
  name: string;
  /** Its CPU address. */
  base: number;
  bytes: Uint8Array;
}

/** Device registers the debugger may read without side effects (`x` at their address). */
export interface RegisterWindow {
  name: string;
  base: number;
  size: number;
  isRegister(offset: number): boolean;
  /** The register's value now, without the read's side effects. */
  peek(offset: number): number;
}

export interface BoardBuildOptions {
  /** Run every TPU unit with its literal clock-by-clock reference model. */
  reference: boolean;
  /** Stop at the first TPU error (only a board whose `strict` is true takes it). */
  strict: boolean;
  /** A board's place among several joined boards, as the board understands it (picotpu's ring). */
  ring?: unknown;
}

/** What a run's stop reason is, as the board sees it (the machine's RunReason before the TPU's verdict). */
export type BoardStop = 'exit' | 'trap' | 'bus-error' | 'cycle-limit';

/** The board's part of a run's result: PLATFORM.md §7's counters and whatever else its report shows. */
export interface BoardFigures {
  tpuFatal: string | null;
  tpuErrors: TpuError[];
  counters: CounterSnapshot;
  /** Whether `counters` is a PERF_CTRL window (else the whole run). */
  perfWindow: boolean;
  windows: CounterSnapshot[];
  /** The board's own figures (its --report-json fields beyond the shared ones), or null. */
  extra: Record<string, unknown> | null;
}

/** A built board: what the machine runs and what every tool sees of it. */
export interface BoardDevices {
  readonly bus: Bus;
  /** The TPU as the run observers see it. */
  readonly activity: TpuActivity;
  /** Memories besides the firmware RAM (bus.bram at 0) the debugger, GDB and the ELF loader reach at CPU addresses. */
  readonly memories: readonly MemoryRegion[];
  /** Registers `x` may read at their CPU address, or null. */
  readonly registers: RegisterWindow | null;
  /** The DMA's memory, which --sram FILE@OFFSET loads and --sram-out writes (null: the board has none). */
  readonly sram: Uint8Array | null;
  /** The TPU's scratchpad (the debugger's spad:ADDR), or null. */
  readonly spad: Uint8Array | null;
  /** The CPU address whose stores open (bit 0 set) and close a PERF_CTRL counter window, or null (the observers' window marks). */
  readonly perfCtrlAddr: number | null;
  /** The CPU is built: the board may hook it (a store that aliases into code). */
  attachCpu(cpu: Cpu): void;
  /** The run stopped (before its figures are read), at `clock`. */
  stopped(stop: BoardStop, clock: number): void;
  /** --strict: the next clock at which the TPU can stop the machine (the CPU runs no further before looking). */
  nextCheckClock?(): number;
  /** On a ring: the clock up to which the TPU may be brought now (Infinity alone). */
  horizon?(): number;
  /** The clock a blocked access waits for (a ring's restarted access), or -1. */
  blockedClock?(): number;
  figures(): BoardFigures;
  /** PLATFORM.md §7's counters over the whole run so far, the TPU brought to `now` (the playground's samples). */
  wholeRun(now: number): CounterSnapshot;
  /** The debugger's `info units`: each unit's state, queue and errors, the counters so far. */
  unitLines(now: number): string[];
  /** GDB's `monitor units`. */
  monitorUnits(now: number): string[];
  /** GDB's `monitor clocks`: the clock and where the CPU is, then the counters so far. */
  monitorClocks(now: number, cpu: { instret: number; pc: number; where: string }): string[];
  /** The performance report of a run on standard error. */
  formatReport(figures: BoardFigures, clockHz: number): string;
  /** The board's fields of --report-json (beside the shared ones), or null for none. */
  reportFields(figures: BoardFigures): Record<string, unknown> | null;
}

/** A board: its description (data) and how to build it. */
export interface Board {
  /** The name `--board` takes. */
  readonly name: string;
  /** Other names `--board` accepts for it. */
  readonly aliases: readonly string[];
  /** One line for `--help` and reports. */
  readonly summary: string;
  /** Firmware RAM at 0x0 (PicoRV32 starts at PROGADDR_RESET = 0), bytes. */
  readonly ramSize: number;
  /** CPU parameters the board's RTL fixes; the command line's flags may not change them. */
  readonly cpuFixed: Partial<CpuFeatures>;
  /** How the core reaches memory (emu/config.ts MemInterface). */
  readonly memoryInterface: MemInterface;
  /** PicoRV32's STACKADDR (sp at reset), or undefined for PicoRV32's default (sp not set). */
  readonly stackAddr?: number;
  /** How the run ends: the guest's store to EXIT (console block), or the firmware's store to DONE. */
  readonly stop: 'console-exit' | 'done-store';
  readonly map: readonly BoardRegion[];
  /** The platform settings (--set NAME, --config keys, CPU flags) its devices read; any other is refused. */
  readonly settings: readonly string[];
  /** Whether --strict applies (a TPU with errors to stop at). */
  readonly strict: boolean;
  /** Why --strict does not apply, for the usage error. */
  readonly noStrictReason?: string;
  build(config: PlatformConfig, options: BoardBuildOptions): BoardDevices;
}

/** A board cannot take what was asked of it (a setting, an option, a program): one line, exit 164 or 165. */
export class BoardError extends Error {}

/** The CPU options the board runs with: the configuration's, with what its RTL fixes. */
export function boardCpu(board: Board, config: PlatformConfig): CpuFeatures {
  return { ...config.cpu, ...board.cpuFixed };
}

/** The settings among `asked` the board does not read, for the usage error. */
export function refusedSettings(board: Board, asked: Iterable<string>): string[] {
  const accepted = new Set(board.settings);
  return [...new Set(asked)].filter((name) => !accepted.has(name));
}
