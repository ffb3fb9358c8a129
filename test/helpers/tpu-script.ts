// Drives the TPU through its register interface as the CPU would, from a
// script of events at chosen clocks; shared by the TPU tests.

import { type PlatformConfig } from '../../emu/config.ts';
import { GLOBAL, LINK_REG, LINK_UNIT, opcode, packArgs, SEQ_ENTRY_BYTES, SEQ_ENTRY_WAIT, SEQ_LIST_REG, SEQ_UNIT, UNIT_REG, UNITS, flagBit } from '../../periph/regs.ts';
import { Sram, SRAM_SIZE } from '../../periph/sram.ts';
import { Tpu } from '../../periph/tpu.ts';
import { mulberry32 } from './rng.ts';

/** Small deterministic PRNG (mulberry32). */
export function rng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof rng>;

export type Event =
  | { kind: 'push'; gap: number; unit: number; args: number[]; token: number; value: number }
  /** Sequencer list entries placed in the scratchpad before the first clock (a test's back door). */
  | { kind: 'list'; gap: number; addr: number; words: number[] }
  | { kind: 'sram'; gap: number; write: boolean; offset: number; bytes: number[] }
  | { kind: 'read'; gap: number; offset: number }
  | { kind: 'perf'; gap: number; on: boolean }
  /** A TPU register write (the list memory's LIST_PTR, RECORD). */
  | { kind: 'write'; gap: number; offset: number; value: number };

export const UNIT_BASE = [...UNITS.map((u) => u.base), SEQ_UNIT.base, LINK_UNIT.base];
export const DMA = 0, MXU = 1, VPU = 2, SEQ = 3, LINK = 4;

/** A random command for `unit`: mostly valid, sometimes malformed, with overlaps and tokens. */
function randomCommand(r: Rng, unit: number, spadBytes: number, regionBytes: number, mxuDim = 8, mailbox = false): { args: number[]; value: number } {
  const addr4 = (bytes: number) => r.int(0, Math.max(0, (spadBytes - bytes) >> 2)) * 4;
  // Bias addresses into a few regions so commands meet on ports and data (and, with a link, the mailbox's two).
  const nearRegion = (bytes: number) => {
    const region = mailbox && r.chance(0.3) ? spadBytes / regionBytes - r.int(1, 2) : r.int(0, Math.min(5, spadBytes / regionBytes - 1));
    const base = region * regionBytes + r.int(0, 15) * 4;
    return Math.min(base, spadBytes - bytes) & ~3;
  };
  const at = (bytes: number) => (r.chance(0.7) ? nearRegion(bytes) : addr4(bytes));
  if (unit === DMA) {
    const rows = r.int(1, 6), rowBytes = r.int(1, 40);
    const spadStride = rowBytes + r.int(0, 8), sramStride = rowBytes + r.int(0, 64);
    const store = r.chance(0.4);
    const args = packArgs('DMA', {
      SRAM_ADDR: r.int(0, SRAM_SIZE - rows * sramStride - 1),
      SPAD_ADDR: at(rows * spadStride) + r.int(0, 3),
      ROWS: rows, ROW_BYTES: rowBytes, SPAD_STRIDE: spadStride, SRAM_STRIDE: sramStride,
    });
    return { args, value: opcode('DMA', store ? 'STORE' : 'LOAD') };
  }
  if (unit === MXU) {
    // A D×D array (tpu.mxuDim): K a multiple of D, addresses and strides multiples of D/2.
    const D = mxuDim, half = D / 2, atD = (bytes: number) => at(bytes) & ~(half - 1);
    const k = D * r.int(1, 6);
    const flags = (r.chance(0.4) ? flagBit('MXU', 'TRANSPOSE_B') : 0) | (r.chance(0.3) ? flagBit('MXU', 'ACCUMULATE') : 0)
      | (r.chance(0.5) ? flagBit('MXU', 'OUT_INT32') : 0);
    const rowA = k / 2;
    const aStride = rowA + half * r.int(0, 2), bStride = half * r.int(1, 3) + (flags & 1 ? rowA : 0);
    const args = packArgs('MXU', {
      A_ADDR: atD(D * aStride), B_ADDR: atD(k * bStride), C_ADDR: atD(D * 5 * D), K: k,
      A_STRIDE: aStride, B_STRIDE: bStride, C_STRIDE: 4 * D + half * r.int(0, 2), SHIFT: r.int(0, 6),
      CIN_ADDR: atD(D * 5 * D), CIN_STRIDE: 4 * D + half * r.int(0, 2),
    });
    return { args, value: opcode('MXU', 'MATMUL') | (flags << 8) };
  }
  const op = r.pick(['ADD', 'RELU', 'HARDTANH', 'CAUSAL_MASK', 'REQUANT', 'ADD32', 'COPY']);
  const rows = r.int(1, 6), cols = 2 * r.int(1, 12);
  const wide = op === 'ADD32' || op === 'REQUANT';
  const inBytes = wide ? cols * 4 : cols / 2;
  const param = op === 'HARDTANH' ? r.int(0, 8) : op === 'REQUANT' ? r.int(0, 12) : op === 'CAUSAL_MASK' ? r.int(0, 20) | (r.int(0, 20) << 16) : 0;
  const args = packArgs('VPU', {
    A_ADDR: at(rows * (inBytes + 8)), B_ADDR: at(rows * (inBytes + 8)), C_ADDR: at(rows * (inBytes + 8)), ROWS: rows,
    A_STRIDE: inBytes + 4 * r.int(0, 2), B_STRIDE: inBytes + 4 * r.int(0, 2),
    C_STRIDE: (op === 'ADD32' ? inBytes : cols / 2) + 4 * r.int(0, 2), COLS: cols, PARAM: param,
  });
  return { args, value: opcode('VPU', op) };
}

