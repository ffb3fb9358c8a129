// The command sequencer (docs/hardware.md §5.11), on both models: the fetch
// and push timing asserted from the documented rule (an independent
// evaluation of it below, never the emulator's output), relative tickets,
// the RUN's own DONE, its errors and the port it holds; and that the option
// off leaves the register block as built.

import { describe, expect, it } from 'vitest';
import { applyOverrides, ConfigError, defaultConfig } from '../emu/config.ts';
import { ERR, ERROR_FIELD, flagBit, GLOBAL, opcode, packArgs, SEQ_ENTRY_BYTES, SEQ_ENTRY_WAIT, SEQ_LIST_REG, SEQ_UNIT, UNIT_REG, UNITS, unpackField } from '../periph/regs.ts';
import { Sram } from '../periph/sram.ts';
import { describeError, Tpu } from '../periph/tpu.ts';
import { seqLines } from '../boards/picotpu/tpu-view.ts';
import { entryWords } from './helpers/tpu-script.ts';

const BASE = { DMA: UNITS[0].base, MXU: UNITS[1].base, VPU: UNITS[2].base, SEQ: SEQ_UNIT.base };
type UnitName = keyof typeof BASE;
const UNIT_INDEX = { DMA: 0, MXU: 1, VPU: 2 } as const;

function makeTpu(reference: boolean, queueDepth = 8, seqListKiB = 0) {
  const cfg = defaultConfig();
  cfg.tpu.sequencer = 1;
  cfg.tpu.queueDepth = queueDepth;
  cfg.tpu.seqListKiB = seqListKiB;
  const tpu = new Tpu(cfg, new Sram(cfg.bus), reference, false);
  tpu.records = [];
  tpu.seqRecords = [];
  return { tpu, cfg };
}

function push(tpu: Tpu, unit: UnitName, value: number, args: number[], clock: number, token = 0): number {
  for (let a = 0; a < 5; a++) tpu.write(BASE[unit] + 4 * a, args[a], 15, clock);
  tpu.write(BASE[unit] + UNIT_REG.ARG5, token, 15, clock);
  tpu.write(BASE[unit] + UNIT_REG.PUSH, value, 15, clock);
  return tpu.extraWait();
}

const run = (tpu: Tpu, addr: number, count: number, clock: number, token = 0) =>
  push(tpu, 'SEQ', opcode('SEQ', 'RUN'), packArgs('SEQ', { LIST_ADDR: addr, COUNT: count }), clock, token);

interface Entry { unit: keyof typeof UNIT_INDEX | 'WAIT'; value: number; args: number[]; token?: number; relative?: boolean; busy: number }

/** Writes the list into the scratchpad (the tests' back door: the CPU cannot reach it; firmware DMAs it in). */
function writeList(tpu: Tpu, addr: number, list: readonly Entry[]): void {
  const view = new DataView(tpu.spad.buffer, tpu.spad.byteOffset);
  list.forEach((e, i) => entryWords(e.unit === 'WAIT' ? -1 : UNIT_INDEX[e.unit], e.args, e.token ?? 0, e.value, e.relative)
    .forEach((w, j) => view.setUint32(addr + i * SEQ_ENTRY_BYTES + 4 * j, w, true)));
}

const settle = (tpu: Tpu) => tpu.advanceTo(200_000);

// Commands whose busy clocks the documented rules give (§5.4–5.6, setup 2 each), on disjoint regions.
const dmaLoad = (bytes: number, spad: number): Entry => ({
  unit: 'DMA', value: opcode('DMA', 'LOAD'), busy: 2 + bytes,
  args: packArgs('DMA', { SRAM_ADDR: 0, SPAD_ADDR: spad, ROWS: 1, ROW_BYTES: bytes, SPAD_STRIDE: bytes, SRAM_STRIDE: bytes }),
});
const matmul = (k: number): Entry => ({
  unit: 'MXU', value: opcode('MXU', 'MATMUL') | (flagBit('MXU', 'OUT_INT32') << 8), busy: 2 + k + 14 + 8,
  args: packArgs('MXU', { A_ADDR: 0x0000, B_ADDR: 0x1000, C_ADDR: 0x2000, K: k, A_STRIDE: k / 2, B_STRIDE: 4, C_STRIDE: 32 }),
});
const vpuCopy = (rows: number, cols: number): Entry => ({
  unit: 'VPU', value: opcode('VPU', 'COPY'), busy: 2 + rows * Math.ceil(cols / 8),
  args: packArgs('VPU', { A_ADDR: 0x3000, C_ADDR: 0x5000, ROWS: rows, A_STRIDE: 64, C_STRIDE: 64, COLS: cols }),
});

