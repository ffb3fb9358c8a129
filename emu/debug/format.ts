// How the debugger shows things: memory in the x/ formats, registers, the
// breakpoint table, disassembly lines, a watchpoint's old and new values, a
// symbol's contents, the clock, and the TPU's units, queues and counters.
// Each function returns the lines; the debugger (debugger.ts) prints them.

import { ABI_NAMES } from '../isa.ts';
import { describeError, describeStop, hex8, type Machine, type RunResult } from '../machine.ts';
import type { ElfSymbol } from '../elf.ts';
import type { Breakpoint, PendingStore, Watchpoint } from './control.ts';
import { RA, type ProgramView } from './program.ts';

/** One unit of memory in an x/ format: x (hex, the default), d, u or c. */
export function fmtValue(v: number, fmt: string, size: number): string {
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

/** count units from addr as x/ prints them (strings with s); `next` is the address after them. */
export function dumpLines(
  label: (a: number) => string, addr: number, count: number, fmt: string, size: number, byte: (a: number) => number | null,
): { lines: string[]; next: number } {
  const lines: string[] = [];
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
      lines.push(`${label(start)}:\t${JSON.stringify(s)}`);
      if (byte(a) === null) break;
    }
    return { lines, next: a };
  }
  const perLine = size === 4 ? 4 : 8;
  for (let i = 0; i < count; i += perLine) {
    const vals: string[] = [];
    for (let j = i; j < Math.min(count, i + perLine); j++) {
      let v = 0;
      for (let k = size - 1; k >= 0; k--) v = v * 256 + (byte(addr + j * size + k) ?? 0);
      vals.push(fmtValue(v, fmt, size));
    }
    lines.push(`${label(addr + i * size)}:\t${vals.join('\t')}`);
  }
  return { lines, next: addr + count * size };
}

/** A line of disassembly: `=>` at pc, the symbol, the stored word, the instruction, a breakpoint's number. */
export function disasLine(view: ProgramView, a: number, bpAt: ReadonlyMap<number, Breakpoint>): string {
  const { word, len } = view.insnAt(a);
  const hex = len === 2 ? word.toString(16).padStart(4, '0').padEnd(8) : hex8(word);
  const mark = a === view.machine.cpu.pc >>> 0 ? '=> ' : '   ';
  const bp = bpAt.get(a);
  const s = view.sym(a);
  const tag = bp ? `   # breakpoint ${bp.num}` : '';
  return `${mark}0x${hex8(a)} ${`<${s}>:`.padEnd(22)} ${hex}  ${view.disasAt(a)}${tag}`;
}

/** What a store that hit a watchpoint wrote: the watched value (or the stored bytes) before and after. */
export function watchText(view: ProgramView, p: PendingStore): string {
  const w = p.w;
  const d = view.decodeAt(p.pc);
  const whole = w.len <= 4 && (w.len & (w.len - 1)) === 0;
  const [oldB, newB] = whole ? [p.oldWatched, view.bytesAt(w.addr, w.len)] : [p.old, view.bytesAt(p.addr, p.size)];
  const val = (b: number[]) => {
    let v = 0;
    for (let i = b.length - 1; i >= 0; i--) v = v * 256 + b[i];
    return `0x${v.toString(16).padStart(b.length * 2, '0')} (${v})`;
  };
  return `Watchpoint ${w.num}: ${w.what}: ${d ? d.name : 'store'} at ${view.addr(p.pc)} wrote ${p.size} byte${p.size === 1 ? '' : 's'} at ${view.dataAddr(p.addr)}\n`
    + `Old value = ${val(oldB)}\nNew value = ${val(newB)}\n`;
}

/** How the program ended. */
export function endText(r: RunResult): string {
  if (r.reason === 'exit') return `program exited with status ${r.exit} at clock ${r.clocks} (${r.instret} instructions)`;
  return `program stopped: ${describeStop(r)}`;
}

