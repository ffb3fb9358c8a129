// The seed board's command table (boards/transformer-tpu-int4/regs.ts): the generated header
// matches it, fields do not overlap the opcode or each other, and the header
// compiles for the seed's CPU (-march=rv32ic_zmmul) with every inline call used.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSeedHeader, SEED_HEADER_PATH } from '../scripts/gen-seed-regs.ts';
import { packSeedCommand, SEED_COMMANDS, SEED_DMA, SEED_REGS, SEED_UNIT_NAMES } from '../boards/transformer-tpu-int4/regs.ts';

describe('seed register/command table', () => {
  it('firmware-c/include/seed/tpu_seed.h is generated from it (run npm run gen:regs when this fails)', () => {
    expect(readFileSync(SEED_HEADER_PATH, 'utf8')).toBe(generateSeedHeader());
  });

  it('fields stay clear of the opcode byte and of each other', () => {
    for (const c of SEED_COMMANDS) {
      const used = [0xff, 0, 0, 0];
      for (const f of c.fields) {
        const m = (f.width >= 32 ? 0xffffffff : ((2 ** f.width - 1) * 2 ** f.lsb)) >>> 0;
        expect((used[f.word] & m) >>> 0, `${c.name}.${f.name}`).toBe(0);
        used[f.word] = (used[f.word] | m) >>> 0;
      }
    }
  });

  it('register offsets are unique and word aligned', () => {
    const offs = SEED_REGS.map((r) => r.offset);
    expect(new Set(offs).size).toBe(offs.length);
    for (const o of offs) expect(o % 4).toBe(0);
  });

  it('packs a DMA move as cmd_dma.sv decodes it', () => {
    // w0[8] dma_op, w0[31:16] spad base, w1[18:0] dram base, w2 {rows, len}, w3 {spad stride, dram stride}
    expect(packSeedCommand(SEED_DMA, 'MOVE', { SPILL: 1, SPAD_ADDR: 0x1234, SRAM_ADDR: 0x7ffff, LEN: 64, ROWS: 3, SRAM_STRIDE: 100, SPAD_STRIDE: 36 }))
      .toEqual([0x1234_0101, 0x7ffff, 0x0003_0040, 0x0024_0064]);
  });

  it('the header compiles for rv32ic_zmmul with every inline call', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seedh-'));
    const calls = SEED_COMMANDS.map((c) => `    seed_${SEED_UNIT_NAMES[c.unit].toLowerCase()}_${c.name.toLowerCase()}(${c.fields.map((_, i) => i + 1).join(', ')});`);
    writeFileSync(join(dir, 't.c'), `#include "seed/tpu_seed.h"\nvoid f(void)\n{\n${calls.join('\n')}\n    seed_tpu_wait(SEED_UNIT_DMA);\n    seed_tpu_wait_all();\n    SEED_SPAD_WORD(0) = 1u;\n    seed_tpu_done();\n}\n`);
    const include = join(SEED_HEADER_PATH, '..', '..');
    execFileSync('riscv64-unknown-elf-gcc', ['-march=rv32ic_zmmul', '-mabi=ilp32', '-Os', '-Wall', '-Wextra', '-Werror', '-ffreestanding', '-I', include, '-c', join(dir, 't.c'), '-o', join(dir, 't.o')]);
  });
});
