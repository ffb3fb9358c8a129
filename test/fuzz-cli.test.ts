// The fuzz suite's classes for the newer paths (docs/robustness.md), seeded
// property tests (fast-check) in the manner of test/fuzz.test.ts:
//   boards     random firmware on N boards of a ring, fast ≡ reference under two host schedules;
//   elf-both   mutated ELFs of both boards (picotpu and seed) through `picotpu run` in process;
//   seed-tpu   random command streams at the seed board's TPU, fast ≡ reference;
//   streams    spawned commands with standard output or standard error on /dev/full.
// Never status 166, never a JS exception escaping, never a stack trace, never a
// run past its clock limit. FUZZ_SEED=n reproduces a campaign, FUZZ_SCALE=k runs
// k times the budgets (test/helpers/fuzz-kit.ts); the seed is printed.

import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { EXIT } from '../emu/exit-status.ts';
import { INSNS } from '../emu/isa.ts';
import { runBoards, type BoardsResult, type Schedule } from '../boards/registry.ts';
import { SEED_DMA, SEED_MXU, SEED_VPU } from '../boards/transformer-tpu-int4/regs.ts';
import { SRAM_BASE } from '../periph/sram.ts';
import { CLI, elfPath, root } from './helpers/cli-process.ts';
import { buildElf, Campaigns, EHDR_FIELDS, exitZero, fuzzScale, fuzzSeed, PHDR, PHDR_FIELDS, rv, setField, words } from './helpers/fuzz-kit.ts';
import { drive, type SeedOp } from './helpers/seed-driver.ts';
import { cliInProcess } from './helpers/cli-in-process.ts';

const SEED = fuzzSeed();
const SCALE = fuzzScale();
console.log(`fuzz-cli: seed ${SEED} (reproduce with FUZZ_SEED=${SEED}), scale ${SCALE}`);
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-fuzz-cli-'));

/** Per class: cases and seconds (× FUZZ_SCALE); about 30 s in all on 2 cores. */
const BUDGET = {
  boards: { cases: 400, seconds: 6 },
  elfBoth: { cases: 200, seconds: 6 },
  seedTpu: { cases: 300, seconds: 6 },
  streams: { cases: 12, seconds: 12 },
} as const;
type ClassName = keyof typeof BUDGET;

const campaigns = new Campaigns<ClassName>(SEED, SCALE, BUDGET, 11);
const count = (cls: ClassName, outcome: string): void => campaigns.count(cls, outcome);
const campaign = <T>(cls: ClassName, arb: fc.Arbitrary<T>, check: (v: T) => void | Promise<void>, examples: T[] = []): Promise<void> =>
  campaigns.run(cls, arb, check, examples);

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  console.log([`fuzz-cli: seed ${SEED}, scale ${SCALE}`, ...campaigns.summary()].join('\n'));
});

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const STOP_STATUSES = new Set<number>([EXIT.TRAP, EXIT.BUS_ERROR, EXIT.CYCLE_LIMIT, EXIT.TPU_ERROR]);

// ---------------------------------------------------------------------------