/** Breaks one field of a command (unknown opcode, zero size, misalignment, range). */
function corrupt(r: Rng, cmd: { args: number[]; value: number }): void {
  switch (r.int(0, 4)) {
    case 0: cmd.value = (cmd.value & ~0xff) | r.int(8, 255); break;
    case 1: cmd.args[1] = cmd.args[1] & 0xffff; break; // rows/K = 0
    case 2: cmd.args[0] = (cmd.args[0] + 1) >>> 0; break; // misaligned for MXU
    case 3: cmd.args[0] = (cmd.args[0] | 0xfff0) >>> 0; break; // far address
    default: cmd.value |= 0x8000; break; // unknown flag
  }
}

/** Entry words of one list entry: CMD.UNIT in 17:16, REL_TOKEN bit 18 (periph/regs.ts SEQ_ENTRY_WORDS); unit -1 for a WAIT. */
export function entryWords(unit: number, args: number[], token: number, value: number, relative = false): number[] {
  return [...args, token >>> 0, (value | ((unit + 1) << 16) | (relative ? 1 << 18 : 0)) >>> 0, 0];
}

/**
 * A random command list of `count` entries: mostly good commands, some
 * malformed for their unit, a few bad entries; tokens relative to earlier
 * entries of the list (or before it), or absolute on commands already pushed.
 */
function randomList(r: Rng, count: number, spad: number, region: number, mxuDim: number, issued: readonly number[]): number[] {
  const words: number[] = [];
  const inList = [0, 0, 0];
  for (let i = 0; i < count; i++) {
    // Now and then a WAIT: the list holds until a command pushed before it has finished.
    const unit = r.chance(0.06) ? -1 : r.int(0, 2);
    const cmd = unit < 0 ? { args: [0, 0, 0, 0, 0], value: SEQ_ENTRY_WAIT } : randomCommand(r, unit, spad, region, mxuDim);
    if (r.chance(0.06)) corrupt(r, cmd);
    let token = 0, relative = false;
    const roll = r.next();
    const on = r.int(0, 2);
    if (roll < 0.35) {
      // Relative: the k-th command of this list to `on` (k ≥ 1), or one before the list (k ≤ 0).
      relative = true;
      const k = inList[on] > 0 && r.chance(0.8) ? r.int(1, inList[on]) : -r.int(0, 3);
      token = ((on + 1) << 30 | (k & 0x3fff_ffff)) >>> 0;
    } else if (roll < 0.45 && issued[on] > 0) {
      token = ((on + 1) << 30 | r.int(1, issued[on])) >>> 0;
    }
    const w = entryWords(unit, cmd.args, token, cmd.value, relative);
    if (r.chance(0.03)) {
      // A bad entry: no unit, a reserved CMD bit or a non-zero reserved word.
      const how = r.int(0, 2);
      if (how === 0) w[6] &= ~(3 << 16); else if (how === 1) w[6] = (w[6] | (1 << r.int(19, 31))) >>> 0; else w[7] = r.int(1, 255);
    }
    if (unit >= 0) inList[unit]++;
    words.push(...w);
  }
  return words;
}

