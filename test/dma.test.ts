// DMA semantics against a golden 2-D copy: strides on both sides, one-row
// transfers, the last byte of the SRAM and of the scratchpad, both models.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { DmaFast, DmaReference, dmaRules } from '../periph/dma.ts';
import { opcode, packArgs } from '../periph/regs.ts';
import { Sram, SRAM_SIZE } from '../periph/sram.ts';
import type { Cmd, UnitModel } from '../periph/unit.ts';
import { rng } from './helpers/tpu-script.ts';

const cfg = defaultConfig();

interface Xfer { store: boolean; sram: number; spad: number; rows: number; rowBytes: number; sramStride: number; spadStride: number }

function golden(x: Xfer, spad: Uint8Array, sram: Uint8Array): void {
  for (let r = 0; r < x.rows; r++) {
    for (let b = 0; b < x.rowBytes; b++) {
      const s = x.sram + r * x.sramStride + b, p = x.spad + r * x.spadStride + b;
      if (x.store) sram[s] = spad[p]; else spad[p] = sram[s];
    }
  }
}

function command(x: Xfer): Cmd {
  const args = new Uint32Array(packArgs('DMA', {
    SRAM_ADDR: x.sram, SPAD_ADDR: x.spad, ROWS: x.rows, ROW_BYTES: x.rowBytes, SRAM_STRIDE: x.sramStride, SPAD_STRIDE: x.spadStride,
  }));
  return { args, opcode: opcode('DMA', x.store ? 'STORE' : 'LOAD'), flags: 0, serial: 0, pushClock: 0, token: 0 };
}

/** Runs one command on a model from clock `start`; returns the end clock. Fast models skip in random steps. */
function execute(model: UnitModel, cmd: Cmd, start: number, skips: boolean, seed: number): number {
  const r = rng(seed);
  model.begin(cmd, start);
  let c = start;
  for (;;) {
    if (skips && r.chance(0.7)) {
      const n = r.int(1, model.horizon(c));
      if (model.skip(c, n)) return c + n - 1;
      c += n;
    } else {
      model.tickRead(c);
      if (model.tickWrite(c)) return c;
      c++;
    }
  }
}

function check(x: Xfer, seed: number): void {
  const rules = dmaRules(cfg.tpu, cfg.bus);
  const cmd = command(x);
  expect(rules.validate(cmd), JSON.stringify(x)).toBe(0);
  const r = rng(seed);
  const spad0 = new Uint8Array(cfg.tpu.spadKiB * 1024).map(() => r.int(0, 255));
  const sram0 = new Uint8Array(SRAM_SIZE);
  for (let i = 0; i < SRAM_SIZE; i += 97) sram0[i] = r.int(0, 255);
  sram0[SRAM_SIZE - 1] = 0xa5;
  const want = { spad: spad0.slice(), sram: sram0.slice() };
  golden(x, want.spad, want.sram);
  const variants: [string, (mem: { spad: Uint8Array; sram: Uint8Array }, s: Sram) => UnitModel, boolean][] = [
    ['reference', (mem, s) => new DmaReference(mem, s, cfg.tpu, cfg.bus), false],
    ['fast, ticked', (mem, s) => new DmaFast(mem, s, cfg.tpu, cfg.bus), false],
    ['fast, skipping', (mem, s) => new DmaFast(mem, s, cfg.tpu, cfg.bus), true],
  ];
  for (const [name, make, skips] of variants) {
    const sram = new Sram(cfg.bus);
    sram.bytes.set(sram0);
    const mem = { spad: spad0.slice(), sram: sram.bytes };
    const end = execute(make(mem, sram), cmd, 1000, skips, seed);
    expect(end - 1000 + 1, `${name} clocks`).toBe(rules.nominalClocks(cmd));
    expect(Buffer.from(mem.spad).equals(Buffer.from(want.spad)), `${name} scratchpad`).toBe(true);
    expect(Buffer.from(sram.bytes).equals(Buffer.from(want.sram)), `${name} SRAM`).toBe(true);
  }
}

describe('DMA moves exactly the 2-D block it is told to', () => {
  it('random strided LOADs and STOREs', () => {
    const r = rng(7);
    for (let i = 0; i < 300; i++) {
      const rows = r.int(1, 12), rowBytes = r.int(1, 300);
      const spadStride = rowBytes + r.int(0, 100), sramStride = r.chance(0.2) ? rowBytes : rowBytes + r.int(0, 3000);
      check({
        store: r.chance(0.5), rows, rowBytes, spadStride, sramStride,
        spad: r.int(0, 65536 - ((rows - 1) * spadStride + rowBytes)),
        sram: r.int(0, SRAM_SIZE - ((rows - 1) * sramStride + rowBytes)),
      }, i);
    }
  });

  it('one-row transfers, single bytes, and the last byte of SRAM and scratchpad', () => {
    check({ store: false, rows: 1, rowBytes: 1, spad: 0xffff, sram: SRAM_SIZE - 1, spadStride: 0, sramStride: 0 }, 1);
    check({ store: true, rows: 1, rowBytes: 1, spad: 0xffff, sram: SRAM_SIZE - 1, spadStride: 0, sramStride: 0 }, 2);
    check({ store: false, rows: 1, rowBytes: 4096, spad: 0xf000, sram: SRAM_SIZE - 4096, spadStride: 0, sramStride: 0 }, 3);
    check({ store: true, rows: 16, rowBytes: 16, spad: 0xff00, sram: SRAM_SIZE - 256, spadStride: 16, sramStride: 16 }, 4);
  });

  it('rows that overlap (stride below the row length) are copied in row order', () => {
    check({ store: false, rows: 5, rowBytes: 10, spad: 100, sram: 5000, spadStride: 3, sramStride: 7 }, 5);
    check({ store: true, rows: 5, rowBytes: 10, spad: 100, sram: 5000, spadStride: 7, sramStride: 3 }, 6);
  });

  it('refuses one byte past the end of either memory', () => {
    const rules = dmaRules(cfg.tpu, cfg.bus);
    expect(rules.validate(command({ store: false, rows: 1, rowBytes: 2, spad: 0xffff, sram: 0, spadStride: 0, sramStride: 0 }))).not.toBe(0);
    expect(rules.validate(command({ store: false, rows: 1, rowBytes: 2, spad: 0, sram: SRAM_SIZE - 1, spadStride: 0, sramStride: 0 }))).not.toBe(0);
  });
});
