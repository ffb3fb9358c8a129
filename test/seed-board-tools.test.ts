// Every tool on `--board seed`: the instruction trace, the VCD, the timeline,
// the profiler, the debugger and the GDB stub run on the seed board's machine
// with nothing forked, and see its TPU's commands (dma_roundtrip.c: two DMA
// commands, polled to retirement, then the store to DONE).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Rsp } from './helpers/rsp.ts';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Machine } from '../boards/machine.ts';
import { serveGdb } from '../emu/debug/gdb-server.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ELF = join(root, 'build', 'fw', 'seed', 'dma_roundtrip.elf');
const tmp = mkdtempSync(join(tmpdir(), 'seed-tools-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[], input?: string) {
  return spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), ...args], { encoding: 'utf8', input, timeout: 60_000 });
}

/** The free run's result, for the tools' figures to agree with. */
function freeRun() {
  const m = new Machine(undefined, { board: 'seed' });
  m.loadElf(readFileSync(ELF));
  return { m, r: m.run(1_000_000) };
}

describe('run observers on --board seed', () => {
  // One run writes every file: the observers share the stepper.
  const trace = join(tmp, 't.txt'), vcd = join(tmp, 'w.vcd'), timeline = join(tmp, 'tl.json'), prof = join(tmp, 'p.json');
  const res = cli(['run', '--board', 'seed', ELF, '--trace', trace, '--vcd', vcd, '--timeline', timeline, '--profile', '--profile-json', prof]);
  const { r } = freeRun();

  it('runs to DONE with the free run\'s clocks', () => {
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`^run ${r.counters.cycles} clocks`, 'm'));
  });

  it('trace: one line per instruction, from pc 0 to the store to DONE', () => {
    const lines = readFileSync(trace, 'utf8').trimEnd().split('\n').filter((l) => !l.startsWith('#'));
    expect(lines).toHaveLength(r.instret); // the DONE store retires: it is the last line
    expect(lines[0]).toMatch(/^\s+\d+ 0x00000000 /);
    expect(lines.at(-1)).toMatch(/ sw\s+a0,0\(t0\)/);
  });

  it('VCD: each unit\'s busy signal; the DMA is busy twice', () => {
    const text = readFileSync(vcd, 'utf8');
    const id = /\$scope module dma \$end\n\$var wire 1 (\S+) busy \$end/.exec(text)?.[1];
    expect(id).toBeDefined();
    const rises = text.split('\n').filter((l) => l === `1${id}`).length;
    expect(rises).toBe(2);
  });

  it('timeline: a DMA_MOVE slice per command, in push order', () => {
    const events = JSON.parse(readFileSync(timeline, 'utf8')) as { name: string; cat?: string; args?: { serial: number; push: number; start: number } }[];
    const dma = events.filter((e) => e.cat === 'tpu');
    expect(dma.map((e) => e.name)).toEqual(['DMA_MOVE', 'DMA_MOVE']);
    expect(dma.map((e) => e.args!.serial)).toEqual([0, 1]);
    for (const e of dma) expect(e.args!.start).toBeGreaterThan(e.args!.push);
  });

  it('profile: the clocks per function add up to the run; two DMA commands', () => {
    expect(res.stderr).toMatch(/^main\s+\d+/m);
    const p = JSON.parse(readFileSync(prof, 'utf8'));
    const total = (p.functions as { clocks: number }[]).reduce((s, f) => s + f.clocks, 0);
    expect(total).toBe(r.clocks);
    expect(JSON.stringify(p)).toMatch(/"DMA"/);
    expect(res.stderr).toMatch(/^DMA\s+2\s/m);
  });
});

