import { readFileSync } from 'node:fs';
import { Machine } from '/work/wt-speed/emu/machine.ts';
const elfs = process.argv.slice(2).map((p) => readFileSync(p));
const passes = Number(process.env.PASSES ?? 6);
for (let pass = 0; pass < passes; pass++) {
  let clocks = 0; const c0 = process.cpuUsage(); const t0 = performance.now();
  for (const e of elfs) { const m = new Machine(undefined, { board: 'seed' }); m.loadElf(e); const r = m.run(); clocks += r.clocks; }
  const c = process.cpuUsage(c0); const ms = performance.now() - t0;
  console.log(`pass ${pass}: ${clocks} clocks, ${(clocks / ms / 1e3).toFixed(1)} M/s wall, ${(clocks / ((c.user + c.system) / 1e3) / 1e3).toFixed(1)} M/s cpu`);
}
