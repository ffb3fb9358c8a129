// The whole board: CPU, bus, memories and devices, loaded with a program and
// run to a stop. This is the API the CLI, the tests and the benchmarks share.
// The board (emu/boards.ts) decides the memory map and the TPU: picotpu's
// (the default) or the seed's; the CPU and everything that observes a run are
// the same for both.

import { defaultConfig, type PlatformConfig } from './config.ts';
import { Bus } from './bus.ts';
import { Cpu, StopReason, TRAP_TEXT, TrapKind } from './cpu.ts';
import { disassemble } from './disasm.ts';
import { ElfError, parseElf, SymbolTable, type LoadedElf } from './elf.ts';
import { EXIT } from './exit-status.ts';
import { SRAM_BASE, SRAM_SIZE } from '../periph/sram.ts';
import { describeError, Tpu, type TpuError } from '../periph/tpu.ts';
import type { CounterSnapshot } from '../periph/counters.ts';
import { SeedTpu, type SeedCounters, type SeedHazard } from '../boards/transformer-tpu-int4/tpu.ts';
import { BoardError, BOARDS, boardNamed, type Board, type BoardName } from '../boards/registry.ts';
import { SeedBus, type AliasCounts } from '../boards/transformer-tpu-int4/bus.ts';
import { SeedActivity, type TpuActivity } from './tpu-activity.ts';
import { LinkBus } from '../boards/picotpu/link-bus.ts';
import type { RingPosition } from '../periph/link.ts';

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
  /** The host signal that stopped an 'interrupted' run (SIGINT, SIGTERM, SIGPIPE: cli/run-control.ts). */
  signal?: string;
  /** The seed board: its ten counters over the run-pulse..DONE window (or to the stop), else null. */
  seedCounters: SeedCounters | null;
  /** The seed board: accesses the RTL aliases or drops (docs/seed-board.md), else null. */
  aliases: AliasCounts | null;
  /** The seed board: the word the DONE store wrote (the RTL ignores it), or null. */
  doneValue: number | null;
  /** The seed board: what the RTL does silently and the emulator reports (periph/seed), the first few and the count. */
  hazards: { count: number; first: SeedHazard[] } | null;
}

export interface MachineOptions {
  /** Run every TPU unit with its literal clock-by-clock reference model. */
  reference?: boolean;
  /** Stop at the first TPU error. */
  strict?: boolean;
  /** The board (emu/boards.ts); picotpu when not given. */
  board?: Board | BoardName;
  /** With the link option: this board's place on the ring (emu/multi.ts); board 0 of 1 when not given. */
  ring?: RingPosition;
}

export const DEFAULT_MAX_CYCLES = 10_000_000_000;

export class Machine {
  readonly board: Board;
  readonly config: PlatformConfig;
  readonly bus: Bus;
  readonly cpu: Cpu;
  /** The seed board's TPU (periph/seed/tpu.ts), or null on picotpu. */
  readonly seed: SeedTpu | null;
  /** The TPU as the run observers see it (either board). */
  readonly activity: TpuActivity;
  private readonly picoTpu: Tpu | null;
  private readonly strict: boolean;
  symbols = new SymbolTable([]);

