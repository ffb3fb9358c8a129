// TPU timing rules of docs/hardware.md §5, each asserted from the documented
// formula (never from what the emulator printed), on both models: command
// clocks per unit, the start rule, PUSH stalls, SRAM arbitration, wait tokens
// and the accounting identities of the counters.

import { describe, expect, it } from 'vitest';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { flagBit, GLOBAL, opcode, packArgs, UNIT_REG, UNITS } from '../periph/regs.ts';
import { Sram } from '../periph/sram.ts';
import { Tpu } from '../periph/tpu.ts';
import { play, randomScript } from './helpers/tpu-script.ts';

const BASE = { DMA: UNITS[0].base, MXU: UNITS[1].base, VPU: UNITS[2].base };
type UnitName = keyof typeof BASE;

function makeTpu(reference: boolean, cfg: PlatformConfig = defaultConfig()) {
  const sram = new Sram(cfg.bus);
  const tpu = new Tpu(cfg, sram, reference, false);
  tpu.records = [];
  return { tpu, sram, cfg };
}

/** Stages and pushes one command at `clock` (the PUSH write's clock); returns the stall. */
function push(tpu: Tpu, unit: UnitName, op: string, fields: Record<string, number>, clock: number, flags = 0, token = 0): number {
  const args = packArgs(unit, fields);
  // Staging writes happen "before" the push; their clocks do not matter here.
  for (let a = 0; a < 5; a++) tpu.write(BASE[unit] + 4 * a, args[a], 15, clock);
  tpu.write(BASE[unit] + UNIT_REG.ARG5, token, 15, clock);
  tpu.write(BASE[unit] + UNIT_REG.PUSH, opcode(unit, op) | (flags << 8), 15, clock);
  return tpu.extraWait();
}

const settle = (tpu: Tpu, clock = 1_000_000) => tpu.advanceTo(clock);

const dmaLoad = (rows: number, rowBytes: number, spad = 0, sram = 0) =>
  ({ SRAM_ADDR: sram, SPAD_ADDR: spad, ROWS: rows, ROW_BYTES: rowBytes, SPAD_STRIDE: rowBytes, SRAM_STRIDE: rowBytes });
const matmul = (k: number) => ({
  A_ADDR: 0x0000, B_ADDR: 0x1000, C_ADDR: 0x2000, K: k, A_STRIDE: k / 2, B_STRIDE: 4, C_STRIDE: 32, SHIFT: 0,
  CIN_ADDR: 0x3000, CIN_STRIDE: 32,
});
const vpuBlock = (rows: number, cols: number) => ({
  A_ADDR: 0x0000, B_ADDR: 0x1000, C_ADDR: 0x2000, ROWS: rows, A_STRIDE: 64, B_STRIDE: 64, C_STRIDE: 64, COLS: cols, PARAM: 0,
});

