// `picotpu` command line. The guest's console goes to standard output
// unchanged; everything the emulator itself says goes to standard error, one
// line per event, and the exit status is the guest's EXIT value or one of
// emu/exit-status.ts.

import { existsSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { ConfigError } from '../emu/config.ts';
import { ElfError } from '../emu/elf.ts';
import { EXIT, exitStatusText } from '../emu/exit-status.ts';
import { DEFAULT_MAX_CYCLES, describeError, describeStop, type Machine, type RunResult } from '../emu/machine.ts';
import { formatReport } from '../periph/counters.ts';
import { KEPT_RECORDS } from '../periph/tpu.ts';
import type { RunObserver } from '../emu/observe/observer.ts';
import {
  checkDistinctOutputs, checkOutputDirectory, discardAllOutputs, errnoText, OutputError, OutputFile, outputErrorOf, writeFully,
} from '../emu/observe/output-file.ts';
import { InputReadError } from '../emu/console-input.ts';
import { RunControl, runSliced, SIGNAL_STATUS } from './run-control.ts';
import { VARIANT_ALL } from '../model/format.ts';
import { TraceWriter } from '../emu/observe/trace.ts';
import { Profiler } from '../emu/observe/profiler.ts';
import { TimelineWriter } from '../emu/observe/timeline.ts';
import { DEFAULT_TRACE_LIMIT, VcdWriter } from '../emu/observe/vcd.ts';
// The debugger and the GDB server load when their command runs (cli/main.ts start-up stays small).
import type { DebugOptions } from '../emu/debug/debugger.ts';
import { boardOptions, buildMachine, UsageError, type BoardArgs } from './board-options.ts';
import { maxCyclesOption, RUN_EXITS } from './options.ts';
import { formatSeedReport, seedReportFields } from '../emu/seed-status.ts';
import { benchJson, BenchUsageError, formatBench, parseShape, runBench, type BenchOptions } from '../study/bench.ts';
import { MODEL_ELF, ModelRunError } from '../model/run.ts';
import {
  ADDER_MODEL, ADDER_VARIANT, AdderModelError, MAX_EVAL_PROBLEMS, DemoInputError, demoProblem, evalAgrees, evalJson, EvalUsageError, formatDemo,
  formatEval, freshSeed, loadAdder, randomProblem, runDemo, runEval, shownPath,
} from '../study/addition-run.ts';
import { EXPERIMENT_NAMES, runSweep, SweepUsageError } from '../study/sweep/sweep.ts';
import { SWEEP_ELFS } from '../study/sweep/runs.ts';
import { buildFirmware, hasToolchain } from '../toolchain/toolchain.ts';

function say(msg: string): void {
  process.stderr.write(`picotpu: ${msg}\n`);
}

export interface BenchCliOptions { only?: string[]; matmul?: string[]; variant: number; layer: boolean; json: boolean; reference: boolean; maxCycles?: number }

/** `picotpu bench`: text (or --json) on standard output, a progress bar on a terminal's standard error. */
export async function benchCommand(o: BenchCliOptions): Promise<number> {
  if (!Number.isInteger(o.variant) || o.variant < 0 || o.variant > VARIANT_ALL) throw new UsageError(`--variant must be an integer 0-${VARIANT_ALL}, got ${o.variant}`);
  const opts: BenchOptions = {
    only: o.only, variant: o.variant, layer: o.layer, reference: o.reference, maxCycles: o.maxCycles,
  };
  try {
    opts.matmul = (o.matmul ?? []).map(parseShape);
  } catch (e) {
    throw e instanceof BenchUsageError ? new UsageError(e.message) : e;
  }
  let bar: { start(total: number, v: number, p?: object): void; update(v: number, p?: object): void; stop(): void } | null = null;
  if (process.stderr.isTTY && !o.json) {
    const { default: cliProgress } = await import('cli-progress');
    bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: 'bench [{bar}] {value}/{total} {name}', hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
  }
  let started = false;
  opts.onProgress = (done, total, name) => {
    if (!bar) return;
    if (!started) { bar.start(total, done, { name }); started = true; } else bar.update(done, { name });
  };
  let result;
  try {
    result = runBench(opts);
  } catch (e) {
    if (e instanceof BenchUsageError) throw new UsageError(e.message);
    if (e instanceof ModelRunError) { say(e.message); return e.result.exit !== 0 ? e.result.exit : EXIT.INTERNAL; }
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') { say(`${(e as Error).message} (build the firmware: make -C firmware-c)`); return EXIT.BAD_PROGRAM; }
    throw e;
  } finally {
    bar?.stop();
  }
  writeAllSync(1, Buffer.from(o.json ? benchJson(result) : formatBench(result)));
  return 0;
}

/** `picotpu sweep`: tables on standard output, a progress bar on a terminal's standard error. */
export async function sweepCommand(o: { experiment: string; jobs?: number; fresh: boolean; small: boolean; results: string; docs: string }): Promise<number> {
  if (o.jobs !== undefined && !(Number.isInteger(o.jobs) && o.jobs >= 1)) throw new UsageError(`--jobs must be a positive integer, got ${o.jobs}`);
  checkOutputDirectory(o.results, '--results');
  checkOutputDirectory(o.docs, '--docs');
  if (!ensureModelElf(SWEEP_ELFS)) return EXIT.BAD_PROGRAM;
  let bar: { start(total: number, v: number, p?: object): void; update(v: number, p?: object): void; stop(): void } | null = null;
  if (process.stderr.isTTY) {
    const { default: cliProgress } = await import('cli-progress');
    bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: 'sweep {experiment} [{bar}] {value}/{total} {key} | {eta_formatted} left', hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
  }
  let current = '';
  const t0 = performance.now();
  try {
    await runSweep({
      experiment: o.experiment, jobs: o.jobs, fresh: o.fresh, scale: o.small ? 'small' : 'full', results: o.results, docs: o.docs,
      print: (text) => { bar?.stop(); current = ''; writeAllSync(1, Buffer.from(`${text}\n`)); },
      onProgress: (experiment, p) => {
        if (!bar) return;
        if (current !== experiment) { bar.start(p.total, p.done, { experiment, key: p.key }); current = experiment; } else bar.update(p.done, { experiment, key: p.key });
      },
    });
  } catch (e) {
    if (e instanceof SweepUsageError) throw new UsageError(e.message);
    if (e instanceof Error && /is missing: build the firmware/.test(e.message)) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof Error && /^sweep point /.test(e.message)) { say(e.message); return EXIT.INTERNAL; }
    throw outputErrorOf(e) ?? e;
  } finally {
    bar?.stop();
  }
  say(`sweep ${o.experiment}: ${((performance.now() - t0) / 1000).toFixed(1)} s; figures and ${o.docs}/scaling.md written`);
  return 0;
}

