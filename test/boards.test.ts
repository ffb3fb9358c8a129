// Boards as data (emu/board.ts, boards/, docs/boards.md). A board registered
// from a test fixture (RAM and a console, no TPU: test/fixtures/) runs `hello`
// under run, --trace, --report-json, debug and gdb; every board's map agrees
// with the bus it builds; and what the two-way board switch got wrong stays
// fixed: the GDB stub's phantom SRAM on the write-up's board, settings that
// board silently ignored, an ELF run on the wrong board (on the command line
// and in the playground), `--board` as a board index, and `--set`/`--sram`
// swallowing the program.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { allBoards, BOARDS, boardNamed, registerBoard } from '../boards/registry.ts';
import { Machine } from '../boards/machine.ts';
import { Machine as CoreMachine } from '../emu/machine.ts';
import { defaultConfig } from '../emu/config.ts';
import { EXIT } from '../emu/exit-status.ts';
import { serveGdb } from '../emu/debug/gdb-server.ts';
import { elfPath, root, runCli, type CliResult } from './helpers/cli-process.ts';
import { Rsp } from './helpers/rsp.ts';
import { RAM_CONSOLE } from './fixtures/ram-console-board.ts';

const HELLO = elfPath('hello');
const SEED_DONE = join(root, 'build', 'fw', 'seed', 'done.elf');
const FIXTURE_CLI = join(root, 'test', 'helpers', 'cli-with-fixture-board.mjs');
const dir = mkdtempSync(join(tmpdir(), 'picotpu-boards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

registerBoard(RAM_CONSOLE);

/** The command line with the fixture board registered (its one registry line). */
function fixtureCli(args: string[], stdin = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE_CLI, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`fixture cli ${args.join(' ')}: timed out`)); }, 60_000);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.stdin.end(stdin);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(out), stderr });
    });
  });
}

const lines = (r: CliResult) => r.stderr.split('\n').filter((l) => l !== '');

/** hello's clocks on picotpu: the fixture board has the same CPU, memory interface and console timing, so the same clocks. */
const picotpuHello = (() => {
  const m = new Machine();
  m.loadElf(readFileSync(HELLO));
  return m.run(1_000_000);
})();

describe('a fixture board (RAM and a console, no TPU), added by one registry line', () => {
  it('run --trace --report-json: hello prints, with picotpu\'s clocks, a trace and the board\'s report', async () => {
    const trace = join(dir, 'fx.trace'), json = join(dir, 'fx.json');
    const r = await fixtureCli(['run', '--board', 'ram-console', HELLO, '--trace', trace, '--report-json', json, '--no-report']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe('hello from picotpu\n');
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report).toMatchObject({ board: 'ram-console', reason: 'exit', exit: 0, clocks: picotpuHello.clocks, instret: picotpuHello.instret });
    const traced = readFileSync(trace, 'utf8').split('\n').filter((l) => /^\s*\d+ 0x/.test(l));
    expect(traced.length).toBe(picotpuHello.instret);
  });

  it('debug: breaks in main, shows the board\'s units and memories, runs to the exit', async () => {
    const r = await fixtureCli(['debug', '--board', 'ram-console', HELLO], 'break main\ncontinue\ninfo units\nx 0x40000000\ncontinue\nquit\n');
    expect(r.status).toBe(0);
    const out = r.stdout.toString();
    expect(out).toContain('Breakpoint 1, 0x00000044 <main>');
    expect(out).toContain('no TPU on this board');
    // The fixture has no SRAM: the debugger says what it can read instead of showing memory the board does not have.
    expect(out).toContain('x: 0x40000000 is unmapped; x reads the RAM (0x00000000..)');
    expect(out).toContain(`program exited with status 0 at clock ${picotpuHello.clocks} (${picotpuHello.instret} instructions)`);
  });

  it('gdb: stops at reset, reads the RAM, refuses an address outside it, runs to the exit (W00)', async () => {
    const m = new Machine(undefined, { board: 'ram-console' });
    m.loadElf(readFileSync(HELLO));
    let onPort!: (p: number) => void;
    const port = new Promise<number>((res) => { onPort = res; });
    const status = serveGdb(m, { port: 0, onListening: onPort, log: () => {} });
    const c = await Rsp.open(await port);
    try {
      expect(await c.send('?')).toMatch(/^T05/);
      expect(await c.send('m0,4')).toBe(Buffer.from(m.bus.bram.subarray(0, 4)).toString('hex'));
      expect(await c.send('m40000000,4')).toBe('E14');
      expect(await c.monitor('units')).toBe('no TPU on this board\n');
      expect(await c.send('c')).toBe('W00');
    } finally {
      c.close();
    }
    expect(await status).toBe(0);
    expect(m.cpu.instret).toBe(picotpuHello.instret);
  });
});

describe('every board as data', () => {
  it('its map agrees with the bus it builds: the firmware RAM is the CPU\'s, every other region answers at its base', () => {
    for (const board of allBoards()) {
      const m = new CoreMachine(defaultConfig(), { board });
      expect(board.map[0], board.name).toMatchObject({ base: 0, size: board.ramSize });
      expect(m.cpu.ramSize, board.name).toBe(board.ramSize);
      for (const region of board.map.slice(1)) {
        m.bus.read(region.base, 0);
        expect(m.bus.fault, `${board.name}: ${region.name}`).toBe(false);
      }
      // The memories the debugger and GDB may reach lie in the map.
      for (const mem of m.memories) {
        expect(board.map.some((r) => mem.base >= r.base && mem.base + mem.bytes.length <= r.base + r.size), `${board.name}: ${mem.name}`).toBe(true);
      }
    }
  });

  it('the write-up\'s board is named after what it is; seed stays its alias', () => {
    expect(BOARDS.map((b) => b.name)).toEqual(['picotpu', 'transformer-tpu-int4']);
    expect(boardNamed('seed')).toBe(boardNamed('transformer-tpu-int4'));
  });
});

