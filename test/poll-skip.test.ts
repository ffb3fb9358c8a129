// Poll loops skipped by the CPU (emu/cpu.ts pollRepeats): a loop that reads a
// TPU unit register the TPU promises to repeat (Tpu.repeatUntil) is skipped a
// whole number of iterations at a time. The stepper runs one instruction per
// call, so it never skips: every program here must end with the same clocks,
// instructions, registers, TPU counters and command records free-running as
// stepped — poll loops of several shapes (one reading two registers, as the
// seed firmware's issued - retired does; some that must not be skipped: one
// that reads the clock, one that stores, one that counts), stops at a clock
// limit inside a poll loop, and real firmware (mmbench, model.elf). The free
// runs must also skip (fewer TPU reads than poll iterations), and a promise a
// few iterations too long must change the outcome (the comparison can fail).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { Stepper } from '../emu/stepper.ts';
import { opcode, packArgs, TPU_BASE, UNIT_REG } from '../periph/regs.ts';
import { Tpu } from '../periph/tpu.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { matmulJob, MMBENCH_ELF } from '../model/run.ts';
import { VARIANT } from '../model/format.ts';

const MXU_BASE = TPU_BASE + 0x200;

/** A MATMUL of K = k (A, B, C apart in the scratchpad), pushed `times` times. */
function pushMatmuls(k: number, times: number): string {
  const args = packArgs('MXU', {
    A_ADDR: 0, B_ADDR: 0x4000, C_ADDR: 0x8000, K: k, A_STRIDE: k / 2, B_STRIDE: 4, C_STRIDE: 4, SHIFT: 0,
    CIN_ADDR: 0, CIN_STRIDE: 0,
  });
  const stage = args.map((v, i) => `    li t0, ${v >>> 0}\n    sw t0, ${4 * i}(a0)`).join('\n');
  const push = `    li t0, ${opcode('MXU', 'MATMUL')}\n    sw t0, ${UNIT_REG.PUSH}(a0)`;
  return `${stage}\n${Array.from({ length: times }, () => push).join('\n')}`;
}

/** A program: push `times` MATMULs, run `loop` (a0 = the MXU's registers, s1 = the DONE to wait for), EXIT with a1. */
function program(loop: string, times = 3, k = 512): Uint8Array {
  return assemble(`
    .section .text.start
    .globl _start
_start:
    lui x31, 0x10000
    li a0, ${MXU_BASE}
    li s1, ${times}
    li sp, 0x8000
${pushMatmuls(k, times)}
${loop}
    sw a1, 8(x31)          # EXIT
`);
}

const LOOPS: Record<string, string> = {
  // The firmware's poll: read DONE until it reaches the count.
  plain: `1:  lw t1, ${UNIT_REG.DONE}(a0)\n    bltu t1, s1, 1b\n    li a1, 0`,
  // STATUS until idle, with a shift (its clocks depend on the value) in the loop.
  status: `1:  lw t1, ${UNIT_REG.STATUS}(a0)\n    srl t2, t1, s1\n    andi t1, t1, 0x1ff\n    bnez t1, 1b\n    li a1, 0`,
  // A timeout on rdcycle: the loop reads the clock and must run as written.
  rdcycle: `    rdcycle s2\n1:  rdcycle t2\n    lw t1, ${UNIT_REG.DONE}(a0)\n    bgeu t1, s1, 2f\n    sub t2, t2, s2\n    li t3, 100000\n    bltu t2, t3, 1b\n2:  li a1, 0`,
  // A loop that stores (a count in memory) and one that counts in a register.
  store: `1:  lw t2, 0(sp)\n    addi t2, t2, 1\n    sw t2, 0(sp)\n    lw t1, ${UNIT_REG.DONE}(a0)\n    bltu t1, s1, 1b\n    lw a1, 0(sp)`,
  count: `1:  addi a1, a1, 1\n    lw t1, ${UNIT_REG.DONE}(a0)\n    bltu t1, s1, 1b`,
  // Two registers read per iteration: each read's predecessor is the other one (skipped: each
  // read is matched with its own in the previous iteration).
  two: `1:  lw t2, ${UNIT_REG.ISSUED}(a0)\n    lw t1, ${UNIT_REG.DONE}(a0)\n    bltu t1, t2, 1b\n    li a1, 0`,
};

