// The debugger's execution control: runs the program one instruction at a time
// through the Stepper (so the clocks are exactly those of `picotpu run`) until
// a count, a target, a breakpoint, a watchpoint, the end, the cycle limit or an
// interrupt stops it; and keeps the breakpoints and watchpoints. It prints
// nothing: the debugger (debugger.ts) reports each stop.

import { immOf, rs1Of } from '../isa.ts';
import type { RunResult } from '../machine.ts';
import { Stepper } from '../stepper.ts';
import { SP, type ProgramView } from './program.ts';

export type StopKind = 'step' | 'target' | 'breakpoint' | 'watch' | 'interrupt' | 'ended' | 'limit';

export interface RunSpec {
  /** Stop after this many instructions. */
  count?: number;
  /** Stop before an instruction (not the first) at which this holds. */
  target?: (pc: number, sp: number) => boolean;
  /** A breakpoint at the first instruction stops the run before it executes (gdb's `run` from the entry). */
  breakAtFirst?: boolean;
}

export interface Breakpoint {
  num: number;
  addr: number;
  hits: number;
  temporary: boolean;
  /** Hits still to pass over without stopping (continue N). */
  ignore: number;
}

export interface Watchpoint {
  num: number;
  addr: number;
  len: number;
  what: string;
  hits: number;
}

/** A store about to execute into a watchpoint: where it writes, and the bytes there before it. */
export interface PendingStore { w: Watchpoint; pc: number; addr: number; size: number; old: number[]; oldWatched: number[] }

export interface Stop {
  kind: StopKind;
  /** The breakpoint that stopped the run (kind 'breakpoint'; its hits already counted). */
  breakpoint?: Breakpoint;
  /** The store that hit a watchpoint (kind 'watch'). */
  watch?: PendingStore;
}

/** Lets the host's events in (an interrupt): setImmediate in Node, a zero timeout in a browser's worker (web/). */
const yieldToHost: () => Promise<void> = typeof setImmediate === 'function'
  ? () => new Promise<void>((resolve) => setImmediate(resolve))
  : () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** One `next` from pc: over a call, to the instruction after it in the same frame; else one instruction. */
export function nextSpec(view: ProgramView): RunSpec {
  const pc = view.machine.cpu.pc >>> 0;
  if (!view.isCall(pc)) return { count: 1 };
  const sp = view.reg(SP), ret = pc + view.insnAt(pc).len;
  return { target: (p, s) => p === ret && s === sp };
}

export class ExecutionControl {
  readonly breakpoints: Breakpoint[] = [];
  readonly watchpoints: Watchpoint[] = [];
  readonly bpAt = new Map<number, Breakpoint>();
  /** How the last run ended, once the program has stopped for good. */
  result: RunResult | null = null;
  limitHit = false;
  /** True while a command runs the program. */
  busy = false;
  private nextNum = 1;
  private interrupted = false;
  private stepper: Stepper;

  constructor(private view: ProgramView, readonly maxCycles: number) {
    this.stepper = new Stepper(view.machine);
  }

  /** A freshly loaded program (restart, run): breakpoints and watchpoints stay, their hit counts restart. */
  reload(view: ProgramView): void {
    this.view = view;
    this.stepper = new Stepper(view.machine);
    this.result = null;
    this.limitHit = false;
    for (const b of this.breakpoints) b.hits = 0;
    for (const w of this.watchpoints) w.hits = 0;
  }

  get running(): boolean {
    return this.result === null && !this.limitHit;
  }

  interrupt(): void {
    this.interrupted = true;
  }

  /** Runs the program to a stop. */
  async run(spec: RunSpec): Promise<Stop> {
    const cpu = this.view.machine.cpu;
    const st = this.stepper;
    let executed = 0;
    this.busy = true;
    this.interrupted = false;
    let kind: StopKind;
    let hit: Breakpoint | undefined;
    let watch: PendingStore | undefined;
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
        // A store that trapped did not write: the program's stop says so.
        if (pending && cpu.pc !== pending.pc) {
          pending.w.hits++;
          watch = pending;
          kind = 'watch';
          break;
        }
        if ((executed & 0xffff) === 0) {
          await yieldToHost();
          if (this.interrupted) { kind = 'interrupt'; break; }
        }
      }
    } finally {
      this.busy = false;
    }
    if (kind === 'breakpoint') {
      hit!.hits++;
      if (hit!.temporary) this.removeBreakpoint(hit!);
    }
    return { kind, breakpoint: kind === 'breakpoint' ? hit : undefined, watch };
  }

  addBreakpoint(addr: number, temporary: boolean): Breakpoint {
    const bp: Breakpoint = { num: this.nextNum++, addr, hits: 0, temporary, ignore: 0 };
    this.breakpoints.push(bp);
    this.bpAt.set(addr, bp);
    return bp;
  }

  removeBreakpoint(bp: Breakpoint): void {
    this.breakpoints.splice(this.breakpoints.indexOf(bp), 1);
    this.bpAt.delete(bp.addr);
  }

  addWatchpoint(addr: number, len: number, what: string): Watchpoint {
    const w: Watchpoint = { num: this.nextNum++, addr, len, what, hits: 0 };
    this.watchpoints.push(w);
    return w;
  }

  removeWatchpoint(w: Watchpoint): void {
    this.watchpoints.splice(this.watchpoints.indexOf(w), 1);
  }

  /** Deletes every breakpoint and watchpoint; returns how many of each there were. */
  deleteAll(): { breakpoints: number; watchpoints: number } {
    const counts = { breakpoints: this.breakpoints.length, watchpoints: this.watchpoints.length };
    this.breakpoints.length = 0;
    this.watchpoints.length = 0;
    this.bpAt.clear();
    return counts;
  }

  /** Before a store: which watchpoint it writes into, and the old bytes. */
  private pendingStore(pc: number): PendingStore | null {
    const view = this.view;
    if (!view.isCode(pc)) return null;
    const word = view.fullWordAt(pc);
    if ((word & 0x7f) !== 0x23) return null;
    const size = 1 << ((word >>> 12) & 3);
    if (size > 4) return null;
    const addr = (view.machine.cpu.regs[rs1Of(word)] + immOf('S', word)) >>> 0;
    for (const w of this.watchpoints) {
      if (addr < w.addr + w.len && addr + size > w.addr) {
        return { w, pc, addr, size, old: view.bytesAt(addr, size), oldWatched: view.bytesAt(w.addr, Math.min(w.len, 4)) };
      }
    }
    return null;
  }
}
