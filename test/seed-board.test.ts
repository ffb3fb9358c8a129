// `--board seed`: our own seed-board programs (firmware-c/seed/, built by
// test/global-setup.ts) run from the run pulse to the firmware's store to DONE
// (status 0); a trap, the watchdog and a firmware that never stores DONE end
// with docs/hardware.md §7's statuses and the counters so far; the report,
// --report-json's `counters` and --sram-out; the seed decoder's aliases are
// counted, never change a result; an unknown board is a usage error; picotpu
// stays the default.

import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.ts';
import { describeStop } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { boardNamed } from '../boards/registry.ts';
import { EXIT } from '../emu/exit-status.ts';
import { SeedBus } from '../boards/transformer-tpu-int4/bus.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seedElf = (name: string) => join(root, 'build', 'fw', 'seed', `${name}.elf`);
const tmp = mkdtempSync(join(tmpdir(), 'seed-board-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function seedMachine(name: string): Machine {
  const m = new Machine(undefined, { board: 'seed' });
  m.loadElf(readFileSync(seedElf(name)));
  return m;
}

function cli(args: string[]) {
  return spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), ...args], { encoding: 'utf8', timeout: 60_000 });
}

const TEN = ['run', 'mxu', 'mload', 'vpu', 'dma', 'swait', 'vmm', 'idlec', 'qfull', 'ovlap'];

/** `name`.elf with the halfwords at BRAM address `at` replaced (through the first PT_LOAD segment, which holds .text). */
function patchedElf(name: string, at: number, halves: number[]): Buffer {
  const e = Buffer.from(readFileSync(seedElf(name)));
  const phoff = e.readUInt32LE(28), phnum = e.readUInt16LE(44);
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + 32 * i;
    if (e.readUInt32LE(ph) !== 1) continue; // PT_LOAD
    const off = e.readUInt32LE(ph + 4), vaddr = e.readUInt32LE(ph + 8);
    halves.forEach((h, k) => e.writeUInt16LE(h, off + at - vaddr + 2 * k));
    return e;
  }
  throw new Error(`${name}.elf has no PT_LOAD segment`);
}

