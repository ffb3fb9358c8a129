// The C examples, built with the real toolchain (test/global-setup.ts), run on
// the emulated board: console output, exit status, and — where the RTL was
// measured running the same ELF (test/rtl/firmware-measured.json) — the exact
// clock of the EXIT store.

import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Machine } from '../boards/machine.ts';
import { loadHash } from './helpers/load-hash.ts';

const FW = 'build/fw';

function runElf(name: string, input = '') {
  const m = new Machine();
  m.loadElf(readFileSync(`${FW}/${name}.elf`));
  m.bus.console.captureOutput();
  m.bus.console.setInput(Buffer.from(input));
  const r = m.run(2_000_000_000);
  return { ...r, out: m.bus.console.capturedText() };
}

const examples: { name: string; input?: string; output: RegExp }[] = [
  { name: 'hello', output: /^hello from picotpu\n$/ },
  { name: 'fib', output: /^fib\(20\) = 6765 \(\d+ clocks\)\n$/ },
  { name: 'sort', output: /^sort 500 ints: min -?\d+ max -?\d+ checksum [0-9a-f]{8} \(\d+ clocks\)\n$/ },
  { name: 'crc32', output: /crc32\("123456789"\): bitwise cbf43926 table cbf43926\n/ },
  { name: 'sramdata', output: /sum of 256 SRAM words at 0x40000000 = 5559680.*\n.*0 mismatches\n/ },
  { name: 'cycles', output: /expected/ },
  { name: 'intbench', input: '50', output: /intbench: 50 rounds checksum [0-9a-f]{8}\n/ },
  { name: 'printf', output: /printf: 0 failures\n/ },
  { name: 'echo', input: 'Hello, picotpu!', output: /^HELLO, PICOTPU!$/ },
];

describe('C examples on the emulated board', () => {
  for (const ex of examples) {
    it(`${ex.name}: output and exit status 0`, () => {
      const r = runElf(ex.name, ex.input);
      expect(r.reason, r.out).toBe('exit');
      expect(r.exit, r.out).toBe(0);
      expect(r.out).toMatch(ex.output);
    });
  }

  it('is deterministic: the same ELF and input give the same clocks and bytes', () => {
    const a = runElf('sort'), b = runElf('sort');
    expect(a.clocks).toBe(b.clocks);
    expect(a.out).toBe(b.out);
  });

  it('the CLI passes the guest console through unchanged and exits with EXIT', () => {
    const p = spawnSync('node', ['bin/picotpu.cjs', 'run', `${FW}/echo.elf`, '--input', 'abc', '--no-report'], { encoding: 'utf8' });
    expect(p.stdout).toBe('ABC');
    expect(p.stderr).toBe('');
    expect(p.status).toBe(0);
  });
});

const measuredPath = 'test/rtl/firmware-measured.json';
const measured: { elf: string; loadHash: string; exitClock: number; exitValue: number; console: string }[] = existsSync(measuredPath)
  ? JSON.parse(readFileSync(measuredPath, 'utf8')).programs
  : [];

describe('whole C programs take exactly the clocks the PicoRV32 RTL took', () => {
  it('has RTL measurements of the firmware', () => {
    expect(measured.length).toBeGreaterThan(0);
  });
  for (const m of measured) {
    const name = m.elf.replace(/\.elf$/, '').split('/').pop()!;
    it(`${name}: EXIT at the RTL's clock`, () => {
      // The measurement holds for the program that was measured: the build
      // must load the same bytes (same compiler and flags), or the test fails.
      expect(loadHash(readFileSync(`${FW}/${name}.elf`)), `${name}.elf is not the program measured on the RTL`).toBe(m.loadHash);
      const r = runElf(name);
      expect(r.exit).toBe(m.exitValue);
      expect(r.out).toBe(m.console);
      expect(r.clocks).toBe(m.exitClock);
    });
  }
});
