// `run --sram-out FILE`: the 512 KiB SRAM as it is when the run stops, written
// whole or not at all (a temporary file beside FILE, then a rename), so a
// crash or a full disk never leaves a truncated image behind.

import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { UsageError } from './board-options.ts';

export function writeSramOut(path: string, bytes: Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new UsageError(`cannot write --sram-out ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
}
