// Boards as data: what `--board NAME` chooses. A board names its firmware RAM,
// the CPU options its RTL instantiates, its memory interface, its memory map
// and its TPU. The CPU, ELF loader, debugger, GDB stub, traces, VCD, timeline
// and profiler are shared by every board; only the bus (emu/bus.ts,
// emu/seed-bus.ts) and the TPU differ.

import type { CpuFeatures, MemInterface } from '../emu/config.ts';

export type BoardName = 'picotpu' | 'seed';

/** A region of the board's address map, for reports and the debugger. */
export interface BoardRegion {
  name: string;
  base: number;
  size: number;
}

export interface Board {
  name: BoardName;
  /** One line for `--help` and reports. */
  summary: string;
  /** Firmware RAM at 0x0 (PicoRV32 starts at PROGADDR_RESET = 0), bytes. */
  ramSize: number;
  /** CPU parameters the board's RTL fixes; the command line's flags may not change them. */
  cpuFixed: Partial<CpuFeatures>;
  /**
   * How the core reaches memory: PicoRV32's native interface with the BRAM on its
   * own port (picotpu), or picorv32_axi with every fetch and access over one
   * AXI4-Lite slave (seed, cpu_subsys.sv; timing.ts AXI_*).
   */
  memoryInterface: MemInterface;
  /** PicoRV32's STACKADDR (sp at reset), or undefined for PicoRV32's default (sp not set). */
  stackAddr?: number;
  /** The TPU behind the MMIO block: picotpu's (periph/tpu.ts) or the seed's (periph/seed/tpu.ts). */
  tpu: 'picotpu' | 'seed';
  /** How the run ends: the guest's store to EXIT (console block), or the firmware's store to DONE. */
  stop: 'console-exit' | 'done-store';
  map: readonly BoardRegion[];
}

export const BOARDS: Record<BoardName, Board> = {
  picotpu: {
    name: 'picotpu',
    summary: 'the Cmod A7 board of docs/hardware.md (PLATFORM.md): native PicoRV32, 64 KiB BRAM, console, SRAM window, picotpu TPU',
    ramSize: 64 * 1024,
    cpuFixed: {},
    memoryInterface: 'native',
    tpu: 'picotpu',
    stop: 'console-exit',
    map: [
      { name: 'BRAM', base: 0x0000_0000, size: 64 * 1024 },
      { name: 'console', base: 0x1000_0000, size: 0x100 },
      { name: 'TPU registers', base: 0x2000_0000, size: 0x1000 },
      { name: 'SRAM', base: 0x4000_0000, size: 512 * 1024 },
    ],
  },
  seed: {
    name: 'seed',
    summary: "the seed's board (im-afan/transformer-tpu-int4 cpu_subsys.sv + tpu_top.sv; docs/seed-board.md): picorv32_axi, 16 KB RAM, seed TPU",
    ramSize: 16 * 1024,
    // cpu_subsys.sv's picorv32_axi parameters; ENABLE_REGS_DUALPORT at PicoRV32's default.
    cpuFixed: { BARREL_SHIFTER: true, COMPRESSED_ISA: true, ENABLE_MUL: false, ENABLE_FAST_MUL: true, ENABLE_DIV: false, ENABLE_REGS_DUALPORT: true },
    memoryInterface: 'seed-axi',
    stackAddr: 0x4000,
    tpu: 'seed',
    stop: 'done-store',
    map: [
      { name: 'firmware RAM', base: 0x0000_0000, size: 16 * 1024 },
      { name: 'TPU MMIO', base: 0x8000_0000, size: 0x1000 },
      { name: 'scratchpad window', base: 0x9000_0000, size: 64 * 1024 },
    ],
  },
};

export const BOARD_NAMES = Object.keys(BOARDS) as BoardName[];

export class BoardError extends Error {}

/** The board called `name`; an unknown name is a usage error (exit 165). */
export function boardNamed(name: string): Board {
  if (Object.prototype.hasOwnProperty.call(BOARDS, name)) return BOARDS[name as BoardName];
  throw new BoardError(`unknown board "${name}" (boards: ${BOARD_NAMES.join(', ')})`);
}
