// The interactive, gdb-like debugger of `picotpu debug <elf>` (cli/debug.ts
// feeds it one command line at a time from standard input). Everything runs
// through the Stepper, one instruction at a time, so the clocks are exactly those of `picotpu run`: stopping, stepping
// and inspecting never change the timing. docs/debugging.md is the user's guide.
//
// No command ever throws a stack trace at the user: bad input gives one line
// and the prompt comes back; when the program exits or traps the reason is
// printed and everything can still be inspected.

import { regionOf, TPU_BASE } from '../bus.ts';
import { seedStatusLines } from '../seed-status.ts';
import { disassemble } from '../disasm.ts';
import { type ElfSymbol } from '../elf.ts';
import { ABI_NAMES, expandCompressed, immOf, INSNS, matchInsn, rdOf, rs1Of, rs2Of } from '../isa.ts';
import { DEFAULT_MAX_CYCLES, describeError, describeStop, hex8, Machine, type RunResult } from '../machine.ts';
import { Stepper } from '../stepper.ts';
import { tokenUnmet, unitView, waitToken } from './tpu-view.ts';
import { formatReport, type Counters } from '../../periph/counters.ts';
import { GLOBAL } from '../../periph/regs.ts';
import { SRAM_BASE, SRAM_SIZE } from '../../periph/sram.ts';

export class DebugError extends Error {}

interface Breakpoint {
  num: number;
  addr: number;
  hits: number;
  temporary: boolean;
  /** Hits still to pass over without stopping (continue N). */
  ignore: number;
}

interface Watchpoint {
  num: number;
  addr: number;
  len: number;
  what: string;
  hits: number;
}

interface Frame {
  pc: number;
  sp: number;
}

/** What the frame analysis knows at an instruction: everything relative to the function's entry sp (the CFA). */
interface FrameState {
  /** sp - CFA (<= 0), NaN when sp was set in a way the analysis does not follow. */
  spOff: number;
  /** s0 - CFA when s0 is a frame pointer, else null. */
  fpOff: number | null;
  /** Where the return address was saved (CFA-relative), or null. */
  raSlot: number | null;
  /** Where the caller's s0 was saved (CFA-relative), or null. */
  s0Slot: number | null;
  /** ra still holds the return address (true at entry, false after a call or any other write). */
  raInReg: boolean;
}

interface Decoded {
  name: string;
  rd: number;
  rs1: number;
  rs2: number;
  imm: number;
  format: string;
}

type StopKind = 'step' | 'target' | 'breakpoint' | 'watch' | 'interrupt' | 'ended' | 'limit';

interface RunSpec {
  /** Stop after this many instructions. */
  count?: number;
  /** Stop before an instruction (not the first) at which this holds. */
  target?: (pc: number, sp: number) => boolean;
  /** A breakpoint at the first instruction stops the run before it executes (gdb's `run` from the entry). */
  breakAtFirst?: boolean;
}

const SP = 2, RA = 1, S0 = 8;
const WRITES_RD = new Set(['R', 'I', 'U', 'J', 'SHIFTI', 'CSR']);

const COMMANDS = [
  'backtrace', 'break', 'clear', 'clock', 'continue', 'delete', 'disassemble', 'finish', 'help', 'info', 'next',
  'nexti', 'print', 'quit', 'restart', 'run', 'start', 'starti', 'step', 'stepi', 'tbreak', 'until', 'advance', 'watch', 'x',
];

export interface DebuggerOptions {
  maxCycles?: number;
  /** The program's file name, for the banner and messages. */
  program?: string;
}

export class Debugger {
  private machine: Machine;
  private stepper: Stepper;
  private result: RunResult | null = null;
  private limitHit = false;
  private readonly breakpoints: Breakpoint[] = [];
  private readonly watchpoints: Watchpoint[] = [];
  private readonly bpAt = new Map<number, Breakpoint>();
  private nextNum = 1;
  private readonly maxCycles: number;
  private readonly program: string;
  private readonly frameCache = new Map<number, Map<number, FrameState>>();
  /** Clock and instret of the previous stop (for `info clock`'s deltas). */
  private prevStop = { clock: 0, instret: 0 };
  private lastStop = { clock: 0, instret: 0 };
  private reportedErrors = 0;
  private lastX: { space: 'cpu' | 'spad'; addr: number; fmt: string; size: number; count: number } | null = null;
  private interrupted = false;
  /** True while a command runs the program. */
  busy = false;

  constructor(
    machine: Machine,
    private readonly create: () => Machine,
    private readonly write: (s: string | Uint8Array) => void,
    options: DebuggerOptions = {},
  ) {
    this.machine = machine;
    this.stepper = new Stepper(machine);
    this.maxCycles = options.maxCycles ?? DEFAULT_MAX_CYCLES;
    this.program = options.program ?? 'the program';
    this.attach();
  }

  private attach(): void {
    this.machine.bus.console.setSink((bytes) => this.write(bytes));
    this.lastStop = this.prevStop = { clock: this.clock(), instret: this.machine.cpu.instret };
  }

  private say(s: string): void {
    this.write(s + '\n');
  }

  interrupt(): void {
    this.interrupted = true;
  }

  banner(): void {
    const syms = this.machine.symbols.all.length;
    this.say(`picotpu debug: ${this.program} (${syms} symbols); type "help" for the commands`);
    this.say(this.where());
  }

  /** Runs one command line; returns true for quit. Never throws. */
  async execute(line: string): Promise<boolean> {
    line = line.trim();
    if (line === '' || line.startsWith('#')) return false;
    try {
      return await this.dispatch(line);
    } catch (e) {
      if (e instanceof DebugError) this.say(e.message);
      else this.say(`internal error: ${(e as Error).message ?? String(e)}`);
      this.busy = false;
      return false;
    }
  }

  private async dispatch(line: string): Promise<boolean> {
    const m = /^([A-Za-z]+)(\/\S*)?\s*(.*)$/.exec(line);
    if (!m) throw new DebugError(`unknown command "${line.split(/\s/)[0]}" (try "help")`);
    const word = m[1].toLowerCase();
    const fmt = m[2] ? m[2].slice(1) : '';
    const rest = m[3].trim();
    const args = rest === '' ? [] : rest.split(/\s+/);
    if (fmt && word !== 'x' && word !== 'p' && word !== 'print') throw new DebugError(`${word} takes no /format`);
    switch (word) {
      case 'q': case 'quit': case 'exit': return true;
      case 'h': case 'help': this.help(args[0]); return false;
      case 'b': case 'br': case 'break': this.breakCmd(rest, false); return false;
      case 'tbreak': this.breakCmd(rest, true); return false;
      case 'd': case 'delete': this.deleteCmd(args); return false;
      case 'clear': this.clearCmd(rest); return false;
      case 'watch': this.watchCmd(args); return false;
      case 's': case 'si': case 'step': case 'stepi': await this.stepCmd(args); return false;
      case 'n': case 'ni': case 'next': case 'nexti': await this.nextCmd(args); return false;
      case 'fin': case 'finish': await this.finishCmd(args); return false;
      case 'c': case 'cont': case 'continue': await this.continueCmd(args); return false;
      case 'u': case 'until': case 'advance': await this.untilCmd(rest, word === 'advance'); return false;
      case 'i': case 'info': this.infoCmd(args); return false;
      case 'x': this.examine(fmt, rest); return false;
      case 'disas': case 'disassemble': this.disasCmd(args); return false;
      case 'bt': case 'where': case 'backtrace': this.backtraceCmd(args); return false;
      case 'clock': this.noArgs(word, args); this.infoClock(); return false;
      case 'p': case 'print': this.printCmd(rest); return false;
      case 'restart': case 'starti': this.noArgs(word, args); this.restart(); return false;
      case 'run': case 'r': this.noArgs(word, args); await this.runCmd(); return false;
      case 'start': this.noArgs(word, args); await this.startCmd(); return false;
      default: throw new DebugError(`unknown command "${m[1]}" (try "help")`);
    }
  }

