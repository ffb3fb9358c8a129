// The bench results docs/study.md is generated from: `bench --json` of each
// board with model firmware, committed as docs/data/bench-BOARD.json, each
// with the fingerprint of the firmware image it ran (so a test can tell when
// the build has moved on and the file is stale). `npm run bench:docs` writes
// them (scripts/bench-docs.ts); scripts/gen-docs.ts reads them.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../emu/config.ts';
import { programSha256 } from '../model/predict/calibration.ts';
import { firmwareMissing } from '../model/run.ts';
import { targetElf } from '../model/target-run.ts';
import { DEFAULT_TARGET, MODEL_TARGETS, type ModelTarget } from '../model/targets.ts';
import { benchObject, runBench } from './bench.ts';
import { runSeedBench, seedBenchObject } from './seed-bench.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bump when the documents' meaning changes. */
const FORMAT = 1;

/** Where a board's results live, relative to the repository. */
export const benchDataPath = (target: ModelTarget): string => `docs/data/bench-${target.board}.json`;

/** The firmware image a board's bench runs, as a hash of what the run depends on (model/predict/calibration.ts programSha256). */
export function benchFingerprint(target: ModelTarget): string {
  const elf = targetElf(target);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(elf);
  } catch {
    throw firmwareMissing(elf);
  }
  return createHash('sha256').update(`format ${FORMAT}\n`).update(programSha256(bytes)).digest('hex').slice(0, 16);
}

/** Host-dependent fields (wall time, speed) dropped, so the same build writes the same bytes. */
function withoutWall(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(withoutWall);
  if (x && typeof x === 'object') {
    return Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'wallMs' && k !== 'clocksPerSecond').map(([k, v]) => [k, withoutWall(v)]));
  }
  return x;
}

/** Runs a board's whole bench and returns its document: the fingerprint, then `bench --json`'s fields without wall time. */
export function benchDocument(target: ModelTarget, onProgress?: (done: number, total: number, name: string) => void): Record<string, unknown> {
  const fingerprint = benchFingerprint(target);
  const body = target === DEFAULT_TARGET
    ? benchObject(runBench({ onProgress }))
    : seedBenchObject(runSeedBench(target, defaultConfig().clockHz, { onProgress }));
  return { fingerprint, command: `picotpu bench${target === DEFAULT_TARGET ? '' : ` --board ${target.board}`} --json`, ...(withoutWall(body) as Record<string, unknown>) };
}

/** The committed document of a board (parsed), or null when there is none. */
export function readBenchDocument(target: ModelTarget): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(join(root, benchDataPath(target)), 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** Every board the bench documents cover. */
export const BENCH_DOC_TARGETS: readonly ModelTarget[] = MODEL_TARGETS;
