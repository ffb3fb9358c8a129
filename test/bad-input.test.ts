// Bad input gets one line and a documented status (docs/hardware.md §7), never
// a stack trace, an internal error or a run without limit: corrupt ELF files
// (emu/elf.ts), a model blob too large for the board (model/format.ts),
// --max-cycles, --matmul, --set and --input-file values; and what the
// statuses cannot say (a guest EXIT of 160-166 or above 255) --report-json
// does. CLI cases run `main` in this process (stderr captured); a few spawn
// bin/picotpu.cjs to check the real command.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { disassemble } from '../emu/disasm.ts';
import { ElfError, parseElf } from '../emu/elf.ts';
import { EXIT } from '../emu/exit-status.ts';
import { Machine } from '../boards/machine.ts';
import { AdderModelError, loadAdder } from '../study/addition-run.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { skipWhenMissing } from './helpers/require.ts';
import { mulberry32 } from './helpers/rng.ts';
import { cliInProcess } from './helpers/cli-in-process.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const HELLO = join(root, 'build', 'fw', 'hello.elf');
const tmp = mkdtempSync(join(tmpdir(), 'picotpu-bad-input-'));
const NO_LLVM_OBJCOPY = skipWhenMissing(spawnSync('llvm-objcopy', ['--version']).status === 0, 'bad-input.test.ts', 'llvm-objcopy', 'install: bash toolchain/ensure-toolchain.sh --with-test-tools');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `picotpu ARGS` in this process: the status and what it wrote to standard error. */
const cli = (...args: string[]) => cliInProcess(args);

/** One line of picotpu's own, neither a stack trace nor an internal error. */
function expectOneLine(stderr: string, pattern: RegExp): void {
  expect(stderr).toMatch(/^picotpu: [^\n]*\n$/);
  expect(stderr).not.toMatch(/internal error|RangeError|TypeError|undefined|\n\s+at /);
  expect(stderr).toMatch(pattern);
}

// ---- ELF files: hello.elf, edited ----
// Its layout (riscv64-unknown-elf-readelf -lS): program header 0 is
// RISCV_ATTRIBUTES (no memory), 1 the one PT_LOAD at 0 (0xa7 bytes of .text
// and .rodata); 18 section headers, .symtab is section 15, .strtab 16.

const hello = (): Buffer => Buffer.from(readFileSync(HELLO));
const PH = 52, PHDR = 32, SHDR = 40, SYMTAB = 15;
const phdr = (e: Buffer, i: number, field: number) => PH + i * PHDR + field;
const shdr = (e: Buffer, i: number, field: number) => e.readUInt32LE(32) + i * SHDR + field;
const P_TYPE = 0, P_OFFSET = 4, P_VADDR = 8, P_FILESZ = 16, P_MEMSZ = 20;
const SH_OFFSET = 16, SH_LINK = 24, SH_ENTSIZE = 36;

function refused(e: Buffer): string {
  try {
    parseElf(e);
  } catch (err) {
    expect(err).toBeInstanceOf(ElfError);
    return (err as Error).message;
  }
  throw new Error('parseElf accepted the file');
}

function writeElf(name: string, e: Buffer): string {
  const path = join(tmp, name);
  writeFileSync(path, e);
  return path;
}

/** The LOAD segment moved to end at `end`, with p_memsz 0x10 below its p_filesz 0xa7. */
function fileszOverMemsz(end: number): Buffer {
  const e = hello();
  e.writeUInt32LE(end - 0x10, phdr(e, 1, P_VADDR));
  e.writeUInt32LE(0x10, phdr(e, 1, P_MEMSZ));
  return e;
}