  constructor(config: PlatformConfig = defaultConfig(), options: MachineOptions = {}) {
    const board = typeof options.board === 'string' ? boardNamed(options.board) : options.board ?? BOARDS.picotpu;
    this.board = board;
    this.config = { ...config, cpu: { ...config.cpu, ...board.cpuFixed } };
    this.strict = options.strict ?? false;
    if (board.tpu === 'seed') {
      if (this.strict) throw new BoardError('--strict is a picotpu option: the seed\'s TPU has no errors to stop at (docs/seed-board.md)');
      const sramBytes = new Uint8Array(SRAM_SIZE);
      const seed = new SeedTpu({ reference: options.reference ?? false }, sramBytes);
      const bus = new SeedBus(config.bus, board.ramSize, seed);
      const activity = new SeedActivity(seed);
      bus.onCommit = (unit, opcode, clock, stall) => activity.committed(unit, opcode, clock, stall);
      this.bus = bus;
      this.seed = seed;
      this.activity = activity;
      this.picoTpu = null;
      this.cpu = new Cpu(this.bus, this.config.cpu, { memInterface: board.memoryInterface, stackAddr: board.stackAddr });
      // A store the RTL aliases into the firmware RAM may overwrite code.
      bus.onAliasedRamWrite = () => this.cpu.invalidateAll();
      // The host's run pulse releases the core's reset: clock 0 of the run.
      seed.runPulse(0);
      return;
    }
    // With the link, the bus restarts accesses past what the other boards have computed (emu/link-bus.ts).
    const linkBus = config.tpu.link ? new LinkBus(config.bus, board.ramSize) : null;
    this.bus = linkBus ?? new Bus(config.bus, board.ramSize);
    this.cpu = new Cpu(this.bus, this.config.cpu, { memInterface: board.memoryInterface, stackAddr: board.stackAddr });
    const tpu = new Tpu(this.config, this.bus.sram, options.reference ?? false, this.strict, options.ring);
    linkBus?.attach(tpu);
    tpu.onFatal = () => {
      this.bus.deviceHalt = true;
    };
    // A new command can bring the next possible error earlier: re-plan the CPU's run.
    if (this.strict) tpu.onPush = () => { this.bus.yieldCpu = true; };
    this.bus.tpu = tpu;
    this.bus.sramSharer = tpu;
    this.picoTpu = tpu;
    this.seed = null;
    this.activity = tpu;
  }

  /** picotpu's TPU (periph/tpu.ts). On the seed board there is none: use `seed` or `activity`. */
  get tpu(): Tpu {
    if (!this.picoTpu) throw new BoardError(`the ${this.board.name} board has no picotpu TPU`);
    return this.picoTpu;
  }

  /** The 512 KiB SRAM (the DMA's memory on both boards; CPU-visible only on picotpu). */
  get sramBytes(): Uint8Array {
    return this.seed ? this.seed.sram : this.bus.sram.bytes;
  }

