// Bad commands (docs/hardware.md §5.8): every malformed field and every kind
// of port conflict sets ERROR (first one wins) and the unit's STATUS error
// bit, the command is dropped (counted in DONE, no memory touched) and the unit
// goes on with its next command.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { ERR, flagBit, GLOBAL, opcode, packArgs, UNIT_REG, UNITS } from '../periph/regs.ts';
import { Sram } from '../periph/sram.ts';
import { KEPT_RECORDS, Tpu } from '../periph/tpu.ts';

type UnitName = 'DMA' | 'MXU' | 'VPU';
const BASE: Record<UnitName, number> = { DMA: UNITS[0].base, MXU: UNITS[1].base, VPU: UNITS[2].base };
const ID: Record<UnitName, number> = { DMA: 1, MXU: 2, VPU: 3 };

function setup() {
  const cfg = defaultConfig();
  const sram = new Sram(cfg.bus);
  const tpu = new Tpu(cfg, sram, false, false);
  tpu.records = [];
  return { tpu, sram };
}

function push(tpu: Tpu, unit: UnitName, value: number, fields: Record<string, number>, clock: number): void {
  const args = packArgs(unit, fields);
  for (let a = 0; a < 5; a++) tpu.write(BASE[unit] + 4 * a, args[a], 15, clock);
  tpu.write(BASE[unit] + UNIT_REG.ARG5, 0, 15, clock);
  tpu.write(BASE[unit] + UNIT_REG.PUSH, value, 15, clock);
}

const goodDma = { SRAM_ADDR: 0x100, SPAD_ADDR: 0x0000, ROWS: 2, ROW_BYTES: 16, SPAD_STRIDE: 16, SRAM_STRIDE: 16 };
const goodMxu = { A_ADDR: 0x0000, B_ADDR: 0x1000, C_ADDR: 0x2000, K: 16, A_STRIDE: 8, B_STRIDE: 4, C_STRIDE: 4, SHIFT: 2, CIN_ADDR: 0x3000, CIN_STRIDE: 32 };
const goodVpu = { A_ADDR: 0x0000, B_ADDR: 0x1000, C_ADDR: 0x2000, ROWS: 2, A_STRIDE: 8, B_STRIDE: 8, C_STRIDE: 8, COLS: 16, PARAM: 0 };
const good: Record<UnitName, { value: number; fields: Record<string, number> }> = {
  DMA: { value: opcode('DMA', 'LOAD'), fields: goodDma },
  MXU: { value: opcode('MXU', 'MATMUL'), fields: goodMxu },
  VPU: { value: opcode('VPU', 'ADD'), fields: goodVpu },
};

