// npm run bench:tpu — emulation speed with the TPU busy: firmware-c/examples/
// tpubench.c issues 12,000 DMA + MXU commands. Prints emulated clocks per wall
// second with the fast unit models and with the literal reference models
// (median of several runs each).

import { readFileSync } from 'node:fs';
import { Machine } from '../boards/machine.ts';
import { buildFirmware } from '../toolchain/toolchain.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
buildFirmware();
const elf = readFileSync('build/fw/tpubench.elf');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

for (const reference of [false, true]) {
  const rates: number[] = [];
  let clocks = 0, commands = 0;
  for (let i = 0; i < RUNS; i++) {
    const m = new Machine(undefined, { reference });
    m.loadElf(elf);
    const t0 = process.hrtime.bigint();
    const r = m.run();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.reason !== 'exit' || r.exit !== 0) throw new Error(`tpubench failed: ${r.reason} ${r.exit}`);
    clocks = r.clocks;
    commands = m.tpu.units.reduce((n, u) => n + u.done, 0);
    rates.push(clocks / seconds);
  }
  console.log(`bench:tpu ${reference ? 'reference' : 'fast     '}: ${(median(rates) / 1e6).toFixed(1)} M emulated clocks/s `
    + `(${clocks} clocks, ${commands} commands, median of ${RUNS})`);
}
