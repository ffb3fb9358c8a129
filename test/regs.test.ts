// The one register table: the generated header and the doc tables must match
// it, and the table itself must be consistent (no overlapping fields).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, docWithTables, generateHeader, generateModelHeader, HEADER_PATH, MODEL_HEADER_PATH } from '../scripts/gen-regs.ts';
import { GLOBAL_REGS, packArgs, argField, UNIT_REGS, UNITS } from '../periph/regs.ts';

describe('register table', () => {
  it('firmware-c/include/tpu_regs.h is generated from it (run npm run gen:regs when this fails)', () => {
    expect(readFileSync(HEADER_PATH, 'utf8')).toBe(generateHeader());
  });

  it('firmware-c/model/model_format.h is generated from model/format.ts', () => {
    expect(readFileSync(MODEL_HEADER_PATH, 'utf8')).toBe(generateModelHeader());
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

  it('packArgs puts each field where argField says', () => {
    const args = packArgs('MXU', { A_ADDR: 0x1234, B_ADDR: 0xabcd, K: 64, SHIFT: 31 });
    const k = argField('MXU', 'K');
    expect((args[k.arg] >>> k.lsb) & k.mask).toBe(64);
    expect(args[0]).toBe(0xabcd1234);
    expect((args[3] >>> 16) & 31).toBe(31);
  });
});
