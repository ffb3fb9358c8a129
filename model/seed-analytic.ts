// Analytic busy clocks of our transformer on the seed board
// (build/fw/seed-model.elf): every command the firmware pushes for a job,
// priced by the seed's timing rules (docs/seed-board.md §5) — MXU MM K + 25
// (K + 33 accumulating), GEOM never busy; VPU 3 clocks a word + 1 (RELU),
// 5 + 1 (ADD, DYT), 5 + 2 (DOT); DMA fill one clock a byte, spill 2·bytes + 3.
// The sums are the seed's mxu, vpu and dma counters exactly as long as no
// unit loses a bank to another (the firmware's plan keeps them apart); a test
// holds them to the measured counters (test/seed-analytic.test.ts).
//
// The walk mirrors firmware-c/seed-model/model.c loop for loop: keep the two
// in step when either changes.

import { SEED_VARIANT, type ModelDims } from './format.ts';

export interface SeedBusy {
  mxu: number; vpu: number; dma: number;
  /** Commands pushed per unit (GEOM included for the MXU). */
  commands: { mxu: number; vpu: number; dma: number };
}

const VPU_CHUNK = 1016;
const ceil8 = (n: number) => (n + 7) & ~7;

class Tally implements SeedBusy {
  mxu = 0; vpu = 0; dma = 0;
  commands = { mxu: 0, vpu: 0, dma: 0 };
  geom(): void { this.commands.mxu++; }
  mm(k: number, acc: boolean): void { this.commands.mxu++; this.mxu += k === 0 ? 1 : k + (acc ? 33 : 25); }
  fill(bytes: number): void { this.commands.dma++; this.dma += bytes; }
  spill(bytes: number): void { this.commands.dma++; this.dma += bytes === 0 ? 0 : 2 * bytes + 3; }
  /** One VPU op of vlen elements: 3 (unary) or 5 (binary) clocks a word, + 1 (+ 2 for DOT). */
  vop(kind: 'unary' | 'binary' | 'dot', vlen: number): void {
    this.commands.vpu++;
    const words = Math.ceil(vlen / 8);
    this.vpu += vlen === 0 ? 1 : kind === 'unary' ? 3 * words + 1 : kind === 'binary' ? 5 * words + 1 : 5 * words + 2;
  }
  /** vpu_ew: count elements in chunks of VPU_CHUNK. */
  ew(kind: 'unary' | 'binary', count: number): void {
    for (let left = count; left > 0; left -= VPU_CHUNK) this.vop(kind, Math.min(left, VPU_CHUNK));
  }
  matmul(rows: number, k: number, n: number, acc: boolean): void {
    this.geom();
    for (let j = 0; j < n / 8; j++) {
      this.fill(4 * k);
      for (let i = 0; i < rows / 8; i++) this.mm(k, acc);
    }
  }
}

/** Per layer: the hardtanh bounds (7 or 8) after attention and after the FFN. */
export interface SeedLayerBounds { bound1: number; bound2: number }

/**
 * The busy clocks of a job: `promptLen` prompt tokens, then `generated − 1`
 * decode steps (generated = the tokens the run wrote, stop token included),
 * with the VARIANT bits the firmware acts on.
 */
export function predictSeedBusy(dims: ModelDims, bounds: SeedLayerBounds[], promptLen: number, generated: number, variant: number): SeedBusy {
  const { d, dFF, heads, layers, vocab } = dims;
  const dh = d / heads, rowb = d / 2;
  const fused = (variant & SEED_VARIANT.FUSED) !== 0, flash = (variant & SEED_VARIANT.FLASH) !== 0;
  const t = new Tally();
  // load_header: the header, the layer records, the prompt.
  t.fill(128); t.fill(layers * 64); t.fill(promptLen);
  const projectResidual = (rows: number, k: number, bound: number) => {
    if (fused) {
      t.matmul(rows, k, d, true);
      if (bound === 7) t.ew('binary', rows * d);
    } else {
      t.matmul(rows, k, d, false);
      t.ew('binary', rows * d);
    }
  };
  const attendRows = (blocks: number, kb: number, keys: number, tp: number) => {
    t.geom();
    for (let i = 0; i < blocks * kb; i++) t.mm(dh, false);
    t.ew('binary', blocks * 8 * tp);
    t.ew('unary', blocks * 8 * tp);
    t.geom();
    for (let i = 0; i < blocks * (dh / 8); i++) t.mm(keys, false);
  };
  const forward = (pos0: number, rows: number) => {
    const blocks = Math.ceil(rows / 8), rp = blocks * 8, T = pos0 + rows, tp = ceil8(T);
    for (let r = 0; r < rows; r++) t.fill(rowb);
    t.fill(rows * rowb);
    t.ew('binary', rows * d);
    for (let l = 0; l < layers; l++) {
      t.matmul(rp, d, d, false); // Q
      t.matmul(rp, d, d, false); // K
      t.spill(rows * rowb);
      t.matmul(rp, d, d, false); // V
      t.spill(rows * rowb);
      t.fill(T * rowb); t.fill(T * rowb);
      for (let h = 0; h < heads; h++) {
        if (flash) {
          for (let i = 0; i < blocks; i++) {
            const keys = Math.min(pos0 + 8 * i + 8, T);
            attendRows(1, Math.ceil(keys / 8), keys, tp);
          }
        } else {
          attendRows(blocks, tp / 8, T, tp);
        }
      }
      projectResidual(rp, d, bounds[l].bound1);
      t.matmul(rp, d, dFF, false);
      t.ew('unary', rp * dFF);
      projectResidual(rp, dFF, bounds[l].bound2);
    }
    t.fill(vocab * rowb);
    for (let j = 0; j < vocab; j++) t.vop('dot', d);
  };
  const emit = () => { t.spill(4 * vocab); t.spill(1); };
  forward(0, promptLen);
  emit();
  for (let i = 1; i < generated; i++) {
    forward(promptLen + i - 1, 1);
    emit();
  }
  t.spill(4); t.spill(4); // GENERATED, STATUS
  return { mxu: t.mxu, vpu: t.vpu, dma: t.dma, commands: t.commands };
}
