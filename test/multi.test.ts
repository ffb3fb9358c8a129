// N boards on the link's ring (boards/picotpu/ring.ts, docs/hardware.md §5.12): the
// link_ring firmware on 1, 2, 4 and 8 boards; the same clocks, bytes and
// console output whatever slice size and board order the host uses (and the
// test would see a broken synchronisation); the CLI's multi-board run and its
// bad input: a SEND to a missing board, overlapping transfers (OVERRUN), a
// board that never joins (--max-cycles with every board's state).

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { Boards, runBoards, type BoardsResult, type Schedule } from '../boards/picotpu/ring.ts';
import { EXIT } from '../emu/exit-status.ts';
import { elfPath, runCli, runShellArgs, stderrLines } from './helpers/cli-process.ts';
import { connect } from 'node:net';
import { GDB_HOST, serveGdb } from '../emu/debug/gdb-server.ts';

const RING = readFileSync(elfPath('link_ring'));
const ERRORS = readFileSync(elfPath('link_errors'));

/** Everything observable of a run: every board's clocks, counters, errors, link figures and console bytes. */
function run(elf: Uint8Array, n: number, schedule: Schedule, input = '', maxCycles = 2_000_000, reference = false) {
  const out: string[] = [];
  const r = runBoards(elf, n, defaultConfig(), {
    schedule, maxCycles, reference, input: Buffer.from(input),
    console: (k, bytes) => out.push(`${k}:${Buffer.from(bytes).toString('latin1')}`),
  });
  return { r, out, digest: digest(r, out) };
}

function digest(r: BoardsResult, out: string[]): string {
  return JSON.stringify({
    boards: r.boards.map((b) => [b.reason, b.exit, b.clocks, b.instret, b.pc, b.counters, b.tpuErrors.map((e) => [e.clock, e.codeName, e.detail])]),
    link: r.link, clocks: r.clocks, out,
  });
}

const SCHEDULES: Schedule[] = [
  { quantum: 1, order: 'forward' }, { quantum: 7, order: 'reverse' }, { quantum: 1000, order: 'shuffle', seed: 3 },
  { quantum: 1 << 20, order: 'forward' }, { quantum: 13, order: 'shuffle', seed: 99 },
];

describe('link_ring: one block around the ring', () => {
  for (const n of [1, 2, 4, 8]) {
    it(`on ${n} board${n > 1 ? 's' : ''}: every board receives its predecessor's block; LINK busy = linkSetup + 192 × linkClocksPerByte`, () => {
      const { r, out } = run(RING, n, {});
      expect(r.exit).toBe(0);
      expect(r.boards.map((b) => b.reason)).toEqual(new Array(n).fill('exit'));
      const t = defaultConfig().tpu;
      for (const l of r.link) expect(l).toEqual({ busy: t.linkSetup + 192 * t.linkClocksPerByte, bytes: 192, messages: 1, received: 1, rxFull: 0 });
      expect(r.clocks).toBe(Math.max(...r.boards.map((b) => b.clocks)));
      for (let k = 0; k < n; k++) expect(out.join('')).toContain(`${k}:board ${k} of ${n}: 192 bytes from board ${(k + n - 1) % n}, RX_COUNT 1\n`);
    });
  }
});

describe('the same clocks and bytes however the host interleaves the boards', () => {
  for (const [name, elf, n, input] of [['link_ring on 4 boards', RING, 4, ''], ['overlapping transfers on 3 boards', ERRORS, 3, 'o'],
    ['a missing board on 5 boards', ERRORS, 5, 'd'], ['a board that never joins, on 4 boards', ERRORS, 4, 'h']] as const) {
    it(name, () => {
      const runs = SCHEDULES.map((s) => run(elf, n, s, input, 300_000).digest);
      for (const d of runs) expect(d).toBe(runs[0]);
      // The reference models give the same too.
      expect(run(elf, n, { quantum: 50 }, input, 300_000, true).digest).toBe(runs[0]);
    });
  }

  it('and the test would see a broken synchronisation: boards run without a horizon disagree (or trip the internal check)', () => {
    const sync = run(RING, 4, { quantum: 1 << 20 }).digest;
    let unsync: string;
    try {
      unsync = run(RING, 4, { quantum: 1 << 20, unsynchronised: true }).digest;
    } catch (e) {
      unsync = `internal error: ${(e as Error).message}`;
    }
    expect(unsync).not.toBe(sync);
  });

  it('a board blocked on its horizon restarts the instruction: nothing runs twice (instret and clocks as on one board)', () => {
    // One board alone never blocks; on a ring of one via Boards (horizon unbounded) the run equals it.
    const alone = run(RING, 1, { quantum: 1 << 20 });
    const boards = new Boards(defaultConfig(), 1, {});
    boards.loadElf(RING);
    const r = boards.run(2_000_000);
    expect([r.boards[0].clocks, r.boards[0].instret]).toEqual([alone.r.boards[0].clocks, alone.r.boards[0].instret]);
  });
});

