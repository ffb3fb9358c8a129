// The units' caches of decoded commands (CommandCache, periph/unit.ts) against
// decoding each command afresh: admit() gives validate()'s code and, for a valid
// command, footprint()'s regions, and the record the fast model begins with holds
// the command's own fields, also after its slot was taken by others and the
// command decoded again (more distinct commands than the cache has slots).

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import type { TpuConfig } from '../periph/config.ts';
import { dmaFields, dmaRules } from '../periph/dma.ts';
import { MxuFields, mxuRules } from '../periph/mxu.ts';
import { vpuRules } from '../periph/vpu.ts';
import type { Cmd, CommandCache, Admission, Footprint, UnitRules } from '../periph/unit.ts';
import { packArgs, UNIT_BY_NAME } from '../periph/regs.ts';
import { rng, type Rng } from './helpers/tpu-script.ts';

const cfg = defaultConfig();

/** A value from a small pool (so that commands repeat and collide), sometimes any 16-bit one (malformed commands too). */
function small(r: Rng, pool: readonly number[]): number {
  return r.chance(0.05) ? r.int(0, 0xffff) : r.pick(pool);
}

const ADDRS = [0, 4, 8, 0x40, 0x100, 0x800, 0x1000, 0x2000, 0x4000, 0x7f00, 0x8000, 0xc000, 0xfff0];
const STRIDES = [0, 4, 8, 16, 32, 64, 128, 256, 6];

/** `count` random commands of `unit` with their fields from small pools: mostly valid, often colliding. */
function randomCommands(r: Rng, unit: 'DMA' | 'MXU' | 'VPU', count: number, serial: { next: number }): Cmd[] {
  return Array.from({ length: count }, () => {
    const values: Record<string, number> = unit === 'DMA'
      ? { SRAM_ADDR: small(r, [0, 0x40, 0x1000, 0x10000, 0x7ff00, 0x80000]) + r.int(0, 15) * 4, SPAD_ADDR: small(r, ADDRS), ROWS: small(r, [0, 1, 2, 64, 128, 512]),
        ROW_BYTES: small(r, [0, 1, 4, 8, 64, 256]), SPAD_STRIDE: small(r, STRIDES), SRAM_STRIDE: small(r, STRIDES) }
      : unit === 'MXU'
        ? { A_ADDR: small(r, ADDRS), B_ADDR: small(r, ADDRS), C_ADDR: small(r, ADDRS), K: small(r, [0, 8, 12, 16, 64, 128, 256]),
          A_STRIDE: small(r, STRIDES), B_STRIDE: small(r, STRIDES), C_STRIDE: small(r, STRIDES), SHIFT: r.int(0, 31),
          CIN_ADDR: small(r, ADDRS), CIN_STRIDE: small(r, STRIDES) }
        : { A_ADDR: small(r, ADDRS), B_ADDR: small(r, ADDRS), C_ADDR: small(r, ADDRS), ROWS: small(r, [0, 1, 8, 64]),
          COLS: small(r, [0, 1, 8, 72, 128, 512]), A_STRIDE: small(r, STRIDES), B_STRIDE: small(r, STRIDES), C_STRIDE: small(r, STRIDES),
          PARAM: r.chance(0.5) ? r.int(0, 40) : (r.int(0, 255) << 16) | r.int(0, 255) };
    const ops = UNIT_BY_NAME[unit].opcodes.map((o) => o.value);
    return {
      args: Uint32Array.from(packArgs(unit, values)),
      opcode: r.chance(0.95) ? r.pick(ops) : r.int(0, 255),
      flags: unit === 'MXU' ? (r.chance(0.95) ? r.int(0, 7) : r.int(0, 255)) : (r.chance(0.95) ? 0 : r.int(1, 255)),
      serial: serial.next++,
      pushClock: 0,
      token: 0,
    };
  });
}