describe('--vcd on --board seed: commands that outlast the writer\'s batches', () => {
  // long_dma.c: three 32,767-byte DMA fills queued, polled for ~98,000 clocks (over 12,000 instructions,
  // more than one batch of the VCD writer), then a 32-byte fill. A fill is busy one clock a byte and its
  // DONE clock (the busy signal falls the clock after), with two idle clocks between commands (seed-tpu.test.ts).
  it('writes the DMA busy from each start, in time order, with the intervals the DMA rules give', () => {
    const path = join(tmp, 'long.vcd');
    const res = cli(['run', '--board', 'seed', join(root, 'build', 'fw', 'seed', 'long_dma.elf'), '--no-report', '--vcd', path]);
    expect(res.status, res.stderr).toBe(0);
    const text = readFileSync(path, 'utf8');
    const id = /\$scope module dma \$end\n\$var wire 1 (\S+) busy \$end/.exec(text)![1];
    let t = 0;
    const edges: [number, string][] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('#')) { const next = Number(line.slice(1)); expect(next).toBeGreaterThanOrEqual(t); t = next; }
      else if (line === `1${id}` || line === `0${id}`) edges.push([t, line[0]]);
    }
    const busy = edges.slice(1).filter((e) => e[1] === '1').map((rise, k) => edges[edges.indexOf(rise) + 1][0] - rise[0]);
    expect(busy).toEqual([32767 + 1, 32767 + 1, 32767 + 1, 32 + 1]);
  });
});

describe('picotpu debug --board seed', () => {
  it('breaks, shows the seed TPU and the firmware RAM, continues to DONE', () => {
    const t = cli(['debug', '--board', 'seed', ELF],
      ['break main', 'continue', 'info tpu', 'x/2xw 0', 'stepi 4', 'x/3i $pc', 'bt', 'finish', 'continue', 'quit'].join('\n') + '\n');
    expect(t.status, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/Breakpoint 1, 0x[0-9a-f]{8} <main>/);
    expect(t.stdout).toMatch(/seed TPU at clock \d+/);
    expect(t.stdout).toMatch(/run \d+, mxu \d+, mload \d+, vpu \d+, dma \d+, swait \d+, vmm \d+, idlec \d+, qfull \d+, ovlap \d+, trueQfullStall \d+/);
    expect(t.stdout).toMatch(/0x00000000 <_start>:\t0x[0-9a-f]{8}\t0x[0-9a-f]{8}/);
    // RV32C: pcs on halfwords; a compressed instruction shows its 16 bits (objdump -d's way).
    expect(t.stdout).toMatch(/^clock \d+ {2}pc 0x0000003a <main\+0xe>: lui a4,0x11234$/m);
    expect(t.stdout).toMatch(/^ {3}0x00000042 <main\+0x16>: +c3d8 {6}sw a4,4\(a5\)$/m);
    expect(t.stdout).toMatch(/^#1 +0x0000001e <_start\+0x1e>/m);
    expect(t.stdout).toMatch(/^Value returned: a0 = 0x00000000 \(0\)$/m);
    const { r } = freeRun();
    expect(t.stdout).toContain(`program exited with status 0 at clock ${r.clocks} (${r.instret} instructions)`);
  });
});

describe('picotpu gdb --board seed (remote protocol)', () => {
  it('stops at reset, steps, reads the firmware RAM and runs to DONE (W00)', async () => {
    const m = new Machine(undefined, { board: 'seed' });
    m.loadElf(readFileSync(ELF));
    let onPort!: (p: number) => void;
    const port = new Promise<number>((res) => { onPort = res; });
    const status = serveGdb(m, { port: 0, onListening: onPort });
    const c = await Rsp.open(await port);
    try {
      expect(await c.send('?')).toMatch(/^T05/);
      expect(await c.send('s')).toMatch(/^T05/);
      expect(m.cpu.pc).toBe(4);
      const word = (await c.send('m0,4'));
      expect(word).toBe(Buffer.from(m.bus.bram.subarray(0, 4)).toString('hex'));
      expect(await c.monitor('units')).toMatch(/^seed TPU at clock \d+\nDMA: idle, issued 0, queue level 0\n/);
      expect(await c.send('c')).toBe('W00');
    } finally {
      c.close();
    }
    expect(await status).toBe(0);
    const free = new Machine(undefined, { board: 'seed' });
    free.loadElf(readFileSync(ELF));
    expect(m.cpu.instret).toBe(free.run(1_000_000).instret);
  });
});