export function randomScript(seed: number, cfg: PlatformConfig, length: number): Event[] {
  const r = rng(seed);
  const spad = cfg.tpu.spadKiB * 1024, region = cfg.tpu.regionKiB * 1024;
  const issued = [0, 0, 0];
  const events: Event[] = [];
  // With the sequencer: lists in the upper half of the scratchpad (or the first half of
  // its list memory, the second half taking RECORD's captures), run by RUN commands below.
  const lists: { addr: number; count: number }[] = [];
  const listBytes = cfg.tpu.seqListKiB * 1024, recordArea = listBytes / 2;
  let recording = -1, captured = 0, recordList: { addr: number; count: number } | null = null;
  if (cfg.tpu.sequencer) {
    let at = listBytes > 0 ? 0 : spad / 2;
    for (let l = 0; l < 4; l++) {
      const count = r.int(1, 24);
      events.push({ kind: 'list', gap: 0, addr: at, words: randomList(r, count, spad, region, cfg.tpu.mxuDim, issued) });
      lists.push({ addr: at, count });
      at += (count + r.int(0, 40)) * SEQ_ENTRY_BYTES;
    }
  }
  let burstLeft = 0, burstUnit = 0;
  const link = cfg.tpu.link === 1, mailboxBytes = cfg.tpu.linkMailboxKiB * 1024;
  for (let i = 0; i < length; i++) {
    if (link && r.chance(0.3)) {
      events.push(...randomLinkEvents(r, spad, mailboxBytes, issued));
      continue;
    }
    // Now and then a burst of pushes to one unit, to fill its queue.
    if (burstLeft === 0 && r.chance(0.04)) { burstLeft = cfg.tpu.queueDepth + r.int(1, 4); burstUnit = r.int(0, 2); }
    const gap = burstLeft > 0 ? 0 : r.int(0, 120);
    const roll = burstLeft > 0 ? 0 : r.next();
    if (listBytes > 0 && burstLeft === 0 && r.chance(recording < 0 ? 0.06 : 0.1)) {
      // RECORD on at the record area, or off: the pushes between are captured, and become a list to RUN.
      if (recording < 0) {
        events.push({ kind: 'write', gap, offset: SEQ_UNIT.base + SEQ_LIST_REG.LIST_PTR, value: recordArea });
        events.push({ kind: 'write', gap: 0, offset: SEQ_UNIT.base + SEQ_LIST_REG.RECORD, value: 1 });
        recording = i;
        captured = 0;
      } else {
        events.push({ kind: 'write', gap, offset: SEQ_UNIT.base + SEQ_LIST_REG.RECORD, value: 0 });
        recording = -1;
        if (recordList) lists.splice(lists.indexOf(recordList), 1);
        recordList = captured > 0 ? { addr: recordArea, count: Math.min(captured, recordArea / SEQ_ENTRY_BYTES) } : null;
        if (recordList) lists.push(recordList);
      }
      continue;
    }
    if (lists.length > 0 && burstLeft === 0 && r.chance(0.15)) {
      // A RUN of a list (or part of one); sometimes misaligned, empty, past the end or with a bad opcode.
      const list = r.pick(lists);
      let addr = list.addr, count = r.chance(0.8) ? list.count : r.int(1, list.count), value = opcode('SEQ', 'RUN');
      const bad = r.chance(0.08) ? r.int(0, 3) : -1;
      if (bad === 0) addr += 4 * r.int(1, 7);
      else if (bad === 1) count = 0;
      else if (bad === 2) addr = (listBytes > 0 ? listBytes : spad) - SEQ_ENTRY_BYTES * r.int(0, 2);
      else if (bad === 3) value = r.chance(0.5) ? 2 : value | 0x100;
      const on = r.int(0, 2);
      const token = r.chance(0.2) && issued[on] > 0 ? ((on + 1) << 30 | r.int(1, issued[on])) >>> 0 : 0;
      events.push({ kind: 'push', gap, unit: SEQ, args: packArgs('SEQ', { LIST_ADDR: addr, COUNT: count }), token, value });
      continue;
    }
    if (roll < 0.7) {
      const unit = burstLeft > 0 ? burstUnit : r.int(0, 2);
      if (burstLeft > 0) burstLeft--;
      const cmd = randomCommand(r, unit, spad, region, cfg.tpu.mxuDim, link);
      if (r.chance(0.08)) corrupt(r, cmd);
      let token = 0;
      if (r.chance(0.25)) {
        const on = r.int(0, 2);
        // Tickets name commands already pushed, so tokens cannot deadlock.
        if (issued[on] > 0) token = ((on + 1) << 30 | r.int(1, issued[on])) >>> 0;
      }
      issued[unit]++;
      if (recording >= 0) captured++;
      events.push({ kind: 'push', gap, unit, args: cmd.args, token, value: cmd.value });
    } else if (roll < 0.85) {
      const write = r.chance(0.5);
      const offset = r.int(0, SRAM_SIZE / 4 - 1) * 4;
      events.push({ kind: 'sram', gap, write, offset, bytes: write ? [r.int(0, 255), r.int(0, 255), r.int(0, 255), r.int(0, 255)] : [] });
    } else if (roll < 0.97) {
      const reg = r.pick([GLOBAL.CYCLES_LO, GLOBAL.DMA_BUSY, GLOBAL.MXU_BUSY, GLOBAL.IDLE, GLOBAL.OVERLAP, GLOBAL.STALL, GLOBAL.DEP_WAIT, GLOBAL.ERROR]);
      const unitReg = UNIT_BASE[r.int(0, lists.length > 0 ? 3 : 2)] + r.pick([UNIT_REG.STATUS, UNIT_REG.DONE, UNIT_REG.ISSUED]);
      events.push({ kind: 'read', gap, offset: r.chance(0.5) ? reg : unitReg });
    } else {
      events.push({ kind: 'perf', gap, on: r.chance(0.6) });
    }
  }
  return events;
}

