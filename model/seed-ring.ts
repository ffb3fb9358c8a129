// chained.c's two flows as the firmware runs them, clock by clock: the CHAINED
// decode steps and the PIPELINED prefill stream every weight through a ring of
// scratchpad slots, and a producer (pump) queues the ring's next chunk whenever
// the units let it (its slot's readers retired, the DMA queue not too deep).
// Which call of pump() queues which chunk depends on the units' timing, so
// these flows are no fixed stream of commands: this mirror follows the
// firmware's code with every access that steers it (a commit store, a read of
// a unit's RETIRED or LEVEL) made through a SeedIo, which either answers from
// the units' schedule (model/seed-schedule.ts: the prediction) or from a trace
// of the emulator's run (scripts/seed-issue-trace.ts: the calibration, which
// counts the CPU's clocks between two accesses by the sites at their ends).
//
// Sites: a command or read of the consumer's code is named for its place in
// chained.c; the accesses of the pump, which the compiler inlines at each of
// its calls, are prefixed by the call's place ("wf": wait_for's loop, "ci":
// chunk_in's, "rm": ring_matmul after a chunk, "rmp": after a panel of the
// prefill, "pkv": pump_kv, a function of its own). Keep it in step with
// chained.c loop for loop (model/seed-analytic.ts walks the same flows without
// timing, for the busy clocks).

import { SEED_VARIANT, type ModelDims } from './format.ts';
import { SEED_DMA, SEED_MXU, SEED_VPU, type SeedLayerBounds, type SeedSink } from './seed-analytic.ts';

/** The accesses that steer chained.c: answered by the schedule (prediction) or a trace (calibration). */
export interface SeedIo {
  /** A commit store at `site`: a command to `unit`, busy `busy` clocks (the paths from it start at `as` when given, as read's). */
  commit(unit: number, busy: number, site: string, as?: string): void;
  /**
   * A read of `unit`'s RETIRED or LEVEL register at `site`: its value. The paths from it start at `as` when
   * given (a read in a function that many sites call: the clocks to it are the caller's, those after it the function's).
   */
  read(reg: 'retired' | 'level', unit: number, site: string, as?: string): number;
  /** The paths from here start at `site` (a function's return: the clocks after it are its caller's). */
  resume(site: string): void;
  /** Commands committed to `unit` so far (the firmware's ISSUED reads: no event, their clocks are in the paths). */
  issued(unit: number): number;
}

const VPU_CHUNK = 1016, DMA_AHEAD = 7, MAX_SLOTS = 14;
const G_DD = 0, G_DF = 1, G_FD = 2, G_OUT = 3;
const ceil8 = (n: number) => (n + 7) & ~7;

/** "site.part", built once per pair (the replay asks for the same few names millions of times). */
const names = new Map<string, Map<string, string>>();
function sub(site: string, part: string): string {
  let m = names.get(site);
  if (!m) names.set(site, (m = new Map()));
  let n = m.get(part);
  if (n === undefined) m.set(part, (n = `${site}.${part}`));
  return n;
}
const unaryBusy = (vlen: number) => (vlen === 0 ? 1 : 3 * Math.ceil(vlen / 8) + 1);
const binaryBusy = (vlen: number) => (vlen === 0 ? 1 : 5 * Math.ceil(vlen / 8) + 1);
const dotBusy = (vlen: number) => (vlen === 0 ? 1 : 5 * Math.ceil(vlen / 8) + 2);
const mmBusy = (k: number, acc: boolean) => (k === 0 ? 1 : k + (acc ? 33 : 25));
const fillBusy = (bytes: number) => bytes;
const spillBusy = (bytes: number) => (bytes === 0 ? 0 : 2 * bytes + 3);

/** A weight geometry of the ring: K rows, units (panels, or the head's rows) a chunk, units, bytes a unit. */
interface Geom { k: number; per: number; units: number; unitBytes: number; chunks: number; head: boolean }

