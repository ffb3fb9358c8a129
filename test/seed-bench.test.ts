// `picotpu bench --board seed` and `bench --post` (study/seed-bench.ts,
// study/bench-post.ts): the prefill of the write-up's shape run on the
// write-up's board, golden-exact and held to the analytic busy clocks; the
// MXU account against the seed's infer.c summing to the write-up's figures;
// the --post tables from a canned result; the usage errors.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../emu/exit-status.ts';
import { SEED_BEST_VARIANT, SEED_RUNGS, SEED_VARIANT, type ModelDims } from '../model/format.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { predictSeedBusy } from '../model/seed-analytic.ts';
import { runOnTarget } from '../model/target-run.ts';
import { MODEL_TARGETS, modelTargetOf } from '../model/targets.ts';
import { BASE_DIMS, RANDOM_SEED } from '../study/bench.ts';
import { formatPost, postGains, postJson, WRITE_UP_GAINS, type PostResult } from '../study/bench-post.ts';
import {
  formatSeedBench, goldenMismatch, mxuAccount, RTL_FIGURES, runSeedBench, SEED_EXPERIMENTS, seedBenchObject, WRITE_UP_DECODE_STEPS,
  WRITE_UP_FIGURES, WRITE_UP_PROMPT, type SeedBenchResult, type SeedExperimentResult,
} from '../study/seed-bench.ts';

const seedTarget = MODEL_TARGETS.find((t) => t.board === 'transformer-tpu-int4')!;
const cli = (args: string[]) => spawnSync(process.execPath, ['bin/picotpu.cjs', ...args], { encoding: 'utf8', timeout: 120_000 });

