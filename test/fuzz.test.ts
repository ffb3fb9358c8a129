// The fuzz suite (issue #22, "nothing lost, no internal error, no hang"):
// seeded property tests (fast-check) that throw random and malformed input at
// the emulator and accept only the documented outcomes (docs/hardware.md §7):
//   words   random instruction words in BRAM, a small --max-cycles;
//   elf     mutated ELFs through the loader, the CLI's main() and a spawned CLI;
//   tpu     random TPU command streams pushed by guest code, fast ≡ reference;
//   model   mutated model blobs through readModel/loadAdder and the firmware;
//   rsp     malformed GDB remote-protocol traffic at the gdb stub.
// Never status 166, never a JS exception escaping, never a run past its clock
// limit. Every class has a case budget and a time budget (fast-check stops a
// class at its time budget and reports what it ran). The seed is printed;
// FUZZ_SEED=n reproduces a campaign, FUZZ_SCALE=k runs k times the budgets.
// On a failure fast-check prints the shrunk counterexample (the smallest
// reproducer it found), the seed and the path to replay it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { BRAM_SIZE } from '../boards/picotpu/bus.ts';
import { main } from '../cli/main.ts';
import { defaultConfig } from '../emu/config.ts';
import { ElfError, parseElf } from '../emu/elf.ts';
import { EXIT } from '../emu/exit-status.ts';
import { INSNS } from '../emu/isa.ts';
import { GDB_HOST, serveGdb } from '../emu/debug/gdb-server.ts';
import { type RunResult } from '../emu/machine.ts';
import { Machine } from '../boards/machine.ts';
import { AdderModelError, loadAdder, solveOnTpu, ADDER_MODEL } from '../study/addition-run.ts';
import { HEADER_FIELDS, LAYER_FIELDS, readModel } from '../model/format.ts';
import { MODEL_ELF, ModelRunError } from '../model/run.ts';
import { UNITS } from '../periph/regs.ts';
import { SRAM_BASE, SRAM_SIZE } from '../periph/sram.ts';
import {
  buildElf, Campaigns, EHDR, EHDR_FIELDS, exitZero, fuzzScale, fuzzSeed, PHDR, PHDR_FIELDS, READABLE_TPU_REGS, rspFrame, rv, setField,
  tpuGuest, words, type GuestCommand,
} from './helpers/fuzz-kit.ts';
import { randomScript } from './helpers/tpu-script.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEED = fuzzSeed();
const SCALE = fuzzScale();
console.log(`fuzz: seed ${SEED} (reproduce with FUZZ_SEED=${SEED}), scale ${SCALE}`);

/** Per class: cases and seconds (× FUZZ_SCALE). The classes add up to about 30 s on 2 cores. */
const BUDGET = {
  words: { cases: 4000, seconds: 5 },
  elf: { cases: 3000, seconds: 4 },
  elfCli: { cases: 60, seconds: 3 },
  tpu: { cases: 1000, seconds: 8 },
  model: { cases: 300, seconds: 6 },
  rsp: { cases: 300, seconds: 5 },
} as const;
type ClassName = keyof typeof BUDGET;

const campaigns = new Campaigns<ClassName>(SEED, SCALE, BUDGET, 0);
const count = (cls: ClassName, outcome: string): void => campaigns.count(cls, outcome);
const campaign = <T>(cls: ClassName, arb: fc.Arbitrary<T>, check: (v: T) => void | Promise<void>, examples: T[] = []): Promise<void> =>
  campaigns.run(cls, arb, check, examples);

afterAll(() => {
  console.log([`fuzz: seed ${SEED}, scale ${SCALE}`, ...campaigns.summary()].join('\n'));
});

/** The statuses a run of any guest may end with (§7): never 166. */
const RUN_STATUSES = new Set<number>([EXIT.TRAP, EXIT.BUS_ERROR, EXIT.CYCLE_LIMIT, EXIT.TPU_ERROR]);
function expectDocumentedRun(r: RunResult, maxCycles: number, m: Machine): void {
  expect(r.exit).not.toBe(EXIT.INTERNAL);
  if (r.reason === 'exit') expect(r.exit).toBe(r.guestExit! & 0xff);
  else expect(RUN_STATUSES.has(r.exit), `${r.reason} ${r.exit}`).toBe(true);
  // The limit is checked before each instruction: one instruction may end past it,
  // by its own clocks and, for a PUSH into a full queue, the clocks it stalled.
  expect(r.clocks).toBeLessThanOrEqual(maxCycles + 200 + m.tpu.whole.stall);
}

