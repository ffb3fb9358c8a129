// npm run bench:seed-tpu — emulation speed of the seed board's TPU alone
// (boards/transformer-tpu-int4/), driven as its CPU would (test/helpers/seed-driver.ts): a
// tiled_simple-shaped stream, 128×128 · 128×512 in 8×8 output tiles (per
// tile: fill A and B, MM with K = 128, spill C; the next tile's fills queued
// behind the MM). Prints TPU clocks per second of this process's CPU time
// (steadier than wall time on a shared machine) and per wall second, fast and
// reference (median of several runs).

import { packSeedCommand as P, SEED_DMA, SEED_MXU } from '../boards/transformer-tpu-int4/regs.ts';
import { drive, type SeedOp } from '../test/helpers/seed-driver.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TILES = Number(process.env.BENCH_TILES ?? 1024);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function stream(): SeedOp[] {
  const ops: SeedOp[] = [{ kind: 'cmd', unit: SEED_MXU, words: P(SEED_MXU, 'GEOM', { LEN: 128 }), gap: 0 }];
  for (let t = 0; t < TILES; t++) {
    const buf = (t & 1) * 0x2000;
    ops.push({ kind: 'cmd', unit: SEED_DMA, words: P(SEED_DMA, 'MOVE', { SPAD_ADDR: buf, SRAM_ADDR: (t % 16) * 1024, LEN: 128, ROWS: 8 }), gap: 0 });
    ops.push({ kind: 'cmd', unit: SEED_DMA, words: P(SEED_DMA, 'MOVE', { SPAD_ADDR: 0x8000 + buf, SRAM_ADDR: 0x20000 + (t % 64) * 512, LEN: 8, ROWS: 128 }), gap: 0 });
    ops.push({ kind: 'wait', unit: SEED_DMA });
    ops.push({ kind: 'cmd', unit: SEED_MXU, words: P(SEED_MXU, 'MM', { A_ADDR: buf, B_ADDR: 0x8000 + buf, C_ADDR: 0xc000 + (t & 7) * 32, M0: 1, N: 6 }), gap: 0 });
    if ((t & 7) === 7) {
      ops.push({ kind: 'wait', unit: SEED_MXU });
      ops.push({ kind: 'cmd', unit: SEED_DMA, words: P(SEED_DMA, 'MOVE', { SPILL: 1, SPAD_ADDR: 0xc000, SRAM_ADDR: 0x40000 + t * 32, LEN: 64, ROWS: 4 }), gap: 0 });
    }
  }
  ops.push({ kind: 'waitAll' });
  return ops;
}

const ops = stream();
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