export interface RunOptions extends BoardArgs {
  maxCycles: number;
  reportJson?: string;
  stats: boolean;
  traceLimit?: number;
  vcd?: string;
  timeline?: string;
  profile?: boolean;
  profileJson?: string;
  report: boolean;
  trace?: string;
  sramOut?: string;
}

export async function runCommand(o: RunOptions): Promise<number> {
  const traceLimit = o.traceLimit ?? DEFAULT_TRACE_LIMIT;
  if (!Number.isSafeInteger(traceLimit) || traceLimit < 1) throw new UsageError(`--trace-limit must be a positive integer, got ${traceLimit}`);
  checkDistinctOutputs([
    { option: '--trace', path: o.trace }, { option: '--vcd', path: o.vcd }, { option: '--timeline', path: o.timeline },
    { option: '--profile-json', path: o.profileJson }, { option: '--report-json', path: o.reportJson },
    { option: '--sram-out', path: o.sramOut },
  ]);
  const machine = buildMachine(o, true);
  const control = new RunControl();
  // Caught from before the first output file exists, so a signal never leaves a temporary file behind.
  control.install();
  try {
    return await runWithOutputs(machine, o, traceLimit, control);
  } finally {
    control.uninstall();
  }
}

async function runWithOutputs(machine: Machine, o: RunOptions, traceLimit: number, control: RunControl): Promise<number> {
  machine.bus.console.setSink(stdoutSink(machine, control));
  // Every output file is opened (checked) before the run, and put in place only when it ends (emu/observe/output-file.ts).
  const report = o.reportJson !== undefined ? new OutputFile(o.reportJson, '--report-json') : null;
  // --sram-out: the 512 KiB SRAM as it is at the stop, whole or not at all.
  const sramOut = o.sramOut !== undefined ? new OutputFile(o.sramOut, '--sram-out') : null;
  // Traces, waveforms and the profiler add themselves here (emu/observe/observer.ts).
  const observers: RunObserver[] = [];
  if (o.trace !== undefined) observers.push(new TraceWriter(o.trace, machine, traceLimit));
  if (o.vcd !== undefined) observers.push(new VcdWriter(machine, { path: o.vcd, limit: traceLimit, warn: say }));
  if (o.timeline !== undefined) observers.push(new TimelineWriter(machine, { path: o.timeline, limit: traceLimit, warn: say }));
  const profiler = o.profile || o.profileJson !== undefined ? new Profiler(machine, { jsonPath: o.profileJson }) : null;
  if (profiler) observers.push(profiler);
  if (observers.length > 0) machine.activity.records = [];
  const t0 = process.hrtime.bigint();
  const r = await runSliced(machine, o.maxCycles, observers, control);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (report) {
    report.write(reportJson(r));
    report.commit();
  }
  if (sramOut) {
    sramOut.writeBytes(machine.sramBytes);
    sramOut.commit();
  }
  // Standard output's reader has gone (| head): end quietly, as a tool killed by SIGPIPE.
  if (r.signal === 'SIGPIPE') return r.exit;
  if (r.reason !== 'exit' && r.reason !== 'interrupted') say(describeStop(r));
  for (const e of r.tpuErrors) if (!o.strict) say(describeError(e));
  if (!o.strict && r.tpuErrors.length >= KEPT_RECORDS && machine.tpu.errorsNotKept > 0) say(`... and ${machine.tpu.errorsNotKept} more TPU errors (only the first ${r.tpuErrors.length} are kept)`);
  if (o.report) process.stderr.write(r.seedCounters ? formatSeedReport(r, machine.config.clockHz) : formatReport(r.counters, machine.config.clockHz));
  if (o.profile && profiler) process.stderr.write(profiler.format());
  if (o.stats) say(statsLine(r, seconds));
  if (r.reason === 'interrupted') say(describeStop(r));
  return r.exit;
}

