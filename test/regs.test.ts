// The one register table: the generated header and the doc tables must match
// it, and the table itself must be consistent (no overlapping fields).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  BUILDS_MK_PATH, DOC_PATH, docWithTables, generateBuildsMk, generateHeader, generateKernelConstantsHeader, generateModelHeader, HEADER_PATH,
  KERNEL_CONSTANTS_PATH, MODEL_HEADER_PATH,
} from '../scripts/gen-regs.ts';
import { FIRMWARE_BUILDS, KERNEL_CONSTANTS } from '../model/firmware-facts.ts';
import {
  argField, CONFIG_FIELD, ERROR_FIELD, fieldOf, GLOBAL_REGS, packArgs, packField, PUSH_FIELD, STATUS_FIELD, statusWord, TOKEN_FIELD,
  UNIT_REGS, UNITS, unpackField,
} from '../periph/regs.ts';

const ROOT = join(import.meta.dirname, '..');

describe('register table', () => {
  it('firmware-c/include/tpu_regs.h is generated from it (run npm run gen:regs when this fails)', () => {
    expect(readFileSync(HEADER_PATH, 'utf8')).toBe(generateHeader());
  });

  it('firmware-c/model/model_format.h is generated from model/format.ts', () => {
    expect(readFileSync(MODEL_HEADER_PATH, 'utf8')).toBe(generateModelHeader());
  });

  it('firmware-c/include/kernel_constants.h and firmware-c/builds.mk are generated from model/firmware-facts.ts', () => {
    expect(readFileSync(KERNEL_CONSTANTS_PATH, 'utf8')).toBe(generateKernelConstantsHeader());
    expect(readFileSync(BUILDS_MK_PATH, 'utf8')).toBe(generateBuildsMk());
  });

  it('the shared kernel constants and build flags have no second copy in the firmware or the predictor', () => {
    const files = (dir: string, ext: RegExp): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && ext.test(e.name)).map((e) => join(e.parentPath, e.name));
    const copies: string[] = [];
    for (const f of files('firmware-c', /\.[ch]$/)) {
      if (f === KERNEL_CONSTANTS_PATH) continue;
      const text = readFileSync(f, 'utf8');
      for (const name of Object.keys(KERNEL_CONSTANTS)) if (new RegExp(`^\\s*#\\s*define\\s+${name}\\b`, 'm').test(text)) copies.push(`${relative(ROOT, f)}: #define ${name}`);
    }
    for (const f of files('model', /\.ts$/)) {
      const text = readFileSync(f, 'utf8');
      for (const name of Object.keys(KERNEL_CONSTANTS)) if (new RegExp(`\\b${name}\\s*=\\s*\\d`).test(text)) copies.push(`${relative(ROOT, f)}: ${name} = ...`);
    }
    const makefile = readFileSync(join(ROOT, 'firmware-c', 'Makefile'), 'utf8');
    for (const b of FIRMWARE_BUILDS) {
      if (makefile.includes(b.flags)) copies.push(`firmware-c/Makefile: ${b.flags}`);
      expect(makefile, `the Makefile builds -${b.name} with $(${b.makeVariable})`).toContain(`$(${b.makeVariable})`);
    }
    expect(copies).toEqual([]);
  });

  it('the tables in docs/hardware.md are generated from it', () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    expect(docWithTables(doc)).toBe(doc);
  });

  it('register offsets are unique and word aligned', () => {
    for (const regs of [GLOBAL_REGS, UNIT_REGS]) {
      const offs = regs.map((r) => r.offset);
      expect(new Set(offs).size).toBe(offs.length);
      for (const o of offs) expect(o % 4).toBe(0);
    }
  });

  it('command fields do not overlap within a staging register (except documented aliases)', () => {
    const aliases = new Set(['VPU.ROW_OFF', 'VPU.COL_OFF']);
    for (const u of UNITS) {
      const used = [0, 0, 0, 0, 0];
      for (const f of u.args) {
        if (aliases.has(`${u.name}.${f.name}`)) continue;
        const mask = f.width === 32 ? 0xffffffff : ((1 << f.width) - 1) << f.lsb;
        expect(used[f.arg] & mask, `${u.name}.${f.name}`).toBe(0);
        used[f.arg] |= mask;
      }
    }
  });

  // Every field of every unit and register, as docs/hardware.md §4 states it, written out by
  // hand: [staging register (or register), lsb, width]. The table must put each field there.
  const COMMAND_FIELDS: Record<string, Record<string, [number, number, number]>> = {
    DMA: {
      SRAM_ADDR: [0, 0, 32], SPAD_ADDR: [1, 0, 16], ROWS: [1, 16, 16], ROW_BYTES: [2, 0, 16], SPAD_STRIDE: [2, 16, 16],
      SRAM_STRIDE: [3, 0, 32],
    },
    MXU: {
      A_ADDR: [0, 0, 16], B_ADDR: [0, 16, 16], C_ADDR: [1, 0, 16], K: [1, 16, 16], A_STRIDE: [2, 0, 16], B_STRIDE: [2, 16, 16],
      C_STRIDE: [3, 0, 16], SHIFT: [3, 16, 5], CIN_ADDR: [4, 0, 16], CIN_STRIDE: [4, 16, 16],
    },
    VPU: {
      A_ADDR: [0, 0, 16], B_ADDR: [0, 16, 16], C_ADDR: [1, 0, 16], ROWS: [1, 16, 16], A_STRIDE: [2, 0, 16], B_STRIDE: [2, 16, 16],
      C_STRIDE: [3, 0, 16], COLS: [3, 16, 16], PARAM: [4, 0, 32], ROW_OFF: [4, 0, 16], COL_OFF: [4, 16, 16],
    },
  };
  const REGISTER_FIELDS: Record<string, Record<string, [number, number]>> = {
    CONFIG: { ARRAY_DIM: [0, 8], QUEUE_DEPTH: [8, 8], SPAD_KIB: [16, 8], REGION_KIB: [24, 8] },
    ERROR: { CODE: [0, 8], UNIT: [8, 4], SERIAL: [12, 20] },
    ARG5: { TICKET: [0, 30], UNIT: [30, 2] },
    PUSH: { OPCODE: [0, 8], FLAGS: [8, 8] },
    STATUS: { BUSY: [0, 1], QUEUED: [8, 8], ERROR: [16, 1] },
  };
  const ones = (width: number) => (width === 32 ? 0xffffffff : 2 ** width - 1);

  it('packArgs puts every command field of every unit at the documented bits, and nothing else', () => {
    for (const u of UNITS) {
      expect(u.args.map((f) => f.name).sort(), u.name).toEqual(Object.keys(COMMAND_FIELDS[u.name]).sort());
      for (const [name, [arg, lsb, width]] of Object.entries(COMMAND_FIELDS[u.name])) {
        const want = [0, 0, 0, 0, 0];
        want[arg] = (ones(width) * 2 ** lsb) >>> 0;
        expect(packArgs(u.name, { [name]: 0xffffffff }), `${u.name}.${name}`).toEqual(want);
        expect(argField(u.name, name), `${u.name}.${name}`).toEqual({ arg, lsb, mask: ones(width) });
      }
    }
    // A value wider than its field is cut to it: SHIFT is 5 bits at 16 of ARG3.
    expect(packArgs('MXU', { A_ADDR: 0x1234, B_ADDR: 0xabcd, K: 64, SHIFT: 0x3f })).toEqual([0xabcd1234, 0x00400000, 0, 0x001f0000, 0]);
  });

  it('every register field sits at the documented bits, and packField/unpackField and statusWord follow them', () => {
    const positions: Record<string, Record<string, { lsb: number; mask: number }>> = {
      CONFIG: CONFIG_FIELD, ERROR: ERROR_FIELD, ARG5: TOKEN_FIELD, PUSH: PUSH_FIELD, STATUS: STATUS_FIELD,
    };
    for (const [reg, fields] of Object.entries(REGISTER_FIELDS)) {
      const table = [...GLOBAL_REGS, ...UNIT_REGS].find((r) => r.name === reg)!;
      expect(table.fields!.map((f) => f.name).sort(), reg).toEqual(Object.keys(fields).sort());
      for (const [name, [lsb, width]] of Object.entries(fields)) {
        expect(fieldOf([table], reg, name), `${reg}.${name}`).toMatchObject({ lsb, width });
        expect(positions[reg][name], `${reg}.${name}`).toEqual({ lsb, mask: ones(width) });
        expect(packField(positions[reg][name], 0xffffffff), `${reg}.${name}`).toBe((ones(width) * 2 ** lsb) >>> 0);
        expect(unpackField(positions[reg][name], 0xffffffff), `${reg}.${name}`).toBe(ones(width));
      }
    }
    expect(statusWord(true, 0, false)).toBe(0x00000001);
    expect(statusWord(false, 8, false)).toBe(0x00000800);
    expect(statusWord(false, 0, true)).toBe(0x00010000);
    expect(statusWord(true, 255, true)).toBe(0x0001ff01);
  });
});
