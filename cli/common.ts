// What the commands share besides their options (cli/board-options.ts,
// cli/options.ts): the one-line message on standard error, writes to standard
// output that end quietly when its reader has gone, the progress bar, and the
// firmware build a command needs before it runs.

import { existsSync } from 'node:fs';
import type { Argv } from 'yargs';
import { writeFully } from '../emu/observe/output-file.ts';
import { VARIANT_ALL } from '../model/format.ts';
import { MODEL_ELF } from '../model/run.ts';
import { shownPath, type AdderBoard } from '../study/addition-run.ts';
import { buildFirmware, hasToolchain } from '../toolchain/toolchain.ts';
import { UsageError } from './board-options.ts';

/** Adds one command to the parser; its handler reports the command's exit status through `done`. */
export type AddCommand = (y: Argv, done: (status: number) => void) => Argv;

/** Everything the emulator itself says goes to standard error, one line per event. */
export function say(msg: string): void {
  process.stderr.write(`picotpu: ${msg}\n`);
}

/** Standard output's reader has gone (EPIPE): the command ends quietly with 141 (as if killed by SIGPIPE). */
export class StdoutClosed extends Error {}

/** Synchronous write that survives a pipe's partial writes (EAGAIN); EPIPE ends the command (StdoutClosed). */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  try {
    writeFully(fd, bytes);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') throw new StdoutClosed();
    throw e;
  }
}

export interface ProgressBar { start(total: number, v: number, p?: object): void; update(v: number, p?: object): void; stop(): void }

/** A progress bar on standard error in `format` (cli-progress), or null when `shown` is false. */
export async function progressBar(shown: boolean, format: string): Promise<ProgressBar | null> {
  if (!shown) return null;
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.SingleBar(
    { stream: process.stderr, format, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
}

/** Builds the firmware when build/fw/model.elf (or another of `elfs`) is missing; false (and a message) when it cannot. */
export function ensureModelElf(elfs: string[] = [MODEL_ELF]): boolean {
  const missing = elfs.find((e) => !existsSync(e));
  if (!missing) return true;
  if (!hasToolchain()) {
    say(`${shownPath(missing)} is missing and the RISC-V toolchain is not installed: run bash toolchain/ensure-toolchain.sh, then make -C firmware-c`);
    return false;
  }
  say(`${shownPath(missing)} is missing: building the firmware (make -C firmware-c)`);
  try {
    buildFirmware();
  } catch (e) {
    say((e as Error).message);
    return false;
  }
  return true;
}

/** --variant: kernel variant bits 0..VARIANT_ALL. */
/** demo's and eval's --board: picotpu or seed (exit 165 for anything else). */
export function adderBoard(name: string | undefined): AdderBoard {
  if (name === undefined || name === 'picotpu' || name === 'seed') return name ?? 'picotpu';
  throw new UsageError(`--board must be picotpu or seed for demo and eval, got ${JSON.stringify(name)}`);
}

export function checkVariant(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > VARIANT_ALL) throw new UsageError(`--variant must be an integer 0-${VARIANT_ALL}, got ${v}`);
}
