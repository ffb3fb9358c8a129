// Wait-token deadlocks (docs/hardware.md §5.3): the run stops with status 163
// and one line naming what waits on what, within DEADLOCK_POLL_CLOCKS and one
// poll of the deadlock's first clock, with --strict and without, on the fast
// and the reference models. The deadlock clock is derived from the start rule
// and the DMA's clock formula, from the clocks the CPU's PUSHes reached the
// TPU; the stop clock from the documented polling rule.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { EXIT } from '../emu/exit-status.ts';
import { Machine } from '../boards/machine.ts';
import { runBoards } from '../boards/registry.ts';
import { GLOBAL, opcode, packArgs, UNIT_REG, UNITS } from '../periph/regs.ts';
import { Sram } from '../periph/sram.ts';
import { DEADLOCK_POLL_CLOCKS, Tpu } from '../periph/tpu.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ELF = join(root, 'build', 'fw', 'tpu_deadlock.elf');
/** The firmware's poll loop (lw DONE, compare, branch) is far shorter than this. */
const ONE_POLL = 64;
const MAX_CYCLES = 5_000_000;
const DMA_LOAD_BYTES = 8 * 128;

function run(mode: string, opts: { reference?: boolean; strict?: boolean } = {}) {
  const m = new Machine(defaultConfig(), opts);
  m.loadElf(readFileSync(ELF));
  m.tpu.records = [];
  m.bus.console.captureOutput();
  m.bus.console.setInput(new TextEncoder().encode(mode));
  const r = m.run(MAX_CYCLES);
  return { m, r, out: m.bus.console.capturedText() };
}

const MODELS = [
  { reference: false, strict: false }, { reference: false, strict: true },
  { reference: true, strict: false }, { reference: true, strict: true },
];
const label = (o: { reference: boolean; strict: boolean }) => `${o.reference ? 'reference' : 'fast'}${o.strict ? ', --strict' : ''}`;

describe('a wait on a ticket never issued', () => {
  for (const o of MODELS) {
    it(`stops with 163 within the polling window of the deadlock (${label(o)})`, () => {
      const { m, r, out } = run('b', o);
      const cfg = m.config.tpu;
      const [load] = m.tpu.records!;
      const mxuHead = m.tpu.units[1].fifo[0];
      // The LOAD starts the clock after its PUSH and takes dmaSetup + 1 clock per byte.
      const loadEnd = load.pushClock + 1 + cfg.dmaSetup + DMA_LOAD_BYTES - 1;
      expect(mxuHead.pushClock).toBeLessThan(loadEnd); // so the LOAD's end is the last event
      const deadlock = loadEnd + 1;
      expect(r.reason, out).toBe('tpu-error');
      expect(r.exit).toBe(EXIT.TPU_ERROR);
      expect(r.clocks).toBeGreaterThanOrEqual(deadlock + DEADLOCK_POLL_CLOCKS);
      expect(r.clocks).toBeLessThan(deadlock + DEADLOCK_POLL_CLOCKS + ONE_POLL);
      expect(r.tpuFatal).toMatch(new RegExp(`^TPU deadlock at clock ${deadlock}: no TPU command can ever start: `
        + 'MXU command #0 \\(MATMUL [^)]*\\) waits for DMA DONE 2: DMA has DONE 1 of 1 issued, idle, queue empty; '
        + 'the CPU polls DONE/STATUS with no PUSH since \\(detected at clock \\d+\\)$'));
      expect(out).not.toMatch(/FAIL|OK/);
    });
  }
});