function geomOf(slot: number, k: number, units: number, unitBytes: number, head: boolean): Geom {
  const per = Math.min(Math.floor(slot / unitBytes), units);
  return { k, per, units, unitBytes, chunks: Math.ceil(units / per), head };
}

/**
 * The ring and its two ends (chained.c's p_* and c_* state): the producer's
 * position in the stream (step, layer, matrix 0-5 or the head, chunk), the
 * slots' fills and readers, and the consumer's chunk count.
 */
class Ring {
  readonly geoms: Geom[];
  readonly nslot: number;
  pStep = 0; pLayer = 0; pMat = 0; pChunk = 0; pKvDone = 0; pChunks = 0; pSlot = 0; pOk = false; pG = 0;
  cStep = 0; cChunks = 0; cSlot = 0;
  readonly slotDma = new Float64Array(MAX_SLOTS);
  readonly slotUnit = new Int32Array(MAX_SLOTS);
  readonly slotIdx = new Float64Array(MAX_SLOTS);
  kvItems = 0; kvFillIdx = 0; attnCount = 0; attnEndIdx = 0; logitSpillIdx = 0; wordSpillIdx = 0;
  /** advance()'s branch counts, reported after each push (the sinks copy them). */
  private readonly advanceCounts = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  /** PIPELINED's deferred cache spills (pf_kc): rows, 0 when none waits. */
  pfRows = 0;

  constructor(private readonly io: SeedIo, private readonly sink: SeedSink, private readonly dims: ModelDims, private readonly slot: number, nslot: number,
    private readonly kvOn: boolean, private readonly lastStep: number, private readonly plen: number) {
    const { d, dFF, vocab } = dims;
    this.geoms = [geomOf(slot, d, d / 8, 4 * d, false), geomOf(slot, d, dFF / 8, 4 * d, false), geomOf(slot, dFF, d / 8, 4 * dFF, false), geomOf(slot, d, vocab, d / 2, true)];
    this.nslot = nslot;
  }

  /**
   * geom_of's udiv loops (a subtraction a trip), over the geometries: the trips of slot / unit bytes, and of the
   * chunks (two calls of udiv whose loops' clocks a trip differ: the code's place).
   */
  udivTrips(): [number, number] {
    let per = 0, chunks = 0;
    for (const g of this.geoms) { per += Math.floor(this.slot / g.unitBytes); chunks += g.chunks; }
    return [per, chunks];
  }

  /** The bytes of the chunk at the producer's position. */
  private chunkBytes(): number {
    const g = this.geoms[this.pG], first = this.pChunk * g.per, units = Math.min(g.per, g.units - first);
    return g.head ? (units * this.dims.d) / 2 : 4 * units * g.k;
  }

  private nextWords(): void {
    this.pG = this.pLayer < this.dims.layers ? (this.pMat < 4 ? G_DD : this.pMat === 4 ? G_DF : G_FD) : G_OUT;
    this.pOk = true;
  }

  private advance(): void {
    if (++this.pChunk === this.geoms[this.pG].chunks) {
      this.pChunk = 0;
      if (this.pLayer === this.dims.layers) { this.pLayer = 0; this.pStep++; }
      else if (++this.pMat === 6) { this.pMat = 0; this.pLayer++; }
    }
    if (this.pLayer < this.dims.layers && this.pMat === 0 && this.pChunk === 0 && (this.kvOn || this.pLayer === 0)) { this.pKvDone = 0; this.pOk = false; }
    else this.nextWords();
  }

  retiredBy(unit: number, idx: number, site: string, as?: string): boolean {
    return this.io.read('retired', unit, site, as) - idx >= 0;
  }