/** `info breakpoints`: breakpoints and watchpoints by number. */
export function breakpointLines(view: ProgramView, breakpoints: readonly Breakpoint[], watchpoints: readonly Watchpoint[]): string[] {
  if (breakpoints.length === 0 && watchpoints.length === 0) return ['No breakpoints or watchpoints.'];
  const rows: [number, string][] = [];
  for (const b of breakpoints) {
    rows.push([b.num, `${String(b.num).padEnd(4)} ${(b.temporary ? 'tbreakpoint' : 'breakpoint').padEnd(11)} ${String(b.hits).padStart(4)}  ${view.addr(b.addr)}: ${view.insnText(b.addr)}`]);
  }
  for (const w of watchpoints) {
    rows.push([w.num, `${String(w.num).padEnd(4)} ${'watchpoint'.padEnd(11)} ${String(w.hits).padStart(4)}  ${w.what}: ${view.dataAddr(w.addr)}, ${w.len} byte${w.len === 1 ? '' : 's'}`]);
  }
  rows.sort((a, b) => a[0] - b[0]);
  return ['Num  Type        Hits  Where', ...rows.map(([, r]) => r)];
}

/** `info registers`: each register (32 is pc) in hex and decimal; ra with its symbol. */
export function registerLines(view: ProgramView, regs: number[]): string[] {
  return regs.map((r) => {
    if (r === 32) return `pc    ${view.addr(view.machine.cpu.pc >>> 0)}`;
    const v = view.reg(r);
    const note = r === RA && v !== 0 && v < view.machine.cpu.ramSize && view.sym(v) ? `  <${view.sym(v)}>` : '';
    return `${ABI_NAMES[r].padEnd(5)} 0x${hex8(v)}  ${String(v | 0).padStart(11)}${note}`;
  });
}

/** `print SYMBOL`: its address, kind, size and region, and a small object's value or its first words. */
export function symbolLines(view: ProgramView, sym: ElfSymbol): string[] {
  const kind = sym.isFunction ? 'function' : sym.size > 0 ? 'object' : 'symbol';
  const size = sym.size > 0 ? `, ${sym.size} bytes` : '';
  const region = view.machine.regionOf(sym.addr);
  const lines = [`${sym.name} = 0x${hex8(sym.addr)} (${kind}${size}, ${region})`];
  if (sym.isFunction || !view.cpuMemory(sym.addr, Math.max(1, sym.size))) return lines;
  if (sym.size === 1 || sym.size === 2 || sym.size === 4) {
    const b = view.bytesAt(sym.addr, sym.size);
    let v = 0;
    for (let i = b.length - 1; i >= 0; i--) v = v * 256 + b[i];
    lines.push(`  value 0x${v.toString(16).padStart(sym.size * 2, '0')} (${sym.size === 4 ? v | 0 : v})`);
  } else if (sym.size > 4) {
    const n = Math.min(sym.size >>> 2, 8);
    const words: string[] = [];
    for (let i = 0; i < n; i++) {
      const b = view.bytesAt(sym.addr + 4 * i, 4);
      words.push(`0x${hex8(b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24))}`);
    }
    const more = sym.size > 4 * n ? ` ... (x/${Math.ceil(sym.size / 4)}xw ${sym.name} for all)` : '';
    lines.push(`  words ${words.join(' ')}${more}`);
  }
  return lines;
}

/** `info clock`: the clock, in ms at the board clock, instructions retired, and the change since the previous stop. */
export function clockLines(machine: Machine, clock: number, prevStop: { clock: number; instret: number }): string[] {
  const i = machine.cpu.instret;
  const hz = machine.config.clockHz;
  const mhz = Number.isInteger(hz / 1e6) ? String(hz / 1e6) : (hz / 1e6).toFixed(3);
  const ms = (clock / hz) * 1000;
  const dc = clock - prevStop.clock, di = i - prevStop.instret;
  return [
    `clock ${clock} (${ms.toFixed(3)} ms at ${mhz} MHz), ${i} instructions retired, CPI ${(clock / Math.max(1, i)).toFixed(2)}`,
    `since the previous stop: ${dc} clocks, ${di} instructions`,
  ];
}

/** `info units`: the board's units, queues, errors and counters (emu/board.ts BoardDevices.unitLines). */
export function unitsLines(machine: Machine): string[] {
  return machine.devices.unitLines(machine.cpu.cycle);
}
