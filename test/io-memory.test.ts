// Memory stays bounded under every observer at once (issue #22): 5,000,000
// TPU commands (build/fw/tpu_flood.elf) with --profile, --profile-json,
// --trace, --vcd and --timeline, and a small --trace-limit so the files stay
// small. Before the observers released the TPU's command records
// (emu/observe/observer.ts) every command was kept: 2 M commands took 1.21 GB.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { hasToolchain } from '../toolchain/toolchain.ts';
import { elfPath, root, runCli } from './helpers/cli-process.ts';

const tmp = mkdtempSync(join(tmpdir(), 'picotpu-mem-'));
const MAX_RSS_KIB = 300 * 1024;

describe.skipIf(skipWhenMissing(hasToolchain(), 'io-memory.test.ts', 'the RISC-V toolchain', 'install: bash toolchain/ensure-toolchain.sh'))('5 M TPU commands under every observer', () => {
  it('stay under 300 MB of resident memory, and every file is complete', async () => {
    const f = (n: string) => join(tmp, n);
    const r = await runCli(['run', elfPath('tpu_flood'), '--no-report', '--profile', '--profile-json', f('p.json'), '--trace', f('t.trace'),
      '--trace-limit', '1000', '--vcd', f('w.vcd'), '--timeline', f('tl.json'), '--report-json', f('r.json')], {
      nodeArgs: ['--import', join(root, 'test', 'helpers', 'print-max-rss.mjs')], timeoutMs: 280_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.toString()).toBe('tpu_flood: 5000000 VPU commands, error 0x0\n');
    const rss = Number(/maxrss-kib (\d+)/.exec(r.stderr)![1]);
    expect(rss, `peak RSS ${(rss / 1024).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_KIB);
    const profile = JSON.parse(readFileSync(f('p.json'), 'utf8'));
    expect(profile.units.find((u: { unit: string }) => u.unit === 'VPU').commands).toBe(5_000_000);
    // Each ReLU of one 8-element row is busy 3 clocks (setup 2 + 1 row).
    expect(profile.totals.busy.VPU).toBe(15_000_000);
    expect(readFileSync(f('t.trace'), 'utf8')).toMatch(/# trace truncated after 1000 instructions .*\n$/);
    expect(readFileSync(f('w.vcd'), 'utf8')).toMatch(/\$comment trace limit of 1000 value changes reached \$end\n$/);
    expect(JSON.parse(readFileSync(f('tl.json'), 'utf8')).length).toBeGreaterThan(1000);
    expect(JSON.parse(readFileSync(f('r.json'), 'utf8')).counters.vpuBusy).toBe(15_000_000);
  }, 300_000);
});
