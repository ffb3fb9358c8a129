// The issue-cost calibration tables (model/predict/calibration/*.jsonl) are current: each was counted on
// the ELFs build/fw/ holds now (their program images' SHA-256 match the table's stamps), so a
// firmware change without a recalibration fails here, naming the script to re-run.

import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_DIR, CALIBRATIONS, calibration, calibrationHeader, firmwareFile, programSha256, staleCalibrations, type CalibrationName,
} from '../model/predict/calibration.ts';

const NAMES = Object.keys(CALIBRATIONS) as CalibrationName[];

describe('issue-cost calibration tables', () => {
  it('every table in model/predict/calibration/ is listed, and each names its script and ELFs', () => {
    const files = readdirSync(CALIBRATION_DIR).filter((f) => f.endsWith('.jsonl')).map((f) => f.replace(/\.jsonl$/, '')).sort();
    expect(files).toEqual([...NAMES].sort());
    for (const name of NAMES) {
      const h = calibrationHeader(name);
      expect(h.table).toBe(name);
      expect(h.script).toBe(CALIBRATIONS[name].script);
      expect(Object.keys(h.elfs).sort()).toEqual([...CALIBRATIONS[name].elfs].sort());
      expect(Object.keys(calibration(name)).length, name).toBeGreaterThan(0);
    }
  });

  it('each table was counted on the ELFs build/fw/ holds now', () => {
    expect(staleCalibrations(NAMES), 'stale calibration tables').toEqual([]);
  });

  it('a table whose ELF stamp differs is reported, naming the script to re-run', () => {
    const otherStamp = (name: CalibrationName) => {
      const h = calibrationHeader(name);
      return name === 'issue-terms-tp' ? { ...h, elfs: { 'model_tp.elf': '0'.repeat(64) } } : h;
    };
    expect(staleCalibrations(NAMES, otherStamp)).toEqual([
      'model/predict/calibration/issue-terms-tp.jsonl was counted on another build/fw/model_tp.elf: re-run npx tsx scripts/calibrate-tp-issue.ts',
    ]);
  });

  it('the program hash covers the loaded bytes only, not the debug sections that name the build folder', () => {
    const elf = readFileSync(firmwareFile('model_tp.elf'));
    const dv = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
    const phoff = dv.getUint32(28, true), phnum = dv.getUint16(44, true);
    let loadOffset = -1;
    for (let i = 0; i < phnum; i++) {
      const ph = phoff + 32 * i;
      if (dv.getUint32(ph, true) === 1 && dv.getUint32(ph + 16, true) > 0) { loadOffset = dv.getUint32(ph + 4, true); break; }
    }
    expect(loadOffset).toBeGreaterThanOrEqual(0);
    const changed = Uint8Array.from(elf);
    changed[loadOffset] ^= 1;
    expect(programSha256(changed)).not.toBe(programSha256(elf));
    // The last byte of the file lies in the section headers: not part of the program.
    const tail = Uint8Array.from(elf);
    tail[tail.length - 1] ^= 1;
    expect(programSha256(tail)).toBe(programSha256(elf));
  });
});
