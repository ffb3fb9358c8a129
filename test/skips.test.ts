// A skipped test says why: test/helpers/require.ts names what is missing and how to get it, fails
// under CI for what CI installs, and skips everywhere (never fails) for the seed's own files.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { skipWhenMissing, skipWithoutLocal } from './helpers/require.ts';

describe('skips announce themselves', () => {
  const ci = process.env.CI, local = process.env.PICOTPU_TEST_LOCAL;
  afterEach(() => {
    if (ci === undefined) delete process.env.CI; else process.env.CI = ci;
    if (local === undefined) delete process.env.PICOTPU_TEST_LOCAL; else process.env.PICOTPU_TEST_LOCAL = local;
    vi.restoreAllMocks();
  });

  it('a tool CI installs: one line off CI, a failure under CI, nothing when present', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    delete process.env.CI;
    expect(skipWhenMissing(true, 'x.test.ts', 'redis-server', 'install: y')).toBe(false);
    expect(skipWhenMissing(false, 'x.test.ts', 'redis-server', 'install: y')).toBe(true);
    expect(warn.mock.calls).toEqual([['x.test.ts: redis-server not found (install: y); skipping the tests that need it']]);
    process.env.CI = 'true';
    expect(() => skipWhenMissing(false, 'x.test.ts', 'redis-server', 'install: y')).toThrow('x.test.ts: redis-server not found (install: y)');
  });

  it("the seed's own files: one line naming the variable to set, under CI as elsewhere", () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    process.env.CI = 'true';
    delete process.env.PICOTPU_TEST_LOCAL;
    expect(skipWithoutLocal(false, 'x.test.ts', "the seed's firmware", 'PICOTPU_TEST_LOCAL')).toBe(true);
    process.env.PICOTPU_TEST_LOCAL = '/nowhere';
    expect(skipWithoutLocal(false, 'x.test.ts', "the seed's firmware", 'PICOTPU_TEST_LOCAL')).toBe(true);
    expect(skipWithoutLocal(true, 'x.test.ts', "the seed's firmware", 'PICOTPU_TEST_LOCAL')).toBe(false);
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      "x.test.ts: the seed's firmware not found (set PICOTPU_TEST_LOCAL to enable); skipping the tests that need it",
      "x.test.ts: the seed's firmware not found (PICOTPU_TEST_LOCAL=/nowhere does not hold it); skipping the tests that need it",
    ]);
  });
});