/** The guest's console to standard output; a reader that has gone stops the run (SIGPIPE). */
function stdoutSink(machine: Machine, control: RunControl): (bytes: Uint8Array) => void {
  return (bytes) => {
    if (control.signal === 'SIGPIPE') return;
    try {
      writeFully(1, bytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EPIPE') throw new OutputError(`cannot write standard output: ${errnoText(e)}`);
      control.stop('SIGPIPE');
      machine.bus.deviceHalt = true;
    }
  };
}

function statsLine(r: RunResult, seconds: number): string {
  const mhz = r.clocks / seconds / 1e6;
  return `${r.reason} ${r.exit} after ${r.clocks} clocks, ${r.instret} instructions (CPI ${(r.clocks / Math.max(1, r.instret)).toFixed(2)}); `
    + `${seconds.toFixed(3)} s wall, ${mhz.toFixed(1)} M clocks/s`;
}

function reportJson(r: RunResult): string {
  const report = {
    clocks: r.clocks,
    instret: r.instret,
    exit: r.exit,
    guestExit: r.guestExit,
    reason: r.reason,
    ...(r.signal ? { signal: r.signal } : {}),
    pc: r.pc,
    where: r.where,
    trap: r.trap,
    counters: r.counters,
    countersWindow: r.perfWindow ? 'PERF_CTRL' : 'whole run',
    tpuErrors: r.tpuErrors,
    tpuFatal: r.tpuFatal,
    ...(r.seedCounters ? seedReportFields(r) : {}),
  };
  return JSON.stringify(report, null, 2) + '\n';
}


// ---- picotpu eval / picotpu demo (study/addition-run.ts) ----

/** Builds the firmware when build/fw/model.elf (or another of `elfs`) is missing; false (and a message) when it cannot. */
function ensureModelElf(elfs: string[] = [MODEL_ELF]): boolean {
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

function checkVariant(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > VARIANT_ALL) throw new UsageError(`--variant must be an integer 0-${VARIANT_ALL}, got ${v}`);
}

/** Runs an addition command's work, mapping its failures to one line and an exit status. */
function addition(work: () => number): number {
  try {
    return work();
  } catch (e) {
    if (e instanceof EvalUsageError || e instanceof DemoInputError) throw new UsageError(e.message);
    if (e instanceof AdderModelError) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof ModelRunError) { say(e.message); return e.result.exit !== 0 ? e.result.exit : EXIT.INTERNAL; }
    throw e;
  }
}

