// The playground's emulator, in a Web Worker so the page never freezes: the
// same Machine, debugger control and formatting as the CLI (emu/, emu/debug/,
// periph/), the demo's job from model/emulator-job.ts and study/addition.ts.
// A free run advances the machine in slices of SAMPLE_CLOCKS (a run in slices
// has the clocks of one run, Machine.advance), sampling each unit's busy
// clocks per slice for the timeline and yielding to messages between slices
// so a pause takes effect at once. With breakpoints set, or to step, it runs
// through the debugger's ExecutionControl, one instruction at a time.

import { StopReason } from '../emu/cpu.ts';
import { defaultConfig } from '../emu/config.ts';
import { latin1Text } from '../emu/latin1.ts';
import { DEFAULT_MAX_CYCLES, describeStop, hex8, type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { ExecutionControl, nextSpec, type RunSpec, type Stop } from '../emu/debug/control.ts';
import { disasLine, dumpLines, registerLines, unitsLines } from '../emu/debug/format.ts';
import { ProgramView, SP } from '../emu/debug/program.ts';
import { finishJob, startJob, type StartedJob } from '../model/emulator-job.ts';
import { prefillAddress, readSeedBack, seedMachineFor } from '../model/seed-job.ts';
import { modelTargetOf } from '../model/targets.ts';
import type { Job, Layout, Model } from '../model/format.ts';
import { withFigures } from '../boards/machine.ts';
import { subtractCounters } from '../periph/counters.ts';
import type { Problem } from '../model/addition.ts';
import { adderJob, demoProblem, demoResultOf, formatDemo, readAdder, solution } from '../study/addition.ts';
import { sumCounters, type CounterSnapshot } from '../periph/counters.ts';
import { DEMO_MODEL_SHOWN, type DisasLine, type FromWorker, type Sample, type Snapshot, type ToWorker } from './protocol.ts';

/** Clocks per timeline sample (and per slice of a free run). */
const SAMPLE_CLOCKS = 1 << 16;
/** Longest a free run computes before it lets messages in, ms. */
const SLICE_MS = 20;
/** How often a running machine's state is posted, ms. */
const POST_MS = 100;
/** The console kept for the page: its last this many characters. */
const CONSOLE_KEEP = 64 * 1024;
/** Memory words shown. */
const MEMORY_WORDS = 64;
/** The demo's PERF_CTRL windows, as `picotpu demo` labels them (study/addition.ts formatDemo). */
const DEMO_WINDOWS = ['prefill (PERF_CTRL window 1): the prompt, the first sum digit', 'decode (PERF_CTRL window 2): one token a step'];
/** Instructions shown before and after the pc (or the chosen address). */
const DISAS_BEFORE = 8, DISAS_AFTER = 24;

interface Session {
  m: Machine;
  view: ProgramView;
  control: ExecutionControl;
  program: string;
  state: 'loaded' | 'running' | 'paused' | 'stopped' | 'ended';
  note: string;
  console: string;
  result: RunResult | null;
  memoryAddr: number;
  /** The disassembly's address, or null to follow the pc. */
  disasAddr: number | null;
  /** The timeline: busy clocks at the last sample, per unit (DMA, MXU, VPU), and its clock. */
  lastBusy: number[];
  lastClock: number;
  /** PERF_CTRL windows closed as of the last sample. */
  windowsSeen: number;
  pending: Sample[];
  /** Host ms of free running so far, and when the current stretch began. */
  runMs: number;
  runSince: number;
  demo: { started: StartedJob | null; seed: SeedDemo | null; problem: Problem; variant: number } | null;
}

/** The demo on the write-up's board (model/seed-job.ts): its job, and the counters taken at prefill_done() (model/seed-run.ts's PrefillMark). */
interface SeedDemo { model: Model; job: Job; layout: Layout; prefillAddr: number; prefill: ReturnType<Machine['devices']['wholeRun']> | null }

let s: Session | null = null;
let lastPost = 0;
const post = (msg: FromWorker) => (self as unknown as { postMessage(m: FromWorker): void }).postMessage(msg);

/** A yield to the worker's message queue without a timer's clamping (a MessageChannel round trip). */
const channel = new MessageChannel();
channel.port1.onmessage = () => {
  try {
    freeRunSlice();
  } catch (err) {
    post({ type: 'error', message: (err as Error).message });
  }
};
const scheduleSlice = () => channel.port2.postMessage(null);

function newSession(m: Machine, program: string, demo: Session['demo']): Session {
  // The program it replaces stops where it is (a run through the control ends at its next yield).
  if (s) {
    s.state = 'paused';
    s.control.interrupt();
  }
  const view = new ProgramView(m);
  const session: Session = {
    m, view, control: new ExecutionControl(view, DEFAULT_MAX_CYCLES), program, state: 'loaded', note: '', console: '', result: null,
    memoryAddr: 0x4000_0000, disasAddr: null, lastBusy: [0, 0, 0], lastClock: 0, windowsSeen: 0, pending: [], runMs: 0, runSince: 0, demo,
  };
  m.bus.console.setSink((bytes) => {
    session.console = (session.console + latin1Text(bytes, 0, bytes.length)).slice(-CONSOLE_KEEP);
  });
  post({ type: 'samples', samples: [], reset: true });
  return session;
}

function load(name: string, bytes: ArrayBuffer, board: string): void {
  const m = new Machine(defaultConfig(), { board });
  m.loadElf(new Uint8Array(bytes));
  s = newSession(m, name, null);
  s.note = `${name} loaded: Run, Step, or click a disassembly line for a breakpoint`;
}

function loadDemo(problemText: string, variant: number, board: string, elf: ArrayBuffer, modelBytes: ArrayBuffer): void {
  const problem = demoProblem(problemText);
  const model = readAdder(new Uint8Array(modelBytes), DEMO_MODEL_SHOWN);
  if (board === 'transformer-tpu-int4') {
    const image = new Uint8Array(elf), job = adderJob(problem, variant);
    const { m, layout } = seedMachineFor(model, job, {}, image);
    s = newSession(m, `demo ${problem.a}+${problem.b}`, { started: null, seed: { model, job, layout, prefillAddr: prefillAddress(image), prefill: null }, problem, variant });
    s.note = `adding ${problem.a} + ${problem.b} on the write-up's board`;
    startRunning(s);
    return;
  }
  const started = startJob(model, adderJob(problem, variant), () => new Uint8Array(elf));
  s = newSession(started.m, `demo ${problem.a}+${problem.b}`, { started, seed: null, problem, variant });
  s.note = `adding ${problem.a} + ${problem.b} on the TPU`;
  startRunning(s);
}

/** Takes a timeline sample: each unit's busy clocks since the last one and the CPU's function now. */
function sample(session: Session): void {
  const { m } = session;
  const whole = m.devices.wholeRun(m.cpu.cycle);
  const busy = [whole.dmaBusy, whole.mxuBusy, whole.vpuBusy];
  const clock = whole.cycles;
  if (clock <= session.lastClock) return;
  const [dma, mxu, vpu] = busy.map((b, u) => b - session.lastBusy[u]);
  const next: Sample = { clock: session.lastClock, clocks: clock - session.lastClock, mxu, vpu, dma, fn: m.symbols.at(m.cpu.pc >>> 0)?.name ?? '' };
  // A window closed in this sample: the timeline marks it (one window per sample is all a program with PERF_CTRL around kernels closes).
  const windows = m.devices.figures().windows;
  if (windows.length > session.windowsSeen) {
    const i = windows.length - 1;
    next.window = { label: session.demo ? (['prefill', 'decode'][i] ?? `window ${i + 1}`) : `window ${i + 1}`, cycles: windows[i].cycles };
    session.windowsSeen = windows.length;
  }
  session.pending.push(next);
  session.lastBusy = busy.slice();
  session.lastClock = clock;
}

function startRunning(session: Session): void {
  if (session.state === 'ended') throw new Error('the program has ended: load it again');
  session.state = 'running';
  session.note = session.demo ? session.note : 'running';
  session.runSince = performance.now();
  if (session.control.breakpoints.length || awaitsPrefill(session)) void controlledRun(session, {});
  else scheduleSlice();
}

/** A seed demo before prefill_done(): it runs through the control, which stops there (PrefillMark's instruction) for the counters. */
const awaitsPrefill = (session: Session) => session.demo?.seed != null && session.demo.seed.prefill === null;

/** One slice of a free run: advance in SAMPLE_CLOCKS steps for SLICE_MS, then yield (or finish). */
function freeRunSlice(): void {
  const session = s;
  if (!session || session.state !== 'running') return;
  // A breakpoint set while running: go on through the debugger's control, which stops at it.
  if (session.control.breakpoints.length || awaitsPrefill(session)) {
    void controlledRun(session, {});
    return;
  }
  const { m } = session;
  const t0 = performance.now();
  let reason: StopReason = StopReason.LIMIT;
  do {
    const limit = Math.min(DEFAULT_MAX_CYCLES, (Math.floor(m.cpu.cycle / SAMPLE_CLOCKS) + 1) * SAMPLE_CLOCKS);
    reason = m.advance(limit);
    if (reason !== StopReason.LIMIT || m.cpu.cycle >= DEFAULT_MAX_CYCLES) break;
    sample(session);
  } while (performance.now() - t0 < SLICE_MS);
  if (reason !== StopReason.LIMIT || m.cpu.cycle >= DEFAULT_MAX_CYCLES) {
    end(session, m.finishRun(reason));
    return;
  }
  if (performance.now() - lastPost > POST_MS) postState();
  scheduleSlice();
}

/** The program has stopped for good: its result, and the demo's report. */
function end(session: Session, result: RunResult): void {
  session.runMs += performance.now() - session.runSince;
  session.result = result;
  session.state = 'ended';
  sample(session);
  session.note = result.reason === 'exit' ? `exit ${result.exit} after ${result.clocks} clocks` : describeStop(result);
  if (session.demo) finishDemo(session, result);
  postState();
}

function finishDemo(session: Session, result: RunResult): void {
  const { started, seed, problem, variant } = session.demo!;
  let run;
  if (seed) {
    const r = withFigures(result);
    run = readSeedBack(session.m, seed.model, seed.job, seed.layout, r, session.runMs, session.runMs);
    if (seed.prefill && run.tokens.length > 1) run.windows = [seed.prefill, subtractCounters(r.counters, seed.prefill)];
  } else {
    run = finishJob(started!, result, session.runMs, session.runMs);
  }
  const target = modelTargetOf(seed ? 'transformer-tpu-int4' : 'picotpu')!;
  const demo = demoResultOf(problem, null, DEMO_MODEL_SHOWN, variant, { ...solution(problem, run.tokens, run.logits), run }, target);
  const sol = demo.solution;
  post({
    type: 'demo', text: formatDemo(demo),
    figures: {
      problem: `${problem.a}+${problem.b}`, variant, sum: sol.answer, correct: sol.correct, clocks: result.clocks, instret: result.instret,
      prefill: demo.prefill, decode: demo.decode, total: demo.total, wallMs: session.runMs, clocksPerSecond: result.clocks / (session.runMs / 1000),
    },
  });
}

/**
 * Runs through the debugger's control (breakpoints, steps) to its stop. A run
 * without a count goes in pieces of SAMPLE_CLOCKS (a target at the next sample's
 * clock; a breakpoint there still wins, ExecutionControl checks it first) so
 * the timeline is sampled as in a free run, and lets messages in every SLICE_MS.
 */
async function controlledRun(session: Session, spec: RunSpec): Promise<void> {
  session.state = 'running';
  postState();
  const { m } = session;
  let stop: Stop;
  let since = performance.now();
  for (;;) {
    if (spec.count !== undefined) { stop = await session.control.run(spec); break; }
    const next = (Math.floor(m.cpu.cycle / SAMPLE_CLOCKS) + 1) * SAMPLE_CLOCKS;
    const own = spec.target;
    const mark = session.demo?.seed?.prefill === null ? session.demo.seed.prefillAddr : -1;
    stop = await session.control.run({ target: (pc, sp) => m.cpu.cycle >= next || pc === mark || (own !== undefined && own(pc, sp)) });
    if (session !== s || stop.kind !== 'target' || (own && own(m.cpu.pc >>> 0, m.cpu.regs[SP] >>> 0))) break;
    if ((m.cpu.pc >>> 0) === mark) {
      // PrefillMark's counters (model/seed-run.ts), taken as it takes them: after prefill_done()'s first instruction ran, at the clock it began.
      const before = m.cpu.cycle;
      await session.control.run({ count: 1 });
      session.demo!.seed!.prefill = m.devices.wholeRun(before);
      if (session.control.result) { end(session, session.control.result); return; }
      if (!session.control.breakpoints.length) {
        session.runMs += performance.now() - session.runSince;
        startRunning(session);
        return;
      }
    }
    sample(session);
    if (performance.now() - since < SLICE_MS) continue;
    await yieldToMessages();
    since = performance.now();
    if (performance.now() - lastPost > POST_MS) postState();
    if (session !== s) return;
    if (session.state !== 'running') { stop = { kind: 'interrupt' }; break; }
  }
  if (session !== s) return;
  if (session.control.result) {
    end(session, session.control.result);
    return;
  }
  session.runMs += performance.now() - session.runSince;
  sample(session);
  session.state = stop.kind === 'interrupt' ? 'paused' : 'stopped';
  session.note = stop.kind === 'breakpoint' ? `breakpoint ${stop.breakpoint!.num} at ${session.view.addr(session.m.cpu.pc >>> 0)}`
    : stop.kind === 'interrupt' ? 'paused' : stop.kind === 'limit' ? 'cycle limit reached' : `stopped at ${session.view.addr(session.m.cpu.pc >>> 0)}`;
  postState();
}

/** A yield to the worker's message queue (a MessageChannel round trip, as the free run's). */
const yieldChannel = new MessageChannel();
let yielded: (() => void) | null = null;
yieldChannel.port1.onmessage = () => { const r = yielded; yielded = null; r?.(); };
const yieldToMessages = () => new Promise<void>((resolve) => { yielded = resolve; yieldChannel.port2.postMessage(null); });

function pause(session: Session): void {
  if (session.state !== 'running') return;
  if (session.control.busy) { session.control.interrupt(); return; }
  // A controlled run between its pieces sees the state and stops (controlledRun).
  if (session.control.breakpoints.length && !session.control.result) { session.state = 'paused'; return; }
  session.runMs += performance.now() - session.runSince;
  session.state = 'paused';
  session.note = 'paused';
  postState();
}

function step(session: Session, spec: RunSpec): void {
  if (session.state === 'ended') throw new Error('the program has ended: load it again');
  if (session.state === 'running') return;
  session.runSince = performance.now();
  void controlledRun(session, spec);
}

function toggleBreakpoint(session: Session, addr: number): void {
  const bp = session.control.bpAt.get(addr);
  if (bp) session.control.removeBreakpoint(bp);
  else if (session.view.isCode(addr)) session.control.addBreakpoint(addr, false);
  postState();
}

/** The instructions around `center`, as the debugger's x/i lines. */
function disassembly(session: Session, center: number): DisasLine[] {
  const { view, control, m } = session;
  const lines: DisasLine[] = [];
  let a = Math.max(0, center - 4 * DISAS_BEFORE) & ~view.insnAlign;
  for (let n = 0; n < DISAS_BEFORE + DISAS_AFTER && view.isCode(a); n++) {
    lines.push({ addr: a, text: disasLine(view, a, control.bpAt), pc: a === m.cpu.pc >>> 0, breakpoint: control.bpAt.has(a) });
    a += view.insnAt(a).len;
  }
  return lines;
}

function snapshot(session: Session): Snapshot {
  const { m, view } = session;
  const pc = m.cpu.pc >>> 0;
  const byte = (a: number) => (view.cpuMemory(a, 1) ? view.bytesAt(a, 1)[0] : null);
  const clock = session.result ? session.result.clocks : m.cpu.cycle;
  return {
    program: session.program, state: session.state, note: session.note, clock, instret: m.cpu.instret, pc,
    fn: m.symbols.at(pc)?.name ?? '',
    registers: registerLines(view, [32, ...Array.from({ length: 31 }, (_, i) => i + 1)]),
    disassembly: disassembly(session, session.disasAddr ?? pc),
    units: unitsLines(m),
    report: reportText(session),
    console: session.console,
    memory: dumpLines((a) => `0x${hex8(a)}`, session.memoryAddr, MEMORY_WORDS, 'x', 4, byte).lines,
    demoPhase: !session.demo ? '' : session.demo.seed ? (session.result ? 'done' : session.demo.seed.prefill ? 'decode' : 'prefill')
      : (['prefill', 'decode'][m.devices.figures().windows.length] ?? 'done'),
    functions: m.symbols.all.filter((f) => f.isFunction).sort((x, y) => x.addr - y.addr).map((f) => ({ name: f.name, addr: f.addr })),
  };
}

/**
 * The performance report of every closed PERF_CTRL window, each labelled (the
 * demo's as `picotpu demo` labels them: prefill, decode, and their sum as the
 * whole run), then the whole run from reset for any other program.
 */
function reportText(session: Session): string {
  const { m } = session;
  const f = session.result ? m.figuresOf(session.result) : m.devices.figures();
  const clock = session.result ? session.result.clocks : m.cpu.cycle;
  const section = (label: string, counters: CounterSnapshot, perfWindow: boolean) =>
    `== ${label} ==\n${m.devices.formatReport({ ...f, counters, perfWindow }, m.config.clockHz)}`;
  const seed = session.demo?.seed;
  if (seed) {
    // The seed has one counter window (run pulse to DONE): prefill as it stood at prefill_done(), then the rest.
    const whole = session.result ? f.counters : m.devices.wholeRun(clock);
    const parts = seed.prefill ? [section('prefill: run pulse to prefill_done()', seed.prefill, true), section('decode: the rest so far', subtractCounters(whole, seed.prefill), true)] : [];
    parts.push(section(session.result ? "whole run: the board's counters, run pulse to DONE" : 'whole run so far', whole, false));
    return parts.join('\n');
  }
  if (session.demo) {
    const parts = f.windows.slice(0, DEMO_WINDOWS.length).map((w, i) => section(DEMO_WINDOWS[i], w, true));
    if (f.windows.length) parts.push(section('whole run: prefill + decode (the sum of the windows)', sumCounters(f.windows.slice(0, 2)), false));
    return parts.join('\n') || '(no PERF_CTRL window closed yet)';
  }
  const parts = f.windows.map((w, i) => section(`PERF_CTRL window ${i + 1}`, w, true));
  parts.push(section(`whole run: reset to clock ${clock}`, m.devices.wholeRun(clock), false));
  return parts.join('\n');
}

function postState(): void {
  if (!s) return;
  lastPost = performance.now();
  if (s.pending.length) {
    post({ type: 'samples', samples: s.pending, reset: false });
    s.pending = [];
  }
  post({ type: 'state', snapshot: snapshot(s) });
}

function handle(msg: ToWorker): void {
  if (msg.type === 'load') { load(msg.name, msg.bytes, msg.board); if (msg.run) startRunning(s!); postState(); return; }
  if (msg.type === 'demo') { loadDemo(msg.problem, msg.variant, msg.board, msg.elf, msg.model); postState(); return; }
  if (!s) throw new Error('load a program first');
  switch (msg.type) {
    case 'run': if (s.state !== 'running') startRunning(s); postState(); return;
    case 'pause': pause(s); return;
    case 'step': step(s, { count: 1 }); return;
    case 'next': step(s, nextSpec(s.view)); return;
    case 'break': toggleBreakpoint(s, msg.addr); return;
    case 'disas': s.disasAddr = msg.addr; postState(); return;
    case 'memory': s.memoryAddr = msg.addr >>> 0; postState(); return;
  }
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  try {
    handle(e.data);
  } catch (err) {
    post({ type: 'error', message: (err as Error).message });
  }
};
