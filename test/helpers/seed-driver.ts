// Drives a SeedTpu the way the seed's CPU does, without a CPU: MMIO stores and
// loads at explicit clocks (9 clocks an access, the seed's picorv32_axi load /
// store time), each later by the wait clocks the device reported. Streams of
// operations are data so that the reference and the fast model replay the
// same one. Without a trace (benchmarks), poll iterations the TPU promises to
// repeat (SeedTpu.repeatUntil) are skipped whole, as the CPU skips them
// (emu/cpu.ts pollRepeats): the same clocks, fewer reads.

import { packSeedCommand as P, SEED_DMA, SEED_MXU } from '../../boards/transformer-tpu-int4/regs.ts';
import { SeedTpu } from '../../boards/transformer-tpu-int4/tpu.ts';

export type SeedOp =
  | { kind: 'cmd'; unit: number; words: readonly number[]; gap: number }
  | { kind: 'wait'; unit: number } // poll issued - retired until 0
  | { kind: 'waitAll' } // poll the idle bits until 0xF
  | { kind: 'spadWrite'; addr: number; value: number; wstrb: number }
  | { kind: 'spadRead'; addr: number }
  | { kind: 'idle'; clocks: number };

export const ACCESS_CLOCKS = 9;

export interface DriveResult {
  tpu: SeedTpu;
  /** Clock of every access and what it returned / waited, for comparing models. */
  trace: number[];
  commands: number[];
  endClock: number;
}

/**
 * `record` false leaves trace and commands empty (benchmarks). `ownSram`: the TPU runs on an SRAM
 * of its own (as on the board: the fast model's beside its scratchpad), loaded from `sram`; its
 * final contents are then tpu.sram, and `sram` stays as it was.
 */
export function drive(reference: boolean, sram: Uint8Array, ops: readonly SeedOp[], spadInit?: Uint8Array, maxClocks = 5_000_000, record = true, ownSram = false): DriveResult {
  const tpu = new SeedTpu({ reference }, ownSram ? null : sram);
  if (ownSram) tpu.sramMemory.set(sram);
  if (spadInit) tpu.spad.set(spadInit);
  const trace: number[] = [];
  const commands: number[] = [];
  if (record) tpu.onCommand = (u, op, s, e) => { commands.push(u, op, s, e); };
  tpu.runPulse(0);
  let clk = 5;
  const store = (off: number, v: number) => {
    tpu.write(off, v, 15, clk);
    if (record) trace.push(clk, tpu.extraWait());
    clk += ACCESS_CLOCKS + tpu.extraWait();
  };
  const load = (off: number) => {
    const v = tpu.read(off, clk);
    if (record) trace.push(clk, v);
    clk += ACCESS_CLOCKS;
    return v;
  };
  /**
   * After a poll iteration whose reads at `first` and `last` (clocks) the TPU promised to repeat
   * until `promise`: the clock after skipping every further iteration (`period` clocks each, the
   * next one starting at clk) whose last read comes before the promise and whose start is within
   * maxClocks. Only without a trace, which records every read.
   */
  const skipPolls = (promise: number, period: number, span: number): number => {
    if (record || promise <= 0 || clk + span >= promise) return clk;
    const n = Math.min(Math.floor((promise - 1 - (clk + span)) / period) + 1, Math.floor((maxClocks - clk) / period) + 1);
    return n > 0 ? clk + n * period : clk;
  };
  for (const op of ops) {
    if (clk > maxClocks) break;
    switch (op.kind) {
      case 'cmd':
        for (let k = 0; k < 4; k++) store(op.unit * 16 + k * 4, op.words[k]);
        clk += op.gap;
        break;
      case 'wait': {
        const issued = 0x40 + op.unit * 16, retired = 0x44 + op.unit * 16;
        for (;;) {
          if (clk > maxClocks) break;
          const i = load(issued), promiseI = record ? 0 : tpu.repeatUntil(issued);
          const r = load(retired), promiseR = record ? 0 : tpu.repeatUntil(retired);
          if (((i - r) | 0) === 0) break;
          clk += 3;
          clk = skipPolls(Math.min(promiseI, promiseR), 2 * ACCESS_CLOCKS + 3, ACCESS_CLOCKS);
        }
        break;
      }
      case 'waitAll':
        while (clk <= maxClocks && load(0x70) !== 0xf) {
          const promise = record ? 0 : tpu.repeatUntil(0x70);
          clk += 3;
          clk = skipPolls(promise, ACCESS_CLOCKS + 3, 0);
        }
        break;
      case 'spadWrite':
        tpu.spadWindow.write(op.addr, op.value, op.wstrb, clk);
        trace.push(clk, tpu.spadWindow.extraWait!());
        clk += ACCESS_CLOCKS + tpu.spadWindow.extraWait!();
        break;
      case 'spadRead': {
        const v = tpu.spadWindow.read(op.addr, clk);
        trace.push(clk, v, tpu.spadWindow.extraWait!());
        clk += ACCESS_CLOCKS + tpu.spadWindow.extraWait!();
        break;
      }
      case 'idle':
        clk += op.clocks;
        break;
    }
  }
  tpu.write(0x70, 1, 15, clk);
  tpu.advanceTo(clk + 1);
  return { tpu, trace, commands, endClock: clk };
}

/** bench:seed-tpu's and bench:speed's stream: 128×128 · 128×512 in 8×8 output tiles (fill A and B, MM K = 128, a spill every 8 tiles). */
export function seedTiledStream(tiles: number): SeedOp[] {
  const ops: SeedOp[] = [{ kind: 'cmd', unit: SEED_MXU, words: P(SEED_MXU, 'GEOM', { LEN: 128 }), gap: 0 }];
  for (let t = 0; t < tiles; t++) {
    const buf = (t & 1) * 0x2000;
    ops.push({ kind: 'cmd', unit: SEED_DMA, words: P(SEED_DMA, 'MOVE', { SPAD_ADDR: buf, SRAM_ADDR: (t % 16) * 1024, LEN: 128, ROWS: 8 }), gap: 0 });
    ops.push({ kind: 'cmd', unit: SEED_DMA, words: P(SEED_DMA, 'MOVE', { SPAD_ADDR: 0x8000 + buf, SRAM_ADDR: 0x20000 + (t % 64) * 512, LEN: 8, ROWS: 128 }), gap: 0 });
    ops.push({ kind: 'wait', unit: SEED_DMA });
    ops.push({ kind: 'cmd', unit: SEED_MXU, words: P(SEED_MXU, 'MM', { A_ADDR: buf, B_ADDR: 0x8000 + buf, C_ADDR: 0xc000 + (t & 7) * 32, M0: 1, N: 6 }), gap: 0 });
    if ((t & 7) === 7) {
      ops.push({ kind: 'wait', unit: SEED_MXU });
      ops.push({ kind: 'cmd', unit: SEED_DMA, words: P(SEED_DMA, 'MOVE', { SPILL: 1, SPAD_ADDR: 0xc000, SRAM_ADDR: 0x40000 + t * 32, LEN: 64, ROWS: 4 }), gap: 0 });
    }
  }
  ops.push({ kind: 'waitAll' });
  return ops;
}
