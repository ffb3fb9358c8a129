// The MXU's WebAssembly SIMD kernel (periph/mxu-kernel.wat) held to the
// literal reference model: random shapes, strides, TRANSPOSE_B, ACCUMULATE,
// int32 and requantized outputs, on the 8×8 and the 16×16 array, driven by
// random mixtures of skips and single ticks, with and without deferred reads;
// its sums against plain loops over K beyond one 2048-k segment; and the
// generated binary against the .wat.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type TpuConfig } from '../emu/config.ts';
import { createScratchpad } from '../periph/mxu-kernel.ts';
import { MxuFast, MxuReference } from '../periph/mxu.ts';
import { flagBit, opcode, packArgs } from '../periph/regs.ts';
import type { Cmd, UnitModel } from '../periph/unit.ts';
import { generateWasmModule, WASM_TS_PATH } from '../scripts/gen-wasm.ts';
import { mulberry32 } from './helpers/rng.ts';

const MATMUL = opcode('MXU', 'MATMUL');
const TR = flagBit('MXU', 'TRANSPOSE_B');
const ACC = flagBit('MXU', 'ACCUMULATE');
const O32 = flagBit('MXU', 'OUT_INT32');
const SPAD = 65536;

interface Shape {
  dim: number; k: number; tr: boolean; acc: boolean; o32: boolean; shift: number;
  a: number; as: number; b: number; bs: number; c: number; cs: number; cin: number; cins: number;
}

const randInt = (rng: () => number, n: number) => Math.floor(rng() * n);

/**
 * A random well-formed MATMUL whose operands lie in the lower half of the
 * scratchpad and whose C lies in the upper half, so C never overwrites them.
 */
function randomShape(rng: () => number, dim: number): Shape {
  const half = dim / 2;
  const aligned = (limit: number) => half * randInt(rng, Math.floor(limit / half));
  for (;;) {
    // Mostly short K; now and then long enough to cross the kernel's 2048-k segments.
    const k = dim * (1 + randInt(rng, rng() < 0.15 ? 300 : 12));
    const tr = rng() < 0.5, acc = rng() < 0.4, o32 = rng() < 0.5;
    // Strides: zero (one row reused), tight, or with gaps; any multiple of D/2.
    const stride = (rowBytes: number) => {
      const pick = randInt(rng, 4);
      return pick === 0 ? 0 : pick === 1 ? rowBytes : aligned(rowBytes + 200);
    };
    const as = stride(k / 2), bs = stride(tr ? k / 2 : half);
    const cRow = o32 ? 4 * dim : half;
    const s: Shape = {
      dim, k, tr, acc, o32, shift: randInt(rng, 16),
      a: aligned(8192), as, b: 8192 + aligned(8192), bs, cin: 16384 + aligned(8192), cins: stride(4 * dim),
      c: 32768 + aligned(8192), cs: stride(cRow),
    };
    const end = (addr: number, rows: number, rowBytes: number, st: number) => addr + (rows - 1) * st + rowBytes;
    const fits = end(s.a, dim, k / 2, as) <= 32768
      && (tr ? end(s.b, dim, k / 2, bs) : end(s.b, k, half, bs)) <= 32768
      && end(s.cin, dim, 4 * dim, s.cins) <= 32768
      && end(s.c, dim, cRow, s.cs) <= SPAD;
    if (fits) return s;
  }
}

function cmdOf(s: Shape): Cmd {
  const args = packArgs('MXU', {
    A_ADDR: s.a, B_ADDR: s.b, C_ADDR: s.c, K: s.k, A_STRIDE: s.as, B_STRIDE: s.bs,
    C_STRIDE: s.cs, SHIFT: s.shift, CIN_ADDR: s.cin, CIN_STRIDE: s.cins,
  });
  const flags = (s.tr ? TR : 0) | (s.acc ? ACC : 0) | (s.o32 ? O32 : 0);
  return { args: Uint32Array.from(args), opcode: MATMUL, flags, serial: 0, pushClock: 0, token: 0 };
}

/** The reference, clock by clock from clock s; returns the end clock. */
function runReference(m: UnitModel, cmd: Cmd, s: number): number {
  m.begin(cmd, s);
  for (let c = s; ; c++) {
    m.tickRead(c);
    if (m.tickWrite(c)) return c;
  }
}

/** The fast model: random skips (up to the horizon) and single ticks; returns the end clock. */
function runFast(m: UnitModel, cmd: Cmd, s: number, rng: () => number, tickShare: number): number {
  m.begin(cmd, s);
  for (let c = s; ;) {
    if (rng() < tickShare) {
      m.tickRead(c);
      if (m.tickWrite(c)) return c;
      c++;
      continue;
    }
    const h = m.horizon(c);
    const n = 1 + randInt(rng, rng() < 0.5 ? Math.min(h, 20) : h);
    if (m.skip(c, n)) return c + n - 1;
    c += n;
  }
}

function firstDifference(x: Uint8Array, y: Uint8Array): string {
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  return i === x.length ? 'equal' : `differ at 0x${i.toString(16)}: ${x[i]} vs ${y[i]}`;
}

