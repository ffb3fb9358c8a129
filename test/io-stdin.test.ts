// Console input through standard input arrives byte for byte, streamed
// (issue #22): a pipe is read in chunks as the guest consumes RX, a read that
// would block (EAGAIN) is waited out and is not the end of the input, and a
// writer that starts late loses nothing. build/fw/echo.elf copies its input,
// upper-casing a-z, until RX reads 0xFFFF_FFFF (the end).

import { describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { hasToolchain } from '../toolchain/toolchain.ts';
import { mulberry32 } from './helpers/rng.ts';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI, elfPath, root, runCli, runShell, runShellArgs } from './helpers/cli-process.ts';

const ECHO = elfPath('echo');
const MB = 1024 * 1024;

/** What echo.elf prints for `input`. */
function upper(input: Buffer): Buffer {
  const out = Buffer.from(input);
  for (let i = 0; i < out.length; i++) if (out[i] >= 0x61 && out[i] <= 0x7a) out[i] -= 0x20;
  return out;
}

function randomBytes(n: number, seed: number): Buffer {
  const rnd = mulberry32(seed);
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 4) b.writeUInt32LE(Math.floor(rnd() * 2 ** 32) >>> 0, i);
  return b;
}

/** Runs `jobs` with at most `limit` at once. */
async function limited<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

describe.skipIf(skipWhenMissing(hasToolchain(), 'io-stdin.test.ts', 'the RISC-V toolchain', 'install: bash toolchain/ensure-toolchain.sh'))('standard input as console input', () => {
  it('yes | picotpu run echo.elf: the input is there (not taken for empty), until the cycle limit', async () => {
    const r = await runShell(`yes | "${process.execPath}" bin/picotpu.cjs run "${ECHO}" --no-report --max-cycles 2000000`);
    expect(r.status, r.stderr).toBe(162);
    // 63-64 clocks a byte: some 31,000 bytes of "Y\n" (the last line may be cut).
    expect(r.stdout.length).toBeGreaterThan(25_000);
    expect(/^(Y\n)*Y?$/.test(r.stdout.toString('latin1'))).toBe(true);
  });

  it('a writer that starts late and writes in pieces loses nothing (no read is taken for the end)', async () => {
    const r = await runCli(['run', ECHO, '--no-report'], {
      stdin: 'pipe',
      onSpawn: (child) => {
        setTimeout(() => child.stdin!.write('late '), 1500);
        setTimeout(() => child.stdin!.write('and '), 1800);
        setTimeout(() => child.stdin!.end('slow\n'), 2100);
      },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.toString()).toBe('LATE AND SLOW\n');
  });

  it.skipIf(skipWhenMissing(spawnSync('python3', ['--version']).status === 0, 'io-stdin.test.ts', 'python3', 'install: apt-get install python3'))('a non-blocking pipe whose writer is late: EAGAIN is waited out, not taken for the end', async () => {
    const r = await runShellArgs('python3', [join(root, 'test', 'helpers', 'nonblocking-pipe.py'), process.execPath, CLI, 'run', ECHO, '--no-report']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.toString()).toBe('NON-BLOCKING PIPE\n');
  });

  // Each run copies 10 MiB in about 2.7 s of emulation (63-64 clocks a byte at ~240 M clocks/s), two at a time.
  it('10 MiB piped through echo.elf 20 times: every byte back, every time', async () => {
    const runs = Array.from({ length: 20 }, (_, i) => async () => {
      const input = randomBytes(10 * MB, 0x5eed + i);
      const r = await runCli(['run', ECHO, '--no-report'], { stdin: 'pipe', onSpawn: (child) => child.stdin!.end(input), timeoutMs: 240_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.length, `run ${i}: bytes back`).toBe(input.length);
      expect(r.stdout.equals(upper(input)), `run ${i}: the same bytes`).toBe(true);
      return r.stdout.length;
    });
    const sizes = await limited(runs, 2);
    expect(sizes).toEqual(new Array(20).fill(10 * MB));
  }, 600_000);
});