describe('a cycle of wait tokens', () => {
  for (const o of MODELS) {
    it(`stops with 163 naming both heads (${label(o)})`, () => {
      const { m, r } = run('c', o);
      const [, mxu, vpu] = m.tpu.units;
      expect(m.tpu.records).toEqual([]);
      // Nothing ever starts: the deadlock begins the clock after the last PUSH.
      const deadlock = Math.max(mxu.fifo[0].pushClock, vpu.fifo[0].pushClock, vpu.fifo[1].pushClock) + 1;
      expect(r.exit).toBe(163);
      expect(r.clocks).toBeGreaterThanOrEqual(deadlock + DEADLOCK_POLL_CLOCKS);
      expect(r.clocks).toBeLessThan(deadlock + DEADLOCK_POLL_CLOCKS + ONE_POLL);
      expect(r.tpuFatal).toContain(`TPU deadlock at clock ${deadlock}: no TPU command can ever start: `);
      expect(r.tpuFatal).toMatch(/MXU command #0 \(MATMUL [^)]*\) waits for VPU DONE 1: VPU has DONE 0 of 2 issued, idle, 2 queued, its head waiting too; /);
      expect(r.tpuFatal).toMatch(/VPU command #0 \(COPY [^)]*\) waits for MXU DONE 1: MXU has DONE 0 of 1 issued, idle, 1 queued, its head waiting too; /);
    });
  }

  it('stops identically on both models', () => {
    const strip = (x: ReturnType<typeof run>) => ({ clocks: x.r.clocks, pc: x.r.pc, fatal: x.r.tpuFatal, instret: x.r.instret });
    expect(strip(run('c', { reference: true }))).toEqual(strip(run('c')));
    expect(strip(run('b', { reference: true, strict: true }))).toEqual(strip(run('b', { strict: true })));
  });
});

describe('a PUSH to a full queue that can never drain', () => {
  for (const o of MODELS) {
    it(`stops with 163 at that PUSH (${label(o)})`, () => {
      const { m, r } = run('f', o);
      const mxu = m.tpu.units[1];
      expect(mxu.fifo).toHaveLength(m.config.tpu.queueDepth);
      expect(r.exit).toBe(163);
      // The ninth PUSH is the store the CPU is in: the stop comes one command's
      // staging (five stores of at least 7 clocks, §2, and the call) after the eighth.
      expect(r.clocks - mxu.fifo.at(-1)!.pushClock).toBeGreaterThan(5 * 7);
      expect(r.clocks - mxu.fifo.at(-1)!.pushClock).toBeLessThan(4 * ONE_POLL);
      // Deadlocked (§5.3) from the clock after the eighth PUSH, the last event: the line names that clock.
      const deadlock = mxu.fifo.at(-1)!.pushClock + 1;
      expect(r.tpuFatal).toMatch(new RegExp(`^TPU deadlock at clock ${deadlock}: a PUSH to the full MXU queue can never be accepted: `
        + 'MXU command #0 \\(MATMUL [^)]*\\) waits for DMA DONE 1: DMA has DONE 0 of 0 issued, idle, queue empty$'));
      // The counters count the run's clocks, as for any other stop.
      expect(r.counters.cycles).toBe(r.clocks);
    });
  }

  for (const reference of [false, true]) {
    it(`says the same clock, and stops at the same clock with the same counters, on every board of a ring (${reference ? 'reference' : 'fast'})`, () => {
      const one = run('f', { reference }).r;
      for (const n of [1, 2, 3]) {
        const b = runBoards(readFileSync(ELF), n, defaultConfig(), { reference, input: new TextEncoder().encode('f'), maxCycles: MAX_CYCLES });
        for (const r of b.boards) {
          expect([r.exit, r.clocks, r.counters.cycles, r.tpuFatal], `${n} boards`).toEqual([163, one.clocks, one.clocks, one.tpuFatal]);
        }
      }
    });
  }
});

describe('not a deadlock', () => {
  for (const o of MODELS) {
    it(`a program that reads once and then pushes the missing command runs to its end (${label(o)})`, () => {
      const { r, out } = run('l', o);
      expect(r.reason, out).toBe('exit');
      expect(r.exit, out).toBe(0);
      expect(out).toMatch(/^tpu_deadlock: OK: /m);
      expect(r.tpuFatal).toBeNull();
    });
  }
});

describe('the polling rule on the TPU alone', () => {
  const MXU = UNITS[1].base, DMA = UNITS[0].base;
  function tpuWithWaitingMatmul(pushClock: number) {
    const cfg = defaultConfig();
    const tpu = new Tpu(cfg, new Sram(cfg.bus), false, false);
    const args = packArgs('MXU', { A_ADDR: 0, B_ADDR: 0x1000, C_ADDR: 0x2000, K: 8, A_STRIDE: 4, B_STRIDE: 4, C_STRIDE: 32, SHIFT: 0, CIN_ADDR: 0, CIN_STRIDE: 0 });
    for (let a = 0; a < 5; a++) tpu.write(MXU + 4 * a, args[a], 15, pushClock);
    tpu.write(MXU + UNIT_REG.ARG5, (1 << 30) | 1, 15, pushClock); // after DMA DONE 1
    tpu.write(MXU + UNIT_REG.PUSH, opcode('MXU', 'MATMUL'), 15, pushClock);
    return tpu;
  }
  const done = (tpu: Tpu, clock: number) => tpu.read(MXU + UNIT_REG.DONE, clock);

  it('stops at the second read at or after the deadlock clock + DEADLOCK_POLL_CLOCKS', () => {
    const tpu = tpuWithWaitingMatmul(100);
    const deadlock = 101; // pushed at 100, could start at 101, never does
    done(tpu, 102);
    done(tpu, deadlock + DEADLOCK_POLL_CLOCKS - 1);
    expect(tpu.fatal).toBeNull();
    done(tpu, deadlock + DEADLOCK_POLL_CLOCKS);
    expect(tpu.fatal).toMatch(new RegExp(`^TPU deadlock at clock ${deadlock}: .*detected at clock ${deadlock + DEADLOCK_POLL_CLOCKS}\\)$`));
  });

  it('one read, however late, does not stop; a PUSH starts the count again', () => {
    const tpu = tpuWithWaitingMatmul(100);
    done(tpu, 50_000);
    expect(tpu.fatal).toBeNull();
    // A PUSH to the MXU behind the waiting head cannot help, but it is the CPU acting: a new count.
    tpu.write(MXU + UNIT_REG.PUSH, opcode('MXU', 'MATMUL'), 15, 50_010);
    done(tpu, 50_011 + DEADLOCK_POLL_CLOCKS - 1);
    expect(tpu.fatal).toBeNull();
    done(tpu, 50_011 + DEADLOCK_POLL_CLOCKS);
    expect(tpu.fatal).toContain('TPU deadlock at clock 50011:');
  });

  it('reads of the counters, ID, CONFIG, ERROR and ISSUED are not polling; STATUS is', () => {
    const tpu = tpuWithWaitingMatmul(100);
    for (let t = 200; t < 20_000; t += 500) {
      for (const reg of [GLOBAL.CYCLES_LO, GLOBAL.ID, GLOBAL.CONFIG, GLOBAL.ERROR, GLOBAL.DEP_WAIT, MXU + UNIT_REG.ISSUED]) tpu.read(reg, t);
    }
    expect(tpu.fatal).toBeNull();
    tpu.read(DMA + UNIT_REG.STATUS, 20_000);
    tpu.read(DMA + UNIT_REG.STATUS, 20_001);
    expect(tpu.fatal).toContain('TPU deadlock at clock 101:');
  });

  it('a tool\'s reads (the debugger\'s peek) are not the CPU polling', () => {
    const tpu = tpuWithWaitingMatmul(100);
    for (let t = 200; t < 20_000; t += 1000) tpu.peek(MXU + UNIT_REG.DONE, t);
    expect(tpu.fatal).toBeNull();
  });

  it('a poll of an idle TPU with empty queues is the program\'s own loop, not a TPU deadlock', () => {
    const cfg = defaultConfig();
    const tpu = new Tpu(cfg, new Sram(cfg.bus), false, false);
    for (let t = 10; t < 100_000; t += 5000) tpu.read(DMA + UNIT_REG.DONE, t);
    expect(tpu.fatal).toBeNull();
  });
});

describe('picotpu run', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', ELF, '--no-report', ...args], {
    cwd: root, encoding: 'utf8', timeout: 60_000,
  });
  for (const strict of [false, true]) {
    it(`prints one "TPU deadlock" line and exits 163${strict ? ' (--strict)' : ''}`, () => {
      const { r } = run('b', { strict });
      const p = cli(['--input', 'b', ...(strict ? ['--strict'] : [])]);
      expect(p.status, p.stderr).toBe(163);
      const lines = p.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(`picotpu: ${r.tpuFatal} (stopped at pc 0x${r.pc.toString(16).padStart(8, '0')} <${r.where}>, clock ${r.clocks})`);
    });
  }
});
