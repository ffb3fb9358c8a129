// Our transformer on the seed board (build/fw/seed-model.elf, from
// firmware-c/seed-model/model.c and chained.c): every variant of the ladder
// (base, double-buffered, fused, FlashAttention, chained weights, pipelined
// prefill and their combinations) gives the
// golden model's tokens, logits and K/V caches on random models and prompts;
// a model the seed cannot compute is refused; the program and its deepest
// stack fit the 16 KB firmware RAM, and it has no divide instruction (the
// core has ENABLE_DIV = 0). `demo --board seed` and `eval --board seed` on
// the trained adder.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseElf } from '../emu/elf.ts';
import type { StepInfo } from '../emu/stepper.ts';
import { headerOffset, type Job, type Model, type ModelDims } from '../model/format.ts';
import { runGolden } from '../model/golden.ts';
import { randomModel, randomPrompt } from '../model/random.ts';
import { EXIT } from '../emu/exit-status.ts';
import { SEED_BEST_VARIANT } from '../model/format.ts';
import { buildSeedBlob, runOnSeed, SEED_MODEL_ELF, SEED_VARIANT_ALL, seedMachineFor, seedVariantName } from '../model/seed-run.ts';
import { withFigures } from '../boards/machine.ts';
import { expectGolden } from './helpers/model-checks.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The job on the seed board equals the golden model (tokens, logits, KV caches: helpers/model-checks.ts). */
function expectGoldenOnSeed(model: Model, job: Job): number {
  const r = runOnSeed(model, job);
  expectGolden(model, r, job);
  return r.result.clocks;
}

const SHAPES: { dims: ModelDims; prompt: number; steps: number }[] = [
  // Two row blocks with a partial one, P·V over a K that is not a multiple of 8.
  { dims: { d: 16, dFF: 32, heads: 2, layers: 2, vocab: 16, maxSeq: 32 }, prompt: 11, steps: 5 },
  // Three heads of 8, one layer, a one-token prompt.
  { dims: { d: 24, dFF: 16, heads: 3, layers: 1, vocab: 8, maxSeq: 16 }, prompt: 1, steps: 6 },
  // A full 8-row block and d_ff wider than d.
  { dims: { d: 32, dFF: 64, heads: 4, layers: 1, vocab: 16, maxSeq: 24 }, prompt: 8, steps: 4 },
];

describe('the ladder on the seed board equals the golden model', () => {
  for (let variant = 0; variant <= SEED_BEST_VARIANT; variant++) {
    it(`variant ${variant} (${seedVariantName(variant)})`, () => {
      SHAPES.forEach(({ dims, prompt, steps }, i) => {
        const model = randomModel(dims, 1000 + 17 * variant + i);
        expectGoldenOnSeed(model, { prompt: randomPrompt(dims, prompt, variant * 3 + i), decodeSteps: steps, variant });
      });
    });
  }

  it('stops after the stop token, as the golden model does', () => {
    const { dims } = SHAPES[0];
    const model = randomModel(dims, 7);
    for (const variant of [SEED_VARIANT_ALL, SEED_BEST_VARIANT]) {
      const job = { prompt: randomPrompt(dims, 6, 2), decodeSteps: 8, variant };
      const free = runGolden(model, job);
      const stopToken = free.tokens[2];
      const r = runOnSeed(model, { ...job, stopToken });
      expect(r.tokens).toEqual(runGolden(model, { ...job, stopToken }).tokens);
      expect(r.tokens.at(-1)).toBe(stopToken);
      expect(r.tokens.length).toBeLessThanOrEqual(3);
    }
  });
});

describe('the streamed prefill (a prompt the resident plan cannot hold) equals the golden model', () => {
  // The write-up's T = 256 row: one layer, a 256-token prompt, standard attention and FlashAttention.
  const T256: ModelDims = { d: 128, dFF: 512, heads: 4, layers: 1, vocab: 16, maxSeq: 256 };
  for (const variant of [3, 7]) {
    it(`T = 256, one layer, variant ${variant} (${seedVariantName(variant)})`, () => {
      const model = randomModel(T256, 1);
      expectGoldenOnSeed(model, { prompt: randomPrompt(T256, 256, 1), decodeSteps: 0, variant });
    });
  }
  it('two layers, a partial last chunk, every write-up bit and the best rung', () => {
    const dims: ModelDims = { d: 32, dFF: 64, heads: 2, layers: 2, vocab: 16, maxSeq: 200 };
    for (const variant of [0, 1, 2, 4, SEED_BEST_VARIANT]) {
      const model = randomModel(dims, 7 + variant);
      expectGoldenOnSeed(model, { prompt: randomPrompt(dims, 150, variant), decodeSteps: 0, variant });
    }
  });
});

describe('the prefill window (splitPrefill)', () => {
  it('the free run stopped at prefill_done() (a breakpoint) takes the counters the stepped PrefillMark does', () => {
    const { dims } = SHAPES[0];
    const model = randomModel(dims, 11);
    const job = { prompt: randomPrompt(dims, 9, 4), decodeSteps: 3, variant: 1 };
    let steps = 0;
    const counting = { step: () => { steps++; }, finish: () => {} }; // an observer: the stepped path
    const free = runOnSeed(model, job, { splitPrefill: true });
    const stepped = runOnSeed(model, job, { splitPrefill: true, observers: [counting] });
    expect(steps).toBe(stepped.result.instret);
    expect(free.windows).toHaveLength(2);
    expect(free.windows).toEqual(stepped.windows);
    expect(free.windows[0].cycles).toBeGreaterThan(0);
    expect(free.windows[0].cycles).toBeLessThan(free.result.clocks);
    expect([free.result.clocks, free.result.instret, free.result.seedCounters]).toEqual([stepped.result.clocks, stepped.result.instret, stepped.result.seedCounters]);
    expect(free.tokens).toEqual(stepped.tokens);
    expect(runOnSeed(model, job).result.clocks).toBe(free.result.clocks); // the breakpoint costs no clock
  });
});

