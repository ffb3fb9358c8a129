// `picotpu run` and its files when things go wrong (issue #22): output files
// that cannot be written, empty paths, endless devices as inputs, a reader that
// closes standard output, SIGINT and SIGTERM mid-run. Each ends with one line
// and the status docs/hardware.md §7 documents, and every output file is
// complete (valid, marked as interrupted) or untouched.

import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { elfPath, runCli, stderrLines, type CliResult } from './helpers/cli-process.ts';

const tmp = mkdtempSync(join(tmpdir(), 'picotpu-io-'));
const HELLO = elfPath('hello');
const ECHO = elfPath('echo');

/** The run ended with exactly one line on standard error, matching `line`, and `status`. */
function expectOneLine(r: CliResult, status: number, line: RegExp): void {
  expect(stderrLines(r), r.stderr).toHaveLength(1);
  expect(stderrLines(r)[0]).toMatch(line);
  expect(r.status, r.stderr).toBe(status);
}

describe('output files that cannot be written: one line naming the file, 165', () => {
  for (const option of ['--trace', '--vcd', '--timeline', '--profile-json', '--report-json']) {
    it.concurrent(`${option} /dev/full`, async () => {
      const r = await runCli(['run', HELLO, '--no-report', option, '/dev/full']);
      expectOneLine(r, 165, new RegExp(`^picotpu: cannot write ${option} /dev/full: no space left on device \\(ENOSPC\\)$`));
    });
    // An empty path is refused by one check for every option: two of them are enough here.
    if (option === '--trace' || option === '--report-json') it.concurrent(`${option} '' is refused before the run`, async () => {
      const r = await runCli(['run', HELLO, '--no-report', option, '']);
      expectOneLine(r, 165, new RegExp(`^picotpu: ${option} wants a file name, got ""$`));
      expect(r.stdout.length, 'nothing ran').toBe(0);
    });
  }

  it.concurrent('an unwritable --report-json is found before the run: nothing runs, and its 165 is the status', async () => {
    const r = await runCli(['run', HELLO, '--no-report', '--report-json', join(tmp, 'no', 'such', 'dir', 'r.json')]);
    expectOneLine(r, 165, /^picotpu: cannot write --report-json .*: no such directory \(ENOENT\)$/);
    expect(r.stdout.length, 'nothing ran').toBe(0);
  });

  it.concurrent('two outputs on one file are refused', async () => {
    const r = await runCli(['run', HELLO, '--no-report', '--trace', join(tmp, 'same'), '--vcd', join(tmp, 'same')]);
    expectOneLine(r, 165, /^picotpu: --trace and --vcd name the same file /);
  });

  it.concurrent('a failed output leaves the other files as they were, and no temporary file', async () => {
    const dir = mkdtempSync(join(tmp, 'keep-'));
    const old = join(dir, 'p.json');
    writeFileSync(old, '{"old": true}\n');
    const r = await runCli(['run', HELLO, '--no-report', '--profile-json', old, '--trace', '/dev/full']);
    expectOneLine(r, 165, /cannot write --trace \/dev\/full/);
    expect(readFileSync(old, 'utf8')).toBe('{"old": true}\n');
    expect(readdirSync(dir)).toEqual(['p.json']);
  });
});

describe('inputs without end are refused or streamed, never read whole', () => {
  it.concurrent('run /dev/zero: a program file larger than 16 MiB is a bad program (164)', async () => {
    expectOneLine(await runCli(['run', '/dev/zero']), 164, /^picotpu: cannot read program \/dev\/zero: more than the 16777216 bytes allowed$/);
  });

  it.concurrent('--sram /dev/urandom@0: more than the 512 KiB SRAM is refused after 512 KiB + 1 bytes (164)', async () => {
    expectOneLine(await runCli(['run', HELLO, '--sram', '/dev/urandom@0']), 164,
      /^picotpu: SRAM image \/dev\/urandom at offset 0x0 does not fit the 512 KiB SRAM/);
  });

  it.concurrent('--config /dev/zero is refused (165)', async () => {
    expectOneLine(await runCli(['run', HELLO, '--config', '/dev/zero']), 165, /^picotpu: cannot read config file \/dev\/zero: more than/);
  });

  it.concurrent('--input-file /dev/zero is an endless input, streamed: echo copies it until the cycle limit (162)', async () => {
    const r = await runCli(['run', ECHO, '--no-report', '--input-file', '/dev/zero', '--max-cycles', '3000000']);
    expectOneLine(r, 162, /^picotpu: cycle limit reached after 300000\d clocks/);
    // echo.elf copies one byte in 63-64 clocks (getchar and putchar through the console).
    expect(r.stdout.length).toBeGreaterThan(40_000);
    expect(r.stdout.every((b) => b === 0)).toBe(true);
  });

  it.concurrent('eval -n 1e9 is refused: at most 100000 problems (165)', async () => {
    expectOneLine(await runCli(['eval', '-n', '1e9', '--tpu', '0']), 165, /^picotpu: --n must be at most 100000 .*got 1000000000$/);
  });
});

