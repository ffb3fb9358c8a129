// `picotpu run --boards N <elf>`: the same firmware on N boards joined by the
// link (docs/hardware.md §5.12, boards/picotpu/ring.ts). Console lines go to standard
// output in clock order, prefixed `[K] ` when N > 1; standard error gets each
// board's stop and TPU errors (prefixed the same way), each board's report
// with its link figures, and the combined line. The exit status is the first
// non-zero board's (board order), else 0 (docs/hardware.md §7). The boards
// run in pieces of scheduler rounds with the event loop in between, so SIGINT
// and SIGTERM stop them as they stop one board (cli/run-control.ts): one line,
// 130 or 143; a reader of standard output that has gone stops them with 141.

import { statSync } from 'node:fs';
import { isatty } from 'node:tty';
import { buildConfig, boardOf, openInput, readFile, readSramImage, UsageError, type BoardArgs } from './board-options.ts';
import { FdInput, SharedInput, type InputSource } from '../emu/console-input.ts';
import { say } from './common.ts';
import { RunControl, SIGNAL_STATUS } from './run-control.ts';
import { checkDistinctOutputs, errnoText, OutputError, OutputFile, writeFully } from '../emu/observe/output-file.ts';
import { describeError, describeStop, type Machine, type RunResult } from '../emu/machine.ts';
import { Boards, BoardsError, MAX_BOARDS, RING_BOARD, type BoardsResult } from '../boards/registry.ts';
import { formatReport } from '../periph/counters.ts';

export interface BoardsRunOptions extends BoardArgs {
  boards: number;
  maxCycles: number;
  reportJson?: string;
  report: boolean;
  /** Options a multi-board run does not take (observers, --sram-out): named in the usage error. */
  unsupported: string[];
}

/** Most console input from a pipe kept for a board that reads it later than another (every board gets the same bytes). */
const MAX_INPUT_LAG = 16 * 1024 * 1024;

/** Scheduler rounds between two looks at the event loop (a round is at most one slice of each board). */
const ROUNDS_PER_PIECE = 64;

export async function runBoardsCommand(o: BoardsRunOptions): Promise<number> {
  if (!Number.isInteger(o.boards) || o.boards < 1 || o.boards > MAX_BOARDS) throw new UsageError(`--boards must be 1..${MAX_BOARDS}, got ${o.boards}`);
  if (o.unsupported.length > 0) throw new UsageError(`${o.unsupported.join(', ')}: not available with --boards (run one board for them)`);
  checkDistinctOutputs([{ option: '--report-json', path: o.reportJson }]);
  const n = o.boards;
  const control = new RunControl();
  const boards = buildBoards(o, n, control, true);
  // Caught before the report's temporary file exists, so a signal never leaves one behind.
  control.install();
  let report: OutputFile | null = null;
  let r: BoardsResult | null = null;
  try {
    report = o.reportJson !== undefined ? new OutputFile(o.reportJson, '--report-json') : null;
    boards.begin();
    while (!(r = boards.runRounds(o.maxCycles, ROUNDS_PER_PIECE))) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (control.signal) break;
    }
  } finally {
    control.uninstall();
  }
  if (control.signal) {
    // Stopped before every board did: the report stays as it was (no result to write).
    report?.discard();
    if (control.signal !== 'SIGPIPE') say(`interrupted at clock ${boards.slowestClock()} (${control.signal})`);
    return SIGNAL_STATUS[control.signal];
  }
  if (!r) throw new Error('internal: the boards stopped without a result');
  if (report) {
    report.write(JSON.stringify(reportJson(r), null, 2) + '\n');
    report.commit();
  }
  const tag = (k: number) => (n > 1 ? `[${k}] ` : '');
  r.boards.forEach((b, k) => {
    if (b.reason !== 'exit') say(tag(k) + describeStop(b));
    if (!o.strict) for (const e of b.tpuErrors) say(tag(k) + describeError(e));
  });
  // A collective that never completes: every board's state, to see who waits on whom.
  if (r.boards.some((b) => b.reason === 'cycle-limit')) for (const line of boards.states()) say(line);
  if (o.report) {
    r.boards.forEach((b, k) => {
      process.stderr.write(`board ${k}:\n${formatReport(b.counters, boards.config.clockHz)}`);
      process.stderr.write(linkLine(r, k) + '\n');
    });
    say(combinedLine(r, boards.config.clockHz));
  }
  return r.exit;
}

/**
 * `debug --boards N --attach K`, `gdb --boards N --attach K`: board K's Machine,
 * the other boards running underneath it (boards/picotpu/ring.ts Boards.attach); their
 * console lines go to standard output prefixed `[J] `. `--board` stays the board's name.
 */
export function attachedMachine(o: BoardArgs & { boards: number; attach?: string }, maxCycles: number): Machine {
  const text = o.attach ?? '0';
  const k = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(k >= 0 && k < o.boards)) throw new UsageError(`with --boards ${o.boards}, --attach names the board to attach to: 0..${o.boards - 1}, got "${text}"`);
  return buildBoards(o, o.boards).attach(k, maxCycles);
}

/** `--attach K` picks one of the --boards N: alone it has nothing to pick from. */
export function checkAttach(o: { attach?: string; boards?: number }): void {
  if (o.attach !== undefined && o.boards === undefined) throw new UsageError('--attach K picks one of --boards N: give --boards');
}

