// The options every command that builds a board shares (`run`, `debug`,
// `gdb`): the program, its console input, SRAM images, the platform
// configuration and the TPU model. One definition, so the commands cannot drift.

import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { applyOverrides, ConfigError, defaultConfig, type PlatformConfig } from './config.ts';
import { ElfError } from './elf.ts';
import { Machine } from './machine.ts';
import { BoardError, BOARD_NAMES, boardNamed, type Board } from './boards.ts';
import type { CpuFeatures } from './config.ts';

export class UsageError extends Error {}

export interface BoardArgs {
  elf: string;
  /** emu/boards.ts; picotpu when not given. */
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
    .option('board', { type: 'string', default: 'picotpu', describe: `the board: ${BOARD_NAMES.join(' | ')} (seed: the seed's own RTL board, docs/seed-board.md)` })
    .option('input', { type: 'string', describe: 'bytes the console RX register returns' })
    .option('input-file', { type: 'string', describe: 'file whose bytes the console RX register returns' })
    .option('sram', { type: 'string', array: true, default: [] as string[], describe: 'load FILE into the SRAM at OFFSET (FILE@OFFSET, repeatable)' })
    .option('config', { type: 'string', describe: 'JSON file of platform options, e.g. {"BARREL_SHIFTER": 1, "tpuWait": 2}' })
    .option('set', { type: 'string', array: true, default: [] as string[], describe: 'set a platform option NAME=VALUE (repeatable; see docs/hardware.md)' })
    .option('barrel-shifter', { type: 'boolean', describe: 'BARREL_SHIFTER=1' })
    .option('enable-mul', { type: 'boolean', describe: 'ENABLE_MUL=1 (M multiplies through picorv32_pcpi_mul)' })
    .option('enable-fast-mul', { type: 'boolean', describe: 'ENABLE_FAST_MUL=1 (picorv32_pcpi_fast_mul)' })
    .option('enable-div', { type: 'boolean', describe: 'ENABLE_DIV=1 (M divides through picorv32_pcpi_div)' })
    .option('regs-dualport', { type: 'boolean', describe: 'ENABLE_REGS_DUALPORT (default on; --no-regs-dualport for one read port)' })
    .option('reference', { type: 'boolean', default: false, describe: 'run the TPU units with their literal clock-by-clock reference models' })
    .option('strict', { type: 'boolean', default: false, describe: 'stop at the first TPU error (exit 163)' });
}

export function readFile(path: string, what: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ElfError(`cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code ?? String(e)}`);
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

type ConfigArgs = Pick<BoardArgs, 'config' | 'set' | 'barrelShifter' | 'enableMul' | 'enableFastMul' | 'enableDiv' | 'regsDualport'>;

export function buildConfig(o: ConfigArgs, cfg: PlatformConfig = defaultConfig()): PlatformConfig {
  if (o.config) {
    let text: string;
    try {
      text = readFileSync(o.config, 'utf8');
    } catch {
      throw new ConfigError(`cannot read config file ${o.config}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`config file ${o.config} is not valid JSON (${(e as Error).message})`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new ConfigError(`config file ${o.config} must hold a JSON object of option names to values`);
    }
    applyOverrides(cfg, json as Record<string, unknown>);
  }
  const flags: Record<string, unknown> = {};
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
  machine.loadElf(readFile(o.elf, 'program'));
  for (const spec of o.sram) {
    const { file, offset } = parseSramSpec(spec);
    machine.loadSram(readFile(file, 'SRAM image'), offset);
  }
  if (o.input !== undefined && o.inputFile !== undefined) throw new UsageError('give --input or --input-file, not both');
  if (o.input !== undefined) machine.bus.console.setInput(Buffer.from(o.input, 'utf8'));
  else if (o.inputFile !== undefined) machine.bus.console.setInput(readFile(o.inputFile, 'input file'));
  else if (stdinInput && !process.stdin.isTTY && board.stop === 'console-exit') machine.bus.console.setInput(readStdin());
  return machine;
}

/** The --board the options name (exit 165 for an unknown one). */
export function boardOf(o: Pick<BoardArgs, 'board'>): Board {
  try {
    return boardNamed(o.board ?? 'picotpu');
  } catch (e) {
    throw e instanceof BoardError ? new UsageError(e.message) : e;
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

function readStdin(): Uint8Array {
  try {
    return readFileSync(0);
  } catch {
    return new Uint8Array(0);
  }
}