/**
 * One board's link traffic (a loopback: TX wired to its own RX): a SEND from
 * anywhere in the scratchpad (the mailbox too) to the mailbox, sometimes past
 * it, to a missing board, or with a token; or a read of RX_FULL / RX_COUNT /
 * LINK DONE, or a release of some slots.
 */
function randomLinkEvents(r: Rng, spad: number, mailbox: number, issued: readonly number[]): Event[] {
  const gap = r.int(0, 60), roll = r.next();
  if (roll < 0.55) {
    const rows = r.int(1, 5), rowBytes = r.int(1, r.chance(0.2) ? 300 : 40);
    const spadStride = rowBytes + r.int(0, 16), dstStride = rowBytes + r.int(0, 64);
    const inMailbox = r.chance(0.3);
    const src = inMailbox ? spad - mailbox + r.int(0, mailbox - rows * spadStride) : r.int(0, spad - rows * spadStride);
    const dst = r.chance(0.05) ? mailbox - r.int(0, 40) : r.int(0, Math.max(0, mailbox - rows * dstStride));
    const board = r.chance(0.05) ? r.int(1, 9) : 0;
    const args = packArgs('LINK', { SPAD_ADDR: src, ROWS: rows, ROW_BYTES: rowBytes, SPAD_STRIDE: spadStride, DST_ADDR: dst, DST_STRIDE: dstStride, DST_BOARD: board });
    const on = r.int(0, 2);
    const token = r.chance(0.25) && issued[on] > 0 ? ((on + 1) << 30 | r.int(1, issued[on])) >>> 0 : 0;
    return [{ kind: 'push', gap, unit: LINK, args, token, value: r.chance(0.03) ? 2 : opcode('LINK', 'SEND') }];
  }
  if (roll < 0.85) {
    const reg = r.pick([LINK_REG.RX_FULL, LINK_REG.RX_COUNT, LINK_REG.BOARD, UNIT_REG.DONE, UNIT_REG.STATUS, UNIT_REG.ISSUED]);
    return [{ kind: 'read', gap, offset: LINK_UNIT.base + reg }];
  }
  return [{ kind: 'write', gap, offset: LINK_UNIT.base + LINK_REG.RX_FULL, value: r.chance(0.5) ? 0xffffffff : r.int(0, 0xffff) << r.int(0, 16) }];
}

