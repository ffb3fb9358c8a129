// The quick commands' start (bin/picotpu.cjs, scripts/build.mjs): dist/cli.cjs
// compiled with a V8 code cache that the command's first run writes into
// dist/code-cache/, which later runs use (V8 accepts it: it is not written
// again), a damaged cache is compiled around and replaced, and the output is
// the same byte for byte with a cache, without one and from the sources.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, elfPath, root } from './helpers/cli-process.ts';

const dist = join(root, 'dist');

/** Why the compiled command line cannot be tested here, or undefined when it can. */
function missing(): string | undefined {
  if (!existsSync(join(dist, 'cli.mjs'))) return 'dist/ is not built (npm run build)';
  const built = statSync(join(dist, 'cli.mjs')).mtimeMs;
  const { inputs } = JSON.parse(readFileSync(join(dist, 'inputs.json'), 'utf8')) as { inputs: string[] };
  if (inputs.some((f) => !existsSync(join(root, f)) || statSync(join(root, f)).mtimeMs > built)) return 'dist/ is older than its sources (npm run build)';
  if (!existsSync(elfPath('hello'))) return 'build/fw/hello.elf (make -C firmware-c)';
  return undefined;
}
const why = missing();
if (why) console.log(`code-cache tests skipped: ${why} is missing`);

function picotpu(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(why !== undefined)('the quick commands\' code cache', () => {
  const manifest = () => JSON.parse(readFileSync(join(dist, 'inputs.json'), 'utf8')) as { quick: { commands: string[]; hash: string } };
  const cacheOf = (command: string) => join(dist, 'code-cache', `${command}-${manifest().quick.hash}.bin`);
  const args = ['run', elfPath('hello')];

  it('names the quick commands and the bundle\'s hash; the bundle is ASCII (read as Latin-1)', () => {
    const { quick } = manifest();
    expect(quick.commands).toEqual(expect.arrayContaining(['run', 'demo', 'eval', 'debug', 'gdb']));
    expect(quick.hash).toMatch(/^[0-9a-f]{16}$/);
    const bundle = readFileSync(join(dist, 'cli.cjs'));
    expect(bundle.every((b) => b < 0x80)).toBe(true);
  });

  it('the first run writes the cache, the next uses it (not rewritten), output identical', () => {
    rmSync(cacheOf('run'), { force: true });
    const first = picotpu(args);
    expect(first.status).toBe(0);
    expect(existsSync(cacheOf('run'))).toBe(true);
    const written = statSync(cacheOf('run')).mtimeMs;
    const cache = readFileSync(cacheOf('run'));
    const second = picotpu(args);
    expect(second).toEqual(first);
    expect(statSync(cacheOf('run')).mtimeMs).toBe(written);
    expect(readFileSync(cacheOf('run')).equals(cache)).toBe(true);
  });

  it('a damaged cache is compiled around and replaced; output identical', () => {
    const good = picotpu(args);
    writeFileSync(cacheOf('run'), Buffer.alloc(4096, 0x5a));
    const damaged = picotpu(args);
    expect(damaged).toEqual(good);
    expect(readFileSync(cacheOf('run')).equals(Buffer.alloc(4096, 0x5a))).toBe(false);
  });

  it('a model run\'s young generation grows to its full size at its first growth (--semi-space-growth-factor), a small run\'s as V8 grows it', () => {
    // A preload (a Node option, not a V8 flag: the code cache stays valid) prints the new space's size at exit.
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-gc-'));
    const preload = join(dir, 'new-space.cjs');
    writeFileSync(preload, "process.on('exit', () => { const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); require('node:fs').writeSync(2, `new_space ${s.space_size}\\n`); });\n");
    const newSpace = (command: string[]) => {
      const r = spawnSync(process.execPath, ['--require', preload, CLI, ...command], { cwd: root, encoding: 'utf8' });
      expect(r.status).toBe(0);
      return Number(/new_space (\d+)/.exec(r.stderr)![1]);
    };
    try {
      // With V8's default growth (doubling from 1 MB) the demo ends with 4 MB, and so does run hello.elf.
      const MB = 2 ** 20;
      expect(newSpace(['demo', '--seed', '1'])).toBeGreaterThanOrEqual(16 * MB);
      expect(newSpace(args)).toBeLessThanOrEqual(4 * MB);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the same output and status from the sources, for a run and for a bad command line', () => {
    for (const a of [args, ['run', '--no-such-option', elfPath('hello')]]) {
      expect(picotpu(a)).toEqual(picotpu(a, { PICOTPU_FROM_SOURCE: '1' }));
    }
  });
});