describe('the seed board as data', () => {
  it('fixes the RTL\'s memory and CPU parameters (cpu_subsys.sv)', () => {
    const m = seedMachine('done');
    expect(m.board).toBe(boardNamed('seed'));
    expect(m.cpu.ramSize).toBe(16 * 1024);
    expect(m.bus).toBeInstanceOf(SeedBus);
    expect(m.config.cpu).toMatchObject({ BARREL_SHIFTER: true, ENABLE_FAST_MUL: true, ENABLE_MUL: false, ENABLE_DIV: false });
    expect(() => m.tpu).toThrow(/no picotpu TPU/);
    expect(m.seed).not.toBeNull();
  });

  it('picotpu is the default and keeps its 64 KiB BRAM and its TPU', () => {
    const m = new Machine();
    expect(m.board.name).toBe('picotpu');
    expect(m.cpu.ramSize).toBe(64 * 1024);
    expect(m.seed).toBeNull();
    expect(m.activity).toBe(m.tpu);
  });

  it('refuses an ELF that does not fit the 16 KB firmware RAM (status 164 on the command line)', () => {
    // model.elf (picotpu) fills far more than 16 KB of the 64 KiB BRAM.
    const m = new Machine(undefined, { board: 'seed' });
    expect(() => m.loadElf(readFileSync(join(root, 'build', 'fw', 'model.elf')))).toThrow(/outside the transformer-tpu-int4 board's memories \(firmware RAM 0x00000000\.\.0x00004000\)/);
    expect(cli(['run', '--board', 'seed', join(root, 'build', 'fw', 'model.elf')]).status).toBe(EXIT.BAD_PROGRAM);
  });
});

describe('run semantics on the seed board', () => {
  it('ends at the firmware\'s store to DONE with status 0', () => {
    const m = seedMachine('done');
    const r = m.run(1_000_000);
    expect(r.reason).toBe('exit');
    expect(r.exit).toBe(0);
    expect(m.seed!.done).toBe(true);
    // The run stops at the DONE store's data handshake, which is the clock the TPU took it.
    expect(r.clocks).toBe(m.seed!.doneClock);
    // perf_counters.sv's window: from the run pulse (clock 0) through the clock the DONE store lands.
    expect(r.seedCounters!.run).toBe(r.clocks + 1);
    expect(r.where).toMatch(/^_start/);
    expect(Object.keys(r.seedCounters!).slice(0, 10)).toEqual(TEN);
    expect(r.seedCounters!.trueQfullStall).toBe(0);
    expect(r.counters.cycles).toBe(r.seedCounters!.run);
  });

  it('the trap report shows a compressed instruction as its one halfword, at a pc of 0 or 2 mod 4', () => {
    // ebreak.elf's main opens with c.ebreak (0x9002) followed by c.li a0, 0 (0x4501).
    const r = seedMachine('ebreak').run(1_000_000);
    expect(r.trap).toMatchObject({ kind: 'ebreak', word: 0x9002, length: 2, disasm: 'ebreak' });
    expect(describeStop(r)).toMatch(/^ebreak at pc 0x0000002c <main>: 0x9002  ebreak, clock \d+$/);
    // A c.nop before it puts the c.ebreak at 0x2e, a pc of 2 mod 4.
    const m = new Machine(undefined, { board: 'seed' });
    m.loadElf(patchedElf('ebreak', r.pc, [0x0001, 0x9002]));
    const r2 = m.run(1_000_000);
    expect(r2.pc).toBe(r.pc + 2);
    expect(r2.trap).toMatchObject({ kind: 'ebreak', word: 0x9002, length: 2, disasm: 'ebreak' });
    expect(describeStop(r2)).toMatch(/^ebreak at pc 0x0000002e <main\+0x2>: 0x9002  ebreak, clock \d+$/);
  });

  it('a trap before DONE: status 160, the counters so far', () => {
    const m = seedMachine('ebreak');
    const r = m.run(1_000_000);
    expect(r.reason).toBe('trap');
    expect(r.exit).toBe(EXIT.TRAP);
    expect(r.trap!.kind).toBe('ebreak');
    // cpu_subsys.sv raises done on a trap: the counters close in the trap's clock.
    expect(m.seed!.done).toBe(true);
    expect(m.seed!.doneClock).toBe(r.clocks);
    expect(r.doneValue).toBeNull();
    // The window: from the run pulse (clock 0) through the trap's clock, as through the DONE store's.
    expect(r.seedCounters!.run).toBe(r.clocks + 1);
  });

  it('a firmware that never stores DONE: the watchdog (--max-cycles) ends it with status 162 and the counters so far', () => {
    const m = seedMachine('spin');
    const r = m.run(20_000);
    expect(r.reason).toBe('cycle-limit');
    expect(r.exit).toBe(EXIT.CYCLE_LIMIT);
    expect(r.clocks).toBeGreaterThanOrEqual(20_000);
    expect(r.seedCounters!.run).toBeGreaterThan(19_000);
    expect(r.seedCounters!.idlec).toBe(r.seedCounters!.run);
  });

  it('an access that can never complete (a commit behind the starved MXU): stops there with the TPU deadlock status 163', () => {
    const m = seedMachine('hang');
    const r = m.run(1_000_000);
    expect(r.reason).toBe('tpu-error');
    expect(r.exit).toBe(EXIT.TPU_ERROR);
    expect(r.tpuFatal).toMatch(/^TPU deadlock: the commit store to the full MXU queue can never land/);
    expect(r.clocks).toBeLessThan(10_000);
    expect(r.seedCounters!.mxu).toBeGreaterThan(0);
  });

  it('accesses the decoder aliases are counted, and behave as the RTL (a[13:2] of the RAM; other regions read fw_q, drop writes)', () => {
    const m = seedMachine('alias');
    const r = m.run(1_000_000);
    expect(r.reason).toBe('exit');
    // alias.c stores through 0x7ff0 onto RAM 0x3ff0 and reads it back through region 5.
    const word0 = m.symbols.lookup('word0_copy')!.addr;
    expect(new DataView(m.bus.bram.buffer).getUint32(word0, true)).toBe(0x5eed5eed);
    expect(r.aliases).toMatchObject({ ram: 1, unmapped: 2, mmio: 0, spad: 0, firstAddr: 0x7ff0 });
  });

  it('--reference (the literal clock-by-clock units) gives the fast model\'s run exactly', () => {
    const elf = readFileSync(join(root, 'build', 'seed-streams', 'overlap_all_units.elf'));
    const runWith = (reference: boolean) => {
      const m = new Machine(undefined, { board: 'seed', reference });
      m.loadElf(elf);
      return { r: m.run(2_000_000), sram: Buffer.from(m.sramBytes) };
    };
    const fast = runWith(false), ref = runWith(true);
    expect(ref.r.clocks).toBe(fast.r.clocks);
    expect(ref.r.seedCounters).toEqual(fast.r.seedCounters);
    expect(Buffer.compare(ref.sram, fast.sram)).toBe(0);
  });

  it('skipped poll loops (the fast TPU\'s repeat promise) change nothing: the random streams run as with the reference units', () => {
    let skipped = 0;
    for (let i = 0; i < 10; i++) {
      const elf = readFileSync(join(root, 'build', 'seed-streams', `rand_0${i}.elf`));
      const runWith = (reference: boolean) => {
        const m = new Machine(undefined, { board: 'seed', reference });
        m.loadElf(elf);
        let reads = 0;
        const tpu = m.seed!, read = tpu.read.bind(tpu), readWithPromise = tpu.readWithPromise.bind(tpu);
        tpu.read = (offset: number, clock: number) => { reads++; return read(offset, clock); };
        tpu.readWithPromise = (offset: number, clock: number, out: Float64Array) => { reads++; return readWithPromise(offset, clock, out); };
        const r = m.run(2_000_000);
        return { r, reads, sram: Buffer.from(m.sramBytes), spad: Buffer.from(tpu.spad) };
      };
      const fast = runWith(false), ref = runWith(true);
      expect([fast.r.reason, fast.r.clocks, fast.r.instret], `rand_0${i}`).toEqual([ref.r.reason, ref.r.clocks, ref.r.instret]);
      expect(fast.r.seedCounters, `rand_0${i}`).toEqual(ref.r.seedCounters);
      expect(Buffer.compare(fast.sram, ref.sram), `rand_0${i}`).toBe(0);
      expect(Buffer.compare(fast.spad, ref.spad), `rand_0${i}`).toBe(0);
      skipped += ref.reads - fast.reads;
    }
    expect(skipped).toBeGreaterThan(10_000); // the CPU polled the status words far less often
  });

  it('is deterministic: the same ELF gives the same clocks and SRAM', () => {
    const a = seedMachine('dma_roundtrip'), b = seedMachine('dma_roundtrip');
    const ra = a.run(1_000_000), rb = b.run(1_000_000);
    expect(ra.clocks).toBe(rb.clocks);
    expect(ra.seedCounters).toEqual(rb.seedCounters);
    expect(Buffer.compare(a.sramBytes, b.sramBytes)).toBe(0);
  });
});

describe('picotpu run --board seed', () => {
  it('prints the report in PLATFORM.md §7\'s shape with the weight-load line, writes counters JSON and the SRAM', () => {
    const json = join(tmp, 'r.json'), sram = join(tmp, 'sram.bin');
    const res = cli(['run', '--board', 'seed', seedElf('dma_roundtrip'), '--report-json', json, '--sram-out', sram]);
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^run \d+ clocks \d+\.\d{3} ms @ 12 MHz$/);
    expect(lines[1]).toMatch(/^MXU busy \d+ \d+\.\d%$/);
    expect(lines[2]).toMatch(/^ {2}of which weight load \d+ \d+\.\d%$/);
    expect(lines[3]).toMatch(/^VPU busy /);
    expect(lines[4]).toMatch(/^DMA busy /);
    expect(lines[5]).toMatch(/^no unit busy \(issue overhead\) /);
    expect(lines[6]).toMatch(/^producer stalled on a full queue 0 0\.0% \(as the RTL counts it; really held \d+ /);
    expect(lines[7]).toMatch(/^two or more units busy /);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.board).toBe('transformer-tpu-int4');
    expect(report.exit).toBe(0);
    expect(Object.keys(report.counters)).toEqual([...TEN, 'trueQfullStall']);
    expect(Number(/^run (\d+)/.exec(lines[0])![1])).toBe(report.counters.run);
    const image = readFileSync(sram);
    expect(image.length).toBe(512 * 1024);
    // dma_roundtrip.c spills 8 words of the scratchpad to SRAM 0x100.
    const m = seedMachine('dma_roundtrip');
    m.run(1_000_000);
    expect(Buffer.compare(image, Buffer.from(m.sramBytes))).toBe(0);
  });

  it('warns of aliased accesses and of commands the RTL executes silently (hazards), in the report and the JSON', () => {
    const json = join(tmp, 'alias.json');
    const alias = cli(['run', '--board', 'seed', seedElf('alias'), '--report-json', json]);
    expect(alias.status, alias.stderr).toBe(0);
    expect(alias.stderr).toMatch(/^warning: 3 accesses the seed's decoder aliases \(RAM 1, MMIO 0, scratchpad 0, outside every region 2\); the first at 0x00007ff0, clock \d+$/m);
    expect(JSON.parse(readFileSync(json, 'utf8')).aliases).toMatchObject({ ram: 1, unmapped: 2 });
    // bad_commands (test/seed-rtl/streams) pushes unknown opcodes, among others.
    const bad = cli(['run', '--board', 'seed', join(root, 'build', 'seed-streams', 'bad_commands.elf'), '--report-json', json]);
    expect(bad.status, bad.stderr).toBe(0);
    expect(bad.stderr).toMatch(/^warning: \d+ commands the seed's RTL executes silently as a hazard; the first: clock \d+: MXU opcode 0x00 is unknown/m);
    expect(JSON.parse(readFileSync(json, 'utf8')).hazards.count).toBeGreaterThan(0);
  });

  it('--sram FILE@OFFSET loads the SRAM the DMA sees; --sram-out on picotpu writes its SRAM', () => {
    const input = join(tmp, 'in.bin'), out = join(tmp, 'out.bin');
    writeFileSync(input, Buffer.from([1, 2, 3, 4]));
    const res = cli(['run', '--board', 'seed', seedElf('done'), '--sram', `${input}@0x400`, '--sram-out', out, '--no-report']);
    expect(res.status, res.stderr).toBe(0);
    expect([...readFileSync(out).subarray(0x400, 0x404)]).toEqual([1, 2, 3, 4]);
    const pico = join(tmp, 'pico.bin');
    const p = cli(['run', join(root, 'build', 'fw', 'sramdata.elf'), '--sram-out', pico, '--no-report']);
    expect(p.status, p.stderr).toBe(0);
    const m = new Machine();
    m.loadElf(readFileSync(join(root, 'build', 'fw', 'sramdata.elf')));
    m.bus.console.captureOutput();
    m.run();
    expect(Buffer.compare(readFileSync(pico), Buffer.from(m.sramBytes))).toBe(0);
  });

  it('--sram-out to an unwritable path: status 165 and no file', () => {
    const bad = join(tmp, 'no-such-dir', 'x.bin');
    const res = cli(['run', '--board', 'seed', seedElf('done'), '--sram-out', bad, '--no-report']);
    expect(res.status).toBe(EXIT.USAGE);
    expect(res.stderr).toMatch(/cannot write --sram-out/);
    expect(existsSync(bad)).toBe(false);
  });

  it('trap, watchdog and never-DONE: the documented statuses, the counters so far on standard error', () => {
    const trap = cli(['run', '--board', 'seed', seedElf('ebreak')]);
    expect(trap.status).toBe(EXIT.TRAP);
    expect(trap.stderr).toMatch(/ebreak at pc 0x[0-9a-f]{8} <main>/);
    expect(trap.stderr).toMatch(/^run \d+ clocks/m);
    const spin = cli(['run', '--board', 'seed', seedElf('spin'), '--max-cycles', '5000']);
    expect(spin.status).toBe(EXIT.CYCLE_LIMIT);
    expect(spin.stderr).toMatch(/cycle limit reached after 500\d clocks/);
    expect(spin.stderr).toMatch(/^run 500\d clocks/m);
  });

  it('an unknown board, console input or a CPU option the seed fixes: status 165, one line', async () => {
    for (const args of [
      ['run', '--board', 'cmod', seedElf('done')],
      ['debug', '--board', 'nope', seedElf('done')],
      ['gdb', '--board', 'nope', seedElf('done')],
      ['run', '--board', 'seed', seedElf('done'), '--input', 'x'],
      ['run', '--board', 'seed', seedElf('done'), '--no-barrel-shifter'],
      ['run', '--board', 'seed', seedElf('done'), '--strict'],
    ]) {
      // In-process (the CLI's main), to keep the test fast; one spawn below checks the real process.
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      let status: number, stderr: string;
      try {
        status = await main(args);
        stderr = spy.mock.calls.map((c) => String(c[0])).join('');
      } finally {
        spy.mockRestore();
      }
      expect(status, args.join(' ')).toBe(EXIT.USAGE);
      expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
      expect(stderr).not.toMatch(/internal|at .*\.ts:\d+/);
    }
    const res = cli(['run', '--board', 'cmod', seedElf('done')]);
    expect(res.status).toBe(EXIT.USAGE);
    expect(res.stderr).toMatch(/^picotpu: unknown board "cmod" \(boards: picotpu, transformer-tpu-int4, seed\)\n$/);
  });

  it('picotpu stays the default: no --board and --board picotpu give the same run', () => {
    const hello = join(root, 'build', 'fw', 'hello.elf');
    const a = cli(['run', hello, '--stats']);
    const b = cli(['run', '--board', 'picotpu', hello, '--stats']);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe('hello from picotpu\n');
    expect(b.stdout).toBe(a.stdout);
    const strip = (s: string) => s.replace(/[\d.]+ s wall, [\d.]+ M clocks\/s/, '');
    expect(strip(b.stderr)).toBe(strip(a.stderr));
  });
});
