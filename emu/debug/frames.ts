// The debugger's stack walk (backtrace, finish, until): a forward data-flow
// pass over each function's prologue finds where sp, s0, the return address
// and the caller's s0 are at every instruction, relative to the function's
// entry sp (the CFA); the walk then goes from caller to caller.

import { hex8 } from '../machine.ts';
import { RA, S0, SP, type Decoded, type ProgramView } from './program.ts';

export interface Frame {
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

const WRITES_RD = new Set(['R', 'I', 'U', 'J', 'SHIFTI', 'CSR']);

export class FrameWalker {
  private readonly cache = new Map<number, Map<number, FrameState>>();

  constructor(private readonly view: ProgramView) {}

  /** Walks the stack: frame 0 is the current pc; each caller's pc is the return address. */
  unwind(max = 1000): { frames: Frame[]; why: string } {
    const view = this.view;
    let pc = view.machine.cpu.pc >>> 0, sp = view.reg(SP), s0 = view.reg(S0);
    const ra = view.reg(RA);
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
      else if (st.raSlot !== null) ret = view.word(cfa + st.raSlot);
      else return { frames, why: `no saved return address found in ${at.fn}` };
      if (ret === null || ret === 0 || !view.isCode(ret)) {
        return { frames, why: `bad return address${ret === null ? '' : ` 0x${hex8(ret)}`} in ${at.fn}` };
      }
      if (st.s0Slot !== null) s0 = view.word(cfa + st.s0Slot) ?? s0;
      if (cfa === sp && ret === pc) return { frames, why: 'the frame does not move' };
      pc = ret;
      sp = cfa;
    }
    return { frames, why: '' };
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
    const cached = this.cache.get(start);
    if (cached) return cached;
    const states = new Map<number, FrameState>();
    const work: number[] = [start];
    states.set(start, { spOff: 0, fpOff: null, raSlot: null, s0Slot: null, raInReg: true });
    while (work.length) {
      const pc = work.pop()!;
      const d = this.view.decodeAt(pc);
      const after = this.applyFrame(d, states.get(pc)!);
      const succ: number[] = [];
      const next = pc + this.view.insnAt(pc).len;
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
    this.cache.set(start, states);
    return states;
  }

  /** The frame state at pc: the data-flow pass, else a straight scan from the function's start. */
  private frameStateAt(pc: number): { state: FrameState; fn: string } | null {
    const fn = this.view.functionRange(pc);
    if (!fn) return null;
    const known = this.analyze(fn.start, fn.end).get(pc);
    if (known) return { state: known, fn: fn.name };
    let s: FrameState = { spOff: 0, fpOff: null, raSlot: null, s0Slot: null, raInReg: true };
    for (let a = fn.start; a < pc; a += this.view.insnAt(a).len) s = this.applyFrame(this.view.decodeAt(a), s);
    return { state: s, fn: fn.name };
  }
}