const u32 = fc.integer({ min: 0, max: 0xffffffff });

// ---------------------------------------------------------------------------

describe('fuzz: random instruction words', () => {
  const MAX = 5000;
  it('never 166, never an exception, stops by the cycle limit', async () => {
    // Half the programs first point registers at the devices, so loads and stores reach them.
    const prefix = [
      ...rv.li(8, SRAM_BASE), ...rv.li(9, 0x2000_0000), ...rv.li(10, 0x1000_0000), ...rv.li(11, 0x8000),
      ...rv.li(12, 0x2000_0100), ...rv.li(13, SRAM_BASE + SRAM_SIZE - 4),
    ];
    // Mostly words that decode (an ISA entry's match bits, the other bits random), some anything.
    const decodable = fc.record({ insn: fc.constantFrom(...INSNS), bits: u32 }).map(({ insn, bits }) => ((bits & ~insn.mask) | insn.match) >>> 0);
    const arb = fc.record({
      devices: fc.boolean(),
      words: fc.array(fc.oneof({ weight: 4, arbitrary: decodable }, { weight: 1, arbitrary: u32 }), { minLength: 1, maxLength: 64 }),
      reference: fc.boolean(),
      strict: fc.boolean(),
    });
    await campaign('words', arb, ({ devices, words: ws, reference, strict }) => {
      const m = new Machine(defaultConfig(), { reference, strict });
      m.loadElf(buildElf([{ vaddr: 0, data: words([...(devices ? prefix : []), ...ws]) }]));
      m.bus.console.captureOutput();
      const r = m.run(MAX);
      expectDocumentedRun(r, MAX, m);
      count('words', r.reason);
    });
  });
});

// ---------------------------------------------------------------------------

/** A small well-formed program: code in BRAM (exit 0), data in SRAM with .bss. */
const BASE_ELF = buildElf([
  { vaddr: 0, data: words(exitZero()) },
  { vaddr: SRAM_BASE, data: Uint8Array.from({ length: 64 }, (_, i) => i), memsz: 128 },
]);
// Plain Uint8Arrays: Buffer.slice() would share memory, and a mutation would corrupt the base.
const REAL_ELF = new Uint8Array(readFileSync(join(root, 'build', 'fw', 'hello.elf')));

/** Values at the edges: of memory, of the file, of the field. */
const edgeValue = (size: number) => fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 4, 0x7fff, 0xffff, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff),
  fc.constantFrom(size, size - 1, size + 1, EHDR, EHDR + PHDR),
  fc.constantFrom(BRAM_SIZE - 4, BRAM_SIZE, BRAM_SIZE + 4, SRAM_BASE - 4, SRAM_BASE + SRAM_SIZE - 4, SRAM_BASE + SRAM_SIZE),
  u32,
);

type ElfMutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'ehdr'; field: keyof typeof EHDR_FIELDS; value: number }
  | { kind: 'phdr'; seg: number; field: keyof typeof PHDR_FIELDS; value: number }
  | { kind: 'filesz>memsz'; seg: number; by: number }
  | { kind: 'overlap'; by: number }
  | { kind: 'edge'; seg: number; from: 'BRAM end' | 'SRAM end'; back: number }
  | { kind: 'ident'; at: number; value: number }
  | { kind: 'flip'; at: number; xor: number };

const elfMutation = (size: number): fc.Arbitrary<ElfMutation> => fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat({ max: size - 1 }) }),
  fc.record({ kind: fc.constant('ehdr' as const), field: fc.constantFrom(...(Object.keys(EHDR_FIELDS) as (keyof typeof EHDR_FIELDS)[])), value: edgeValue(size) }),
  fc.record({ kind: fc.constant('phdr' as const), seg: fc.nat({ max: 2 }), field: fc.constantFrom(...(Object.keys(PHDR_FIELDS) as (keyof typeof PHDR_FIELDS)[])), value: edgeValue(size) }),
  fc.record({ kind: fc.constant('filesz>memsz' as const), seg: fc.nat({ max: 1 }), by: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('overlap' as const), by: fc.nat({ max: 16 }) }),
  fc.record({ kind: fc.constant('edge' as const), seg: fc.nat({ max: 1 }), from: fc.constantFrom('BRAM end' as const, 'SRAM end' as const), back: fc.integer({ min: -8, max: 64 }) }),
  fc.record({ kind: fc.constant('ident' as const), at: fc.nat({ max: 15 }), value: fc.nat({ max: 255 }) }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat({ max: size - 1 }), xor: fc.integer({ min: 1, max: 255 }) }),
);