for (const reference of [false, true]) {
  const model = reference ? 'reference' : 'fast';

  describe(`TPU command clocks (${model} model)`, () => {
    it('DMA LOAD: dmaSetup + 1 clock per byte; STORE: dmaSetup + 2 clocks per byte', () => {
      for (const [rows, rowBytes] of [[1, 1], [1, 64], [7, 13], [32, 128]]) {
        const { tpu, cfg } = makeTpu(reference);
        push(tpu, 'DMA', 'LOAD', dmaLoad(rows, rowBytes), 100);
        push(tpu, 'DMA', 'STORE', dmaLoad(rows, rowBytes), 101);
        settle(tpu);
        const [load, store] = tpu.records!;
        const n = rows * rowBytes;
        expect(load.startClock).toBe(101); // the clock after the push
        expect(load.endClock - load.startClock + 1).toBe(cfg.tpu.dmaSetup + n);
        expect(store.startClock).toBe(load.endClock + 1); // the clock after the previous ends
        expect(store.endClock - store.startClock + 1).toBe(cfg.tpu.dmaSetup + 2 * n);
      }
    });

    it('MXU: mxuSetup + K + 14 + 8 clocks, + 8 with ACCUMULATE', () => {
      for (const k of [8, 16, 64, 256]) {
        for (const acc of [false, true]) {
          const { tpu, cfg } = makeTpu(reference);
          push(tpu, 'MXU', 'MATMUL', matmul(k), 50, (acc ? flagBit('MXU', 'ACCUMULATE') : 0) | flagBit('MXU', 'OUT_INT32'));
          settle(tpu);
          const [r] = tpu.records!;
          expect(r.endClock - r.startClock + 1).toBe(cfg.tpu.mxuSetup + (acc ? 8 : 0) + k + 2 * (8 - 1) + 8);
        }
      }
    });

    it('VPU: vpuSetup + rows × ceil(cols / 8) clocks', () => {
      for (const [rows, cols] of [[1, 2], [1, 8], [3, 10], [8, 64], [5, 30]]) {
        for (const op of ['ADD', 'RELU', 'COPY', 'ADD32', 'REQUANT']) {
          const { tpu, cfg } = makeTpu(reference);
          const fields = vpuBlock(rows, cols);
          if (op === 'ADD32' || op === 'REQUANT') { fields.A_STRIDE = fields.B_STRIDE = fields.C_STRIDE = cols * 4; }
          push(tpu, 'VPU', op, fields, 10);
          settle(tpu);
          const [r] = tpu.records!;
          expect(r.endClock - r.startClock + 1, `${op} ${rows}x${cols}`).toBe(cfg.tpu.vpuSetup + rows * Math.ceil(cols / 8));
        }
      }
    });
  });

  describe(`TPU start rule, stalls and arbitration (${model} model)`, () => {
    it('a PUSH to a full queue waits until a slot frees, and the wait is counted as STALL', () => {
      const { tpu, cfg } = makeTpu(reference);
      const depth = cfg.tpu.queueDepth;
      tpu.write(GLOBAL.PERF_CTRL, 1, 15, 0);
      const stalls: number[] = [];
      let clock = 10;
      for (let i = 0; i < depth + 3; i++) {
        const s = push(tpu, 'DMA', 'LOAD', dmaLoad(1, 100, 0, 0), clock);
        stalls.push(s);
        clock += s + 1;
      }
      settle(tpu);
      const rec = tpu.records!;
      // One running + depth waiting fit without a stall.
      expect(stalls.slice(0, depth + 1).every((s) => s === 0)).toBe(true);
      // Push depth+1 (0-based) waits for command 1 to start (the clock after 0 ends), and is accepted the clock after.
      // Push k ≥ depth+1 waits for command k − depth to start (freeing its slot), and is accepted the clock after.
      const pushedAt = (k: number) => 10 + stalls.slice(0, k).reduce((a, s) => a + s + 1, 0);
      expect(pushedAt(depth + 1)).toBe(10 + depth + 1); // one clock apart until then
      for (let k = depth + 1; k < depth + 3; k++) expect(pushedAt(k) + stalls[k], `push ${k}`).toBe(rec[k - depth].startClock + 1);
      // Each load of 100 bytes runs dmaSetup + 100 clocks, so the second stall is one command long, less the clock between pushes.
      for (const r of rec) expect(r.endClock - r.startClock + 1).toBe(cfg.tpu.dmaSetup + 100);
      expect(stalls[depth + 2]).toBe(cfg.tpu.dmaSetup + 100 - 1);
      expect(tpu.window.stall).toBe(stalls.reduce((a, b) => a + b, 0));
      // Back to back: each starts the clock after the previous ends.
      for (let i = 1; i < rec.length; i++) expect(rec[i].startClock).toBe(rec[i - 1].endClock + 1);
    });

    it('a CPU SRAM access delays a running DMA by exactly the clocks it holds the bus', () => {
      for (const [op, perByte] of [['LOAD', 1], ['STORE', 2]] as const) {
        const { tpu, cfg } = makeTpu(reference);
        push(tpu, 'DMA', op, dmaLoad(1, 200), 0);
        // A word read reaching the bridge at clock 60, well inside the transfer.
        const busClocks = 4 * cfg.bus.sramReadClocksPerByte;
        tpu.cpuSramAccess(60, busClocks);
        settle(tpu);
        const [r] = tpu.records!;
        const nominal = cfg.tpu.dmaSetup + 200 * perByte;
        // The bus is the CPU's during [62, 66). A 2-clock store transfer cannot
        // start at 61 either when it would overlap 62: at most one more lost clock.
        const lost = r.endClock - r.startClock + 1 - nominal;
        const from = 60 + cfg.bus.sramBridgeWait;
        const transferStarts = (r.startClock + cfg.tpu.dmaSetup - from) % perByte; // phase of the transfers at `from`
        expect(lost).toBe(busClocks + (perByte === 2 && transferStarts !== 0 ? 1 : 0));
      }
    });

    it('a wait token holds a command until the other unit\'s DONE reaches the ticket; DEP_WAIT is not busy', () => {
      const { tpu, cfg } = makeTpu(reference);
      tpu.write(GLOBAL.PERF_CTRL, 1, 15, 0);
      push(tpu, 'DMA', 'LOAD', dmaLoad(4, 100, 0x4000), 10);
      const token = ((1 << 30) | 1) >>> 0; // DMA, ticket 1
      push(tpu, 'MXU', 'MATMUL', matmul(64), 11, flagBit('MXU', 'OUT_INT32'), token);
      settle(tpu, 5000);
      const [dma, mxu] = tpu.records!;
      expect(dma.endClock).toBe(11 + cfg.tpu.dmaSetup + 400 - 1);
      expect(mxu.startClock).toBe(dma.endClock + 1);
      const w = tpu.window.snapshot();
      // The MXU was ready at clock 12 and waited until the DMA ended.
      expect(w.depWait).toBe(dma.endClock + 1 - 12);
      expect(w.mxuBusy).toBe(mxu.endClock - mxu.startClock + 1);
      expect(w.overlap).toBe(0);
    });
  });
}

describe('counter accounting identities hold on random streams', () => {
  it('IDLE + clocks with a unit busy = CYCLES; OVERLAP = clocks with ≥ 2 busy; busy = sum of command lengths', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const cfg = defaultConfig();
      const run = play(randomScript(seed, cfg, 40), cfg, false, seed);
      const total = run.whole.cycles;
      const busyCount = new Uint8Array(total);
      const perUnit: Record<string, number> = { DMA: 0, MXU: 0, VPU: 0 };
      for (const line of run.records) {
        const [id, , start, end] = line.split(' ');
        const unit = id.split('#')[0];
        perUnit[unit] += Number(end) - Number(start) + 1;
        for (let c = Number(start); c <= Number(end); c++) busyCount[c]++;
      }
      let any = 0, two = 0;
      for (const b of busyCount) { if (b) any++; if (b >= 2) two++; }
      expect(run.whole.idle + any).toBe(total);
      expect(run.whole.overlap).toBe(two);
      expect(run.whole.dmaBusy).toBe(perUnit.DMA);
      expect(run.whole.mxuBusy).toBe(perUnit.MXU);
      expect(run.whole.vpuBusy).toBe(perUnit.VPU);
    }
  });
});
