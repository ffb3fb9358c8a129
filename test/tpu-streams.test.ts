// Two models, one behaviour: random command streams driven through the TPU's
// register interface at chosen clocks, once with the fast unit models and once
// with the literal clock-by-clock reference models. Memories, counters, errors,
// every register read, every PUSH stall and the start and end clock of every
// command must be identical.

import { describe, expect, it } from 'vitest';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { play, randomScript } from './helpers/tpu-script.ts';

function compareModels(seed: number, cfg: PlatformConfig, length: number) {
  const script = randomScript(seed, cfg, length);
  const fast = play(script, cfg, false, seed);
  const ref = play(script, cfg, true, seed);
  // Compare the small things first so a failure names what differs.
  expect(fast.stalls, `seed ${seed}: stalls`).toEqual(ref.stalls);
  expect(fast.records, `seed ${seed}: command clocks`).toEqual(ref.records);
  expect(fast.errors, `seed ${seed}: errors`).toEqual(ref.errors);
  expect(fast.reads, `seed ${seed}: register reads`).toEqual(ref.reads);
  expect(fast.whole, `seed ${seed}: counters`).toEqual(ref.whole);
  expect(fast.window, `seed ${seed}: window counters`).toEqual(ref.window);
  if (fast.spad !== ref.spad) {
    const at = fast.spadBytes.findIndex((b, i) => b !== ref.spadBytes[i]);
    expect.fail(`seed ${seed}: scratchpad byte 0x${at.toString(16)} differs (fast ${fast.spadBytes[at]}, reference ${ref.spadBytes[at]}); commands:\n${fast.commands.join('\n')}`);
  }
  expect(fast.sram === ref.sram, `seed ${seed}: SRAM bytes`).toBe(true);
  expect(fast.lists === ref.lists, `seed ${seed}: list memory bytes`).toBe(true);
  return fast;
}

describe('fast and reference TPU models agree on random command streams', () => {
  it('on 2,000 streams with the default platform', () => {
    let commands = 0, errors = 0, stalled = 0, overlap = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const f = compareModels(seed, defaultConfig(), 30);
      commands += f.records.length;
      errors += f.errors.length;
      stalled += f.stalls.filter((s) => s > 0).length;
      overlap += f.whole.overlap;
    }
    // The streams must exercise what they claim to.
    expect(commands).toBeGreaterThan(20_000);
    expect(errors).toBeGreaterThan(500);
    expect(stalled).toBeGreaterThan(100);
    expect(overlap).toBeGreaterThan(0);
  });

  it('with a shallow queue, small regions and slow SRAM', () => {
    const cfg = defaultConfig();
    cfg.tpu.queueDepth = 2;
    cfg.tpu.regionKiB = 2;
    cfg.bus.sramWriteClocksPerByte = 3;
    cfg.bus.sramBridgeWait = 3;
    cfg.tpu.dmaSetup = 0;
    for (let seed = 5000; seed < 5300; seed++) compareModels(seed, cfg, 40);
  });

  it('with the command sequencer: random command lists run by RUN commands (the sequencer what-if)', () => {
    const cfg = defaultConfig();
    cfg.tpu.sequencer = 1;
    let fed = 0, runs = 0, badEntries = 0, seqErrors = 0, stalled = 0;
    for (let seed = 9000; seed < 9600; seed++) {
      const cfgRun = structuredClone(cfg);
      if (seed % 3 === 0) cfgRun.tpu.queueDepth = 2; // the sequencer meets full queues
      if (seed % 3 === 1) cfgRun.tpu.regionKiB = 2; // lists over more regions
      const f = compareModels(seed, cfgRun, 30);
      runs += f.seqDone;
      fed += f.fed;
      badEntries += f.errors.filter((e) => e.endsWith('BAD_ENTRY')).length;
      seqErrors += f.errors.filter((e) => e.includes(' SEQ#')).length;
      stalled += f.stalls.filter((s) => s > 0).length;
    }
    // The lists must exercise what they claim to: many entries fed, bad entries and bad RUNs, full queues.
    expect(runs).toBeGreaterThan(1000);
    expect(fed).toBeGreaterThan(10_000);
    expect(badEntries).toBeGreaterThan(50);
    expect(seqErrors).toBeGreaterThan(badEntries + 50);
    expect(stalled).toBeGreaterThan(100);
  });

  it('with the sequencer\'s own list memory: lists written through LIST_DATA and captured by RECORD (seqListKiB)', () => {
    const cfg = defaultConfig();
    cfg.tpu.sequencer = 1;
    cfg.tpu.seqListKiB = 16;
    let fed = 0, runs = 0, badEntries = 0, stalled = 0, recordedRuns = 0;
    for (let seed = 12000; seed < 12400; seed++) {
      const cfgRun = structuredClone(cfg);
      if (seed % 2 === 0) cfgRun.tpu.queueDepth = 2;
      const f = compareModels(seed, cfgRun, 30);
      runs += f.seqDone;
      fed += f.fed;
      badEntries += f.errors.filter((e) => e.endsWith('BAD_ENTRY')).length;
      stalled += f.stalls.filter((s) => s > 0).length;
      recordedRuns += f.recordedRuns;
    }
    expect(runs).toBeGreaterThan(700);
    expect(fed).toBeGreaterThan(7000);
    expect(badEntries).toBeGreaterThan(30);
    expect(stalled).toBeGreaterThan(50);
    expect(recordedRuns).toBeGreaterThan(50);
  });

  it('with a 16×16 MXU (the MXU-size what-if)', () => {
    const cfg = defaultConfig();
    cfg.tpu.mxuDim = 16;
    let mxuBusy = 0;
    for (let seed = 7000; seed < 7300; seed++) mxuBusy += compareModels(seed, cfg, 30).whole.mxuBusy;
    expect(mxuBusy).toBeGreaterThan(100_000); // most MATMULs are well-formed and run
  });
});
