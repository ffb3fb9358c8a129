// The seed board's memory map (cpu_subsys.sv): the AXI4-Lite slave decodes only
// address bits [31:28], so every address answers and nothing is a bus error:
//   0x0xxx_xxxx  firmware RAM, 16 KB, aliased every 16 KB (fw_mem[a[13:2]])
//   0x8xxx_xxxx  TPU MMIO (commands, status, DONE), aliased every 4 KB (a[11:0])
//   0x9xxx_xxxx  the scratchpad window, aliased every 64 KiB (a[15:0])
//   any other    reads return the firmware RAM word fw_q (a[13:2]); writes are dropped
// The CPU reads and writes the 16 KB itself; this bus sees the rest. Every access
// the RTL aliases or drops is counted (docs/seed-board.md: a warning in the
// report, never a changed result). The console and SRAM window that SeedBus
// inherits from picotpu's Bus are never mapped: the seed's SRAM is the DMA's alone
// (Machine.sramBytes).

import { Bus, type MmioDevice } from '../../emu/bus.ts';
import type { BusTiming } from '../../emu/config.ts';
import { deviceWindow, type DeviceWindow } from '../../emu/cpu-kernel.ts';
import { SEED_TPU_BASE } from './regs.ts';
import * as timing from '../../emu/timing.ts';

// Module-local copies of the constants the hot paths read: tsx runs this code as CommonJS,
// where every imported binding is a getter call on each use.
const { SEED_WINDOW_READ_EXTRA } = timing;

/** What the seed's TPU must give the bus: its MMIO block, its scratchpad window and the DONE flag. */
export interface SeedBusDevice extends MmioDevice {
  readonly spadWindow: MmioDevice;
  /** A store to word 0, 1 or 2 of a command port (the staging register: no wait, nothing else changes). */
  stageWord(word: number, value: number, wstrb: number): void;
  /**
   * Moves the registers at offsets 0..0x7c that the CPU's kernel may answer into its device
   * window (emu/cpu-kernel.ts DeviceWindow), or leaves the window off.
   */
  placeRegisters?(window: DeviceWindow): void;
  /**
   * read(), extraWait() and repeatUntil() of one read of `offset` (0..0xffc, not aliased) in one
   * call: returns the word and leaves its wait clocks in out[0] and its promise in out[1].
   */
  readWithPromise?(offset: number, clock: number, out: Float64Array): number;
  readonly done: boolean;
  /** Set when an access can never complete (the MXU starved, docs/seed-board.md): the board hangs. */
  readonly stuck?: boolean;
}

export interface AliasCounts {
  /** Accesses to 0x0000_4000..0x0fff_ffff: the RTL uses a[13:2] of the firmware RAM. */
  ram: number;
  /** Accesses to 0x8000_1000..0x8fff_ffff: the RTL uses a[11:0] of the MMIO block. */
  mmio: number;
  /** Accesses to 0x9001_0000..0x9fff_ffff: the RTL uses a[15:0] of the scratchpad. */
  spad: number;
  /** Accesses outside regions 0x0, 0x8 and 0x9: a read returns a firmware RAM word, a write does nothing. */
  unmapped: number;
  /** Byte and half-word stores to the scratchpad window: the RTL ignores the strobes and writes the whole word. */
  spadNarrowStores: number;
  /** The first aliased access, for the report (-1: none). */
  firstAddr: number;
  firstClock: number;
}

export const MMIO_REGION = 0x8;
export const SPAD_REGION = 0x9;

export class SeedBus extends Bus {
  readonly aliases: AliasCounts = { ram: 0, mmio: 0, spad: 0, unmapped: 0, spadNarrowStores: 0, firstAddr: -1, firstClock: -1 };
  private readonly ram32: Int32Array;
  private readonly ramMask: number;
  /** Told of a store that reached the firmware RAM through an alias (the CPU must drop its predecoded word). */
  onAliasedRamWrite: ((ramAddr: number) => void) | null = null;
  /** The word the DONE store wrote (the RTL ignores it; a testbench sees it on the bus), or null. */
  doneValue: number | null = null;
  /** A read's wait clocks and promise from SeedBusDevice.readWithPromise. */
  private readonly readOut = new Float64Array(2);

  constructor(timing: BusTiming, ramSize: number, private readonly seed: SeedBusDevice) {
    super(timing, ramSize);
    this.ram32 = new Int32Array(this.bram.buffer, 0, this.bram.length >>> 2);
    this.ramMask = ramSize - 1;
    // The TPU's busiest registers where the CPU's kernel reads and writes them itself: the
    // status words, the staging register and the commit stores' queues (read() and write()
    // below answer them the same way).
    const window = deviceWindow(this.bram);
    window.control[1] = SEED_TPU_BASE | 0;
    seed.placeRegisters?.(window);
  }