describe('fuzz: --boards', () => {
  const MAX = 20_000;
  const bus = defaultConfig().bus;
  /** The clocks a CPU access to the SRAM has the TPU process ahead of the CPU: the bridge's wait and four bytes. */
  const SRAM_LOOKAHEAD = bus.sramBridgeWait + 4 * Math.max(bus.sramReadClocksPerByte, bus.sramWriteClocksPerByte);
  // Registers pointed at the SRAM, the TPU (its LINK block among them), the console and BRAM data.
  const prefix = [...rv.li(8, SRAM_BASE), ...rv.li(9, 0x2000_0000), ...rv.li(10, 0x1000_0000), ...rv.li(11, 0x8000), ...rv.li(12, 0x2000_0400)];
  const decodable = fc.record({ insn: fc.constantFrom(...INSNS), bits: u32 }).map(({ insn, bits }) => ((bits & ~insn.mask) | insn.match) >>> 0);
  const FIRMWARE = ['tpu_deadlock', 'link_ring', 'link_errors', 'echo'] as const;
  type Program = { kind: 'words'; words: number[] } | { kind: 'elf'; name: (typeof FIRMWARE)[number]; input: string };
  const program: fc.Arbitrary<Program> = fc.oneof(
    { weight: 3, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: decodable }, { weight: 1, arbitrary: u32 }), { minLength: 1, maxLength: 48 }).map((ws) => ({ kind: 'words' as const, words: ws })) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('elf' as const), name: fc.constantFrom(...FIRMWARE), input: fc.constantFrom('', 'b', 'c', 'f', 'l', 'h', 'x\n') }) },
  );
  const schedule: fc.Arbitrary<Schedule> = fc.record({ quantum: fc.constantFrom(1, 7, 64, 1 << 16), order: fc.constantFrom('forward' as const, 'reverse' as const, 'shuffle' as const), seed: fc.nat() });
  const arb = fc.record({ program, n: fc.integer({ min: 1, max: 4 }), strict: fc.boolean(), fast: schedule, reference: schedule });

  /** What must agree between the fast and the reference models, whatever the host's schedule. */
  const summary = (b: BoardsResult) => ({
    exit: b.exit, clocks: b.clocks, link: b.link,
    boards: b.boards.map((r) => ({ exit: r.exit, reason: r.reason, clocks: r.clocks, instret: r.instret, pc: r.pc, counters: r.counters, fatal: r.tpuFatal, errors: r.tpuErrors })),
  });

  it('every board ends documented, within its limit, its counters on the run\'s clocks; fast ≡ reference under any schedule', async () => {
    await campaign('boards', arb, ({ program: p, n, strict, fast, reference }) => {
      const elf = p.kind === 'words' ? buildElf([{ vaddr: 0, data: words([...prefix, ...p.words]) }]) : readFileSync(elfPath(p.name));
      const input = p.kind === 'elf' ? new TextEncoder().encode(p.input) : undefined;
      const go = (ref: boolean, s: Schedule) => runBoards(elf, n, defaultConfig(), { reference: ref, strict, schedule: s, input, maxCycles: MAX });
      const a = go(false, fast), b = go(true, reference);
      expect(summary(a)).toEqual(summary(b));
      for (const r of a.boards) {
        expect(r.exit).not.toBe(EXIT.INTERNAL);
        if (r.reason === 'exit') expect(r.exit).toBe(r.guestExit! & 0xff);
        else expect(STOP_STATUSES.has(r.exit), `${r.reason} ${r.exit}`).toBe(true);
        expect(r.clocks).toBeLessThanOrEqual(MAX + 2000);
        // The counters count the run's clocks, and at most the SRAM look-ahead more: a CPU access to the SRAM
        // has the TPU process the clocks it holds the SRAM bus (hardware.md §2) before the CPU gets there.
        if (!r.perfWindow) {
          expect(r.counters.cycles, 'counters count the run\'s clocks').toBeGreaterThanOrEqual(r.clocks);
          expect(r.counters.cycles, 'counters count the run\'s clocks').toBeLessThanOrEqual(r.clocks + SRAM_LOOKAHEAD);
        }
        count('boards', r.reason);
      }
    }, [
      // The full-queue deadlock: every board stops at the same clock, with the same line and counters.
      { program: { kind: 'elf', name: 'tpu_deadlock', input: 'f' }, n: 3, strict: false, fast: { quantum: 1 << 16, order: 'forward', seed: 0 }, reference: { quantum: 7, order: 'shuffle', seed: 5 } },
      // A jump out of BRAM at a turn's end: the fetch fault ends the run a clock before the CPU's clock,
      // which the TPU had counted (with and without --strict).
      { program: { kind: 'words', words: [3107979375, 55] }, n: 1, strict: false, fast: { quantum: 1, order: 'forward', seed: 0 }, reference: { quantum: 1, order: 'forward', seed: 0 } },
      { program: { kind: 'words', words: [25231471, 55] }, n: 1, strict: true, fast: { quantum: 1, order: 'forward', seed: 0 }, reference: { quantum: 1, order: 'shuffle', seed: 1672344780 } },
    ]);
  });
});

// ---------------------------------------------------------------------------

/** `picotpu ARGS` in this process: the status and what it wrote to standard error. */
const cli = cliInProcess;

const NO_STACK = /internal error|\n\s+at |TypeError|RangeError/;

