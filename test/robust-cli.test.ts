// The command line under hostile input (docs/robustness.md): option values it
// does not understand, files without end given as a model, full and closed
// standard streams on every command, temporary files a killed run left behind.
// Each case ends with one line and the status docs/hardware.md §7 documents.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputReadError, SharedInput } from '../emu/console-input.ts';
import { mulberry32 } from './helpers/rng.ts';
import { CLI, elfPath, root, runCli, runShell, stderrLines, type CliResult } from './helpers/cli-process.ts';

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
      expectOneLine(await runCli([cmd, '--model', tmp]), 164, /^picotpu: cannot read .*: is a directory$/);
    });
  }
});

/** `picotpu ARGS` with standard output or standard error on /dev/full (through sh), the other one collected. */
const toFull = (stream: 1 | 2, args: string[], stdin = '/dev/null') =>
  runShell(`node bin/picotpu.cjs ${args.map((a) => `'${a}'`).join(' ')} ${stream}>/dev/full <${stdin}`);

/** `picotpu ARGS` with standard error's reader gone from the start (its writes fail with EPIPE). */
function stderrClosed(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.destroy();
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

describe('a full standard output: one line, 165, on every command', () => {
  const commands: [string, string[]][] = [
    ['run', ['run', HELLO]],
    ['debug', ['debug', HELLO]],
    ['eval', ['eval', '--n', '5', '--tpu', '1']],
    ['demo', ['demo', '1+2']],
    ['bench', ['bench', '--matmul', '8x8x8']],
    ['--help', ['bench', '--help']],
  ];
  for (const [name, args] of commands) {
    it.concurrent(`${name} >/dev/full`, async () => {
      const r = await toFull(1, args);
      expectOneLine(r, 165, /^picotpu: cannot write standard output: no space left on device \(ENOSPC\)$/);
    });
  }
});

describe('a full or closed standard error changes no status', () => {
  const outcomes: [string, string[], number][] = [
    ['exit 0', ['run', HELLO], 0],
    ['cycle limit 162', ['run', HELLO, '--max-cycles', '100'], 162],
    ['bad program 164', ['run', '/dev/null'], 164],
    ['usage 165', ['run', HELLO, '--max-cycles', 'x'], 165],
    ['--boards 2, exit 0', ['run', '--boards', '2', elfPath('link_ring')], 0],
    ['debug, exit 0', ['debug', HELLO], 0],
  ];
  for (const [name, args, status] of outcomes) {
    it.concurrent(`2>/dev/full: ${name}`, async () => {
      const r = await toFull(2, args);
      expect(r.status, r.stderr).toBe(status);
    });
  }
  it.concurrent('standard error\'s reader gone: the cycle limit is still 162, the console still written', async () => {
    const r = await stderrClosed(['run', HELLO, '--max-cycles', '100']);
    expect(r.status).toBe(162);
    const ok = await stderrClosed(['run', HELLO]);
    expect([ok.status, ok.stdout]).toEqual([0, 'hello from picotpu\n']);
  });
});

describe('temporary files of a killed run', () => {
  it('a run killed by SIGKILL leaves .NAME.picotpu-PID.tmp; the next run into that directory removes it, and only the dead ones', async () => {
    const dir = mkdtempSync(join(tmp, 'kill-'));
    // echo.elf waits for console input that never comes: killed while its --trace is open.
    let killedPid = 0;
    await runCli(['run', elfPath('echo'), '--trace', join(dir, 't.log')], {
      stdin: 'pipe',
      onSpawn: (child) => {
        killedPid = child.pid!;
        const poll = setInterval(() => {
          if (readdirSync(dir).length > 0) { clearInterval(poll); child.kill('SIGKILL'); }
        }, 20);
      },
    });
    const left = `.t.log.picotpu-${killedPid}.tmp`;
    expect(readdirSync(dir)).toEqual([left]);
    // A live process's temporary file (this one's) and files of other programs stay.
    const live = `.other.picotpu-${process.pid}.tmp`;
    writeFileSync(join(dir, live), '');
    writeFileSync(join(dir, '.notes.123.tmp'), '');
    const r = await runCli(['run', HELLO, '--no-report', '--report-json', join(dir, 'r.json')]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([live, '.notes.123.tmp', 'r.json'].sort());
  });
});

describe('run --boards N: console input streamed as on one board', () => {
  const ECHO = elfPath('echo');
  it.concurrent('standard input reaches every board (echo upper-cases it)', async () => {
    const r = await runShell(`printf 'hi\\nyo\\n' | node bin/picotpu.cjs run --boards 3 --no-report ${ECHO}`);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.toString().split('\n').filter((l) => l !== '');
    for (const k of [0, 1, 2]) expect(lines.filter((l) => l.startsWith(`[${k}] `))).toEqual([`[${k}] HI`, `[${k}] YO`]);
  });

  it.concurrent('--input-file /dev/zero is streamed to every board without end, until the cycle limit (162)', async () => {
    const r = await runCli(['run', '--boards', '2', '--no-report', '--input-file', '/dev/zero', '--max-cycles', '3000000', ECHO], { keepStdout: 1 << 16 });
    expect(r.status, r.stderr).toBe(162);
    // echo.elf copies one byte in 63-64 clocks, on each board.
    expect(r.stdoutBytes).toBeGreaterThan(2 * 40_000);
  });

  it.concurrent('--input-file naming a directory or no file is a usage error (165)', async () => {
    expectOneLine(await runCli(['run', '--boards', '2', '--input-file', tmp, ECHO]), 165, /^picotpu: cannot read input file .*: is a directory$/);
    expectOneLine(await runCli(['run', '--boards', '2', '--input-file', join(tmp, 'none'), ECHO]), 165, /^picotpu: cannot read input file .*: no such file$/);
  });
});

describe('SharedInput: one read, every reader the same bytes', () => {
  /** An input of `total` bytes (i mod 251), read in pieces of at most `piece`. */
  const source = (total: number, piece: number) => {
    let at = 0;
    return { read: (into: Uint8Array) => { const n = Math.min(piece, into.length, total - at); for (let i = 0; i < n; i++) into[i] = (at + i) % 251; at += n; return n; } };
  };

  it('gives each reader the whole input, whatever the order they read in', () => {
    const rand = mulberry32(7);
    const shared = new SharedInput(source(300_000, 5000), 3, 1 << 20, 'test input');
    const got = [[], [], []] as number[][];
    const buf = new Uint8Array(777);
    for (let done = 0; done < 3;) {
      const k = Math.floor(rand() * 3);
      if (got[k].length === 300_000 && got[k].push(-1)) { done++; continue; }
      if (got[k].includes(-1)) continue;
      const n = shared.reader(k).read(buf);
      for (let i = 0; i < n; i++) got[k].push(buf[i]);
    }
    for (const g of got) {
      g.pop();
      expect(g.length).toBe(300_000);
      expect(g.every((b, i) => b === i % 251)).toBe(true);
    }
  });

  it('refuses a reader that lags more than the limit (one line), and keeps no more', () => {
    const shared = new SharedInput(source(Number.MAX_SAFE_INTEGER, 65536), 2, 1 << 20, 'standard input');
    const buf = new Uint8Array(65536);
    expect(() => { for (;;) shared.reader(0).read(buf); }).toThrow(InputReadError);
    expect(() => shared.reader(0).read(buf)).toThrow(/^cannot read standard input: one board is more than 1048576 bytes behind another/);
    expect(shared.reader(1).read(buf)).toBe(65536);
  });
});