  private pumpKv(at: string): void {
    if (this.pStep > this.lastStep) { this.gated(at, 'end'); return; }
    if (this.pStep > this.cStep + 1) { this.gated(at, 'ahead'); return; }
    // A step's start without K/V fills: next_words, no access (its clocks on a path of their own).
    if (!this.kvOn) { this.nextWords(); this.io.resume(sub(at, 'start')); return; }
    if (this.io.read('level', SEED_DMA, 'pkv.level') > DMA_AHEAD) return;
    if (this.attnCount < this.kvItems || !this.retiredBy(SEED_MXU, this.attnEndIdx, 'pkv.attn')) return;
    const bytes = ((this.plen + this.pStep - 1) * this.dims.d) / 2;
    this.io.commit(SEED_DMA, fillBusy(bytes), 'pkv.fill_k');
    this.io.commit(SEED_DMA, fillBusy(bytes), 'pkv.fill_v');
    this.kvFillIdx = this.io.issued(SEED_DMA);
    this.kvItems++;
    this.pKvDone = 1;
    this.nextWords();
  }

  /**
   * pump_kv returned before any access (the stream at its end, or a step ahead of the consumer): in a wait's
   * loop (wait_for's, chunk_in's) the poll's round has clocks of its own, apart from the rounds where the ring
   * is full (pump's own early return).
   */
  private gated(at: string, why: 'end' | 'ahead'): void {
    // ... and so does pf_matmul's pump once the prefill's stream is all queued (pump_kv's call, apart from a full ring's return).
    if (at === 'wf' || at === 'ci' || at === 'pmp') this.io.resume(sub(at, why));
  }

  /** pump(), inlined at `at`: queues the stream's next item if it can go now. */
  pump(at: string): void {
    if (!this.pOk) { this.pumpKv(at); return; }
    if (this.pChunks - this.cChunks >= this.nslot || this.io.read('level', SEED_DMA, sub(at, 'level')) > DMA_AHEAD) return;
    const s = this.pSlot;
    if (!this.retiredBy(this.slotUnit[s], this.slotIdx[s], sub(at, 'slot'))) return;
    this.io.commit(SEED_DMA, fillBusy(this.chunkBytes()), sub(at, 'push'));
    this.slotDma[s] = this.io.issued(SEED_DMA);
    this.slotIdx[s] = 0;
    this.pChunks++;
    this.pSlot = s + 1 === this.nslot ? 0 : s + 1;
    const chunkEnd = this.pChunk + 1 === this.geoms[this.pG].chunks;
    const stepEnd = chunkEnd && this.pLayer === this.dims.layers, layerEnd = chunkEnd && !stepEnd && this.pMat === 5;
    this.advance();
    // advance()'s branches: the matrix's, the layer's or the step's last chunk; a K/V fill or a step's start next
    // (no next_words), else next_words for the head or for matrix p_mat (mat_addr's chain of compares: a branch
    // of its own for each matrix, one count each, matrix 0 the constant's).
    const c = this.advanceCounts, m = this.pOk && this.pG !== G_OUT ? this.pMat : -1;
    c[0] = chunkEnd ? 1 : 0; c[1] = layerEnd ? 1 : 0; c[2] = stepEnd ? 1 : 0; c[3] = this.pOk ? 0 : 1; c[4] = this.pOk && this.pG === G_OUT ? 1 : 0;
    for (let k = 1; k <= 5; k++) c[4 + k] = m === k ? 1 : 0;
    this.sink.cpu('advance', c);
  }

  /** wait_for(unit, idx) called at `site`: its first read is the caller's, the loop's are wait_for's own. */
  waitFor(unit: number, idx: number, site: string): void {
    if (!this.retiredBy(unit, idx, site, 'wf.poll')) do this.pump('wf'); while (!this.retiredBy(unit, idx, 'wf.poll'));
    this.io.resume(sub(site, 'done'));
  }

  waitAll(unit: number, site: string): void {
    this.waitFor(unit, this.io.issued(unit), site);
  }

  /** chunk_in: the consumer's next chunk, once it is in. */
  chunkIn(site: string): void {
    while (this.pChunks === this.cChunks) this.pump('ci');
    this.waitFor(SEED_DMA, this.slotDma[this.cSlot], site);
  }

