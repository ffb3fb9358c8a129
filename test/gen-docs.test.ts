// The docs' generated sections (scripts/gen-docs.ts) are what the tool prints
// today: every section of README.md and docs/ is regenerated from `picotpu
// bench` and `picotpu run`, and any difference fails with `npm run gen:docs`
// as the fix.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATOR_NAMES, docFiles, inlineFigure, regenerate } from '../scripts/gen-docs.ts';
import { EXPERIMENTS } from '../study/bench.ts';

const root = join(import.meta.dirname, '..');
const MARK = (name: string) => `<!-- generated: npm run gen:docs -- ${name} -->`;

describe('generated sections of README and docs/', () => {
  it('rewrites a section that differs from its generator, and nothing outside it', () => {
    const text = ['before', MARK('bench-base-windows'), '| prefill | 1 | 2 |', '<!-- end generated -->', 'after'].join('\n');
    const fresh = regenerate('x.md', text);
    expect(fresh).not.toEqual(text);
    expect(fresh.startsWith(`before\n${MARK('bench-base-windows')}\n| window |`)).toBe(true);
    expect(fresh.endsWith('<!-- end generated -->\nafter')).toBe(true);
  }, 300_000);

  it('rewrites an inline figure from its expression and refuses one it cannot compute', () => {
    const text = 'from <!--=prefill, base.cycles-->1<!--/=--> clocks, <!--=prefill, base.idle % prefill, base.cycles-->0<!--/=--> % idle';
    const fresh = regenerate('x.md', text);
    expect(fresh).toMatch(/^from <!--=prefill, base\.cycles-->\d{1,3}(,\d{3})+<!--\/=--> clocks, <!--=prefill, base\.idle % prefill, base\.cycles-->\d+\.\d<!--\/=--> % idle$/);
    expect(() => inlineFigure('no such experiment.cycles')).toThrow(/no experiment "no such experiment"/);
    expect(() => inlineFigure('prefill, base.noSuchCounter')).toThrow(/no counter "noSuchCounter"/);
  }, 300_000);

  it("reads the write-up's figures, command counts and profiled windows, and refuses what it cannot name", () => {
    const seed = EXPERIMENTS.find((e) => e.name === 'prefill, base')!.seed!;
    expect(inlineFigure('prefill, base.seed:dma')).toBe(seed.dma.toLocaleString('en-US'));
    expect(() => inlineFigure('prefill, long context.seed:run')).toThrow(/no write-up figure "seed:run"/);
    // Two counts of the same commands: the units' ISSUED over the run, and the profiler's over the PERF_CTRL window.
    const units = ['DMA', 'MXU', 'VPU'].map((u) => Number(inlineFigure(`prefill, base.commands:${u}`).replaceAll(',', '')));
    expect(units.every((c) => c > 0)).toBe(true);
    expect(Number(inlineFigure('prefill, base.commands').replaceAll(',', ''))).toBe(units[0] + units[1] + units[2]);
    expect(inlineFigure('profile prefill v0.commands')).toBe(inlineFigure('prefill, base.commands'));
    // The profile covers the report's window: its clocks are bench's.
    expect(inlineFigure('profile prefill v4095.cycles')).toBe(inlineFigure('prefill, long context.cycles'));
    expect(inlineFigure('profile prefill v4095.idle')).toBe(inlineFigure('prefill, long context.idle'));
    expect(() => inlineFigure('profile nosuchjob v0.cycles')).toThrow(/no profiled job "nosuchjob"/);
    expect(() => inlineFigure('profile prefill v4095.fn:no_such_function:idle')).toThrow(/has no function "no_such_function"/);
    expect(() => inlineFigure('profile prefill v4095.noSuchFigure')).toThrow(/no profile figure "noSuchFigure"/);
  }, 300_000);

  it('refuses an unknown generator and an unterminated section', () => {
    expect(() => regenerate('x.md', `${MARK('no-such-thing')}\n<!-- end generated -->`)).toThrow(/no generator named "no-such-thing"/);
    expect(() => regenerate('x.md', `${MARK('bench-set')}\ntext`)).toThrow(/has no "<!-- end generated -->"/);
  });

  it('every generator is used by some doc', () => {
    const all = docFiles().map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
    for (const name of GENERATOR_NAMES) expect(all, name).toContain(MARK(name));
  });

  it.each(docFiles())('%s is up to date (npm run gen:docs)', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    expect(regenerate(file, text)).toEqual(text);
  }, 300_000);
});
