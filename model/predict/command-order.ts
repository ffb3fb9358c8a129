// The predictor's command order against the firmware's: model/predict/model-program.ts transcribes
// model.c's flows, and a transcription that drifts from the C pushes other commands than the
// firmware does. This runs model.elf on a job (mmbench.elf on a --matmul shape, model_tp.elf on
// N boards) with the
// TPU's command records on, and compares, window by window, the units the transcription pushes
// with the units the trace's PUSHes went to, in order. scripts/calibrate-model-issue.ts and
// calibrate-issue.ts rely on the same alignment to count their terms; test/command-order.test.ts
// holds it on small jobs in every test run.

import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import type { CommandRecord, TpuUnitName } from '../../periph/tpu.ts';
import type { Job, ModelDims } from '../format.ts';
import type { MatmulShape } from './analytic.ts';
import { KernelCpu, matmulProgram } from './issue-cost.ts';
import { modelClass, modelProgram, ModelProgram } from './model-program.ts';
import { randomModel, randomPrompt } from '../random.ts';
import { tpClass, tpProgram, TP_VARIANT_BITS } from './tp-program.ts';
import { traceTpBoards } from '../tp-run.ts';
import { MODEL_ELF, runMatmulOnEmulator, runOnEmulator } from '../run.ts';

/** The unit names by the schedule model's unit numbers (model/predict/schedule.ts DMA, MXU, VPU, SEQ, LINK). */
export const ORDER_UNITS = ['DMA', 'MXU', 'VPU', 'SEQ', 'LINK'];
/** tpu_regs.h: PERF_CTRL's offset (each window starts and stops the counters) and a unit's DONE register. */
const PERF_CTRL_OFFSET = 8;

export interface OrderJob { dims: ModelDims; prompt: number; steps: number; variant: number; batch?: number }

/** One window's PUSHes, in push order, as the firmware made them: a sequencer list's own commands are no CPU PUSH. */
type AnyRecord = CommandRecord<TpuUnitName>;
function cpuPushes(all: AnyRecord[]): AnyRecord[] {
  const listRuns = all.filter((r) => r.unit === 'SEQ');
  return all.filter((r) => r.unit === 'SEQ' || !listRuns.some((run) => r.pushClock > run.startClock && r.pushClock <= run.endClock));
}

/** The units model.elf pushed to, window by window, on `job` (random model and prompts, seed 1). */
export function firmwareOrder(job: OrderJob, cfg: PlatformConfig = defaultConfig(), elfPath = MODEL_ELF): string[][] {
  const records: CommandRecord[] = [], runs: CommandRecord<'SEQ'>[] = [], perf: number[] = [];
  const batch = job.batch ?? 1;
  const prompts = Array.from({ length: batch }, (_, i) => randomPrompt(job.dims, job.prompt, 1 + i));
  // The stop token out of the vocabulary: every decode step runs.
  const run: Job = { prompt: prompts[0], decodeSteps: job.steps, variant: job.variant, stopToken: 255 };
  if (batch > 1) run.prompts = prompts;
  runOnEmulator(randomModel(job.dims, 1), run, {
    config: cfg, elfPath,
    onMachine: (m) => {
      m.tpu.records = records;
      m.tpu.seqRecords = runs;
      const write = m.tpu.write.bind(m.tpu);
      m.tpu.write = (off, value, wstrb, clock) => { if (off === PERF_CTRL_OFFSET) perf.push(clock); write(off, value, wstrb, clock); };
    },
  });
  const all: AnyRecord[] = [...records, ...runs].sort((a, b) => a.pushClock - b.pushClock);
  const windows: string[][] = [];
  for (let w = 0; 2 * w + 1 < perf.length; w++) {
    const start = perf[2 * w], stop = perf[2 * w + 1];
    windows.push(cpuPushes(all.filter((r) => r.pushClock > start && r.pushClock < stop)).map((r) => r.unit));
  }
  return windows;
}

