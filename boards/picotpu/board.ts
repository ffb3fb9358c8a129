// The picotpu board (docs/hardware.md, PLATFORM.md): native PicoRV32 on a
// 64 KiB BRAM, the console, the 512 KiB SRAM window and picotpu's TPU
// (periph/tpu.ts), optionally on a ring of boards joined by the link
// (ring.ts, link-bus.ts). Its description and what it builds for the machine
// and the tools (emu/board.ts).

import { BRAM_SIZE, PicotpuBus, TPU_BASE, TPU_SIZE } from './bus.ts';
import { BUS_TIMING_NAMES, CPU_FEATURE_NAMES, TPU_CONFIG_NAMES, type PlatformConfig } from '../../emu/config.ts';
import { CONSOLE_BASE, CONSOLE_SIZE } from '../../emu/console.ts';
import type { Board, BoardBuildOptions, BoardDevices, BoardFigures } from '../../emu/board.ts';
import { formatReport, type CounterSnapshot } from '../../periph/counters.ts';
import { GLOBAL } from '../../periph/regs.ts';
import { SRAM_BASE, SRAM_SIZE } from '../../periph/sram.ts';
import { Tpu } from '../../periph/tpu.ts';
import type { RingPosition } from '../../periph/link.ts';
import { LinkBus } from './link-bus.ts';
import { monitorClocks, monitorUnits, unitsLines } from './status.ts';
import { warmUpPicotpu } from './warm-up.ts';

export const PICOTPU: Board = {
  name: 'picotpu',
  aliases: [],
  summary: 'the Cmod A7 board of docs/hardware.md (PLATFORM.md): native PicoRV32, 64 KiB BRAM, console, SRAM window, picotpu TPU',
  ramSize: BRAM_SIZE,
  cpuFixed: {},
  memoryInterface: 'native',
  stop: 'console-exit',
  map: [
    { name: 'BRAM', base: 0x0000_0000, size: BRAM_SIZE },
    { name: 'console', base: CONSOLE_BASE, size: CONSOLE_SIZE },
    { name: 'TPU registers', base: TPU_BASE, size: TPU_SIZE },
    { name: 'SRAM', base: SRAM_BASE, size: SRAM_SIZE },
  ],
  settings: [...CPU_FEATURE_NAMES, ...BUS_TIMING_NAMES, ...TPU_CONFIG_NAMES, 'clockHz'],
  strict: true,
  build: buildPicotpu,
};

function buildPicotpu(config: PlatformConfig, options: BoardBuildOptions): BoardDevices {
  warmUpPicotpu();
  // With the link, the bus restarts accesses past what the other boards have computed (link-bus.ts).
  const linkBus = config.tpu.link ? new LinkBus(config.bus, BRAM_SIZE) : null;
  const bus = linkBus ?? new PicotpuBus(config.bus, BRAM_SIZE);
  const tpu = new Tpu(config, bus.sram, options.reference, options.strict, options.ring as RingPosition | undefined);
  linkBus?.attach(tpu);
  tpu.onFatal = () => {
    bus.deviceHalt = true;
  };
  // A new command can bring the next possible error earlier: re-plan the CPU's run.
  if (options.strict) tpu.onPush = () => { bus.yieldCpu = true; };
  bus.tpu = tpu;
  bus.sramSharer = tpu;
  return new PicotpuDevices(config, bus, tpu, linkBus);
}

/** What a built picotpu board gives the machine and the tools. */
export class PicotpuDevices implements BoardDevices {
  readonly memories;
  readonly registers;
  readonly sram: Uint8Array;
  readonly spad: Uint8Array;
  readonly perfCtrlAddr = TPU_BASE + GLOBAL.PERF_CTRL;

  constructor(private readonly config: PlatformConfig, readonly bus: PicotpuBus, readonly tpu: Tpu, private readonly linkBus: LinkBus | null) {
    this.memories = [{ name: 'SRAM', base: SRAM_BASE, bytes: bus.sram.bytes }];
    this.registers = {
      name: 'TPU registers', base: TPU_BASE, size: TPU_SIZE,
      isRegister: (off: number) => tpu.isRegister(off),
      peek: (off: number) => tpu.peek(off, tpu.clock),
    };
    this.sram = bus.sram.bytes;
    this.spad = tpu.spad;
  }

  get activity(): Tpu {
    return this.tpu;
  }

  attachCpu(): void {}

  stopped(): void {}

  nextCheckClock(): number {
    return this.tpu.nextStartClock();
  }

  horizon(): number {
    return this.tpu.linkRx?.horizon ?? Number.POSITIVE_INFINITY;
  }

  blockedClock(): number {
    return this.linkBus ? this.linkBus.blockedAt : -1;
  }

  figures(): BoardFigures {
    const tpu = this.tpu;
    return {
      tpuFatal: tpu.fatal, tpuErrors: tpu.errors, counters: tpu.report(), perfWindow: tpu.usedPerfCtrl,
      windows: tpu.windows.slice(), extra: null,
    };
  }

  wholeRun(now: number): CounterSnapshot {
    this.tpu.advanceTo(now);
    return this.tpu.whole.snapshot();
  }

  unitLines(): string[] {
    return unitsLines(this.tpu, this.config);
  }

  monitorUnits(now: number): string[] {
    return monitorUnits(this.tpu, this.config, now);
  }

  monitorClocks(now: number, cpu: { instret: number; pc: number; where: string }): string[] {
    return monitorClocks(this.tpu, this.config, now, cpu);
  }

  formatReport(f: BoardFigures, clockHz: number): string {
    return formatReport(f.counters, clockHz);
  }

  reportFields(): null {
    return null;
  }
}