/** Admits `picks` commands drawn from `pool` and counts what differs from a fresh decoding; `fields` compares a record's fields. */
function mismatches<D extends Admission>(rules: UnitRules & CommandCache<D>, pool: Cmd[], picks: number, r: Rng,
  fields: (cmd: Cmd, d: D) => boolean): { admitted: number; valid: number; wrong: string[] } {
  const fp: Footprint = { read: 0, write: 0, sameRegion: false };
  const wrong: string[] = [];
  let valid = 0;
  for (let i = 0; i < picks; i++) {
    const cmd = pool[r.int(0, pool.length - 1)];
    fp.read = 0; fp.write = 0; fp.sameRegion = false;
    const code = rules.admit(cmd, fp);
    if (code !== rules.validate(cmd)) wrong.push(`${rules.describe(cmd)}: code ${code}, validate ${rules.validate(cmd)}`);
    if (code !== 0) continue;
    valid++;
    const f = rules.footprint(cmd);
    if (f.read !== fp.read || f.write !== fp.write || f.sameRegion !== fp.sameRegion) wrong.push(`${rules.describe(cmd)}: footprint`);
    if (!fields(cmd, rules.recordToBegin(cmd))) wrong.push(`${rules.describe(cmd)}: fields`);
  }
  return { admitted: picks, valid, wrong };
}

const MXU_FIELDS = ['dim', 'aAddr', 'bAddr', 'cAddr', 'k', 'aStride', 'bStride', 'cStride', 'shift', 'cinAddr', 'cinStride',
  'transposeB', 'accumulate', 'outInt32', 'preloadStart', 'streamStart', 'writebackStart', 'total', 'cRowBytes'] as const;
const DMA_FIELDS = ['store', 'sramAddr', 'spadAddr', 'rows', 'rowBytes', 'spadStride', 'sramStride'] as const;

function mxuCheck(t: TpuConfig) {
  return (cmd: Cmd, d: MxuFields) => {
    const fresh = new MxuFields().load(cmd, t.mxuSetup, t.mxuDim);
    return MXU_FIELDS.every((k) => fresh[k] === d[k]);
  };
}

describe('CommandCache', () => {
  // 6,000 distinct commands a unit, more than the cache's slots: records are taken and decoded again.
  const POOL = 6000, PICKS = 40_000;

  it('admits DMA commands as validate() and footprint() do, with the fields of a fresh decoding', () => {
    const r = rng(11), serial = { next: 0 };
    const rules = dmaRules(cfg.tpu, cfg.bus);
    const pool = randomCommands(r, 'DMA', POOL, serial);
    const res = mismatches(rules, pool, PICKS, r, (cmd, d) => {
      const fresh = dmaFields(cmd);
      return DMA_FIELDS.every((k) => fresh[k] === d[k]);
    });
    expect(res.wrong.slice(0, 5)).toEqual([]);
    expect(res.valid).toBeGreaterThan(PICKS / 20);
  });

  it('admits MXU commands as validate() and footprint() do, with the fields of a fresh decoding (8×8 and 16×16 arrays)', () => {
    for (const t of [cfg.tpu, { ...cfg.tpu, mxuDim: 16, mxuSetup: 3 }]) {
      const r = rng(t.mxuDim), serial = { next: 0 };
      const rules = mxuRules(t);
      const pool = randomCommands(r, 'MXU', POOL, serial);
      const res = mismatches(rules, pool, PICKS, r, mxuCheck(t));
    expect(res.wrong.slice(0, 5)).toEqual([]);
      expect(res.valid).toBeGreaterThan(PICKS / 20);
    }
  });

  it('admits VPU commands as validate() and footprint() do', () => {
    const r = rng(13), serial = { next: 0 };
    const rules = vpuRules(cfg.tpu);
    const pool = randomCommands(r, 'VPU', POOL, serial);
    const res = mismatches(rules, pool, PICKS, r, (cmd, d) => d.total === rules.nominalClocks(cmd));
    expect(res.wrong.slice(0, 5)).toEqual([]);
    expect(res.valid).toBeGreaterThan(PICKS / 50);
  });

  it('gives begin() the admitted command\'s record, or decodes one it was not given', () => {
    const rules = mxuRules(cfg.tpu);
    const r = rng(5), serial = { next: 0 };
    const [a, b] = randomCommands(r, 'MXU', 2, serial);
    const fp: Footprint = { read: 0, write: 0, sameRegion: false };
    rules.admit(a, fp);
    // b was never admitted: its own fields, not a's.
    expect(mxuCheck(cfg.tpu)(b, rules.recordToBegin(b))).toBe(true);
    rules.admit(a, fp);
    expect(mxuCheck(cfg.tpu)(a, rules.recordToBegin(a))).toBe(true);
    // The same command object pushed again later (a new serial) with other words: decoded again.
    const reused = a as { -readonly [K in keyof Cmd]: Cmd[K] };
    rules.admit(reused, fp);
    reused.serial = serial.next++;
    reused.args.set(b.args);
    expect(mxuCheck(cfg.tpu)(reused, rules.recordToBegin(reused))).toBe(true);
  });
});