/** The units mmbench.elf (or `elfPath`, one of its builds) pushed to in its one window, on a --matmul shape. */
export function firmwareMatmulOrder(sh: MatmulShape, variant: number, cfg: PlatformConfig = defaultConfig(), elfPath?: string): string[][] {
  const records: CommandRecord[] = [], perf: number[] = [];
  runMatmulOnEmulator(sh, variant, {
    config: cfg, elfPath,
    onMachine: (m) => {
      m.tpu.records = records;
      const write = m.tpu.write.bind(m.tpu);
      m.tpu.write = (off, value, wstrb, clock) => { if (off === PERF_CTRL_OFFSET) perf.push(clock); write(off, value, wstrb, clock); };
    },
  });
  const [start, stop] = perf;
  return [records.filter((r) => r.pushClock > start && r.pushClock < stop).sort((a, b) => a.pushClock - b.pushClock).map((r) => r.unit)];
}

/** The units the transcription of mmbench's kernels (model/predict/issue-cost.ts matmulProgram) pushes to, on a --matmul shape. */
export function predictorMatmulOrder(sh: MatmulShape, variant: number, cfg: PlatformConfig = defaultConfig()): string[][] {
  const k = new KernelCpu(variant, () => ({ issue: 1, firstRead: 1, afterRead: 1 }), undefined, cfg);
  matmulProgram(k, sh, variant, cfg);
  return [k.units.map((u) => ORDER_UNITS[u])];
}

/** The units the transcription (model/predict/model-program.ts) pushes to, window by window, on `job`. */
export function predictorOrder(job: OrderJob, cfg: PlatformConfig = defaultConfig()): string[][] {
  const windows: string[][] = [];
  const kernels: KernelCpu[] = [];
  const unitTerms = () => ({ issue: 1, firstRead: 1, afterRead: 1 });
  modelProgram(new ModelProgram(job.variant, cfg), job.dims, job.prompt, job.steps, () => {
    const k = new KernelCpu(job.variant, unitTerms, modelClass(job.variant, ''), cfg);
    kernels.push(k);
    return k;
  }, job.batch ?? 1);
  for (const k of kernels) windows.push(k.units.map((u) => ORDER_UNITS[u]));
  return windows;
}

/** The units each board of model_tp.elf pushed to, window by window, on `job` over `boards` boards. */
export function firmwareTpOrder(job: OrderJob, boards: number): string[][][] {
  const prompt = randomPrompt(job.dims, job.prompt, 1);
  return traceTpBoards(randomModel(job.dims, 1), { prompt, decodeSteps: job.steps, variant: job.variant, stopToken: 255 }, boards).map((t) => {
    const windows: string[][] = [];
    for (let w = 0; 2 * w + 1 < t.perf.length; w++) {
      const start = t.perf[2 * w], stop = t.perf[2 * w + 1];
      windows.push(t.records.filter((r) => r.pushClock > start && r.pushClock < stop).map((r) => r.unit));
    }
    return windows;
  });
}

/** The units the transcription of model_tp.c (model/predict/tp-program.ts) pushes to on every board, window by window. */
export function predictorTpOrder(job: OrderJob, boards: number): string[][] {
  const kernels: KernelCpu[] = [];
  tpProgram(job.dims, job.prompt, job.steps, boards, job.variant, () => {
    const k = new KernelCpu(job.variant & TP_VARIANT_BITS, () => ({ issue: 1, firstRead: 1, afterRead: 1 }), tpClass(job.variant));
    kernels.push(k);
    return k;
  });
  return kernels.map((k) => k.units.map((u) => ORDER_UNITS[u]));
}

/**
 * Where the transcription's command order leaves the firmware's, one line per window that differs (none: the
 * same order): the first PUSH whose unit differs, or the counts when one is a prefix of the other.
 */
export function orderDifferences(predicted: string[][], firmware: string[][], label: string): string[] {
  const out: string[] = [];
  if (predicted.length !== firmware.length) out.push(`${label}: the model has ${predicted.length} windows, the firmware ${firmware.length}`);
  for (let w = 0; w < Math.min(predicted.length, firmware.length); w++) {
    const p = predicted[w], f = firmware[w];
    const i = p.findIndex((u, j) => u !== f[j]);
    if (i >= 0 && i < f.length) out.push(`${label}, window ${w}: push ${i} goes to ${f[i]} in the firmware, ${p[i]} in the model`);
    else if (p.length !== f.length) out.push(`${label}, window ${w}: the model pushes ${p.length} commands, the firmware ${f.length}`);
  }
  return out;
}
