// The whole board: CPU, bus, memories and devices, loaded with a program and
// run to a stop. This is the API the CLI, the tests and the benchmarks share.

import { defaultConfig, type PlatformConfig } from './config.ts';
import { Bus, BRAM_SIZE } from './bus.ts';
import { Cpu, StopReason, TRAP_TEXT, TrapKind } from './cpu.ts';
import { disassemble } from './disasm.ts';
import { ElfError, parseElf, SymbolTable, type LoadedElf } from './elf.ts';
import { EXIT } from './exit-status.ts';
import { SRAM_BASE, SRAM_SIZE } from '../periph/sram.ts';
import { describeError, Tpu, type TpuError } from '../periph/tpu.ts';
import type { CounterSnapshot } from '../periph/counters.ts';

export type RunReason = 'exit' | 'trap' | 'bus-error' | 'cycle-limit' | 'tpu-error' | 'interrupted';

export interface TrapReport {
  kind: string;
  pc: number;
  word: number;
  disasm: string;
  symbol: string;
  /** Data address of a faulting load/store; the jump's own pc for a misaligned fetch after a jump (Cpu.faultAddr). */
  addr: number;
  /** A misaligned fetch after a jump or taken branch: that jump's pc and symbol+offset. */
  jumpFrom?: number;
  jumpSymbol?: string;
}

export interface RunResult {
  reason: RunReason;
  /** The process exit status: the guest's EXIT value or one of EXIT.*. */
  exit: number;
  /** What the guest wrote to EXIT, or null. */
  guestExit: number | null;
  /** Clocks since reset release at the stop. */
  clocks: number;
  instret: number;
  pc: number;
  /** symbol+offset of pc, or ''. */
  where: string;
  trap: TrapReport | null;
  /** Why the TPU stopped the machine (--strict error, deadlock), or null. */
  tpuFatal: string | null;
  /** Every command the TPU dropped, with its clock. */
  tpuErrors: TpuError[];
  /** The PLATFORM.md §7 counters: the PERF_CTRL window, or the whole run. */
  counters: CounterSnapshot;
  /** Whether `counters` is a PERF_CTRL window (else the whole run). */
  perfWindow: boolean;
  /** Every closed PERF_CTRL window, in order (empty when the firmware closed none). */
  windows: CounterSnapshot[];
  /** The host signal that stopped an 'interrupted' run (SIGINT, SIGTERM, SIGPIPE: emu/run-control.ts). */
  signal?: string;
}

export interface MachineOptions {
  /** Run every TPU unit with its literal clock-by-clock reference model. */
  reference?: boolean;
  /** Stop at the first TPU error. */
  strict?: boolean;
}

export const DEFAULT_MAX_CYCLES = 10_000_000_000;

export class Machine {
  readonly config: PlatformConfig;
  readonly bus: Bus;
  readonly cpu: Cpu;
  readonly tpu: Tpu;
  private readonly strict: boolean;
  symbols = new SymbolTable([]);

  constructor(config: PlatformConfig = defaultConfig(), options: MachineOptions = {}) {
    this.config = config;
    this.bus = new Bus(config.bus);
    this.cpu = new Cpu(this.bus, config.cpu);
    this.strict = options.strict ?? false;
    this.tpu = new Tpu(config, this.bus.sram, options.reference ?? false, this.strict);
    this.tpu.onFatal = () => {
      this.bus.deviceHalt = true;
    };
    // A new command can bring the next possible error earlier: re-plan the CPU's run.
    if (this.strict) this.tpu.onPush = () => { this.bus.yieldCpu = true; };
    this.bus.tpu = this.tpu;
    this.bus.sramSharer = this.tpu;
  }

  /** Loads an ELF image (before reset, as the host would). Throws ElfError. */
  loadElf(bytes: Uint8Array): LoadedElf {
    const elf = parseElf(bytes);
    if (elf.entry !== 0) {
      throw new ElfError(`entry point is 0x${elf.entry.toString(16)}, but PicoRV32 starts at 0x00000000 (PROGADDR_RESET)`);
    }
    for (const seg of elf.segments) this.writeMemory(seg.vaddr, seg.data, seg.memsz);
    this.symbols = elf.symbols;
    return elf;
  }

  /** Puts raw bytes into the SRAM at a byte offset (the --sram FILE@OFFSET option). */
  loadSram(data: Uint8Array, offset: number): void {
    if (!Number.isInteger(offset) || offset < 0 || offset + data.length > SRAM_SIZE) {
      throw new ElfError(`${data.length} bytes at SRAM offset 0x${offset.toString(16)} do not fit the 512 KiB SRAM`);
    }
    this.bus.sram.bytes.set(data, offset);
  }

  private writeMemory(addr: number, data: Uint8Array, memsz: number): void {
    if (addr < BRAM_SIZE) {
      this.bus.bram.fill(0, addr, addr + memsz);
      this.bus.bram.set(data, addr);
      this.cpu.invalidateAll();
    } else {
      const off = addr - SRAM_BASE;
      this.bus.sram.bytes.fill(0, off, off + memsz);
      this.bus.sram.bytes.set(data, off);
    }
  }

