// Command-line values and help text kept out of cli.ts: parsers of numeric
// values that yargs' `type: 'number'` would turn into NaN, Infinity or a
// rounded number without a word (each a yargs `coerce` function that throws
// UsageError, exit 165, with one line), and the run command's status note.

import { UsageError } from './board-options.ts';
import { MAX_BOARDS } from '../boards/registry.ts';

/** Decimal digits, `_` between digit groups (10_000_000), an optional decimal exponent (1e9). */
const COUNT_SYNTAX = /^(\d+(?:_\d+)*)(?:[eE](\d+))?$/;

/**
 * A positive safe integer (1 .. 2^53-1) written as `123`, `10_000_000` or `1e9`.
 * Anything else (`abc`, `1,000`, `-1`, `0.5`, `Infinity`, `1e99`, 2^53+1,
 * which a double cannot even hold) is a usage error naming the option.
 */
export function parsePositiveCount(option: string, value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value; // the default
  const text = Array.isArray(value) ? String(value[value.length - 1]) : String(value);
  // Bounded before BigInt: a long digit string or exponent must not cost time.
  const m = text.length <= 40 ? COUNT_SYNTAX.exec(text.trim()) : null;
  const exact = m && Number(m[2] ?? '0') <= 16 ? BigInt(m[1].replaceAll('_', '')) * 10n ** BigInt(m[2] ?? '0') : -1n;
  if (exact < 1n || exact > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new UsageError(
      `--${option} must be a positive integer up to ${Number.MAX_SAFE_INTEGER} (digits, optionally with _ separators or an exponent such as 1e9), got "${text}"`,
    );
  }
  return Number(exact);
}

/** A yargs `coerce` for --boards: 1..8 boards (boards/picotpu/ring.ts MAX_BOARDS), digits only. */
export const boardsOption = (value: unknown): number => {
  const text = Array.isArray(value) ? String(value[value.length - 1]) : String(value);
  const n = /^\d{1,3}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(n >= 1 && n <= MAX_BOARDS)) throw new UsageError(`--boards must be 1..${MAX_BOARDS}, got "${text}"`);
  return n;
};

/** What a boolean option may be given as a value: `--strict=true`, `--strict=false` (yargs would read anything else as false). */
const BOOLEAN_VALUES = new Set(['true', 'false']);

/**
 * Refuses `--NAME=VALUE` (and `--no-NAME=VALUE`) for a boolean option `booleans`
 * names when VALUE is not true or false: `--strict=1`, `=yes`, `=on` must not
 * run non-strict without a word. `args` are the raw arguments; after `--` nothing is an option.
 */
export function checkBooleanValues(args: readonly string[], booleans: readonly string[]): void {
  const names = new Set(booleans);
  for (const arg of args) {
    if (arg === '--') return;
    const m = /^--(?:no-)?([^=]+)=(.*)$/s.exec(arg);
    if (m && names.has(m[1]) && !BOOLEAN_VALUES.has(m[2])) {
      throw new UsageError(`--${m[1]} is a switch: give it alone, or as --${m[1]}=true / --${m[1]}=false, got "${arg}"`);
    }
  }
}

/** A yargs `coerce` for --max-cycles. */
export const maxCyclesOption = (value: unknown): number => parsePositiveCount('max-cycles', value);

/** `picotpu run --help`'s epilogue: what the exit status cannot say, and where to read it (docs/hardware.md §7). */
export const RUN_EXITS = 'A guest EXIT value 160-166 looks like the emulator\'s own statuses, and EXIT keeps only the low 8 bits (257 exits 1): '
  + 'with --report-json, "reason" is "exit" exactly when the guest wrote EXIT and "guestExit" holds its value (null otherwise); '
  + 'read those to tell a guest status from an emulator status (docs/hardware.md §7).';