/** N boards with the program, SRAM images and console input of the options loaded (`stdinInput`: standard input too, for `run`). */
function buildBoards(o: BoardArgs, n: number, control: RunControl | null = null, stdinInput = false): Boards {
  const board = boardOf(o);
  if (board !== RING_BOARD) throw new UsageError(`--boards needs the ${RING_BOARD.name} board (the ${board.aliases[0] ?? board.name} has no link)`);
  const atLineStart = new Array<boolean>(n).fill(true);
  let boards: Boards;
  try {
    boards = new Boards(buildConfig(o), n, {
      reference: o.reference ?? false, strict: o.strict ?? false,
      console: (k, bytes) => writeConsole(n > 1 ? prefixLines(bytes, `[${k}] `, atLineStart, k) : bytes, control),
    });
  } catch (e) {
    throw e instanceof BoardsError ? new UsageError(e.message) : e;
  }
  boards.loadElf(readFile(o.elf, 'program'));
  for (const spec of o.sram) {
    const { image, offset } = readSramImage(spec);
    boards.loadSram(image, offset);
  }
  if (o.input !== undefined && o.inputFile !== undefined) throw new UsageError('give --input or --input-file, not both');
  if (o.input !== undefined) {
    const input = Buffer.from(o.input, 'utf8');
    for (const m of boards.machines) m.bus.console.setInput(input);
  } else {
    const inputs = consoleInputs(o.inputFile, n, stdinInput);
    if (inputs) boards.machines.forEach((m, k) => m.bus.console.setInputStream(inputs[k]));
  }
  return boards;
}

/**
 * Each board's console input, streamed as one board's is (cli/board-options.ts):
 * --input-file, or standard input when it is not a terminal (`run` only). A file
 * or device is opened once per board (each reads it from its start, /dev/zero
 * without end); a pipe, FIFO or socket can be read only once, so its bytes are
 * read once and given to every board (SharedInput, at most MAX_INPUT_LAG kept
 * for a board that lags). Null: no console input.
 */
function consoleInputs(inputFile: string | undefined, n: number, stdinInput: boolean): InputSource[] | null {
  if (inputFile !== undefined) {
    const first = openInput(inputFile);
    const st = statSync(inputFile);
    if (!st.isFIFO() && !st.isSocket()) return [first, ...Array.from({ length: n - 1 }, () => openInput(inputFile))];
    const shared = new SharedInput(first, n, MAX_INPUT_LAG, `input file ${inputFile}`);
    return Array.from({ length: n }, (_, k) => shared.reader(k));
  }
  // isatty, not process.stdin.isTTY: creating process.stdin would make a pipe non-blocking under us.
  if (!stdinInput || isatty(0)) return null;
  const shared = new SharedInput(new FdInput(0, 'standard input'), n, MAX_INPUT_LAG, 'standard input');
  return Array.from({ length: n }, (_, k) => shared.reader(k));
}

/** Console bytes to standard output; a reader that has gone stops the run (SIGPIPE, 141) when a RunControl watches it. */
function writeConsole(bytes: Uint8Array, control: RunControl | null): void {
  if (control?.signal === 'SIGPIPE') return;
  try {
    writeFully(1, bytes);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPIPE' || !control) throw new OutputError(`cannot write standard output: ${errnoText(e)}`);
    control.stop('SIGPIPE');
  }
}

/** Prefixes every line start of `bytes` (a board's console output) with `tag`. */
function prefixLines(bytes: Uint8Array, tag: string, atLineStart: boolean[], k: number): Uint8Array {
  const out: number[] = [];
  const prefix = Buffer.from(tag, 'latin1');
  for (const b of bytes) {
    if (atLineStart[k]) out.push(...prefix);
    out.push(b);
    atLineStart[k] = b === 10;
  }
  return Uint8Array.from(out);
}

function linkLine(r: BoardsResult, k: number): string {
  const l = r.link[k];
  return `  LINK busy ${l.busy} clocks, sent ${l.messages} messages (${l.bytes} bytes), RX_COUNT ${l.received}, RX_FULL 0x${l.rxFull.toString(16).padStart(8, '0')}`;
}

function combinedLine(r: BoardsResult, clockHz: number): string {
  const sum = (f: (k: number) => number) => r.link.reduce((s, _, k) => s + f(k), 0);
  return `${r.boards.length} boards: run clocks ${r.clocks} (${(r.clocks / clockHz * 1000).toFixed(3)} ms, the last board's stop), `
    + `LINK busy ${sum((k) => r.link[k].busy)} clocks, ${sum((k) => r.link[k].messages)} messages, ${sum((k) => r.link[k].bytes)} bytes; exit ${r.exit}`;
}

function boardJson(b: RunResult) {
  return {
    clocks: b.clocks, instret: b.instret, exit: b.exit, guestExit: b.guestExit, reason: b.reason, pc: b.pc, where: b.where, trap: b.trap,
    counters: b.counters, countersWindow: b.perfWindow ? 'PERF_CTRL' : 'whole run', tpuErrors: b.tpuErrors, tpuFatal: b.tpuFatal,
  };
}

function reportJson(r: BoardsResult) {
  return { boards: r.boards.map((b, k) => ({ board: k, ...boardJson(b), link: r.link[k] })), clocks: r.clocks, exit: r.exit };
}
