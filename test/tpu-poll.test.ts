// Polling: the fast TPU answers a read of a unit register (STATUS, ISSUED,
// DONE) without processing clocks while no command can start or end before
// it (periph/tpu.ts, quietUntil). Random command streams with long runs of
// such reads, five clocks apart as a poll loop makes them, must read exactly
// what the clock-by-clock reference reads, and end in the same state.

import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../emu/config.ts';
import { UNIT_REG } from '../periph/regs.ts';
import { play, randomScript, rng, UNIT_BASE, type Event } from './helpers/tpu-script.ts';

/** randomScript's stream, with a burst of 10–150 unit-register reads after about a third of its events. */
function pollingScript(seed: number, length: number): Event[] {
  const r = rng(seed ^ 0x9011);
  const out: Event[] = [];
  for (const e of randomScript(seed, defaultConfig(), length)) {
    out.push(e);
    if (!r.chance(0.35)) continue;
    const unit = r.int(0, 2);
    const reg = r.pick([UNIT_REG.DONE, UNIT_REG.STATUS, UNIT_REG.DONE, UNIT_REG.ISSUED]);
    for (let n = r.int(10, 150); n > 0; n--) out.push({ kind: 'read', gap: r.chance(0.2) ? r.int(1, 7) : 0, offset: UNIT_BASE[unit] + reg });
  }
  return out;
}

describe('polling a unit register', () => {
  it('reads what the reference reads, clock for clock, on 300 random streams', () => {
    let reads = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const script = pollingScript(seed, 24);
      const fast = play(script, defaultConfig(), false, seed);
      const ref = play(script, defaultConfig(), true, seed);
      expect(fast.reads, `seed ${seed}: register reads`).toEqual(ref.reads);
      expect(fast.records, `seed ${seed}: command clocks`).toEqual(ref.records);
      expect(fast.whole, `seed ${seed}: counters`).toEqual(ref.whole);
      expect(fast.spad === ref.spad, `seed ${seed}: scratchpad`).toBe(true);
      reads += fast.reads.length;
    }
    expect(reads).toBeGreaterThan(10_000);
  });
});
