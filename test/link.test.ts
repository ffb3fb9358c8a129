// The LINK unit (docs/hardware.md §5.12) on one board, its TX wired to its
// own RX: SEND timing and landing clocks from the documented rule (setup +
// bytes × clocksPerByte, + linkLatency), RX_FULL / RX_COUNT, the mailbox's
// write port, the errors, the options; and the fast model against the literal
// reference model on random command streams that mix SENDs with DMA, MXU and
// VPU commands reading and writing near the mailbox.

import { describe, expect, it } from 'vitest';
import { applyOverrides, ConfigError, defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { ERR, GLOBAL, LINK_REG, LINK_UNIT, opcode, packArgs, UNIT_REG, UNITS } from '../periph/regs.ts';
import { Sram } from '../periph/sram.ts';
import { describeError, Tpu } from '../periph/tpu.ts';
import { play, randomScript } from './helpers/tpu-script.ts';

const LINK = LINK_UNIT.base;
const MAILBOX = 0xe000;

function linkConfig(over: Record<string, unknown> = {}): PlatformConfig {
  return applyOverrides(defaultConfig(), { link: 1, ...over });
}

function board(cfg: PlatformConfig, reference = false) {
  const tpu = new Tpu(cfg, new Sram(cfg.bus), reference, false);
  tpu.records = [];
  tpu.linkRecords = [];
  return tpu;
}

function pushTo(tpu: Tpu, base: number, unit: 'LINK' | 'DMA' | 'VPU', fields: Record<string, number>, clock: number, op = 1): void {
  const args = packArgs(unit, fields);
  for (let a = 0; a < 5; a++) tpu.write(base + 4 * a, args[a], 15, clock);
  tpu.write(base + UNIT_REG.ARG5, 0, 15, clock);
  tpu.write(base + UNIT_REG.PUSH, op, 15, clock);
}

const send = (tpu: Tpu, fields: Record<string, number>, clock: number) => pushTo(tpu, LINK, 'LINK', { DST_BOARD: 0, ...fields }, clock);

describe('a SEND\'s clocks follow the documented rule', () => {
  for (const [name, over] of [['as built', {}], ['linkSetup 5, 3 clocks a byte, latency 20', { linkSetup: 5, linkClocksPerByte: 3, linkLatency: 20 }]] as const) {
    for (const reference of [false, true]) {
      it(`${name} (${reference ? 'reference' : 'fast'} model)`, () => {
        const cfg = linkConfig(over), t = cfg.tpu;
        const tpu = board(cfg, reference);
        for (let i = 0; i < 0x400; i++) tpu.spad[0x1000 + i] = (i * 7 + 3) & 0xff;
        // 3 rows of 40 bytes, 64 apart; into the mailbox at 0x120, rows 48 apart (slot 1 of 256-byte slots).
        send(tpu, { SPAD_ADDR: 0x1000, ROWS: 3, ROW_BYTES: 40, SPAD_STRIDE: 64, DST_ADDR: 0x120, DST_STRIDE: 48 }, 100);
        const bytes = 3 * 40, start = 101, end = start + t.linkSetup + bytes * t.linkClocksPerByte - 1, land = end + t.linkLatency;
        expect(tpu.read(LINK + UNIT_REG.DONE, end)).toBe(0);
        expect(tpu.read(LINK + UNIT_REG.DONE, end + 1)).toBe(1);
        expect(tpu.read(LINK + LINK_REG.RX_COUNT, land - 1)).toBe(0);
        expect(tpu.read(LINK + LINK_REG.RX_FULL, land - 1)).toBe(0);
        expect(tpu.read(LINK + LINK_REG.RX_COUNT, land)).toBe(1);
        expect(tpu.read(LINK + LINK_REG.RX_FULL, land)).toBe(1 << 1);
        expect(tpu.linkRecords![0]).toMatchObject({ startClock: start, endClock: end });
        expect(tpu.linkStats).toMatchObject({ busy: end - start + 1, messages: 1, bytes });
        for (let r = 0; r < 3; r++) {
          expect(Array.from(tpu.spad.subarray(MAILBOX + 0x120 + r * 48, MAILBOX + 0x120 + r * 48 + 40)))
            .toEqual(Array.from(tpu.spad.subarray(0x1000 + r * 64, 0x1000 + r * 64 + 40)));
        }
        // The release (W1C) clears only the bits written.
        tpu.write(LINK + LINK_REG.RX_FULL, 1 << 5, 15, land + 5);
        expect(tpu.read(LINK + LINK_REG.RX_FULL, land + 6)).toBe(1 << 1);
        tpu.write(LINK + LINK_REG.RX_FULL, 1 << 1, 15, land + 7);
        expect(tpu.read(LINK + LINK_REG.RX_FULL, land + 8)).toBe(0);
        expect(tpu.read(GLOBAL.ERROR, land + 9)).toBe(0);
      });
    }
  }

  it('a byte is read in the first clock of its transfer: a DMA LOAD into the source after it does not reach the message', () => {
    const cfg = linkConfig({ linkClocksPerByte: 4 });
    for (const reference of [false, true]) {
      const tpu = board(cfg, reference);
      const sram = (tpu as unknown as { sram: Sram }).sram;
      sram.bytes.fill(0xaa, 0, 16);
      // SEND of 16 bytes from 0x2000 starts at 101: byte i read at 103 + 4i. A LOAD of 16 bytes
      // into 0x2008 pushed at 105 starts at 106 and writes byte j at 108 + j (dmaSetup 2).
      send(tpu, { SPAD_ADDR: 0x2000, ROWS: 1, ROW_BYTES: 16, SPAD_STRIDE: 16, DST_ADDR: 0, DST_STRIDE: 16 }, 100);
      pushTo(tpu, UNITS[0].base, 'DMA', { SRAM_ADDR: 0, SPAD_ADDR: 0x2008, ROWS: 1, ROW_BYTES: 8, SPAD_STRIDE: 8, SRAM_STRIDE: 8 }, 105, opcode('DMA', 'LOAD'));
      tpu.advanceTo(400);
      // Bytes 8..15 are read at 135..163, after the LOAD wrote 0x2008.. at 108..115: the new bytes.
      expect(Array.from(tpu.spad.subarray(MAILBOX, MAILBOX + 16))).toEqual([...new Array(8).fill(0), ...new Array(8).fill(0xaa)]);
    }
  });
});

describe('the mailbox, RX_FULL and the link\'s errors', () => {
  it('the mailbox\'s write port is the link\'s: a DMA LOAD or VPU result into it is dropped (PORT_CONFLICT); reading it is fine', () => {
    const tpu = board(linkConfig());
    pushTo(tpu, UNITS[0].base, 'DMA', { SRAM_ADDR: 0, SPAD_ADDR: MAILBOX + 0x10, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, SRAM_STRIDE: 4 }, 100, opcode('DMA', 'LOAD'));
    pushTo(tpu, UNITS[2].base, 'VPU', { A_ADDR: 0, B_ADDR: 0x1000, C_ADDR: 0xf000, ROWS: 1, A_STRIDE: 4, B_STRIDE: 4, C_STRIDE: 4, COLS: 8 }, 100, opcode('VPU', 'ADD'));
    pushTo(tpu, UNITS[2].base, 'VPU', { A_ADDR: MAILBOX, B_ADDR: 0x1000, C_ADDR: 0x2000, ROWS: 1, A_STRIDE: 4, B_STRIDE: 4, C_STRIDE: 4, COLS: 8 }, 100, opcode('VPU', 'ADD'));
    tpu.advanceTo(300);
    expect(tpu.errors.map((e) => `${e.unit} ${e.codeName}`)).toEqual(['DMA PORT_CONFLICT', 'VPU PORT_CONFLICT']);
    expect(tpu.errors[0].detail).toMatch(/region 14 is the link's: it is the mailbox/);
    expect(tpu.units[2].done).toBe(2);
  });

  it('without the link (as built) the LINK block does not exist and a mailbox region is an ordinary one', () => {
    const tpu = new Tpu(defaultConfig(), new Sram(defaultConfig().bus), false, false);
    expect(tpu.isRegister(LINK + UNIT_REG.PUSH)).toBe(false);
    expect(tpu.isRegister(LINK + LINK_REG.RX_COUNT)).toBe(false);
    pushTo(tpu, UNITS[0].base, 'DMA', { SRAM_ADDR: 0, SPAD_ADDR: MAILBOX, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, SRAM_STRIDE: 4 }, 100, opcode('DMA', 'LOAD'));
    tpu.advanceTo(200);
    expect(tpu.errors).toEqual([]);
  });

  it('BAD_DEST names the boards; RANGE the scratchpad or the mailbox; the SEND is dropped (DONE counts it)', () => {
    const cfg = linkConfig();
    const tpu = new Tpu(cfg, new Sram(cfg.bus), false, false, { index: 2, count: 4 });
    pushTo(tpu, LINK, 'LINK', { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, DST_ADDR: 0, DST_STRIDE: 4, DST_BOARD: 5 }, 100);
    pushTo(tpu, LINK, 'LINK', { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, DST_ADDR: 0, DST_STRIDE: 4, DST_BOARD: 1 }, 110);
    pushTo(tpu, LINK, 'LINK', { SPAD_ADDR: 0, ROWS: 2, ROW_BYTES: 4, SPAD_STRIDE: 4, DST_ADDR: 0x1ffc, DST_STRIDE: 4, DST_BOARD: 3 }, 120);
    pushTo(tpu, LINK, 'LINK', { SPAD_ADDR: 0xfff0, ROWS: 1, ROW_BYTES: 32, SPAD_STRIDE: 32, DST_ADDR: 0, DST_STRIDE: 4, DST_BOARD: 3 }, 130);
    tpu.advanceTo(200);
    expect(tpu.errors.map((e) => describeError(e).replace(/ \(SEND.*?\)/, ''))).toEqual([
      'TPU error at clock 101: LINK command #0 dropped: BAD_DEST: board 2 sends to board 5: there are 4 boards',
      'TPU error at clock 111: LINK command #1 dropped: BAD_DEST: board 2 is wired only to board 3, not to board 1',
      'TPU error at clock 121: LINK command #2 dropped: RANGE: board 2: the destination ends at mailbox offset 0x2004, past the 8 KiB mailbox',
      'TPU error at clock 131: LINK command #3 dropped: RANGE: board 2: the source ends at 0x10010, past the 64 KiB scratchpad',
    ]);
    expect(tpu.read(LINK + UNIT_REG.DONE, 200)).toBe(4);
    // ERROR: the first error, unit 5.
    expect(tpu.read(GLOBAL.ERROR, 200)).toBe((ERR.BAD_DEST | (5 << 8)) >>> 0);
    expect(tpu.read(LINK + LINK_REG.BOARD, 200)).toBe(2 | (4 << 8));
  });

  it('a landing on a slot still full is an OVERRUN on the receiving board, at the landing clock; the message lands anyway', () => {
    const cfg = linkConfig(), t = cfg.tpu;
    const tpu = board(cfg);
    tpu.spad.fill(1, 0, 16);
    tpu.spad.fill(2, 0x100, 0x110);
    send(tpu, { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 16, SPAD_STRIDE: 16, DST_ADDR: 0x300, DST_STRIDE: 16 }, 100);
    send(tpu, { SPAD_ADDR: 0x100, ROWS: 1, ROW_BYTES: 16, SPAD_STRIDE: 16, DST_ADDR: 0x3f8, DST_STRIDE: 16 }, 101);
    // The first: 101 .. 101 + 2 + 16 − 1 = 118, lands at 126 on slot 3. The second starts at 119 and ends at 136,
    // lands at 144 on slots 3 and 4 (0x3f8 .. 0x407): slot 3 is still full.
    const land1 = 101 + t.linkSetup + 16 - 1 + t.linkLatency, land2 = land1 + t.linkSetup + 16;
    tpu.advanceTo(400);
    expect(tpu.errors.map((e) => describeError(e))).toEqual([
      `TPU error at clock ${land2}: LINK: OVERRUN: board 0: message from board 0 lands on mailbox slot 3, still full, at clock ${land2} (an overlapping transfer; it lands anyway)`,
    ]);
    expect(tpu.read(LINK + LINK_REG.RX_COUNT, 400)).toBe(2);
    expect(tpu.read(LINK + LINK_REG.RX_FULL, 400)).toBe((1 << 3) | (1 << 4));
    expect(tpu.spad[MAILBOX + 0x3f8]).toBe(2);
    expect(tpu.read(LINK + UNIT_REG.STATUS, 400) >>> 16 & 1).toBe(1);
    expect(tpu.read(GLOBAL.ERROR, 400)).toBe((ERR.OVERRUN | (5 << 8) | (1 << 12)) >>> 0);
  });
});

describe('a PUSH stall on a board of a ring stops at the horizon and is redone later', () => {
  it('the PUSH that would stall past the horizon does not happen (pushBlocked); redone once the horizon has grown, it is accepted at the clock of an unbounded run', () => {
    const cfg = linkConfig({ queueDepth: 2 });
    const fill = (tpu: Tpu) => {
      // Three SENDs of 100 bytes (102 clocks each) pushed at 100..102: the queue (depth 2) is full until the second starts, at 203.
      for (let i = 0; i < 3; i++) send(tpu, { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 100, SPAD_STRIDE: 100, DST_ADDR: 0, DST_STRIDE: 100 }, 100 + i);
    };
    const free = board(cfg);
    fill(free);
    send(free, { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, DST_ADDR: 0x200, DST_STRIDE: 4 }, 110);
    const stall = free.extraWait();
    expect(stall).toBeGreaterThan(90);
    const ring = board(cfg);
    ring.linkRx!.horizon = 150;
    fill(ring);
    send(ring, { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, DST_ADDR: 0x200, DST_STRIDE: 4 }, 110);
    expect(ring.pushBlocked).toBe(true);
    expect(ring.link!.issued).toBe(3);
    ring.pushBlocked = false;
    ring.linkRx!.horizon = Number.POSITIVE_INFINITY;
    ring.write(LINK + UNIT_REG.PUSH, 1, 15, 110);
    expect([ring.pushBlocked, ring.link!.issued, ring.extraWait()]).toEqual([false, 4, stall]);
  });

  it('a queue that can never drain is a TPU deadlock there too (163), not a wait at the horizon', () => {
    const cfg = linkConfig({ queueDepth: 1 });
    const tpu = board(cfg);
    tpu.linkRx!.horizon = 5000;
    // SENDs waiting on DMA DONE 1, which never comes: the second fills the queue, the third can never be accepted.
    for (let i = 0; i < 3 && !tpu.fatal; i++) {
      const args = packArgs('LINK', { SPAD_ADDR: 0, ROWS: 1, ROW_BYTES: 4, SPAD_STRIDE: 4, DST_ADDR: 0, DST_STRIDE: 4, DST_BOARD: 0 });
      for (let a = 0; a < 5; a++) tpu.write(LINK + 4 * a, args[a], 15, 100 + i);
      tpu.write(LINK + UNIT_REG.ARG5, ((1 << 30) | 1) >>> 0, 15, 100 + i);
      tpu.write(LINK + UNIT_REG.PUSH, 1, 15, 100 + i);
    }
    expect(tpu.fatal).toMatch(/^TPU deadlock at clock \d+: a PUSH to the full LINK queue can never be accepted: LINK command #0 .* waits for DMA DONE 1/);
    expect(tpu.pushBlocked).toBe(false);
  });
});

describe('the link\'s platform options', () => {
  it('are checked: values, the mailbox\'s shape (only with the link), and the combinations the boards need', () => {
    expect(linkConfig({ linkClocksPerByte: '2', linkSetup: 0, linkLatency: 3, linkMailboxKiB: 16 }).tpu)
      .toMatchObject({ link: 1, linkClocksPerByte: 2, linkSetup: 0, linkLatency: 3, linkMailboxKiB: 16 });
    expect(() => linkConfig({ link: 2 })).toThrow(/link must be 0 \(as built\) or 1/);
    expect(() => linkConfig({ linkClocksPerByte: 0 })).toThrow(/linkClocksPerByte must be at least 1/);
    expect(() => linkConfig({ linkLatency: 2 })).toThrow(/linkLatency must exceed sramBridgeWait/);
    expect(() => linkConfig({ linkMailboxKiB: 6 })).toThrow(ConfigError);
    expect(() => linkConfig({ linkMailboxKiB: 64 })).toThrow(/leave at least one region/);
    expect(() => linkConfig({ sequencer: 1 })).toThrow(/link and sequencer are not modelled together/);
    // Without the link the mailbox options do not constrain anything.
    expect(applyOverrides(defaultConfig(), { spadKiB: 8, regionKiB: 8 }).tpu.link).toBe(0);
  });
});

describe('fast and reference LINK models agree on random command streams (one board, a loopback)', () => {
  function compare(seed: number, cfg: PlatformConfig) {
    const script = randomScript(seed, cfg, 40);
    const fast = play(script, cfg, false, seed), ref = play(script, cfg, true, seed);
    expect(fast.records, `seed ${seed}: command clocks`).toEqual(ref.records);
    expect(fast.errors, `seed ${seed}: errors`).toEqual(ref.errors);
    expect(fast.reads, `seed ${seed}: register reads`).toEqual(ref.reads);
    expect(fast.stalls, `seed ${seed}: stalls`).toEqual(ref.stalls);
    expect(fast.whole, `seed ${seed}: counters`).toEqual(ref.whole);
    expect(fast.link, `seed ${seed}: link figures`).toEqual(ref.link);
    expect(fast.spad === ref.spad, `seed ${seed}: scratchpad bytes`).toBe(true);
    expect(fast.sram === ref.sram, `seed ${seed}: SRAM bytes`).toBe(true);
    return fast;
  }

  it('on 300 streams with the link as built', () => {
    const errors: Record<string, number> = {};
    let messages = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const f = compare(seed, linkConfig());
      messages += f.link!.messages;
      for (const e of f.errors) { const name = e.split(' ').pop()!; errors[name] = (errors[name] ?? 0) + 1; }
    }
    // The streams must exercise what they claim to: many messages, and every link error.
    expect(messages).toBeGreaterThan(1000);
    expect(errors.OVERRUN).toBeGreaterThan(100);
    expect(errors.BAD_DEST).toBeGreaterThan(30);
    expect(errors.RANGE).toBeGreaterThan(50);
    expect(errors.PORT_CONFLICT).toBeGreaterThan(300);
  });

  it('with a slow link, no setup, a long latency, small regions, a small mailbox and a shallow queue', () => {
    const cfg = linkConfig({ linkClocksPerByte: 3, linkSetup: 0, linkLatency: 40, regionKiB: 2, linkMailboxKiB: 4, queueDepth: 2 });
    for (let seed = 7000; seed < 7150; seed++) compare(seed, cfg);
  });
});
