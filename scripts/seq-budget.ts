// What the command sequencer (docs/hardware.md §5.11) could close of the best
// variant's gap to its bound, from a measured run and the documented fetch
// rule: runs the benchmark job (64-token prompt, 64 decode steps, d = 128,
// 4 layers) with BEST_VARIANT, counts the commands each phase issues, and
// prints what their lists would cost the DMA at 32 bytes an entry, against
// the phase's gap (run − bound) and its no-unit-busy clocks.
// Usage: npx tsx scripts/seq-budget.ts [variant]

import { BASE_DIMS, RANDOM_SEED } from '../study/bench.ts';
import type { Machine } from '../boards/machine.ts';
import { predict } from '../model/predict/analytic.ts';
import { BEST_VARIANT } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runOnEmulator } from '../model/run.ts';
import { SEQ_ENTRY_BYTES } from '../periph/regs.ts';

const variant = Number(process.argv[2] ?? BEST_VARIANT);
const model = randomModel(BASE_DIMS, RANDOM_SEED);
const prompt = randomPrompt(BASE_DIMS, 64, RANDOM_SEED);

/** Commands issued over the whole run, and its PERF_CTRL windows. */
function measure(decodeSteps: number) {
  let machine: Machine | null = null;
  const job = { prompt, decodeSteps, variant };
  const r = runOnEmulator(model, job, { onMachine: (m) => { machine = m; } });
  const commands = (machine as Machine | null)!.tpu.units.reduce((n, u) => n + u.issued, 0);
  return { commands, windows: r.windows, phases: predict(BASE_DIMS, job).phases };
}

const prefill = measure(0), full = measure(64);
const phases = [
  { name: 'prefill', counters: full.windows[0], commands: prefill.commands, bound: full.phases[0].lowerBound },
  { name: 'decode (64 steps)', counters: full.windows[1], commands: full.commands - prefill.commands, bound: full.phases[1].lowerBound },
];
const n = (x: number) => x.toLocaleString('en-US');
console.log(`variant ${variant}: a list entry is ${SEQ_ENTRY_BYTES} bytes, loaded by the DMA at 1 clock a byte`);
for (const p of phases) {
  const c = p.counters, listBytes = p.commands * SEQ_ENTRY_BYTES;
  console.log(`${p.name}: run ${n(c.cycles)}, bound ${n(p.bound)}, gap ${n(c.cycles - p.bound)}, no unit busy ${n(c.idle)}, `
    + `commands ${n(p.commands)}, list bytes ${n(listBytes)}, DMA busy ${n(c.dmaBusy)} + lists ${n(c.dmaBusy + listBytes)}, MXU busy ${n(c.mxuBusy)}`);
}