  private noArgs(cmd: string, args: string[]): void {
    if (args.length) throw new DebugError(`${cmd} takes no arguments`);
  }

  // ---- state ----

  private clock(): number {
    return this.result ? this.result.clocks : this.machine.cpu.cycle;
  }

  private get running(): boolean {
    return this.result === null && !this.limitHit;
  }

  private requireRunning(cmd: string): void {
    if (this.result) {
      const r = this.result;
      const how = r.reason === 'exit' ? `exited with status ${r.exit}` : `stopped (${r.reason})`;
      throw new DebugError(`${cmd}: the program is not running (it ${how} at clock ${r.clocks}); "restart" starts it again`);
    }
    if (this.limitHit) throw new DebugError(`${cmd}: the cycle limit (--max-cycles ${this.maxCycles}) has been reached`);
  }

  private sym(addr: number): string {
    return this.machine.symbols.describe(addr >>> 0);
  }

  /** `0x000000bc <main+0x4>`. */
  private addr(a: number): string {
    const s = this.sym(a);
    return `0x${hex8(a)}${s ? ` <${s}>` : ''}`;
  }

  /**
   * A data address with the object it falls in: only a sized symbol, or an
   * exact match (so the stack is not called __global_pointer$+0xea8c).
   */
  private dataAddr(a: number): string {
    const sym = this.machine.symbols.at(a >>> 0);
    const ok = sym && (sym.size > 0 || sym.addr === a >>> 0);
    return `0x${hex8(a)}${ok ? ` <${this.sym(a)}>` : ''}`;
  }

  /** Bits an instruction address must have clear: 1 with COMPRESSED_ISA (halfwords), else 3. */
  private get insnAlign(): number {
    return this.machine.cpu.compressed ? 1 : 3;
  }

  private isCode(pc: number): boolean {
    return (pc & this.insnAlign) === 0 && pc >= 0 && pc < this.machine.cpu.ramSize;
  }

  /** The instruction at pc as stored (16 bits for a compressed one) and its length in bytes. */
  private insnAt(pc: number): { word: number; len: number } {
    const cpu = this.machine.cpu;
    const len = cpu.lengthAt(pc);
    const word = cpu.wordAt(pc) >>> 0;
    return { word: len === 2 ? word & 0xffff : word, len };
  }

  /** The 32-bit form of the instruction at pc (a compressed one expanded; -1 if illegal). */
  private fullWordAt(pc: number): number {
    const { word, len } = this.insnAt(pc);
    return len === 2 ? expandCompressed(word) : word | 0;
  }

  private disasAt(pc: number): string {
    return disassemble(this.insnAt(pc).word, pc, (a) => this.sym(a), this.machine.cpu.compressed).replace('\t', ' ');
  }

  private insnText(pc: number): string {
    if (!this.isCode(pc)) return '(not in the program BRAM)';
    return this.disasAt(pc);
  }

  /** The stop line: `clock N  pc 0x... <sym+off>: insn`. */
  private where(): string {
    const pc = this.machine.cpu.pc >>> 0;
    return `clock ${this.clock()}  pc ${this.addr(pc)}: ${this.insnText(pc)}`;
  }

  private reg(n: number): number {
    return this.machine.cpu.regs[n] >>> 0;
  }

  // ---- running ----

