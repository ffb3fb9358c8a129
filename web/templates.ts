// The C editor's starting kernels, one per board: a program that builds with
// the board's fixed flags (scripts/web-build.ts) and runs to its end, for a
// learner to change. Their one home is firmware-c/templates/, which the
// first-kernel tutorial (docs/first-kernel.md) starts from too; Vite (the page,
// vitest) inlines the files' text. test/playground.test.ts builds and runs both.
/// <reference path="./raw-imports.d.ts" />

import picotpuTemplate from '../firmware-c/templates/picotpu.c?raw';
import seedTemplate from '../firmware-c/templates/seed.c?raw';

/** picotpu: a DMA round trip through the scratchpad inside a PERF_CTRL window, checked on the CPU. */
export const PICOTPU_TEMPLATE: string = picotpuTemplate;

/** The write-up's board: the same round trip with its DMA (seed.h); main's return value goes to DONE. */
export const SEED_TEMPLATE: string = seedTemplate;