  override read(addr: number, clock: number): number {
    this.fault = false;
    this.repeatUntil = 0;
    const region = addr >>> 28;
    // The scratchpad window's read waits one clock more than the slave's others (timing.ts SEED_WINDOW_READ_EXTRA).
    this.readExtra = region === SPAD_REGION ? SEED_WINDOW_READ_EXTRA : 0;
    if (region === MMIO_REGION) {
      // The TPU's status polls: the word, its wait and its promise in one call.
      if ((addr & 0x0fff_f000) === 0 && this.seed.readWithPromise) {
        const out = this.readOut;
        const v = this.seed.readWithPromise(addr & 0xffc, clock, out);
        this.wait = out[0];
        this.checkHang();
        if (this.wait === 0) this.repeatUntil = out[1];
        return v;
      }
      if (addr & 0x0fff_f000) this.aliased('mmio', addr, clock);
      const v = this.seed.read(addr & 0xffc, clock);
      this.wait = this.seed.extraWait ? this.seed.extraWait() : 0;
      this.checkHang();
      // A status poll the TPU promises to repeat (SeedTpu.repeatUntil): the CPU may skip its loop.
      if (this.wait === 0 && !(addr & 0x0fff_f000) && this.seed.repeatUntil) this.repeatUntil = this.seed.repeatUntil(addr & 0xffc);
      return v;
    }
    if (region === SPAD_REGION) {
      if (addr & 0x0fff_0000) this.aliased('spad', addr, clock);
      const w = this.seed.spadWindow;
      const v = w.read(addr & 0xfffc, clock);
      this.wait = w.extraWait ? w.extraWait() : 0;
      this.checkHang();
      return v;
    }
    this.aliased(region === 0 ? 'ram' : 'unmapped', addr, clock);
    this.wait = 0;
    return this.ram32[(addr & this.ramMask) >>> 2];
  }

  override write(addr: number, value: number, wstrb: number, clock: number): void {
    this.fault = false;
    this.wait = 0;
    const region = addr >>> 28;
    if (region === MMIO_REGION) {
      const offset = addr & 0xffc;
      // Words 0-2 of a command port: the staging register (the commit's word 3 reads it).
      if (offset < 0x30 && (offset & 0xc) !== 0xc && !(addr & 0x0fff_f000) && !this.seed.stuck) {
        this.seed.stageWord((offset >> 2) & 3, value, wstrb);
        return;
      }
      if (addr & 0x0fff_f000) this.aliased('mmio', addr, clock);
      this.seed.write(offset, value, wstrb, clock);
      this.wait = this.seed.extraWait ? this.seed.extraWait() : 0;
      this.checkHang();
      if (offset === 0x70 && this.doneValue === null && this.seed.done) this.doneValue = value >>> 0;
      return;
    }
    if (region === SPAD_REGION) {
      if (addr & 0x0fff_0000) this.aliased('spad', addr, clock);
      if (wstrb !== 15) this.aliases.spadNarrowStores++;
      const w = this.seed.spadWindow;
      // The RTL writes s_wdata whole; PicoRV32 has already replicated a byte or half across it.
      w.write(addr & 0xfffc, value, 15, clock);
      this.wait = w.extraWait ? w.extraWait() : 0;
      this.checkHang();
      return;
    }
    if (region !== 0) {
      this.aliased('unmapped', addr, clock);
      return;
    }
    this.aliased('ram', addr, clock);
    const ramAddr = addr & this.ramMask & ~3;
    for (let lane = 0; lane < 4; lane++) if (wstrb & (1 << lane)) this.bram[ramAddr + lane] = value >>> (8 * lane);
    this.onAliasedRamWrite?.(ramAddr);
  }

  override get halted(): boolean {
    return this.seed.done || this.deviceHalt;
  }

  /**
   * The access can never complete (the RTL would hang in it until the host's
   * watchdog): stop the machine at the access, as picotpu stops at a deadlock (163).
   */
  private checkHang(): void {
    if (!this.seed.stuck) return;
    this.wait = 0;
    this.deviceHalt = true;
  }

  /** Every alias and dropped access together. */
  get aliasedAccesses(): number {
    const a = this.aliases;
    return a.ram + a.mmio + a.spad + a.unmapped;
  }

  private aliased(kind: 'ram' | 'mmio' | 'spad' | 'unmapped', addr: number, clock: number): void {
    this.aliases[kind]++;
    if (this.aliases.firstAddr < 0) {
      this.aliases.firstAddr = addr >>> 0;
      this.aliases.firstClock = clock;
    }
  }
}
