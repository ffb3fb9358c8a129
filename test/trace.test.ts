// `picotpu run --trace FILE` through the real command line: the file is parsed
// back and held to the program (pcs follow its control flow, the first one is
// the reset vector, the last line is the EXIT store), to the clocks of a
// stepped run, to the registers of a plain run, to objdump's listing, and to
// --trace-limit.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_BASE, CONSOLE_REG } from '../emu/console.ts';
import { ABI_NAMES } from '../emu/isa.ts';
import { Machine } from '../boards/machine.ts';
import { Stepper } from '../emu/stepper.ts';
import { FIRST_LAUNCH_CLOCK, trapClocks } from '../emu/timing.ts';
import { TRACE_HEADER } from '../emu/observe/trace.ts';
import { assemble } from '../toolchain/toolchain.ts';

const FW = 'build/fw';
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-trace-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(...args: string[]) {
  return spawnSync('node', ['bin/picotpu.cjs', 'run', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

interface TraceLine {
  clock: number;
  pc: number;
  /** null for a pc that could not be fetched. */
  word: number | null;
  insn: string;
  reg?: string;
  value?: number;
  trap?: string;
}

interface Trace {
  comments: string[];
  lines: TraceLine[];
  /** The raw text lines, in order. */
  raw: string[];
}

const LINE = /^ *(\d+) 0x([0-9a-f]{8}) \((?:0x([0-9a-f]{8})|-{10})\) (.*?)(?: {2,}([a-z0-9]+) <- 0x([0-9a-f]{8}))?(?: +!! (.+))?$/;

function parseTrace(text: string): Trace {
  expect(text.endsWith('\n'), 'the trace ends with a newline').toBe(true);
  const raw = text.slice(0, -1).split('\n');
  const comments: string[] = [];
  const lines: TraceLine[] = [];
  for (const s of raw) {
    if (s.startsWith('#')) { comments.push(s); continue; }
    const m = LINE.exec(s);
    if (!m) throw new Error(`unparsable trace line: ${JSON.stringify(s)}`);
    lines.push({
      clock: Number(m[1]), pc: parseInt(m[2]!, 16), word: m[3] === undefined ? null : parseInt(m[3], 16), insn: m[4]!,
      ...(m[5] === undefined ? {} : { reg: m[5], value: parseInt(m[6]!, 16) }),
      ...(m[7] === undefined ? {} : { trap: m[7] }),
    });
  }
  return { comments, lines, raw };
}

const regIndex = (name: string) => {
  const k = (ABI_NAMES as readonly string[]).indexOf(name);
  if (k < 0) throw new Error(`no register ${name}`);
  return k;
};

const BRANCHES = new Set(['beq', 'bne', 'blt', 'bge', 'bltu', 'bgeu', 'beqz', 'bnez', 'blez', 'bgez', 'bltz', 'bgtz']);

/** The target address of a branch or jump as the disassembly shows it (`28 <_start+0x28>`). */
function shownTarget(insn: string): number {
  const m = /[ ,](?:0x)?([0-9a-f]+)(?: <[^>]+>)?$/.exec(insn);
  if (!m) throw new Error(`no target in ${insn}`);
  return parseInt(m[1]!, 16);
}

/** Where a jalr-family instruction goes, from the registers before it. */
function jalrTarget(insn: string, regs: Int32Array): number {
  if (insn === 'ret') return regs[1]! & ~1;
  const ops = insn.split(' ')[1]!.split(',');
  const last = ops[ops.length - 1]!; // rs1, or imm(rs1)
  const m = /^(-?\d+)\((\w+)\)$/.exec(last);
  const [imm, rs1] = m ? [Number(m[1]), m[2]!] : [0, last];
  return ((regs[regIndex(rs1)]! + imm) & ~1) >>> 0;
}

/** objdump's listing (build/fw/NAME.lst): address → disassembly, whitespace collapsed, no `#` comment. */
function listing(name: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const line of readFileSync(`${FW}/${name}.lst`, 'utf8').split('\n')) {
    const m = /^\s*([0-9a-f]+):\t[0-9a-f]{8}\s+\t(.*)$/.exec(line);
    if (m) map.set(parseInt(m[1]!, 16), m[2]!.replace(/\s+#.*$/, '').replace(/\s+/g, ' ').trim());
  }
  return map;
}

describe('picotpu run --trace', () => {
  const NAME = 'fib';
  const ELF = `${FW}/${NAME}.elf`;
  let plain: ReturnType<typeof cli>;
  let traced: ReturnType<typeof cli>;
  let trace: Trace;

  beforeAll(() => {
    plain = cli(ELF, '--no-report');
    traced = cli(ELF, '--no-report', '--trace', join(tmp, 'full.trace'));
    trace = parseTrace(readFileSync(join(tmp, 'full.trace'), 'latin1'));
  });

  it('does not change the run: same console, status and (no) messages', () => {
    expect(plain.status).toBe(0);
    expect(traced.stderr).toBe('');
    expect(traced.status).toBe(plain.status);
    expect(traced.stdout).toBe(plain.stdout);
  });

  it('has the header line and one line per instruction, starting at the reset vector', () => {
    expect(trace.raw[0]).toBe(TRACE_HEADER);
    expect(trace.comments).toEqual([TRACE_HEADER]);
    const m = new Machine();
    m.loadElf(readFileSync(ELF));
    const r = m.run();
    expect(trace.lines.length).toBe(r.instret);
    expect(trace.lines[0]).toMatchObject({ pc: 0, clock: FIRST_LAUNCH_CLOCK });
  });

  it('follows the program: each pc is the previous one + 4, or its branch or jump target', () => {
    const regs = new Int32Array(32);
    const bad: string[] = [];
    const lines = trace.lines;
    for (let i = 0; i + 1 < lines.length && bad.length < 10; i++) {
      const { pc, insn } = lines[i]!;
      const next = lines[i + 1]!.pc;
      const mnemonic = insn.split(' ')[0]!;
      let ok: boolean;
      if (mnemonic === 'j' || mnemonic === 'jal') ok = next === shownTarget(insn);
      else if (BRANCHES.has(mnemonic)) ok = next === shownTarget(insn) || next === pc + 4;
      else if (mnemonic === 'ret' || mnemonic === 'jr' || mnemonic === 'jalr') ok = next === jalrTarget(insn, regs);
      else ok = next === pc + 4;
      if (!ok) bad.push(`line ${i + 2}: 0x${pc.toString(16)} ${insn} then 0x${next.toString(16)}`);
      const { reg, value } = lines[i]!;
      if (reg !== undefined) regs[regIndex(reg)] = value!;
    }
    expect(bad).toEqual([]);
  });

  it('clocks rise by each instruction\'s clocks, and pcs, words and register writes are the stepped run\'s', () => {
    const m = new Machine();
    m.loadElf(readFileSync(ELF));
    const stepper = new Stepper(m);
    const bad: string[] = [];
    const lines = trace.lines;
    for (let i = 0; i < lines.length && bad.length < 10; i++) {
      const t = lines[i]!;
      stepper.step();
      const s = stepper.info;
      const where = `line ${i + 2} (0x${t.pc.toString(16)} ${t.insn})`;
      if (t.pc !== s.pc || t.word !== s.word || t.clock !== s.clockBefore) bad.push(`${where}: stepper at 0x${s.pc.toString(16)}, clock ${s.clockBefore}`);
      if (i + 1 < lines.length && lines[i + 1]!.clock - t.clock !== s.clockAfter - s.clockBefore) {
        bad.push(`${where}: took ${lines[i + 1]!.clock - t.clock} clocks, stepper ${s.clockAfter - s.clockBefore}`);
      }
      if (t.reg !== undefined && m.cpu.regs[regIndex(t.reg)]! >>> 0 !== t.value) bad.push(`${where}: ${t.reg} is 0x${(m.cpu.regs[regIndex(t.reg)]! >>> 0).toString(16)}`);
      if (s.rd !== 0 && t.reg !== ABI_NAMES[s.rd]) bad.push(`${where}: ${ABI_NAMES[s.rd]} changed but the trace says ${t.reg ?? 'nothing'}`);
    }
    expect(bad).toEqual([]);
    expect(stepper.step()).toBe(false);
    expect(stepper.stopped).not.toBeNull();
  });

  it('the register writes add up to the registers of a plain run', () => {
    const regs = new Int32Array(32);
    for (const { reg, value } of trace.lines) if (reg !== undefined) regs[regIndex(reg)] = value!;
    const m = new Machine();
    m.loadElf(readFileSync(ELF));
    const r = m.run();
    expect(r.reason).toBe('exit');
    expect([...regs]).toEqual([...m.cpu.regs]);
  });

  it('ends with the store to EXIT', () => {
    const regs = new Int32Array(32);
    for (const { reg, value } of trace.lines.slice(0, -1)) if (reg !== undefined) regs[regIndex(reg)] = value!;
    const last = trace.lines[trace.lines.length - 1]!;
    expect(trace.raw[trace.raw.length - 1]).not.toMatch(/^#/);
    const m = /^sw (\w+),(-?\d+)\((\w+)\)$/.exec(last.insn);
    expect(m, last.insn).not.toBeNull();
    const addr = (regs[regIndex(m![3]!)]! + Number(m![2])) >>> 0;
    expect(addr).toBe(CONSOLE_BASE + CONSOLE_REG.EXIT);
    expect(regs[regIndex(m![1]!)]! & 0xff).toBe(plain.status);
    // The run stops at the store's data handshake: its launch + 4 (picorv32.v with the dual-ported
    // register file, as in test/rtl/measured.json: io_wait_subword.S launches its EXIT store at
    // clock 101 and the handshake is at 107) + the console's wait.
    const machine = new Machine();
    machine.loadElf(readFileSync(ELF));
    expect(machine.config.cpu.ENABLE_REGS_DUALPORT).toBe(true);
    const r = machine.run();
    expect(last.clock + 4 + machine.config.bus.consoleWait).toBe(r.clocks);
  });

  it('disassembles as objdump\'s listing of the ELF, symbols included', () => {
    const lst = listing(NAME);
    const seen = new Map<number, string>();
    for (const { pc, insn } of trace.lines) seen.set(pc, insn);
    const bad = [...seen].filter(([pc, insn]) => lst.get(pc) !== insn).map(([pc, insn]) => `0x${pc.toString(16)}: ${insn} / ${lst.get(pc)}`);
    expect(seen.size).toBeGreaterThan(50);
    expect(bad.slice(0, 10)).toEqual([]);
  });

  it('--trace-limit N writes N instruction lines and a last line saying so; the run goes on', () => {
    const path = join(tmp, 'short.trace');
    const p = cli(ELF, '--no-report', '--trace', path, '--trace-limit', '1000');
    expect(p.status).toBe(plain.status);
    expect(p.stdout).toBe(plain.stdout);
    const short = parseTrace(readFileSync(path, 'latin1'));
    expect(short.lines.length).toBe(1000);
    expect(short.raw.slice(0, 1001)).toEqual(trace.raw.slice(0, 1001));
    expect(short.raw.length).toBe(1002);
    expect(short.raw[1001]).toMatch(/^# trace truncated after 1000 instructions/);
  });

  it('a limit the run stays within truncates nothing', () => {
    const path = join(tmp, 'exact.trace');
    const p = cli(ELF, '--no-report', '--trace', path, '--trace-limit', String(trace.lines.length));
    expect(p.status).toBe(0);
    expect(readFileSync(path, 'latin1')).toBe(readFileSync(join(tmp, 'full.trace'), 'latin1'));
  });

  it('is documented in --help', () => {
    const p = spawnSync('node', ['bin/picotpu.cjs', 'run', '--help'], { encoding: 'utf8' });
    expect(p.stdout).toMatch(/--trace\b[\s\S]*CLOCK\s+0xPC\s+\(0xWORD\)\s+DISASSEMBLY\s+REG\s+<-\s+0xVALUE/);
    expect(p.stdout).toMatch(/--trace-limit/);
  });

  it('a trace file that cannot be written is a command-line error (165)', () => {
    const p = cli(ELF, '--no-report', '--trace', join(tmp, 'no-such-dir', 'x.trace'));
    expect(p.status).toBe(165);
    expect(p.stderr).toMatch(/cannot write --trace .*no such directory \(ENOENT\)/);
    expect(p.stdout).toBe('');
  });
});

describe('picotpu run --trace of a trapping program', () => {
  it('marks the trapping instruction, which writes no register, as the last line; the run stops when its trap goes high', () => {
    const elf = join(tmp, 'trap.elf');
    writeFileSync(elf, assemble('  .text\n  .globl _start\n_start:\n  li a0, 5\n  mv a1, a0\nfault:\n  ebreak\n  li a0, 6\n'));
    const path = join(tmp, 'trap.trace');
    const p = cli(elf, '--no-report', '--trace', path);
    expect(p.status).toBe(160);
    const t = parseTrace(readFileSync(path, 'latin1'));
    expect(t.lines.map((l) => l.insn)).toEqual(['li a0,5', 'mv a1,a0', 'ebreak']);
    expect(t.lines[1]).toMatchObject({ reg: 'a1', value: 5 });
    expect(t.lines[2]).toMatchObject({ pc: 8, trap: 'ebreak' });
    expect(t.lines[2]!.reg).toBeUndefined();
    // CLOCK is the launch: the first at FIRST_LAUNCH_CLOCK, then 3 clocks per ALU reg+imm
    // instruction (docs/hardware.md §1.2); the trap goes high 3 clocks after the ebreak's launch (§1.1).
    expect(t.lines.map((l) => l.clock)).toEqual([FIRST_LAUNCH_CLOCK, FIRST_LAUNCH_CLOCK + 3, FIRST_LAUNCH_CLOCK + 6]);
    const m = new Machine();
    m.loadElf(readFileSync(elf));
    expect(trapClocks('ebreak', m.config.cpu)).toBe(3);
    const r = m.run();
    expect(r.clocks).toBe(t.lines[2]!.clock + 3);
    expect(p.stderr).toContain(`ebreak at pc 0x00000008 <fault>: 0x00100073  ebreak, clock ${FIRST_LAUNCH_CLOCK + 9}`);
  });

  it('a jump to a misaligned target retires and links (shown on its line), and the trap names the target and the jump', () => {
    const elf = join(tmp, 'misjump.elf');
    writeFileSync(elf, assemble('  .option norelax\n  .text\n  .globl _start\n_start:\n  li a0, 5\nsite:\n  jal ra, .+6\n  nop\n  nop\n'));
    const path = join(tmp, 'misjump.trace');
    const p = cli(elf, '--no-report', '--trace', path);
    expect(p.status).toBe(160);
    const t = parseTrace(readFileSync(path, 'latin1'));
    expect(t.lines).toHaveLength(2);
    // The jal at 4 links ra = 8 and goes to 4 + 6 = 10: the trap names pc 10, 4 clocks after the jal's launch (§1.1).
    expect(t.lines[1]).toMatchObject({ pc: 4, clock: FIRST_LAUNCH_CLOCK + 3, reg: 'ra', value: 8, trap: 'misaligned instruction fetch' });
    expect(t.lines[1]!.insn).toMatch(/^jal /);
    const m = new Machine();
    m.loadElf(readFileSync(elf));
    const r = m.run();
    expect(r).toMatchObject({ reason: 'trap', pc: 10, clocks: FIRST_LAUNCH_CLOCK + 3 + 4, instret: 2 });
    expect(m.cpu.regs[1]).toBe(8);
    expect(p.stderr).toContain(`misaligned instruction fetch at pc 0x0000000a <site+0x6> (jump at pc 0x00000004 <site>), clock ${FIRST_LAUNCH_CLOCK + 7}`);
  });
});
