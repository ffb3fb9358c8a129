// Drives a SeedTpu the way the seed's CPU does, without a CPU: MMIO stores and
// loads at explicit clocks (9 clocks an access, the seed's picorv32_axi load /
// store time), each later by the wait clocks the device reported. Streams of
// operations are data so that the reference and the fast model replay the
// same one.

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

/** `record` false leaves trace and commands empty (benchmarks). */
export function drive(reference: boolean, sram: Uint8Array, ops: readonly SeedOp[], spadInit?: Uint8Array, maxClocks = 5_000_000, record = true): DriveResult {
  const tpu = new SeedTpu({ reference }, sram);
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
  for (const op of ops) {
    if (clk > maxClocks) break;
    switch (op.kind) {
      case 'cmd':
        for (let k = 0; k < 4; k++) store(op.unit * 16 + k * 4, op.words[k]);
        clk += op.gap;
        break;
      case 'wait':
        while (clk <= maxClocks && ((load(0x40 + op.unit * 16) - load(0x44 + op.unit * 16)) | 0) !== 0) clk += 3;
        break;
      case 'waitAll':
        while (clk <= maxClocks && load(0x70) !== 0xf) clk += 3;
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
