// npm run bench:speed — how fast the emulator runs, as one table: emulated
// clocks per wall second and the real-time factor against the 12 MHz board,
// for CPU-only firmware, the demo, full inference (wait tokens, and the best
// variant), a prefill and the MXU-bound 512×512×512 matmul. Each workload runs
// in this process after two warm-up runs (the best of several runs: the machine is
// shared, so the fastest run is the least disturbed one; the time of the
// emulation, Machine.run, not of building the model blob), and from a cold
// start of a fresh `node bin/picotpu.cjs` process (its whole wall time,
// start-up, blob and report included). Last, the CLI's start-up:
// `picotpu run build/fw/hello.elf` and `picotpu demo` against `node -e 0`,
// interleaved, medians, each against its goal.
// The seed board's rows: our full inference on it (build/fw/seed-model.elf
// through model/seed-run.ts, the same model and prompt as picotpu's rows,
// variant 1; its speed as a fraction of picotpu's full inference is printed
// under the table), its TPU alone on a tiled kernel stream (as
// bench:seed-tpu drives it), the ten random command streams of
// test/seed-rtl/streams (CPU over the AXI bus, and the TPU), and the seed's
// own full-inference firmware when SEED_INFER_ELF names its ELF (built outside
// this repository, docs/seed-board.md §9; skipped with a line otherwise).
// "median" is the median warm run, beside
// the best: when the two are far apart the machine was busy and the figures
// are not to be trusted (the header line says the load average, and warns
// when it exceeds the cores). "per CPU s" divides by the process's CPU
// time instead (user + system, the best run): on a loaded machine it shows
// what the emulator does when it has a core, where wall time shows the share it got.
//
//   BENCH_RUNS=5 npm run bench:speed        # timed runs per workload (default 5)
//   npm run bench:speed -- --only matmul    # rows whose name contains a word
//   npm run bench:speed -- --warm           # in-process figures only
//   npm run bench:speed -- --start          # the start's line only (node -e 0, run hello.elf, demo)

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { BASE_DIMS, RANDOM_SEED } from '../study/bench.ts';
import { defaultConfig } from '../emu/config.ts';
import { Machine } from '../boards/machine.ts';
import { ADDER_VARIANT, adderJob, loadAdder, randomProblem } from '../study/addition-run.ts';
import { VARIANT, type Job } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { runMatmulOnEmulator, runOnEmulator } from '../model/run.ts';
import { runOnSeed } from '../model/seed-run.ts';
import { drive, seedTiledStream } from '../test/helpers/seed-driver.ts';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const CLOCK_HZ = defaultConfig().clockHz;
const DEMO_SEED = 1;
const WAIT_TOKENS = VARIANT.DOUBLE_BUFFER | VARIANT.FUSED | VARIANT.FLASH | VARIANT.TOKENS; // 15
const BEST = ADDER_VARIANT; // the demo's variant: BEST_VARIANT, the fewest clocks

interface Workload {
  name: string;
  /** One run in this process: its emulated clocks (reset to EXIT) and the wall seconds of the emulation itself. */
  run: () => Sample;
  /** The same work from a cold start: arguments of bin/picotpu.cjs. */
  cli: string[];
}

/** Clocks, and the wall and CPU seconds (this process: user + system) of the emulation. */
interface Sample { clocks: number; seconds: number; cpuSeconds: number }

/** Times fn: wall and CPU seconds. */
function measure<T>(fn: () => T): { value: T; seconds: number; cpuSeconds: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const seconds = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { value, seconds, cpuSeconds: (c.user + c.system) / 1e6 };
}

function cpuOnly(elfPath: string): () => Sample {
  const elf = readFileSync(elfPath);
  return () => {
    const m = new Machine();
    m.loadElf(elf);
    const { value: r, seconds, cpuSeconds } = measure(() => m.run());
    if (r.reason !== 'exit' || r.exit !== 0) throw new Error(`${elfPath}: ${r.reason} ${r.exit}`);
    return { clocks: r.clocks, seconds, cpuSeconds };
  };
}

