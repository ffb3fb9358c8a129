// The self-checking TPU firmware tests (firmware-c/tests/*.c, built by the
// global setup into build/fw/<name>.elf), run on the whole machine.
//
// Each program computes a C reference on the CPU, compares the TPU's results
// with it, prints a one-line summary and exits 0, or exits with a distinct
// code per kind of failure. Here every program must
//   - exit 0 with the fast unit models and with the literal reference models,
//     with identical clocks, instructions, console output, counters, errors
//     and final scratchpad and SRAM contents;
//   - fail on purpose when asked: the first input byte n makes the firmware
//     invert its first check of kind n (tpu_test.h), and it must then report
//     that failure and exit n, which shows that every declared kind of check
//     exists and reaches the exit status;
//   - print, through `picotpu run`, the seven-line performance report of
//     PLATFORM.md §7 with the machine's figures.
// tpu_port_conflict is also run with --strict (exit 163, one line naming the
// clock, the units, the commands and the region) and without (each error
// listed with its clock).

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyOverrides, defaultConfig } from '../emu/config.ts';
import { EXIT } from '../emu/exit-status.ts';
import { type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const elfPath = (name: string): string => join(root, 'build', 'fw', `${name}.elf`);
/** Every program is meant to stay well under 30 M clocks. */
const MAX_CYCLES = 30_000_000;

interface Program {
  name: string;
  /** The exit codes of its failure kinds (all must be reachable by injection). */
  failCodes: number[];
  /** TPU errors the program provokes on purpose (code names, in order). */
  errors: string[];
  /** Platform options it needs (`--set NAME=VALUE`), e.g. the sequencer what-if. */
  set?: Record<string, number>;
}

const rep = (n: number, s: string): string[] => Array.from({ length: n }, () => s);

const PROGRAMS: Program[] = [
  { name: 'tpu_matmul', failCodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], errors: [] },
  { name: 'tpu_vpu', failCodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], errors: [] },
  { name: 'tpu_queue_full', failCodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], errors: [] },
  { name: 'tpu_port_conflict', failCodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], errors: ['PORT_CONFLICT', 'PORT_CONFLICT'] },
  { name: 'tpu_tokens', failCodes: [1, 2, 3, 4, 5, 6], errors: [] },
  { name: 'tpu_sram_share', failCodes: [1, 2, 3, 4, 5, 6], errors: [] },
  {
    name: 'tpu_errors',
    // 2..9: a wrong ERROR code (1 + TPU_ERR_*), 10..18 the other kinds.
    failCodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18],
    errors: [
      ...rep(3, 'BAD_OPCODE'), ...rep(2, 'ZERO_SIZE'), ...rep(6, 'RANGE'), // DMA
      ...rep(2, 'BAD_OPCODE'), 'ZERO_SIZE', 'BAD_K', 'BAD_K', ...rep(4, 'MISALIGNED'), 'RANGE', 'RANGE',
      ...rep(3, 'SAME_REGION'), // MXU
      ...rep(3, 'BAD_OPCODE'), ...rep(3, 'ODD_COLS'), 'ZERO_SIZE', 'ZERO_SIZE', 'PARAM', 'PARAM', ...rep(3, 'MISALIGNED'),
      'SAME_REGION', 'RANGE', 'RANGE', // VPU
      'BAD_K', 'ODD_COLS', // two in a row
    ],
  },
  // The command sequencer (docs/hardware.md §5.11): one list run twice, then a bad entry.
  { name: 'tpu_seq', failCodes: [1, 2, 3, 4, 5, 6, 7, 8], errors: ['BAD_ENTRY'], set: { sequencer: 1 } },
];

interface Run {
  r: RunResult;
  out: string;
  /** Digests of the final scratchpad and SRAM contents. */
  spad: string;
  sram: string;
}

const digest = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function runMachine(name: string, opts: { reference?: boolean; strict?: boolean; input?: number[]; set?: Record<string, number> } = {}): Run {
  const m = new Machine(applyOverrides(defaultConfig(), opts.set ?? {}), { reference: opts.reference ?? false, strict: opts.strict ?? false });
  m.loadElf(readFileSync(elfPath(name)));
  m.bus.console.captureOutput();
  if (opts.input) m.bus.console.setInput(Uint8Array.from(opts.input));
  const r = m.run(MAX_CYCLES);
  return { r, out: m.bus.console.capturedText(), spad: digest(m.tpu.spad), sram: digest(m.sramBytes) };
}