describe('MXU WebAssembly kernel', () => {
  it('the generated binary is the .wat compiled (npm run gen:wasm)', async () => {
    expect(readFileSync(WASM_TS_PATH, 'utf8')).toBe(await generateWasmModule());
  });

  it('is there: the TPU scratchpad comes with a kernel on this Node', () => {
    const { spad, kernel } = createScratchpad(SPAD);
    expect(kernel).not.toBeNull();
    expect(spad.length).toBe(SPAD);
    expect(spad.every((v) => v === 0)).toBe(true);
  });

  for (const dim of [8, 16]) {
    it(`fast model with the kernel = reference on random MATMULs, ${dim}×${dim} array`, () => {
      const rng = mulberry32(dim === 8 ? 2024 : 2025);
      const cfg: TpuConfig = { ...defaultConfig().tpu, mxuDim: dim };
      const { spad, kernel } = createScratchpad(SPAD);
      const sram = new Uint8Array(16);
      let longK = 0;
      for (let n = 0; n < 60; n++) {
        const shape = randomShape(rng, dim);
        if (shape.k > 2048) longK++;
        const init = new Uint8Array(SPAD);
        for (let i = 0; i < SPAD; i++) init[i] = randInt(rng, 256);
        const refSpad = init.slice();
        const cmd = cmdOf(shape);
        const s = randInt(rng, 50);
        const refEnd = runReference(new MxuReference({ spad: refSpad, sram }, cfg), cmd, s);
        // Deferred reads (as the TPU core runs it) and the unit.ts contract; mostly skips, some ticks.
        for (const deferReads of [true, false]) {
          spad.set(init);
          const fast = new MxuFast({ spad, sram, mxuKernel: kernel }, cfg, deferReads);
          expect(runFast(fast, cmd, s, rng, n % 3 === 0 ? 0.3 : 0.02), JSON.stringify(shape)).toBe(refEnd);
          expect(firstDifference(spad, refSpad), `${deferReads ? 'deferred' : 'in-window'} ${JSON.stringify(shape)}`).toBe('equal');
        }
      }
      expect(longK).toBeGreaterThan(0); // some K spanned several kernel segments
    });
  }

  /** Signed nibble i of the packed int4 row at addr (element 2q in byte q's low nibble). */
  const signedNibble = (spad: Uint8Array, addr: number, i: number): number => {
    const b = spad[addr + (i >> 1)];
    return (((i & 1 ? b >> 4 : b) & 15) ^ 8) - 8;
  };

  it('sums = plain loops over long K (several 2048-k segments), any k-range, both layouts of B', () => {
    const rng = mulberry32(77);
    const { spad, kernel } = createScratchpad(SPAD);
    const nib = (addr: number, i: number) => signedNibble(spad, addr, i);
    for (let n = 0; n < 24; n++) {
      const dim = n % 2 ? 16 : 8, half = dim / 2;
      for (let i = 0; i < SPAD; i++) spad[i] = randInt(rng, 256);
      // All -8 now and then: the largest products, to check the int16 partial sums cannot overflow.
      if (n % 4 === 0) spad.fill(0x88);
      const tr = n % 4 < 2;
      const k = dim * (1 + randInt(rng, tr ? 8000 / dim : 3800 / dim));
      const as = tr ? 0 : half * randInt(rng, 3), bs = tr ? half * randInt(rng, 3) : half;
      const a = 0, b = 32768;
      const k0 = dim * randInt(rng, k / dim), k1 = k0 + dim * (1 + randInt(rng, (k - k0) / dim));
      kernel!.acc.fill(7);
      kernel!.matmul(dim, a, as, b, bs, tr, k0, k1);
      for (let i = 0; i < dim; i++) {
        for (let j = 0; j < dim; j++) {
          let want = 7;
          for (let kk = k0; kk < k1; kk++) want = (want + nib(a + i * as, kk) * (tr ? nib(b + j * bs, kk) : nib(b + kk * bs, j))) | 0;
          expect(kernel!.acc[i * dim + j], `${JSON.stringify({ dim, k0, k1, tr, as, bs })} C[${i}][${j}]`).toBe(want);
        }
      }
    }
  });

  it('reuses an unpacked B only while its bytes are unchanged: one nibble changed anywhere in B is seen', () => {
    const rng = mulberry32(78);
    const { spad, kernel } = createScratchpad(SPAD);
    const nib = (addr: number, i: number) => signedNibble(spad, addr, i);
    let checked = 0;
    for (let n = 0; n < 64; n++) {
      const dim = n % 2 ? 16 : 8, half = dim / 2, tr = n % 4 < 2;
      for (let i = 0; i < SPAD; i++) spad[i] = randInt(rng, 256);
      const k = dim * (1 + randInt(rng, 600 / dim));
      // Back-to-back rows (one 16-byte load per four rows) and strided ones.
      const as = half * (k / dim + randInt(rng, 3)), bs = tr ? half * (k / dim + randInt(rng, 3)) : half * (1 + randInt(rng, 3));
      const a = 0, b = 32768;
      const run = (): void => {
        kernel!.acc.fill(0);
        kernel!.matmul(dim, a, as, b, bs, tr, 0, k);
        for (let i = 0; i < dim; i++) {
          for (let j = 0; j < dim; j++) {
            let want = 0;
            for (let kk = 0; kk < k; kk++) want = (want + nib(a + i * as, kk) * (tr ? nib(b + j * bs, kk) : nib(b + kk * bs, j))) | 0;
            expect(kernel!.acc[i * dim + j], `${JSON.stringify({ n, dim, k, tr, as, bs })} C[${i}][${j}]`).toBe(want);
          }
        }
        checked++;
      };
      run();
      run(); // the same B, reused
      // One nibble of B, the last byte of a random row (row r's D/2 or K/2 bytes), changes.
      const rows = tr ? dim : k, rowBytes = tr ? k / 2 : half;
      const at = b + randInt(rng, rows) * bs + (n % 3 === 0 ? rowBytes - 1 : randInt(rng, rowBytes));
      spad[at] ^= 1 << (4 * randInt(rng, 2));
      run();
      // A new A with the same B is multiplied by the changed B.
      for (let i = 0; i < dim * as; i++) spad[a + i] = randInt(rng, 256);
      run();
    }
    expect(checked).toBe(256);
  });
});