describe('bench --board seed: the prefill of the write-up\'s shape', () => {
  const b = runSeedBench(seedTarget, 12_000_000, { only: ['prefill, base'] });

  it('runs golden-exact with the analytic busy clocks exactly and a run above its bound', () => {
    expect(b.experiments.map((e) => e.name)).toEqual(['prefill, base']);
    const e = b.experiments[0];
    expect(e.golden).toEqual({ equal: true, mismatch: null });
    expect({ mxu: e.counters.mxuBusy, vpu: e.counters.vpuBusy, dma: e.counters.dmaBusy }).toEqual(e.analytic);
    expect(e.counters.cycles).toBeGreaterThanOrEqual(e.bound);
    // The schedule model's run clocks (model/seed-schedule.ts) within 2 % (the bar).
    expect(Math.abs(e.predicted!.runClocks - e.counters.cycles) / e.counters.cycles).toBeLessThan(0.02);
    expect(e.writeUp).toEqual(WRITE_UP_FIGURES['prefill, base']);
    expect(e.rtl).toEqual(RTL_FIGURES['prefill, base']);
  });

  it('accounts for the MXU gap to the write-up\'s 1,097,010 exactly', () => {
    const a = b.experiments[0].mxuNote!;
    expect(a.writeUp).toBe(1097010);
    expect(a.accounted).toBe(true);
    expect(a.ours + a.terms.reduce((s, t) => s + t.clocks, 0)).toBe(1097010);
    const text = formatSeedBench(b);
    expect(text).toMatch(/= 1097010, the write-up's figure exactly/);
    expect(text).toMatch(/^prefill, base +\| +exact \|/m);
  });

  it('--json carries the board and the firmware', () => {
    const j = seedBenchObject(b);
    expect(j.board).toBe('transformer-tpu-int4');
    expect(j.firmware).toBe('build/fw/seed-model.elf');
  });
});

describe('the MXU account against the seed\'s infer.c', () => {
  // Our MXU busy from the analytic model (test/seed-analytic.test.ts holds it to the measured counters).
  const bounds = randomModel(BASE_DIMS, RANDOM_SEED).layers;
  const cases: [string, number, number, number][] = [
    ['full inference, base', 0, WRITE_UP_DECODE_STEPS, 9752832],
    ['full inference, double-buffered', SEED_VARIANT.DOUBLE_BUFFER, WRITE_UP_DECODE_STEPS, 9752832],
    ['prefill, fused', SEED_VARIANT.DOUBLE_BUFFER | SEED_VARIANT.FUSED, 0, 1097010],
  ];
  it.each(cases)('%s: ours + the terms = the write-up\'s %s', (name, variant, steps, writeUpMxu) => {
    expect(WRITE_UP_FIGURES[name].mxu).toBe(writeUpMxu);
    const ours = predictSeedBusy(BASE_DIMS, bounds, WRITE_UP_PROMPT, steps + 1, variant).mxu;
    const a = mxuAccount(BASE_DIMS, WRITE_UP_PROMPT, steps + 1, variant, ours, writeUpMxu)!;
    expect(a.accounted).toBe(true);
    expect(ours).not.toBe(writeUpMxu);
  });

  it('the one-layer T = 256 standard-attention shape: every key is present, so only the head and the fusion differ', () => {
    const dims: ModelDims = { ...BASE_DIMS, layers: 1, maxSeq: 256 };
    const variant = SEED_VARIANT.DOUBLE_BUFFER | SEED_VARIANT.FUSED;
    const ours = predictSeedBusy(dims, [{ bound1: 7, bound2: 7 }], 256, 1, variant).mxu;
    const a = mxuAccount(dims, 256, 1, variant, ours, WRITE_UP_FIGURES['T=256, 1 layer, fused, standard attention'].mxu)!;
    expect(a.terms[0].clocks).toBe(0);
    expect(a.accounted).toBe(true);
  });

  it('an account that does not sum says so', () => {
    expect(mxuAccount(BASE_DIMS, 64, 1, 0, 1005568 + 1, 1097010)!.accounted).toBe(false);
    expect(mxuAccount(BASE_DIMS, 64, 1, SEED_VARIANT.FLASH, 1, 2)).toBeNull();
  });
});

describe('the golden check fails loudly', () => {
  it('a changed token or logit is a mismatch, and the row and the run say FAILED', () => {
    const dims: ModelDims = { d: 16, dFF: 32, heads: 2, layers: 1, vocab: 16, maxSeq: 16 };
    const model = randomModel(dims, 3);
    const job = { prompt: randomPrompt(dims, 5, 3), decodeSteps: 2, variant: 0 };
    const r = runOnTarget(seedTarget, model, job);
    expect(goldenMismatch(model, job, r)).toBeNull();
    r.logits[1][0] ^= 1;
    expect(goldenMismatch(model, job, r)).toMatch(/logits of token 1/);
    r.tokens[0] ^= 1;
    expect(goldenMismatch(model, job, r)).toMatch(/^tokens/);
  });
});

/** A canned run of the write-up's rows: each board's run clocks and DMA as given. */
function canned(): PostResult {
  const row = (name: string, cycles: number, dmaBusy: number) => ({ name, counters: { cycles, dmaBusy }, golden: { equal: true, mismatch: null } });
  const pico = [
    row('full inference, base', 1000, 10), row('full inference, double-buffered', 900, 10),
    row('prefill, base', 200, 10), row('prefill, double-buffered', 100, 10), row('prefill, fused', 90, 10),
    row('T=256, 1 layer, fused, standard attention', 400, 100), row('T=256, 1 layer, fused, FlashAttention', 300, 50),
  ];
  const seed = pico.map((r) => ({ ...r, counters: { ...r.counters, cycles: r.counters.cycles * 2 } }));
  return {
    picotpu: { board: 'picotpu', experiments: pico as never },
    seed: { board: 'transformer-tpu-int4', firmware: 'f', experiments: seed as unknown as SeedExperimentResult[], notRun: [], derived: [], clockHz: 1, reference: false, wallMs: 1, emulatedClocks: 1 } satisfies SeedBenchResult,
  };
}

describe('bench --post from a canned result', () => {
  it('states each gain as the write-up does, beside its figures\' own and each board\'s', () => {
    const g = postGains(canned());
    expect(g.map((x) => x.stated)).toEqual([-18, -9, -24, -15, -32]);
    expect(g.map((x) => x.writeUp.toFixed(1))).toEqual(['-18.2', '-9.3', '-24.0', '-14.8', '-32.2']);
    expect(g.map((x) => x.picotpu)).toEqual([-10, -50, -10, -25, -50]);
    expect(g.map((x) => x.seed)).toEqual([-10, -50, -10, -25, -50]);
    expect(g[0].rtl!.toFixed(1)).toBe('-19.3');
  });

  it('prints the run table and the gains table', () => {
    const text = formatPost(canned());
    expect(text).toContain('full inference, base                      | 57,695,827 |         1,000 |                    75,596,790 |            2,000 |  exact');
    expect(text).toContain('double buffering, full inference          |           −18 % |            −18.2 % |       −10.0 % |                       −19.3 % |          −10.0 %');
    expect(text).toContain('FlashAttention, T=256 one layer, DMA busy |           −32 % |            −32.2 % |       −50.0 % |                       −21.6 % |          −50.0 %');
    expect(text).not.toMatch(/FAILED|NOT RUN/);
  });

  it('a refused or mismatched seed row is said, not hidden', () => {
    const p = canned();
    p.seed.notRun.push({ name: 'T=256, 1 layer, fused, FlashAttention', reason: 'STATUS 2' });
    (p.seed.experiments[0].golden as { equal: boolean }).equal = false;
    const text = formatPost(p);
    expect(text).toMatch(/NOT RUN on the seed board: T=256, 1 layer, fused, FlashAttention/);
    expect(text).toMatch(/FAILED: not golden-exact on the seed board: full inference, base/);
  });

  it('--json carries each board', () => {
    const j = JSON.parse(postJson({ ...canned(), picotpu: { board: 'picotpu', experiments: [] } }));
    expect(j.boards.map((b: { board: string }) => b.board)).toEqual(['picotpu', 'transformer-tpu-int4']);
    expect(j.gains).toHaveLength(WRITE_UP_GAINS.length);
  });
});

describe('bench --board: the command line', () => {
  it('every write-up row and every rung of the ladder has an experiment on the seed board', () => {
    for (const name of Object.keys(WRITE_UP_FIGURES)) expect(SEED_EXPERIMENTS.map((e) => e.name)).toContain(name);
    const fulls = SEED_EXPERIMENTS.filter((e) => e.decodeSteps === WRITE_UP_DECODE_STEPS).map((e) => e.variant);
    for (const rung of SEED_RUNGS) expect(fulls, rung.name).toContain(rung.value);
    expect(SEED_EXPERIMENTS.filter((e) => e.variant === SEED_BEST_VARIANT).length).toBeGreaterThanOrEqual(2);
    expect(modelTargetOf('transformer-tpu-int4')).toBe(seedTarget);
  });

  it.each([
    [['--board', 'seed', '--matmul', '8x8x8'], /--matmul is not supported/],
    [['--board', 'seed', '--layer'], /--layer is not supported/],
    [['--board', 'transformer-tpu-int4', '--devices', '2'], /--devices is not supported/],
    [['--board', 'seed', '--variant', '3'], /--variant is not supported/],
    [['--board', 'nosuch'], /unknown board "nosuch"/],
    [['--post', '--board', 'seed'], /leave out --board/],
    [['--post', '--only', 'prefill'], /leave out --only/],
    [['--board', 'seed', '--only', 'nothing like it'], /no experiment matches --only "nothing like it"/],
  ])('bench %j: one line and exit 165', (args, message) => {
    const r = cli(['bench', ...args]);
    expect(r.status, r.stderr).toBe(EXIT.USAGE);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('bench --board seed --json --only "prefill, base" prints the board and the row, exit 0', () => {
    const r = cli(['bench', '--board', 'seed', '--json', '--only', 'prefill, base']);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.board).toBe('transformer-tpu-int4');
    expect(j.experiments.map((e: { name: string }) => e.name)).toEqual(['prefill, base']);
  });

  it('bench --json (our board) carries the board', () => {
    const r = cli(['bench', '--json', '--only', 'prefill, base']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).board).toBe('picotpu');
  });
});
