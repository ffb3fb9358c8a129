// What `picotpu eval` and `picotpu demo` share: their failures mapped to one
// line and an exit status, and the exit statuses their help lists.

import { EXIT } from '../emu/exit-status.ts';
import { ModelRunError } from '../model/run.ts';
import { AdderModelError, DemoInputError, EvalUsageError, MAX_MODEL_BYTES } from '../study/addition-run.ts';
import { readBounded } from './bounded-read.ts';
import { UsageError } from './board-options.ts';
import { say } from './common.ts';

/** A --model file, read with a bound (never an endless read of a device such as /dev/zero). */
export const readModelFile = (path: string): Uint8Array => readBounded(path, MAX_MODEL_BYTES);

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