export interface EvalCliOptions { n: number; tpu: number; model?: string; variant: number; json: boolean; reference: boolean }

/**
 * `picotpu eval`: held-out accuracy of the golden model, then the first --tpu
 * problems on the emulated TPU; exit EXIT.MISMATCH if the TPU's tokens or
 * logits differ from the golden model's on any.
 */
export async function evalCommand(o: EvalCliOptions): Promise<number> {
  checkVariant(o.variant);
  const path = o.model ?? ADDER_MODEL;
  let bar: { start(total: number, v: number, p?: object): void; update(v: number, p?: object): void; stop(): void } | null = null;
  if (process.stderr.isTTY && !o.json) {
    const { default: cliProgress } = await import('cli-progress');
    bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: 'eval [{bar}] {value}/{total} {phase} {eta_formatted}', hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
  }
  let phase = '';
  return addition(() => {
    const model = loadAdder(path);
    if (o.tpu > 0 && !ensureModelElf()) return EXIT.BAD_PROGRAM;
    let r;
    try {
      r = runEval(model, shownPath(path), {
        n: o.n, tpu: o.tpu, variant: o.variant, run: { reference: o.reference },
        onProgress: (p, done, total) => {
          if (!bar) return;
          const name = p === 'golden' ? 'golden model' : 'TPU (emulated)';
          if (name !== phase) { if (phase) bar.stop(); bar.start(total, done, { phase: name }); phase = name; } else bar.update(done, { phase: name });
        },
      });
    } finally {
      bar?.stop();
    }
    writeAllSync(1, Buffer.from(o.json ? evalJson(r, model) : formatEval(r, model)));
    if (!evalAgrees(r)) {
      say(`the TPU disagrees with the golden model on ${r.tpu.disagreements.length} of ${r.tpu.problems} problems (exit ${EXIT.MISMATCH})`);
      return EXIT.MISMATCH;
    }
    return 0;
  });
}

export interface DemoCliOptions { problem?: string; seed?: number; model?: string; variant: number; reference: boolean }

