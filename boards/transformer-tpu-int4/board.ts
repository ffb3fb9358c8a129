// The write-up's board: the RTL of the transformer-tpu-int4 repository
// (cpu_subsys.sv + tpu_top.sv; docs/seed-board.md): picorv32_axi with every
// fetch and access over one AXI4-Lite slave, a 16 KB firmware RAM, its TPU's
// MMIO block and scratchpad window, and a run that ends at the firmware's
// store to DONE. Its description and what it builds for the machine and the
// tools (emu/board.ts). `--board seed` is its alias on the command line.

import { CPU_FEATURE_NAMES, type PlatformConfig } from '../../emu/config.ts';
import type { Board, BoardBuildOptions, BoardDevices, BoardFigures, BoardStop } from '../../emu/board.ts';
import type { Cpu } from '../../emu/cpu.ts';
import { hex8 } from '../../emu/machine.ts';
import type { CounterSnapshot } from '../../periph/counters.ts';
import { SeedActivity } from './activity.ts';
import { SeedBus } from './bus.ts';
import { formatSeedReport, reportOfSeedCounters, seedReportFields, seedStatusLines, type SeedFigures } from './report.ts';
import { SeedTpu } from './tpu.ts';

/** The DONE register's offset in the MMIO block (cpu_subsys.sv). */
const DONE_OFFSET = 0x70;
const RAM_SIZE = 16 * 1024;

export const TRANSFORMER_TPU_INT4: Board = {
  name: 'transformer-tpu-int4',
  aliases: ['seed'],
  summary: "the write-up's own board (im-afan/transformer-tpu-int4 cpu_subsys.sv + tpu_top.sv; docs/seed-board.md): picorv32_axi, 16 KB RAM, its int4 TPU",
  ramSize: RAM_SIZE,
  // cpu_subsys.sv's picorv32_axi parameters; ENABLE_REGS_DUALPORT at PicoRV32's default.
  cpuFixed: { BARREL_SHIFTER: true, COMPRESSED_ISA: true, ENABLE_MUL: false, ENABLE_FAST_MUL: true, ENABLE_DIV: false, ENABLE_REGS_DUALPORT: true },
  memoryInterface: 'axi-lite',
  stackAddr: 0x4000,
  stop: 'done-store',
  map: [
    { name: 'firmware RAM', base: 0x0000_0000, size: RAM_SIZE },
    { name: 'TPU MMIO', base: 0x8000_0000, size: 0x1000 },
    { name: 'scratchpad window', base: 0x9000_0000, size: 64 * 1024 },
  ],
  // Its RTL fixes the CPU (an explicit same value is fine: cli/board-options.ts) and has no timing to set.
  settings: [...CPU_FEATURE_NAMES, 'clockHz'],
  strict: false,
  noStrictReason: "--strict is a picotpu option: the seed's TPU has no errors to stop at (docs/seed-board.md)",
  build: buildTransformerTpuInt4,
};

function buildTransformerTpuInt4(config: PlatformConfig, options: BoardBuildOptions): BoardDevices {
  // The DMA's SRAM, the TPU's own (the fast model's beside its scratchpad): another array than
  // the CPU's, which never reaches it.
  const tpu = new SeedTpu({ reference: options.reference }, null);
  const sram = tpu.sramMemory;
  const bus = new SeedBus(config.bus, RAM_SIZE, tpu);
  const activity = new SeedActivity(tpu);
  // The host's run pulse releases the core's reset: clock 0 of the run.
  tpu.runPulse(0);
  return new TransformerTpuInt4Devices(config, bus, tpu, activity, sram);
}

/** What a built transformer-tpu-int4 board gives the machine and the tools. */
export class TransformerTpuInt4Devices implements BoardDevices {
  readonly memories = [];
  readonly registers = null;
  readonly perfCtrlAddr = null;
  readonly spad: Uint8Array;

  constructor(private readonly config: PlatformConfig, readonly bus: SeedBus, readonly tpu: SeedTpu, readonly activity: SeedActivity, readonly sram: Uint8Array) {
    this.spad = tpu.spad;
  }

  attachCpu(cpu: Cpu): void {
    // A store the RTL aliases into the firmware RAM may overwrite code.
    this.bus.onAliasedRamWrite = () => cpu.invalidateAll();
  }

  stopped(stop: BoardStop, clock: number): void {
    // cpu_subsys.sv: `trap` raises `done` as the DONE store does, so the counters
    // close in the trap's clock (the emulator still reports the trap, status 160/161).
    if (!this.tpu.done && (stop === 'trap' || stop === 'bus-error')) this.tpu.write(DONE_OFFSET, 0, 0xf, clock);
  }

  figures(): BoardFigures {
    const c = this.tpu.counters();
    const extra: SeedFigures = {
      seedCounters: c, aliases: { ...this.bus.aliases }, doneValue: this.bus.doneValue,
      hazards: { count: this.tpu.hazardCount, first: this.tpu.hazards.slice() },
    };
    return {
      tpuFatal: this.activity.fatal, tpuErrors: [], counters: reportOfSeedCounters(c), perfWindow: true, windows: [],
      extra: extra as unknown as Record<string, unknown>,
    };
  }

  wholeRun(now: number): CounterSnapshot {
    this.activity.advanceTo(now);
    return reportOfSeedCounters(this.tpu.counters());
  }

  unitLines(now: number): string[] {
    return seedStatusLines(this.tpu, this.activity, this.bus, this.config.clockHz, now);
  }

  monitorUnits(now: number): string[] {
    return this.unitLines(now);
  }

  monitorClocks(now: number, cpu: { instret: number; pc: number }): string[] {
    return [`clock ${now}, instret ${cpu.instret}, pc 0x${hex8(cpu.pc)}`, ...this.unitLines(now)];
  }

  formatReport(f: BoardFigures, clockHz: number): string {
    return formatSeedReport(f, clockHz);
  }

  reportFields(f: BoardFigures): Record<string, unknown> {
    return seedReportFields(f, TRANSFORMER_TPU_INT4.name);
  }
}