  /** Runs until EXIT, a trap, a bus error, a TPU stop or the clock limit. */
  run(maxCycles = DEFAULT_MAX_CYCLES): RunResult {
    return this.finishRun(this.advance(maxCycles));
  }

  /**
   * Runs up to the clock `limit` (the first instruction boundary at or after
   * it) or a stop, and can be called again to go on: a run in slices has the
   * clocks of one run. Returns StopReason.LIMIT when the limit was reached.
   */
  advance(limit: number): StopReason {
    return this.strict ? this.runStrict(limit) : this.cpu.run(limit);
  }

  /** Completes a run that stopped for `reason` (also after stepping): TPU accounting, the result. */
  finishRun(reason: StopReason): RunResult {
    this.bus.console.flush();
    // Account the TPU's clocks up to the stop (commands still in flight are abandoned).
    this.tpu.advanceTo(this.result(reason).clocks);
    const r = this.result(reason);
    return this.tpu.fatal && this.bus.console.exitCode === null && r.reason !== 'trap' && r.reason !== 'bus-error'
      ? { ...r, reason: 'tpu-error', exit: EXIT.TPU_ERROR, clocks: this.cpu.cycle }
      : r;
  }

  /**
   * --strict: the CPU runs only up to the next clock at which a TPU command can
   * start (the only clocks at which a TPU error can arise), so the machine
   * stops at the first instruction boundary at or after an error's clock.
   */
  private runStrict(maxCycles: number): StopReason {
    const { cpu, tpu, bus } = this;
    for (;;) {
      const limit = Math.min(maxCycles, Math.max(tpu.nextStartClock(), cpu.cycle + 1));
      bus.yieldCpu = false;
      const reason = cpu.run(limit);
      if (reason !== StopReason.LIMIT) return reason;
      tpu.advanceTo(cpu.cycle);
      if (tpu.fatal || cpu.cycle >= maxCycles) return reason;
    }
  }

  result(reason: StopReason): RunResult {
    const cpu = this.cpu;
    const guestExit = this.bus.console.exitCode;
    const base = {
      guestExit, instret: cpu.instret, pc: cpu.pc, where: this.symbols.describe(cpu.pc), trap: null,
      tpuFatal: this.tpu.fatal, tpuErrors: this.tpu.errors, counters: this.tpu.report(), perfWindow: this.tpu.usedPerfCtrl,
      windows: this.tpu.windows.slice(),
    };
    switch (reason) {
      case StopReason.EXIT:
        return { ...base, reason: 'exit', exit: guestExit ?? 0, clocks: cpu.stopClock };
      case StopReason.TRAP:
      case StopReason.BUS_ERROR:
        return {
          ...base,
          reason: reason === StopReason.TRAP ? 'trap' : 'bus-error',
          exit: reason === StopReason.TRAP ? EXIT.TRAP : EXIT.BUS_ERROR,
          clocks: cpu.stopClock,
          trap: this.trapReport(),
        };
      default:
        return { ...base, reason: 'cycle-limit', exit: EXIT.CYCLE_LIMIT, clocks: cpu.cycle };
    }
  }

  private trapReport(): TrapReport {
    const cpu = this.cpu;
    const pc = cpu.pc;
    const fetchable = (pc & 3) === 0 && pc < BRAM_SIZE;
    const word = fetchable ? cpu.wordAt(pc) >>> 0 : 0;
    return {
      kind: TRAP_TEXT[cpu.trapKind],
      pc,
      word,
      disasm: fetchable ? disassemble(word, pc, (a) => this.symbols.describe(a)) : '',
      symbol: this.symbols.describe(pc),
      addr: cpu.faultAddr,
      ...(cpu.trapKind === TrapKind.MISALIGNED_FETCH && cpu.faultAddr !== pc
        ? { jumpFrom: cpu.faultAddr, jumpSymbol: this.symbols.describe(cpu.faultAddr) } : {}),
    };
  }
}

/** The one line a stop other than EXIT gets on standard error. */
export function describeStop(r: RunResult): string {
  const at = (pc: number, sym: string) => `pc 0x${hex8(pc)}${sym ? ` <${sym}>` : ''}`;
  if (r.reason === 'tpu-error') return `${r.tpuFatal} (stopped at ${at(r.pc, r.where)}, clock ${r.clocks})`;
  if (r.reason === 'interrupted') return `interrupted at clock ${r.clocks} (${r.signal})`;
  if (r.reason === 'cycle-limit') {
    return `cycle limit reached after ${r.clocks} clocks (${r.instret} instructions) at ${at(r.pc, r.where)}`;
  }
  const t = r.trap;
  if (!t) return `exit ${r.exit} after ${r.clocks} clocks`;
  const insn = t.disasm ? `: 0x${hex8(t.word)}  ${t.disasm.replace('\t', ' ')}` : '';
  const addr = /load|store/.test(t.kind) ? ` (address 0x${hex8(t.addr)})` : '';
  // PicoRV32 traps at the target; the jump that went there is what to look at.
  const jump = t.jumpFrom !== undefined ? ` (jump at ${at(t.jumpFrom, t.jumpSymbol ?? '')})` : '';
  return `${t.kind}${addr} at ${at(t.pc, t.symbol)}${jump}${insn}, clock ${r.clocks}`;
}

export function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

export { TrapKind, describeError };