/** The comparable part of a run: everything observable except wall time. */
function observable(run: Run) {
  const { r, out, spad, sram } = run;
  return {
    spad, sram, reason: r.reason, exit: r.exit, clocks: r.clocks, instret: r.instret, pc: r.pc, out,
    counters: r.counters, perfWindow: r.perfWindow, tpuFatal: r.tpuFatal,
    errors: r.tpuErrors.map((e) => ({ ...e })),
  };
}

function cli(args: string[]) {
  const p = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', ...args], {
    cwd: root, encoding: 'utf8', input: '', timeout: 120_000,
  });
  const lines = p.stderr.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { status: p.status, stdout: p.stdout, stderr: p.stderr, lines };
}

/** The report of PLATFORM.md §7, one regex per line, checked against the counters. */
function checkReport(lines: string[], c: RunResult['counters']): void {
  expect(lines).toHaveLength(7);
  const pct = (n: number) => (c.cycles ? (100 * n) / c.cycles : 0).toFixed(1);
  const shapes: [RegExp, number][] = [
    [/^run (\d+) clocks (\d+\.\d{3}) ms @ 12 MHz$/, c.cycles],
    [/^MXU busy (\d+) (\d+\.\d)%$/, c.mxuBusy],
    [/^VPU busy (\d+) (\d+\.\d)%$/, c.vpuBusy],
    [/^DMA busy (\d+) (\d+\.\d)%$/, c.dmaBusy],
    [/^no unit busy \(issue overhead\) (\d+) (\d+\.\d)%$/, c.idle],
    [/^producer stalled on a full queue (\d+) (\d+\.\d)%$/, c.stall],
    [/^two or more units busy (\d+) (\d+\.\d)%$/, c.overlap],
  ];
  shapes.forEach(([re, value], i) => {
    const m = re.exec(lines[i]);
    expect(m, `report line ${i + 1}: ${JSON.stringify(lines[i])} ~ ${re}`).not.toBeNull();
    expect(Number(m![1])).toBe(value);
    if (i === 0) expect(m![2]).toBe(((c.cycles / 12e6) * 1000).toFixed(3));
    else expect(m![2]).toBe(pct(value));
  });
}

const ERROR_LINE = /^picotpu: TPU error at clock (\d+): (DMA|MXU|VPU|SEQ) command #(\d+) \((.+)\) (?:dropped|stopped): ([A-Z_]+): (.+)$/;

describe.each(PROGRAMS)('$name', (p) => {
  let fast: Run | undefined;
  const fastRun = (): Run => (fast ??= runMachine(p.name, { set: p.set }));
  const setArgs = Object.entries(p.set ?? {}).flatMap(([k, v]) => ['--set', `${k}=${v}`]);

  it('passes with the fast models and with the reference models, identically', () => {
    const f = fastRun();
    const ref = runMachine(p.name, { reference: true, set: p.set });
    expect(f.r.reason, f.out).toBe('exit');
    expect(f.r.exit, f.out).toBe(0);
    expect(f.out).toMatch(new RegExp(`^${p.name}: OK: \\d+ checks passed \\(.+\\)\\n$`, 'm'));
    expect(f.out).not.toMatch(/FAIL/);
    expect(f.r.clocks).toBeLessThan(MAX_CYCLES);
    expect(f.r.tpuErrors.map((e) => e.codeName)).toEqual(p.errors);
    expect(observable(ref)).toEqual(observable(f));
  });

  it('reports each kind of failure with its own exit code', () => {
    const clean = fastRun();
    for (const code of p.failCodes) {
      const { r, out } = runMachine(p.name, { input: [code], set: p.set });
      expect(r.reason, `injected ${code}: ${out}`).toBe('exit');
      expect(r.exit, `injected ${code}: ${out}`).toBe(code);
      expect(out).toMatch(new RegExp(`^FAIL\\[${code}\\] `, 'm'));
      expect(out).toMatch(new RegExp(`^${p.name}: FAIL \\(code ${code}\\): 1 of \\d+ checks failed$`, 'm'));
      // One inverted check changes nothing else the program does.
      expect(r.tpuErrors.map((e) => e.codeName)).toEqual(clean.r.tpuErrors.map((e) => e.codeName));
    }
  });

  it('prints the seven-line performance report through picotpu run', () => {
    const f = fastRun();
    const c = cli([elfPath(p.name), ...setArgs]);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stdout).toBe(f.out);
    // Errors first, one line each with its clock, then the report.
    const errorLines = c.lines.slice(0, p.errors.length);
    errorLines.forEach((line, i) => {
      const m = ERROR_LINE.exec(line);
      expect(m, line).not.toBeNull();
      expect(Number(m![1])).toBe(f.r.tpuErrors[i].clock);
      expect(m![5]).toBe(p.errors[i]);
    });
    checkReport(c.lines.slice(p.errors.length), f.r.counters);
  });
});