  /**
   * Runs the program to a stop and reports it. With `quiet`, an expected stop
   * (the count or the target reached) prints nothing and is not recorded as a
   * stop: the caller (a multi-part command) reports it with noteStop().
   */
  private async run(spec: RunSpec, quiet = false): Promise<StopKind> {
    const cpu = this.machine.cpu;
    const st = this.stepper;
    let executed = 0;
    this.busy = true;
    this.interrupted = false;
    let kind: StopKind;
    let hit: Breakpoint | undefined;
    let watchText = '';
    try {
      for (;;) {
        if (executed === 0 && spec.breakAtFirst) {
          hit = this.bpAt.get(cpu.pc);
          if (hit && hit.ignore <= 0) { kind = 'breakpoint'; break; }
          hit = undefined;
        }
        if (executed > 0) {
          if (spec.count !== undefined && executed >= spec.count) { kind = 'step'; break; }
          hit = this.bpAt.get(cpu.pc);
          if (hit) {
            if (hit.ignore <= 0) { kind = 'breakpoint'; break; }
            hit.ignore--;
            hit.hits++;
          }
          if (spec.target?.(cpu.pc >>> 0, cpu.regs[SP] >>> 0)) { kind = 'target'; break; }
        }
        const pending = this.watchpoints.length ? this.pendingStore(cpu.pc >>> 0) : null;
        const more = st.step(this.maxCycles);
        if (st.executed) executed++;
        if (st.stopped !== null) {
          this.result = st.finish();
          kind = 'ended';
          break;
        }
        if (!more && !st.executed) { this.limitHit = true; kind = 'limit'; break; }
        if (pending) {
          watchText = this.watchReport(pending);
          if (watchText) { kind = 'watch'; break; }
        }
        if ((executed & 0xffff) === 0) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.interrupted) { kind = 'interrupt'; break; }
        }
      }
    } finally {
      this.busy = false;
    }
    this.machine.bus.console.flush();
    // A --strict stop names its error itself.
    if (kind === 'ended' && this.result?.reason === 'tpu-error') this.reportedErrors = this.machine.activity.errors.length;
    this.reportTpuErrors();
    switch (kind) {
      case 'breakpoint': {
        const bp = hit!;
        bp.hits++;
        this.say(`${bp.temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.num}, ${this.addr(bp.addr)} (hit ${bp.hits})`);
        if (bp.temporary) this.removeBreakpoint(bp);
        break;
      }
      case 'watch': this.write(watchText); break;
      case 'interrupt': this.say('Interrupted.'); break;
      case 'ended': this.say(this.endText(this.result!)); break;
      case 'limit': this.say(`Cycle limit reached at clock ${this.clock()} (--max-cycles ${this.maxCycles}).`); break;
      default: break;
    }
    if (!(quiet && (kind === 'step' || kind === 'target'))) this.noteStop();
    return kind;
  }

  /** Records a stop (for `info clock`'s deltas) and prints where the program is. */
  private noteStop(): void {
    this.prevStop = this.lastStop;
    this.lastStop = { clock: this.clock(), instret: this.machine.cpu.instret };
    this.say(this.where());
  }

  private endText(r: RunResult): string {
    if (r.reason === 'exit') return `program exited with status ${r.exit} at clock ${r.clocks} (${r.instret} instructions)`;
    return `program stopped: ${describeStop(r)}`;
  }

  private reportTpuErrors(): void {
    const errs = this.machine.activity.errors;
    for (; this.reportedErrors < errs.length; this.reportedErrors++) this.say(describeError(errs[this.reportedErrors]));
  }

  private parseCount(args: string[], cmd: string): number {
    if (args.length === 0) return 1;
    if (args.length > 1 || !/^\d+$/.test(args[0]) || Number(args[0]) < 1) {
      throw new DebugError(`${cmd} wants a positive number of instructions, got "${args.join(' ')}"`);
    }
    return Number(args[0]);
  }

  private async stepCmd(args: string[]): Promise<void> {
    const n = this.parseCount(args, 'step');
    this.requireRunning('step');
    await this.run({ count: n });
  }

  /** The call at pc (jal/jalr writing ra), if it is one. */
  private isCall(pc: number): boolean {
    const d = this.decodeAt(pc);
    return d !== null && (d.name === 'jal' || d.name === 'jalr') && d.rd === RA;
  }

  private async nextCmd(args: string[]): Promise<void> {
    const n = this.parseCount(args, 'next');
    this.requireRunning('next');
    for (let i = 0; i < n; i++) {
      const pc = this.machine.cpu.pc >>> 0;
      let kind: StopKind;
      if (this.isCall(pc)) {
        const sp = this.reg(SP), ret = pc + this.insnAt(pc).len;
        kind = await this.run({ target: (p, s) => p === ret && s === sp }, true);
      } else {
        kind = await this.run({ count: 1 }, true);
      }
      if (kind !== 'step' && kind !== 'target') return;
    }
    this.noteStop();
  }

  private async finishCmd(args: string[]): Promise<void> {
    this.noArgs('finish', args);
    this.requireRunning('finish');
    const frames = this.unwind(2);
    if (frames.frames.length < 2) {
      throw new DebugError(`finish: ${frames.why || 'no caller'} (${this.addr(this.machine.cpu.pc >>> 0)})`);
    }
    const caller = frames.frames[1];
    this.say(`Run till exit from #0 ${this.addr(frames.frames[0].pc)} to ${this.addr(caller.pc)}`);
    const kind = await this.run({ target: (p, s) => p === caller.pc && s === caller.sp });
    if (kind === 'target') {
      const a0 = this.reg(10);
      this.say(`Value returned: a0 = 0x${hex8(a0)} (${a0 | 0})`);
    }
  }

  private async continueCmd(args: string[]): Promise<void> {
    if (args.length > 1 || (args.length === 1 && (!/^\d+$/.test(args[0]) || Number(args[0]) < 1))) {
      throw new DebugError(`continue takes an optional positive count, got "${args.join(' ')}"`);
    }
    this.requireRunning('continue');
    if (args.length === 1) {
      // As gdb: continue N passes over the breakpoint it stopped at N-1 more times.
      const bp = this.bpAt.get(this.machine.cpu.pc >>> 0);
      if (bp) {
        bp.ignore = Number(args[0]) - 1;
        this.say(`Will ignore the next ${bp.ignore} crossing${bp.ignore === 1 ? '' : 's'} of breakpoint ${bp.num}.`);
      } else {
        this.say('Not stopped at a breakpoint; the count is ignored.');
      }
    }
    await this.run({});
  }

  private async untilCmd(rest: string, advance: boolean): Promise<void> {
    const cmd = advance ? 'advance' : 'until';
    if (advance && rest === '') throw new DebugError('advance wants a location');
    const loc = rest === '' ? null : this.codeLocation(rest, cmd);
    this.requireRunning(cmd);
    const frames = this.unwind(2).frames;
    const caller = frames.length > 1 ? frames[1] : null;
    const pc0 = this.machine.cpu.pc >>> 0, sp0 = this.reg(SP);
    const returned = (p: number, s: number) => caller !== null && p === caller.pc && s === caller.sp;
    if (loc !== null) {
      await this.run({ target: (p, s) => p === loc || returned(p, s) });
    } else if (this.isCall(pc0)) {
      await this.run({ target: (p, s) => (p === pc0 + 4 && s === sp0) || returned(p, s) });
    } else {
      // As gdb: like next, but a jump back (a loop) does not stop.
      await this.run({ target: (p, s) => (p > pc0 && s === sp0) || returned(p, s) });
    }
  }

  /** gdb's `run`: reload and reset, then run to the first breakpoint, watchpoint or the end. */
  private async runCmd(): Promise<void> {
    this.reset();
    this.say(`Starting program: ${this.program}`);
    await this.run({ breakAtFirst: true });
  }

  /** gdb's `start`: a temporary breakpoint at main, then `run`. */
  private async startCmd(): Promise<void> {
    if (!this.machine.symbols.lookup('main')) throw new DebugError('start: the program has no symbol "main" (starti stops at the first instruction)');
    this.breakCmd('main', true);
    await this.runCmd();
  }

  /** `restart`, gdb's `starti`: reload and reset, stopped at the first instruction. */
  private restart(): void {
    this.reset();
    this.say('Program reloaded and reset.');
    this.say(this.where());
  }

  private reset(): void {
    this.machine = this.create();
    this.stepper = new Stepper(this.machine);
    this.result = null;
    this.limitHit = false;
    this.reportedErrors = 0;
    this.frameCache.clear();
    for (const b of this.breakpoints) b.hits = 0;
    for (const w of this.watchpoints) w.hits = 0;
    this.attach();
  }

  // ---- breakpoints and watchpoints ----

  private breakCmd(rest: string, temporary: boolean): void {
    const addr = rest === '' ? this.machine.cpu.pc >>> 0 : this.codeLocation(rest, temporary ? 'tbreak' : 'break');
    const old = this.bpAt.get(addr);
    if (old) throw new DebugError(`breakpoint ${old.num} is already at ${this.addr(addr)}`);
    const bp: Breakpoint = { num: this.nextNum++, addr, hits: 0, temporary, ignore: 0 };
    this.breakpoints.push(bp);
    this.bpAt.set(addr, bp);
    this.say(`${temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.num} at ${this.addr(addr)}: ${this.insnText(addr)}`);
  }

  /** A code address: a symbol, number or symbol+offset in the BRAM, word-aligned. */
  private codeLocation(text: string, cmd: string): number {
    const addr = this.evaluate(text, cmd);
    if (addr >= this.machine.cpu.ramSize) throw new DebugError(`${cmd}: 0x${hex8(addr)} is not in the program ${this.machine.board.map[0].name} (0x00000000..0x${hex8(this.machine.cpu.ramSize - 1)})`);
    if (addr & this.insnAlign) {
      throw new DebugError(`${cmd}: 0x${hex8(addr)} is not ${this.insnAlign === 1 ? 'halfword' : 'word'}-aligned (instructions are ${this.insnAlign === 1 ? '2 or 4' : '4'} bytes)`);
    }
    return addr;
  }

  private removeBreakpoint(bp: Breakpoint): void {
    this.breakpoints.splice(this.breakpoints.indexOf(bp), 1);
    this.bpAt.delete(bp.addr);
  }

  private deleteCmd(args: string[]): void {
    if (args.length === 0) {
      const nb = this.breakpoints.length, nw = this.watchpoints.length;
      this.breakpoints.length = 0;
      this.watchpoints.length = 0;
      this.bpAt.clear();
      const parts = [nb ? `${nb} breakpoint${nb === 1 ? '' : 's'}` : '', nw ? `${nw} watchpoint${nw === 1 ? '' : 's'}` : ''].filter(Boolean);
      this.say(parts.length ? `Deleted ${parts.join(' and ')}.` : 'No breakpoints or watchpoints.');
      return;
    }
    for (const a of args) {
      if (/^\d+$/.test(a)) {
        const num = Number(a);
        const bp = this.breakpoints.find((b) => b.num === num);
        const wi = this.watchpoints.findIndex((w) => w.num === num);
        if (bp) { this.removeBreakpoint(bp); this.say(`Deleted breakpoint ${num} at ${this.addr(bp.addr)}`); }
        else if (wi >= 0) { this.watchpoints.splice(wi, 1); this.say(`Deleted watchpoint ${num}`); }
        else throw new DebugError(`delete: no breakpoint or watchpoint number ${num}`);
      } else {
        this.clearCmd(a);
      }
    }
  }

  private clearCmd(rest: string): void {
    if (rest === '') throw new DebugError('clear wants a location');
    const addr = this.codeLocation(rest, 'clear');
    const bp = this.bpAt.get(addr);
    if (!bp) throw new DebugError(`clear: no breakpoint at ${this.addr(addr)}`);
    this.removeBreakpoint(bp);
    this.say(`Deleted breakpoint ${bp.num} at ${this.addr(addr)}`);
  }

  private watchCmd(args: string[]): void {
    if (args.length === 0 || args.length > 2) throw new DebugError('watch wants an address or symbol, and optionally a length in bytes');
    if (/^spad:/i.test(args[0])) throw new DebugError('watch: the CPU cannot store to the scratchpad; watch BRAM or SRAM addresses');
    const addr = this.evaluate(args[0], 'watch');
    let len = 4;
    const sym = this.machine.symbols.lookup(args[0]);
    if (sym && sym.addr === addr && sym.size > 0) len = sym.size;
    if (args.length === 2) {
      if (!/^(0x[0-9a-f]+|\d+)$/i.test(args[1]) || Number(args[1]) < 1) throw new DebugError(`watch: bad length "${args[1]}"`);
      len = Number(args[1]);
    }
    if (!this.cpuMemory(addr, len)) {
      throw new DebugError(`watch: 0x${hex8(addr)}..0x${hex8(addr + len - 1)} is not all in the BRAM or all in the SRAM`);
    }
    const w: Watchpoint = { num: this.nextNum++, addr, len, what: args[0], hits: 0 };
    this.watchpoints.push(w);
    this.say(`Watchpoint ${w.num}: ${args[0]} (${this.dataAddr(addr)}, ${len} byte${len === 1 ? '' : 's'})`);
  }

  /** Before a store: which watchpoint it writes into, and the old bytes. */
  private pendingStore(pc: number): { w: Watchpoint; pc: number; addr: number; size: number; old: number[]; oldWatched: number[] } | null {
    if (!this.isCode(pc)) return null;
    const word = this.fullWordAt(pc);
    if ((word & 0x7f) !== 0x23) return null;
    const size = 1 << ((word >>> 12) & 3);
    if (size > 4) return null;
    const addr = (this.machine.cpu.regs[rs1Of(word)] + immOf('S', word)) >>> 0;
    for (const w of this.watchpoints) {
      if (addr < w.addr + w.len && addr + size > w.addr) {
        return { w, pc, addr, size, old: this.bytesAt(addr, size), oldWatched: this.bytesAt(w.addr, Math.min(w.len, 4)) };
      }
    }
    return null;
  }

  private watchReport(p: NonNullable<ReturnType<Debugger['pendingStore']>>): string {
    if (this.machine.cpu.pc === p.pc) return ''; // the store trapped: the program stop says so
    const w = p.w;
    w.hits++;
    const d = this.decodeAt(p.pc);
    const whole = w.len <= 4 && (w.len & (w.len - 1)) === 0;
    const [oldB, newB] = whole ? [p.oldWatched, this.bytesAt(w.addr, w.len)] : [p.old, this.bytesAt(p.addr, p.size)];
    const val = (b: number[]) => {
      let v = 0;
      for (let i = b.length - 1; i >= 0; i--) v = v * 256 + b[i];
      return `0x${v.toString(16).padStart(b.length * 2, '0')} (${v})`;
    };
    return `Watchpoint ${w.num}: ${w.what}: ${d ? d.name : 'store'} at ${this.addr(p.pc)} wrote ${p.size} byte${p.size === 1 ? '' : 's'} at ${this.dataAddr(p.addr)}\n`
      + `Old value = ${val(oldB)}\nNew value = ${val(newB)}\n`;
  }

  // ---- memory ----

  /** Whether [addr, addr+len) lies in the BRAM or in the SRAM. */
  private cpuMemory(addr: number, len: number): boolean {
    const end = addr + len;
    return (addr < this.machine.cpu.ramSize && end <= this.machine.cpu.ramSize) || (addr >= SRAM_BASE && end <= SRAM_BASE + SRAM_SIZE);
  }

  /** Bytes of the BRAM or SRAM (the caller checked the range). */
  private bytesAt(addr: number, len: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < len; i++) {
      const a = addr + i;
      out.push(a < this.machine.cpu.ramSize ? this.machine.bus.bram[a] : this.machine.bus.sram.bytes[a - SRAM_BASE]);
    }
    return out;
  }

  private examine(fmtText: string, rest: string): void {
    let space: 'cpu' | 'spad' = 'cpu';
    let addr: number;
    const m = /^(\d*)([a-z]*)$/i.exec(fmtText);
    if (!m) throw new DebugError(`x: bad format "/${fmtText}" (x/NFU: count, format x d u c s i, size b h w)`);
    let fmt = this.lastX?.fmt ?? 'x';
    let size = this.lastX?.size ?? 4;
    for (const ch of m[2].toLowerCase()) {
      if ('xducsi'.includes(ch)) fmt = ch;
      else if (ch === 'b') size = 1;
      else if (ch === 'h') size = 2;
      else if (ch === 'w') size = 4;
      else throw new DebugError(`x: unknown format letter "${ch}" (formats x d u c s i, sizes b h w)`);
    }
    const count = m[1] ? Number(m[1]) : rest === '' && fmtText === '' && this.lastX ? this.lastX.count : 1;
    if (count < 1 || count > 4096) throw new DebugError('x: the count must be 1..4096');
    if (rest === '') {
      if (!this.lastX) throw new DebugError('x wants an address, a symbol or a $register');
      space = this.lastX.space;
      addr = this.lastX.addr;
    } else if (/^spad:/i.test(rest)) {
      space = 'spad';
      addr = this.evaluate(rest.slice(5), 'x');
    } else {
      addr = this.evaluate(rest, 'x');
    }
    if (fmt === 'c') size = 1;
    if (fmt === 's') size = 1;
    if (fmt === 'i') size = 4;
    const next = space === 'spad' ? this.examineSpad(addr, count, fmt, size) : this.examineCpu(addr, count, fmt, size);
    this.lastX = { space, addr: next, fmt, size, count };
  }

  private label(space: 'cpu' | 'spad', a: number): string {
    return space === 'spad' ? `spad:0x${a.toString(16).padStart(4, '0')}` : this.dataAddr(a);
  }

  private examineSpad(addr: number, count: number, fmt: string, size: number): number {
    const spad = this.machine.seed ? this.machine.seed.spad : this.machine.tpu.spad;
    if (fmt === 'i') throw new DebugError('x/i: the scratchpad holds no instructions');
    const len = fmt === 's' ? 1 : count * size;
    if (addr + len > spad.length) {
      throw new DebugError(`x: spad:0x${addr.toString(16)}+${len} is past the end of the ${spad.length / 1024} KiB scratchpad`);
    }
    return this.dump('spad', addr, count, fmt, size, (a) => (a < spad.length ? spad[a] : null));
  }

  private examineCpu(addr: number, count: number, fmt: string, size: number): number {
    if (fmt === 'i') {
      if (!this.isCode(addr)) throw new DebugError(`x/i: 0x${hex8(addr)} is not an instruction address in the program ${this.machine.board.map[0].name}`);
      let a = addr;
      for (let i = 0; i < count && a < this.machine.cpu.ramSize; i++) {
        this.say(this.disasLine(a));
        a += this.insnAt(a).len;
      }
      return a;
    }
    if (this.machine.seed) {
      // The seed board: the firmware RAM (the MMIO block has side effects; the scratchpad is spad:0x...).
      const ram = this.machine.bus.bram;
      if (fmt !== 's' && addr + count * size > ram.length) {
        throw new DebugError(`x: 0x${hex8(addr)}+${count * size} is not in the seed board's firmware RAM (0x00000000..0x${hex8(ram.length - 1)}); the scratchpad is spad:0x...`);
      }
      return this.dump('cpu', addr, count, fmt, size, (a) => (a < ram.length ? ram[a] : null));
    }
    const region = regionOf(addr);
    if (region === 'TPU registers') return this.examineTpu(addr, count, fmt, size);
    if (region !== 'BRAM' && region !== 'SRAM') {
      throw new DebugError(`x: 0x${hex8(addr)} is ${region === 'unmapped' ? 'unmapped' : `a ${region} register (reading it has side effects)`}; `
        + 'x reads the BRAM (0x00000000..), the SRAM (0x40000000..), the TPU registers (0x20000000..) and the scratchpad (spad:0x...)');
    }
    if (fmt !== 's' && !this.cpuMemory(addr, count * size)) {
      throw new DebugError(`x: 0x${hex8(addr)}+${count * size} runs past the end of the ${region}`);
    }
    const bram = this.machine.bus.bram, sram = this.machine.bus.sram.bytes;
    const inBram = addr < this.machine.cpu.ramSize;
    return this.dump('cpu', addr, count, fmt, size, (a) => {
      if (inBram) return a < this.machine.cpu.ramSize ? bram[a] : null;
      return a >= SRAM_BASE && a < SRAM_BASE + SRAM_SIZE ? sram[a - SRAM_BASE] : null;
    });
  }

  private examineTpu(addr: number, count: number, fmt: string, size: number): number {
    if (size !== 4 || (addr & 3) || fmt === 's' || fmt === 'c') throw new DebugError('x: the TPU registers are read as words: x/Nw or x/Nxw');
    const tpu = this.machine.tpu;
    const vals: string[] = [];
    for (let i = 0; i < count; i++) {
      const off = addr - TPU_BASE + 4 * i;
      if (!tpu.isRegister(off)) {
        if (vals.length) this.say(`${this.label('cpu', addr)}:\t${vals.join('\t')}`);
        throw new DebugError(`x: 0x${hex8(addr + 4 * i)} is not a TPU register`);
      }
      vals.push(this.fmtValue(tpu.peek(off, tpu.clock), fmt, 4));
    }
    for (let i = 0; i < vals.length; i += 4) this.say(`${this.label('cpu', addr + 4 * i)}:\t${vals.slice(i, i + 4).join('\t')}`);
    return addr + 4 * count;
  }

  private fmtValue(v: number, fmt: string, size: number): string {
    const bits = size * 8;
    const u = size === 4 ? v >>> 0 : v & ((1 << bits) - 1);
    switch (fmt) {
      case 'd': return String(size === 4 ? u | 0 : (u << (32 - bits)) >> (32 - bits));
      case 'u': return String(u);
      case 'c': {
        const esc: Record<number, string> = { 0: '\\0', 9: '\\t', 10: '\\n', 13: '\\r', 39: "\\'", 92: '\\\\' };
        const ch = esc[u] ?? (u >= 32 && u < 127 ? String.fromCharCode(u) : `\\${u.toString(8).padStart(3, '0')}`);
        return `${u} '${ch}'`;
      }
      default: return `0x${u.toString(16).padStart(size * 2, '0')}`;
    }
  }

  /** Prints count units from addr; returns the address after them. */
  private dump(space: 'cpu' | 'spad', addr: number, count: number, fmt: string, size: number, byte: (a: number) => number | null): number {
    if (fmt === 's') {
      let a = addr;
      for (let k = 0; k < count; k++) {
        let s = '';
        const start = a;
        for (;;) {
          const b = byte(a);
          if (b === null) break;
          a++;
          if (b === 0) break;
          s += String.fromCharCode(b);
          if (s.length >= 400) { s += '...'; break; }
        }
        this.say(`${this.label(space, start)}:\t${JSON.stringify(s)}`);
        if (byte(a) === null) break;
      }
      return a;
    }
    const perLine = size === 4 ? 4 : 8;
    for (let i = 0; i < count; i += perLine) {
      const vals: string[] = [];
      for (let j = i; j < Math.min(count, i + perLine); j++) {
        let v = 0;
        for (let k = size - 1; k >= 0; k--) v = v * 256 + (byte(addr + j * size + k) ?? 0);
        vals.push(this.fmtValue(v, fmt, size));
      }
      this.say(`${this.label(space, addr + i * size)}:\t${vals.join('\t')}`);
    }
    return addr + count * size;
  }

  // ---- expressions ----

  /** `sym`, `sym+0x10`, `0x104`, `$sp+8`, `*0x104` (as gdb writes code addresses); 32-bit unsigned. */
  evaluate(text: string, cmd: string): number {
    let s = text.trim();
    if (s.startsWith('*')) s = s.slice(1).trim();
    if (s === '') throw new DebugError(`${cmd} wants an address, a symbol or a $register`);
    const re = /\s*([+-]?)\s*(0x[0-9a-f_]+|\d[\d_]*|\$[a-z][a-z0-9]*|[a-z_.][\w.$]*)\s*/iy;
    let pos = 0, value = 0, first = true;
    while (pos < s.length) {
      re.lastIndex = pos;
      const m = re.exec(s);
      if (!m || (!first && m[1] === '')) throw new DebugError(`${cmd}: cannot read "${text.trim()}" (an address, symbol, $register, or sum of them)`);
      const v = this.term(m[2], cmd);
      value = m[1] === '-' ? value - v : value + v;
      pos = re.lastIndex;
      first = false;
    }
    return value >>> 0;
  }

  private term(t: string, cmd: string): number {
    if (/^(0x|\d)/i.test(t)) {
      const v = /^0x/i.test(t) ? Number.parseInt(t.slice(2).replace(/_/g, ''), 16) : Number(t.replace(/_/g, ''));
      if (!Number.isSafeInteger(v) || v > 0xffffffff) throw new DebugError(`${cmd}: bad number "${t}"`);
      return v;
    }
    if (t.startsWith('$')) {
      const name = t.slice(1).toLowerCase();
      if (name === 'pc') return this.machine.cpu.pc >>> 0;
      const r = regIndex(name);
      if (r < 0) throw new DebugError(`${cmd}: no register "${t}" (ABI names, x0..x31, $pc)`);
      return this.reg(r);
    }
    const sym = this.machine.symbols.lookup(t);
    if (!sym) throw new DebugError(`${cmd}: no symbol "${t}" in ${this.program}`);
    return sym.addr;
  }

  private printCmd(rest: string): void {
    if (rest === '') throw new DebugError('print wants a $register, a symbol or an expression');
    const v = this.evaluate(rest, 'print');
    const name = rest.trim();
    const sym = /^[a-z_.][\w.$]*$/i.test(name) ? this.machine.symbols.lookup(name) : undefined;
    if (sym) { this.printSymbol(sym); return; }
    const label = this.dataAddr(v).slice(10);
    const region = regionOf(v);
    const note = label || (region !== 'unmapped' && v >= 0x100 ? ` (${region})` : '');
    this.say(`${name} = 0x${hex8(v)} (${v | 0})${note}`);
  }

  private printSymbol(sym: ElfSymbol): void {
    const kind = sym.isFunction ? 'function' : sym.size > 0 ? 'object' : 'symbol';
    const size = sym.size > 0 ? `, ${sym.size} bytes` : '';
    const region = regionOf(sym.addr);
    this.say(`${sym.name} = 0x${hex8(sym.addr)} (${kind}${size}, ${region})`);
    if (sym.isFunction || !this.cpuMemory(sym.addr, Math.max(1, sym.size))) return;
    if (sym.size === 1 || sym.size === 2 || sym.size === 4) {
      const b = this.bytesAt(sym.addr, sym.size);
      let v = 0;
      for (let i = b.length - 1; i >= 0; i--) v = v * 256 + b[i];
      this.say(`  value 0x${v.toString(16).padStart(sym.size * 2, '0')} (${sym.size === 4 ? v | 0 : v})`);
    } else if (sym.size > 4) {
      const n = Math.min(sym.size >>> 2, 8);
      const words: string[] = [];
      for (let i = 0; i < n; i++) {
        const b = this.bytesAt(sym.addr + 4 * i, 4);
        words.push(`0x${hex8(b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24))}`);
      }
      const more = sym.size > 4 * n ? ` ... (x/${Math.ceil(sym.size / 4)}xw ${sym.name} for all)` : '';
      this.say(`  words ${words.join(' ')}${more}`);
    }
  }

  // ---- info ----

  private infoCmd(args: string[]): void {
    const what = (args[0] ?? '').toLowerCase();
    const rest = args.slice(1);
    if ('breakpoints'.startsWith(what) && what.length >= 1 || what === 'watchpoints' || what === 'watch') {
      this.infoBreakpoints();
    } else if (what.length >= 1 && 'registers'.startsWith(what)) {
      this.infoRegisters(rest);
    } else if (what === 'units' || what === 'tpu' || what === 'unit') {
      this.infoUnits();
    } else if (what === 'clock' || what === 'clocks') {
      this.infoClock();
    } else if (what === 'symbol') {
      if (rest.length === 0) throw new DebugError('info symbol wants an address');
      const a = this.evaluate(rest.join(' '), 'info symbol');
      const s = this.sym(a);
      this.say(s ? `0x${hex8(a)} is ${s} (${regionOf(a)})` : `no symbol matches 0x${hex8(a)} (${regionOf(a)})`);
    } else if (what === 'frame') {
      this.backtraceCmd(['1']);
    } else {
      throw new DebugError(`info wants one of: breakpoints, registers, units, clock, symbol, frame${what ? ` (not "${args[0]}")` : ''}`);
    }
  }

  private infoBreakpoints(): void {
    if (this.breakpoints.length === 0 && this.watchpoints.length === 0) { this.say('No breakpoints or watchpoints.'); return; }
    this.say('Num  Type        Hits  Where');
    const rows: [number, string][] = [];
    for (const b of this.breakpoints) {
      rows.push([b.num, `${String(b.num).padEnd(4)} ${(b.temporary ? 'tbreakpoint' : 'breakpoint').padEnd(11)} ${String(b.hits).padStart(4)}  ${this.addr(b.addr)}: ${this.insnText(b.addr)}`]);
    }
    for (const w of this.watchpoints) {
      rows.push([w.num, `${String(w.num).padEnd(4)} ${'watchpoint'.padEnd(11)} ${String(w.hits).padStart(4)}  ${w.what}: ${this.dataAddr(w.addr)}, ${w.len} byte${w.len === 1 ? '' : 's'}`]);
    }
    rows.sort((a, b) => a[0] - b[0]);
    for (const [, r] of rows) this.say(r);
  }

  private infoRegisters(names: string[]): void {
    const regs = names.length ? names.map((n) => {
      const k = n.replace(/^\$/, '').toLowerCase();
      if (k === 'pc') return 32;
      const r = regIndex(k);
      if (r < 0) throw new DebugError(`info registers: no register "${n}"`);
      return r;
    }) : [...Array(33).keys()];
    for (const r of regs) {
      if (r === 32) { this.say(`pc    ${this.addr(this.machine.cpu.pc >>> 0)}`); continue; }
      const v = this.reg(r);
      const note = r === RA && v !== 0 && v < this.machine.cpu.ramSize && this.sym(v) ? `  <${this.sym(v)}>` : '';
      this.say(`${ABI_NAMES[r].padEnd(5)} 0x${hex8(v)}  ${String(v | 0).padStart(11)}${note}`);
    }
  }

  private infoClock(): void {
    const c = this.clock(), i = this.machine.cpu.instret;
    const hz = this.machine.config.clockHz;
    const mhz = Number.isInteger(hz / 1e6) ? String(hz / 1e6) : (hz / 1e6).toFixed(3);
    const ms = (c / hz) * 1000;
    const dc = c - this.prevStop.clock, di = i - this.prevStop.instret;
    this.say(`clock ${c} (${ms.toFixed(3)} ms at ${mhz} MHz), ${i} instructions retired, CPI ${(c / Math.max(1, i)).toFixed(2)}`);
    this.say(`since the previous stop: ${dc} clocks, ${di} instructions`);
  }

  private infoUnits(): void {
    if (this.machine.seed) {
      for (const line of seedStatusLines(this.machine, this.machine.cpu.cycle)) this.say(line);
      return;
    }
    const tpu = this.machine.tpu;
    const now = tpu.clock;
    this.say(`TPU at clock ${now}`);
    for (const u of tpu.units) {
      const v = unitView(u);
      const state = `${v.busy ? 'busy' : 'idle'}, ${v.queued} queued${v.error ? ', ERROR bit' : ''}`;
      this.say(`${v.name}  STATUS 0x${hex8(v.status)} (${state})  ISSUED ${v.issued}  DONE ${v.done}`);
      if (u.running) {
        const cmd = u.running;
        this.say(`  running #${cmd.serial}: ${u.rules.describe(cmd)}${this.tokenText(cmd.token, false)}`);
        this.say(`           pushed at clock ${cmd.pushClock}, started at ${u.runningStart}, busy ${now - u.runningStart} of about ${u.rules.nominalClocks(cmd)} clocks`);
      }
      u.fifo.forEach((cmd, i) => {
        let why = '';
        if (i === 0 && !u.running) {
          if (tokenUnmet(tpu, cmd.token)) why = '  <- waiting for its token';
          else if (u.headReady() > now) why = `  <- may start at clock ${u.headReady()}`;
        }
        this.say(`  queued  #${cmd.serial}: ${u.rules.describe(cmd)}${this.tokenText(cmd.token, true)} (pushed at clock ${cmd.pushClock})${why}`);
      });
    }
    const err = tpu.peek(GLOBAL.ERROR, now) >>> 0;
    this.say(`ERROR 0x${hex8(err)}${err ? '' : ' (none)'}; ${tpu.errors.length} command${tpu.errors.length === 1 ? '' : 's'} dropped so far`);
    for (const e of tpu.errors.slice(-3)) this.say(`  ${describeError(e)}`);
    this.counters('whole run', tpu.whole);
    if (tpu.usedPerfCtrl) {
      // Whether the window is open is the TPU's own state (PERF_CTRL is write-only).
      this.counters(`PERF_CTRL window, ${tpu.perfCounting ? 'counting' : 'frozen'}`, tpu.window);
    }
  }

  private tokenText(token: number, withState: boolean): string {
    const t = waitToken(token);
    if (!t) return '';
    const done = this.machine.tpu.units[t.unit - 1].done;
    const state = withState ? `, now ${done}${done >= t.ticket ? ': met' : ''}` : '';
    return ` [after ${t.unitName} DONE >= ${t.ticket}${state}]`;
  }

  private counters(title: string, c: Counters): void {
    const snap = c.snapshot();
    this.say(`counters (${title}):`);
    const lines = formatReport(snap, this.machine.config.clockHz).trimEnd().split('\n');
    const pct = snap.cycles ? ((100 * snap.depWait) / snap.cycles).toFixed(1) : '0.0';
    lines.push(`a unit waited on a wait token ${snap.depWait} ${pct}% (DMA ${snap.depWaitByUnit.DMA}, MXU ${snap.depWaitByUnit.MXU}, VPU ${snap.depWaitByUnit.VPU})`);
    for (const l of lines) this.say(`  ${l}`);
  }

  // ---- disassembly ----

  private disasLine(a: number): string {
    const { word, len } = this.insnAt(a);
    const hex = len === 2 ? word.toString(16).padStart(4, '0').padEnd(8) : hex8(word);
    const mark = a === this.machine.cpu.pc >>> 0 ? '=> ' : '   ';
    const bp = this.bpAt.get(a);
    const s = this.sym(a);
    const tag = bp ? `   # breakpoint ${bp.num}` : '';
    return `${mark}0x${hex8(a)} ${`<${s}>:`.padEnd(22)} ${hex}  ${this.disasAt(a)}${tag}`;
  }

  private disasCmd(args: string[]): void {
    if (args.length > 2) throw new DebugError('disassemble wants at most a location and a count');
    let count = 12;
    if (args.length === 2) {
      if (!/^\d+$/.test(args[1]) || Number(args[1]) < 1) throw new DebugError(`disassemble: bad count "${args[1]}"`);
      count = Math.min(Number(args[1]), 4096);
    }
    let start: number;
    if (args.length === 0) {
      const pc = this.machine.cpu.pc >>> 0;
      if (!this.isCode(pc)) throw new DebugError(`disassemble: pc 0x${hex8(pc)} is not in the program BRAM`);
      const fn = this.functionRange(pc);
      start = Math.max(fn ? fn.start : 0, pc - 16);
    } else {
      start = this.codeLocation(args[0], 'disassemble');
      const sym = this.machine.symbols.lookup(args[0]);
      if (sym && sym.isFunction && args.length === 1) {
        // A function name: the whole function (up to 256 instructions).
        const fn = this.functionRange(sym.addr);
        if (fn) count = Math.min(this.insnCount(fn.start, fn.end), 256);
      }
    }
    for (let a = start, i = 0; i < count && a < this.machine.cpu.ramSize; i++) {
      this.say(this.disasLine(a));
      a += this.insnAt(a).len;
    }
  }

  /** Instructions in [start, end). */
  private insnCount(start: number, end: number): number {
    let n = 0;
    for (let a = start; a < end && a < this.machine.cpu.ramSize; a += this.insnAt(a).len) n++;
    return n;
  }

  // ---- frames ----

  private decodeAt(pc: number): Decoded | null {
    if (!this.isCode(pc)) return null;
    const w = this.fullWordAt(pc);
    const k = w === -1 ? -1 : matchInsn(w);
    if (k < 0) return null;
    const d = INSNS[k];
    return { name: d.name, rd: rdOf(w), rs1: rs1Of(w), rs2: rs2Of(w), imm: immOf(d.format, w), format: d.format };
  }

  /** [start, end) of the function containing pc: its symbol, sized or up to the next symbol. */
  private functionRange(pc: number): { start: number; end: number; name: string } | null {
    const sym = this.machine.symbols.at(pc);
    if (!sym || sym.addr >= this.machine.cpu.ramSize) return null;
    let end = sym.size > 0 ? sym.addr + sym.size : this.machine.cpu.ramSize;
    if (sym.size === 0) for (const s of this.machine.symbols.all) if (s.addr > sym.addr && s.addr < end) end = s.addr;
    return { start: sym.addr, end: Math.min(end, this.machine.cpu.ramSize), name: sym.name };
  }

  /** The effect of one instruction on the frame state. */
  private applyFrame(d: Decoded | null, s: FrameState): FrameState {
    const n = { ...s };
    if (!d) return n;
    const { name, rd, rs1, rs2, imm } = d;
    if (name === 'sw' && rs1 === SP && Number.isFinite(n.spOff)) {
      if (rs2 === RA) n.raSlot = n.spOff + imm;
      if (rs2 === S0) n.s0Slot = n.spOff + imm;
    } else if (name === 'sw' && rs1 === S0 && n.fpOff !== null) {
      if (rs2 === RA) n.raSlot = n.fpOff + imm;
      if (rs2 === S0) n.s0Slot = n.fpOff + imm;
    }
    if (!WRITES_RD.has(d.format) || rd === 0) return n;
    if (rd === SP) {
      if (name === 'addi' && rs1 === SP) n.spOff += imm;
      else if (name === 'addi' && rs1 === S0 && n.fpOff !== null) n.spOff = n.fpOff + imm;
      else n.spOff = Number.NaN;
    } else if (rd === S0) {
      n.fpOff = name === 'addi' && rs1 === SP && Number.isFinite(n.spOff) ? n.spOff + imm : null;
    } else if (rd === RA) {
      const restore = name === 'lw' && rs1 === SP && n.raSlot !== null && n.spOff + imm === n.raSlot;
      n.raInReg = restore;
    }
    return n;
  }

  /** Frame states at every instruction of a function reached from its entry (a forward data-flow pass). */
  private analyze(start: number, end: number): Map<number, FrameState> {
    const cached = this.frameCache.get(start);
    if (cached) return cached;
    const states = new Map<number, FrameState>();
    const work: number[] = [start];
    states.set(start, { spOff: 0, fpOff: null, raSlot: null, s0Slot: null, raInReg: true });
    while (work.length) {
      const pc = work.pop()!;
      const d = this.decodeAt(pc);
      const after = this.applyFrame(d, states.get(pc)!);
      const succ: number[] = [];
      const next = pc + this.insnAt(pc).len;
      if (!d) { /* data or an illegal word: the path ends */ } else if (d.format === 'B') {
        succ.push(next, (pc + d.imm) >>> 0);
      } else if (d.name === 'jal') {
        succ.push(d.rd === 0 ? (pc + d.imm) >>> 0 : next); // j: a jump (or a tail call); jal: a call
      } else if (d.name === 'jalr') {
        if (d.rd !== 0) succ.push(next); // ret / jr end the path
      } else if (d.name !== 'ecall' && d.name !== 'ebreak') {
        succ.push(next);
      }
      for (const t of succ) {
        if (t < start || t >= end || states.has(t)) continue;
        states.set(t, after);
        work.push(t);
      }
    }
    this.frameCache.set(start, states);
    return states;
  }

  /** The frame state at pc: the data-flow pass, else a straight scan from the function's start. */
  private frameStateAt(pc: number): { state: FrameState; fn: string } | null {
    const fn = this.functionRange(pc);
    if (!fn) return null;
    const known = this.analyze(fn.start, fn.end).get(pc);
    if (known) return { state: known, fn: fn.name };
    let s: FrameState = { spOff: 0, fpOff: null, raSlot: null, s0Slot: null, raInReg: true };
    for (let a = fn.start; a < pc; a += this.insnAt(a).len) s = this.applyFrame(this.decodeAt(a), s);
    return { state: s, fn: fn.name };
  }

  private word(addr: number): number | null {
    if (!this.cpuMemory(addr, 4) || (addr & 3)) return null;
    const b = this.bytesAt(addr, 4);
    return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
  }

  /** Walks the stack: frame 0 is the current pc; each caller's pc is the return address. */
  unwind(max = 1000): { frames: Frame[]; why: string } {
    const cpu = this.machine.cpu;
    let pc = cpu.pc >>> 0, sp = this.reg(SP), s0 = this.reg(S0);
    const ra = this.reg(RA);
    const frames: Frame[] = [];
    for (let depth = 0; depth < max; depth++) {
      frames.push({ pc, sp });
      if (depth + 1 >= max) break;
      const at = this.frameStateAt(pc);
      if (!at) return { frames, why: `no symbol covers 0x${hex8(pc)}` };
      const st = at.state;
      if (pc === 0 || at.fn === '_start') return { frames, why: 'outermost frame' };
      let cfa: number;
      if (Number.isFinite(st.spOff)) cfa = (sp - st.spOff) >>> 0;
      else if (st.fpOff !== null) cfa = (s0 - st.fpOff) >>> 0;
      else return { frames, why: `${at.fn} moves sp in a way the frame walk does not follow` };
      let ret: number | null;
      if (depth === 0 && st.raInReg) ret = ra;
      else if (st.raSlot !== null) ret = this.word(cfa + st.raSlot);
      else return { frames, why: `no saved return address found in ${at.fn}` };
      if (ret === null || ret === 0 || !this.isCode(ret)) {
        return { frames, why: `bad return address${ret === null ? '' : ` 0x${hex8(ret)}`} in ${at.fn}` };
      }
      if (st.s0Slot !== null) s0 = this.word(cfa + st.s0Slot) ?? s0;
      if (cfa === sp && ret === pc) return { frames, why: 'the frame does not move' };
      pc = ret;
      sp = cfa;
    }
    return { frames, why: '' };
  }

  private backtraceCmd(args: string[]): void {
    let limit = 1000;
    if (args.length) {
      if (args.length > 1 || !/^\d+$/.test(args[0]) || Number(args[0]) < 1) throw new DebugError(`backtrace wants a number of frames, got "${args.join(' ')}"`);
      limit = Number(args[0]);
    }
    const { frames, why } = this.unwind(limit + 1);
    frames.slice(0, limit).forEach((f, i) => {
      this.say(`#${String(i).padEnd(3)} ${this.addr(f.pc)}  sp 0x${hex8(f.sp)}`);
    });
    if (frames.length > limit) this.say('(more frames follow)');
    else if (why && why !== 'outermost frame') this.say(`(backtrace stopped: ${why})`);
  }

  // ---- help and completion ----

  private help(topic?: string): void {
    if (topic) {
      const t = topic.toLowerCase();
      const entry = HELP.find(([names]) => names.split(/[ ,|/]+/).some((n) => n === t));
      if (!entry) throw new DebugError(`help: no command "${topic}"`);
      this.say(`${entry[0]}: ${entry[1]}`);
      return;
    }
    this.say('Commands (locations: a symbol, 0x address, symbol+0x10, $reg; memory also spad:0x1234):');
    for (const [names, text] of HELP) this.say(`  ${names.padEnd(28)} ${text.split('. ')[0].replace(/\.$/, '')}`);
  }

  /** readline completion: commands first, then symbols and registers. */
  complete(line: string): [string[], string] {
    const words = line.split(/\s+/);
    const last = words[words.length - 1];
    if (words.length <= 1) return [COMMANDS.filter((c) => c.startsWith(last)), last];
    if (words[0] === 'info') return [['breakpoints', 'registers', 'units', 'clock', 'symbol', 'frame'].filter((c) => c.startsWith(last)), last];
    if (last.startsWith('$')) return [['$pc', ...ABI_NAMES.map((n) => `$${n}`)].filter((c) => c.startsWith(last)), last];
    const names = this.machine.symbols.all.map((s) => s.name).filter((n) => n.startsWith(last));
    return [[...new Set(names)].sort().slice(0, 200), last];
  }
}