describe('the GDB stub reaches only the memories the board has', () => {
  it('on the write-up\'s board, 0x40000000 (picotpu\'s SRAM window) is no memory: reads and writes are refused (E14)', async () => {
    const m = new Machine(undefined, { board: 'seed' });
    m.loadElf(readFileSync(SEED_DONE));
    m.loadSram(new Uint8Array([1, 2, 3, 4]), 0);
    let onPort!: (p: number) => void;
    const port = new Promise<number>((res) => { onPort = res; });
    const status = serveGdb(m, { port: 0, onListening: onPort, log: () => {} });
    const c = await Rsp.open(await port);
    try {
      expect(await c.send('m40000000,4')).toBe('E14');
      expect(await c.send('M40000000,4:deadbeef')).toBe('E14');
      expect(await c.send('m0,2')).toBe(Buffer.from(m.bus.bram.subarray(0, 2)).toString('hex'));
      expect(await c.send('c')).toBe('W00');
    } finally {
      c.close();
    }
    expect(await status).toBe(0);
  });
});

describe('the wrong board gets one line and 164/165, never a silent run', () => {
  it.concurrent('a setting the write-up\'s board does not read is refused (165), not ignored', async () => {
    for (const set of ['queueDepth=1', 'tpuWait=10', 'mxuDim=16']) {
      const r = await runCli(['run', '--board', 'seed', SEED_DONE, '--set', set]);
      expect(r.status, set).toBe(EXIT.USAGE);
      expect(lines(r), set).toEqual([expect.stringMatching(new RegExp(`^picotpu: the transformer-tpu-int4 board does not use ${set.split('=')[0]} \\(its settings: `))]);
    }
  });

  it.concurrent('a picotpu ELF on the write-up\'s board is refused (164) and named picotpu\'s, instead of spinning', async () => {
    const r = await runCli(['run', '--board', 'seed', HELLO, '--max-cycles', '1000000']);
    expect(r.status).toBe(EXIT.BAD_PROGRAM);
    expect(lines(r)).toEqual([expect.stringMatching(/^picotpu: the program is not RV32C .*; it looks made for the picotpu board \(--board picotpu\)$/)]);
  });

  it.concurrent('an RV32C ELF on picotpu is refused (164) and named the write-up\'s board\'s', async () => {
    const r = await runCli(['run', SEED_DONE]);
    expect(r.status).toBe(EXIT.BAD_PROGRAM);
    expect(lines(r)).toEqual([
      'picotpu: the program is RV32C (its ELF flags say RVC), but the picotpu board\'s CPU has no COMPRESSED_ISA; it looks made for the transformer-tpu-int4 board (--board seed)',
    ]);
  });

  it('the playground\'s worker refuses a write-up\'s-board ELF with one line, and loads a picotpu one', async () => {
    const posted: { type: string; message?: string }[] = [];
    const self = { postMessage: (m: { type: string }) => posted.push(m), onmessage: null as null | ((e: { data: unknown }) => void) };
    (globalThis as unknown as { self: unknown }).self = self;
    // By its file URL: the project's type check has no DOM types for the worker (tsc -p web checks it).
    await import(pathToFileURL(join(root, 'web', 'worker.ts')).href);
    const load = (path: string) => {
      const bytes = readFileSync(path);
      self.onmessage!({ data: { type: 'load', name: path, bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) } });
    };
    load(SEED_DONE);
    expect(posted).toEqual([{ type: 'error', message: expect.stringMatching(/looks made for the transformer-tpu-int4 board/) }]);
    expect(posted[0].message).not.toContain('\n');
    posted.length = 0;
    load(HELLO);
    expect(posted.map((p) => p.type)).toContain('state');
    expect(posted.some((p) => p.type === 'error')).toBe(false);
  });
});

describe('option names', () => {
  it.concurrent('--board is always a board name; with --boards N, --attach K picks the board to debug', async () => {
    const attached = await runCli(['debug', '--boards', '2', '--attach', '1', elfPath('link_ring')], {
      stdin: 'pipe', onSpawn: (child) => child.stdin!.end('continue\nquit\n'),
    });
    expect(attached.stderr).toBe('');
    expect(attached.status).toBe(0);
    expect(attached.stdout.toString()).toContain('program exited with status 0');
    const index = await runCli(['debug', '--boards', '2', '--board', '1', elfPath('link_ring')]);
    expect(index.status).toBe(EXIT.USAGE);
    expect(lines(index)).toEqual([expect.stringMatching(/^picotpu: unknown board "1" \(boards: picotpu, transformer-tpu-int4, seed\)$/)]);
    const alone = await runCli(['debug', '--attach', '1', elfPath('link_ring')]);
    expect(alone.status).toBe(EXIT.USAGE);
    expect(lines(alone)).toEqual(['picotpu: --attach K picks one of --boards N: give --boards']);
  });

  it.concurrent('--set and --sram take one value each: the program after them stays the program', async () => {
    const set = await runCli(['run', '--set', 'tpuWait=4', HELLO, '--no-report']);
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(set.stdout.toString()).toBe('hello from picotpu\n');
    const sram = await runCli(['run', '--sram', `${HELLO}@0`, HELLO, '--no-report']);
    expect(sram.stderr).toBe('');
    expect(sram.status).toBe(0);
  });
});
