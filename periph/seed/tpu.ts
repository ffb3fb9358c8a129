// STUB of the seed board's TPU (tpu_top.sv), standing in for the seedtpu
// branch's model until it is merged: the contract of /work/issue24.md only.
// Commands are staged and committed as cpu_subsys.sv does (four stores, the
// store to word 3 commits) and retire at once; no unit runs, no counter but
// `run` and `idlec` counts. The real periph/seed/tpu.ts replaces this file.

import type { MmioDevice } from '../../emu/bus.ts';

/** The seed's ten perf_counters.sv counters over the run-pulse..DONE window, plus the true commit stalls. */
export interface SeedCounters {
  run: number;
  mxu: number;
  mload: number;
  vpu: number;
  dma: number;
  swait: number;
  vmm: number;
  idlec: number;
  qfull: number;
  ovlap: number;
  /** Clocks commit stores were really held on a full queue (the RTL's qfull counts 0). */
  trueQfullStall: number;
}

export const SEED_UNITS = ['MXU', 'VPU', 'DMA'] as const;

export class SeedTpu implements MmioDevice {
  readonly spad = new Uint8Array(64 * 1024);
  done = false;
  doneClock = -1;
  private pulseClock = 0;
  private clock = 0;
  private readonly issued = [0, 0, 0];
  private readonly stage = new Uint32Array(3);
  /** Committed commands [unit, opcode, clock]: each "runs" the clock after its commit. */
  private readonly pending: [number, number, number][] = [];
  onCommand?: (unit: number, opcode: number, startClock: number, endClock: number) => void;

  constructor(readonly opts: { reference: boolean }, readonly sram: Uint8Array) {}

  readonly spadWindow: MmioDevice = {
    isRegister: () => true,
    read: (offset) => new DataView(this.spad.buffer).getUint32(offset & 0xfffc, true),
    write: (offset, value) => { new DataView(this.spad.buffer).setUint32(offset & 0xfffc, value >>> 0, true); },
    extraWait: () => 0,
  };

  isRegister(): boolean {
    return true;
  }

  read(offset: number, clock: number): number {
    this.advanceTo(clock);
    const o = offset & 0xffc;
    if (o >= 0x40 && o < 0x70) {
      const u = (o - 0x40) >> 4, reg = (o >> 2) & 3;
      return reg === 0 || reg === 1 ? this.issued[u] : 0;
    }
    return o === 0x70 ? 0xf : 0;
  }

  write(offset: number, value: number, _wstrb: number, clock: number): void {
    this.advanceTo(clock);
    const o = offset & 0xfff;
    if ((o & 0xf00) === 0 && (o >> 4) <= 2) {
      const word = (o >> 2) & 3;
      if (word < 3) this.stage[word] = value;
      else {
        const u = (o >> 4) & 3;
        this.issued[u]++;
        this.pending.push([u, this.stage[0] & 0xff, clock + 1]);
      }
    } else if (o === 0x70 && !this.done) {
      this.done = true;
      this.doneClock = clock;
    }
  }

  extraWait(): number {
    return 0;
  }

  runPulse(clock: number): void {
    this.pulseClock = clock;
    this.done = false;
    this.doneClock = -1;
  }

  advanceTo(clock: number): void {
    while (this.pending.length > 0 && this.pending[0][2] < clock) {
      const [u, op, at] = this.pending.shift()!;
      this.onCommand?.(u, op, at, at);
    }
    if (clock > this.clock) this.clock = clock;
  }

  nextEventClock(): number {
    return Number.POSITIVE_INFINITY;
  }

  unitBusy(_u: number): boolean {
    return false;
  }

  queueLevel(_u: number): number {
    return 0;
  }

  counters(): SeedCounters {
    const end = this.done ? this.doneClock : this.clock;
    const run = Math.max(0, end - this.pulseClock);
    return { run, mxu: 0, mload: 0, vpu: 0, dma: 0, swait: 0, vmm: 0, idlec: run, qfull: 0, ovlap: 0, trueQfullStall: 0 };
  }
}
