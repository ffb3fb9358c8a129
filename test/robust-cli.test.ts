// The command line under hostile input (docs/robustness.md): option values it
// does not understand, files without end given as a model, full and closed
// standard streams on every command, temporary files a killed run left behind.
// Each case ends with one line and the status docs/hardware.md §7 documents.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { elfPath, runCli, stderrLines, type CliResult } from './helpers/cli-process.ts';

const tmp = mkdtempSync(join(tmpdir(), 'picotpu-robust-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const HELLO = elfPath('hello');

/** The run ended with exactly one line on standard error, matching `line`, and `status`. */
function expectOneLine(r: CliResult, status: number, line: RegExp): void {
  expect(stderrLines(r), r.stderr).toHaveLength(1);
  expect(stderrLines(r)[0]).toMatch(line);
  expect(r.status, r.stderr).toBe(status);
}

describe('options read as written', () => {
  for (const value of ['1', 'yes', 'on', '0', 'no']) {
    it.concurrent(`--strict=${value} is refused (165), not run as non-strict`, async () => {
      const r = await runCli(['run', HELLO, '--strict=' + value]);
      expectOneLine(r, 165, new RegExp(`^picotpu: --strict is a switch: give it alone, or as --strict=true / --strict=false, got "--strict=${value}"$`));
      expect(r.stdout.length, 'nothing ran').toBe(0);
    });
  }

  it.concurrent('every command\'s booleans: --no-report=1, debug --reference=2, eval --json=x (165)', async () => {
    expectOneLine(await runCli(['run', HELLO, '--no-report=1']), 165, /^picotpu: --report is a switch/);
    expectOneLine(await runCli(['debug', HELLO, '--reference=2']), 165, /^picotpu: --reference is a switch/);
    expectOneLine(await runCli(['eval', '--json=x']), 165, /^picotpu: --json is a switch/);
  });

  it.concurrent('--strict=true and --strict=false mean what they say', async () => {
    const on = await runCli(['run', HELLO, '--strict=true', '--no-report']);
    expect([on.status, on.stdout.toString()]).toEqual([0, 'hello from picotpu\n']);
    const off = await runCli(['run', HELLO, '--strict=false', '--no-report']);
    expect(off.status).toBe(0);
  });

  it.concurrent('--config "" is an error, not the defaults (165)', async () => {
    expectOneLine(await runCli(['run', HELLO, '--config', '']), 165, /^picotpu: --config wants a file name, got ""$/);
  });

  for (const name of ['__proto__', 'constructor', 'toString']) {
    it.concurrent(`--set ${name}=1 is an unknown option (165), not dropped`, async () => {
      expectOneLine(await runCli(['run', HELLO, '--set', `${name}=1`]), 165, new RegExp(`^picotpu: unknown platform option "${name}"$`));
    });
  }
});

describe('model blobs without end are refused after 512 KiB + 1 bytes (164)', () => {
  for (const cmd of ['demo', 'eval']) {
    it.concurrent(`${cmd} --model /dev/zero`, async () => {
      const r = await runCli([cmd, '--model', '/dev/zero'], { timeoutMs: 20_000 });
      expectOneLine(r, 164, /^picotpu: cannot read \/dev\/zero: more than the 524288 bytes allowed \(a model blob must fit the 512 KiB SRAM\)$/);
    });
  }
});
