// The whole machine: a PicoRV32 core and a board's devices (emu/board.ts),
// loaded with a program and run to a stop. This is the API the CLI, the tests
// and the benchmarks share. The board decides the memory map, the TPU, the
// report and what the tools may reach; the CPU and everything that observes a
// run are the same for every board. Boards are chosen by name in
// boards/registry.ts (boards/machine.ts: a Machine with a board by name).

import { defaultConfig, type PlatformConfig } from './config.ts';
import type { Bus } from './bus.ts';
import { Cpu, StopReason, TRAP_TEXT, TrapKind } from './cpu.ts';
import { disassemble } from './disasm.ts';
import { ElfError, parseElf, SymbolTable, type LoadedElf } from './elf.ts';
import { EXIT } from './exit-status.ts';
import { describeError, type TpuError } from '../periph/tpu.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { BoardError, type Board, type BoardDevices, type BoardFigures, type BoardStop, type MemoryRegion } from './board.ts';
import type { TpuActivity } from './tpu-activity.ts';

export type RunReason = 'exit' | 'trap' | 'bus-error' | 'cycle-limit' | 'tpu-error' | 'interrupted';

export interface TrapReport {
  kind: string;
  pc: number;
  /** The instruction at pc: 16 bits for a compressed one (RV32C), else 32; 0 when pc cannot be fetched. */
  word: number;
  /** Its bytes: 2 (compressed) or 4. */
  length: number;
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
  /** The host signal that stopped an 'interrupted' run (SIGINT, SIGTERM, SIGPIPE: cli/run-control.ts). */
  signal?: string;
  /** The board's own figures (its report's and --report-json's fields beyond these), or null. */
  boardFigures: Record<string, unknown> | null;
}

export interface MachineOptions {
  /** Run every TPU unit with its literal clock-by-clock reference model. */
  reference?: boolean;
  /** Stop at the first TPU error. */
  strict?: boolean;
  /** The board's place among several joined boards (picotpu's ring, boards/picotpu/ring.ts). */
  ring?: unknown;
  /** false: the CPU without its WebAssembly fast path (emu/cpu-kernel.ts), for the tests that compare the two. */
  cpuKernel?: boolean;
}

export const DEFAULT_MAX_CYCLES = 10_000_000_000;

/** EF_RISCV_RVC: the ELF's code uses 16-bit instructions (GCC's -march=..c). */
const EF_RISCV_RVC = 0x1;

export class Machine {
  readonly board: Board;
  readonly config: PlatformConfig;
  /** What the board built: its bus, TPU activity, memories and report. */
  readonly devices: BoardDevices;
  readonly bus: Bus;
  readonly cpu: Cpu;
  /** The TPU as the run observers see it (any board). */
  readonly activity: TpuActivity;
  private readonly strict: boolean;
  symbols = new SymbolTable([]);

  constructor(config: PlatformConfig = defaultConfig(), options: MachineOptions & { board: Board }) {
    const board = options.board;
    this.board = board;
    this.config = { ...config, cpu: { ...config.cpu, ...board.cpuFixed } };
    this.strict = options.strict ?? false;
    if (this.strict && !board.strict) throw new BoardError(board.noStrictReason ?? `--strict does not apply to the ${board.name} board`);
    this.devices = board.build(this.config, { reference: options.reference ?? false, strict: this.strict, ring: options.ring });
    this.bus = this.devices.bus;
    this.activity = this.devices.activity;
    this.cpu = new Cpu(this.bus, this.config.cpu, { memInterface: board.memoryInterface, stackAddr: board.stackAddr, kernel: options.cpuKernel });
    this.devices.attachCpu(this.cpu);
  }

  /** The DMA's memory (--sram, --sram-out); a board without one has none to load. */
  get sramBytes(): Uint8Array {
    const sram = this.devices.sram;
    if (!sram) throw new BoardError(`the ${this.board.name} board has no SRAM`);
    return sram;
  }

  /** The memories the debugger and GDB reach: the firmware RAM at 0, then the board's others. */
  get memories(): readonly MemoryRegion[] {
    return [{ name: this.board.map[0]?.name ?? 'RAM', base: 0, bytes: this.bus.bram }, ...this.devices.memories];
  }

  /** The bytes at [addr, addr + len), cut at their memory's end, of the memory `addr` falls in; null outside every memory. */
  memoryAt(addr: number, len: number): Uint8Array | null {
    for (const m of this.memories) {
      const off = addr - m.base;
      if (off >= 0 && off < m.bytes.length) return m.bytes.subarray(off, Math.min(m.bytes.length, off + len));
    }
    return null;
  }

  /** The name of the region of the board's map `addr` falls in, or 'unmapped'. */
  regionOf(addr: number): string {
    return this.board.map.find((r) => addr - r.base >= 0 && addr - r.base < r.size)?.name ?? 'unmapped';
  }

