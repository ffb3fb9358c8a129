// `picotpu eval`: held-out accuracy of the addition model with the golden
// model, and the TPU held to it token for token (study/addition-run.ts).

import { EXIT } from '../emu/exit-status.ts';
import {
  ADDER_MODEL, ADDER_VARIANT, MAX_EVAL_PROBLEMS, evalAgrees, evalJson, formatEval, loadAdder, runEval, shownPath,
} from '../study/addition-run.ts';
import { addition, ADDITION_EXITS, modelTargetNamed, readModelFile, targetElf } from './addition.ts';
import { checkVariant, ensureModelElf, progressBar, say, writeAllSync, type AddCommand } from './common.ts';

export interface EvalCliOptions { n: number; tpu: number; model?: string; variant: number; json: boolean; reference: boolean; board?: string }

export const addEval: AddCommand = (y, done) => y.command(
  'eval',
  'Held-out accuracy of the addition model (models/adder.ptm) with the golden model, and the TPU held to it token for token',
  (y) => y
    .option('n', { type: 'number', default: 1000, describe: `held-out problems through the golden model (the first n of the held-out set; at most ${MAX_EVAL_PROBLEMS})` })
    .option('tpu', { type: 'number', default: 20, describe: 'the first this many of them also through build/fw/model.elf on the emulated TPU (0: none)' })
    .option('model', { type: 'string', describe: 'the model blob (default models/adder.ptm)' })
    .option('variant', { type: 'number', default: ADDER_VARIANT, describe: `kernel variant bits of the TPU runs (default ${ADDER_VARIANT}: all, the fastest)` })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON document and nothing else' })
    .option('reference', { type: 'boolean', default: false, describe: 'use the literal clock-by-clock TPU unit models (slow)' })
    .option('board', { type: 'string', default: 'picotpu', describe: 'the board of the TPU runs: picotpu, or transformer-tpu-int4 (alias seed: build/fw/seed-model.elf)' })
    .epilogue(`${ADDITION_EXITS}; ${EXIT.MISMATCH} the TPU's tokens or logits differ from the golden model's on some problem.`),
  async (args) => {
    done(await evalCommand({ n: args.n, tpu: args.tpu, model: args.model, variant: args.variant, json: args.json, reference: args.reference, board: args.board }));
  },
);

/**
 * `picotpu eval`: held-out accuracy of the golden model, then the first --tpu
 * problems on the emulated TPU; exit EXIT.MISMATCH if the TPU's tokens or
 * logits differ from the golden model's on any.
 */
export async function evalCommand(o: EvalCliOptions): Promise<number> {
  checkVariant(o.variant);
  const target = modelTargetNamed(o.board ?? 'picotpu');
  const path = o.model ?? ADDER_MODEL;
  const bar = await progressBar(Boolean(process.stderr.isTTY) && !o.json, 'eval [{bar}] {value}/{total} {phase} {eta_formatted}');
  let phase = '';
  return addition(() => {
    const model = loadAdder(path, readModelFile);
    if (o.tpu > 0 && !ensureModelElf([targetElf(target)])) return EXIT.BAD_PROGRAM;
    let r;
    try {
      r = runEval(model, shownPath(path), {
        n: o.n, tpu: o.tpu, variant: o.variant, run: { reference: o.reference }, target,
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