const ACC = flagBit('MXU', 'ACCUMULATE') << 8;
const cases: { name: string; unit: UnitName; value?: number; fields: Record<string, number>; code: number }[] = [
  { name: 'DMA unknown opcode', unit: 'DMA', value: 9, fields: goodDma, code: ERR.BAD_OPCODE },
  { name: 'DMA unknown flag', unit: 'DMA', value: opcode('DMA', 'LOAD') | 0x100, fields: goodDma, code: ERR.BAD_OPCODE },
  { name: 'DMA zero rows', unit: 'DMA', fields: { ...goodDma, ROWS: 0 }, code: ERR.ZERO_SIZE },
  { name: 'DMA zero row bytes', unit: 'DMA', fields: { ...goodDma, ROW_BYTES: 0 }, code: ERR.ZERO_SIZE },
  { name: 'DMA past the scratchpad', unit: 'DMA', fields: { ...goodDma, SPAD_ADDR: 0xfff8 }, code: ERR.RANGE },
  { name: 'DMA past the last SRAM byte', unit: 'DMA', fields: { ...goodDma, SRAM_ADDR: 0x7fff8 }, code: ERR.RANGE },
  { name: 'DMA CPU address instead of SRAM offset', unit: 'DMA', fields: { ...goodDma, SRAM_ADDR: 0x4000_0000 }, code: ERR.RANGE },
  { name: 'DMA stride past SRAM', unit: 'DMA', fields: { ...goodDma, SRAM_STRIDE: 0x7ffff }, code: ERR.RANGE },
  { name: 'MXU unknown opcode', unit: 'MXU', value: 2, fields: goodMxu, code: ERR.BAD_OPCODE },
  { name: 'MXU unknown flag', unit: 'MXU', value: opcode('MXU', 'MATMUL') | 0x8000, fields: goodMxu, code: ERR.BAD_OPCODE },
  { name: 'MXU K = 0', unit: 'MXU', fields: { ...goodMxu, K: 0 }, code: ERR.ZERO_SIZE },
  { name: 'MXU K not a multiple of 8', unit: 'MXU', fields: { ...goodMxu, K: 12 }, code: ERR.BAD_K },
  { name: 'MXU misaligned A', unit: 'MXU', fields: { ...goodMxu, A_ADDR: 2 }, code: ERR.MISALIGNED },
  { name: 'MXU misaligned C stride', unit: 'MXU', fields: { ...goodMxu, C_STRIDE: 6 }, code: ERR.MISALIGNED },
  { name: 'MXU misaligned Cin', unit: 'MXU', value: opcode('MXU', 'MATMUL') | ACC, fields: { ...goodMxu, CIN_ADDR: 0x3001 }, code: ERR.MISALIGNED },
  { name: 'MXU A past the scratchpad', unit: 'MXU', fields: { ...goodMxu, A_ADDR: 0xffe0 }, code: ERR.RANGE },
  { name: 'MXU two operands in one region', unit: 'MXU', fields: { ...goodMxu, B_ADDR: 0x0800 }, code: ERR.SAME_REGION },
  { name: 'MXU Cin in the region of A', unit: 'MXU', value: opcode('MXU', 'MATMUL') | ACC, fields: { ...goodMxu, CIN_ADDR: 0x0400 }, code: ERR.SAME_REGION },
  { name: 'VPU unknown opcode', unit: 'VPU', value: 99, fields: goodVpu, code: ERR.BAD_OPCODE },
  { name: 'VPU zero cols', unit: 'VPU', fields: { ...goodVpu, COLS: 0 }, code: ERR.ZERO_SIZE },
  { name: 'VPU odd int4 cols', unit: 'VPU', fields: { ...goodVpu, COLS: 7 }, code: ERR.ODD_COLS },
  { name: 'VPU misaligned int32 operand', unit: 'VPU', value: opcode('VPU', 'ADD32'), fields: { ...goodVpu, A_ADDR: 2 }, code: ERR.MISALIGNED },
  { name: 'VPU HARDTANH bound > 8', unit: 'VPU', value: opcode('VPU', 'HARDTANH'), fields: { ...goodVpu, PARAM: 9 }, code: ERR.PARAM },
  { name: 'VPU past the scratchpad', unit: 'VPU', fields: { ...goodVpu, C_ADDR: 0xfffc }, code: ERR.RANGE },
  { name: 'VPU A and B in one region', unit: 'VPU', fields: { ...goodVpu, B_ADDR: 0x0100 }, code: ERR.SAME_REGION },
];

describe('malformed commands are dropped with ERROR set', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { tpu, sram } = setup();
      for (let i = 0; i < 256; i++) sram.bytes[0x100 + i] = i;
      const spadBefore = Buffer.from(tpu.spad);
      push(tpu, c.unit, c.value ?? good[c.unit].value, c.fields, 10);
      tpu.advanceTo(200);
      // Nothing moved: the scratchpad is as before.
      expect(Buffer.from(tpu.spad).equals(spadBefore)).toBe(true);
      const err = tpu.read(GLOBAL.ERROR, 200);
      expect(err & 0xff).toBe(c.code);
      expect((err >>> 8) & 0xf).toBe(ID[c.unit]);
      expect(err >>> 12).toBe(0); // serial of the first command
      expect(tpu.read(BASE[c.unit] + UNIT_REG.STATUS, 200) & (1 << 16)).toBeTruthy();
      expect(tpu.read(BASE[c.unit] + UNIT_REG.DONE, 200)).toBe(1);
      expect(tpu.errors).toHaveLength(1);
      expect(tpu.errors[0].clock).toBe(11); // dropped when it would have started
      // The unit goes on: a good command after it runs.
      push(tpu, c.unit, good[c.unit].value, good[c.unit].fields, 300);
      tpu.advanceTo(2000);
      expect(tpu.read(BASE[c.unit] + UNIT_REG.DONE, 2000)).toBe(2);
      expect(tpu.records!.map((r) => r.serial)).toEqual([1]);
      // The first error stays until cleared; clearing clears STATUS too.
      tpu.write(GLOBAL.ERROR, 1, 15, 2001);
      expect(tpu.read(GLOBAL.ERROR, 2002)).toBe(0);
      expect(tpu.read(BASE[c.unit] + UNIT_REG.STATUS, 2002) & (1 << 16)).toBe(0);
    });
  }
});