/** A model or matmul run's sample: the times of its emulation, as model/run.ts measured them. */
function sample(run: () => { result: { clocks: number }; wallMs: number; cpuMs: number }): Sample {
  const r = run();
  return { clocks: r.result.clocks, seconds: r.wallMs / 1000, cpuSeconds: r.cpuMs / 1000 };
}

function model(variant: number, decodeSteps: number): () => Sample {
  const m = randomModel(BASE_DIMS, RANDOM_SEED);
  const job: Job = { prompt: randomPrompt(BASE_DIMS, 64, RANDOM_SEED), decodeSteps, variant };
  return () => sample(() => runOnEmulator(m, job));
}

/** Our transformer on the seed board: the model and prompt of model(), the seed firmware's variant. */
function seedModel(variant: number): () => Sample {
  const m = randomModel(BASE_DIMS, RANDOM_SEED);
  const job: Job = { prompt: randomPrompt(BASE_DIMS, 64, RANDOM_SEED), decodeSteps: 64, variant };
  return () => sample(() => runOnSeed(m, job));
}

function demo(): () => Sample {
  const m = loadAdder();
  const job = adderJob(randomProblem(DEMO_SEED), ADDER_VARIANT);
  return () => sample(() => runOnEmulator(m, job));
}

/** ELFs on the seed board, one after the other: a board per ELF, each to its DONE store (or EXIT). */
function seedElfs(paths: string[]): () => Sample {
  const elfs = paths.map((p) => readFileSync(p));
  return () => {
    let clocks = 0, seconds = 0, cpuSeconds = 0;
    for (let i = 0; i < elfs.length; i++) {
      const m = new Machine(undefined, { board: 'seed' });
      m.loadElf(elfs[i]);
      const t = measure(() => m.run());
      if (t.value.reason !== 'exit' || t.value.exit !== 0) throw new Error(`${paths[i]}: ${t.value.reason} ${t.value.exit}`);
      clocks += t.value.clocks; seconds += t.seconds; cpuSeconds += t.cpuSeconds;
    }
    return { clocks, seconds, cpuSeconds };
  };
}

function seedTpuAlone(): () => Sample {
  const ops = seedTiledStream(1024);
  const sram = new Uint8Array(512 * 1024).map((_, i) => (i * 73 + 0x35) & 0xff);
  return () => {
    const t = measure(() => drive(false, sram.slice(), ops, undefined, 1e12, false));
    return { clocks: t.value.tpu.clock, seconds: t.seconds, cpuSeconds: t.cpuSeconds };
  };
}

/** The seed row held against picotpu's full inference (the ratio under the table), and the picotpu rows it is held against. */
const SEED_FULL = 'seed: full inference (variant 1)';
const PICOTPU_FULL = ['full inference, wait tokens', `full inference, best (variant ${BEST})`];

const SEED_STREAMS = Array.from({ length: 10 }, (_, i) => `build/seed-streams/rand_0${i}.elf`);
const SEED_INFER_ELF = process.env.SEED_INFER_ELF;

const WORKLOADS: Workload[] = [
  { name: 'CPU only (bench.elf)', run: cpuOnly('build/fw/bench.elf'), cli: ['run', 'build/fw/bench.elf', '--no-report'] },
  { name: 'demo (adder, seed 1)', run: demo(), cli: ['demo', '--seed', String(DEMO_SEED)] },
  { name: 'full inference, wait tokens', run: model(WAIT_TOKENS, 64), cli: ['bench', '--only', 'full inference, wait tokens'] },
  { name: `full inference, best (variant ${BEST})`, run: model(BEST, 64), cli: [] },
  { name: 'prefill, wait tokens', run: model(WAIT_TOKENS, 0), cli: ['bench', '--only', 'prefill, wait tokens'] },
  {
    name: 'matmul 512x512x512 (MXU-bound)',
    run: () => sample(() => runMatmulOnEmulator({ m: 512, k: 512, n: 512 }, VARIANT.DOUBLE_BUFFER)),
    cli: ['bench', '--matmul', '512x512x512'],
  },
  { name: SEED_FULL, run: seedModel(1), cli: [] },
  { name: 'seed: tiled kernel stream, TPU alone', run: seedTpuAlone(), cli: [] },
  { name: 'seed: 10 random command streams', run: seedElfs(SEED_STREAMS), cli: [] },
  ...(SEED_INFER_ELF && existsSync(SEED_INFER_ELF)
    ? [{ name: 'seed: its own full inference', run: seedElfs([SEED_INFER_ELF]), cli: ['run', '--board', 'seed', '--no-report', SEED_INFER_ELF] }]
    : []),
];