/** Plays a script against one TPU, as the CPU would: returns everything observable. */
export function play(events: Event[], cfg: PlatformConfig, reference: boolean, seed: number) {
  const sram = new Sram(cfg.bus);
  const tpu = new Tpu(cfg, sram, reference, false);
  tpu.records = [];
  if (tpu.seq) tpu.seqRecords = [];
  if (tpu.link) tpu.linkRecords = [];
  const fill = rng(seed ^ 0x5eed);
  for (let i = 0; i < tpu.spad.length; i++) tpu.spad[i] = fill.int(0, 255);
  for (let i = 0; i < 65536; i++) sram.bytes[i * 8] = fill.int(0, 255);
  const spadView = new DataView(tpu.spad.buffer, tpu.spad.byteOffset);
  for (const e of events) {
    if (e.kind === 'list' && !tpu.listMemory) e.words.forEach((w, i) => spadView.setUint32(e.addr + 4 * i, w, true));
  }
  let cpuPushes = 0;
  const reads: number[] = [];
  const stalls: number[] = [];
  let clock = 100;
  const write = (offset: number, value: number) => { tpu.write(offset, value, 15, clock); clock += 5; };
  for (const e of events) {
    clock += e.gap;
    if (e.kind === 'push') {
      const base = UNIT_BASE[e.unit];
      for (let a = 0; a < 5; a++) { tpu.write(base + 4 * a, e.args[a], 15, clock); clock += 5; }
      tpu.write(base + UNIT_REG.ARG5, e.token, 15, clock); clock += 5;
      tpu.write(base + UNIT_REG.PUSH, e.value, 15, clock);
      if (e.unit < SEQ) cpuPushes++;
      stalls.push(tpu.extraWait());
      clock += 5 + tpu.extraWait();
    } else if (e.kind === 'sram') {
      const busClocks = e.write ? 4 * cfg.bus.sramWriteClocksPerByte : 4 * cfg.bus.sramReadClocksPerByte;
      tpu.cpuSramAccess(clock, busClocks);
      if (e.write) sram.writeLanes(e.offset, e.bytes[0] | (e.bytes[1] << 8) | (e.bytes[2] << 16) | (e.bytes[3] << 24), 15);
      else reads.push(sram.readWord(e.offset));
      clock += 3 + cfg.bus.sramBridgeWait + busClocks;
    } else if (e.kind === 'list') {
      // In the scratchpad: placed before the first clock; in the list memory: written through LIST_PTR and LIST_DATA.
      if (tpu.listMemory) {
        write(SEQ_UNIT.base + SEQ_LIST_REG.LIST_PTR, e.addr);
        for (const w of e.words) write(SEQ_UNIT.base + SEQ_LIST_REG.LIST_DATA, w);
      }
    } else if (e.kind === 'write') {
      write(e.offset, e.value);
    } else if (e.kind === 'read') {
      reads.push(tpu.read(e.offset, clock));
      clock += 5;
    } else {
      tpu.write(GLOBAL.PERF_CTRL, e.on ? 1 : 0, 15, clock);
      clock += 5;
    }
  }
  // Let everything finish, then a little more.
  const settled = () => tpu.units.every((u) => !u.running && u.fifo.length === 0) && (!tpu.seq || (!tpu.seq.running && tpu.seq.fifo.length === 0))
    && (!tpu.link || (!tpu.link.running && tpu.link.fifo.length === 0));
  for (let i = 0; i < 1000 && !settled(); i++) tpu.advanceTo((clock += 500));
  tpu.advanceTo((clock += 100));
  return {
    spad: Buffer.from(tpu.spad).toString('base64'),
    lists: tpu.listMemory ? Buffer.from(tpu.listMemory.bytes).toString('base64') : '',
    sram: Buffer.from(sram.bytes).toString('base64'),
    whole: tpu.whole.snapshot(),
    window: tpu.window.snapshot(),
    errors: tpu.errors.map((x) => `${x.clock} ${x.unit}#${x.serial} ${x.codeName}`),
    records: [...tpu.records, ...(tpu.seqRecords ?? []), ...(tpu.linkRecords ?? [])].map((x) => `${x.unit}#${x.serial} ${x.pushClock} ${x.startClock} ${x.endClock}`),
    commands: tpu.records.map((x) => `${x.unit}#${x.serial} ${x.startClock}-${x.endClock} ${x.command}`),
    spadBytes: tpu.spad,
    link: tpu.linkRx ? { ...tpu.linkStats, rxFull: tpu.linkRx.rxFull, rxCount: tpu.linkRx.rxCount, done: tpu.link!.done } : null,
    reads,
    stalls,
    done: tpu.units.map((u) => u.done),
    seqDone: tpu.seq?.done ?? 0,
    /** RUNs of RECORD's captures (lists from the second half of the list memory). */
    recordedRuns: (tpu.seqRecords ?? []).filter((x) => tpu.listMemory && x.command.includes(`list=0x${(tpu.listMemory.bytes.length / 2).toString(16).padStart(4, '0')}`)).length,
    /** Commands the sequencer pushed. */
    fed: tpu.units.reduce((n, u) => n + u.issued, 0) - cpuPushes,
  };
}