function mutateElf(base: Uint8Array, muts: readonly ElfMutation[]): Uint8Array {
  let b = base.slice();
  const dv = () => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const phoff = (seg: number) => (b.length >= EHDR ? dv().getUint32(28, true) : 0) + PHDR * seg;
  const ph = (seg: number, field: keyof typeof PHDR_FIELDS) => phoff(seg) + PHDR_FIELDS[field][0];
  const get = (at: number) => (at + 4 <= b.length ? dv().getUint32(at, true) : 0);
  for (const m of muts) {
    switch (m.kind) {
      case 'truncate': b = b.slice(0, m.at % Math.max(1, b.length)); break;
      case 'ehdr': setField(b, EHDR_FIELDS[m.field][0], EHDR_FIELDS[m.field][1], m.value); break;
      case 'phdr': setField(b, ph(m.seg, m.field), 4, m.value); break;
      case 'filesz>memsz': setField(b, ph(m.seg, 'p_memsz'), 4, Math.max(0, get(ph(m.seg, 'p_filesz')) - m.by)); break;
      case 'overlap': setField(b, ph(1, 'p_vaddr'), 4, get(ph(0, 'p_vaddr')) + m.by); break;
      case 'edge': {
        const end = m.from === 'BRAM end' ? BRAM_SIZE : SRAM_BASE + SRAM_SIZE;
        setField(b, ph(m.seg, 'p_vaddr'), 4, end - get(ph(m.seg, 'p_memsz')) + m.back);
        break;
      }
      case 'ident': if (m.at < b.length) b[m.at] = m.value; break;
      case 'flip': if (b.length) b[m.at % b.length] ^= m.xor; break;
    }
  }
  return b;
}

/** Loads `bytes` as the CLI would: a refusal must be an ElfError (status 164). */
function loadOutcome(bytes: Uint8Array): { m: Machine | null; refused: string | null } {
  const m = new Machine();
  try {
    m.loadElf(bytes);
    return { m, refused: null };
  } catch (e) {
    if (!(e instanceof ElfError)) throw new Error(`the loader threw ${(e as Error)?.constructor?.name}, not an ElfError (status 166): ${(e as Error)?.message}`);
    expect(e.message).not.toMatch(/\n/);
    return { m: null, refused: e.message };
  }
}

/** What a loaded image must satisfy: each segment's bytes inside one memory, at most memsz of them. */
function expectSegmentsSound(bytes: Uint8Array): void {
  const elf = parseElf(bytes);
  for (const s of elf.segments) {
    const inBram = s.vaddr + s.memsz <= BRAM_SIZE;
    const inSram = s.vaddr >= SRAM_BASE && s.vaddr + s.memsz <= SRAM_BASE + SRAM_SIZE;
    expect(inBram || inSram, `segment 0x${s.vaddr.toString(16)}+${s.memsz}`).toBe(true);
    expect(s.data.length, 'p_filesz > p_memsz must be refused').toBeLessThanOrEqual(s.memsz);
  }
}