/** Wall seconds of a fresh `node bin/picotpu.cjs ...`, start-up included (the best of `runs`). */
function coldSeconds(args: string[], runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['bin/picotpu.cjs', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
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
  if (argv.includes('--start')) {
    console.log(`bench:speed --start; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on this machine (${availableParallelism()} cores)`);
    coldStart(Math.max(5, 2 * RUNS));
    return;
  }
  execFileSync('make', ['-s', '-C', 'test/seed-rtl/streams', '-j2'], { stdio: 'inherit' });
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`bench:speed — best and median of ${RUNS} runs each; load average ${load} on this machine (${availableParallelism()} cores)`);
  if (loadavg()[0] > availableParallelism()) console.log('warning: the machine is busy (load above its cores): wall figures are low and vary; see "per CPU s" and the median');
  console.log('workload                              |   clocks   | warm M clk/s | median | x 12 MHz | (per CPU s) | cold M clk/s | x 12 MHz | cold wall s');
  console.log('--------------------------------------|------------|--------------|--------|----------|-------------|--------------|----------|------------');
  const warmRates = new Map<string, number>();
  for (const w of WORKLOADS) {
    if (only && !w.name.toLowerCase().includes(only)) continue;
    const { clocks } = w.run(); // warm-up: two runs, the JIT and the WebAssembly tier-up settle in both
    w.run();
    let best = Infinity, bestCpu = Infinity;
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = w.run();
      if (t.clocks !== clocks) throw new Error(`${w.name}: ${t.clocks} clocks, the warm-up took ${clocks}: not deterministic`);
      best = Math.min(best, t.seconds);
      bestCpu = Math.min(bestCpu, t.cpuSeconds);
      times.push(t.seconds);
    }
    const median = times.sort((a, b) => a - b)[times.length >> 1];
    const warm = rate(clocks, best);
    warmRates.set(w.name, warm);
    let coldText = '           — |        — |          —';
    if (!warmOnly && w.cli.length) {
      const s = coldSeconds(w.cli, Math.min(RUNS, 2));
      coldText = `${mhz(rate(clocks, s)).padStart(12)} | ${rtf(rate(clocks, s)).padStart(8)} | ${s.toFixed(3).padStart(10)}`;
    }
    console.log(`${w.name.padEnd(37)} | ${String(clocks).padStart(10)} | ${mhz(warm).padStart(12)} | ${mhz(rate(clocks, median)).padStart(6)} | ${rtf(warm).padStart(8)} | ${mhz(rate(clocks, bestCpu)).padStart(11)} | ${coldText}`);
  }
  const seedRate = warmRates.get(SEED_FULL);
  for (const name of PICOTPU_FULL) {
    const ours = warmRates.get(name);
    if (seedRate && ours) console.log(`${SEED_FULL}: ${(seedRate / ours).toFixed(2)}x the speed of picotpu's ${name} (warm, best runs)`);
  }
  if (!SEED_INFER_ELF || !existsSync(SEED_INFER_ELF)) {
    console.log("seed: its own full inference — skipped: set SEED_INFER_ELF to the ELF built from the seed's repository (docs/seed-board.md §9)");
  }
  if (!warmOnly) coldStart(Math.max(5, 2 * RUNS));
}

/**
 * One process, node and its arguments, with scripts/thread-cpu.cjs preloaded: its wall
 * seconds, its standard output, and the CPU seconds of its main thread and of its other
 * threads (NaN where the preload could not tell: not Linux).
 */
