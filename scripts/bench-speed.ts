// npm run bench:speed — how fast the emulator runs, as one table: emulated
// clocks per wall second and the real-time factor against the 12 MHz board,
// for CPU-only firmware, the demo, full inference (wait tokens, and the best
// variant), a prefill and the MXU-bound 512×512×512 matmul. Each workload runs
// in this process after a warm-up (the best of several runs: the machine is
// shared, so the fastest run is the least disturbed one) and once from a cold
// start of a fresh `node bin/picotpu.mjs` process (its whole wall time, start-up
// included). Last, the CLI's start-up: `picotpu run build/fw/hello.elf`.
//
//   BENCH_RUNS=3 npm run bench:speed        # timed runs per workload (default 3)
//   npm run bench:speed -- --only matmul    # rows whose name contains a word
//   npm run bench:speed -- --warm           # in-process figures only

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { BASE_DIMS, RANDOM_SEED } from '../emu/bench.ts';
import { defaultConfig } from '../emu/config.ts';
import { Machine } from '../emu/machine.ts';
import { ADDER_VARIANT, adderJob, loadAdder, randomProblem } from '../model/addition-run.ts';
import { VARIANT, type Job } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runMatmulOnEmulator, runOnEmulator } from '../model/run.ts';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const CLOCK_HZ = defaultConfig().clockHz;
const DEMO_SEED = 1;
const WAIT_TOKENS = VARIANT.DOUBLE_BUFFER | VARIANT.FUSED | VARIANT.FLASH | VARIANT.TOKENS; // 15
const BEST = ADDER_VARIANT; // 31: every technique, the fewest clocks

interface Workload {
  name: string;
  /** One run in this process; returns its emulated clocks (reset to EXIT). */
  run: () => number;
  /** The same work from a cold start: arguments of bin/picotpu.mjs. */
  cli: string[];
}

function cpuOnly(elfPath: string): () => number {
  const elf = readFileSync(elfPath);
  return () => {
    const m = new Machine();
    m.loadElf(elf);
    const r = m.run();
    if (r.reason !== 'exit' || r.exit !== 0) throw new Error(`${elfPath}: ${r.reason} ${r.exit}`);
    return r.clocks;
  };
}

function model(variant: number, decodeSteps: number): () => number {
  const m = randomModel(BASE_DIMS, RANDOM_SEED);
  const job: Job = { prompt: randomPrompt(BASE_DIMS, 64, RANDOM_SEED), decodeSteps, variant };
  return () => runOnEmulator(m, job).result.clocks;
}

function demo(): () => number {
  const m = loadAdder();
  const job = adderJob(randomProblem(DEMO_SEED), ADDER_VARIANT);
  return () => runOnEmulator(m, job).result.clocks;
}

const WORKLOADS: Workload[] = [
  { name: 'CPU only (bench.elf)', run: cpuOnly('build/fw/bench.elf'), cli: ['run', 'build/fw/bench.elf', '--no-report'] },
  { name: 'demo (adder, seed 1)', run: demo(), cli: ['demo', '--seed', String(DEMO_SEED)] },
  { name: 'full inference, wait tokens', run: model(WAIT_TOKENS, 64), cli: ['bench', '--only', 'full inference, wait tokens'] },
  { name: `full inference, best (variant ${BEST})`, run: model(BEST, 64), cli: [] },
  { name: 'prefill, wait tokens', run: model(WAIT_TOKENS, 0), cli: ['bench', '--only', 'prefill, wait tokens'] },
  {
    name: 'matmul 512x512x512 (MXU-bound)',
    run: () => runMatmulOnEmulator({ m: 512, k: 512, n: 512 }, VARIANT.DOUBLE_BUFFER).result.clocks,
    cli: ['bench', '--matmul', '512x512x512'],
  },
];

/** Wall seconds of `fn`, and what it returned. */
function timed<T>(fn: () => T): { seconds: number; value: T } {
  const t0 = process.hrtime.bigint();
  const value = fn();
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, value };
}

/** Wall seconds of a fresh `node bin/picotpu.mjs ...`, start-up included (the best of `runs`). */
function coldSeconds(args: string[], runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['bin/picotpu.mjs', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`picotpu ${args.join(' ')}: exit ${r.status}: ${r.stderr.toString().trim().split('\n').at(-1)}`);
    best = Math.min(best, s);
  }
  return best;
}

const rate = (clocks: number, s: number) => clocks / s;
const mhz = (r: number) => (r / 1e6).toFixed(1).padStart(7);
const rtf = (r: number) => `${(r / CLOCK_HZ).toFixed(1)}x`.padStart(7);

function main(): void {
  const argv = process.argv.slice(2);
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv[onlyAt + 1]?.toLowerCase() : undefined;
  const warmOnly = argv.includes('--warm');
  execFileSync('make', ['-s', '-C', 'firmware-c', '-j2'], { stdio: 'inherit' });
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`bench:speed — best of ${RUNS} runs each; load average ${load} on this machine`);
  console.log('workload                              |   clocks   | warm M clk/s | x 12 MHz | cold M clk/s | x 12 MHz | cold wall s');
  console.log('--------------------------------------|------------|--------------|----------|--------------|----------|------------');
  for (const w of WORKLOADS) {
    if (only && !w.name.toLowerCase().includes(only)) continue;
    const clocks = w.run(); // warm-up
    let best = Infinity;
    for (let i = 0; i < RUNS; i++) {
      const t = timed(w.run);
      if (t.value !== clocks) throw new Error(`${w.name}: ${t.value} clocks, the warm-up took ${clocks}: not deterministic`);
      best = Math.min(best, t.seconds);
    }
    const warm = rate(clocks, best);
    let coldText = '           — |        — |          —';
    if (!warmOnly && w.cli.length) {
      const s = coldSeconds(w.cli, Math.min(RUNS, 2));
      coldText = `${mhz(rate(clocks, s)).padStart(12)} | ${rtf(rate(clocks, s)).padStart(8)} | ${s.toFixed(3).padStart(10)}`;
    }
    console.log(`${w.name.padEnd(37)} | ${String(clocks).padStart(10)} | ${mhz(warm).padStart(12)} | ${rtf(warm).padStart(8)} | ${coldText}`);
  }
  if (!warmOnly) {
    const s = coldSeconds(['run', 'build/fw/hello.elf', '--no-report'], Math.max(3, RUNS));
    console.log(`CLI start: picotpu run build/fw/hello.elf completes in ${s.toFixed(3)} s wall (best of ${Math.max(3, RUNS)})`);
  }
}

main();
