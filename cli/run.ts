// `picotpu run <elf>`: runs a firmware ELF until it writes EXIT (or stops),
// with the observers its options ask for (trace, VCD, timeline, profiler), and
// writes the reports and output files. The guest's console goes to standard
// output unchanged.

import { exitStatusText } from '../emu/exit-status.ts';
import { DEFAULT_MAX_CYCLES, describeError, describeStop, type Machine, type RunResult } from '../emu/machine.ts';
import { KEPT_RECORDS } from '../periph/tpu.ts';
import type { RunObserver } from '../emu/observe/observer.ts';
import { checkDistinctOutputs, errnoText, OutputError, OutputFile, writeFully } from '../emu/observe/output-file.ts';
import { TraceWriter } from '../emu/observe/trace.ts';
import { Profiler } from '../emu/observe/profiler.ts';
import { TimelineWriter } from '../emu/observe/timeline.ts';
import { DEFAULT_TRACE_LIMIT, VcdWriter } from '../emu/observe/vcd.ts';
import { boardOptions, buildMachine, UsageError, type BoardArgs } from './board-options.ts';
import { boardsOption, maxCyclesOption, RUN_EXITS } from './options.ts';
import { RunControl, runSliced } from './run-control.ts';
import { say, type AddCommand } from './common.ts';
import { runBoardsCommand } from './run-boards.ts';

export interface RunOptions extends BoardArgs {
  maxCycles: number;
  /** N boards joined by the link (cli/run-boards.ts); one board without the link when not given. */
  boards?: number;
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

export const addRun: AddCommand = (y, done) => y.command(
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
    .option('boards', { type: 'string', coerce: boardsOption, describe: `run the ELF on N boards (1..8) joined by the link in a ring (docs/hardware.md §5.12); console lines prefixed [K] when N > 1` })
    .option('trace', { type: 'string', describe: 'write an instruction trace to FILE, one line per instruction: "CLOCK 0xPC (0xWORD) DISASSEMBLY  REG <- 0xVALUE" (format: emu/observe/trace.ts)' })
    .epilogue(`${exitStatusText()} ${RUN_EXITS} Output files are checked before the run and put in place when it ends: complete, or untouched.`),
  async (args) => {
    done(await runCommand({ ...args, elf: args.elf as string, sram: args.sram as string[], set: args.set as string[] } as RunOptions));
  },
);

export async function runCommand(o: RunOptions): Promise<number> {
  if (o.boards !== undefined) {
    const unsupported = ([['--trace', o.trace], ['--vcd', o.vcd], ['--timeline', o.timeline], ['--profile', o.profile || undefined],
      ['--profile-json', o.profileJson], ['--sram-out', o.sramOut], ['--stats', o.stats || undefined]] as const)
      .filter(([, v]) => v !== undefined).map(([name]) => name);
    return runBoardsCommand({ ...o, boards: o.boards, unsupported });
  }
  const traceLimit = o.traceLimit ?? DEFAULT_TRACE_LIMIT;
  if (!Number.isSafeInteger(traceLimit) || traceLimit < 1) throw new UsageError(`--trace-limit must be a positive integer, got ${traceLimit}`);
  checkDistinctOutputs([
    { option: '--trace', path: o.trace }, { option: '--vcd', path: o.vcd }, { option: '--timeline', path: o.timeline },
    { option: '--profile-json', path: o.profileJson }, { option: '--report-json', path: o.reportJson },
    { option: '--sram-out', path: o.sramOut },
  ]);
  const machine = buildMachine(o, true);
  if (o.sramOut !== undefined && !machine.devices.sram) throw new UsageError(`the ${machine.board.name} board has no SRAM: --sram-out does not apply`);
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
    report.write(reportJson(r, machine));
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
  if (!o.strict && r.tpuErrors.length >= KEPT_RECORDS && (machine.activity.errorsNotKept ?? 0) > 0) say(`... and ${machine.activity.errorsNotKept} more TPU errors (only the first ${r.tpuErrors.length} are kept)`);
  if (o.report) process.stderr.write(machine.devices.formatReport(machine.figuresOf(r), machine.config.clockHz));
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

function reportJson(r: RunResult, machine: Machine): string {
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
    ...machine.devices.reportFields(machine.figuresOf(r)),
  };
  return JSON.stringify(report, null, 2) + '\n';
}
