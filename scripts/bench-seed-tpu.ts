// npm run bench:seed-tpu — emulation speed of the seed board's TPU alone
// (boards/transformer-tpu-int4/), driven as its CPU would (test/helpers/seed-driver.ts): a
// tiled_simple-shaped stream, 128×128 · 128×512 in 8×8 output tiles (per
// tile: fill A and B, MM with K = 128, spill C; the next tile's fills queued
// behind the MM). Prints TPU clocks per second of this process's CPU time
// (steadier than wall time on a shared machine) and per wall second, fast and
// reference (median of BENCH_RUNS runs, default 20: a run is 1.2 M clocks,
// too short for the first few, still warming up the JIT, to say anything).

import { drive, seedTiledStream } from '../test/helpers/seed-driver.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TILES = Number(process.env.BENCH_TILES ?? 1024);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const ops = seedTiledStream(TILES);
const sram = new Uint8Array(512 * 1024).map((_, i) => (i * 73 + 0x35) & 0xff);
for (const reference of (process.env.BENCH_ONLY_FAST ? [false] : [false, true])) {
  const rates: number[] = [], cpuRates: number[] = [];
  let clocks = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const r = drive(reference, sram.slice(), ops, undefined, 1e12, false);
    const cpu = process.cpuUsage(c0);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    clocks = r.tpu.clock;
    rates.push(clocks / seconds);
    cpuRates.push(clocks / ((cpu.user + cpu.system) / 1e6));
  }
  console.log(`bench:seed-tpu ${reference ? 'reference' : 'fast     '}: ${(median(cpuRates) / 1e6).toFixed(1)} M TPU clocks per CPU second, ${(median(rates) / 1e6).toFixed(1)} M per wall second (${clocks} clocks, ${TILES} tiles, median of ${RUNS})`);
}