describe('fuzz: mutated ELFs', () => {
  const MAX = 2000;
  it('the loader refuses with an ElfError (164) or loads a sound image that runs to a documented stop', async () => {
    const arb = fc.record({ real: fc.boolean(), muts: fc.array(elfMutation(REAL_ELF.length), { minLength: 1, maxLength: 4 }) });
    await campaign('elf', arb, ({ real, muts }) => {
      const bytes = mutateElf(real ? REAL_ELF : BASE_ELF, muts);
      const { m, refused } = loadOutcome(bytes);
      if (!m) { count('elf', 'refused 164'); return; }
      expectSegmentsSound(bytes);
      m.bus.console.captureOutput();
      const r = m.run(MAX);
      expectDocumentedRun(r, MAX, m);
      count('elf', `loaded, ${r.reason}`);
      void refused;
    }, [{ real: false, muts: [{ kind: 'filesz>memsz', seg: 0, by: 1 }] }]);
  });

  it('picotpu run (main() in-process): 164 and one line for what the loader refuses, never 166', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-fuzz-'));
    try {
      const arb = fc.array(elfMutation(BASE_ELF.length), { minLength: 1, maxLength: 3 });
      let n = 0;
      await campaign('elfCli', arb, async (muts) => {
        const bytes = mutateElf(BASE_ELF, muts);
        const path = join(dir, `case${n++}.elf`);
        writeFileSync(path, bytes);
        const { status, stderr } = await mainCaptured(['run', path, '--max-cycles', '2000', '--no-report']);
        expect(status, stderr).not.toBe(EXIT.INTERNAL);
        const refused = loadOutcome(bytes).refused;
        if (refused) {
          expect(status, stderr).toBe(EXIT.BAD_PROGRAM);
          expect(stderr).toBe(`picotpu: ${refused}\n`);
        }
        count('elfCli', `status ${status}`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('picotpu run (spawned): a truncated ELF and one with p_filesz > p_memsz at the BRAM end exit 164 with one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-fuzz-'));
    try {
      const cases = [
        mutateElf(REAL_ELF, [{ kind: 'truncate', at: 100 }]),
        mutateElf(BASE_ELF, [{ kind: 'edge', seg: 0, from: 'BRAM end', back: 0 }, { kind: 'filesz>memsz', seg: 0, by: 4 }]),
      ];
      cases.forEach((bytes, i) => {
        const path = join(dir, `spawn${i}.elf`);
        writeFileSync(path, bytes);
        const p = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', path, '--no-report', '--max-cycles', '2000'], {
          cwd: root, encoding: 'utf8', timeout: 60_000,
        });
        expect(p.status, `case ${i}: ${p.stderr}`).toBe(EXIT.BAD_PROGRAM);
        expect(p.stderr).toMatch(/^picotpu: [^\n]+\n$/);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Runs the CLI's main() in this process, with its standard error captured. */
async function mainCaptured(argv: string[]): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    const status = await main(argv);
    return { status, stderr };
  } finally {
    process.stderr.write = write;
  }
}

// ---------------------------------------------------------------------------

describe('fuzz: TPU command streams from the guest', () => {
  const MAX = 150_000;
  const cfg = defaultConfig();
  /** A semi-valid command: the push of a random TPU script (tests/helpers/tpu-script.ts). */
  const scripted = fc.integer().map((seed) => randomScript(seed, cfg, 24).find((e) => e.kind === 'push'))
    .filter((e) => e !== undefined)
    .map((e) => (e!.kind === 'push' ? { unit: e!.unit, args: [...e!.args.slice(0, 5), e!.token], push: e!.value } : null)!);
  const garbage = fc.record({
    unit: fc.nat({ max: 2 }),
    args: fc.array(u32, { minLength: 6, maxLength: 6 }),
    push: u32,
  });
  /** A token: none, on an early ticket of some unit, or anything. */
  const token = fc.oneof(
    { weight: 6, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.record({ on: fc.integer({ min: 1, max: 3 }), ticket: fc.nat({ max: 4 }) }).map(({ on, ticket }) => ((on << 30) | ticket) >>> 0) },
    { weight: 1, arbitrary: u32 },
  );
  const command: fc.Arbitrary<GuestCommand> = fc.record({
    base: fc.oneof({ weight: 3, arbitrary: scripted }, { weight: 1, arbitrary: garbage }),
    token: fc.option(token, { nil: undefined }),
    reads: fc.array(fc.constantFrom(...READABLE_TPU_REGS), { maxLength: 2 }),
  }).map(({ base, token: t, reads }) => ({
    unit: base.unit, args: t === undefined ? base.args : [...base.args.slice(0, 5), t], push: base.push, reads,
  }));

  function runStream(code: number[], reference: boolean, strict: boolean) {
    const m = new Machine(cfg, { reference, strict });
    m.loadElf(buildElf([{ vaddr: 0, data: words(code) }]));
    m.bus.console.captureOutput();
    const r = m.run(MAX);
    return { m, r };
  }

  it('ends by EXIT, a TPU stop (163) or the cycle limit, identically on the fast and reference models', async () => {
    const arb = fc.record({ cmds: fc.array(command, { minLength: 1, maxLength: 10 }), strict: fc.boolean() });
    await campaign('tpu', arb, ({ cmds, strict }) => {
      const code = tpuGuest(cmds);
      expect(code.length * 4).toBeLessThan(BRAM_SIZE);
      const fast = runStream(code, false, strict);
      const ref = runStream(code, true, strict);
      for (const { m, r } of [fast, ref]) {
        expectDocumentedRun(r, MAX, m);
        expect(['exit', 'tpu-error', 'cycle-limit'], r.reason).toContain(r.reason);
        if (r.reason === 'exit') expect(r.exit).toBe(0);
        // Without --strict only a deadlock stops the TPU.
        if (r.reason === 'tpu-error' && !strict) expect(r.tpuFatal).toMatch(/^TPU deadlock at clock \d+: /);
        if (r.reason === 'tpu-error' && strict) expect(r.tpuFatal).toMatch(/^TPU (error|deadlock) at clock \d+: /);
      }
      const seen = (x: typeof fast) => ({
        reason: x.r.reason, exit: x.r.exit, clocks: x.r.clocks, instret: x.r.instret, pc: x.r.pc, fatal: x.r.tpuFatal,
        errors: x.r.tpuErrors.map((e) => ({ ...e })), counters: x.r.counters,
        done: x.m.tpu.units.map((u) => u.done), spad: Buffer.from(x.m.tpu.spad).toString('base64'),
        sram: Buffer.from(x.m.sramBytes).toString('base64'),
      });
      expect(seen(ref)).toEqual(seen(fast));
      count('tpu', `${strict ? 'strict ' : ''}${fast.r.reason}${fast.r.tpuFatal?.startsWith('TPU deadlock') ? ' (deadlock)' : ''}`);
    });
  });
});

// ---------------------------------------------------------------------------

describe('fuzz: mutated model blobs', () => {
  const MAX = 100_000;
  const BLOB = new Uint8Array(readFileSync(ADDER_MODEL));
  const MODEL_PROGRAM = new Uint8Array(readFileSync(MODEL_ELF));
  const fields = HEADER_FIELDS.map((f) => ({ field: f.name, at: f.offset }));
  const LAYER_TABLE = new DataView(BLOB.buffer, BLOB.byteOffset).getUint32(HEADER_FIELDS.find((f) => f.name === 'LAYER_TABLE')!.offset, true);
  const layerFields = LAYER_FIELDS.map((f) => ({ field: `layer 0 ${f.name}`, at: LAYER_TABLE + f.offset }));

  type BlobMutation =
    | { kind: 'truncate'; at: number }
    | { kind: 'extend'; by: number }
    | { kind: 'word'; field: { field: string; at: number }; value: number }
    | { kind: 'flip'; at: number; xor: number }
    | { kind: 'weights'; at: number; xor: number };
  const mutation: fc.Arbitrary<BlobMutation> = fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.oneof(fc.nat({ max: 256 }), fc.nat({ max: BLOB.length - 1 })) }),
    fc.record({ kind: fc.constant('extend' as const), by: fc.oneof(fc.nat({ max: 64 }), fc.constant(SRAM_SIZE - BLOB.length + 1)) }),
    fc.record({ kind: fc.constant('word' as const), field: fc.constantFrom(...fields, ...layerFields), value: fc.oneof(fc.constantFrom(0, 1, 2, 7, 8, 9, 31, 32, 255, 256, 0x7fffffff, 0xffffffff, BLOB.length, SRAM_SIZE), u32) }),
    fc.record({ kind: fc.constant('flip' as const), at: fc.oneof(fc.nat({ max: 1023 }), fc.nat({ max: BLOB.length - 1 })), xor: fc.integer({ min: 1, max: 255 }) }),
    // Past the header and the layer table: the weights (any bytes are a model) and the buffers.
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('weights' as const), at: fc.integer({ min: 4096, max: BLOB.length - 1 }), xor: fc.integer({ min: 1, max: 255 }) }) },
  );
  function mutateBlob(muts: readonly BlobMutation[]): Uint8Array {
    let b: Uint8Array = BLOB.slice();
    for (const m of muts) {
      if (m.kind === 'truncate') b = b.slice(0, Math.min(m.at, b.length));
      else if (m.kind === 'extend') { const x = new Uint8Array(b.length + m.by); x.set(b); b = x; }
      else if (m.kind === 'word') setField(b, m.field.at, 4, m.value);
      else if (m.at < b.length) b[m.at] ^= m.xor; // flip, weights
    }
    return b;
  }

  it('readModel and loadAdder refuse with one message (164) or the model runs; the firmware on the raw blob never ends in 166', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-fuzz-'));
    try {
      let n = 0;
      await campaign('model', fc.array(mutation, { minLength: 1, maxLength: 3 }), async (muts) => {
        const bytes = mutateBlob(muts);
        const outcome: string[] = [];
        // The format parser: a model, or an Error with a message (never a TypeError, RangeError ...).
        try {
          readModel(bytes);
        } catch (e) {
          expect((e as Error).constructor, (e as Error).message).toBe(Error);
        }
        // The CLI's path (picotpu demo/eval --model): AdderModelError is status 164.
        const path = join(dir, `blob${n++}.ptm`);
        writeFileSync(path, bytes);
        let model = null;
        try {
          model = loadAdder(path);
        } catch (e) {
          expect(e, (e as Error).message).toBeInstanceOf(AdderModelError);
          outcome.push('refused 164');
        }
        if (model) {
          try {
            const s = solveOnTpu(model, { a: '12', b: '34' }, 0, { maxCycles: MAX });
            outcome.push(`solved ${s.correct ? 'right' : 'wrong'}`);
          } catch (e) {
            if (e instanceof ModelRunError) {
              expect(e.result.exit).not.toBe(EXIT.INTERNAL);
              outcome.push(`run ${e.result.reason}`);
            } else {
              // Refused before the run (a blob that does not fit, say): the CLI must say so with 164, not 166.
              const { status, stderr } = await mainCaptured(['demo', '--model', path, '12+34']);
              expect(status, `picotpu demo --model: ${stderr}`).toBe(EXIT.BAD_PROGRAM);
              expect(stderr).toMatch(/^picotpu: [^\n]+\n$/);
              outcome.push('demo 164');
            }
          }
        }
        // The firmware reading the raw blob from the SRAM (picotpu run model.elf --sram blob@0).
        const m = new Machine();
        m.loadElf(MODEL_PROGRAM);
        try {
          m.loadSram(bytes, 0);
        } catch (e) {
          expect(e).toBeInstanceOf(ElfError);
          outcome.push('sram 164');
          count('model', outcome.join(', '));
          return;
        }
        m.bus.console.captureOutput(true);
        const r = m.run(MAX);
        expectDocumentedRun(r, MAX, m);
        outcome.push(`firmware ${r.reason === 'exit' ? `exit ${r.exit}` : r.reason}`);
        count('model', outcome.join(', '));
      }, [[{ kind: 'word', field: { field: 'MAX_SEQ', at: HEADER_FIELDS.find((f) => f.name === 'MAX_SEQ')!.offset }, value: 255 }]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------

describe('fuzz: malformed RSP traffic at the gdb stub', () => {
  /** The guest: a loop (so continues end at --max-cycles, not at an exit). */
  const LOOP = buildElf([{ vaddr: 0, data: words([rv.addi(5, 5, 1), 0xffdff06f /* jal x0, -4 */]) }]);
  const FIRST_WORD = Buffer.from(LOOP.subarray(EHDR + PHDR, EHDR + PHDR + 4)).toString('hex');
  const hex = (n: number) => (n >>> 0).toString(16);

  /** One chunk of traffic: a well-framed packet, a broken frame or raw bytes. */
  const packetBody = fc.oneof(
    fc.constantFrom('?', 'g', 'c', 's', 'k', 'D', 'vCont?', 'vCont;c', 'vCont;s', 'qSupported', 'QStartNoAckMode', 'qXfer:features:read:target.xml:0,ffff',
      'qAttached', 'qC', 'qfThreadInfo', 'Hg0', 'Hc-1', 'vMustReplyEmpty', 'qRcmd,756e697473', 'qRcmd,', 'qRcmd,zz', 'X0,0:', 'm', 'M', 'p', 'P', 'Z0', 'z', 'Z9,0,4'),
    fc.tuple(fc.constantFrom('m', 'M', 'X', 'Z0,', 'z0,', 'Z2,', 'Z3,', 'Z4,', 'p', 'P', 'G', 'qRcmd,', 'vCont;'), u32, fc.integer({ min: -2, max: 0x5000 }), fc.string({ maxLength: 24 }))
      .map(([cmd, a, len, tail]) => `${cmd}${hex(a)},${len < 0 ? hex(len) : len.toString(16)}${tail ? `:${tail}` : ''}`),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
  const chunk = fc.oneof(
    { weight: 5, arbitrary: packetBody.map(rspFrame) },
    { weight: 1, arbitrary: packetBody.map((p) => `$${p}#zz`) },
    { weight: 1, arbitrary: packetBody.map((p) => `$${p}#00`) },
    { weight: 1, arbitrary: packetBody.map((p) => `$${p}`) },
    { weight: 1, arbitrary: fc.constantFrom('+', '-', '\x03', '#', '$', '}', '*', '$#00', `$${'a'.repeat(0x4100)}#00`) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  );

  /** A connection to a fresh server; collects every byte it sends. */
  async function session() {
    const machine = new Machine();
    machine.loadElf(LOOP);
    machine.bus.console.captureOutput();
    const log: string[] = [];
    let onPort!: (p: number) => void;
    const portP = new Promise<number>((r) => { onPort = r; });
    let ended: 'open' | 'resolved' | 'rejected' = 'open';
    let failure: unknown = null;
    const done = serveGdb(machine, { port: 0, maxCycles: 20_000, log: (m) => log.push(m), onListening: (p) => onPort(p) })
      .then(() => { ended = 'resolved'; }, (e) => { ended = 'rejected'; failure = e; });
    const port = await portP;
    const socket: Socket = await new Promise((resolve, reject) => {
      const s = connect({ host: GDB_HOST, port }, () => resolve(s));
      s.on('error', reject);
    });
    let received = '';
    let closed = false;
    socket.on('data', (d: Buffer) => { received += d.toString('latin1'); });
    socket.on('close', () => { closed = true; });
    socket.on('error', () => { /* the server may close first */ });
    return { socket, done, log, get received() { return received; }, get closed() { return closed; }, get ended() { return ended; }, get failure() { return failure; } };
  }

  const until = async (cond: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
    return cond();
  };

  it('the stub never crashes: it replies or NAKs, and the connection survives or closes cleanly', async () => {
    await campaign('rsp', fc.array(chunk, { minLength: 1, maxLength: 12 }), async (chunks) => {
      const s = await session();
      try {
        for (const c of chunks) if (!s.closed) s.socket.write(Buffer.from(c, 'latin1'));
        // Back to a known state: end any frame in progress, stop a running continue, then ask for BRAM word 0.
        const probe = rspFrame('m0,4');
        if (!s.closed) s.socket.write(Buffer.from(`#00\x03${probe}`, 'latin1'));
        const answered = await until(() => s.closed || s.received.includes(`$${FIRST_WORD}#`) || /\$E[0-9a-f]{2}#/.test(s.received.slice(-8)), 5000);
        expect(s.failure, String(s.failure)).toBeNull();
        expect(answered, `no reply to the probe and the connection is still open; received ${JSON.stringify(s.received.slice(-200))}`).toBe(true);
        if (s.closed) {
          // Closed: the server must have ended its session normally (kill, detach or exit).
          expect(await until(() => s.ended !== 'open', 2000)).toBe(true);
          expect(s.ended, String(s.failure)).toBe('resolved');
          count('rsp', 'closed cleanly');
        } else {
          count('rsp', 'survived, probe answered');
        }
        // Every frame the server sent has a correct checksum.
        for (const f of s.received.matchAll(/\$([^#$]*)#([0-9a-f]{2})/g)) expect(f[2], f[1]).toBe(rspFrameChecksum(f[1]));
      } finally {
        s.socket.destroy();
        await until(() => s.ended !== 'open', 2000);
      }
    });
  });

  const rspFrameChecksum = (payload: string) => rspFrame(payload).slice(-2);
});
