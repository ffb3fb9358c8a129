// The options every command that builds a board shares (`run`, `debug`,
// `gdb`): the program, its console input, SRAM images, the platform
// configuration and the TPU model. One definition, so the commands cannot drift.

import { isatty } from 'node:tty';
import type { Argv } from 'yargs';
import { BoundedReadError, readBounded } from './bounded-read.ts';
import { applyOverrides, ConfigError, defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { FdInput, InputReadError } from '../emu/console-input.ts';
import { ElfError, MAX_PROGRAM_BYTES } from '../emu/elf.ts';
import { Machine } from '../boards/machine.ts';
import { SRAM_SIZE } from '../periph/sram.ts';

/** Largest --config file read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
import { BoardError, boardNames, boardNamed, DEFAULT_BOARD, type Board } from '../boards/registry.ts';
import { refusedSettings } from '../emu/board.ts';
import type { CpuFeatures } from '../emu/config.ts';

export class UsageError extends Error {}

export interface BoardArgs {
  elf: string;
  /** The board's name or alias (boards/registry.ts); picotpu when not given. */
  board?: string;
  input?: string;
  inputFile?: string;
  sram: string[];
  config?: string;
  set: string[];
  reference?: boolean;
  strict?: boolean;
  barrelShifter?: boolean;
  enableMul?: boolean;
  enableFastMul?: boolean;
  enableDiv?: boolean;
  regsDualport?: boolean;
}

export function boardOptions<T>(y: Argv<T>) {
  return y
    .positional('elf', { type: 'string', demandOption: true, describe: 'RV32I ELF linked at 0x00000000' })
    .option('board', { type: 'string', default: DEFAULT_BOARD.name, describe: `the board: ${boardNames().join(' | ')} (transformer-tpu-int4, alias seed: the write-up's own RTL board, docs/seed-board.md)` })
    .option('input', { type: 'string', describe: 'bytes the console RX register returns' })
    .option('input-file', { type: 'string', describe: 'file whose bytes the console RX register returns' })
    .option('sram', { type: 'string', default: [] as string[], coerce: oneValueEach, describe: 'load FILE into the SRAM at OFFSET (FILE@OFFSET, one per --sram, repeatable)' })
    .option('config', { type: 'string', describe: 'JSON file of platform options, e.g. {"BARREL_SHIFTER": 1, "tpuWait": 2}' })
    .option('set', { type: 'string', default: [] as string[], coerce: oneValueEach, describe: 'set a platform option NAME=VALUE (one per --set, repeatable; see docs/hardware.md)' })
    .option('barrel-shifter', { type: 'boolean', describe: 'BARREL_SHIFTER=1' })
    .option('enable-mul', { type: 'boolean', describe: 'ENABLE_MUL=1 (M multiplies through picorv32_pcpi_mul)' })
    .option('enable-fast-mul', { type: 'boolean', describe: 'ENABLE_FAST_MUL=1 (picorv32_pcpi_fast_mul)' })
    .option('enable-div', { type: 'boolean', describe: 'ENABLE_DIV=1 (M divides through picorv32_pcpi_div)' })
    .option('regs-dualport', { type: 'boolean', describe: 'ENABLE_REGS_DUALPORT (default on; --no-regs-dualport for one read port)' })
    .option('reference', { type: 'boolean', default: false, describe: 'run the TPU units with their literal clock-by-clock reference models' })
    .option('strict', { type: 'boolean', default: false, describe: 'stop at the first TPU error (exit 163)' });
}

/** A whole input file, at most `limit` bytes (never an endless read of a device); ElfError (164) when it cannot be. */
export function readFile(path: string, what: string, limit = MAX_PROGRAM_BYTES): Uint8Array {
  try {
    return readBounded(path, limit);
  } catch (e) {
    if (e instanceof BoundedReadError) throw new ElfError(`cannot read ${what} ${path}: ${e.message}`);
    throw e;
  }
}