describe('fuzz: both boards\' ELFs', () => {
  const BASES = {
    picotpu: new Uint8Array(readFileSync(elfPath('hello'))),
    'picotpu-min': buildElf([{ vaddr: 0, data: words(exitZero()) }, { vaddr: SRAM_BASE, data: Uint8Array.from({ length: 64 }, (_, i) => i), memsz: 128 }]),
    seed: new Uint8Array(readFileSync(join(root, 'build', 'fw', 'seed', 'dma_roundtrip.elf'))),
  };
  type Base = keyof typeof BASES;
  const EDGES = [0, 1, 2, 3, 4, 0x3ffc, 0x4000, 0x4004, 0xfffc, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff];
  const value = fc.oneof(fc.constantFrom(...EDGES), u32);
  type Mutation = { kind: 'truncate'; at: number } | { kind: 'ehdr'; field: keyof typeof EHDR_FIELDS; value: number }
    | { kind: 'phdr'; seg: number; field: keyof typeof PHDR_FIELDS; value: number } | { kind: 'flip'; at: number; xor: number };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('ehdr' as const), field: fc.constantFrom(...(Object.keys(EHDR_FIELDS) as (keyof typeof EHDR_FIELDS)[])), value }),
    fc.record({ kind: fc.constant('phdr' as const), seg: fc.nat({ max: 2 }), field: fc.constantFrom(...(Object.keys(PHDR_FIELDS) as (keyof typeof PHDR_FIELDS)[])), value }),
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  );
  function mutate(base: Uint8Array, muts: Mutation[]): Uint8Array {
    let b = base.slice();
    for (const m of muts) {
      const phoff = b.length >= 32 ? new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(28, true) : 0;
      if (m.kind === 'truncate') b = b.slice(0, m.at % Math.max(1, b.length));
      else if (m.kind === 'ehdr') setField(b, EHDR_FIELDS[m.field][0], EHDR_FIELDS[m.field][1], m.value);
      else if (m.kind === 'phdr') setField(b, phoff + PHDR * m.seg + PHDR_FIELDS[m.field][0], 4, m.value);
      else if (b.length) b[m.at % b.length] ^= m.xor;
    }
    return b;
  }
  const arb = fc.record({ base: fc.constantFrom(...(Object.keys(BASES) as Base[])), muts: fc.array(mutation, { minLength: 1, maxLength: 4 }), reference: fc.boolean() });

  it('picotpu run: one line and 164 (or 165) for what is refused, a documented stop for what runs; never 166', async () => {
    let i = 0;
    await campaign('elfBoth', arb, async ({ base, muts, reference }) => {
      const path = join(tmp, `e${i++}.elf`);
      writeFileSync(path, mutate(BASES[base], muts));
      const board = base === 'seed' ? ['--board', 'seed'] : [];
      const r = await cli(['run', ...board, path, '--no-report', '--max-cycles', '20000', ...(reference ? ['--reference'] : [])]);
      expect(r.stderr).not.toMatch(NO_STACK);
      expect(r.status).not.toBe(EXIT.INTERNAL);
      if (r.status === EXIT.BAD_PROGRAM || r.status === EXIT.USAGE) expect(r.stderr).toMatch(/^picotpu: [^\n]+\n$/);
      count('elfBoth', `${base === 'seed' ? 'seed' : 'picotpu'} ${r.status}`);
    });
  });
});

// ---------------------------------------------------------------------------

