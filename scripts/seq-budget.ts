// What the command sequencer (docs/hardware.md §5.11) could close of a
// variant's gap to its bound, from a measured run and the documented fetch
// rule: runs the benchmark job (64-token prompt, 64 decode steps, d = 128,
// 4 layers), counts the commands each phase issues, and prints what their
// lists would cost the DMA at 32 bytes an entry, against the phase's gap
// (run − bound) and its no-unit-busy clocks (study/doc-runs.ts seqBudget;
// docs/study.md §9 quotes it).
// Usage: npx tsx scripts/seq-budget.ts [variant]

import { BEST_VARIANT } from '../model/format.ts';
import { formatSeqBudget, seqBudget } from '../study/doc-runs.ts';

const variant = Number(process.argv[2] ?? BEST_VARIANT);
for (const line of formatSeqBudget(variant, seqBudget(variant))) console.log(line);
