// npm run bench:cpu — emulation speed of the CPU alone on a long C workload
// (firmware-c/examples/bench.c, well over 100 M clocks). Prints emulated clocks
// per wall second and MIPS, the median of several runs in one process.

import { readFileSync } from 'node:fs';
import { Machine } from '../boards/machine.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const elfPath = 'build/fw/bench.elf';

buildFirmware();
const elf = readFileSync(elfPath);

const samples: { clocks: number; instret: number; seconds: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  const m = new Machine();
  m.loadElf(elf);
  const t0 = process.hrtime.bigint();
  const r = m.run();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.reason !== 'exit' || r.exit !== 0) {
    console.error(`bench.elf did not exit cleanly: ${r.reason} ${r.exit}`);
    process.exit(1);
  }
  samples.push({ clocks: r.clocks, instret: r.instret, seconds });
  console.log(`run ${i + 1}: ${r.clocks} clocks, ${r.instret} instructions in ${seconds.toFixed(3)} s`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const clocksPerSec = median(samples.map((s) => s.clocks / s.seconds));
const mips = median(samples.map((s) => s.instret / s.seconds / 1e6));
console.log(`bench:cpu ${elfPath}: ${(clocksPerSec / 1e6).toFixed(1)} M emulated clocks/s, ${mips.toFixed(1)} MIPS (median of ${RUNS})`);