interface Outcome { result: RunResult; regs: number[]; records: string[]; reads: number }

/** Runs `elf` (with the SRAM blob, if any) free or one instruction at a time; counts the TPU's CPU reads. */
function runIt(elf: Uint8Array, stepped: boolean, maxCycles = 200_000_000, sram?: Uint8Array): Outcome {
  const m = new Machine();
  m.loadElf(elf);
  if (sram) m.loadSram(sram, 0);
  m.tpu.records = [];
  let reads = 0;
  const read = m.tpu.read.bind(m.tpu);
  m.tpu.read = (offset: number, clock: number) => { reads++; return read(offset, clock); };
  let result: RunResult;
  if (stepped) {
    const s = new Stepper(m);
    while (s.step(maxCycles)) { /* one instruction */ }
    result = s.finish();
  } else {
    result = m.run(maxCycles);
  }
  const records = m.tpu.records.map((r) => `${r.unit}#${r.serial} ${r.startClock}-${r.endClock}`);
  return { result, regs: [...m.cpu.regs], records, reads };
}

function expectSame(free: Outcome, stepped: Outcome, what: string): void {
  const pick = (o: Outcome) => ({
    reason: o.result.reason, exit: o.result.exit, clocks: o.result.clocks, instret: o.result.instret, pc: o.result.pc,
    counters: o.result.counters, regs: o.regs, records: o.records,
  });
  expect(pick(free), what).toEqual(pick(stepped));
}

describe('skipped poll loops', () => {
  for (const [name, loop] of Object.entries(LOOPS)) {
    it(`${name}: the same run free as stepped`, () => {
      const elf = program(loop);
      const free = runIt(elf, false), stepped = runIt(elf, true);
      expect(free.result.reason).toBe('exit');
      expectSame(free, stepped, name);
      if (name === 'plain' || name === 'status' || name === 'two') {
        // About 1,600 clocks of polling, a read per 10 to 20 clocks: skipped, few reads remain.
        expect(stepped.reads).toBeGreaterThan(50);
        expect(free.reads).toBeLessThan(stepped.reads / 5);
      } else {
        expect(free.reads, 'a loop with a clock read, a store or a count is not skipped').toBe(stepped.reads);
      }
    });
  }

  it('stops at a clock limit inside a poll loop where a stepped run stops', () => {
    const elf = program(LOOPS.plain);
    const end = runIt(elf, false).result.clocks;
    for (let limit = 200; limit < end; limit += 97) {
      expectSame(runIt(elf, false, limit), runIt(elf, true, limit), `limit ${limit}`);
    }
  });

  it('mmbench (64x256x64, double buffered): the same free as stepped', () => {
    const { blob } = matmulJob({ m: 64, k: 256, n: 64 }, VARIANT.DOUBLE_BUFFER);
    const mm = readFileSync(MMBENCH_ELF);
    const free = runIt(mm, false, 50_000_000, blob), stepped = runIt(mm, true, 50_000_000, blob);
    expect(free.result.reason).toBe('exit');
    expectSame(free, stepped, 'mmbench');
    expect(free.reads).toBeLessThan(stepped.reads / 4);
  });

  it('can fail: a promise a few poll iterations too long changes the run', () => {
    const elf = program(LOOPS.plain, 1, 64);
    const honest = runIt(elf, false);
    const original = Tpu.prototype.repeatUntil;
    try {
      Tpu.prototype.repeatUntil = function (this: Tpu, offset: number) {
        const until = original.call(this, offset);
        return until > 0 ? until + 40 : 0;
      };
      const lying = runIt(elf, false);
      expect(lying.result.clocks).not.toBe(honest.result.clocks);
    } finally {
      Tpu.prototype.repeatUntil = original;
    }
  });
});
