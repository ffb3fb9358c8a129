// The runs docs/study.md quotes beyond `bench`'s counters, each run once per
// process on the emulator (scripts/gen-docs.ts writes them into the doc):
// the TPU commands a bench experiment issues per window, a profile
// (`picotpu run --profile`) of one window of the benchmark model, the
// multiply what-if's full inferences and the command sequencer's budget
// (scripts/seq-budget.ts prints the same lines).

import { applyOverrides, defaultConfig, type PlatformConfig } from '../emu/config.ts';
import type { Machine } from '../boards/machine.ts';
import { Profiler, type Profile } from '../emu/observe/profiler.ts';
import type { RunObserver } from '../emu/observe/observer.ts';
import { predict } from '../model/predict/analytic.ts';
import { planLayout, VARIANT, type Job, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runOnEmulator } from '../model/run.ts';
import { SEQ_ENTRY_BYTES } from '../periph/regs.ts';
import { UNIT_NAMES, type CounterSnapshot } from '../periph/counters.ts';
import { configFor, firmwareFor } from './sweep/runs.ts';
import { BASE_DIMS, EXPERIMENTS, RANDOM_SEED, SEQUENCER_SET, T256_DIMS } from './bench.ts';

/** Commands issued per unit (DMA, MXU, VPU) and in all. */
export interface Commands { DMA: number; MXU: number; VPU: number; total: number }

interface JobSpec { dims: ModelDims; promptLength: number; decodeSteps: number; variant: number; config?: PlatformConfig }

const jobOf = (s: JobSpec): Job => ({ prompt: randomPrompt(s.dims, s.promptLength, RANDOM_SEED), decodeSteps: s.decodeSteps, variant: s.variant });

/** One run of a job: its windows and the commands each unit issued over the whole run. */
function run(s: JobSpec, observe?: (m: Machine) => RunObserver): { windows: CounterSnapshot[]; commands: Commands } {
  let machine: Machine | null = null;
  const observers: RunObserver[] = [];
  const r = runOnEmulator(randomModel(s.dims, RANDOM_SEED), jobOf(s), {
    config: s.config,
    elfPath: s.config ? firmwareFor(s.config).model : undefined,
    observers,
    onMachine: (m) => {
      machine = m;
      if (observe) { m.activity.records = []; observers.push(observe(m)); }
    },
  });
  const units = (machine as Machine | null)!.tpu.units;
  const [DMA, MXU, VPU] = UNIT_NAMES.map((_, i) => units[i].issued);
  return { windows: r.windows, commands: { DMA, MXU, VPU, total: DMA + MXU + VPU } };
}

const minus = (a: Commands, b: Commands): Commands => ({ DMA: a.DMA - b.DMA, MXU: a.MXU - b.MXU, VPU: a.VPU - b.VPU, total: a.total - b.total });

/** A bench experiment's job (study/bench.ts EXPERIMENTS), with its what-if board if it has one. */
function experimentSpec(name: string): JobSpec {
  const e = EXPERIMENTS.find((x) => x.name === name);
  if (!e || e.kind === 'matmul') throw new Error(`bench has no model experiment "${name}"`);
  return { dims: e.dims!, promptLength: e.promptLength!, decodeSteps: e.decodeSteps!, variant: e.variant, config: e.set ? applyOverrides(defaultConfig(), e.set) : undefined };
}

const commandCache = new Map<string, Commands>();
/**
 * The TPU commands a bench experiment issues: in the whole run (window ""), in
 * its prefill window (the same job with no decode steps: the prefill runs the
 * same commands) or in its decode window (the difference).
 */
export function experimentCommands(name: string, window: '' | 'prefill' | 'decode'): Commands {
  const key = `${name}>${window}`;
  let c = commandCache.get(key);
  if (!c) {
    const spec = experimentSpec(name);
    const whole = () => experimentCommands(name, '');
    if (window === '') c = run(spec).commands;
    else if (window === 'prefill') c = spec.decodeSteps === 0 ? whole() : run({ ...spec, decodeSteps: 0 }).commands;
    else c = minus(whole(), experimentCommands(name, 'prefill'));
    commandCache.set(key, c);
  }
  return c;
}

/**
 * The profiled windows the study quotes, by name: `decode8` the decode window
 * of the benchmark model (64-token prompt) over 8 decode steps, `prefill` its
 * prefill window, `t256` the one-layer 256-token prefill. A variant with
 * VARIANT.SEQUENCER runs on the sequencer board bench runs it on.
 */
export const PROFILE_JOBS: Record<string, { dims: ModelDims; promptLength: number; decodeSteps: number; perStep: number }> = {
  decode8: { dims: BASE_DIMS, promptLength: 64, decodeSteps: 8, perStep: 8 },
  prefill: { dims: BASE_DIMS, promptLength: 64, decodeSteps: 0, perStep: 1 },
  t256: { dims: T256_DIMS, promptLength: 256, decodeSteps: 0, perStep: 1 },
};