  /** The memory `addr` falls in, or null. */
  memoryOf(addr: number): MemoryRegion | null {
    for (const m of this.memories) if (addr >= m.base && addr - m.base < m.bytes.length) return m;
    return null;
  }

  /**
   * Loads an ELF image (before reset, as the host would). Throws ElfError when
   * it does not fit this board: entry not 0, a segment outside its memories,
   * RV32C code for a CPU without COMPRESSED_ISA or plain code for a board
   * whose firmware is compressed (boards/machine.ts adds which board it fits).
   */
  loadElf(bytes: Uint8Array): LoadedElf {
    const elf = parseElf(bytes);
    const misfit = this.misfit(elf);
    if (misfit) throw new ElfError(misfit);
    for (const seg of elf.segments) this.writeMemory(seg.vaddr, seg.data, seg.memsz);
    this.symbols = elf.symbols;
    return elf;
  }

  /** Why `elf` does not fit this board, or null. */
  misfit(elf: LoadedElf): string | null {
    if (elf.entry !== 0) return `entry point is 0x${elf.entry.toString(16)}, but PicoRV32 starts at 0x00000000 (PROGADDR_RESET)`;
    for (const seg of elf.segments) {
      const mem = this.memoryOf(seg.vaddr);
      if (seg.memsz > 0 && (!mem || seg.vaddr + seg.memsz > mem.base + mem.bytes.length)) {
        const where = this.memories.map((m) => `${m.name} 0x${hex8(m.base)}..0x${hex8(m.base + m.bytes.length)}`).join(', ');
        return `segment at 0x${hex8(seg.vaddr)}..0x${hex8(seg.vaddr + seg.memsz)} is outside the ${this.board.name} board's memories (${where})`;
      }
    }
    const rvc = (elf.flags & EF_RISCV_RVC) !== 0;
    if (rvc && !this.config.cpu.COMPRESSED_ISA) {
      return `the program is RV32C (its ELF flags say RVC), but the ${this.board.name} board's CPU has no COMPRESSED_ISA`;
    }
    if (!rvc && this.board.cpuFixed.COMPRESSED_ISA) {
      return `the program is not RV32C (its ELF flags lack RVC), but the ${this.board.name} board's firmware is built for its RV32IC core`;
    }
    return null;
  }

  /** Puts raw bytes into the SRAM at a byte offset (the --sram FILE@OFFSET option). */
  loadSram(data: Uint8Array, offset: number): void {
    const sram = this.sramBytes;
    if (!Number.isInteger(offset) || offset < 0 || offset + data.length > sram.length) {
      throw new ElfError(`${data.length} bytes at SRAM offset 0x${offset.toString(16)} do not fit the ${sram.length / 1024} KiB SRAM`);
    }
    sram.set(data, offset);
  }

  private writeMemory(addr: number, data: Uint8Array, memsz: number): void {
    const mem = this.memoryAt(addr, memsz)!;
    mem.fill(0);
    mem.set(data.subarray(0, memsz));
    if (addr < this.cpu.ramSize) this.cpu.invalidateAll();
  }

  /** Runs until the board's stop, a trap, a bus error, a TPU stop or the clock limit. */
  run(maxCycles = DEFAULT_MAX_CYCLES): RunResult {
    return this.finishRun(this.advance(maxCycles));
  }

  /**
   * Runs up to the clock `limit` (the first instruction boundary at or after
   * it) or a stop, and can be called again to go on: a run in slices has the
   * clocks of one run. Returns StopReason.LIMIT when the limit was reached.
   */
  advance(limit: number): StopReason {
    for (;;) {
      const reason = this.strict ? this.runStrict(limit) : this.cpu.run(limit);
      if (reason !== StopReason.BLOCKED || !this.unblock) return reason;
      this.unblockAccess();
    }
  }

  /**
   * A board of a ring with a debugger attached (boards/picotpu/ring.ts Boards.attach):
   * runs the other boards until this one's TPU may process every clock before
   * `clock`. Null otherwise: a blocked access returns StopReason.BLOCKED to the caller.
   */
  unblock: ((clock: number) => void) | null = null;

  /** The CPU's run, with a blocked access resolved underneath when a debugger is attached (the Stepper's one instruction). */
  runCpu(limit: number, instrLimit = Number.POSITIVE_INFINITY): StopReason {
    for (;;) {
      const reason = this.cpu.run(limit, instrLimit);
      if (reason !== StopReason.BLOCKED || !this.unblock) return reason;
      this.unblockAccess();
    }
  }

  /** Brings the TPU's horizon past `clock`, so a tool may look at the TPU as it is then (no-op without a ring). */
  syncTo(clock: number): void {
    const horizon = this.devices.horizon;
    if (this.unblock && horizon && horizon.call(this.devices) <= clock) this.unblock(clock);
  }

  /** The restarted access's clock, plus the clocks an SRAM access brings the TPU ahead. */
  private unblockAccess(): void {
    this.unblock!(this.devices.blockedClock!() + this.config.bus.sramBridgeWait + 1);
  }