  chunkUsed(unit: number): void {
    this.slotUnit[this.cSlot] = unit;
    this.slotIdx[this.cSlot] = this.io.issued(unit);
    this.cChunks++;
    this.cSlot = this.cSlot + 1 === this.nslot ? 0 : this.cSlot + 1;
  }

  /** p_kv_gated: at a K/V fill whose previous attention has not been issued yet. */
  kvGated(): boolean {
    return this.pLayer < this.dims.layers && !this.pKvDone && this.attnCount < this.kvItems;
  }

  /** chained_stop: the prefetch of the next step completed to its fixed point. */
  stop(): void {
    while (this.pStep <= this.lastStep && this.pStep <= this.cStep + 1 && this.pChunks - this.cChunks < this.nslot && !this.kvGated()) this.pump('cs');
  }
}

/** The commands of chained.c's helpers, through the io. */
function helpers(io: SeedIo, d: number) {
  /** vpu_ew (a function): a chunk a trip; the clocks to the first are the caller's, the loop's after it vpu_ew's own. */
  const vpuEw = (busy: (n: number) => number, count: number, site: string) => {
    for (let left = count, first = true; left > 0; left -= VPU_CHUNK, first = false) io.commit(SEED_VPU, busy(Math.min(left, VPU_CHUNK)), first ? site : 'cvpu.next', 'cvpu.next');
  };
  /** pf_vpu_ew (inline at `site`): the whole chunks in a loop, then the last. */
  const vpuEwInline = (busy: (n: number) => number, count: number, site: string) => {
    let first = true;
    for (; count > VPU_CHUNK; count -= VPU_CHUNK, first = false) io.commit(SEED_VPU, busy(VPU_CHUNK), first ? site : sub(site, 'loop'), sub(site, 'loop'));
    io.commit(SEED_VPU, busy(count), first ? site : sub(site, 'last'));
  };
  return {
    vpuEw, vpuEwInline,
    fill: (bytes: number, site: string) => io.commit(SEED_DMA, fillBusy(bytes), site),
    spill: (bytes: number, site: string) => io.commit(SEED_DMA, spillBusy(bytes), site),
    geom: (site: string) => io.commit(SEED_MXU, 0, site),
    mm: (k: number, acc: boolean, site: string) => io.commit(SEED_MXU, mmBusy(k, acc), site),
    dot: (site: string) => io.commit(SEED_VPU, dotBusy(d), site),
  };
}

/**
 * ring_matmul: `blocks` row blocks of C from the ring, a chunk of panels at a
 * time (after each panel of the prefill, a pump and the deferred spills; after
 * each chunk of the decode, a pump).
 */
function ringMatmul(ring: Ring, io: SeedIo, g: number, blocks: number, acc: boolean, site: string, deferSpills: () => void): void {
  const geom = ring.geoms[g];
  io.commit(SEED_MXU, 0, sub(site, 'geom'));
  for (let j = 0; j < geom.units;) {
    ring.chunkIn(j === 0 ? sub(site, 'in') : 'rm.in');
    for (let p = 0; p < geom.per && j < geom.units; p++, j++) {
      for (let i = 0; i < blocks; i++) io.commit(SEED_MXU, mmBusy(geom.k, acc), i ? 'rm.mm' : 'rm.mm0');
      if (blocks > 1) { ring.pump('rmp'); deferSpills(); }
    }
    ring.chunkUsed(SEED_MXU);
    if (blocks === 1) ring.pump('rm');
  }
}

/** put_word: one word to the SRAM after everything queued. */
function putWord(ring: Ring, io: SeedIo, bytes: number, site: string): void {
  ring.waitAll(SEED_DMA, sub(site, 'before'));
  io.commit(SEED_DMA, spillBusy(bytes), site);
  ring.waitAll(SEED_DMA, sub(site, 'after'));
}