export interface WindowProfile { profile: Profile; commands: Commands; instructions: number; perStep: number }

const profileCache = new Map<string, WindowProfile>();
/** `picotpu run --profile` of a profiled window (PROFILE_JOBS): per function and unit, over the job's last window. */
export function windowProfile(job: string, variant: number): WindowProfile {
  const key = `${job}/${variant}`;
  let w = profileCache.get(key);
  if (!w) {
    const j = PROFILE_JOBS[job];
    if (!j) throw new Error(`no profiled job "${job}" (known: ${Object.keys(PROFILE_JOBS).join(', ')})`);
    const config = variant & VARIANT.SEQUENCER ? applyOverrides(defaultConfig(), SEQUENCER_SET) : undefined;
    let profiler: Profiler | null = null;
    run({ ...j, variant, config }, (m) => (profiler = new Profiler(m)));
    const profile = (profiler as Profiler | null)!.profile!;
    const [DMA, MXU, VPU] = UNIT_NAMES.map((u) => profile.units.find((x) => x.unit === u)!.commands);
    const instructions = profile.functions.reduce((s, f) => s + f.instructions, 0);
    w = { profile, commands: { DMA, MXU, VPU, total: DMA + MXU + VPU }, instructions, perStep: j.perStep };
    profileCache.set(key, w);
  }
  return w;
}

/** The largest functions of a profile by clocks, as "name 49.2 %", joined. */
export function largestFunctions(p: Profile, count: number): string {
  return p.functions.slice(0, count).map((f) => `${f.name} ${f.percent.toFixed(1)} %`).join(', ');
}

const fullCache = new Map<string, CounterSnapshot>();
/** The benchmark job's full inference (64 + 64) with the rv32im build on a core with a multiplier ('mul', 'fast') or RV32I as built: the sum of its windows' run clocks. */
export function multiplyRun(variant: number, multiply: 'none' | 'mul' | 'fast'): number {
  const key = `${variant}/${multiply}`;
  let c = fullCache.get(key);
  if (!c) {
    const config = multiply === 'none' ? undefined : configFor({ multiply });
    const r = run({ dims: BASE_DIMS, promptLength: 64, decodeSteps: 64, variant, config });
    c = { ...r.windows[0], cycles: r.windows.reduce((s, x) => s + x.cycles, 0) };
    fullCache.set(key, c);
  }
  return c.cycles;
}

/** One phase of the sequencer budget: the measured window, the analytic bound and the commands it issues. */
export interface BudgetPhase { name: string; counters: CounterSnapshot; bound: number; commands: number; listBytes: number }

/**
 * What the command sequencer's lists would cost the benchmark job (64-token
 * prompt, 64 decode steps) of a variant: each phase's commands at
 * SEQ_ENTRY_BYTES an entry, loaded by the DMA at a clock a byte.
 */
export function seqBudget(variant: number): BudgetPhase[] {
  const spec = { dims: BASE_DIMS, promptLength: 64, variant };
  const prefill = run({ ...spec, decodeSteps: 0 }), full = run({ ...spec, decodeSteps: 64 });
  const phases = predict(BASE_DIMS, jobOf({ ...spec, decodeSteps: 64 })).phases;
  const decodeCommands = full.commands.total - prefill.commands.total;
  return [
    { name: 'prefill', counters: full.windows[0], bound: phases[0].lowerBound, commands: prefill.commands.total, listBytes: prefill.commands.total * SEQ_ENTRY_BYTES },
    { name: 'decode (64 steps)', counters: full.windows[1], bound: phases[1].lowerBound, commands: decodeCommands, listBytes: decodeCommands * SEQ_ENTRY_BYTES },
  ];
}

/** seq-budget's lines for a variant (scripts/seq-budget.ts prints them). */
export function formatSeqBudget(variant: number, phases: BudgetPhase[]): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    `variant ${variant}: a list entry is ${SEQ_ENTRY_BYTES} bytes, loaded by the DMA at 1 clock a byte`,
    ...phases.map(({ name, counters: c, bound, commands, listBytes }) => `${name}: run ${n(c.cycles)}, bound ${n(bound)}, gap ${n(c.cycles - bound)}, no unit busy ${n(c.idle)}, `
      + `commands ${n(commands)}, list bytes ${n(listBytes)}, DMA busy ${n(c.dmaBusy)} + lists ${n(c.dmaBusy + listBytes)}, MXU busy ${n(c.mxuBusy)}`),
  ];
}

/** The bytes of the benchmark job's SRAM image (weights, embeddings, KV caches, activation buffers: buildBlob's layout). */
export function benchBlobBytes(): number {
  return planLayout(BASE_DIMS, jobOf({ dims: BASE_DIMS, promptLength: 64, decodeSteps: 64, variant: 0 })).end;
}