describe('corrupt ELF files: one line, status 164', () => {
  it('a segment with p_filesz > p_memsz at the end of the BRAM or the SRAM (run and debug)', async () => {
    for (const end of [0x10000, 0x40080000]) {
      const path = writeElf(`filesz-${end.toString(16)}.elf`, fileszOverMemsz(end));
      for (const cmd of ['run', 'debug']) {
        const r = await cli(cmd, path);
        expect(r.status, `${cmd} ${end.toString(16)}`).toBe(EXIT.BAD_PROGRAM);
        expectOneLine(r.stderr, /^picotpu: corrupt ELF program header 1: p_filesz 0xa7 exceeds p_memsz 0x10\n$/);
      }
    }
  });

  it('names the EI_CLASS a file has', () => {
    const names: [number, string][] = [[0, 'EI_CLASS 0, ELFCLASSNONE'], [2, 'EI_CLASS 2, ELFCLASS64'], [3, 'EI_CLASS 3, not a defined class'], [255, 'EI_CLASS 255, not a defined class']];
    for (const [cls, text] of names) {
      const e = hello();
      e[4] = cls;
      expect(refused(e)).toBe(`not a 32-bit ELF file (${text}; want 1, ELFCLASS32)`);
    }
  });

  it('names each section-table defect', () => {
    const cases: [string, (e: Buffer) => void, RegExp][] = [
      ['e_shoff past the end', (e) => e.writeUInt32LE(e.length, 32), /the section header table .* lies past the end of the \d+-byte file/],
      ['e_shentsize', (e) => e.writeUInt16LE(32, 46), /e_shentsize 32, want 40/],
      ['e_shnum too large', (e) => e.writeUInt16LE(0xffff, 48), /the section header table \(e_shoff, e_shnum 65535\)/],
      ['e_shnum without e_shoff', (e) => e.writeUInt32LE(0, 32), /e_shoff 0x0 with e_shnum 18/],
      ['e_shstrndx', (e) => e.writeUInt16LE(200, 50), /e_shstrndx 200 is not a section/],
      ['symtab sh_link', (e) => e.writeUInt32LE(99, shdr(e, SYMTAB, SH_LINK)), /symbol table \(section 15\): sh_link 99 is not a string table/],
      ['symtab sh_entsize', (e) => e.writeUInt32LE(0, shdr(e, SYMTAB, SH_ENTSIZE)), /symbol table \(section 15\): sh_entsize 0, want 16/],
      ['symtab data past the end', (e) => e.writeUInt32LE(0xffff0000, shdr(e, SYMTAB, SH_OFFSET)), /the data of section 15 .* past the end/],
      ['symbol name offset', (e) => e.writeUInt32LE(0x7fffffff, e.readUInt32LE(shdr(e, SYMTAB, SH_OFFSET)) + 16 * 21), /symbol 21's name offset 0x7fffffff is past its \d+-byte string table/],
    ];
    for (const [what, edit, pattern] of cases) {
      const e = hello();
      edit(e);
      expect(refused(e), what).toMatch(pattern);
    }
  });

  it('refuses overlapping segments', () => {
    const e = hello();
    // The attributes header becomes a second PT_LOAD over .text.
    e.writeUInt32LE(1, phdr(e, 0, P_TYPE));
    e.writeUInt32LE(0x10, phdr(e, 0, P_VADDR));
    e.writeUInt32LE(0x1c, phdr(e, 0, P_MEMSZ));
    expect(refused(e)).toBe('segments 1 (0x00000000..0x000000a7) and 0 (0x00000010..0x0000002c) overlap');
  });

  it('gives an ElfError for every truncation and for random header damage', () => {
    const base = hello();
    for (let n = 0; n < 0x1100; n += n < 0x100 ? 1 : 0x40) expect(() => parseElf(base.subarray(0, n))).toThrow(ElfError);
    // Byte damage in the ELF header, the program headers and the section headers.
    const seed = 0xe1f;
    const next = mulberry32(seed);
    const shoff = base.readUInt32LE(32);
    const regions = [[0, PH + 2 * PHDR], [shoff, shoff + 18 * SHDR]];
    for (let k = 0; k < 3000; k++) {
      const e = Buffer.from(base);
      for (let j = 0; j < 1 + (k % 3); j++) {
        const [lo, hi] = regions[Math.floor(next() * regions.length)]!;
        e[lo + Math.floor(next() * (hi - lo))] = Math.floor(next() * 256);
      }
      try {
        parseElf(e);
      } catch (err) {
        expect(err, `damage ${k} (mulberry32 seed ${seed})`).toBeInstanceOf(ElfError);
        expect((err as Error).message, `damage ${k} (mulberry32 seed ${seed})`).not.toMatch(/\n|undefined|NaN|RangeError/);
      }
    }
  });
});

describe('an ELF without section headers', () => {
  /** hello.elf as objcopy --strip-sections leaves it: no section table, nothing past the segment data. */
  function stripped(): Buffer {
    const e = hello();
    e.writeUInt32LE(0, 32); // e_shoff
    e.writeUInt16LE(0, 48); // e_shnum
    e.writeUInt16LE(0, 50); // e_shstrndx
    return e.subarray(0, e.readUInt32LE(phdr(e, 1, P_OFFSET)) + e.readUInt32LE(phdr(e, 1, P_FILESZ)));
  }

  it('loads from its segments and runs, with no symbols', () => {
    const elf = parseElf(stripped());
    expect(elf.symbols.all).toEqual([]);
    const m = new Machine();
    m.loadElf(stripped());
    m.bus.console.captureOutput();
    const r = m.run();
    expect(r).toMatchObject({ reason: 'exit', exit: 0, where: '' });
    expect(m.bus.console.capturedText()).toBe('hello from picotpu\n');
  });

  it.skipIf(NO_LLVM_OBJCOPY)('as llvm-objcopy --strip-sections writes it', () => {
    const out = join(tmp, 'strip-sections.elf');
    expect(spawnSync('llvm-objcopy', ['--strip-sections', HELLO, out]).status).toBe(0);
    const bytes = readFileSync(out);
    expect(bytes.readUInt16LE(48)).toBe(0);
    const m = new Machine();
    m.loadElf(bytes);
    m.bus.console.captureOutput();
    expect(m.run()).toMatchObject({ reason: 'exit', exit: 0 });
    expect(m.bus.console.capturedText()).toBe('hello from picotpu\n');
  });
});

describe('symbol names in reports', () => {
  it('name an address only within the symbol\'s size or section', () => {
    const { symbols } = parseElf(hello());
    expect(symbols.describe(4)).toBe('_start+0x4');
    // Past the end of the BRAM's sections and far outside memory: no symbol (was <__sram_end+0xbffffffc>).
    expect(symbols.describe(0xfffffffc)).toBe('');
    expect(symbols.describe(0x40000004)).toBe('');
    expect(symbols.describe(0x8000)).toBe('');
  });
});

// ---- the command line ----

describe('--max-cycles', () => {
  it('refuses anything but a positive safe integer (165)', async () => {
    for (const v of ['abc', 'NaN', '1,000', '1e99', 'Infinity', '9007199254740993', '-1', '-0.5', '0', '0.5', '', '1e', '_1']) {
      const r = await cli('run', HELLO, '--no-report', `--max-cycles=${v}`);
      expect(r.status, v).toBe(EXIT.USAGE);
      expectOneLine(r.stderr, new RegExp(`--max-cycles must be a positive integer .*, got "${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
    }
  });

  it('takes digits, _ separators and exponents, and stops there', async () => {
    for (const v of ['5', '5_0', '5e1', '1_2e1']) {
      const r = await cli('run', HELLO, '--no-report', '--report-json', join(tmp, 'mc.json'), `--max-cycles=${v}`);
      expect(r.status, v).toBe(EXIT.CYCLE_LIMIT);
      // The stop comes at the first instruction boundary at or after the limit: as Machine.run(limit) has it.
      const m = new Machine();
      m.loadElf(readFileSync(HELLO));
      expect(JSON.parse(readFileSync(join(tmp, 'mc.json'), 'utf8')).clocks, v).toBe(m.run(Number(v.replace('_', ''))).clocks);
    }
  });

  it('is checked by debug, gdb and bench too; the real command says the same', async () => {
    for (const cmd of [['debug', HELLO], ['gdb', HELLO, '--port', '0'], ['bench', '--matmul', '8x8x8']]) {
      const r = await cli(...cmd, '--max-cycles', 'abc');
      expect(r.status, cmd[0]).toBe(EXIT.USAGE);
      expectOneLine(r.stderr, /--max-cycles must be a positive integer/);
    }
    const p = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', HELLO, '--max-cycles', '-1'], { encoding: 'utf8' });
    expect(p.status).toBe(EXIT.USAGE);
    expectOneLine(p.stderr, /--max-cycles must be a positive integer .*, got "-1"/);
  });
});

describe('bench --matmul sizes the board and mmbench.elf cannot hold (165)', () => {
  it('says which dimension is wrong', async () => {
    const cases: [string, RegExp][] = [
      ['99999x99999x99999', /K must be a multiple of 8 up to 1024 \(mmbench\.elf\), got 99999/],
      ['8x12x8', /K must be a multiple of 8/],
      ['8x8x12', /N must be a multiple of 8, got 12/],
      ['8x8x65536', /A, B and C need 524416 bytes of SRAM \(int4\), more than the board's 524288; shrink M, K or N/],
      ['99999999999999999999x8x8', /more than the board's 524288/],
    ];
    for (const [shape, pattern] of cases) {
      const r = await cli('bench', '--matmul', shape);
      expect(r.status, shape).toBe(EXIT.USAGE);
      expectOneLine(r.stderr, pattern);
    }
  });
});

describe('--set and --input-file', () => {
  it('refuses empty and non-numeric counts and a non-finite clockHz (165)', async () => {
    const cases: [string, RegExp][] = [
      ['tpuWait=', /tpuWait must be an integer 0\.\.1000, got ""/],
      ['tpuWait=abc', /tpuWait must be an integer 0\.\.1000, got "abc"/],
      ['queueDepth= ', /queueDepth must be an integer/],
      ['clockHz=Infinity', /clockHz must be a positive finite number of Hz, got "Infinity"/],
      ['clockHz=', /clockHz must be a positive finite number/],
      ['clockHz=-1', /clockHz must be a positive finite number/],
    ];
    for (const [set, pattern] of cases) {
      const r = await cli('run', HELLO, '--no-report', '--set', set);
      expect(r.status, set).toBe(EXIT.USAGE);
      expectOneLine(r.stderr, pattern);
    }
    expect((await cli('run', HELLO, '--no-report', '--set', 'tpuWait=3', '--set', 'clockHz=1e6')).status).toBe(0);
  });

  it('an unreadable --input-file is a usage error naming the file', async () => {
    const missing = join(tmp, 'no-such-input');
    const r = await cli('run', HELLO, '--no-report', '--input-file', missing);
    expect(r.status).toBe(EXIT.USAGE);
    expect(r.stderr).toBe(`picotpu: cannot read input file ${missing}: no such file\n`);
  });
});

describe('model blobs the board cannot hold (164)', () => {
  const adder = join(root, 'models', 'adder.ptm');
  const blob = (edit: (b: Buffer) => void) => {
    const b = Buffer.from(readFileSync(adder));
    edit(b);
    return b;
  };

  it('demo and eval name the largest part and the dimensions to shrink', async () => {
    // d 256, d_ff 1024: the header of a larger model over the adder's tensors.
    const big = writeElf('big.ptm', blob((b) => { b.writeUInt32LE(256, 8); b.writeUInt32LE(1024, 12); }));
    for (const cmd of [['demo', '1+2'], ['eval', '--n', '1', '--tpu', '1']]) {
      const r = await cli(...cmd, '--model', big);
      expect(r.status, cmd[0]).toBe(EXIT.BAD_PROGRAM);
      expectOneLine(r.stderr, /: model and buffers need 1798784 bytes of SRAM, more than the board's 524288; the FFN weights .* with d 256, d_ff 1024, layers 4, max_seq 128: shrink d_ff or d\n$/);
    }
    // One flipped bit of D (128 → 384).
    const flipped = writeElf('flip.ptm', blob((b) => { b[9] ^= 1; }));
    const r = await cli('demo', '1+2', '--model', flipped);
    expect(r.status).toBe(EXIT.BAD_PROGRAM);
    expectOneLine(r.stderr, /the attention weights .* with d 384, .*: shrink d\n$/);
  });

  it('any damaged header or layer-record word is an AdderModelError', () => {
    const base = readFileSync(adder);
    const table = base.readUInt32LE(60);
    const path = join(tmp, 'damaged.ptm');
    const words = [...Array.from({ length: 30 }, (_, w) => 4 * w), ...Array.from({ length: 11 }, (_, w) => table + 4 * w)];
    for (const at of words) {
      for (const v of [0, 1024, 0xffffffff]) {
        const b = Buffer.from(base);
        b.writeUInt32LE(v >>> 0, at);
        writeFileSync(path, b);
        try {
          loadAdder(path);
        } catch (e) {
          expect(e, `word at ${at} = ${v}`).toBeInstanceOf(AdderModelError);
          expect((e as Error).message).not.toMatch(/\n/);
        }
      }
    }
  });
});

describe('guest EXIT values the status cannot tell apart', () => {
  const exitWith = (v: number) => assemble(`
    .globl _start
_start:
    li t0, 0x10000000
    li t1, ${v}
    sw t1, 8(t0)
1:  j 1b
`);

  it('--report-json says reason "exit" and the guest\'s value, where the status alone is ambiguous', async () => {
    const report = join(tmp, 'exit.json');
    const cases: [number, number][] = [[162, 162], [257, 1], [0, 0]];
    for (const [value, status] of cases) {
      const elf = writeElf(`exit-${value}.elf`, Buffer.from(exitWith(value)));
      const r = await cli('run', elf, '--no-report', '--report-json', report);
      expect(r.status, `EXIT ${value}`).toBe(status);
      expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ reason: 'exit', exit: status, guestExit: status });
    }
    // The emulator's own 162: a cycle limit, no guest value.
    const elf = writeElf('exit-162.elf', Buffer.from(exitWith(162)));
    expect((await cli('run', elf, '--no-report', '--report-json', report, '--max-cycles', '4')).status).toBe(EXIT.CYCLE_LIMIT);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ reason: 'cycle-limit', exit: 162, guestExit: null });
  });
});

describe('disassembly of fence.i', () => {
  it('prints fence.i for the one word objdump decodes as fence.i (PicoRV32 traps on it)', () => {
    expect(disassemble(0x0000100f, 0)).toBe('fence.i');
    expect(disassemble(0x0010100f, 0)).toBe('.4byte\t0x10100f');
    expect(disassemble(0x0000108f, 0)).toBe('.4byte\t0x108f');
  });
});

describe('a firmware build the host needs is missing', () => {
  it('is a bad program (ElfError, 164) saying how to build it, not an internal error', async () => {
    const { runOnEmulator } = await import('../model/run.ts');
    const { randomModel, randomPrompt } = await import('../model/random.ts');
    const dims = { d: 8, dFF: 8, heads: 1, layers: 1, vocab: 8, maxSeq: 8 };
    const job = { prompt: randomPrompt(dims, 2, 1), decodeSteps: 1, variant: 0 };
    const missing = join(tmpdir(), 'picotpu-no-such-dir', 'model.elf');
    expect(() => runOnEmulator(randomModel(dims, 1), job, { elfPath: missing })).toThrow(ElfError);
    expect(() => runOnEmulator(randomModel(dims, 1), job, { elfPath: missing })).toThrow(/model\.elf is missing: build the firmware with `make -C firmware-c`/);
  });
});