describe('fuzz: the seed board\'s TPU streams', () => {
  const opcodes = [[0x01, 0x02], [0x01], [0x01]]; // MXU GEOM/MM, VPU OP, DMA MOVE (by seed unit number)
  const command: fc.Arbitrary<SeedOp> = fc.record({
    unit: fc.constantFrom(SEED_MXU, SEED_VPU, SEED_DMA), valid: fc.nat({ max: 9 }), pick: fc.nat(), w: fc.array(u32, { minLength: 4, maxLength: 4 }),
    small: fc.boolean(), gap: fc.oneof(fc.constant(0), fc.nat({ max: 300 })),
  }).map(({ unit, valid, pick, w, small, gap }) => {
    // Mostly valid opcodes; the lengths kept short half the time so that commands finish within the budget.
    const op = valid > 0 ? opcodes[unit][pick % opcodes[unit].length] : w[0] & 0xff;
    const w2 = small ? (w[2] & 0x00ff_007f) : w[2];
    return { kind: 'cmd' as const, unit, words: [((w[0] & ~0xff) | op) >>> 0, w[1], w2 >>> 0, w[3]], gap };
  });
  const op: fc.Arbitrary<SeedOp> = fc.oneof(
    { weight: 8, arbitrary: command },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), unit: fc.nat({ max: 2 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'waitAll' as const }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('spadWrite' as const), addr: fc.nat({ max: 0xffff }), value: u32, wstrb: fc.nat({ max: 15 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('spadRead' as const), addr: fc.nat({ max: 0xffff }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('idle' as const), clocks: fc.nat({ max: 500 }) }) },
  );
  const SRAM = new Uint8Array(512 * 1024).map((_, i) => (i * 37 + 11 + (i >> 9)) & 0xff);

  it('the fast and the reference models agree on every access, command, counter, hazard and byte', async () => {
    await campaign('seedTpu', fc.array(op, { minLength: 1, maxLength: 24 }), (ops) => {
      const all = [...ops, { kind: 'waitAll' as const }];
      const ref = drive(true, SRAM.slice(), all, undefined, 60_000);
      const fast = drive(false, SRAM.slice(), all, undefined, 60_000);
      expect(fast.trace).toEqual(ref.trace);
      expect(fast.commands).toEqual(ref.commands);
      expect(fast.tpu.counters()).toEqual(ref.tpu.counters());
      expect(fast.tpu.hazards).toEqual(ref.tpu.hazards);
      expect(fast.tpu.stuck).toBe(ref.tpu.stuck);
      expect(Buffer.compare(fast.tpu.spad, ref.tpu.spad)).toBe(0);
      expect(Buffer.compare(fast.tpu.sram, ref.tpu.sram)).toBe(0);
      count('seedTpu', ref.tpu.stuck ? 'deadlock' : ref.tpu.hazards.length > 0 ? 'hazard' : 'clean');
    }, [
      // A and B of an MM in one bank, found inside a stretch the fast model skipped: the hazard's clock is the starving clock.
      [{ kind: 'cmd', unit: 0, words: [1680025601, 880569593, 8454236, 3393888458], gap: 0 }, { kind: 'cmd', unit: 0, words: [2, 4237811081, 16711779, 4294967294], gap: 184 },
        { kind: 'cmd', unit: 2, words: [4294967041, 3282180991, 2818133, 23], gap: 2 }, { kind: 'cmd', unit: 1, words: [3348448513, 4222271393, 25, 3795659984], gap: 0 },
        { kind: 'spadWrite', addr: 9611, value: 3924984997, wstrb: 3 }, { kind: 'waitAll' }],
    ]);
  });
});

// ---------------------------------------------------------------------------

describe('fuzz: standard streams to /dev/full', () => {
  const COMMANDS: string[][] = [
    ['run', elfPath('hello')], ['run', elfPath('hello'), '--max-cycles', '100'], ['run', '/dev/null'],
    ['run', elfPath('hello'), '--strict=x'], ['run', '--boards', '2', elfPath('link_ring')], ['debug', elfPath('hello')],
    ['eval', '--n', '3', '--tpu', '0'], ['demo', '1+2'], ['bench', '--help'], ['run', '--board', 'seed', join(root, 'build', 'fw', 'seed', 'done.elf')],
  ];
  type Outcome = { status: number | null; stdout: number; stderr: string };
  /** `picotpu ARGS` with standard output and standard error to `out` and `err` ('pipe' collects; a path is opened for writing). */
  function spawnCli(args: string[], out: string | 'pipe', err: string | 'pipe'): Promise<Outcome> {
    const fds: number[] = [];
    const open = (p: string | 'pipe') => (p === 'pipe' ? 'pipe' : (fds.push(openSync(p, 'w')), fds.at(-1)!));
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: root, stdio: ['ignore', open(out), open(err)] });
      for (const fd of fds) closeSync(fd);
      let stdout = 0, stderr = '';
      child.stdout?.on('data', (c: Buffer) => { stdout += c.length; });
      child.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  }
  const normal = new Map<number, Promise<Outcome>>();

  it('a full standard output is one line and 165 (or the outcome\'s status when nothing was written); a full standard error changes no status', async () => {
    const arb = fc.record({ command: fc.nat({ max: COMMANDS.length - 1 }), full: fc.constantFrom(1, 2) });
    await campaign('streams', arb, async ({ command, full }) => {
      const args = COMMANDS[command];
      if (!normal.has(command)) normal.set(command, spawnCli(args, 'pipe', 'pipe'));
      const want = await normal.get(command)!;
      const got = await spawnCli(args, full === 1 ? '/dev/full' : 'pipe', full === 2 ? '/dev/full' : 'pipe');
      expect(got.status).not.toBe(EXIT.INTERNAL);
      if (full === 2) expect(got.status, `${args.join(' ')} 2>/dev/full`).toBe(want.status);
      else if (want.stdout > 0) expect([got.status, got.stderr], `${args.join(' ')} >/dev/full`).toEqual([165, 'picotpu: cannot write standard output: no space left on device (ENOSPC)\n']);
      else expect(got.status).toBe(want.status);
      if (full === 1) expect(got.stderr).not.toMatch(NO_STACK);
      count('streams', `${full === 1 ? 'stdout' : 'stderr'} full: ${got.status}`);
    });
  });
});
