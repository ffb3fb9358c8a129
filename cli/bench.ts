// `picotpu bench`: the benchmark experiments (study/bench.ts) as text, or
// --json, on standard output, with a progress bar on a terminal's standard error.

import { EXIT } from '../emu/exit-status.ts';
import { defaultConfig } from '../emu/config.ts';
import { ModelRunError } from '../model/run.ts';
import { DEFAULT_TARGET, MODEL_TARGETS, modelTargetOf, type ModelTarget } from '../model/targets.ts';
import { benchJson, BenchUsageError, formatBench, parseShape, runBench, type BenchOptions } from '../study/bench.ts';
import { formatPost, postJson, runPost } from '../study/bench-post.ts';
import { formatSeedBench, runSeedBench, seedBenchObject, type SeedBenchOptions } from '../study/seed-bench.ts';
import { devicesJson, formatDevices, runDevicesBench } from '../study/multi-device.ts';
import { boardOf, UsageError } from './board-options.ts';
import { maxCyclesOption } from './options.ts';
import { checkVariant, progressBar, say, writeAllSync, type AddCommand } from './common.ts';

export interface BenchCliOptions {
  only?: string[]; matmul?: string[]; variant: number; layer: boolean; json: boolean; reference: boolean; maxCycles?: number; devices?: number;
  /** The board (name or alias, boards/registry.ts); the default board's bench when not given. */
  board?: string;
  /** Just the write-up's rows, on both boards. */
  post?: boolean;
}