/** `FILE@OFFSET`, offset decimal or 0x-hex, relative to the SRAM base. */
export function parseSramSpec(spec: string): { file: string; offset: number } {
  const at = spec.lastIndexOf('@');
  if (at <= 0) throw new UsageError(`--sram wants FILE@OFFSET, got "${spec}"`);
  const offText = spec.slice(at + 1);
  const offset = Number(offText);
  if (!/^(0x[0-9a-f]+|\d+)$/i.test(offText) || !Number.isSafeInteger(offset)) {
    throw new UsageError(`--sram offset must be a number (decimal or 0x hex), got "${offText}"`);
  }
  return { file: spec.slice(0, at), offset };
}

/** A --config file: a JSON object of option names to values (ConfigError when it is not). */
function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = Buffer.from(readBounded(path, MAX_CONFIG_BYTES)).toString('utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${path}${e instanceof BoundedReadError ? `: ${e.message}` : ''}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON (${(e as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`config file ${path} must hold a JSON object of option names to values`);
  }
  return json as Record<string, unknown>;
}

type ConfigArgs = Pick<BoardArgs, 'config' | 'set' | 'barrelShifter' | 'enableMul' | 'enableFastMul' | 'enableDiv' | 'regsDualport'>;

export function buildConfig(o: ConfigArgs, cfg: PlatformConfig = defaultConfig()): PlatformConfig {
  if (o.config === '') throw new ConfigError('--config wants a file name, got ""');
  if (o.config !== undefined) applyOverrides(cfg, readConfigFile(o.config));
  // No prototype: a --set __proto__=1 is an own key (an unknown option), not the object's prototype.
  const flags: Record<string, unknown> = Object.create(null);
  if (o.barrelShifter !== undefined) flags.BARREL_SHIFTER = o.barrelShifter;
  if (o.enableMul !== undefined) flags.ENABLE_MUL = o.enableMul;
  if (o.enableFastMul !== undefined) flags.ENABLE_FAST_MUL = o.enableFastMul;
  if (o.enableDiv !== undefined) flags.ENABLE_DIV = o.enableDiv;
  if (o.regsDualport !== undefined) flags.ENABLE_REGS_DUALPORT = o.regsDualport;
  for (const kv of o.set) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set wants NAME=VALUE, got "${kv}"`);
    flags[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return applyOverrides(cfg, flags);
}

/**
 * The board the options describe, with the program and SRAM images loaded and
 * the console input set. `stdinInput`: read standard input as console input when
 * neither --input nor --input-file is given (only `run`; the debugger and GDB use it otherwise).
 */
export function buildMachine(o: BoardArgs, stdinInput = false): Machine {
  const board = boardOf(o);
  const config = buildConfig(o);
  checkSettings(board, o);
  checkFixedCpu(board, o);
  if (board.stop === 'done-store' && (o.input !== undefined || o.inputFile !== undefined)) {
    throw new UsageError(`the ${board.name} board has no console: --input and --input-file do not apply`);
  }
  let machine: Machine;
  try {
    machine = new Machine(config, { reference: o.reference ?? false, strict: o.strict ?? false, board });
  } catch (e) {
    throw e instanceof BoardError ? new UsageError(e.message) : e;
  }
  if (o.sram.length > 0 && !machine.devices.sram) throw new UsageError(`the ${board.name} board has no SRAM: --sram does not apply`);
  machine.loadElf(readFile(o.elf, 'program'));
  for (const spec of o.sram) {
    const { image, offset } = readSramImage(spec);
    machine.loadSram(image, offset);
  }
  if (o.input !== undefined && o.inputFile !== undefined) throw new UsageError('give --input or --input-file, not both');
  if (o.input !== undefined) machine.bus.console.setInput(Buffer.from(o.input, 'utf8'));
  else if (o.inputFile !== undefined) machine.bus.console.setInputStream(openInput(o.inputFile));
  // isatty, not process.stdin.isTTY: creating process.stdin would make a pipe non-blocking under us.
  else if (stdinInput && !isatty(0) && board.stop === 'console-exit') machine.bus.console.setInputStream(new FdInput(0, 'standard input'));
  return machine;
}

/** An --sram FILE@OFFSET image, read (ElfError, 164, when it cannot be or does not fit). */
export function readSramImage(spec: string): { image: Uint8Array; offset: number } {
  const { file, offset } = parseSramSpec(spec);
  // Nothing beyond the SRAM's end is read: a bigger image is refused after SRAM_SIZE - offset + 1 bytes.
  const room = Number.isSafeInteger(offset) && offset >= 0 && offset <= SRAM_SIZE ? SRAM_SIZE - offset : 0;
  try {
    return { image: readBounded(file, room), offset };
  } catch (e) {
    if (!(e instanceof BoundedReadError)) throw e;
    if (e.code === 'too-big') throw new ElfError(`SRAM image ${file} at offset 0x${offset.toString(16)} does not fit the 512 KiB SRAM (${e.message})`);
    throw new ElfError(`cannot read SRAM image ${file}: ${e.message}`);
  }
}

/** The --board the options name (exit 165 for an unknown one). */
export function boardOf(o: Pick<BoardArgs, 'board'>): Board {
  try {
    return boardNamed(o.board ?? DEFAULT_BOARD.name);
  } catch (e) {
    throw e instanceof BoardError ? new UsageError(e.message) : e;
  }
}

/** `--set` takes one NAME=VALUE each time it is given (never the program after it); yargs gives repeats as an array. */
export function oneValueEach(v: unknown): string[] {
  const all = Array.isArray(v) ? v : [v];
  return all.map((x) => String(x));
}

/** The platform settings the options ask for by name (--set, --config keys, the CPU flags). */
export function askedSettings(o: ConfigArgs): string[] {
  const names: string[] = [];
  if (o.config) names.push(...Object.keys(readConfigFile(o.config)));
  const flags: [unknown, string][] = [[o.barrelShifter, 'BARREL_SHIFTER'], [o.enableMul, 'ENABLE_MUL'], [o.enableFastMul, 'ENABLE_FAST_MUL'],
    [o.enableDiv, 'ENABLE_DIV'], [o.regsDualport, 'ENABLE_REGS_DUALPORT']];
  for (const [v, name] of flags) if (v !== undefined) names.push(name);
  for (const kv of o.set) names.push(kv.slice(0, Math.max(0, kv.indexOf('='))));
  return names;
}

/** A setting the board does not read is a usage error (165), never a silent run with it ignored. */
function checkSettings(board: Board, o: ConfigArgs): void {
  const refused = refusedSettings(board, askedSettings(o));
  if (refused.length > 0) {
    throw new UsageError(`the ${board.name} board does not use ${refused.join(', ')} (its settings: ${board.settings.join(', ')})`);
  }
}

/**
 * A board fixes some CPU parameters (its RTL instantiates them): asking for
 * another value, by flag, --set or config file, is a usage error. A parameter
 * was asked for when the options give it the same value from two opposite
 * starting points.
 */
function checkFixedCpu(board: Board, o: ConfigArgs): void {
  const fixed = Object.entries(board.cpuFixed) as [keyof CpuFeatures, boolean][];
  if (fixed.length === 0) return;
  const flipped = defaultConfig();
  for (const [name] of fixed) flipped.cpu[name] = !flipped.cpu[name];
  const asked = buildConfig(o), askedFlipped = buildConfig(o, flipped);
  for (const [name, value] of fixed) {
    if (asked.cpu[name] === askedFlipped.cpu[name] && asked.cpu[name] !== value) {
      throw new UsageError(`the ${board.name} board fixes ${name}=${value ? 1 : 0} (its RTL's parameter)`);
    }
  }
}

/** --input-file, streamed (its size does not matter: /dev/zero is an endless input, read as the guest consumes it). */
export function openInput(path: string): FdInput {
  if (path === '') throw new UsageError('--input-file wants a file name, got ""');
  try {
    return FdInput.open(path, 'input file');
  } catch (e) {
    throw e instanceof InputReadError ? new UsageError(e.message) : e;
  }
}