  /** Completes a run that stopped for `reason` (also after stepping): TPU accounting, the result. */
  finishRun(reason: StopReason): RunResult {
    this.bus.console.flush();
    this.devices.stopped(boardStop(reason), this.cpu.stopClock);
    // Account the TPU's clocks up to the stop (commands still in flight are abandoned).
    this.syncTo(this.result(reason).clocks);
    this.activity.advanceTo(this.result(reason).clocks);
    const r = this.result(reason);
    if (!(this.activity.fatal && this.bus.console.exitCode === null && r.reason !== 'trap' && r.reason !== 'bus-error')) return r;
    // A TPU stop ends the run at the CPU's clock: the counters count the same clocks as the run.
    this.syncTo(this.cpu.cycle);
    this.activity.advanceTo(this.cpu.cycle);
    return { ...this.result(reason), reason: 'tpu-error', exit: EXIT.TPU_ERROR, clocks: this.cpu.cycle };
  }

  /**
   * --strict: the CPU runs only up to the next clock at which a TPU command can
   * start (the only clocks at which a TPU error can arise), so the machine
   * stops at the first instruction boundary at or after an error's clock.
   */
  private runStrict(maxCycles: number): StopReason {
    const { cpu, bus, devices, activity } = this;
    for (;;) {
      const limit = Math.min(maxCycles, Math.max(devices.nextCheckClock!(), cpu.cycle + 1));
      bus.yieldCpu = false;
      const reason = cpu.run(limit);
      if (reason !== StopReason.LIMIT) return reason;
      // Up to the CPU's clock, its last clock only when a command may start in it: a fetch fault
      // found at the next instruction ends the run at cycle − 1 (Cpu.stopClock), uncounted.
      const upTo = Math.min(cpu.cycle, devices.horizon ? devices.horizon() : Number.POSITIVE_INFINITY);
      activity.advanceTo(upTo - 1);
      if (devices.nextCheckClock!() <= upTo - 1) activity.advanceTo(upTo);
      if (activity.fatal || cpu.cycle >= maxCycles) return reason;
    }
  }

  result(reason: StopReason): RunResult {
    const cpu = this.cpu;
    const guestExit = this.bus.console.exitCode;
    const { extra, ...figures } = this.devices.figures();
    const base = {
      guestExit, instret: cpu.instret, pc: cpu.pc, where: this.symbols.describe(cpu.pc), trap: null,
      ...figures, boardFigures: extra,
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

  /** The board's figures of a result, as its report and --report-json take them. */
  figuresOf(r: RunResult): BoardFigures {
    return { tpuFatal: r.tpuFatal, tpuErrors: r.tpuErrors, counters: r.counters, perfWindow: r.perfWindow, windows: r.windows, extra: r.boardFigures };
  }

  private trapReport(): TrapReport {
    const cpu = this.cpu;
    const pc = cpu.pc;
    // With RV32C an instruction may sit at a halfword address, and be one halfword long.
    const fetchable = (pc & (cpu.compressed ? 1 : 3)) === 0 && pc < cpu.ramSize;
    const length = fetchable ? cpu.lengthAt(pc) : 4;
    const word = fetchable ? (length === 2 ? cpu.wordAt(pc) & 0xffff : cpu.wordAt(pc) >>> 0) : 0;
    return {
      kind: TRAP_TEXT[cpu.trapKind],
      pc,
      word,
      length,
      disasm: fetchable ? disassemble(word, pc, (a) => this.symbols.describe(a), cpu.compressed) : '',
      symbol: this.symbols.describe(pc),
      addr: cpu.faultAddr,
      ...(cpu.trapKind === TrapKind.MISALIGNED_FETCH && cpu.faultAddr !== pc
        ? { jumpFrom: cpu.faultAddr, jumpSymbol: this.symbols.describe(cpu.faultAddr) } : {}),
    };
  }
}

function boardStop(reason: StopReason): BoardStop {
  if (reason === StopReason.EXIT) return 'exit';
  if (reason === StopReason.TRAP) return 'trap';
  if (reason === StopReason.BUS_ERROR) return 'bus-error';
  return 'cycle-limit';
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
  const bits = t.length === 2 ? t.word.toString(16).padStart(4, '0') : hex8(t.word);
  const insn = t.disasm ? `: 0x${bits}  ${t.disasm.replace('\t', ' ')}` : '';
  const addr = /load|store/.test(t.kind) ? ` (address 0x${hex8(t.addr)})` : '';
  // PicoRV32 traps at the target; the jump that went there is what to look at.
  const jump = t.jumpFrom !== undefined ? ` (jump at ${at(t.jumpFrom, t.jumpSymbol ?? '')})` : '';
  return `${t.kind}${addr} at ${at(t.pc, t.symbol)}${jump}${insn}, clock ${r.clocks}`;
}

export function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

export { TrapKind, describeError };
