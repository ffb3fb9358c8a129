// What the commands share besides their options (cli/board-options.ts,
// cli/options.ts): the one-line message on standard error, standard output and
// standard error that fail (a reader gone, a full disk) handled alike by every
// command, the progress bar, and the firmware build a command needs before it runs.

import { existsSync } from 'node:fs';
import type { Argv } from 'yargs';
import { errnoText, OutputError, shownPath, writeFully } from '../emu/observe/output-file.ts';
import { VARIANT_ALL } from '../model/format.ts';
import { MODEL_ELF } from '../model/run.ts';
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

/** The one line for standard output that cannot take what is written (a full disk: ENOSPC), exit 165. */
export const stdoutFailed = (e: unknown): OutputError => new OutputError(`cannot write standard output: ${errnoText(e)}`);

/**
 * Synchronous write that survives a pipe's partial writes (EAGAIN); EPIPE ends
 * the command (StdoutClosed, 141), any other failure (a full disk) is one line
 * (OutputError, 165), as `run` says it.
 */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  try {
    writeFully(fd, bytes);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') throw new StdoutClosed();
    throw fd === 2 ? new OutputError(`cannot write standard error: ${errnoText(e)}`) : stdoutFailed(e);
  }
}

let streamsGuarded = false;

/**
 * What every command does when a standard stream fails under a write through
 * process.stdout / process.stderr (the debugger, yargs' help, the reports):
 * standard output's reader gone ends the command quietly with 141, any other
 * failure of standard output (a full disk) with one line and 165. Standard
 * error failing (full, or its reader gone) changes nothing: the messages are
 * lost, and the status stays the one of the command's outcome.
 */
export function guardStandardStreams(): void {
  // Once per process: main() runs many times in one process (the tests), and a listener per run is a leak.
  if (streamsGuarded) return;
  streamsGuarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(141);
    say(stdoutFailed(e).message);
    process.exit(165);
  });
  process.stderr.on('error', () => { /* nothing can be said where nothing can be written */ });
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
export function checkVariant(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > VARIANT_ALL) throw new UsageError(`--variant must be an integer 0-${VARIANT_ALL}, got ${v}`);
}
