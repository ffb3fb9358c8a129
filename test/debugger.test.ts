// `picotpu debug`: scripts on standard input, transcripts checked against the
// firmware's own symbols and disassembly, and against a Machine stepped the
// same way in-process (the debugger must see exactly what a run sees).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { disassemble } from '../emu/disasm.ts';
import { ABI_NAMES } from '../emu/isa.ts';
import { Machine } from '../boards/machine.ts';
import { Stepper } from '../emu/stepper.ts';
import { FIRST_LAUNCH_CLOCK, trapClocks } from '../emu/timing.ts';
import { assemble } from '../toolchain/toolchain.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** build/fw/NAME.elf, or a path as it is. */
const elfPath = (name: string): string => (name.includes('/') ? name : join(root, 'build', 'fw', `${name}.elf`));
const PROMPT = '(picotpu) ';

interface Transcript {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What each command printed, in order (the banner is entry 0, under command ''). */
  replies: { cmd: string; lines: string[] }[];
}

/** Runs `picotpu debug` with the commands on standard input. */
function debug(name: string, commands: string[], extra: string[] = []): Transcript {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'debug', elfPath(name), ...extra], {
    input: commands.join('\n') + '\n',
    encoding: 'utf8',
    timeout: 60_000,
  });
  const chunks = r.stdout.split(PROMPT);
  const replies = chunks.map((chunk, i) => {
    const lines = chunk.split('\n');
    if (i === 0) return { cmd: '', lines: lines.filter((l) => l !== '') };
    return { cmd: lines[0], lines: lines.slice(1).filter((l) => l !== '') };
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, replies };
}

/** The lines the command numbered `i` (0-based, in the script) printed. */
function reply(t: Transcript, i: number): string[] {
  const r = t.replies[i + 1];
  expect(r, `no reply to command ${i}`).toBeDefined();
  return r.lines;
}

function machine(name: string): Machine {
  const m = new Machine();
  m.loadElf(readFileSync(elfPath(name)));
  return m;
}

function symbol(m: Machine, name: string): number {
  const s = m.symbols.lookup(name);
  if (!s) throw new Error(`no symbol ${name}`);
  return s.addr;
}

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
const insn = (m: Machine, pc: number) => disassemble(m.cpu.wordAt(pc) >>> 0, pc, (a) => m.symbols.describe(a)).replace('\t', ' ');

/** Parses a stop line: `clock N  pc 0x... <sym>: insn`. */
function stopLine(lines: string[]): { clock: number; pc: number; where: string; insn: string } {
  const line = lines[lines.length - 1] ?? '';
  const m = /^clock (\d+) {2}pc 0x([0-9a-f]{8})(?: <([^>]+)>)?: (.*)$/.exec(line);
  if (!m) throw new Error(`not a stop line: "${line}"`);
  return { clock: Number(m[1]), pc: Number.parseInt(m[2], 16), where: m[3] ?? '', insn: m[4] };
}

/** Steps a machine in-process until pc reaches `addr` (not counting the start). */
function stepTo(m: Machine, addr: number, times = 1): Stepper {
  const st = new Stepper(m);
  let seen = 0;
  for (let n = 0; n < 10_000_000; n++) {
    if (!st.step()) throw new Error('machine stopped');
    if (m.cpu.pc === addr && ++seen === times) return st;
  }
  throw new Error(`pc never reached 0x${addr.toString(16)}`);
}

