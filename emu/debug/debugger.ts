// The interactive, gdb-like debugger of `picotpu debug <elf>` (cli/debug.ts
// feeds it one command line at a time from standard input): it reads each
// command and its arguments, asks the execution control (control.ts) to run
// or stop, and prints what it finds in the formats of format.ts. Everything
// runs through the Stepper, one instruction at a time, so the clocks are
// exactly those of `picotpu run`: stopping, stepping and inspecting never
// change the timing. docs/debugging.md is the user's guide.
//
// No command ever throws a stack trace at the user: bad input gives one line
// and the prompt comes back; when the program exits or traps the reason is
// printed and everything can still be inspected.

import { ABI_NAMES } from '../isa.ts';
import { DEFAULT_MAX_CYCLES, describeError, hex8, type Machine } from '../machine.ts';
import { ExecutionControl, nextSpec, type RunSpec, type StopKind } from './control.ts';
import {
  breakpointLines, clockLines, disasLine, dumpLines, endText, fmtValue, registerLines, symbolLines, unitsLines, watchText,
} from './format.ts';
import { FrameWalker } from './frames.ts';
import { COMMANDS, helpLines } from './help.ts';
import { DebugError, ProgramView, regIndex, SP } from './program.ts';

export { DebugError } from './program.ts';

export interface DebuggerOptions {
  maxCycles?: number;
  /** The program's file name, for the banner and messages. */
  program?: string;
}

export class Debugger {
  private view: ProgramView;
  private frames: FrameWalker;
  private readonly control: ExecutionControl;
  private readonly program: string;
  /** Clock and instret of the previous stop (for `info clock`'s deltas). */
  private prevStop = { clock: 0, instret: 0 };
  private lastStop = { clock: 0, instret: 0 };
  private reportedErrors = 0;
  private lastX: { space: 'cpu' | 'spad'; addr: number; fmt: string; size: number; count: number } | null = null;

  constructor(
    machine: Machine,
    private readonly create: () => Machine,
    private readonly write: (s: string | Uint8Array) => void,
    options: DebuggerOptions = {},
  ) {
    this.view = new ProgramView(machine);
    this.frames = new FrameWalker(this.view);
    this.control = new ExecutionControl(this.view, options.maxCycles ?? DEFAULT_MAX_CYCLES);
    this.program = options.program ?? 'the program';
    this.attach();
  }

  /** True while a command runs the program. */
  get busy(): boolean {
    return this.control.busy;
  }

  private get machine(): Machine {
    return this.view.machine;
  }

  private attach(): void {
    this.machine.bus.console.setSink((bytes) => this.write(bytes));
    this.lastStop = this.prevStop = { clock: this.clock(), instret: this.machine.cpu.instret };
  }

  private say(s: string): void {
    this.write(s + '\n');
  }

  private sayAll(lines: string[]): void {
    for (const l of lines) this.say(l);
  }

  interrupt(): void {
    this.control.interrupt();
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
      this.control.busy = false;
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
      case 'h': case 'help': this.sayAll(helpLines(args[0])); return false;
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
    return this.control.result ? this.control.result.clocks : this.machine.cpu.cycle;
  }

  private requireRunning(cmd: string): void {
    const r = this.control.result;
    if (r) {
      const how = r.reason === 'exit' ? `exited with status ${r.exit}` : `stopped (${r.reason})`;
      throw new DebugError(`${cmd}: the program is not running (it ${how} at clock ${r.clocks}); "restart" starts it again`);
    }
    if (this.control.limitHit) throw new DebugError(`${cmd}: the cycle limit (--max-cycles ${this.control.maxCycles}) has been reached`);
  }

  /** The stop line: `clock N  pc 0x... <sym+off>: insn`. */
  private where(): string {
    const pc = this.machine.cpu.pc >>> 0;
    return `clock ${this.clock()}  pc ${this.view.addr(pc)}: ${this.view.insnText(pc)}`;
  }

