// `picotpu demo [problem]`: one addition (given, or drawn at random) through
// the firmware on the emulated TPU, with its reports (study/addition-run.ts).

import { EXIT } from '../emu/exit-status.ts';
import { ADDER_MODEL, ADDER_VARIANT, demoProblem, formatDemo, freshSeed, loadAdder, randomProblem, runDemo, shownPath } from '../study/addition-run.ts';
import { UsageError } from './board-options.ts';
import { addition, ADDITION_EXITS, modelTargetNamed, readModelFile, targetElf } from './addition.ts';
import { checkVariant, ensureModelElf, writeAllSync, type AddCommand } from './common.ts';

export interface DemoCliOptions { problem?: string; seed?: number; model?: string; variant: number; reference: boolean; board?: string }

export const addDemo: AddCommand = (y, done) => y.command(
  'demo [problem]',
  'Add two numbers of up to 31 digits on the emulated TPU with the trained model (no problem: a random one) and print the performance reports',
  (y) => y
    .positional('problem', { type: 'string', describe: '"a+b", each 1-31 decimal digits, e.g. 123456789+987654321' })
    .option('seed', { type: 'number', describe: 'draw the random problem from this seed (default: a fresh one each run, printed)' })
    .option('model', { type: 'string', describe: 'the model blob (default models/adder.ptm)' })
    .option('variant', { type: 'number', default: ADDER_VARIANT, describe: `kernel variant bits (default ${ADDER_VARIANT}: all, the fastest)` })
    .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
    .option('board', { type: 'string', default: 'picotpu', describe: 'the board: picotpu, or transformer-tpu-int4 (alias seed: the write-up\'s board, build/fw/seed-model.elf; docs/addition.md)' })
    .epilogue(`${ADDITION_EXITS}, or a problem that is not "a+b" of 1-31 digits each. A wrong sum is reported, not an error.`),
  (args) => {
    done(demoCommand({
      problem: args.problem as string | undefined, seed: args.seed, model: args.model, variant: args.variant, reference: args.reference, board: args.board,
    }));
  },
);

/** `picotpu demo`: one problem (given, or drawn at random) through the firmware on the emulated TPU, with its reports. */
export function demoCommand(o: DemoCliOptions): number {
  checkVariant(o.variant);
  const target = modelTargetNamed(o.board ?? 'picotpu');
  if (o.seed !== undefined && !(Number.isInteger(o.seed) && o.seed >= 0 && o.seed <= 0xffffffff)) {
    throw new UsageError(`--seed must be an integer 0-4294967295, got ${o.seed}`);
  }
  if (o.problem !== undefined && o.seed !== undefined) throw new UsageError('give a problem or --seed, not both');
  return addition(() => {
    const seed = o.problem === undefined ? (o.seed ?? freshSeed()) : null;
    const problem = o.problem === undefined ? randomProblem(seed!) : demoProblem(o.problem);
    const path = o.model ?? ADDER_MODEL;
    const model = loadAdder(path, readModelFile);
    if (!ensureModelElf([targetElf(target)])) return EXIT.BAD_PROGRAM;
    const r = runDemo(model, shownPath(path), problem, seed, o.variant, { reference: o.reference }, target);
    writeAllSync(1, Buffer.from(formatDemo(r)));
    return 0;
  });
}