describe('picotpu debug: breakpoints and stepping (fib.elf)', () => {
  const m = machine('fib');
  const main = symbol(m, 'main'), fib = symbol(m, 'fib');
  const t = debug('fib', [
    'break main', //             0
    'break fib+0x34', //         1
    'info breakpoints', //       2
    'continue', //               3: at main
    'info registers', //         4
    'info clock', //             5
    'disassemble', //            6
    'step', //                   7
    'step 2', //                 8
    'continue', //               9: at fib+0x34
    'backtrace', //              10
  ]);

  it('starts at the reset vector and exits cleanly at the end of input', () => {
    expect(t.status).toBe(0);
    expect(t.stderr).toBe('');
    // Before anything runs, the first instruction is due at its launch clock.
    expect(t.replies[0].lines[1]).toBe(`clock ${FIRST_LAUNCH_CLOCK}  pc 0x00000000 <_start>: ${insn(m, 0)}`);
    // Every command is echoed after the prompt (standard input is not a terminal).
    expect(t.replies.slice(1).map((r) => r.cmd)).toEqual([
      'break main', 'break fib+0x34', 'info breakpoints', 'continue', 'info registers', 'info clock', 'disassemble',
      'step', 'step 2', 'continue', 'backtrace', '',
    ]);
  });

  it('sets breakpoints at a symbol and at symbol+offset', () => {
    expect(reply(t, 0)).toEqual([`Breakpoint 1 at 0x${hex8(main)} <main>: ${insn(m, main)}`]);
    expect(reply(t, 1)).toEqual([`Breakpoint 2 at 0x${hex8(fib + 0x34)} <fib+0x34>: ${insn(m, fib + 0x34)}`]);
    const list = reply(t, 2);
    expect(list[1]).toMatch(new RegExp(`^1 +breakpoint +0 +0x${hex8(main)} <main>`));
    expect(list[2]).toMatch(new RegExp(`^2 +breakpoint +0 +0x${hex8(fib + 0x34)} <fib\\+0x34>`));
  });

  it('stops at the breakpoint, at the clock a Machine stepped to the same pc has', () => {
    const out = reply(t, 3);
    expect(out[0]).toBe(`Breakpoint 1, 0x${hex8(main)} <main> (hit 1)`);
    const s = stopLine(out);
    const ref = machine('fib');
    stepTo(ref, main);
    expect(s).toEqual({ clock: ref.cpu.cycle, pc: main, where: 'main', insn: insn(ref, main) });
  });

  it('info registers shows every register as a Machine stepped the same way has it', () => {
    const ref = machine('fib');
    stepTo(ref, main);
    const lines = reply(t, 4);
    expect(lines).toHaveLength(33);
    for (let r = 0; r < 32; r++) {
      const v = ref.cpu.regs[r];
      const m2 = /^(\S+) +0x([0-9a-f]{8}) +(-?\d+)/.exec(lines[r]);
      expect(m2, lines[r]).not.toBeNull();
      expect(m2![1]).toBe(ABI_NAMES[r]);
      expect(Number.parseInt(m2![2], 16)).toBe(v >>> 0);
      expect(Number(m2![3])).toBe(v | 0);
    }
    expect(lines[32]).toBe(`pc    0x${hex8(main)} <main>`);
    // ra is the return address into _start, named
    expect(lines[1]).toMatch(/<_start\+0x[0-9a-f]+>$/);
  });

  it('info clock gives the clock, ms at 12 MHz and instructions retired', () => {
    const ref = machine('fib');
    stepTo(ref, main);
    const c = ref.cpu.cycle;
    expect(reply(t, 5)[0]).toBe(
      `clock ${c} (${((c / 12e6) * 1000).toFixed(3)} ms at 12 MHz), ${ref.cpu.instret} instructions retired, CPI ${(c / ref.cpu.instret).toFixed(2)}`,
    );
  });

  it('disassemble marks pc, and step lands on the next lines it shows', () => {
    const lines = reply(t, 6);
    const at = lines.findIndex((l) => l.startsWith('=> '));
    expect(lines[at]).toContain(`0x${hex8(main)} <main>:`);
    expect(lines[at]).toContain(`${insn(m, main)}   # breakpoint 1`);
    const addrOf = (l: string) => Number.parseInt(/0x([0-9a-f]{8})/.exec(l)![1], 16);
    expect(stopLine(reply(t, 7)).pc).toBe(addrOf(lines[at + 1]));
    const two = stopLine(reply(t, 8));
    expect(two.pc).toBe(addrOf(lines[at + 3]));
    expect(two.insn).toBe(lines[at + 3].split(/[0-9a-f]{8} {2}/)[1]);
  });

  it('backtrace walks the frames of a nested call back to main and _start', () => {
    const hit = reply(t, 9);
    expect(hit[0]).toBe(`Breakpoint 2, 0x${hex8(fib + 0x34)} <fib+0x34> (hit 1)`);
    const bt = reply(t, 10);
    expect(bt[0]).toMatch(new RegExp(`^#0 +0x${hex8(fib + 0x34)} <fib\\+0x34>`));
    expect(bt[1]).toMatch(/^#1 +0x[0-9a-f]{8} <main\+0x[0-9a-f]+>/);
    expect(bt[2]).toMatch(/^#2 +0x[0-9a-f]{8} <_start\+0x[0-9a-f]+>/);
    expect(bt).toHaveLength(3);
    // #1's pc is the instruction after main's call to fib
    const ret = Number.parseInt(/0x([0-9a-f]{8})/.exec(bt[1])![1], 16);
    expect(insn(m, ret - 4)).toBe(`jal ${fib.toString(16)} <fib>`);
  });
});

describe('picotpu debug: next, finish and deep backtraces (fib.elf)', () => {
  const m = machine('fib');
  const main = symbol(m, 'main'), fib = symbol(m, 'fib');
  // The call to fib in main, found in the disassembly.
  let call = main;
  while (insn(m, call) !== `jal ${fib.toString(16)} <fib>`) call += 4;
  const t = debug('fib', [
    `break *0x${call.toString(16)}`, // 0
    'continue', //                       1: at main's jal fib
    'next', //                           2: over the whole fib(20)
    'info registers a0', //              3
    'restart', //                        4
    'continue', //                       5: at the call again
    'step', //                           6: into fib
    'finish', //                         7: ra at entry
    'delete', //                         8
    'restart', //                        9
    'break fib+0x34', //                 10: fib's recursive call
    'continue', //                       11
    'continue 3', //                     12: fourth crossing: four fib frames deep
    'backtrace', //                      13
    'delete', //                         14
    'finish', //                         15
    'backtrace', //                      16
  ]);

  it('next runs a call through to the next instruction', () => {
    expect(stopLine(reply(t, 1)).pc).toBe(call);
    const s = stopLine(reply(t, 2));
    expect(s.pc).toBe(call + 4);
    const ref = machine('fib');
    const st = stepTo(ref, call);
    while (ref.cpu.pc !== call + 4) st.step();
    expect(s.clock).toBe(ref.cpu.cycle);
    expect(reply(t, 3)[0]).toMatch(/^a0 +0x00001a6d +6765$/); // fib(20)
  });

  it('step into a call lands at its target; finish comes back right after the call', () => {
    expect(stopLine(reply(t, 5)).pc).toBe(call);
    const into = stopLine(reply(t, 6));
    expect(into).toMatchObject({ pc: fib, where: 'fib' });
    const out = reply(t, 7);
    expect(out[0]).toBe(`Run till exit from #0 0x${hex8(fib)} <fib> to 0x${hex8(call + 4)} <${m.symbols.describe(call + 4)}>`);
    expect(stopLine(out.slice(0, -1)).pc).toBe(call + 4);
    expect(out[out.length - 1]).toBe('Value returned: a0 = 0x00001a6d (6765)');
  });

  it('backtrace shows every recursive frame, then main', () => {
    expect(reply(t, 12)[0]).toBe('Will ignore the next 2 crossings of breakpoint 2.');
    expect(reply(t, 12)[1]).toBe(`Breakpoint 2, 0x${hex8(fib + 0x34)} <fib+0x34> (hit 4)`);
    const bt = reply(t, 13);
    expect(bt).toHaveLength(6);
    expect(bt[0]).toMatch(/^#0 +0x[0-9a-f]{8} <fib\+0x34>/);
    expect(bt.slice(1, 4).every((l) => /<fib\+0x38>/.test(l))).toBe(true);
    expect(bt[4]).toMatch(new RegExp(`^#4 +0x${hex8(call + 4)} <main\\+0x[0-9a-f]+>`));
    expect(bt[5]).toMatch(/^#5 +0x[0-9a-f]{8} <_start\+0x[0-9a-f]+>/);
    const sps = bt.map((l) => Number.parseInt(/sp 0x([0-9a-f]{8})/.exec(l)![1], 16));
    for (let i = 1; i < sps.length; i++) expect(sps[i]).toBeGreaterThan(sps[i - 1]);
  });

  it('finish returns to the caller frame the backtrace named, with its sp', () => {
    const before = reply(t, 13), after = reply(t, 16);
    const frame = (l: string) => /^#\d+ +(0x[0-9a-f]{8} <[^>]+>) +sp (0x[0-9a-f]{8})$/.exec(l)!.slice(1);
    const out = reply(t, 15);
    expect(out[0]).toBe(`Run till exit from #0 ${frame(before[0])[0]} to ${frame(before[1])[0]}`);
    expect(stopLine(out.slice(0, -1)).pc).toBe(Number.parseInt(frame(before[1])[0], 16));
    // One frame fewer, and the new #0 is the old #1, sp included.
    expect(after.map(frame)).toEqual(before.slice(1).map(frame));
  });
});

describe('picotpu debug: memory and watchpoints (crc32.elf)', () => {
  const m = machine('crc32');
  const table = symbol(m, 'table');
  const t = debug('crc32', [
    'print table', //           0
    'watch table+8', //         1
    'continue', //              2: the start code clears .bss
    'continue', //              3: the table is built
    'delete', //                4
    'break crc32_table', //     5
    'continue', //              6
    'x/8xw table', //           7
    'x/s $a0', //               8
    'x/4dw table', //           9
    'x/2xb table+4', //         10
    'x', //                     11: continues after the last
    'print $a1', //             12
    'finish', //                13
  ]);

  it('print names a symbol, its size and where it lives', () => {
    expect(reply(t, 0)[0]).toBe(`table = 0x${hex8(table)} (object, 1024 bytes, BRAM)`);
  });

  it('watch stops after each store that writes the bytes, with old and new values', () => {
    expect(reply(t, 1)).toEqual([`Watchpoint 1: table+8 (0x${hex8(table + 8)} <table+0x8>, 4 bytes)`]);
    const first = reply(t, 2);
    expect(first[0]).toMatch(new RegExp(`^Watchpoint 1: table\\+8: sw at 0x([0-9a-f]{8}) <_start\\+0x[0-9a-f]+> wrote 4 bytes at 0x${hex8(table + 8)} <table\\+0x8>$`));
    expect(first.slice(1, 3)).toEqual(['Old value = 0x00000000 (0)', 'New value = 0x00000000 (0)']);
    const second = reply(t, 3);
    const storePc = Number.parseInt(/ at 0x([0-9a-f]{8})/.exec(second[0])![1], 16);
    expect(insn(m, storePc)).toMatch(/^sw /);
    expect(second.slice(1, 3)).toEqual(['Old value = 0x00000000 (0)', 'New value = 0xee0e612c (3993919788)']);
    // Stopped right after the store, at the clock a Machine has there.
    const s = stopLine(second);
    expect(s.pc).toBe(storePc + 4);
    const ref = machine('crc32');
    const st = new Stepper(ref);
    for (;;) {
      const pc = ref.cpu.pc;
      st.step();
      if (pc === storePc && ref.bus.bram[table + 9] !== 0) break;
    }
    expect(s.clock).toBe(ref.cpu.cycle);
  });

  it('x reads the CRC table, the check string, in words, decimal and bytes', () => {
    expect(reply(t, 7)).toEqual([
      `0x${hex8(table)} <table>:\t0x00000000\t0x77073096\t0xee0e612c\t0x990951ba`,
      `0x${hex8(table + 16)} <table+0x10>:\t0x076dc419\t0x706af48f\t0xe963a535\t0x9e6495a3`,
    ]);
    expect(reply(t, 8)).toEqual([expect.stringMatching(/^0x[0-9a-f]{8}:\t"123456789"$/)]);
    expect(reply(t, 9)).toEqual([`0x${hex8(table)} <table>:\t0\t1996959894\t-301047508\t-1727442502`]);
    expect(reply(t, 10)).toEqual([`0x${hex8(table + 4)} <table+0x4>:\t0x96\t0x30`]);
    expect(reply(t, 11)).toEqual([`0x${hex8(table + 6)} <table+0x6>:\t0x07\t0x77`]);
    expect(reply(t, 12)).toEqual(['$a1 = 0x00000009 (9)']);
  });

  it('finish prints the return value: the standard CRC-32 check value', () => {
    expect(reply(t, 13)).toContain('Value returned: a0 = 0xcbf43926 (-873187034)');
  });
});

describe('picotpu debug: the TPU (tpu_queue_full.elf, tpu_tokens.elf)', () => {
  it('info units shows the running command and a full queue, each command described', () => {
    // The first PUSH to the DMA in main is the LOAD loop's.
    const m = machine('tpu_queue_full');
    let push = symbol(m, 'main');
    while (!/^sw \w+,280\(\w+\)/.test(insn(m, push))) push += 4;
    const t = debug('tpu_queue_full', [
      `break *${push}`, 'continue', 'continue 11', 'stepi', 'info units', 'x/3xw 0x20000118', 'x/4xb spad:0x1000',
    ]);
    expect(reply(t, 2)[1]).toBe(`Breakpoint 1, 0x${hex8(push)} <${m.symbols.describe(push)}> (hit 12)`);
    expect(stopLine(reply(t, 2)).pc).toBe(push);
    const u = reply(t, 4);
    expect(u[0]).toMatch(/^TPU at clock \d+$/);
    const dma = u.findIndex((l) => l.startsWith('DMA '));
    expect(u[dma]).toMatch(/^DMA {2}STATUS 0x00000801 \(busy, 8 queued\) {2}ISSUED 12 {2}DONE 3$/);
    expect(u[dma + 1]).toMatch(/^ {2}running #3: LOAD sram=0x[0-9a-f]{5} spad=0x3000 rows=16 row_bytes=32 sram_stride=32 spad_stride=36$/);
    expect(u[dma + 2]).toMatch(/pushed at clock \d+, started at \d+, busy \d+ of about 514 clocks$/);
    const queued = u.filter((l) => l.startsWith('  queued  #'));
    expect(queued.map((l) => /#(\d+)/.exec(l)![1])).toEqual(['4', '5', '6', '7', '8', '9', '10', '11']);
    expect(queued.every((l) => /LOAD sram=0x[0-9a-f]{5} spad=0x[0-9a-f]{4} rows=16 row_bytes=32/.test(l))).toBe(true);
    expect(u).toContain('MXU  STATUS 0x00000000 (idle, 0 queued)  ISSUED 0  DONE 0');
    expect(u.some((l) => /^ERROR 0x00000000 \(none\); 0 commands dropped so far$/.test(l))).toBe(true);
    expect(u).toContain('counters (PERF_CTRL window, counting):');
    expect(u.some((l) => /^ {2}producer stalled on a full queue [1-9]\d* /.test(l))).toBe(true);
    // The same STATUS through the register block, and DONE; the first LOADs' bytes in the scratchpad.
    expect(reply(t, 5)[0]).toMatch(/^0x20000118:\t0x00000000\t0x00000801\t0x0000000c$/);
    expect(reply(t, 6)[0]).toMatch(/^spad:0x1000:\t(0x[0-9a-f]{2}\t){3}0x[0-9a-f]{2}$/);
  });

  it('shows wait tokens and which queue heads wait on them', () => {
    // tpu_tokens pushes three LOADs, then the first MATMUL with a token on the third.
    const m = machine('tpu_tokens');
    let push = symbol(m, 'main');
    while (!/^sw \w+,536\(\w+\)/.test(insn(m, push))) push += 4; // the first MXU PUSH
    const t = debug('tpu_tokens', [`break *${push}`, 'continue', 'stepi', 'info units']);
    const u = reply(t, 3);
    expect(u.find((l) => l.startsWith('DMA '))).toMatch(/^DMA {2}STATUS 0x00000\d01 \(busy, \d queued\) {2}ISSUED 3 {2}DONE [0-2]$/);
    expect(u.find((l) => l.startsWith('MXU '))).toBe('MXU  STATUS 0x00000100 (idle, 1 queued)  ISSUED 1  DONE 0');
    const mxu = u.find((l) => l.includes('#0: MATMUL'))!;
    expect(mxu).toMatch(/^ {2}queued {2}#0: MATMUL A=0x0000 B=0x1000 C=0x2000 K=128 flags=OUT_INT32 .*\[after DMA DONE >= 3, now [0-2]\] \(pushed at clock \d+\) {2}<- waiting for its token$/);
  });

  it('reports a --strict TPU error as the program stop, and stays inspectable', () => {
    const t = debug('tpu_port_conflict', ['continue', 'info units', 'backtrace', 'step', 'restart', 'info clock'], ['--strict']);
    const out = reply(t, 0);
    expect(out.filter((l) => l.includes('PORT_CONFLICT'))).toHaveLength(1);
    expect(out[out.length - 2]).toMatch(/^program stopped: TPU error at clock \d+: MXU command #0 .* dropped: PORT_CONFLICT: /);
    const s = stopLine(out);
    const ref = new Machine(undefined, { strict: true });
    ref.loadElf(readFileSync(elfPath('tpu_port_conflict')));
    const r = ref.run();
    expect(r.reason).toBe('tpu-error');
    expect(s.clock).toBe(r.clocks);
    expect(s.pc).toBe(r.pc);
    expect(reply(t, 1).some((l) => /^MXU {2}STATUS 0x00010000 \(idle, 0 queued, ERROR bit\)/.test(l))).toBe(true);
    expect(reply(t, 2)[0]).toMatch(/^#0 /);
    expect(reply(t, 3)).toEqual([
      `step: the program is not running (it stopped (tpu-error) at clock ${r.clocks}); "restart" starts it again`,
    ]);
    expect(reply(t, 4)).toEqual(['Program reloaded and reset.', `clock ${FIRST_LAUNCH_CLOCK}  pc 0x00000000 <_start>: ${insn(ref, 0)}`]);
  });
});

describe('picotpu debug: a trap', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'picotpu-debug-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('stops at the trapping instruction, at the clock its trap goes high, and stays inspectable', () => {
    const elf = join(tmp, 'trap.elf');
    writeFileSync(elf, assemble('  .text\n  .globl _start\n_start:\n  li a0, 5\n  mv a1, a0\nfault:\n  ebreak\n  li a0, 6\n'));
    const t = debug(elf, ['continue', 'info clock', 'info registers a0 a1', 'step']);
    const ref = new Machine();
    ref.loadElf(readFileSync(elf));
    // Two 3-clock ALU instructions from FIRST_LAUNCH_CLOCK; the trap goes high 3 clocks after the ebreak's launch
    // (docs/hardware.md §1.1, §1.2).
    const launch = FIRST_LAUNCH_CLOCK + 6;
    expect(trapClocks('ebreak', ref.config.cpu)).toBe(3);
    const at = launch + 3;
    const out = reply(t, 0);
    expect(out).toEqual([
      `program stopped: ebreak at pc 0x00000008 <fault>: 0x00100073  ebreak, clock ${at}`,
      `clock ${at}  pc 0x00000008 <fault>: ebreak`,
    ]);
    expect(ref.run().clocks).toBe(at);
    // The ebreak did not retire.
    expect(reply(t, 1)[0]).toBe(`clock ${at} (${((at / ref.config.clockHz) * 1000).toFixed(3)} ms at 12 MHz), 2 instructions retired, CPI ${(at / 2).toFixed(2)}`);
    expect(reply(t, 2)).toEqual(['a0    0x00000005            5', 'a1    0x00000005            5']);
    expect(reply(t, 3)).toEqual([`step: the program is not running (it stopped (trap) at clock ${at}); "restart" starts it again`]);
  });
});

describe('picotpu debug: run, start and starti as gdb has them (fib.elf)', () => {
  const m = machine('fib');
  const main = symbol(m, 'main'), fib = symbol(m, 'fib');
  const t = debug('fib', [
    'run', //          0: no breakpoint: to the end
    'break fib', //    1
    'step', //         2: not running any more
    'run', //          3: reset, to the first breakpoint
    'start', //        4: a temporary breakpoint at main, run
    'starti', //       5: reset, stopped at the first instruction
    'delete', //       6
    'break *0', //     7
    'run', //          8: a breakpoint at the entry stops run before the first instruction
  ]);
  const free = machine('fib').run();

  it('run from a stop resets the board and runs to the end without a breakpoint', () => {
    const out = reply(t, 0);
    expect(out[0]).toBe(`Starting program: ${elfPath('fib')}`);
    expect(out).toContain(`program exited with status 0 at clock ${free.clocks} (${free.instret} instructions)`);
    expect(stopLine(out).clock).toBe(free.clocks);
  });

  it('run after an exit starts the program again and stops at the first breakpoint', () => {
    const out = reply(t, 3);
    expect(out[0]).toBe(`Starting program: ${elfPath('fib')}`);
    expect(out[1]).toBe(`Breakpoint 1, 0x${hex8(fib)} <fib> (hit 1)`);
    const ref = machine('fib');
    stepTo(ref, fib);
    expect(stopLine(out)).toMatchObject({ clock: ref.cpu.cycle, pc: fib });
  });

  it('start stops at main through a temporary breakpoint; starti (restart) at _start', () => {
    const out = reply(t, 4);
    expect(out[0]).toBe(`Temporary breakpoint 2 at 0x${hex8(main)} <main>: ${insn(m, main)}`);
    expect(out[2]).toBe(`Temporary breakpoint 2, 0x${hex8(main)} <main> (hit 1)`);
    const ref = machine('fib');
    stepTo(ref, main);
    expect(stopLine(out)).toMatchObject({ clock: ref.cpu.cycle, pc: main });
    expect(reply(t, 5)).toEqual(['Program reloaded and reset.', `clock ${FIRST_LAUNCH_CLOCK}  pc 0x00000000 <_start>: ${insn(m, 0)}`]);
  });

  it('run stops at a breakpoint on the first instruction before executing it', () => {
    const out = reply(t, 8);
    expect(out[1]).toBe('Breakpoint 3, 0x00000000 <_start> (hit 1)');
    expect(stopLine(out)).toMatchObject({ clock: FIRST_LAUNCH_CLOCK, pc: 0 });
  });
});

describe('picotpu debug: the end of the program and bad input', () => {
  it('prints the exit and still inspects; clocks as a free run', () => {
    const t = debug('fib', ['continue', 'info registers a0 sp pc', 'x/2xw $sp', 'step', 'continue']);
    const ref = machine('fib');
    const r = ref.run();
    const out = reply(t, 0);
    expect(out[0]).toMatch(/^fib\(20\) = 6765 \(\d+ clocks\)$/); // the guest's console, in the transcript
    expect(out[1]).toBe(`program exited with status 0 at clock ${r.clocks} (${r.instret} instructions)`);
    expect(stopLine(out).clock).toBe(r.clocks);
    expect(reply(t, 1)[0]).toBe(`a0    0x00000000            0`);
    expect(reply(t, 2)).toHaveLength(1);
    const notRunning = `the program is not running (it exited with status 0 at clock ${r.clocks}); "restart" starts it again`;
    expect(reply(t, 3)).toEqual([`step: ${notRunning}`]);
    expect(reply(t, 4)).toEqual([`continue: ${notRunning}`]);
  });

  it('answers every bad command with one line and keeps going', () => {
    // Each bad command and the one line that says why it was refused ("break" alone sets a
    // breakpoint at pc, as gdb does; it stays in the list to keep the later replies in step).
    const F = 'x reads the BRAM (0x00000000..), the SRAM (0x40000000..), the TPU registers (0x20000000..) and the scratchpad (spad:0x...)';
    const INFO = 'info wants one of: breakpoints, registers, units, clock, symbol, frame';
    const expected: [string, string][] = [
      ['bogus', 'unknown command "bogus" (try "help")'],
      ['break', `Breakpoint 1 at 0x00000000 <_start>: ${insn(machine('fib'), 0)}`],
      ['break nosuch', `break: no symbol "nosuch" in ${elfPath('fib')}`],
      ['break 0x102', 'break: 0x00000102 is not word-aligned (instructions are 4 bytes)'],
      ['break 0x20000', 'break: 0x00020000 is not in the program BRAM (0x00000000..0x0000ffff)'],
      ['break main+', 'break: cannot read "main+" (an address, symbol, $register, or sum of them)'],
      ['break main junk', 'break: cannot read "main junk" (an address, symbol, $register, or sum of them)'],
      ['delete 99', 'delete: no breakpoint or watchpoint number 99'],
      ['clear 0x40', 'clear: no breakpoint at 0x00000040 <_start+0x40>'],
      ['step 0', 'step wants a positive number of instructions, got "0"'],
      ['step -1', 'step wants a positive number of instructions, got "-1"'],
      ['next x', 'next wants a positive number of instructions, got "x"'],
      ['continue x', 'continue takes an optional positive count, got "x"'],
      ['x/4q main', 'x: unknown format letter "q" (formats x d u c s i, sizes b h w)'],
      ['x/0w 0', 'x: the count must be 1..4096'],
      ['x', 'x wants an address, a symbol or a $register'],
      ['x 0x10000000', `x: 0x10000000 is a console register (reading it has side effects); ${F}`],
      ['x 0x30000000', `x: 0x30000000 is unmapped; ${F}`],
      ['x spad:0xffff', 'x: spad:0xffff+4 is past the end of the 64 KiB scratchpad'],
      ['x/i 0x40000000', 'x/i: 0x40000000 is not an instruction address in the program BRAM'],
      ['x/i spad:0', 'x/i: the scratchpad holds no instructions'],
      ['print', 'print wants a $register, a symbol or an expression'],
      ['print $foo', 'print: no register "$foo" (ABI names, x0..x31, $pc)'],
      ['print 0x1ffffffff', 'print: bad number "0x1ffffffff"'],
      ['info', INFO],
      ['info nothing', `${INFO} (not "nothing")`],
      ['info registers q9', 'info registers: no register "q9"'],
      ['watch', 'watch wants an address or symbol, and optionally a length in bytes'],
      ['watch spad:0x10', 'watch: the CPU cannot store to the scratchpad; watch BRAM or SRAM addresses'],
      ['watch 0x30000000', 'watch: 0x30000000..0x30000003 is not all in the BRAM or all in the SRAM'],
      ['watch main 0', 'watch: bad length "0"'],
      ['finish', 'finish: outermost frame (0x00000000 <_start>)'],
      ['until 0x3', 'until: 0x00000003 is not word-aligned (instructions are 4 bytes)'],
      ['advance', 'advance wants a location'],
      ['disassemble 0x0 0', 'disassemble: bad count "0"'],
      ['disassemble 0x40000000', 'disassemble: 0x40000000 is not in the program BRAM (0x00000000..0x0000ffff)'],
      ['backtrace x', 'backtrace wants a number of frames, got "x"'],
      ['help nope', 'help: no command "nope"'],
      ['clock now', 'clock takes no arguments'],
      ['restart now', 'restart takes no arguments'],
      ['step/x', 'step takes no /format'],
    ];
    const bad = expected.map(([cmd]) => cmd);
    const t = debug('fib', [...bad, 'step', 'quit']);
    expect(t.status).toBe(0);
    expect(t.stderr).toBe('');
    expect(t.stdout).not.toMatch(/\n\s+at /); // no stack trace
    expected.forEach(([cmd, line], i) => expect(reply(t, i), `"${cmd}"`).toEqual([line]));
    expect(stopLine(reply(t, bad.length)).pc).toBe(4);
  });

  it('refuses a bad program with the CLI\'s one-line error and exit status', () => {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'debug', join(root, 'package.json')], {
      input: 'quit\n', encoding: 'utf8',
    });
    expect(r.status).toBe(164);
    expect(r.stderr).toBe('picotpu: not an ELF file\n');
    const u = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'debug', elfPath('fib'), '--set', 'NOPE=1'], {
      input: 'quit\n', encoding: 'utf8',
    });
    expect(u.status).toBe(165);
    expect(u.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});