describe('port conflicts', () => {
  // A long DMA LOAD writing region 2 (0x2000..) and reading nothing in the scratchpad.
  const longLoad = { SRAM_ADDR: 0, SPAD_ADDR: 0x2000, ROWS: 4, ROW_BYTES: 200, SPAD_STRIDE: 200, SRAM_STRIDE: 200 };
  const longStore = { ...longLoad, SPAD_ADDR: 0x5000 };

  const conflicts: { name: string; first: [UnitName, number, Record<string, number>]; second: [UnitName, number, Record<string, number>]; region: number; port: string }[] = [
    { name: 'write port: MXU output into the region a DMA LOAD fills', first: ['DMA', opcode('DMA', 'LOAD'), longLoad], second: ['MXU', opcode('MXU', 'MATMUL'), goodMxu], region: 2, port: 'write' },
    { name: 'write port: VPU output into the region a DMA LOAD fills', first: ['DMA', opcode('DMA', 'LOAD'), longLoad], second: ['VPU', opcode('VPU', 'RELU'), goodVpu], region: 2, port: 'write' },
    { name: 'read port: MXU reading the region a DMA STORE drains', first: ['DMA', opcode('DMA', 'STORE'), longStore], second: ['MXU', opcode('MXU', 'MATMUL'), { ...goodMxu, B_ADDR: 0x5000 }], region: 5, port: 'read' },
    { name: 'read port: VPU reading the region a running MXU reads', first: ['MXU', opcode('MXU', 'MATMUL'), { ...goodMxu, K: 512, A_STRIDE: 256 }], second: ['VPU', opcode('VPU', 'RELU'), { ...goodVpu, A_ADDR: 0x1100, C_ADDR: 0x7000 }], region: 1, port: 'read' },
  ];

  for (const c of conflicts) {
    it(c.name, () => {
      const { tpu } = setup();
      push(tpu, c.first[0], c.first[1], c.first[2], 10);
      push(tpu, c.second[0], c.second[1], c.second[2], 20);
      tpu.advanceTo(20_000);
      expect(tpu.errors).toHaveLength(1);
      const e = tpu.errors[0];
      expect(e.codeName).toBe('PORT_CONFLICT');
      expect(e.unit).toBe(c.second[0]);
      expect(e.clock).toBe(21);
      expect(e.detail).toContain(`${c.port} port of region ${c.region}`);
      expect(e.detail).toContain(`${c.first[0]} command #0`);
      expect(tpu.records!.map((r) => r.unit)).toEqual([c.first[0]]);
    });
  }

  it('no conflict between a reader and a writer of one region (separate ports)', () => {
    const { tpu } = setup();
    push(tpu, 'DMA', opcode('DMA', 'LOAD'), longLoad, 10); // writes region 2
    push(tpu, 'VPU', opcode('VPU', 'RELU'), { ...goodVpu, A_ADDR: 0x2100, C_ADDR: 0x7000 }, 20); // reads region 2
    tpu.advanceTo(20_000);
    expect(tpu.errors).toHaveLength(0);
    expect(tpu.records).toHaveLength(2);
  });

  it('in one clock, the lower unit (DMA < MXU < VPU) wins a port and the other is dropped', () => {
    const { tpu } = setup();
    // Both become ready at clock 11 and both write region 2.
    push(tpu, 'VPU', opcode('VPU', 'RELU'), { ...goodVpu, C_ADDR: 0x2000 }, 10);
    push(tpu, 'MXU', opcode('MXU', 'MATMUL'), goodMxu, 10);
    tpu.advanceTo(5000);
    expect(tpu.errors.map((e) => `${e.clock} ${e.unit} ${e.codeName}`)).toEqual(['11 VPU PORT_CONFLICT']);
  });
});

describe('a firmware that keeps dropping commands (memory stays bounded, docs/hardware.md §7)', () => {
  it(`keeps the first KEPT_RECORDS errors in full and counts the rest`, () => {
    const { tpu } = setup();
    const extra = 7;
    // An unknown opcode is dropped in the clock it would start (§5.8): one error per PUSH.
    for (let i = 0; i < KEPT_RECORDS + extra; i++) tpu.write(BASE.DMA + UNIT_REG.PUSH, 0xff, 15, 10 + 2 * i);
    tpu.advanceTo(10 + 2 * (KEPT_RECORDS + extra) + 10);
    expect(tpu.errors.length).toBe(KEPT_RECORDS);
    expect(tpu.errorsNotKept).toBe(extra);
    expect(tpu.errors[0].serial).toBe(0);
    expect(tpu.errors[KEPT_RECORDS - 1].serial).toBe(KEPT_RECORDS - 1);
  });
});