export const addBench: AddCommand = (y, done) => y.command(
  'bench',
  'Run the benchmark experiments (build/fw/model.elf, mmbench.elf; --board seed: build/fw/seed-model.elf on the write-up\'s board) and compare them with the analytic model and the write-up\'s figures',
  (y) => y
    .option('only', { type: 'string', array: true, describe: 'run only experiments whose name contains this (repeatable, case-insensitive)' })
    .option('matmul', { type: 'string', array: true, describe: 'a single MxKxN matmul through mmbench.elf (repeatable); without --only the standard experiments are skipped' })
    .option('variant', { type: 'number', default: 1, describe: 'kernel variant bits of the --matmul runs (1 double-buffered, 2 fused, 4 FlashAttention, 8 wait tokens, 16 lean staging, 32 decode panels, 64 pipelined heads, 128 streamed prefill, 256 block attention, 512 chained weights, 1024 FFN on chip)' })
    .option('layer', { type: 'boolean', default: false, describe: 'add the single-layer benchmark: one layer, a 64-token prefill, variants 0, 1, 3, 7, 15' })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON document (experiments, windows, predictions, seed figures, derived figures) and nothing else' })
    .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
    .option('devices', { type: 'number', describe: 'instead of the experiments: the tensor-parallel model (build/fw/model_tp.elf) on N boards of the multi-board machine (1..8; the bench model: 1, 2 or 4), prompt 64, 8 decode steps, variant 31: per-board counters, link busy, total run clocks, tokens checked, the prediction and its error' })
    .option('max-cycles', { type: 'string', coerce: maxCyclesOption, describe: 'stop each run (a failure) after this many clocks (a positive integer)' })
    .option('board', { type: 'string', describe: `the board the experiments run on: ${MODEL_TARGETS.map((t) => t.board).join(' | ')} (alias seed: the write-up's own board, build/fw/seed-model.elf, beside the write-up's and its RTL's figures; docs/study.md)` })
    .option('post', { type: 'boolean', default: false, describe: "just the write-up's rows, on both boards, with the gains as the write-up states them beside each board's" }),
  async (args) => {
    done(await benchCommand({
      only: args.only as string[] | undefined, matmul: args.matmul as string[] | undefined, variant: args.variant,
      layer: args.layer, json: args.json, reference: args.reference, maxCycles: args.maxCycles, devices: args.devices,
      board: args.board, post: args.post,
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

/** The model target of --board (default: the default board's); a board without model firmware is a usage error. */
function benchTarget(o: BenchCliOptions): ModelTarget {
  if (o.board === undefined) return DEFAULT_TARGET;
  const board = boardOf({ board: o.board });
  const target = modelTargetOf(board.name);
  if (!target) throw new UsageError(`bench: no model firmware for the ${board.name} board (it runs on ${MODEL_TARGETS.map((t) => t.board).join(', ')})`);
  return target;
}

/** The options only the default board's bench has, refused elsewhere (one line, 165). */
function refuseOptions(o: BenchCliOptions, where: string): void {
  const given: [boolean, string][] = [
    [o.matmul !== undefined && o.matmul.length > 0, '--matmul'], [o.layer, '--layer'], [o.devices !== undefined, '--devices'], [o.variant !== 1, '--variant'],
  ];
  const bad = given.filter(([on]) => on).map(([, name]) => name);
  if (bad.length) throw new UsageError(`bench ${where}: ${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not supported there (the write-up's experiments only)`);
}

/** The progress bar on a terminal's standard error (none with --json or off a terminal). */
async function bar(o: BenchCliOptions) {
  const b = await progressBar(Boolean(process.stderr.isTTY) && !o.json, 'bench [{bar}] {value}/{total} {name}');
  let started = false;
  return {
    onProgress: (done: number, total: number, name: string) => {
      if (!b) return;
      if (!started) { b.start(total, done, { name }); started = true; } else b.update(done, { name });
    },
    stop: () => b?.stop(),
  };
}

/** bench --board B (B not the default board): the write-up's experiments on that board. */
async function seedBoardCommand(o: BenchCliOptions, target: ModelTarget): Promise<number> {
  refuseOptions(o, `--board ${target.board}`);
  const progress = await bar(o);
  const opts: SeedBenchOptions = { only: o.only, reference: o.reference, maxCycles: o.maxCycles, onProgress: progress.onProgress };
  let result;
  try {
    result = runSeedBench(target, defaultConfig().clockHz, opts);
  } catch (e) {
    return failedRun(e);
  } finally {
    progress.stop();
  }
  writeAllSync(1, Buffer.from(o.json ? JSON.stringify(seedBenchObject(result), null, 2) + '\n' : formatSeedBench(result)));
  return result.experiments.every((r) => r.golden.equal) ? 0 : EXIT.INTERNAL;
}

/** bench --post: the write-up's rows on the default board and on every other board with model firmware. */
async function postCommand(o: BenchCliOptions): Promise<number> {
  refuseOptions(o, '--post');
  if (o.board !== undefined) throw new UsageError('bench --post runs both boards: leave out --board');
  if (o.only !== undefined && o.only.length) throw new UsageError("bench --post runs the write-up's rows: leave out --only");
  const other = MODEL_TARGETS.find((t) => t !== DEFAULT_TARGET);
  if (!other) throw new Error('internal: no second board with model firmware');
  const progress = await bar(o);
  let result;
  try {
    result = runPost(DEFAULT_TARGET, other, defaultConfig().clockHz, { reference: o.reference, maxCycles: o.maxCycles, onProgress: progress.onProgress });
  } catch (e) {
    return failedRun(e);
  } finally {
    progress.stop();
  }
  writeAllSync(1, Buffer.from(o.json ? postJson(result) : formatPost(result)));
  return result.seed.experiments.every((r) => r.golden.equal) ? 0 : EXIT.INTERNAL;
}

export async function benchCommand(o: BenchCliOptions): Promise<number> {
  if (o.post) return postCommand(o);
  const target = benchTarget(o);
  if (target !== DEFAULT_TARGET) return seedBoardCommand(o, target);
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
  const progress = await bar(o);
  opts.onProgress = progress.onProgress;
  let result;
  try {
    result = runBench(opts);
  } catch (e) {
    return failedRun(e);
  } finally {
    progress.stop();
  }
  writeAllSync(1, Buffer.from(o.json ? benchJson(result) : formatBench(result)));
  return 0;
}