/**
 * The documented rule, evaluated independently for a list without tokens run
 * by a RUN that starts at s on an otherwise idle TPU: entry i is fetched at
 * f(i) (s + 1, then the clock after the previous push) and pushed at the first
 * clock ≥ f(i) whose start sees fewer than `depth` commands waiting in its
 * unit; a pushed command starts at max(push + 1, predecessor's end + 1).
 */
function ruleClocks(list: readonly Entry[], s: number, depth: number) {
  const pushAt: number[] = [], startAt: number[] = [], endAt: number[] = [];
  const lastEnd = { DMA: -1, MXU: -1, VPU: -1, WAIT: -1 }; // (ruleClocks takes no WAIT entries)
  for (let i = 0; i < list.length; i++) {
    let q = i === 0 ? s + 1 : pushAt[i - 1] + 1;
    // Waiting at the start of clock q: same-unit commands pushed before q that start at q or later.
    const waiting = (at: number) => list.slice(0, i).filter((e, j) => e.unit === list[i].unit && pushAt[j] < at && startAt[j] >= at).length;
    while (waiting(q) >= depth) q++;
    pushAt.push(q);
    startAt.push(Math.max(q + 1, lastEnd[list[i].unit] + 1));
    endAt.push(startAt[i] + list[i].busy - 1);
    lastEnd[list[i].unit] = endAt[i];
  }
  return { pushAt, startAt, endAt, runEnd: pushAt[list.length - 1] };
}

/** Records of the fed commands in list order (each unit's in serial order). */
function fedRecords(tpu: Tpu, list: readonly Entry[]) {
  const next = { DMA: 0, MXU: 0, VPU: 0, WAIT: 0 };
  return list.map((e) => tpu.records!.filter((r) => r.unit === e.unit)[next[e.unit]++]);
}

