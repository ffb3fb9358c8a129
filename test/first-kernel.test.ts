// Follows docs/first-kernel.md from a folder outside the repository: copies the
// templates, takes the tutorial's kernels from the doc itself, builds each with
// the documented make line for both boards, runs them through the CLI and checks
// their results against an 8×8 int4 matmul computed here by hand. Also checks
// the playground's starting programs (web/templates.ts) are these template files.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PICOTPU_TEMPLATE, SEED_TEMPLATE } from '../web/templates.ts';
import { root, runCli } from './helpers/cli-process.ts';
import { skipWhenMissing } from './helpers/require.ts';

const GCC = 'riscv64-unknown-elf-gcc';
const hasGcc = spawnSync(GCC, ['--version']).status === 0;
const templates = join(root, 'firmware-c', 'templates');
const doc = readFileSync(join(root, 'docs', 'first-kernel.md'), 'utf8');

/** The doc's C listings by file name: each ```c block opens with a comment naming its file. */
function listings(): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of doc.matchAll(/```c\n(\/\* ([\w-]+\.c):[\s\S]*?)```/g)) out.set(m[2], m[1]);
  return out;
}

/** The documented make line; `cwd` and a relative APP exercise the caller-relative path. */
function build(app: string, board: 'picotpu' | 'seed', cwd = root): string {
  const args = ['-s', '-C', join(root, 'firmware-c'), `APP=${app}`, ...(board === 'seed' ? ['BOARD=seed'] : [])];
  execFileSync('make', args, { cwd, env: { ...process.env, PWD: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
  const name = app.replace(/^.*\//, '').replace(/\.c$/, '');
  return join(root, 'build', 'app', board, `${name}.elf`);
}

// The tutorial's matrices: A[i][k] = clamp4(i − k), B[k][j] = (k + j) mod 8 − 4.
const clamp4 = (v: number): number => Math.max(-8, Math.min(7, v));
const A = (i: number, k: number): number => clamp4(i - k);
const B = (k: number, j: number): number => ((k + j) % 8) - 4;
function product(): number[][] {
  return Array.from({ length: 8 }, (_, i) =>
    Array.from({ length: 8 }, (_, j) => {
      let s = 0;
      for (let k = 0; k < 8; k++) s += A(i, k) * B(k, j);
      return s;
    }));
}

/** The seed's MXU result with M0 = 1, N = 2: clip4((acc + 2) >> 2), packed two int4 a byte, low nibble first. */
function seedBytes(): Buffer {
  const c = product().map((row) => row.map((acc) => clamp4((acc + 2) >> 2)));
  const out = Buffer.alloc(32);
  for (let i = 0; i < 8; i++) for (let b = 0; b < 4; b++) out[i * 4 + b] = (c[i][2 * b] & 15) | ((c[i][2 * b + 1] & 15) << 4);
  return out;
}

describe('the templates', () => {
  it('are the playground editor\'s starting programs (web/templates.ts imports them)', () => {
    expect(readFileSync(join(templates, 'picotpu.c'), 'utf8')).toBe(PICOTPU_TEMPLATE);
    expect(readFileSync(join(templates, 'seed.c'), 'utf8')).toBe(SEED_TEMPLATE);
  });
  it('the doc lists both kernels it builds', () => {
    expect([...listings().keys()].sort()).toEqual(['matmul8.c', 'mm_seed.c']);
  });
});

describe.skipIf(skipWhenMissing(hasGcc, 'first-kernel.test.ts', GCC, 'install: bash toolchain/ensure-toolchain.sh'))('docs/first-kernel.md, followed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'first-kernel-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the picotpu template, copied out of the tree, builds and runs clean', async () => {
    copyFileSync(join(templates, 'picotpu.c'), join(dir, 'fk_copy.c'));
    const r = await runCli(['run', build('fk_copy.c', 'picotpu', dir)]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^run \d+ clocks/); // the performance report
    expect(r.stdout.toString()).toMatch(/^copied 1024 bytes in \d+ clocks, 0 wrong\n/);
  });

  it('the seed template builds and ends with DONE = 0', async () => {
    copyFileSync(join(templates, 'seed.c'), join(dir, 'fk_copy_seed.c'));
    const r = await runCli(['run', '--board', 'seed', build(join(dir, 'fk_copy_seed.c'), 'seed')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^run \d+ clocks/);
  });

  it('matmul8.c prints A·B, computed here by hand', async () => {
    writeFileSync(join(dir, 'matmul8.c'), listings().get('matmul8.c')!);
    const r = await runCli(['run', build(join(dir, 'matmul8.c'), 'picotpu')]);
    expect(r.status).toBe(0);
    const printed = r.stdout.toString().split('\n').slice(0, 8).map((l) => l.trim().split(/\s+/).map(Number));
    expect(printed).toEqual(product());
    expect(product()[0]).toEqual([-28, 0, 20, 32, 36, 32, 20, 0]); // the row the doc quotes
    // hardware.md's MXU timing: mxuSetup 2 + K + 2·(8 − 1) streaming + 8 write-back = 32 with K = 8.
    expect(r.stderr).toMatch(/^MXU busy 32 /m);
  });

  it('mm_seed.c leaves clip4((A·B + 2) >> 2) in SRAM at 0x100', async () => {
    writeFileSync(join(dir, 'mm_seed.c'), listings().get('mm_seed.c')!);
    const sram = join(dir, 'sram.bin');
    const r = await runCli(['run', '--board', 'seed', build(join(dir, 'mm_seed.c'), 'seed'), '--sram-out', sram]);
    expect(r.status).toBe(0);
    expect(readFileSync(sram).subarray(0x100, 0x120)).toEqual(seedBytes());
    // The RTL's timing rules (tpu_seed.h): an MM is K + 25 clocks; a spill 2 clocks a byte + 3.
    expect(r.stderr).toMatch(/^MXU busy 33 /m);
    expect(r.stderr).toMatch(/^DMA busy 67 /m);
  });
});