function regIndex(name: string): number {
  if (name === 'fp') return S0;
  const x = /^x(\d+)$/.exec(name);
  if (x) return Number(x[1]) < 32 ? Number(x[1]) : -1;
  return (ABI_NAMES as readonly string[]).indexOf(name);
}

const HELP: [string, string][] = [
  ['break|b LOC', 'Set a breakpoint at a symbol, address or symbol+offset (break main, break 0x104, break crc32_table+0x10). Stops before the instruction there executes'],
  ['tbreak LOC', 'A breakpoint that deletes itself when hit'],
  ['delete|d [N|LOC...]', 'Delete breakpoints/watchpoints by number or location; with no argument, all of them'],
  ['clear LOC', 'Delete the breakpoint at a location'],
  ['watch LOC [LEN]', 'Stop after any CPU store that writes those bytes (a symbol\'s size, else 4), printing the old and new values. DMA writes are not seen'],
  ['info breakpoints', 'List breakpoints and watchpoints with their hit counts'],
  ['step|stepi|s [N]', 'Execute N instructions (default 1)'],
  ['next|nexti|n [N]', 'Like step, but a call (jal/jalr writing ra) runs until it returns to the next instruction in the same frame'],
  ['finish', 'Run until the current function returns to its caller (found by the frame walk), then print a0'],
  ['continue|c [N]', 'Run until a breakpoint, a watchpoint, or the program stops. With N, pass over the breakpoint it stopped at N-1 more times'],
  ['until|u [LOC]', 'Run until LOC is reached or the current function returns; without LOC, like next, but a jump back in a loop does not stop'],
  ['advance LOC', 'Same as until LOC'],
  ['info registers|i r [REG...]', 'The registers with ABI names, in hex and decimal, and pc'],
  ['x/NFU ADDR', 'Examine memory: N units, format x d u c s (string) i (instructions), size b h w. ADDR: BRAM, SRAM (0x40000000..), TPU registers (0x20000000..), scratchpad spad:0x1234, a symbol or $reg. "x" alone continues'],
  ['print|p EXPR', 'The value of a $register, a symbol (address, size, contents) or a sum such as $sp+8'],
  ['disassemble [LOC [N]]', 'Disassemble around pc (or N instructions at LOC; a function name gives the whole function), marking pc with =>'],
  ['backtrace|bt [N]', 'The call stack, by walking frames with each function\'s prologue (addi sp,sp,-N; sw ra,K(sp))'],
  ['info units', 'The TPU: each unit\'s queue with every command described, the running command, STATUS, ISSUED/DONE, errors, counters'],
  ['clock|info clock', 'The current clock, in ms at the board clock, instructions retired, and the clocks since the previous stop'],
  ['info symbol ADDR', 'The symbol+offset of an address'],
  ['run|r', 'Reload the program, reset the board and run it to a breakpoint (also one at the first instruction), a watchpoint or the end, as gdb\'s run; breakpoints stay'],
  ['start', 'A temporary breakpoint at main, then run'],
  ['restart|starti', 'Reload the program and reset the board, stopped at the first instruction; breakpoints stay'],
  ['help [CMD]', 'This list, or one command'],
  ['quit|q', 'Leave the debugger'],
];
