// What `picotpu eval` and `picotpu demo` share: their failures mapped to one
// line and an exit status, and the exit statuses their help lists.

import { boardNamed } from '../boards/registry.ts';
import { EXIT } from '../emu/exit-status.ts';
import { ModelRunError } from '../model/run.ts';
import { targetElf } from '../model/target-run.ts';
import { MODEL_TARGETS, modelTargetOf, type ModelTarget } from '../model/targets.ts';
import { AdderModelError, DemoInputError, EvalUsageError, MAX_MODEL_BYTES } from '../study/addition-run.ts';
import { readBounded } from './bounded-read.ts';
import { UsageError } from './board-options.ts';
import { say } from './common.ts';

/** A --model file, read with a bound (never an endless read of a device such as /dev/zero). */
export const readModelFile = (path: string): Uint8Array => readBounded(path, MAX_MODEL_BYTES);

/** demo's and eval's --board: a board (name or alias) the model firmware is built for; 165 otherwise. */
export function modelTargetNamed(name: string): ModelTarget {
  const target = modelTargetOf(boardNamed(name).name);
  if (!target) throw new UsageError(`no model firmware for the ${boardNamed(name).name} board (it runs on ${MODEL_TARGETS.map((t) => t.board).join(', ')})`);
  return target;
}

/** The firmware file the target's runs load (build/fw/...). */
export { targetElf };

/** Runs an addition command's work, mapping its failures to one line and an exit status. */
export function addition(work: () => number): number {
  try {
    return work();
  } catch (e) {
    if (e instanceof EvalUsageError || e instanceof DemoInputError) throw new UsageError(e.message);
    if (e instanceof AdderModelError) { say(e.message); return EXIT.BAD_PROGRAM; }
    if (e instanceof ModelRunError) { say(e.message); return e.result.exit !== 0 ? e.result.exit : EXIT.INTERNAL; }
    throw e;
  }
}

export const ADDITION_EXITS = `Exit status: 0 done; ${EXIT.BAD_PROGRAM} the model blob or the firmware is missing or unusable; `
  + `${EXIT.USAGE} bad command line`;
