// The issue-cost calibration tables (model/calibration/*.jsonl): what each one holds, which
// script counts it on which ELFs, and how they are read and written.
//
// A table is JSON lines, so that a recalibration reviews as a diff of the paths that changed:
// the first line is its header ({"table", "script", "about", "elfs": {name: sha256}}), every
// other line one path of one code class ({"class", "path", "issue", "firstRead", "afterRead"}).
// `elfs` stamps the ELFs the table was counted on with the SHA-256 of their program image
// (programSha256): a test (test/calibration.test.ts) fails when an ELF no longer matches, naming
// the script to re-run. The predictor reads a table the first time it needs it, not at start-up.

import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseElf } from '../emu/elf.ts';

/** Per code class, per path between PUSH sites: [issue, firstRead, afterRead] (clocks, accesses or savings). */
export type PathTable = Record<string, Record<string, [number, number, number]>>;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CALIBRATION_DIR = join(ROOT, 'model', 'calibration');
const FW_DIR = join(ROOT, 'build', 'fw');

const MMBENCH_ELFS = ['mmbench.elf', 'mmbench-mxu16.elf', 'mmbench-spad32.elf'];
const MODEL_ELFS = ['model.elf', 'model-rv32im.elf', 'model-mxu16.elf', 'model-spad32.elf'];

/** Every table: the script that counts it and the ELFs (in build/fw/) it runs to count it. */
export const CALIBRATIONS = {
  'issue-terms': { script: 'scripts/calibrate-issue.ts', elfs: MMBENCH_ELFS },
  'issue-accesses': { script: 'scripts/calibrate-issue.ts', elfs: MMBENCH_ELFS },
  'issue-terms-model': { script: 'scripts/calibrate-model-issue.ts', elfs: MODEL_ELFS },
  'issue-accesses-model': { script: 'scripts/calibrate-model-issue.ts', elfs: MODEL_ELFS },
  'issue-shift-savings-model': { script: 'scripts/calibrate-model-issue.ts', elfs: MODEL_ELFS },
  'issue-mul-savings-model': { script: 'scripts/calibrate-model-issue.ts', elfs: MODEL_ELFS },
  'issue-terms-tp': { script: 'scripts/calibrate-tp-issue.ts', elfs: ['model_tp.elf'] },
  'issue-terms-seed': { script: 'scripts/calibrate-seed-issue.ts', elfs: ['seed-model.elf'] },
} as const satisfies Record<string, { script: string; elfs: readonly string[] }>;
export type CalibrationName = keyof typeof CALIBRATIONS;

export interface CalibrationHeader {
  table: CalibrationName;
  script: string;
  /** What was counted, on which jobs or shapes (the script's words). */
  about: string;
  /** Each ELF the table was counted on, by file name in build/fw/, and the SHA-256 of its program image. */
  elfs: Record<string, string>;
}

export const calibrationFile = (name: CalibrationName) => join(CALIBRATION_DIR, `${name}.jsonl`);
export const firmwareFile = (elf: string) => join(FW_DIR, elf);

/**
 * The SHA-256 of an ELF's program image: its entry point and each loaded segment's address, size in
 * memory and bytes — everything a run's clocks depend on, and nothing else: the debug sections name
 * the folder the firmware was built in, which differs between two checkouts of the same commit.
 */
export function programSha256(elfBytes: Uint8Array): string {
  const elf = parseElf(elfBytes);
  const h = createHash('sha256');
  const word = (x: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(x >>> 0); h.update(b); };
  word(elf.entry);
  for (const s of elf.segments) { word(s.vaddr); word(s.memsz); word(s.data.length); h.update(s.data); }
  return h.digest('hex');
}

interface CalibrationRecord { class: string; path: string; issue: number; firstRead: number; afterRead: number }

/** Parses a table's text: its header and its paths. */
export function parseCalibration(text: string): { header: CalibrationHeader; table: PathTable } {
  const lines = text.split('\n').filter((l) => l !== '');
  const header = JSON.parse(lines[0]) as CalibrationHeader;
  const table: PathTable = {};
  for (let i = 1; i < lines.length; i++) {
    const r = JSON.parse(lines[i]) as CalibrationRecord;
    (table[r.class] ??= {})[r.path] = [r.issue, r.firstRead, r.afterRead];
  }
  return { header, table };
}

const loaded = new Map<CalibrationName, PathTable>();

/** A table, read from its file the first time it is asked for. */
export function calibration(name: CalibrationName): PathTable {
  let t = loaded.get(name);
  if (!t) {
    t = parseCalibration(readFileSync(calibrationFile(name), 'utf8')).table;
    loaded.set(name, t);
  }
  return t;
}

/** A table's header (its ELF stamps), read from its file. */
export const calibrationHeader = (name: CalibrationName): CalibrationHeader =>
  parseCalibration(readFileSync(calibrationFile(name), 'utf8')).header;

/**
 * The tables whose stamps no longer match the ELFs in build/fw/, one line each: the ELF that changed and the
 * script to re-run (test/calibration.test.ts; `headerOf` lets the test give a table another stamp).
 */
export function staleCalibrations(names: readonly CalibrationName[], headerOf = calibrationHeader): string[] {
  const stale: string[] = [];
  const hashes = new Map<string, string>();
  for (const name of names) {
    const { script, elfs } = CALIBRATIONS[name];
    const stamps = headerOf(name).elfs;
    for (const elf of elfs) {
      if (!hashes.has(elf)) hashes.set(elf, programSha256(readFileSync(firmwareFile(elf))));
      if (hashes.get(elf) !== stamps[elf]) stale.push(`model/calibration/${name}.jsonl was counted on another build/fw/${elf}: re-run npx tsx ${script}`);
    }
  }
  return stale;
}

/**
 * Writes a table (whole, through a temporary file), stamped with the program hashes of the ELFs in build/fw/
 * it was counted on: the calibration scripts call it once they have counted.
 */
export function writeCalibration(name: CalibrationName, about: string, table: PathTable): void {
  const { script, elfs } = CALIBRATIONS[name];
  const stamps = Object.fromEntries(elfs.map((e) => [e, programSha256(readFileSync(firmwareFile(e)))]));
  const header: CalibrationHeader = { table: name, script, about, elfs: stamps };
  const lines = [JSON.stringify(header)];
  for (const [cls, paths] of Object.entries(table)) {
    for (const [path, [issue, firstRead, afterRead]] of Object.entries(paths)) {
      lines.push(JSON.stringify({ class: cls, path, issue, firstRead, afterRead } satisfies CalibrationRecord));
    }
  }
  const file = calibrationFile(name), tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${lines.join('\n')}\n`);
  renameSync(tmp, file);
  loaded.delete(name);
  console.log(`wrote ${file}`);
}