function processRun(args: string[]): { seconds: number; stdout: string; mainCpu: number; otherCpu: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', './scripts/thread-cpu.cjs', ...args], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${r.status}: ${r.stderr.trim().split('\n').at(-1)}`);
  const cpu = /^thread-cpu main ([\d.]+) other ([\d.]+)$/m.exec(r.stderr);
  return { seconds, stdout: r.stdout, mainCpu: cpu ? Number(cpu[1]) : Number.NaN, otherCpu: cpu ? Number(cpu[2]) : Number.NaN };
}

/** The start's goals: `run hello.elf` within this many times `node -e 0`, the whole `demo` within this many seconds. */
const START_GOAL = { helloPerNode: 2, demoSeconds: 0.25 };

/**
 * The start: `node -e 0`, `picotpu run build/fw/hello.elf` (its report included) and
 * `picotpu demo --seed 1` (the demo's work on a fixed problem), whole processes, interleaved
 * (one of each in turn, so that the machine's load falls on all three alike), medians and
 * the fastest run. The demo's line also splits its median: the emulation's own wall time (as
 * the demo prints it) and the rest (Node, the start, the model, the report).
 */
function coldStart(runs: number): void {
  const node: number[] = [], hello: number[] = [], demoRun: number[] = [], demoEmu: number[] = [];
  // The CPU seconds of each process's main thread, and the demo's other threads (V8's compilers, the GC).
  const nodeCpu: number[] = [], helloCpu: number[] = [], demoCpu: number[] = [], demoOther: number[] = [];
  const helloArgs = ['bin/picotpu.cjs', 'run', 'build/fw/hello.elf'];
  const demoArgs = ['bin/picotpu.cjs', 'demo', '--seed', String(DEMO_SEED)];
  // Untimed: a command's first run after `npm run build` writes its code cache (dist/code-cache).
  processRun(helloArgs);
  processRun(demoArgs);
  for (let i = 0; i < runs; i++) {
    const z = processRun(['-e', '0']);
    node.push(z.seconds);
    nodeCpu.push(z.mainCpu);
    const hr = processRun(helloArgs);
    hello.push(hr.seconds);
    helloCpu.push(hr.mainCpu);
    const d = processRun(demoArgs);
    demoRun.push(d.seconds);
    demoCpu.push(d.mainCpu);
    demoOther.push(d.otherCpu);
    const emu = /^wall ([\d.]+) s for /m.exec(d.stdout);
    if (!emu) throw new Error('picotpu demo printed no "wall ... s for ..." line');
    demoEmu.push(Number(emu[1]));
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const min = (xs: number[]) => Math.min(...xs);
  const n = med(node), h = med(hello), d = med(demoRun), e = med(demoEmu);
  const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
  console.log(`cold start (medians of ${runs} whole processes, interleaved; fastest in brackets):`);
  const label = (text: string) => `  ${text.padEnd(32)} `;
  console.log(`${label('node -e 0')}${n.toFixed(3)} s (${min(node).toFixed(3)})`);
  console.log(`${label('picotpu run build/fw/hello.elf')}${h.toFixed(3)} s (${min(hello).toFixed(3)}): ${(h / n).toFixed(2)}x node -e 0, goal <= ${START_GOAL.helloPerNode}x: ${verdict(h / n <= START_GOAL.helloPerNode)}`);
  console.log(`${label(`picotpu demo --seed ${DEMO_SEED}`)}${d.toFixed(3)} s (${min(demoRun).toFixed(3)}), goal <= ${START_GOAL.demoSeconds} s: ${verdict(d <= START_GOAL.demoSeconds)};`
    + ` its emulation ${e.toFixed(3)} s, the rest ${(d - e).toFixed(3)} s (${(d - e - n).toFixed(3)} s above node -e 0)`);
  // Wall time moves with the machine's load; the main thread's CPU time much less: it is what the start costs.
  if (!Number.isNaN(med(demoCpu))) {
    console.log(`  CPU time of the main thread (medians): node -e 0 ${med(nodeCpu).toFixed(3)} s, run hello.elf ${med(helloCpu).toFixed(3)} s,`
      + ` demo ${med(demoCpu).toFixed(3)} s; the demo's other threads (V8's compilers, the GC) ${med(demoOther).toFixed(3)} s`);
  }
}

main();