  /** Loads an ELF image (before reset, as the host would). Throws ElfError. */
  loadElf(bytes: Uint8Array): LoadedElf {
    const elf = parseElf(bytes);
    if (elf.entry !== 0) {
      throw new ElfError(`entry point is 0x${elf.entry.toString(16)}, but PicoRV32 starts at 0x00000000 (PROGADDR_RESET)`);
    }
    if (this.seed) {
      // The host loads only the firmware RAM (cpu_subsys.sv fw_we): every segment must lie in it.
      const ram = this.board.ramSize;
      for (const seg of elf.segments) {
        if (seg.vaddr + seg.memsz > ram) {
          throw new ElfError(`segment at 0x${hex8(seg.vaddr)}..0x${hex8(seg.vaddr + seg.memsz)} is outside the seed board's ${ram / 1024} KB firmware RAM (0x00000000..0x${hex8(ram)})`);
        }
      }
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
    this.sramBytes.set(data, offset);
  }

  private writeMemory(addr: number, data: Uint8Array, memsz: number): void {
    if (addr < this.cpu.ramSize) {
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
    for (;;) {
      const reason = this.strict ? this.runStrict(limit) : this.cpu.run(limit);
      if (reason !== StopReason.BLOCKED || !this.unblock) return reason;
      this.unblockAccess();
    }
  }

  /**
   * A board of a ring with a debugger attached (emu/multi.ts Boards.attach):
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
    const rx = this.picoTpu?.linkRx;
    if (this.unblock && rx && rx.horizon <= clock) this.unblock(clock);
  }

  /** The restarted access's clock, plus the clocks an SRAM access brings the TPU ahead. */
  private unblockAccess(): void {
    this.unblock!((this.bus as LinkBus).blockedAt + this.config.bus.sramBridgeWait + 1);
  }

  /** Completes a run that stopped for `reason` (also after stepping): TPU accounting, the result. */
  finishRun(reason: StopReason): RunResult {
    this.bus.console.flush();
    // cpu_subsys.sv: `trap` raises `done` as the DONE store does, so the seed's counters
    // close in the trap's clock (the emulator still reports the trap, status 160/161).
    if (this.seed && !this.seed.done && (reason === StopReason.TRAP || reason === StopReason.BUS_ERROR)) {
      this.seed.write(0x70, 0, 0xf, this.cpu.stopClock);
    }
    // Account the TPU's clocks up to the stop (commands still in flight are abandoned).
    this.syncTo(this.result(reason).clocks);
    this.activity.advanceTo(this.result(reason).clocks);
    const r = this.result(reason);
    return this.activity.fatal && this.bus.console.exitCode === null && r.reason !== 'trap' && r.reason !== 'bus-error'
      ? { ...r, reason: 'tpu-error', exit: EXIT.TPU_ERROR, clocks: this.cpu.cycle }
      : r;
  }

  /**
   * --strict: the CPU runs only up to the next clock at which a TPU command can
   * start (the only clocks at which a TPU error can arise), so the machine
   * stops at the first instruction boundary at or after an error's clock.
   */
  private runStrict(maxCycles: number): StopReason {
    const { cpu, bus } = this;
    const tpu = this.tpu;
    for (;;) {
      const limit = Math.min(maxCycles, Math.max(tpu.nextStartClock(), cpu.cycle + 1));
      bus.yieldCpu = false;
      const reason = cpu.run(limit);
      if (reason !== StopReason.LIMIT) return reason;
      tpu.advanceTo(Math.min(cpu.cycle, tpu.linkRx?.horizon ?? Number.POSITIVE_INFINITY));
      if (tpu.fatal || cpu.cycle >= maxCycles) return reason;
    }
  }

  result(reason: StopReason): RunResult {
    const cpu = this.cpu;
    const guestExit = this.bus.console.exitCode;
    const base = {
      guestExit, instret: cpu.instret, pc: cpu.pc, where: this.symbols.describe(cpu.pc), trap: null,
      ...this.tpuFigures(),
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

  /** The TPU's part of a result: picotpu's counters and errors, or the seed's ten counters in PLATFORM.md §7's shape. */
  private tpuFigures(): Pick<RunResult, 'tpuFatal' | 'tpuErrors' | 'counters' | 'perfWindow' | 'windows' | 'seedCounters' | 'aliases' | 'doneValue' | 'hazards'> {
    if (this.seed) {
      const c = this.seed.counters();
      return {
        tpuFatal: this.activity.fatal, tpuErrors: [], counters: reportOfSeedCounters(c), perfWindow: true, windows: [],
        seedCounters: c, aliases: { ...(this.bus as SeedBus).aliases }, doneValue: (this.bus as SeedBus).doneValue,
        hazards: { count: this.seed.hazardCount, first: this.seed.hazards.slice() },
      };
    }
    const tpu = this.tpu;
    return {
      tpuFatal: tpu.fatal, tpuErrors: tpu.errors, counters: tpu.report(), perfWindow: tpu.usedPerfCtrl,
      windows: tpu.windows.slice(), seedCounters: null, aliases: null, doneValue: null, hazards: null,
    };
  }

  private trapReport(): TrapReport {
    const cpu = this.cpu;
    const pc = cpu.pc;
    const fetchable = (pc & 3) === 0 && pc < cpu.ramSize;
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

/**
 * The seed's counters in PLATFORM.md §7's shape: run, busy per unit (the seed's
 * definitions: mxu and vpu include their DONE clock, dma does not), idlec,
 * qfull (as the RTL counts it: 0) and ovlap.
 */
export function reportOfSeedCounters(c: SeedCounters): CounterSnapshot {
  return {
    cycles: c.run, mxuBusy: c.mxu, vpuBusy: c.vpu, dmaBusy: c.dma, idle: c.idlec, stall: c.qfull, overlap: c.ovlap,
    depWait: 0, depWaitByUnit: { DMA: 0, MXU: 0, VPU: 0 },
  };
}

export function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

export { TrapKind, describeError };