/**
 * chained_run after prefill_done(): `generated − 1` decode steps (a stop token
 * may end them before `decodeSteps`), the stop's prefetch, GENERATED and STATUS.
 */
export function runChained(dims: ModelDims, bounds: SeedLayerBounds[], promptLen: number, generated: number, decodeSteps: number, variant: number, io: SeedIo, sink: SeedSink): void {
  const D = dims.d, DFF = dims.dFF, HEADS = dims.heads, LAYERS = dims.layers, VOCAB = dims.vocab;
  const DH = D / HEADS, rowb = D / 2, fused = (variant & SEED_VARIANT.FUSED) !== 0;
  const h = helpers(io, D);
  const ring = new Ring(io, sink, dims, 4096, Math.floor(0x7000 / 4096), true, decodeSteps, promptLen);
  sink.cpu('chained_fits', ring.udivTrips());
  // chained_start
  ring.pStep = 1; ring.cStep = 1;
  ring.attnEndIdx = io.issued(SEED_MXU);
  ring.logitSpillIdx = ring.wordSpillIdx = io.issued(SEED_DMA);
  const none = () => {};
  const residual = (g: number, bound: number, site: string) => {
    if (fused) {
      ringMatmul(ring, io, g, 1, true, site, none);
      if (bound !== 7) return;
      ring.waitAll(SEED_MXU, 'cr.fused.wait');
      io.commit(SEED_VPU, binaryBusy(D), 'cr.fused.dyt');
    } else {
      ringMatmul(ring, io, g, 1, false, site, none);
      ring.waitAll(SEED_MXU, 'cr.wait');
      io.commit(SEED_VPU, binaryBusy(D), 'cr.residual');
    }
    ring.waitAll(SEED_VPU, 'cr.vpu.wait');
  };
  for (let step = 1; step < generated; step++) {
    const pos0 = promptLen + step - 1, t = pos0 + 1, tp = ceil8(t);
    sink.pass(step);
    // forward_chained
    ring.cStep = step;
    ring.pump('fc');
    h.fill(rowb, 'fc.tok');
    h.fill(rowb, 'fc.pos');
    ring.waitAll(SEED_DMA, 'fc.embed.wait');
    io.commit(SEED_VPU, binaryBusy(D), 'fc.embed.add');
    ring.waitAll(SEED_VPU, 'fc.embed.wait_vpu');
    for (let l = 0; l < LAYERS; l++) {
      ringMatmul(ring, io, G_DD, 1, false, 'c.q', none);
      ringMatmul(ring, io, G_DD, 1, false, 'c.k', none);
      ringMatmul(ring, io, G_DD, 1, false, 'c.v', none);
      ring.waitAll(SEED_MXU, 'c.qkv.wait');
      ring.waitFor(SEED_DMA, ring.kvFillIdx, 'c.kv.wait');
      for (let c = 0; c < 4; c++) io.commit(SEED_VPU, unaryBusy(D), `c.copy${c}`);
      ring.waitAll(SEED_VPU, 'c.copy.wait');
      h.spill(rowb, 'c.spill_k');
      h.spill(rowb, 'c.spill_v');
      // chained_attention
      ring.pump('ca');
      h.geom('ca.qk.geom');
      for (let hd = 0; hd < HEADS; hd++) {
        for (let j = 0; j < tp / 8; j++) h.mm(DH, false, j ? 'ca.qk' : 'ca.qk0');
        ring.pump('cah');
      }
      ring.waitAll(SEED_MXU, 'ca.qk.wait');
      h.vpuEw(unaryBusy, HEADS * tp, 'ca.relu');
      ring.waitAll(SEED_VPU, 'ca.relu.wait');
      h.geom('ca.pv.geom');
      for (let i = 0; i < D / 8; i++) h.mm(t, false, i % (DH / 8) ? 'ca.pv' : 'ca.pv0');
      ring.attnEndIdx = io.issued(SEED_MXU);
      ring.attnCount++;
      residual(G_DD, bounds[l].bound1, 'c.o');
      ringMatmul(ring, io, G_DF, 1, false, 'c.ffn1', none);
      ring.waitAll(SEED_MXU, 'c.ffn1.wait');
      h.vpuEw(unaryBusy, DFF, 'c.ffn1.relu');
      ring.waitAll(SEED_VPU, 'c.ffn1.relu.wait');
      residual(G_FD, bounds[l].bound2, 'c.ffn2');
    }
    ring.waitAll(SEED_MXU, 'fc.end.wait');
    ring.waitFor(SEED_DMA, ring.logitSpillIdx, 'fc.logits.wait');
    const head = ring.geoms[G_OUT];
    for (let j = 0; j < VOCAB;) {
      ring.chunkIn('fc.head.in');
      for (let r = 0; r < head.per && j < VOCAB; r++, j++) h.dot('fc.dot');
      ring.chunkUsed(SEED_VPU);
      ring.pump('fch');
    }
    ring.waitAll(SEED_VPU, 'fc.end.vpu');
    // emit_chained
    sink.cpu('argmax', [VOCAB]);
    h.spill(4 * VOCAB, 'ec.logits');
    ring.logitSpillIdx = io.issued(SEED_DMA);
    ring.waitFor(SEED_DMA, ring.wordSpillIdx, 'ec.word.wait');
    h.spill(1, 'ec.token');
    ring.wordSpillIdx = io.issued(SEED_DMA);
  }
  if (generated > 1 && generated <= decodeSteps) ring.stop();
  putWord(ring, io, 4, 'cr.generated');
  putWord(ring, io, 4, 'cr.status');
}