describe('standard output closed by its reader (| head -c1)', () => {
  it.concurrent('the run stops quietly with 141, as a tool killed by SIGPIPE', async () => {
    const report = join(tmp, 'epipe.json');
    const r = await runCli(['run', ECHO, '--input-file', '/dev/zero', '--report-json', report], {
      onStdout: (_c, child) => child.stdout!.destroy(),
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(141);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ reason: 'interrupted', signal: 'SIGPIPE', exit: 141 });
  });
});

describe('the other commands', () => {
  it.concurrent('debug: standard output closed ends the session quietly with 141', async () => {
    const r = await runCli(['debug', elfPath('fib')], {
      stdin: 'pipe',
      onSpawn: (child) => { child.stdin!.on('error', () => {}); child.stdin!.end('info registers\n'.repeat(5000)); },
      onStdout: (_c, child) => child.stdout!.destroy(),
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(141);
  });

  it.concurrent('sweep: a --results directory that cannot be made is one line and 165, before any run', async () => {
    expectOneLine(await runCli(['sweep', 'roofline', '--small', '--jobs', '1', '--results', '/dev/full/x']), 165,
      /^picotpu: cannot write --results \/dev\/full\/x: a part of the path is not a directory \(ENOTDIR\)$/);
  });
});

describe('SIGINT and SIGTERM mid-run: every output file finished validly, one line, 130 / 143', () => {
  for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it.concurrent(`${signal} under every observer`, async () => {
      const dir = mkdtempSync(join(tmp, `${signal}-`));
      const f = (n: string) => join(dir, n);
      writeFileSync(f('p.json'), 'old content\n');
      const r = await runCli(['run', ECHO, '--no-report', '--input-file', '/dev/zero', '--trace', f('t.trace'), '--vcd', f('w.vcd'),
        '--timeline', f('tl.json'), '--profile-json', f('p.json'), '--report-json', f('r.json')], {
        // The guest is running once it has printed: interrupt it then.
        onStdout: (_c, child) => { if (child.signalCode === null && !child.killed) child.kill(signal); },
      });
      expectOneLine(r, status, new RegExp(`^picotpu: interrupted at clock \\d+ \\(${signal}\\)$`));
      const clock = Number(/clock (\d+)/.exec(r.stderr)![1]);
      expect(clock).toBeGreaterThan(0);
      const trace = readFileSync(f('t.trace'), 'utf8');
      expect(trace.endsWith(`# trace interrupted at clock ${clock} (${signal}): the run stopped there\n`)).toBe(true);
      const vcd = readFileSync(f('w.vcd'), 'utf8');
      expect(vcd).toMatch(/\$enddefinitions \$end/);
      expect(vcd.endsWith(`$comment run interrupted at clock ${clock} (${signal}) $end\n`)).toBe(true);
      const timeline = JSON.parse(readFileSync(f('tl.json'), 'utf8')) as { name: string; args?: { clock?: number } }[];
      expect(timeline.at(-1)).toMatchObject({ name: `run interrupted (${signal})`, args: { clock } });
      const profile = JSON.parse(readFileSync(f('p.json'), 'utf8'));
      expect(profile.to).toBe(clock);
      expect(profile.totals.clocks).toBe(clock);
      const report = JSON.parse(readFileSync(f('r.json'), 'utf8'));
      expect(report).toMatchObject({ reason: 'interrupted', signal, exit: status, clocks: clock });
      expect(readdirSync(dir).sort(), 'no temporary file left').toEqual(['p.json', 'r.json', 't.trace', 'tl.json', 'w.vcd']);
    });
  }

  it.concurrent('SIGINT with no observer (the free-running loop, in slices)', async () => {
    const report = join(tmp, 'free.json');
    const r = await runCli(['run', ECHO, '--no-report', '--input-file', '/dev/zero', '--report-json', report], {
      onStdout: (_c, child) => { if (!child.killed) child.kill('SIGINT'); },
    });
    expectOneLine(r, 130, /^picotpu: interrupted at clock \d+ \(SIGINT\)$/);
    expect(existsSync(report)).toBe(true);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ reason: 'interrupted', signal: 'SIGINT', exit: 130 });
  });
});
