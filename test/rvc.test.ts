// RV32C (COMPRESSED_ISA) conformance of our own: every compressed encoding in
// isa.ts's CINSNS, written by hand in its compressed form and in the 32-bit
// form the RVC spec expands it to, assembled by GNU as (independent of our
// table): the halfword must expand to exactly that word. The reserved forms
// PicoRV32's decoder does not take must be illegal, and each form's semantics
// is checked by running it (registers after, against values worked out by
// hand from the spec). Random mixed code against qemu is in diff-qemu.test.ts.

import { describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { defaultConfig } from '../emu/config.ts';
import { CINSNS, expandCompressed, matchCompressed } from '../emu/isa.ts';
import { Machine } from '../boards/machine.ts';
import { parseElf } from '../emu/elf.ts';
import { assemble, hasToolchain } from '../toolchain/toolchain.ts';

const suite = describe.skipIf(skipWhenMissing(hasToolchain(), 'rvc.test.ts', 'the RISC-V toolchain', 'install: bash toolchain/ensure-toolchain.sh'));

/** [compressed source, the 32-bit instruction the spec expands it to]. */
const PAIRS: [string, string][] = [
  ['c.addi4spn a0, sp, 1020', 'addi a0, sp, 1020'],
  ['c.addi4spn s1, sp, 4', 'addi s1, sp, 4'],
  ['c.lw a5, 124(a0)', 'lw a5, 124(a0)'],
  ['c.lw s0, 0(s1)', 'lw s0, 0(s1)'],
  ['c.sw a3, 64(a4)', 'sw a3, 64(a4)'],
  ['c.sw s1, 4(s0)', 'sw s1, 4(s0)'],
  ['c.nop', 'addi x0, x0, 0'],
  ['c.addi t0, -32', 'addi t0, t0, -32'],
  ['c.addi a0, 31', 'addi a0, a0, 31'],
  ['c.jal .+2046', 'jal ra, .+2046'],
  ['c.jal .-2048', 'jal ra, .-2048'],
  ['c.li t6, -1', 'addi t6, x0, -1'],
  ['c.li a1, 17', 'addi a1, x0, 17'],
  ['c.addi16sp sp, -512', 'addi sp, sp, -512'],
  ['c.addi16sp sp, 496', 'addi sp, sp, 496'],
  ['c.lui s2, 0xfffe0', 'lui s2, 0xfffe0'],
  ['c.lui a2, 0x1f', 'lui a2, 0x1f'],
  ['c.srli a4, 31', 'srli a4, a4, 31'],
  ['c.srai s0, 1', 'srai s0, s0, 1'],
  ['c.andi a5, -32', 'andi a5, a5, -32'],
  ['c.andi s1, 15', 'andi s1, s1, 15'],
  ['c.sub a0, a5', 'sub a0, a0, a5'],
  ['c.xor s1, a2', 'xor s1, s1, a2'],
  ['c.or a3, s0', 'or a3, a3, s0'],
  ['c.and a4, a1', 'and a4, a4, a1'],
  ['c.j .+2046', 'jal x0, .+2046'],
  ['c.j .-2', 'jal x0, .-2'],
  ['c.beqz a0, .+254', 'beq a0, x0, .+254'],
  ['c.beqz s1, .-256', 'beq s1, x0, .-256'],
  ['c.bnez a5, .+8', 'bne a5, x0, .+8'],
  ['c.slli t3, 31', 'slli t3, t3, 31'],
  ['c.slli a0, 1', 'slli a0, a0, 1'],
  ['c.lwsp ra, 252(sp)', 'lw ra, 252(sp)'],
  ['c.lwsp t6, 0(sp)', 'lw t6, 0(sp)'],
  ['c.jr t0', 'jalr x0, 0(t0)'],
  ['c.jr ra', 'jalr x0, 0(ra)'],
  ['c.mv a0, t6', 'add a0, x0, t6'],
  ['c.ebreak', 'ebreak'],
  ['c.jalr s11', 'jalr ra, 0(s11)'],
  ['c.add gp, a7', 'add gp, gp, a7'],
  ['c.swsp s2, 252(sp)', 'sw s2, 252(sp)'],
  ['c.swsp zero, 0(sp)', 'sw zero, 0(sp)'],
];

/** Halfwords PicoRV32 does not decode (reserved, RV64/RV128-only or FP forms). */
const ILLEGAL: [number, string][] = [
  [0x0000, 'all zero (c.addi4spn, imm 0)'],
  [0x0004, 'c.addi4spn with imm 0, rd = s1'],
  [0x6101, 'c.addi16sp with imm 0'],
  [0x6281, 'c.lui t0, 0'],
  [0x4002, 'c.lwsp with rd = x0'],
  [0x8002, 'c.jr x0'],
  [0x9001, 'c.srli with shamt[5] set'],
  [0x9401, 'c.srai with shamt[5] set'],
  [0x1002, 'c.slli with shamt[5] set'],
  [0x9c01, 'c.subw (RV64)'],
  [0x9c21, 'c.addw (RV64)'],
  [0x2000, 'c.fld'],
  [0x6000, 'c.flw'],
  [0xa000, 'c.fsd'],
  [0xe000, 'c.fsw'],
  [0x8000, 'reserved quadrant 0, funct3 100'],
  [0x2002, 'c.fldsp'],
  [0x6002, 'c.flwsp'],
  [0xa002, 'c.fsdsp'],
  [0xe002, 'c.fswsp'],
];

/** The parcels of .text.start, assembled at 0 with or without RVC. */
function parcels(lines: string[], rvc: boolean): number[] {
  const src = ['.section .text.start', '.globl _start', '_start:', rvc ? '.option rvc' : '.option norvc', ...lines.map((l) => `  ${l}`)];
  const elf = parseElf(assemble(src.join('\n'), { march: 'rv32ic_zicsr' }));
  const code = elf.segments[0].data;
  const out: number[] = [];
  for (let at = 0; at < code.length;) {
    const h = code[at] | (code[at + 1] << 8);
    if ((h & 3) !== 3) { out.push(h); at += 2; } else { out.push((h | ((code[at + 2] | (code[at + 3] << 8)) << 16)) >>> 0); at += 4; }
  }
  return out;
}

suite('RV32C encodings (COMPRESSED_ISA)', () => {
  it('every CINSNS entry has a hand-written case', () => {
    const covered = new Set(PAIRS.map(([c]) => c.split(' ')[0]));
    for (const d of CINSNS) expect(covered.has(d.name), d.name).toBe(true);
  });

  it('each compressed form expands to the 32-bit instruction the spec names (both assembled by GNU as)', () => {
    // One instruction per line, each at its own address: a pc-relative target is the same in both forms.
    for (const [cForm, wide] of PAIRS) {
      const [h] = parcels([cForm], true);
      const [w] = parcels([wide], false);
      expect(h & 3, `${cForm} assembles to a 16-bit parcel`).not.toBe(3);
      expect(CINSNS[matchCompressed(h)]?.name, cForm).toBe(cForm.split(' ')[0]);
      expect((expandCompressed(h) >>> 0).toString(16), `${cForm} → ${wide}`).toBe(w.toString(16));
    }
  });

  it('the reserved and non-RV32 forms are illegal instructions', () => {
    for (const [h, what] of ILLEGAL) expect(expandCompressed(h), what).toBe(-1);
  });
});

/** Runs compressed code (then EXIT) on the picotpu board with COMPRESSED_ISA; returns the registers. */
function run(lines: string[]): Int32Array {
  const cfg = defaultConfig();
  cfg.cpu.COMPRESSED_ISA = true;
  const m = new Machine(cfg);
  const src = ['.section .text.start', '.globl _start', '_start:', '.option rvc', ...lines.map((l) => `  ${l}`),
    '  .option norvc', '  lui t6, 0x10000', '  sw zero, 8(t6)', '1: j 1b'];
  m.loadElf(assemble(src.join('\n'), { march: 'rv32ic_zicsr' }));
  const r = m.run(100_000);
  expect(r.reason).toBe('exit');
  return m.cpu.regs;
}

suite('RV32C semantics (values worked out from the spec)', () => {
  it('immediates: sign extension, scaling and zero extension per form', () => {
    const r = run([
      'c.li a0, -32', 'c.li a1, 31', 'c.lui a2, 0xfffe0', 'c.lui a3, 0x1f',
      'li sp, 0x1000', 'c.addi16sp sp, -512', 'c.addi4spn a4, sp, 1020', 'c.addi a5, -1',
    ]);
    expect(r[10]).toBe(-32);
    expect(r[11]).toBe(31);
    expect(r[12] >>> 0).toBe(0xfffe0000);
    expect(r[13]).toBe(0x1f000);
    expect(r[2]).toBe(0x1000 - 512);
    expect(r[14]).toBe(0x1000 - 512 + 1020);
    expect(r[15]).toBe(-1);
  });

  it('shifts, logic and arithmetic on x8..x15', () => {
    const r = run([
      'c.li s0, -16', 'c.srai s0, 2', 'c.li s1, -16', 'c.srli s1, 28', 'c.li a0, 3', 'c.slli a0, 30',
      'c.li a1, 12', 'c.li a2, 10', 'c.mv a3, a1', 'c.and a3, a2', 'c.mv a4, a1', 'c.or a4, a2',
      'c.mv a5, a1', 'c.xor a5, a2', 'c.sub a1, a2', 'c.andi a2, -8', 'c.add a2, a1',
    ]);
    expect(r[8]).toBe(-4);
    expect(r[9]).toBe(15);
    expect(r[10] >>> 0).toBe(0xc0000000);
    expect(r[13]).toBe(8);
    expect(r[14]).toBe(14);
    expect(r[15]).toBe(6);
    expect(r[11]).toBe(2);
    expect(r[12]).toBe(10);
  });

  it('loads, stores and the sp forms', () => {
    const r = run([
      'li s0, 0x8000', 'li sp, 0x8100', 'li s1, 0x12345678', 'c.sw s1, 4(s0)', 'c.lw a0, 4(s0)',
      'c.swsp s1, 252(sp)', 'c.lwsp a1, 252(sp)', 'lw a2, 0x1fc(s0)',
    ]);
    expect(r[10]).toBe(0x12345678);
    expect(r[11]).toBe(0x12345678);
    expect(r[12]).toBe(0x12345678);
  });

  it('jumps link pc + 2, branches test against zero', () => {
    const r = run([
      'c.li a0, 0', 'c.li a1, 0',
      'c.jal 1f', 'c.addi a0, 1', // skipped
      '1: c.mv a2, ra',
      'la t0, 2f', 'c.jalr t0', 'c.addi a0, 2', // skipped
      '2: c.mv a3, ra',
      'c.beqz a1, 3f', 'c.addi a0, 4', // skipped
      '3: c.bnez a1, 4f', 'c.addi a1, 8', // runs
      '4: la t1, 5f', 'c.jr t1', 'c.addi a0, 16', // skipped
      '5: c.nop',
    ]);
    expect(r[10]).toBe(0);
    expect(r[11]).toBe(8);
    expect(r[12]).toBe(6); // c.li at 0, c.li at 2, c.jal at 4 links 6
    expect(r[13] % 2).toBe(0);
  });
});