/** `picotpu demo`: one problem (given, or drawn at random) through the firmware on the emulated TPU, with its reports. */
export function demoCommand(o: DemoCliOptions): number {
  checkVariant(o.variant);
  if (o.seed !== undefined && !(Number.isInteger(o.seed) && o.seed >= 0 && o.seed <= 0xffffffff)) {
    throw new UsageError(`--seed must be an integer 0-4294967295, got ${o.seed}`);
  }
  if (o.problem !== undefined && o.seed !== undefined) throw new UsageError('give a problem or --seed, not both');
  return addition(() => {
    const seed = o.problem === undefined ? (o.seed ?? freshSeed()) : null;
    const problem = o.problem === undefined ? randomProblem(seed!) : demoProblem(o.problem);
    const path = o.model ?? ADDER_MODEL;
    const model = loadAdder(path);
    if (!ensureModelElf()) return EXIT.BAD_PROGRAM;
    const r = runDemo(model, shownPath(path), problem, seed, o.variant, { reference: o.reference });
    writeAllSync(1, Buffer.from(formatDemo(r)));
    return 0;
  });
}

const ADDITION_EXITS = `Exit status: 0 done; ${EXIT.BAD_PROGRAM} the model blob or the firmware is missing or unusable; `
  + `${EXIT.USAGE} bad command line`;

/** Standard output's reader has gone (EPIPE): the command ends quietly with 141 (as if killed by SIGPIPE). */
class StdoutClosed extends Error {}

/** Synchronous write that survives a pipe's partial writes (EAGAIN); EPIPE ends the command (StdoutClosed). */
function writeAllSync(fd: number, bytes: Uint8Array): void {
  try {
    writeFully(fd, bytes);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') throw new StdoutClosed();
    throw e;
  }
}

/**
 * Standard output's or standard error's reader has gone (`picotpu debug ... | head`):
 * end quietly with 141, as a tool killed by SIGPIPE would (`run` stops its run the same way, cli/run-control.ts).
 */
function quietOnClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(141);
      throw e;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipes();
  let status = 0;
  const parser = yargs(argv)
    .scriptName('picotpu')
    .usage('$0 <command> [options]')
    .command(
      'run <elf>',
      'Run a firmware ELF on the emulated board until it writes EXIT',
      (y) => boardOptions(y)
        .option('max-cycles', { type: 'string', default: DEFAULT_MAX_CYCLES, coerce: maxCyclesOption, describe: 'stop (exit 162) after this many clocks: a positive integer, e.g. 5000000, 5_000_000 or 5e6' })
        .option('report-json', { type: 'string', describe: 'write {clocks, instret, exit, reason, pc, ...} as JSON to this file' })
        .option('report', { type: 'boolean', default: true, describe: 'print the performance report to standard error (--no-report to omit)' })
        .option('vcd', { type: 'string', describe: 'write a VCD waveform (GTKWave) of the pc, function, PUSH stalls and each unit\'s busy and queue depth to this file; one time unit = one clock' })
        .option('timeline', { type: 'string', describe: 'write a Chrome trace-event JSON timeline (Perfetto) of functions and TPU commands to this file; ts in µs' })
        .option('trace-limit', { type: 'number', default: DEFAULT_TRACE_LIMIT, describe: 'most instructions (--trace), value changes (--vcd) or events (--timeline) written to a file; --trace then ends with a line saying it was truncated, and the run goes on' })
        .option('profile', { type: 'boolean', default: false, describe: 'print clocks, idle and stall clocks and calls per firmware function, and per-unit figures, after the report' })
        .option('profile-json', { type: 'string', describe: 'write that profile as JSON to this file' })
        .option('stats', { type: 'boolean', default: false, describe: 'print clocks, instructions and emulation speed to standard error' })
        .option('sram-out', { type: 'string', describe: 'write the 512 KiB SRAM as it is at the stop to this file (whole, or not at all)' })
        .option('trace', { type: 'string', describe: 'write an instruction trace to FILE, one line per instruction: "CLOCK 0xPC (0xWORD) DISASSEMBLY  REG <- 0xVALUE" (format: emu/observe/trace.ts)' })
        .epilogue(`${exitStatusText()} ${RUN_EXITS} Output files are checked before the run and put in place when it ends: complete, or untouched.`),
      async (args) => {
        status = await runCommand({ ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[] } as RunOptions);
      },
    )
    .command(
      'gdb <elf>',
      'Serve a firmware ELF to GDB (remote serial protocol on 127.0.0.1, one connection): target remote 127.0.0.1:PORT',
      (y) => boardOptions(y)
        .option('port', { type: 'number', default: 1234, describe: 'TCP port on 127.0.0.1 (0: any free port, printed)' })
        .option('max-cycles', { type: 'string', coerce: maxCyclesOption, describe: 'stop (SIGXCPU) at this clock (a positive integer); default: never' }),
      async (args) => {
        const { GdbServerError, serveGdb } = await import('../emu/debug/gdb-server.ts');
        const machine = buildMachine({ ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[] });
        // The guest's console reader gone: end the session quietly, as the other commands do (141).
        machine.bus.console.setSink((bytes) => {
          try { writeAllSync(1, bytes); } catch (e) { if (e instanceof StdoutClosed) process.exit(SIGNAL_STATUS.SIGPIPE); throw e; }
        });
        status = await serveGdb(machine, { port: args.port, maxCycles: args.maxCycles, log: say }).catch((e: unknown) => {
          throw e instanceof GdbServerError ? new UsageError(e.message) : e;
        });
      },
    )
    .command(
      'debug <elf>',
      'Debug a firmware ELF: breakpoints, stepping, registers, memory, TPU queues (gdb-like; commands on standard input, see docs/debugging.md)',
      (y) => boardOptions(y)
        .option('max-cycles', { type: 'string', default: DEFAULT_MAX_CYCLES, coerce: maxCyclesOption, describe: 'the program stops (cycle limit) at this clock (a positive integer)' }),
      async (args) => {
        const { debugCommand } = await import('../emu/debug/debugger.ts');
        status = await debugCommand({ ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[] } as DebugOptions);
      },
    )
    .command(
      'bench',
      'Run the benchmark experiments (build/fw/model.elf, mmbench.elf) and compare them with the analytic model and the seed\'s figures',
      (y) => y
        .option('only', { type: 'string', array: true, describe: 'run only experiments whose name contains this (repeatable, case-insensitive)' })
        .option('matmul', { type: 'string', array: true, describe: 'a single MxKxN matmul through mmbench.elf (repeatable); without --only the standard experiments are skipped' })
        .option('variant', { type: 'number', default: 1, describe: 'kernel variant bits of the --matmul runs (1 double-buffered, 2 fused, 4 FlashAttention, 8 wait tokens, 16 lean staging, 32 decode panels, 64 pipelined heads, 128 streamed prefill, 256 block attention, 512 chained weights, 1024 FFN on chip)' })
        .option('layer', { type: 'boolean', default: false, describe: 'add the single-layer benchmark: one layer, a 64-token prefill, variants 0, 1, 3, 7, 15' })
        .option('json', { type: 'boolean', default: false, describe: 'print one JSON document (experiments, windows, predictions, seed figures, derived figures) and nothing else' })
        .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
        .option('max-cycles', { type: 'string', coerce: maxCyclesOption, describe: 'stop each run (a failure) after this many clocks (a positive integer)' }),
      async (args) => {
        status = await benchCommand({
          only: args.only as string[] | undefined, matmul: args.matmul as string[] | undefined, variant: args.variant,
          layer: args.layer, json: args.json, reference: args.reference, maxCycles: args.maxCycles,
        });
      },
    )
    .command(
      'sweep <experiment>',
      `Run a scaling experiment on all cores (resumable), print its table, write its SVG figures and rebuild docs/scaling.md; experiments: ${EXPERIMENT_NAMES.join(', ')}, all`,
      (y) => y
        .positional('experiment', { type: 'string', describe: `${EXPERIMENT_NAMES.join(' | ')} | all` })
        .option('jobs', { type: 'number', describe: 'worker threads (default: one per core)' })
        .option('fresh', { type: 'boolean', default: false, describe: 'discard earlier results instead of resuming' })
        .option('small', { type: 'boolean', default: false, describe: 'the small instances the tests use (seconds, not minutes)' })
        .option('results', { type: 'string', default: 'build/sweep', describe: 'directory of the JSON-lines results' })
        .option('docs', { type: 'string', describe: 'directory of scaling.md and figures/ (default docs; with --small, <results>/small-docs, so the small instances never overwrite the study)' }),
      async (args) => {
        status = await sweepCommand({
          experiment: args.experiment as string, jobs: args.jobs, fresh: args.fresh, small: args.small, results: args.results,
          docs: args.docs ?? (args.small ? `${args.results}/small-docs` : 'docs'),
        });
      },
    )
    .command(
      'eval',
      'Held-out accuracy of the addition model (models/adder.ptm) with the golden model, and the TPU held to it token for token',
      (y) => y
        .option('n', { type: 'number', default: 1000, describe: `held-out problems through the golden model (the first n of the held-out set; at most ${MAX_EVAL_PROBLEMS})` })
        .option('tpu', { type: 'number', default: 20, describe: 'the first this many of them also through build/fw/model.elf on the emulated TPU (0: none)' })
        .option('model', { type: 'string', describe: 'the model blob (default models/adder.ptm)' })
        .option('variant', { type: 'number', default: ADDER_VARIANT, describe: `kernel variant bits of the TPU runs (default ${ADDER_VARIANT}: all, the fastest)` })
        .option('json', { type: 'boolean', default: false, describe: 'print one JSON document and nothing else' })
        .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
        .epilogue(`${ADDITION_EXITS}; ${EXIT.MISMATCH} the TPU's tokens or logits differ from the golden model's on some problem.`),
      async (args) => {
        status = await evalCommand({ n: args.n, tpu: args.tpu, model: args.model, variant: args.variant, json: args.json, reference: args.reference });
      },
    )
    .command(
      'demo [problem]',
      'Add two numbers of up to 31 digits on the emulated TPU with the trained model (no problem: a random one) and print the performance reports',
      (y) => y
        .positional('problem', { type: 'string', describe: '"a+b", each 1-31 decimal digits, e.g. 123456789+987654321' })
        .option('seed', { type: 'number', describe: 'draw the random problem from this seed (default: a fresh one each run, printed)' })
        .option('model', { type: 'string', describe: 'the model blob (default models/adder.ptm)' })
        .option('variant', { type: 'number', default: ADDER_VARIANT, describe: `kernel variant bits (default ${ADDER_VARIANT}: all, the fastest)` })
        .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
        .epilogue(`${ADDITION_EXITS}, or a problem that is not "a+b" of 1-31 digits each. A wrong sum is reported, not an error.`),
      (args) => {
        status = demoCommand({
          problem: args.problem as string | undefined, seed: args.seed, model: args.model, variant: args.variant, reference: args.reference,
        });
      },
    )
    .demandCommand(1, 'give a command: picotpu run <elf>')
    .strict()
    .epilogue(exitStatusText())
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    });
  // yargs renders the whole help of every command it runs, in case showHelp() follows (it never
  // does here): tens of milliseconds of every run. Skip it; --help still renders.
  const internals = parser as unknown as { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } };
  internals.getInternalMethods().getUsageInstance().cacheHelpMessage = () => {};
  try {
    await parser.parseAsync();
  } catch (e) {
    discardAllOutputs();
    if (e instanceof StdoutClosed) return SIGNAL_STATUS.SIGPIPE;
    if (e instanceof OutputError) { say(e.message); return EXIT.USAGE; }
    if (e instanceof InputReadError) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof ElfError) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof ConfigError || e instanceof UsageError) { say(e.message); return EXIT.USAGE; }
    if (e instanceof Error && e.name === 'YError') { say(e.message); return EXIT.USAGE; }
    say(`internal error: ${(e as Error).stack ?? e}`);
    return EXIT.INTERNAL;
  }
  return status;
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  main(hideBin(process.argv)).then((code) => {
    process.exitCode = code;
  });
}
