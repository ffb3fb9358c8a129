// Plain functional models of the seed's units, written from the RTL's
// arithmetic (mxu.sv requant4/clip4, vpu.sv narrow4, dma.sv's walk) without
// any of its timing: what the scratchpad and SRAM must hold after a command.

export const sx4 = (v: number): number => ((v & 15) << 28) >> 28;
const nib = (mem: Uint8Array, byteAddr: number, k: number) => sx4(mem[(byteAddr + (k >> 1)) & 0xffff] >> ((k & 1) * 4));

export function requant(v: number, m0: number, n: number, lo = -8): number {
  const p = v * m0;
  const s = n === 0 ? p : Math.floor((p + 2 ** (n - 1)) / 2 ** n);
  return Math.max(lo, Math.min(7, s));
}

/** C = clip4(requant(A@B) (+ C_old)); every operand row read from its word-aligned address. */
export function goldenMm(spad: Uint8Array, o: { a: number; b: number; c: number; k: number; aStride: number; bStride: number; cStride: number; transpose: boolean; acc: boolean; m0: number; n: number }): void {
  if (o.k === 0) return; // mxu.sv goes from S_IDLE straight to S_DONE: nothing is written
  const lenBytes = o.k >> 1;
  const as = o.aStride || lenBytes, bs = o.bStride || (o.transpose ? lenBytes : 4), cs = o.cStride || 4;
  const out: number[] = [];
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      let s = 0;
      for (let k = 0; k < o.k; k++) {
        const aw = ((o.a + i * as + 4 * (k >> 3)) & 0xffff) & ~3;
        const a = nib(spad, aw, k & 7);
        let b: number;
        if (o.transpose) b = nib(spad, ((o.b + j * bs + 4 * (k >> 3)) & 0xffff) & ~3, k & 7);
        else b = nib(spad, ((o.b + k * bs) & 0xffff) & ~3, j);
        s += a * b;
      }
      out.push(s);
    }
  }
  for (let i = 0; i < 8; i++) {
    const cw = ((o.c + i * cs) & 0xffff) & ~3;
    const bytes = [0, 0, 0, 0];
    for (let j = 0; j < 8; j++) {
      const old = o.acc ? nib(spad, cw, j) : 0;
      const v = Math.max(-8, Math.min(7, requant(out[i * 8 + j], o.m0, o.n) + old));
      bytes[j >> 1] |= (v & 15) << ((j & 1) * 4);
    }
    for (let b = 0; b < 4; b++) spad[cw + b] = bytes[b];
  }
}

/** A DMA fill or spill, byte by byte in the RTL's order. */
export function goldenDma(spad: Uint8Array, sram: Uint8Array, o: { spill: boolean; spadAddr: number; sramAddr: number; len: number; rows: number; sramStride: number; spadStride: number }): void {
  const rowBytes = ((o.len + 1) & 0xffff) >> 1;
  const ds = o.sramStride || rowBytes, ss = o.spadStride || rowBytes;
  for (let r = 0; r < o.rows && rowBytes > 0; r++) {
    for (let c = 0; c < rowBytes; c++) {
      const s = (o.spadAddr + r * ss + c) & 0xffff, d = (o.sramAddr + r * ds + c) & 0x7ffff;
      if (o.spill) sram[d] = spad[s];
      else spad[s] = sram[d];
    }
  }
}

/** A VPU op (ops 0 DOT, 1 ADD, 3 RELU, 10 REQUANT, 16 DYT, 18 ARGMAX; others write zeros). */
export function goldenVpu(spad: Uint8Array, o: { op: number; dst: number; src0: number; src1: number; vlen: number; m0: number; n: number }): void {
  const w = (a: number) => (a & 0xffff) & ~3;
  if (o.op === 0 || o.op === 18) {
    let acc = 0, best = -9;
    for (let e = 0; e < o.vlen; e++) {
      const a = nib(spad, w(o.src0 + 4 * (e >> 3)), e & 7);
      if (o.op === 0) acc += a * nib(spad, w(o.src1 + 4 * (e >> 3)), e & 7);
      else if (a > best) { best = a; acc = e; }
    }
    if (o.vlen > 0) new DataView(spad.buffer, spad.byteOffset).setInt32(w(o.dst), acc, true);
    return;
  }
  for (let e = 0; e < o.vlen; e++) {
    const a = nib(spad, w(o.src0 + 4 * (e >> 3)), e & 7);
    const b = nib(spad, w(o.src1 + 4 * (e >> 3)), e & 7);
    let r = 0;
    if (o.op === 1) r = requant(a + b, o.m0, o.n);
    else if (o.op === 3) r = requant(a > 0 ? a : 0, o.m0, o.n);
    else if (o.op === 10) r = requant(a, o.m0, o.n);
    else if (o.op === 16) r = requant(a + b, o.m0, o.n, -7);
    const at = w(o.dst + 4 * (e >> 3)) + ((e & 7) >> 1);
    spad[at] = e & 1 ? (spad[at] & 0x0f) | ((r & 15) << 4) : (r & 15); // the high nibble of a half-active byte is written 0
  }
}