describe('tpu_port_conflict under --strict and in the report', () => {
  const errors = () => runMachine('tpu_port_conflict').r.tpuErrors;

  it('stops at the first conflict with exit 163 and one line naming clock, units, commands and region', () => {
    const first = errors()[0];
    const c = cli([elfPath('tpu_port_conflict'), '--strict', '--no-report']);
    expect(c.status, c.stderr).toBe(EXIT.TPU_ERROR);
    expect(c.status).toBe(163);
    expect(c.lines, c.stderr).toHaveLength(1);
    const line = c.lines[0];
    const m = ERROR_LINE.exec(line);
    expect(m, line).not.toBeNull();
    expect(Number(m![1])).toBe(first.clock);
    expect(m![2]).toBe('MXU');
    expect(m![3]).toBe('0');
    expect(m![4]).toMatch(/^MATMUL A=0x0000 B=0x1000 C=0x3200 K=64 flags=OUT_INT32/);
    expect(m![5]).toBe('PORT_CONFLICT');
    expect(line).toMatch(/the write port of region 3 is held by DMA command #\d+ \(LOAD [^)]*spad=0x3000[^)]*\)/);
    // The program did not get to its summary.
    expect(c.stdout).not.toMatch(/OK/);

    // The same stop in-process, identical with the reference models.
    const s = runMachine('tpu_port_conflict', { strict: true });
    const sref = runMachine('tpu_port_conflict', { strict: true, reference: true });
    expect(s.r.reason).toBe('tpu-error');
    expect(s.r.exit).toBe(163);
    expect(line).toContain(s.r.tpuFatal!);
    expect(s.r.tpuErrors).toHaveLength(1);
    expect(observable(sref)).toEqual(observable(s));
  });

  it('with the report on, --strict prints the one error line and then the report', () => {
    const s = runMachine('tpu_port_conflict', { strict: true });
    const c = cli([elfPath('tpu_port_conflict'), '--strict']);
    expect(c.status).toBe(163);
    expect(c.lines.filter((l) => l.startsWith('picotpu:'))).toHaveLength(1);
    expect(c.lines[0]).toMatch(ERROR_LINE);
    checkReport(c.lines.slice(1), s.r.counters);
  });

  it('without --strict lists every conflict with its clock and exits 0', () => {
    const errs = errors();
    const c = cli([elfPath('tpu_port_conflict'), '--no-report']);
    expect(c.status, c.stderr).toBe(0);
    expect(c.lines).toHaveLength(2);
    const want = [
      { clock: errs[0].clock, unit: 'MXU', region: /the write port of region 3 is held by DMA command/ },
      { clock: errs[1].clock, unit: 'VPU', region: /the read port of region 5 is held by DMA command #\d+ \(STORE / },
    ];
    want.forEach((w, i) => {
      const m = ERROR_LINE.exec(c.lines[i]);
      expect(m, c.lines[i]).not.toBeNull();
      expect(Number(m![1])).toBe(w.clock);
      expect(m![2]).toBe(w.unit);
      expect(m![3]).toBe('0');
      expect(m![5]).toBe('PORT_CONFLICT');
      expect(c.lines[i]).toMatch(w.region);
    });
    expect(errs[0].clock).toBeLessThan(errs[1].clock);
  });
});

describe('figures the firmware reads match the report', () => {
  it('tpu_queue_full: STALL read by the firmware is the report\'s stalled figure, and > 0', () => {
    const { r, out } = runMachine('tpu_queue_full');
    const m = /STALL (\d+) \(loads (\d+)\), DMA_BUSY (\d+) of (\d+)/.exec(out);
    expect(m, out).not.toBeNull();
    expect(r.perfWindow).toBe(true);
    expect(r.counters.stall).toBe(Number(m![1]));
    expect(r.counters.stall).toBeGreaterThan(0);
    expect(r.counters.dmaBusy).toBe(Number(m![3]));
    expect(r.counters.cycles).toBe(Number(m![4]));
  });

  it('tpu_tokens: DEP_WAIT read by the firmware is the window\'s, and > 0', () => {
    const { r, out } = runMachine('tpu_tokens');
    const m = /window (\d+) clocks, DEP_WAIT (\d+), OVERLAP (\d+)/.exec(out);
    expect(m, out).not.toBeNull();
    expect(r.counters.cycles).toBe(Number(m![1]));
    expect(r.counters.depWait).toBe(Number(m![2]));
    expect(r.counters.depWait).toBeGreaterThan(0);
    expect(r.counters.overlap).toBe(Number(m![3]));
  });
});