describe('picotpu run --boards N (bad input: one clear line each, documented status)', () => {
  it('runs link_ring on 4 boards: [K]-prefixed console lines, a report per board and the combined line', async () => {
    const r = await runCli(['run', '--boards', '4', elfPath('link_ring')]);
    expect(r.status).toBe(0);
    const lines = r.stdout.toString().trimEnd().split('\n');
    expect(lines.filter((l) => /^\[\d\] link_ring: OK/.test(l))).toHaveLength(4);
    expect(r.stderr).toMatch(/^board 3:\nrun \d+ clocks/m);
    expect(r.stderr).toMatch(/LINK busy 194 clocks, sent 1 messages \(192 bytes\), RX_COUNT 1, RX_FULL 0x00000000/);
    expect(r.stderr).toMatch(/4 boards: run clocks \d+ \([\d.]+ ms, the last board's stop\), LINK busy 776 clocks, 4 messages, 768 bytes; exit 0/);
  });

  it('--report-json: every board\'s result and link figures, the run clocks and the exit', async () => {
    const path = `/tmp/picotpu-multi-${process.pid}.json`;
    const r = await runCli(['run', '--boards', '2', '--no-report', '--report-json', path, elfPath('link_ring')]);
    expect(r.status).toBe(0);
    const j = JSON.parse(readFileSync(path, 'utf8'));
    const free = runBoards(RING, 2, defaultConfig(), { maxCycles: 2_000_000 });
    expect(j.boards.map((b: { board: number; clocks: number; reason: string; link: unknown }) => [b.board, b.clocks, b.reason, b.link]))
      .toEqual(free.boards.map((b, k) => [k, b.clocks, 'exit', free.link[k]]));
    expect([j.clocks, j.exit]).toEqual([free.clocks, 0]);
  });

  it('a SEND to a missing board: BAD_DEST naming the boards and the clock; --strict stops with 163', async () => {
    const r = await runCli(['run', '--boards', '4', '--no-report', '--input', 'd', elfPath('link_errors')]);
    expect(r.status).toBe(0);
    expect(stderrLines(r)).toContain('picotpu: [2] TPU error at clock 178: LINK command #0 (SEND spad=0x0000 rows=1 row_bytes=16 spad_stride=16 dst=0x0000 dst_stride=16 board=4) dropped: BAD_DEST: board 2 sends to board 4: there are 4 boards');
    const strict = await runCli(['run', '--boards', '4', '--strict', '--no-report', '--input', 'd', elfPath('link_errors')]);
    expect(strict.status).toBe(EXIT.TPU_ERROR);
    expect(stderrLines(strict)).toHaveLength(4);
    expect(strict.stderr).toMatch(/\[0\] TPU error at clock 178: .* BAD_DEST: board 0 sends to board 4: there are 4 boards \(stopped at pc 0x[0-9a-f]{8} <main\+0x[0-9a-f]+>, clock \d+\)/);
  });

  it('overlapping transfers: OVERRUN on each receiving board, with the landing clock', async () => {
    const r = await runCli(['run', '--boards', '3', '--no-report', '--input', 'o', elfPath('link_errors')]);
    expect(r.status).toBe(0);
    const overruns = stderrLines(r).filter((l) => l.includes('OVERRUN'));
    expect(overruns).toHaveLength(3);
    expect(overruns[1]).toMatch(/^picotpu: \[1\] TPU error at clock (\d+): LINK: OVERRUN: board 1: message from board 0 lands on mailbox slot 0, still full, at clock \1 /);
  });

  it('a board that never joins the collective: --max-cycles (162) with every board\'s state', async () => {
    const r = await runCli(['run', '--boards', '3', '--no-report', '--input', 'h', '--max-cycles', '100000', elfPath('link_errors')]);
    expect(r.status).toBe(EXIT.CYCLE_LIMIT);
    const lines = stderrLines(r);
    expect(lines[0]).toMatch(/^picotpu: \[1\] cycle limit reached after 10000\d clocks/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^picotpu: board 0: exited 0 at clock \d+, .* LINK ISSUED 0 DONE 0 STATUS 0x0, RX_COUNT 1, RX_FULL 0x00000001$/),
      expect.stringMatching(/^picotpu: board 1: stopped \(cycle-limit\) at clock 10000\d, pc 0x[0-9a-f]+ <main\+0x[0-9a-f]+>, LINK ISSUED 1 DONE 1 STATUS 0x0, RX_COUNT 0, RX_FULL 0x00000000$/),
      expect.stringMatching(/^picotpu: board 2: exited 0 at clock \d+, .* RX_COUNT 1, RX_FULL 0x00000001$/),
    ]);
  });

  for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} mid-run: one line, ${status}, and --report-json left as it was`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'picotpu-boards-'));
      const report = join(dir, 'r.json');
      writeFileSync(report, 'old\n');
      // Board 1 waits for a message that never comes: the run goes on until the signal.
      const r = await runCli(['run', '--boards', '3', '--no-report', '--input', 'h', '--max-cycles', '1000000000000', '--report-json', report, elfPath('link_errors')], {
        onSpawn: (child) => { setTimeout(() => child.kill(signal), 1500); },
      });
      expect(r.status).toBe(status);
      expect(stderrLines(r)).toEqual([expect.stringMatching(new RegExp(`^picotpu: interrupted at clock \\d+ \\(${signal}\\)$`))]);
      expect(readFileSync(report, 'utf8')).toBe('old\n');
      expect(readdirSync(dir), 'no temporary file left').toEqual(['r.json']);
    });
  }

  it('standard output\'s reader gone (| head -c 10): 141, not a word on standard error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-boards-'));
    const input = join(dir, 'in.txt');
    writeFileSync(input, 'echo me back\n'.repeat(100_000));
    const r = await runShellArgs('bash', ['-c', `node bin/picotpu.cjs run --boards 2 --no-report --input-file ${input} ${elfPath('echo')} | head -c 10 > /dev/null; exit \${PIPESTATUS[0]}`]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(EXIT.STDOUT_CLOSED);
  });

  it('bad --boards values and options a multi-board run does not take are usage errors (165)', async () => {
    for (const [args, line] of [[['--boards', '9'], 'picotpu: --boards must be 1..8, got "9"'], [['--boards', '0'], 'picotpu: --boards must be 1..8, got "0"'],
      [['--boards', 'two'], 'picotpu: --boards must be 1..8, got "two"'],
      [['--boards', '2', '--vcd', '/tmp/x.vcd'], 'picotpu: --vcd: not available with --boards (run one board for them)'],
      [['--boards', '2', '--board', 'seed'], 'picotpu: --boards needs the picotpu board (the seed has no link)'],
      [['--boards', '2', '--set', 'sequencer=1'], 'picotpu: link and sequencer are not modelled together (hardware.md §5.12)']] as const) {
      const r = await runCli(['run', elfPath('link_ring'), ...args]);
      expect(r.status, args.join(' ')).toBe(EXIT.USAGE);
      expect(stderrLines(r)).toEqual([line]);
    }
  });
});

describe('debug --boards N --attach K: one board under the debugger, the others underneath', () => {
  it('board 2 of 3 runs to its exit with the clocks and instructions of the free multi-board run', async () => {
    const free = runBoards(RING, 3, defaultConfig(), { maxCycles: 2_000_000 });
    const r = await runCli(['debug', '--boards', '3', '--attach', '2', elfPath('link_ring')], {
      stdin: 'pipe', onSpawn: (child) => child.stdin!.end('break main\ncontinue\nnext\ncontinue\nquit\n'),
    });
    expect(r.status).toBe(0);
    const out = r.stdout.toString();
    expect(out).toContain('board 2 of 3: 192 bytes from board 1, RX_COUNT 1');
    expect(out).toContain(`program exited with status 0 at clock ${free.boards[2].clocks} (${free.boards[2].instret} instructions)`);
  });

  it('--attach must name one of the boards', async () => {
    const r = await runCli(['debug', '--boards', '2', '--attach', '2', elfPath('link_ring')]);
    expect(r.status).toBe(EXIT.USAGE);
    expect(stderrLines(r)).toEqual(['picotpu: with --boards 2, --attach names the board to attach to: 0..1, got "2"']);
  });
});

describe('gdb --boards N --attach K', () => {
  it('continue runs board 1 of 2 to its exit (W00), with the free run\'s clocks, the other board underneath', async () => {
    const free = runBoards(RING, 2, defaultConfig(), { maxCycles: 2_000_000 });
    const boards = new Boards(defaultConfig(), 2, {});
    boards.loadElf(RING);
    const machine = boards.attach(1, 2_000_000);
    machine.bus.console.captureOutput();
    let resolvePort!: (p: number) => void;
    const port = new Promise<number>((r) => { resolvePort = r; });
    const status = serveGdb(machine, { port: 0, log: () => {}, onListening: resolvePort });
    const socket = connect({ host: GDB_HOST, port: await port });
    let got = '';
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write('$c#63');
    for (let i = 0; i < 200 && !/\$W00#/.test(got); i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toMatch(/\$W00#/);
    socket.end();
    await status.catch(() => 0);
    expect(machine.bus.console.capturedText()).toContain('board 1 of 2: 192 bytes from board 0');
    expect([machine.cpu.instret, machine.cpu.stopClock]).toEqual([free.boards[1].instret, free.boards[1].clocks]);
  });
});

describe('the scheduler\'s no-deadlock assertion', () => {
  it('a round in which no board can move is an internal error naming every board\'s state (here forced: horizons held at 0)', () => {
    const boards = new Boards(defaultConfig(), 2, {});
    boards.loadElf(RING);
    (boards as unknown as { horizonOf: () => number }).horizonOf = () => 0;
    expect(() => boards.run(1_000_000)).toThrow(/^internal: the boards' scheduler made no progress in round \d+: board 0: running, clock \d+, pc 0x[0-9a-f]{8} .*; board 1: running, clock \d+/);
  });
});