/**
 * prefill_pipelined: the prefill of `t` prompt tokens through a ring of three
 * 2 KB slots (one step of weights, no K/V fills): the position rows' fill
 * first, the stream started, the mask's zeros, the token rows, the ADD; K's
 * cache spill once the last head's scores have read K, V's once the ring is
 * full ahead; attention head by head, the MXU's scores and P·V interleaved with
 * the VPU's masks; the hand-overs between MXU and VPU polled without pumping;
 * the logits of the last row. model.c's emit() follows.
 */
export function runPipelined(dims: ModelDims, bounds: SeedLayerBounds[], t: number, variant: number, io: SeedIo, sink: SeedSink): void {
  const D = dims.d, DFF = dims.dFF, HEADS = dims.heads, LAYERS = dims.layers, VOCAB = dims.vocab;
  const DH = D / HEADS, rowb = D / 2, blocks = Math.ceil(t / 8), tp = ceil8(t);
  const fused = (variant & SEED_VARIANT.FUSED) !== 0, flash = (variant & SEED_VARIANT.FLASH) !== 0;
  const h = helpers(io, D);
  const ring = new Ring(io, sink, dims, 2048, 3, false, 0, t);
  /**
   * defer_spills, inline after each panel's pump: in ring_matmul (`at` "ds") and in pf_matmul ("pds"). Its two
   * returns before a read take different clocks: a count on the path, 1 where a spill waits but the ring is not full ahead.
   */
  const deferAt = (at: string) => () => {
    if (!ring.pfRows || ring.pChunks - ring.cChunks < ring.nslot - 1) { sink.cpu('defer', [ring.pfRows ? 1 : 0]); return; }
    if (!ring.retiredBy(SEED_MXU, ring.attnEndIdx, sub(at, 'attn'))) return;
    h.spill(ring.pfRows * rowb, sub(at, 'spill_v'));
    ring.pfRows = 0;
  };
  const deferRm = deferAt('ds'), deferPm = deferAt('pds');
  const flushSpills = (site: string) => {
    if (!ring.pfRows) return;
    ring.waitFor(SEED_MXU, ring.attnEndIdx, sub(site, 'wait'));
    h.spill(ring.pfRows * rowb, 'fs.spill_v');
    ring.pfRows = 0;
    ring.waitAll(SEED_DMA, 'fs.dma');
  };
  /** pf_wait: polls `unit` until command `idx` has retired, without pumping. */
  const pfWait = (unit: number, idx: number, site: string) => sink.wait(unit, io.issued(unit) - idx, site);
  const rm = (g: number, acc: boolean, site: string) => ringMatmul(ring, io, g, blocks, acc, site, deferRm);
  /** pf_matmul: the GEOM and the first chunk, then the wait for the VPU's command `vpu`, then the panels (a pump after each). */
  const pfMatmul = (g: number, acc: boolean, site: string, vpu: number) => {
    const geom = ring.geoms[g];
    io.commit(SEED_MXU, 0, sub(site, 'geom'));
    ring.chunkIn(sub(site, 'in'));
    pfWait(SEED_VPU, vpu, sub(site, 'vwait'));
    for (let j = 0; j < geom.units;) {
      for (let p = 0; p < geom.per && j < geom.units; p++, j++) {
        for (let i = 0; i < blocks; i++) io.commit(SEED_MXU, mmBusy(geom.k, acc), i ? 'pm.mm' : 'pm.mm0');
        ring.pump('pmp');
        deferPm();
      }
      ring.chunkUsed(SEED_MXU);
      if (j < geom.units) ring.chunkIn('pm.in');
    }
  };
  /**
   * pf_vpu_pass (a function): once the MXU is done (the wait named for the call site: the clocks to it are the
   * caller's), the pieces, a pump after the seventh or after the last of two to six; the VPU's issued count.
   */
  const pfVpuPass = (busy: (n: number) => number, count: number, site: string) => {
    pfWait(SEED_MXU, io.issued(SEED_MXU), sub(site, 'wait'));
    for (let n = 0; ;) {
      const c = Math.min(count, VPU_CHUNK);
      io.commit(SEED_VPU, busy(c), n ? 'pvp.op' : 'pvp.op0');
      count -= c;
      // The condition's clocks: its first term true (the seventh piece) or its last three evaluated (the last piece).
      if (++n === 7 || (!count && n > 1 && n < 7)) { sink.cpu('vpu_pass', [n === 7 ? 1 : 0]); ring.pump('pvp'); }
      if (!count) break;
    }
    return io.issued(SEED_VPU);
  };
  const keysOf = (i: number) => (flash ? Math.min(8 * i + 8, t) : t);
  h.fill(t * rowb, 'pf.pos');
  sink.cpu('pf.geoms', ring.udivTrips());
  ring.pump('pp0');
  let zeroed = 0;
  if (flash) {
    h.vpuEwInline(unaryBusy, 32 * blocks * (blocks + 1), 'pf.mask.zero');
    zeroed = io.issued(SEED_VPU);
  }
  for (let r = 0; r < t; r++) h.fill(rowb, 'pf.tok');
  ring.waitAll(SEED_DMA, 'pf.embed.wait');
  h.vpuEwInline(binaryBusy, t * D, 'pf.embed.add');
  ring.pump('pp1');
  if (flash) {
    ring.waitFor(SEED_VPU, zeroed, 'pf.mask.zero.wait');
    sink.cpu('pf.packed_mask', [blocks]);
  } else {
    sink.cpu('pf.fast_mask', [blocks * 8, blocks * tp]);
  }
  /** pf_scores (a function), called at `at`: head h's scores; the MXU's issued count after them. */
  const scores = (at: string) => {
    if (!flash) h.geom(sub(at, 'geom'));
    for (let i = 0; i < blocks; i++) {
      if (flash) h.geom(sub(at, 'fgeom'));
      // mm_run's first MM has its own path to it; from any MM on, the loop's code is one (the paths start at "mm").
      for (let j = 0; j < Math.ceil(keysOf(i) / 8); j++) io.commit(SEED_MXU, mmBusy(DH, false), j ? sub(at, 'mm') : sub(at, 'mm0'), sub(at, 'mm'));
    }
    return io.issued(SEED_MXU);
  };
  const count = flash ? 32 * blocks * (blocks + 1) : blocks * 8 * tp;
  /** pf_mask (a function), called at `at`: the mask's ADD and the ReLU; the VPU's issued count after them. */
  const mask = (at: string) => {
    h.vpuEwInline(binaryBusy, count, sub(at, 'add'));
    h.vpuEwInline(unaryBusy, count, sub(at, 'relu'));
    return io.issued(SEED_VPU);
  };
  /** pf_pv (inline): head h's P·V. */
  const pv = () => {
    if (!flash) h.geom('pfv.geom');
    for (let i = 0; i < blocks; i++) {
      if (flash) h.geom('pfv.fgeom');
      for (let c = 0; c < DH / 8; c++) io.commit(SEED_MXU, mmBusy(keysOf(i), false), c ? 'pfv.mm' : 'pfv.mm0', 'pfv.mm');
    }
  };
  let vpu = io.issued(SEED_VPU);
  for (let l = 0; l < LAYERS; l++) {
    pfMatmul(G_DD, false, 'pf.q', vpu);
    flushSpills('fs');
    rm(G_DD, false, 'pf.k');
    rm(G_DD, false, 'pf.v');
    // pf_attention: the MXU runs S0 S1 PV0 S2 PV1 ...; head h+1's mask after PV(h), or before it at the last pair.
    let done = scores('pfs0');
    pfWait(SEED_MXU, done, 'pfa.w0');
    if (HEADS === 1) h.spill(t * rowb, 'pfa.k1');
    let masked = mask('pmk0'), nextMasked = masked;
    if (HEADS > 1) done = scores('pfs1');
    for (let hd = 0; hd < HEADS; hd++) {
      const more = hd + 2 < HEADS;
      if (hd + 1 < HEADS && !more) {
        ring.waitFor(SEED_MXU, done, 'pfa.wl');
        h.spill(t * rowb, 'pfa.k');
        nextMasked = mask('pmkl');
      }
      pfWait(SEED_VPU, masked, 'pfa.wv');
      pv();
      if (more) {
        ring.waitFor(SEED_MXU, done, 'pfa.wm');
        nextMasked = mask('pmk');
        done = scores('pfs');
      }
      masked = nextMasked;
    }
    ring.attnEndIdx = io.issued(SEED_MXU);
    ring.pfRows = t;
    rm(G_DD, fused, 'pf.o');
    const last = l + 1 === LAYERS, rows = last ? 1 : blocks * 8;
    if (!fused) vpu = pfVpuPass(binaryBusy, rows * D, 'pf.o.res');
    else if (bounds[l].bound1 === 7) vpu = pfVpuPass(binaryBusy, rows * D, 'pf.o.dyt');
    pfMatmul(G_DF, false, 'pf.ffn1', vpu);
    vpu = pfVpuPass(unaryBusy, rows * DFF, 'pf.relu');
    pfMatmul(G_FD, fused, 'pf.ffn2', vpu);
    if (!fused) vpu = pfVpuPass(binaryBusy, rows * D, 'pf.ffn2.res');
    else if (bounds[l].bound2 === 7) vpu = pfVpuPass(binaryBusy, rows * D, 'pf.ffn2.dyt');
  }
  ring.waitAll(SEED_MXU, 'pf.end.wait');
  flushSpills('fse');
  const head = ring.geoms[G_OUT];
  for (let j = 0; j < VOCAB;) {
    ring.chunkIn('pf.head.in');
    for (let r = 0; r < head.per && j < VOCAB; r++, j++) h.dot('pf.dot');
    ring.chunkUsed(SEED_VPU);
  }
  ring.waitAll(SEED_VPU, 'pf.end.vpu');
}