for (const reference of [false, true]) {
  const model = reference ? 'reference' : 'fast';
  describe(`the command sequencer (${model} model)`, () => {
    it('feeds one entry per clock from the clock after its start; the RUN is busy COUNT + 1 clocks', () => {
      const list = [dmaLoad(40, 0x8000), matmul(16), vpuCopy(2, 16), dmaLoad(8, 0x9000), matmul(8), vpuCopy(1, 8)];
      const { tpu, cfg } = makeTpu(reference);
      writeList(tpu, 0xe000, list);
      run(tpu, 0xe000, list.length, 100);
      settle(tpu);
      const rule = ruleClocks(list, 101, cfg.tpu.queueDepth);
      const [seq] = tpu.seqRecords!;
      expect(seq.startClock).toBe(101); // the start rule: the clock after the PUSH
      expect(seq.endClock).toBe(101 + list.length); // no queue full: COUNT + 1 busy clocks
      expect(seq.endClock).toBe(rule.runEnd);
      const fed = fedRecords(tpu, list);
      expect(fed.map((r) => r.pushClock)).toEqual(list.map((_, i) => 102 + i));
      expect(fed.map((r) => r.startClock)).toEqual(rule.startAt);
      expect(fed.map((r) => r.endClock)).toEqual(rule.endAt);
      expect(tpu.seq!.done).toBe(1);
      expect(tpu.errors).toEqual([]);
    });

    it('waits on a full queue: the entry is pushed the clock after a slot frees (queue depth 2 and 8)', () => {
      for (const depth of [2, 8]) {
        const list = [...Array.from({ length: depth + 5 }, () => matmul(8)), vpuCopy(1, 8), dmaLoad(4, 0x8000)];
        const { tpu } = makeTpu(reference, depth);
        writeList(tpu, 0xf000, list);
        tpu.write(GLOBAL.PERF_CTRL, 1, 15, 0);
        run(tpu, 0xf000, list.length, 50);
        settle(tpu);
        const rule = ruleClocks(list, 51, depth);
        const fed = fedRecords(tpu, list);
        expect(fed.map((r) => r.pushClock), `depth ${depth}`).toEqual(rule.pushAt);
        expect(fed.map((r) => r.startClock)).toEqual(rule.startAt);
        expect(tpu.seqRecords![0].endClock).toBe(rule.runEnd);
        // The MXU runs back to back; its 32-clock matmuls hold up the VPU and DMA entries behind them.
        expect(rule.pushAt[depth + 2] - rule.pushAt[depth + 1]).toBe(32);
        // The sequencer's waits are not CPU stalls, and it is not a busy unit.
        const w = tpu.window.snapshot();
        expect(w.stall).toBe(0);
        expect(w.mxuBusy).toBe(32 * (depth + 5));
      }
    });

    it('relative tickets count from the units\' ISSUED at the RUN\'s start; a ticket below 0 is met', () => {
      const { tpu } = makeTpu(reference);
      // Two DMA commands pushed by the CPU before the list: ISSUED(DMA) = 2 at the RUN's start.
      push(tpu, 'DMA', opcode('DMA', 'LOAD'), dmaLoad(300, 0x8000).args, 10);
      push(tpu, 'DMA', opcode('DMA', 'LOAD'), dmaLoad(20, 0x9000).args, 11);
      const list: Entry[] = [
        { ...dmaLoad(50, 0xa000) },
        // After the list's first DMA command: ticket 2 + 1.
        { ...matmul(8), token: (1 << 30) | 1, relative: true },
        // After the DMA commands before the list, less the last: 2 + (−1) = 1.
        { ...vpuCopy(1, 8), token: ((1 << 30) | (-1 & 0x3fff_ffff)) >>> 0, relative: true },
        // −5 from 2: below 0, met at once.
        { ...vpuCopy(1, 8), token: ((1 << 30) | (-5 & 0x3fff_ffff)) >>> 0, relative: true },
      ];
      writeList(tpu, 0xe000, list);
      run(tpu, 0xe000, list.length, 12);
      settle(tpu);
      const dma = tpu.records!.filter((r) => r.unit === 'DMA');
      const [mx] = tpu.records!.filter((r) => r.unit === 'MXU');
      const [v0, v1] = tpu.records!.filter((r) => r.unit === 'VPU');
      expect(dma.map((r) => r.serial)).toEqual([0, 1, 2]);
      expect(mx.startClock).toBe(dma[2].endClock + 1);
      expect(v0.startClock).toBe(Math.max(v0.pushClock + 1, dma[0].endClock + 1));
      expect(v0.startClock).toBe(dma[0].endClock + 1); // the 300-byte load outlasts the push
      expect(v1.startClock).toBe(v0.endClock + 1);
    });

    it('a WAIT entry holds the list until its token is met, as a CPU poll would; then the next entry is fetched', () => {
      const { tpu } = makeTpu(reference);
      const wait: Entry = { unit: 'WAIT', value: SEQ_ENTRY_WAIT, args: [0, 0, 0, 0, 0], token: (1 << 30) | 1, relative: true, busy: 0 };
      const list = [dmaLoad(300, 0x8000), wait, vpuCopy(1, 8)];
      writeList(tpu, 0xe000, list);
      run(tpu, 0xe000, 3, 40); // starts at 41
      settle(tpu);
      const [dma] = tpu.records!.filter((r) => r.unit === 'DMA');
      const [vpu] = tpu.records!.filter((r) => r.unit === 'VPU');
      expect(dma.pushClock).toBe(42);
      expect(dma.endClock).toBe(43 + 302 - 1); // starts at 43, dmaSetup + 300 clocks
      // DONE counts at the end of 344: the WAIT passes at 345, the VPU entry is fetched and pushed at 346.
      expect(vpu.pushClock).toBe(dma.endClock + 2);
      expect(vpu.startClock).toBe(dma.endClock + 3);
      expect(tpu.seqRecords![0].endClock).toBe(dma.endClock + 2);
      // A WAIT with no token passes in its fetch clock; one with opcode ≠ WAIT is a bad entry.
      const t2 = makeTpu(reference).tpu;
      writeList(t2, 0xe000, [{ ...wait, token: 0 }, vpuCopy(1, 8), { ...wait, value: 2 }]);
      run(t2, 0xe000, 3, 10);
      settle(t2);
      expect(t2.records!.map((r) => r.pushClock)).toEqual([13]);
      expect(t2.errors.map((e) => `${e.clock} ${e.codeName}`)).toEqual(['14 BAD_ENTRY']);
    });

    it('the RUN counts in the sequencer\'s DONE at its last push; a later RUN starts the clock after', () => {
      const { tpu } = makeTpu(reference);
      const list = [vpuCopy(1, 8), vpuCopy(1, 8), vpuCopy(1, 8)];
      writeList(tpu, 0xe000, list);
      run(tpu, 0xe000, 3, 20);
      run(tpu, 0xe000, 2, 21);
      // DONE read at clock t reflects every clock before t: the first RUN ends at 21 + 3.
      expect(tpu.read(BASE.SEQ + UNIT_REG.DONE, 24)).toBe(0);
      expect(tpu.read(BASE.SEQ + UNIT_REG.DONE, 25)).toBe(1);
      expect(tpu.read(BASE.SEQ + UNIT_REG.ISSUED, 25)).toBe(2);
      settle(tpu);
      const [a, b] = tpu.seqRecords!;
      expect(a.endClock).toBe(24);
      expect(b.startClock).toBe(25);
      expect(b.endClock).toBe(25 + 2);
      expect(tpu.units[2].issued).toBe(5);
    });

    it('a CPU PUSH in the clock the sequencer would push to the same full queue goes first', () => {
      const { tpu } = makeTpu(reference, 2);
      const list = [matmul(8), matmul(8), matmul(8), matmul(8)];
      writeList(tpu, 0xe000, list);
      run(tpu, 0xe000, 4, 10);
      // Entries 0–2 go at 12, 13, 14 (0 starts at 13); entry 3 waits for a slot: 1 starts at 13 + 32 = 45, free from 46.
      const stall = push(tpu, 'MXU', list[0].value, list[0].args, 46);
      expect(stall).toBe(0);
      settle(tpu);
      const mxu = tpu.records!.filter((r) => r.unit === 'MXU');
      expect(mxu.map((r) => r.pushClock)).toEqual([12, 13, 14, 46, 78]);
      expect(tpu.seqRecords![0].endClock).toBe(78);
    });

    it('a bad entry: BAD_ENTRY, unit 4, ERROR.SERIAL = the entry\'s index; the entries after it are not pushed', () => {
      const { tpu } = makeTpu(reference);
      const list = [vpuCopy(1, 8), vpuCopy(1, 8), vpuCopy(1, 8), vpuCopy(1, 8)];
      writeList(tpu, 0xe000, list);
      // Entry 2 sets a reserved CMD bit.
      const view = new DataView(tpu.spad.buffer, tpu.spad.byteOffset);
      view.setUint32(0xe000 + 2 * SEQ_ENTRY_BYTES + 0x18, view.getUint32(0xe000 + 2 * SEQ_ENTRY_BYTES + 0x18, true) | (1 << 25), true);
      run(tpu, 0xe000, 4, 30);
      settle(tpu);
      const err = tpu.read(GLOBAL.ERROR, 200_000);
      expect(unpackField(ERROR_FIELD.CODE, err)).toBe(ERR.BAD_ENTRY);
      expect(unpackField(ERROR_FIELD.UNIT, err)).toBe(4);
      expect(unpackField(ERROR_FIELD.SERIAL, err)).toBe(2);
      expect(tpu.errors.map((e) => `${e.clock} ${e.unit}#${e.serial} ${e.codeName}`)).toEqual(['34 SEQ#0 BAD_ENTRY']); // the RUN starts at 31: f(2) = 31 + 1 + 2
      expect(tpu.units[2].issued).toBe(2);
      expect(tpu.seqRecords![0].endClock).toBe(34);
    expect(describeError(tpu.errors[0])).toMatch(/^TPU error at clock 34: SEQ command #0 \(RUN list=0xe000 count=4\) stopped: BAD_ENTRY: entry 2 is bad: reserved bits/);
      expect(tpu.read(BASE.SEQ + UNIT_REG.STATUS, 200_000) >>> 16 & 1).toBe(1);
    });

    it('a malformed RUN is dropped like any command; a command the list feeds names its entry when dropped', () => {
      for (const [addr, count, code] of [[0xe004, 1, ERR.MISALIGNED], [0xe000, 0, ERR.ZERO_SIZE], [0xffe0, 2, ERR.RANGE]] as const) {
        const { tpu } = makeTpu(reference);
        run(tpu, addr, count, 10);
        settle(tpu);
        expect(tpu.errors.map((e) => `${e.clock} ${e.unit} ${e.code}`)).toEqual([`11 SEQ ${code}`]);
        expect(tpu.seq!.done).toBe(1);
      }
      const { tpu } = makeTpu(reference);
      writeList(tpu, 0xe000, [vpuCopy(1, 8), { ...vpuCopy(1, 8), value: opcode('VPU', 'COPY') | 0x9900 }]);
      run(tpu, 0xe000, 2, 10);
      settle(tpu);
      expect(tpu.errors.map((e) => `${e.unit}#${e.serial} ${e.codeName}`)).toEqual(['VPU#1 BAD_OPCODE']);
      expect(tpu.errors[0].detail).toMatch(/sequencer list entry 1/);
    });

    it('a RUN waiting on its wait token counts in DEP_WAIT; the sequencer is no busy unit', () => {
      const { tpu } = makeTpu(reference);
      writeList(tpu, 0xe000, [vpuCopy(1, 8)]);
      tpu.write(GLOBAL.PERF_CTRL, 1, 15, 0);
      push(tpu, 'DMA', opcode('DMA', 'LOAD'), dmaLoad(100, 0x8000).args, 10); // runs 11 .. 112
      run(tpu, 0xe000, 1, 11, (1 << 30) | 1); // ready at 12, waits for DMA DONE 1: starts at 113
      settle(tpu);
      const [seq] = tpu.seqRecords!;
      expect(seq.startClock).toBe(113);
      const w = tpu.window.snapshot();
      expect(w.depWait).toBe(113 - 12);
      const [vpu] = tpu.records!.filter((r) => r.unit === 'VPU');
      expect(w.vpuBusy + w.dmaBusy).toBe(102 + 3);
      expect(vpu.startClock).toBe(115);
    });

    it('a WAIT that can never pass, polled by the CPU, is a TPU deadlock (§5.3)', () => {
      const { tpu } = makeTpu(reference);
      const wait: Entry = { unit: 'WAIT', value: SEQ_ENTRY_WAIT, args: [0, 0, 0, 0, 0], token: (1 << 30) | 5, busy: 0 };
      writeList(tpu, 0xe000, [wait, vpuCopy(1, 8)]);
      run(tpu, 0xe000, 2, 10);
      tpu.read(BASE.SEQ + UNIT_REG.DONE, 100);
      expect(tpu.fatal).toBeNull();
      tpu.read(BASE.SEQ + UNIT_REG.DONE, 2000);
      expect(tpu.fatal).toMatch(/^TPU deadlock at clock 11: no TPU command can ever start: SEQ command #0 \(RUN list=0xe000 count=2\) holds a WAIT entry/);
    });

    it('holds the read port of the list\'s regions while it runs', () => {
      const { tpu } = makeTpu(reference);
      writeList(tpu, 0xe000, Array.from({ length: 12 }, () => matmul(8)));
      run(tpu, 0xe000, 12, 10);
      // A VPU copy reading region 14 (0xe000) starts at 21, while the RUN waits on the full MXU queue.
      push(tpu, 'VPU', opcode('VPU', 'COPY'), packArgs('VPU', { A_ADDR: 0xe100, C_ADDR: 0x5000, ROWS: 1, A_STRIDE: 64, C_STRIDE: 64, COLS: 8 }), 20);
      settle(tpu);
      expect(tpu.errors.map((e) => `${e.clock} ${e.unit} ${e.codeName}`)).toEqual(['21 VPU PORT_CONFLICT']);
      expect(tpu.errors[0].detail).toMatch(/SEQ command #0/);
    });
  });
}

const LIST = { PTR: BASE.SEQ + SEQ_LIST_REG.LIST_PTR, DATA: BASE.SEQ + SEQ_LIST_REG.LIST_DATA, RECORD: BASE.SEQ + SEQ_LIST_REG.RECORD };

/** Writes a list into the list memory as the CPU does: LIST_PTR, then one LIST_DATA a word, from `clock`. */
function writeListMemory(tpu: Tpu, addr: number, list: readonly Entry[], clock: number): void {
  tpu.write(LIST.PTR, addr, 15, clock);
  list.forEach((e) => entryWords(e.unit === 'WAIT' ? -1 : UNIT_INDEX[e.unit], e.args, e.token ?? 0, e.value, e.relative)
    .forEach((w) => tpu.write(LIST.DATA, w, 15, clock)));
}

for (const reference of [false, true]) {
  const model = reference ? 'reference' : 'fast';
  describe(`the sequencer's list memory, seqListKiB (${model} model)`, () => {
    it('a RUN reads its list from the list memory at one entry a clock, as from the scratchpad', () => {
      for (const depth of [2, 8]) {
        const list = [dmaLoad(40, 0x8000), matmul(16), ...Array.from({ length: depth + 3 }, () => matmul(8)), vpuCopy(2, 16), dmaLoad(8, 0x9000)];
        const { tpu } = makeTpu(reference, depth, 32);
        writeListMemory(tpu, 0x7fe0 - 32 * list.length, list, 10); // ends at the top of the 32 KiB
        run(tpu, 0x7fe0 - 32 * list.length, list.length, 100);
        settle(tpu);
        const rule = ruleClocks(list, 101, depth);
        const [seq] = tpu.seqRecords!;
        expect(seq.endClock).toBe(rule.runEnd);
        const fed = fedRecords(tpu, list);
        expect(fed.map((r) => r.pushClock)).toEqual(rule.pushAt);
        expect(fed.map((r) => r.startClock)).toEqual(rule.startAt);
        expect(tpu.errors).toEqual([]);
      }
    });

    it('holds no scratchpad port: a command reading the list\'s scratchpad address meanwhile runs', () => {
      const { tpu } = makeTpu(reference, 8, 32);
      writeListMemory(tpu, 0xe000 - 0x8000, Array.from({ length: 12 }, () => matmul(8)), 5);
      run(tpu, 0xe000 - 0x8000, 12, 10);
      push(tpu, 'VPU', opcode('VPU', 'COPY'), packArgs('VPU', { A_ADDR: 0x6100, C_ADDR: 0x5000, ROWS: 1, A_STRIDE: 64, C_STRIDE: 64, COLS: 8 }), 20);
      settle(tpu);
      expect(tpu.errors).toEqual([]);
      expect(tpu.records!.filter((r) => r.unit === 'MXU')).toHaveLength(12);
    });

    it('RECORD captures the CPU\'s pushes as entries with tickets relative to its start; the replay pushes the same commands', () => {
      const { tpu } = makeTpu(reference, 8, 4);
      const before = dmaLoad(8, 0x9000);
      push(tpu, 'DMA', before.value, before.args, 10); // DMA ticket 1, before the recording
      tpu.write(LIST.PTR, 0x100, 15, 20);
      tpu.write(LIST.RECORD, 1, 15, 20);
      expect(tpu.read(LIST.RECORD, 20)).toBe(1);
      const load = dmaLoad(40, 0x8000), mm = matmul(8);
      push(tpu, 'DMA', load.value, load.args, 30); // DMA ticket 2
      push(tpu, 'MXU', mm.value, mm.args, 40, (1 << 30 | 2) >>> 0); // after DMA ticket 2: relative +1
      push(tpu, 'VPU', vpuCopy(1, 8).value, vpuCopy(1, 8).args, 50, (1 << 30 | 1) >>> 0); // after ticket 1: relative 0
      tpu.write(LIST.RECORD, 0, 15, 60);
      expect(tpu.read(LIST.PTR, 60)).toBe(0x100 + 3 * SEQ_ENTRY_BYTES);
      const words = Array.from({ length: 24 }, (_, i) => new DataView(tpu.listMemory!.bytes.buffer).getUint32(0x100 + 4 * i, true));
      expect(words).toEqual([
        ...entryWords(0, load.args, 0, load.value, false),
        ...entryWords(1, mm.args, (1 << 30 | 1) >>> 0, mm.value, true),
        ...entryWords(2, vpuCopy(1, 8).args, (1 << 30) >>> 0, vpuCopy(1, 8).value, true),
      ]);
      settle(tpu);
      run(tpu, 0x100, 3, 200_100);
      tpu.advanceTo(400_000);
      const mxu = tpu.records!.filter((r) => r.unit === 'MXU'), dma = tpu.records!.filter((r) => r.unit === 'DMA');
      // The replayed MATMUL waits for the replayed load (DMA ticket 3 = base 2 + 1).
      expect(mxu[1].startClock).toBe(dma[2].endClock + 1);
      expect(tpu.errors).toEqual([]);
    });

    it('a list past the end of the list memory is RANGE; a capture that does not fit is RANGE of unit 4 and stops RECORD', () => {
      const { tpu } = makeTpu(reference, 8, 1);
      run(tpu, 1024 - 32, 2, 10);
      tpu.write(LIST.PTR, 1024 - 32, 15, 20);
      tpu.write(LIST.RECORD, 1, 15, 20);
      const mm = matmul(8);
      push(tpu, 'MXU', mm.value, mm.args, 30);
      push(tpu, 'MXU', mm.value, mm.args, 40);
      settle(tpu);
      expect(tpu.errors.map((e) => `${e.unit} ${e.codeName}`)).toEqual(['SEQ RANGE', 'SEQ RANGE']);
      expect(tpu.read(LIST.RECORD, 200_000)).toBe(0);
      expect(unpackField(ERROR_FIELD.UNIT, tpu.read(GLOBAL.ERROR, 200_000))).toBe(4);
      expect(tpu.records!.filter((r) => r.unit === 'MXU')).toHaveLength(2); // captured or not, the commands run
    });
  });
}

describe('the debugger\'s and GDB\'s view of the sequencer (info units, monitor units)', () => {
  it('shows the RUN, the entry it holds and why, its queued RUNs and the list memory; nothing without the option', () => {
    const { tpu } = makeTpu(false, 2, 4);
    writeListMemory(tpu, 0x40, Array.from({ length: 6 }, () => matmul(8)), 5);
    run(tpu, 0x40, 6, 10);
    run(tpu, 0x40, 1, 11);
    tpu.advanceTo(16); // MATMULs 0 runs, 1 and 2 wait: entry 3 is held for the full queue
    expect(seqLines(tpu)).toEqual([
      'SEQ  STATUS 0x00000101 (busy, 1 queued)  ISSUED 2  DONE 0',
      '  running #0: RUN list=0x0040 count=6, at entry 3, holding an entry for the full MXU queue (started at clock 11)',
      '  queued  #1: RUN list=0x0040 count=1 (pushed at clock 11)',
      '  list memory 4 KiB, LIST_PTR 0x100, RECORD off',
    ]);
    expect(seqLines(new Tpu(defaultConfig(), new Sram(defaultConfig().bus), false, false))).toEqual([]);
  });
});

describe('the sequencer option', () => {
  it('seqListKiB: 0..64, and only with the sequencer; its registers exist only with it', () => {
    expect(applyOverrides(defaultConfig(), { sequencer: 1, seqListKiB: '32' }).tpu.seqListKiB).toBe(32);
    expect(() => applyOverrides(defaultConfig(), { seqListKiB: 32 })).toThrow(/seqListKiB needs sequencer = 1/);
    expect(() => applyOverrides(defaultConfig(), { sequencer: 1, seqListKiB: 65 })).toThrow(/seqListKiB must be 0..64/);
    expect(makeTpu(false, 8, 0).tpu.isRegister(LIST.DATA)).toBe(false);
    expect(makeTpu(false, 8, 4).tpu.isRegister(LIST.DATA)).toBe(true);
    expect(makeTpu(false, 8, 4).tpu.isRegister(BASE.SEQ + 0x4c)).toBe(false);
  });

  it('off (as built), the SEQ block is no register: its offsets are bus errors', () => {
    const cfg = defaultConfig();
    const tpu = new Tpu(cfg, new Sram(cfg.bus), false, false);
    expect(tpu.isRegister(BASE.VPU + UNIT_REG.DONE)).toBe(true);
    expect(tpu.isRegister(BASE.SEQ + UNIT_REG.DONE)).toBe(false);
    expect(tpu.seq).toBeNull();
    cfg.tpu.sequencer = 1;
    expect(new Tpu(cfg, new Sram(cfg.bus), false, false).isRegister(BASE.SEQ + UNIT_REG.DONE)).toBe(true);
  });

  it('is 0 or 1: --set sequencer=2 is a config error', () => {
    expect(applyOverrides(defaultConfig(), { sequencer: '1' }).tpu.sequencer).toBe(1);
    expect(() => applyOverrides(defaultConfig(), { sequencer: '2' })).toThrow(ConfigError);
    expect(() => applyOverrides(defaultConfig(), { sequencer: '2' })).toThrow(/sequencer must be 0 \(as built\) or 1/);
  });
});