describe('what the seed firmware refuses', () => {
  it('a header it cannot run ends with STATUS 2 and DONE value 2', () => {
    const dims = SHAPES[0].dims;
    const { bytes } = buildSeedBlob(randomModel(dims, 3), { prompt: [1, 2, 3], decodeSteps: 1, variant: 0 });
    new DataView(bytes.buffer).setUint32(headerOffset('W_OUT_T'), 0, true); // no transposed head
    const { m } = seedMachineFor(randomModel(dims, 3), { prompt: [1, 2, 3], decodeSteps: 1, variant: 0 });
    m.loadSram(bytes, 0);
    const r = m.run(10_000_000);
    expect(r.doneValue).toBe(2);
    expect(new DataView(m.sramBytes.buffer, m.sramBytes.byteOffset).getUint32(headerOffset('STATUS'), true)).toBe(2);
  });

  it('a model beyond the seed arithmetic is refused on the host with the reason', () => {
    const model = randomModel(SHAPES[0].dims, 3);
    model.layers[1].bound1 = 4;
    expect(() => buildSeedBlob(model, { prompt: [1], decodeSteps: 0, variant: 0 })).toThrow(/hardtanh bound 4/);
  });
});

describe('the program fits the board', () => {
  it('code, data, bss and the deepest stack of a run fit the 16 KB firmware RAM; no divide instruction', () => {
    const image = readFileSync(SEED_MODEL_ELF);
    const elf = parseElf(image);
    // The end of everything loaded: .bss, then chained.c's .noinit state.
    const bssEnd = Math.max(...elf.segments.map((seg) => seg.vaddr + seg.memsz));
    expect(bssEnd).toBeGreaterThanOrEqual(elf.symbols.lookup('__bss_end')!.addr);
    const stackTop = elf.symbols.lookup('__stack_top')!.addr;
    expect(stackTop).toBe(16 * 1024);
    // The deepest sp of a run with every variant bit on (the longest call chain).
    const dims = SHAPES[0].dims;
    const { m } = seedMachineFor(randomModel(dims, 5), { prompt: randomPrompt(dims, 9, 1), decodeSteps: 2, variant: SEED_BEST_VARIANT });
    let minSp = stackTop;
    const observer = { step: (info: StepInfo) => { if (info.rd === 2 && info.rdValue < minSp) minSp = info.rdValue; }, finish: () => {} };
    return import('../emu/observe/observer.ts').then(({ runObserved }) => {
      const r = withFigures(runObserved(m, 100_000_000, [observer]));
      expect(r.doneValue).toBe(0);
      expect(minSp, `stack reaches 0x${minSp.toString(16)}, bss ends at 0x${bssEnd.toString(16)}`).toBeGreaterThan(bssEnd);
      const lst = readFileSync(join(root, 'build', 'fw', 'seed-model.lst'), 'utf8');
      expect(lst).not.toMatch(/\t(div|divu|rem|remu)\s/);
    });
  });
});

describe('demo and eval --board seed', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), ...args], { encoding: 'utf8', timeout: 300_000 });
  const haveAdder = existsSync(join(root, 'models', 'adder.ptm'));

  it.skipIf(!haveAdder)('demo --board seed 1234+5678 prints sum 6912, correct yes and the three reports', () => {
    const r = cli(['demo', '--board', 'seed', '1234+5678']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sum {7}6912$/m);
    expect(r.stdout).toMatch(/^correct {3}yes$/m);
    expect(r.stdout).toMatch(/on build\/fw\/seed-model\.elf, the write-up's board \(transformer-tpu-int4\), variant 4095 \(double-buffered\+fused\+FlashAttention\+chained weights\+pipelined prefill\)/);
    const runs = [...r.stdout.matchAll(/^run (\d+) clocks/gm)].map((m) => Number(m[1]));
    expect(runs).toHaveLength(3);
    expect(runs[0] + runs[1]).toBe(runs[2]); // prefill + decode = the one window
    expect(r.stdout).toMatch(/emulated clocks \(run pulse to DONE\)/);
  }, 300_000);

  it.skipIf(!haveAdder)('eval --board seed holds the board to the golden model', () => {
    const r = cli(['eval', '--board', 'seed', '--n', '2', '--tpu', '1']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/TPU: build\/fw\/seed-model\.elf on the emulated board, the write-up's board \(transformer-tpu-int4\)/);
    expect(r.stdout).toMatch(/tokens identical to the golden model's: 1\/1; logits identical: 1\/1/);
  }, 300_000);

  it('an unknown --board is a usage error', () => {
    const r = cli(['demo', '--board', 'nope', '1+1']);
    expect(r.status).toBe(EXIT.USAGE);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown board "nope"/);
  });
});

describe('demo and eval name a board, not a branch', () => {
  it('every board of the model targets is a board of the registry, and its firmware is the runner\'s', async () => {
    const { MODEL_TARGETS } = await import('../model/targets.ts');
    const { boardNamed } = await import('../boards/registry.ts');
    const { targetElf } = await import('../model/target-run.ts');
    for (const t of MODEL_TARGETS) {
      expect(boardNamed(t.board).name).toBe(t.board);
      expect(targetElf(t).endsWith(t.firmware)).toBe(true);
    }
  });
});
