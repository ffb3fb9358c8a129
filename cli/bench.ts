// `picotpu bench`: the benchmark experiments (study/bench.ts) as text, or
// --json, on standard output, with a progress bar on a terminal's standard error.

import { EXIT } from '../emu/exit-status.ts';
import { ModelRunError } from '../model/run.ts';
import { benchJson, BenchUsageError, formatBench, parseShape, runBench, type BenchOptions } from '../study/bench.ts';
import { devicesJson, formatDevices, runDevicesBench } from '../study/multi-device.ts';
import { UsageError } from './board-options.ts';
import { maxCyclesOption } from './options.ts';
import { checkVariant, progressBar, say, writeAllSync, type AddCommand } from './common.ts';

export interface BenchCliOptions { only?: string[]; matmul?: string[]; variant: number; layer: boolean; json: boolean; reference: boolean; maxCycles?: number; devices?: number }

export const addBench: AddCommand = (y, done) => y.command(
  'bench',
  'Run the benchmark experiments (build/fw/model.elf, mmbench.elf) and compare them with the analytic model and the seed\'s figures',
  (y) => y
    .option('only', { type: 'string', array: true, describe: 'run only experiments whose name contains this (repeatable, case-insensitive)' })
    .option('matmul', { type: 'string', array: true, describe: 'a single MxKxN matmul through mmbench.elf (repeatable); without --only the standard experiments are skipped' })
    .option('variant', { type: 'number', default: 1, describe: 'kernel variant bits of the --matmul runs (1 double-buffered, 2 fused, 4 FlashAttention, 8 wait tokens, 16 lean staging, 32 decode panels, 64 pipelined heads, 128 streamed prefill, 256 block attention, 512 chained weights, 1024 FFN on chip)' })
    .option('layer', { type: 'boolean', default: false, describe: 'add the single-layer benchmark: one layer, a 64-token prefill, variants 0, 1, 3, 7, 15' })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON document (experiments, windows, predictions, seed figures, derived figures) and nothing else' })
    .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
    .option('devices', { type: 'number', describe: 'instead of the experiments: the tensor-parallel model (build/fw/model_tp.elf) on N boards of the multi-board machine (1..8; the bench model: 1, 2 or 4), prompt 64, 8 decode steps, variant 31: per-board counters, link busy, total run clocks, tokens checked, the prediction and its error' })
    .option('max-cycles', { type: 'string', coerce: maxCyclesOption, describe: 'stop each run (a failure) after this many clocks (a positive integer)' }),
  async (args) => {
    done(await benchCommand({
      only: args.only as string[] | undefined, matmul: args.matmul as string[] | undefined, variant: args.variant,
      layer: args.layer, json: args.json, reference: args.reference, maxCycles: args.maxCycles, devices: args.devices,
    }));
  },
);

/** A failed bench run's exit status after its one line (a usage error is thrown as UsageError); other errors are rethrown. */
function failedRun(e: unknown): number {
  if (e instanceof BenchUsageError) throw new UsageError(e.message);
  if (e instanceof ModelRunError) { say(e.message); return e.result.exit !== 0 ? e.result.exit : EXIT.INTERNAL; }
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') { say(`${(e as Error).message} (build the firmware: make -C firmware-c)`); return EXIT.BAD_PROGRAM; }
  throw e;
}

/** bench --devices N: the tensor-parallel model on N boards. */
function devicesCommand(o: BenchCliOptions): number {
  const n = o.devices!;
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new UsageError(`--devices must be an integer 1..8, got ${n}`);
  let result;
  try {
    result = runDevicesBench({ devices: n, maxCycles: o.maxCycles, reference: o.reference });
  } catch (e) {
    return failedRun(e);
  }
  writeAllSync(1, Buffer.from(o.json ? devicesJson(result) : formatDevices(result)));
  return result.tokensCorrect && result.logitsCorrect ? 0 : EXIT.INTERNAL;
}

export async function benchCommand(o: BenchCliOptions): Promise<number> {
  if (o.devices !== undefined) return devicesCommand(o);
  checkVariant(o.variant);
  const opts: BenchOptions = {
    only: o.only, variant: o.variant, layer: o.layer, reference: o.reference, maxCycles: o.maxCycles,
  };
  try {
    opts.matmul = (o.matmul ?? []).map(parseShape);
  } catch (e) {
    throw e instanceof BenchUsageError ? new UsageError(e.message) : e;
  }
  const bar = await progressBar(Boolean(process.stderr.isTTY) && !o.json, 'bench [{bar}] {value}/{total} {name}');
  let started = false;
  opts.onProgress = (done, total, name) => {
    if (!bar) return;
    if (!started) { bar.start(total, done, { name }); started = true; } else bar.update(done, { name });
  };
  let result;
  try {
    result = runBench(opts);
  } catch (e) {
    return failedRun(e);
  } finally {
    bar?.stop();
  }
  writeAllSync(1, Buffer.from(o.json ? benchJson(result) : formatBench(result)));
  return 0;
}