  // ---- running ----

  /**
   * Runs the program to a stop and reports it. With `quiet`, an expected stop
   * (the count or the target reached) prints nothing and is not recorded as a
   * stop: the caller (a multi-part command) reports it with noteStop().
   */
  private async run(spec: RunSpec, quiet = false): Promise<StopKind> {
    const stop = await this.control.run(spec);
    const kind = stop.kind;
    this.machine.bus.console.flush();
    // A --strict stop names its error itself.
    if (kind === 'ended' && this.control.result?.reason === 'tpu-error') this.reportedErrors = this.machine.activity.errors.length;
    this.reportTpuErrors();
    switch (kind) {
      case 'breakpoint': {
        const bp = stop.breakpoint!;
        this.say(`${bp.temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.num}, ${this.view.addr(bp.addr)} (hit ${bp.hits})`);
        break;
      }
      case 'watch': this.write(watchText(this.view, stop.watch!)); break;
      case 'interrupt': this.say('Interrupted.'); break;
      case 'ended': this.say(endText(this.control.result!)); break;
      case 'limit': this.say(`Cycle limit reached at clock ${this.clock()} (--max-cycles ${this.control.maxCycles}).`); break;
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

  private async nextCmd(args: string[]): Promise<void> {
    const n = this.parseCount(args, 'next');
    this.requireRunning('next');
    for (let i = 0; i < n; i++) {
      const kind = await this.run(nextSpec(this.view), true);
      if (kind !== 'step' && kind !== 'target') return;
    }
    this.noteStop();
  }

  private async finishCmd(args: string[]): Promise<void> {
    this.noArgs('finish', args);
    this.requireRunning('finish');
    const frames = this.frames.unwind(2);
    if (frames.frames.length < 2) {
      throw new DebugError(`finish: ${frames.why || 'no caller'} (${this.view.addr(this.machine.cpu.pc >>> 0)})`);
    }
    const caller = frames.frames[1];
    this.say(`Run till exit from #0 ${this.view.addr(frames.frames[0].pc)} to ${this.view.addr(caller.pc)}`);
    const kind = await this.run({ target: (p, s) => p === caller.pc && s === caller.sp });
    if (kind === 'target') {
      const a0 = this.view.reg(10);
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
      const bp = this.control.bpAt.get(this.machine.cpu.pc >>> 0);
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
    const frames = this.frames.unwind(2).frames;
    const caller = frames.length > 1 ? frames[1] : null;
    const pc0 = this.machine.cpu.pc >>> 0, sp0 = this.view.reg(SP);
    const returned = (p: number, s: number) => caller !== null && p === caller.pc && s === caller.sp;
    if (loc !== null) {
      await this.run({ target: (p, s) => p === loc || returned(p, s) });
    } else if (this.view.isCall(pc0)) {
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
    this.view = new ProgramView(this.create());
    this.frames = new FrameWalker(this.view);
    this.control.reload(this.view);
    this.reportedErrors = 0;
    this.attach();
  }

  // ---- breakpoints and watchpoints ----

  private breakCmd(rest: string, temporary: boolean): void {
    const addr = rest === '' ? this.machine.cpu.pc >>> 0 : this.codeLocation(rest, temporary ? 'tbreak' : 'break');
    const old = this.control.bpAt.get(addr);
    if (old) throw new DebugError(`breakpoint ${old.num} is already at ${this.view.addr(addr)}`);
    const bp = this.control.addBreakpoint(addr, temporary);
    this.say(`${temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.num} at ${this.view.addr(addr)}: ${this.view.insnText(addr)}`);
  }

  /** A code address: a symbol, number or symbol+offset in the BRAM, word-aligned. */
  private codeLocation(text: string, cmd: string): number {
    const addr = this.evaluate(text, cmd);
    const align = this.view.insnAlign;
    if (addr >= this.machine.cpu.ramSize) throw new DebugError(`${cmd}: 0x${hex8(addr)} is not in the program ${this.machine.board.map[0].name} (0x00000000..0x${hex8(this.machine.cpu.ramSize - 1)})`);
    if (addr & align) {
      throw new DebugError(`${cmd}: 0x${hex8(addr)} is not ${align === 1 ? 'halfword' : 'word'}-aligned (instructions are ${align === 1 ? '2 or 4' : '4'} bytes)`);
    }
    return addr;
  }

  private deleteCmd(args: string[]): void {
    if (args.length === 0) {
      const { breakpoints: nb, watchpoints: nw } = this.control.deleteAll();
      const parts = [nb ? `${nb} breakpoint${nb === 1 ? '' : 's'}` : '', nw ? `${nw} watchpoint${nw === 1 ? '' : 's'}` : ''].filter(Boolean);
      this.say(parts.length ? `Deleted ${parts.join(' and ')}.` : 'No breakpoints or watchpoints.');
      return;
    }
    for (const a of args) {
      if (/^\d+$/.test(a)) {
        const num = Number(a);
        const bp = this.control.breakpoints.find((b) => b.num === num);
        const w = this.control.watchpoints.find((x) => x.num === num);
        if (bp) { this.control.removeBreakpoint(bp); this.say(`Deleted breakpoint ${num} at ${this.view.addr(bp.addr)}`); }
        else if (w) { this.control.removeWatchpoint(w); this.say(`Deleted watchpoint ${num}`); }
        else throw new DebugError(`delete: no breakpoint or watchpoint number ${num}`);
      } else {
        this.clearCmd(a);
      }
    }
  }

  private clearCmd(rest: string): void {
    if (rest === '') throw new DebugError('clear wants a location');
    const addr = this.codeLocation(rest, 'clear');
    const bp = this.control.bpAt.get(addr);
    if (!bp) throw new DebugError(`clear: no breakpoint at ${this.view.addr(addr)}`);
    this.control.removeBreakpoint(bp);
    this.say(`Deleted breakpoint ${bp.num} at ${this.view.addr(addr)}`);
  }

  private watchCmd(args: string[]): void {
    if (args.length === 0 || args.length > 2) throw new DebugError('watch wants an address or symbol, and optionally a length in bytes');
    if (/^spad:/i.test(args[0])) throw new DebugError(`watch: the CPU cannot store to the scratchpad; watch ${this.machine.memories.map((m) => m.name).join(' or ')} addresses`);
    const addr = this.evaluate(args[0], 'watch');
    let len = 4;
    const sym = this.machine.symbols.lookup(args[0]);
    if (sym && sym.addr === addr && sym.size > 0) len = sym.size;
    if (args.length === 2) {
      if (!/^(0x[0-9a-f]+|\d+)$/i.test(args[1]) || Number(args[1]) < 1) throw new DebugError(`watch: bad length "${args[1]}"`);
      len = Number(args[1]);
    }
    if (!this.view.cpuMemory(addr, len)) {
      throw new DebugError(`watch: 0x${hex8(addr)}..0x${hex8(addr + len - 1)} is not all in the ${this.machine.memories.map((m) => m.name).join(' or all in the ')}`);
    }
    const w = this.control.addWatchpoint(addr, len, args[0]);
    this.say(`Watchpoint ${w.num}: ${args[0]} (${this.view.dataAddr(addr)}, ${len} byte${len === 1 ? '' : 's'})`);
  }

  // ---- memory ----

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
    return space === 'spad' ? `spad:0x${a.toString(16).padStart(4, '0')}` : this.view.dataAddr(a);
  }

  /** Prints count units from addr; returns the address after them. */
  private dump(space: 'cpu' | 'spad', addr: number, count: number, fmt: string, size: number, byte: (a: number) => number | null): number {
    const { lines, next } = dumpLines((a) => this.label(space, a), addr, count, fmt, size, byte);
    this.sayAll(lines);
    return next;
  }

  private examineSpad(addr: number, count: number, fmt: string, size: number): number {
    const spad = this.machine.devices.spad;
    if (!spad) throw new DebugError(`x: the ${this.machine.board.name} board has no scratchpad`);
    if (fmt === 'i') throw new DebugError('x/i: the scratchpad holds no instructions');
    const len = fmt === 's' ? 1 : count * size;
    if (addr + len > spad.length) {
      throw new DebugError(`x: spad:0x${addr.toString(16)}+${len} is past the end of the ${spad.length / 1024} KiB scratchpad`);
    }
    return this.dump('spad', addr, count, fmt, size, (a) => (a < spad.length ? spad[a] : null));
  }

  private examineCpu(addr: number, count: number, fmt: string, size: number): number {
    if (fmt === 'i') {
      if (!this.view.isCode(addr)) throw new DebugError(`x/i: 0x${hex8(addr)} is not an instruction address in the program ${this.machine.board.map[0].name}`);
      let a = addr;
      for (let i = 0; i < count && a < this.machine.cpu.ramSize; i++) {
        this.say(disasLine(this.view, a, this.control.bpAt));
        a += this.view.insnAt(a).len;
      }
      return a;
    }
    const memory = this.machine.memoryOf(addr);
    const registers = this.machine.devices.registers;
    if (!memory) {
      if (registers && addr - registers.base >= 0 && addr - registers.base < registers.size) return this.examineTpu(addr, count, fmt, size);
      const region = this.machine.board.map.find((r) => addr - r.base >= 0 && addr - r.base < r.size);
      throw new DebugError(`x: 0x${hex8(addr)} is ${region ? `a ${region.name} register (reading it has side effects)` : 'unmapped'}; x reads ${this.readableText()}`);
    }
    const mem = memory.bytes;
    if (fmt !== 's' && addr - memory.base + count * size > mem.length) {
      throw new DebugError(`x: 0x${hex8(addr)}+${count * size} runs past the end of the ${memory.name}`);
    }
    return this.dump('cpu', addr, count, fmt, size, (a) => (a - memory.base < mem.length ? mem[a - memory.base] : null));
  }

  /** What `x` reads on this board: its memories, its registers and the scratchpad, for the error line. */
  private readableText(): string {
    const places = this.machine.memories.map((m) => `the ${m.name} (0x${hex8(m.base)}..)`);
    const registers = this.machine.devices.registers;
    if (registers) places.push(`the ${registers.name} (0x${hex8(registers.base)}..)`);
    if (this.machine.devices.spad) places.push('the scratchpad (spad:0x...)');
    return places.length > 1 ? `${places.slice(0, -1).join(', ')} and ${places[places.length - 1]}` : places[0];
  }

  private examineTpu(addr: number, count: number, fmt: string, size: number): number {
    if (size !== 4 || (addr & 3) || fmt === 's' || fmt === 'c') throw new DebugError('x: the TPU registers are read as words: x/Nw or x/Nxw');
    const tpu = this.machine.devices.registers!;
    const vals: string[] = [];
    for (let i = 0; i < count; i++) {
      const off = addr - tpu.base + 4 * i;
      if (!tpu.isRegister(off)) {
        if (vals.length) this.say(`${this.label('cpu', addr)}:\t${vals.join('\t')}`);
        throw new DebugError(`x: 0x${hex8(addr + 4 * i)} is not a TPU register`);
      }
      vals.push(fmtValue(tpu.peek(off), fmt, 4));
    }
    for (let i = 0; i < vals.length; i += 4) this.say(`${this.label('cpu', addr + 4 * i)}:\t${vals.slice(i, i + 4).join('\t')}`);
    return addr + 4 * count;
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
      return this.view.reg(r);
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
    if (sym) { this.sayAll(symbolLines(this.view, sym)); return; }
    const label = this.view.dataAddr(v).slice(10);
    const region = this.machine.regionOf(v);
    const note = label || (region !== 'unmapped' && v >= 0x100 ? ` (${region})` : '');
    this.say(`${name} = 0x${hex8(v)} (${v | 0})${note}`);
  }

  // ---- info ----

  private infoCmd(args: string[]): void {
    const what = (args[0] ?? '').toLowerCase();
    const rest = args.slice(1);
    if ('breakpoints'.startsWith(what) && what.length >= 1 || what === 'watchpoints' || what === 'watch') {
      this.sayAll(breakpointLines(this.view, this.control.breakpoints, this.control.watchpoints));
    } else if (what.length >= 1 && 'registers'.startsWith(what)) {
      this.infoRegisters(rest);
    } else if (what === 'units' || what === 'tpu' || what === 'unit') {
      this.sayAll(unitsLines(this.machine));
    } else if (what === 'clock' || what === 'clocks') {
      this.infoClock();
    } else if (what === 'symbol') {
      if (rest.length === 0) throw new DebugError('info symbol wants an address');
      const a = this.evaluate(rest.join(' '), 'info symbol');
      const s = this.view.sym(a);
      this.say(s ? `0x${hex8(a)} is ${s} (${this.machine.regionOf(a)})` : `no symbol matches 0x${hex8(a)} (${this.machine.regionOf(a)})`);
    } else if (what === 'frame') {
      this.backtraceCmd(['1']);
    } else {
      throw new DebugError(`info wants one of: breakpoints, registers, units, clock, symbol, frame${what ? ` (not "${args[0]}")` : ''}`);
    }
  }

  private infoRegisters(names: string[]): void {
    const regs = names.length ? names.map((n) => {
      const k = n.replace(/^\$/, '').toLowerCase();
      if (k === 'pc') return 32;
      const r = regIndex(k);
      if (r < 0) throw new DebugError(`info registers: no register "${n}"`);
      return r;
    }) : [...Array(33).keys()];
    this.sayAll(registerLines(this.view, regs));
  }

  private infoClock(): void {
    this.sayAll(clockLines(this.machine, this.clock(), this.prevStop));
  }

  // ---- disassembly and frames ----

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
      if (!this.view.isCode(pc)) throw new DebugError(`disassemble: pc 0x${hex8(pc)} is not in the program BRAM`);
      const fn = this.view.functionRange(pc);
      start = Math.max(fn ? fn.start : 0, pc - 16);
    } else {
      start = this.codeLocation(args[0], 'disassemble');
      const sym = this.machine.symbols.lookup(args[0]);
      if (sym && sym.isFunction && args.length === 1) {
        // A function name: the whole function (up to 256 instructions).
        const fn = this.view.functionRange(sym.addr);
        if (fn) count = Math.min(this.view.insnCount(fn.start, fn.end), 256);
      }
    }
    for (let a = start, i = 0; i < count && a < this.machine.cpu.ramSize; i++) {
      this.say(disasLine(this.view, a, this.control.bpAt));
      a += this.view.insnAt(a).len;
    }
  }

  /** Walks the stack: frame 0 is the current pc; each caller's pc is the return address. */
  unwind(max = 1000): ReturnType<FrameWalker['unwind']> {
    return this.frames.unwind(max);
  }

  private backtraceCmd(args: string[]): void {
    let limit = 1000;
    if (args.length) {
      if (args.length > 1 || !/^\d+$/.test(args[0]) || Number(args[0]) < 1) throw new DebugError(`backtrace wants a number of frames, got "${args.join(' ')}"`);
      limit = Number(args[0]);
    }
    const { frames, why } = this.frames.unwind(limit + 1);
    frames.slice(0, limit).forEach((f, i) => {
      this.say(`#${String(i).padEnd(3)} ${this.view.addr(f.pc)}  sp 0x${hex8(f.sp)}`);
    });
    if (frames.length > limit) this.say('(more frames follow)');
    else if (why && why !== 'outermost frame') this.say(`(backtrace stopped: ${why})`);
  }

  // ---- completion ----

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
