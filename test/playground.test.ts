// The browser playground (web/, docs/playground.md), driven by playwright-core
// through Debian's chromium (no browser download): the built page served with
// its build endpoint on a free loopback port runs `#problem=1234+5678` and must
// show `sum 6912` and `correct yes` with the clocks and counters of the CLI's
// demo (computed here by the same in-process code, study/addition-run.ts), a
// timeline whose MXU/VPU/DMA lanes add up to the run's busy clocks, and an
// emulation rate of at least half the CLI's; the ladder's clocks are those of
// the demo per variant; both boards' programs, the editor's build and the
// endpoint's refusals, the charts and the fixed bugs each have a case. The
// test saves build/playground.png; docs/figures/ is scripts/playground-screenshots.ts's.
// Without chromium it is skipped, except in CI (CI set), where it fails.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWhenMissing } from './helpers/require.ts';
import { defaultConfig } from '../emu/config.ts';
import { Machine } from '../boards/machine.ts';
import { MAX_PROGRAM_BYTES } from '../emu/elf.ts';
import { ExecutionControl } from '../emu/debug/control.ts';
import { ProgramView } from '../emu/debug/program.ts';
import { demoProblem, formatDemo, loadAdder, runDemo } from '../study/addition-run.ts';
import { buildWeb, serveStatic } from '../scripts/web.ts';
import { BUILD_PATH, compileKernel } from '../scripts/web-build.ts';
import { PICOTPU_TEMPLATE, SEED_TEMPLATE } from '../web/templates.ts';
import { LADDER_NAMES } from '../study/sweep/charts.ts';
import { studyRecords } from '../web/vite.config.ts';
import { CHART_EXPERIMENTS } from '../web/protocol.ts';
import { modelTargetOf } from '../model/targets.ts';
import { request } from 'node:http';
import { formatReport } from '../periph/counters.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const PROBLEM = '1234+5678';
const hasChromium = existsSync(CHROMIUM);

/** The page's text of an element. */
const text = (page: Page, id: string) => page.locator(`#${id}`).textContent().then((t) => t ?? '');

// The browser-side expressions are strings: the project's type check has no DOM types.
/** Waits until the page's state line contains `what`. */
const stateIs = (page: Page, what: string, timeout = 120_000) =>
  page.waitForFunction(`document.getElementById('state').textContent.includes(${JSON.stringify(what)})`, undefined, { timeout });

/** Empties an element's text, so that waiting for new text cannot see the old. */
const clear = (page: Page, id: string) => page.evaluate(`document.getElementById(${JSON.stringify(id)}).textContent = ''`);

/** A register's value in the page's register panel (registerLines: `a0    0x00000014 ...`). */
async function register(page: Page, name: string): Promise<number> {
  const m = new RegExp(`^${name}\\s+0x([0-9a-f]{8})`, 'm').exec(await text(page, 'registers'));
  if (!m) throw new Error(`no register ${name} on the page`);
  return parseInt(m[1], 16);
}

/** The demo in the page: its figures (web/protocol.ts DemoFigures) once it has ended. */
async function pageDemo(page: Page, how: 'url' | 'form' | 'wait'): Promise<{ clocks: number; instret: number; wallMs: number; clocksPerSecond: number; prefill: unknown; decode: unknown; total: unknown }> {
  if (how !== 'wait') await clear(page, 'demo-figures');
  if (how === 'form') {
    await page.locator('#problem').fill(PROBLEM);
    await page.locator('#demo-run').click();
  }
  await page.waitForFunction(`document.getElementById('demo-figures').textContent !== ''`, undefined, { timeout: 120_000 });
  return JSON.parse(await text(page, 'demo-figures'));
}

/** The CLI's demo, in process: its result, its rate, and the machine's whole-run busy clocks per unit. */
function cliDemo() {
  let machine: Machine | null = null;
  const r = runDemo(loadAdder(), 'models/adder.ptm', demoProblem(PROBLEM), null, undefined, { onMachine: (m) => { machine = m; } });
  const run = r.solution.run;
  const [dma, mxu, vpu] = machine!.tpu.whole.busy;
  return { r, rate: run.result.clocks / (run.wallMs / 1000), busy: { MXU: mxu, VPU: vpu, DMA: dma } };
}

// Under CI a missing chromium fails (skipWhenMissing throws): the README shows the playground.
describe.skipIf(skipWhenMissing(hasChromium, 'playground.test.ts', CHROMIUM, 'install: bash toolchain/ensure-toolchain.sh --with-test-tools'))('browser playground (web/)', () => {
  let server: Server | null = null;
  let url = '';
  let context: BrowserContext | null = null;
  let page: Page;
  let profile = '';

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (toolchain/ensure-toolchain.sh --with-test-tools)`);
    // The charts' records (the page's build bundles them): the ladder, roofline and prefill-decode sweeps, seconds each, their docs kept out of docs/.
    const docs = mkdtempSync(join(tmpdir(), 'picotpu-sweep-docs-'));
    for (const [name, records] of Object.entries(studyRecords())) {
      if (!records) execFileSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'sweep', name, '--docs', docs], { stdio: 'ignore' });
    }
    rmSync(docs, { recursive: true, force: true });
    ({ server, url } = await serveStatic(await buildWeb(false), 0, '127.0.0.1', { build: true }));
    profile = mkdtempSync(join(tmpdir(), 'picotpu-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, viewport: { width: 1400, height: 1000 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await context.newPage();
    page.on('pageerror', (e) => { throw e; });
  });

  afterAll(async () => {
    await context?.close();
    server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it(`runs #problem=${PROBLEM} with the CLI's clocks and counters, a timeline of MXU, VPU and DMA, at ≥ 0.5× the CLI's clocks/s`, async () => {
    await page.goto(`${url}#problem=${PROBLEM}`);
    const first = await pageDemo(page, 'url');
    await page.getByText('sum 6912', { exact: true }).waitFor({ state: 'visible', timeout: 5000 });
    await page.getByText('correct yes', { exact: true }).waitFor({ state: 'visible', timeout: 5000 });
    expect(await text(page, 'error')).toBe('');

    const cli = cliDemo();
    const want = cli.r.solution.run.result;
    expect(first.clocks).toBe(want.clocks);
    expect(first.instret).toBe(want.instret);
    expect(first.prefill).toEqual(cli.r.prefill);
    expect(first.decode).toEqual(cli.r.decode);
    expect(first.total).toEqual(cli.r.total);
    // The demo's report is the CLI's, but for its last line (the host's wall time).
    expect(withoutWall(await text(page, 'demo-report'))).toBe(withoutWall(formatDemo(cli.r)));
    // The performance report panel: prefill, decode and the whole run, each labelled, with the CLI's counters.
    const sections = (await text(page, 'report')).split(/^== /m).filter(Boolean);
    expect(sections.map((t) => t.split(' ')[0])).toEqual(['prefill', 'decode', 'whole']);
    expect(sections.map((t) => t.slice(t.indexOf('==\n') + 3).trimEnd()))
      .toEqual([cli.r.prefill, cli.r.decode!, cli.r.total].map((c) => formatReport(c, defaultConfig().clockHz).trimEnd()));

    // The timeline's lanes: each unit's busy clocks over the whole run, as the CLI's machine counted them.
    for (const lane of ['MXU', 'VPU', 'DMA'] as const) {
      const busy = Number(await page.locator(`#timeline g[data-lane="${lane}"]`).getAttribute('data-busy'));
      expect(busy, lane).toBe(cli.busy[lane]);
      expect(busy, lane).toBeGreaterThan(0);
    }
    expect(await page.locator('#timeline g[data-lane="CPU"] rect').count()).toBeGreaterThan(1);

    // Rates, interleaved (the machine is shared): the best of two runs each.
    const t0 = performance.now();
    const second = await pageDemo(page, 'form');
    // The test's own clock around the second run (click to report, fetches and messages included): a floor under the page's rate.
    const outerRate = second.clocks / ((performance.now() - t0) / 1000);
    expect(second.clocks).toBe(want.clocks);
    // docs/figures/ is refreshed by npm run screenshots:web only, so a test run leaves the checkout as it was.
    await page.screenshot({ path: join(root, 'build', 'playground.png') });
    const cliRates = [cli.rate, cliDemo().rate];
    const pageRate = Math.max(first.clocksPerSecond, second.clocksPerSecond), cliRate = Math.max(...cliRates);
    console.log(`demo ${PROBLEM}: page ${(pageRate / 1e6).toFixed(1)} M clocks/s, CLI in process ${(cliRate / 1e6).toFixed(1)} M clocks/s (${(pageRate / cliRate).toFixed(2)}x);`
      + ` the second page run from click to report ${(outerRate / 1e6).toFixed(1)} M clocks/s`);
    expect(outerRate).toBeLessThanOrEqual(second.clocksPerSecond);
    expect(pageRate).toBeGreaterThanOrEqual(0.5 * cliRate);
  });

  it('pauses the demo and resumes it to the same clocks', async () => {
    // The base variant's demo (variant 0: several times the best one's clocks), so that a pause
    // lands before its end; its clocks unpaused first. The best variant's demo again at the end,
    // as the tests after this one read it.
    const variant = page.locator('#variant');
    const best = await variant.inputValue();
    await variant.selectOption('0');
    await clear(page, 'demo-figures');
    await page.locator('#demo-run').click();
    const want = (await pageDemo(page, 'wait')).clocks;
    // A pause that comes after the demo's end is tried again.
    for (let attempt = 0; ; attempt++) {
      await clear(page, 'demo-figures');
      await page.locator('#demo-run').click();
      await stateIs(page, 'running');
      await page.locator('#pause').click();
      await page.waitForFunction(`/paused|ended/.test(document.getElementById('state').textContent)`, undefined, { timeout: 60_000 });
      if ((await text(page, 'state')).includes('paused')) break;
      expect(attempt, 'the demo ended before the pause, every time').toBeLessThan(4);
    }
    const at = Number(/clock ([\d,]+)/.exec(await text(page, 'note'))![1].replaceAll(',', ''));
    expect(at).toBeLessThan(want);
    await page.locator('#run').click();
    const resumed = await pageDemo(page, 'wait');
    expect(resumed.clocks).toBe(want);
    await variant.selectOption(best);
    await pageDemo(page, 'form');
  });

  it('the demo\'s timeline: a clock axis, the prefill and decode windows marked with their clocks, a zoom', async () => {
    const cli = cliDemo();
    const marks = page.locator('#timeline g[data-window]');
    expect(await marks.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-window')))).toEqual(['prefill', 'decode']);
    // Each mark's title gives its window's exact clocks (those of the CLI's report).
    expect(await marks.nth(0).locator('title').textContent()).toContain(`${cli.r.prefill.cycles.toLocaleString('en-US')} clocks`);
    expect(await marks.nth(1).locator('title').textContent()).toContain(`${cli.r.decode!.cycles.toLocaleString('en-US')} clocks`);
    expect(await page.locator('#timeline-axis text').count()).toBeGreaterThan(4);
    const whole = await page.locator('#timeline').getAttribute('data-view');
    await page.locator('#timeline').hover({ position: { x: 300, y: 40 } });
    await page.mouse.wheel(0, -100);
    await page.waitForFunction(`document.getElementById('timeline').dataset.view !== ${JSON.stringify(whole)}`, undefined, { timeout: 5000 });
    const [from, to] = (await page.locator('#timeline').getAttribute('data-view'))!.split(' ').map(Number);
    const [, end] = whole!.split(' ').map(Number);
    expect(to - from).toBe(Math.round(end / 2));
    await page.locator('#timeline').dblclick({ position: { x: 300, y: 40 } });
    await page.waitForFunction(`document.getElementById('timeline').dataset.view === ${JSON.stringify(whole)}`, undefined, { timeout: 5000 });
  });

  it('the ladder: the demo once per variant, side by side, with the clocks of `picotpu demo --variant N`', async () => {
    await page.locator('#ladder-run').click();
    await page.waitForFunction(`document.getElementById('ladder-state').textContent.includes('variants, each as')`, undefined, { timeout: 120_000 });
    const names = await page.locator('#ladder tr').first().locator('th').allTextContents();
    expect(names).toEqual(['', 'base', 'double-buffered', 'fused', 'FlashAttention', 'best']);
    const row = async (label: string) => (await page.locator(`#ladder tr[data-row="${label}"] td`).allTextContents()).slice(1);
    const variants = (await row('variant')).map(Number);
    expect(variants).toEqual([0, 1, 3, 7, 4095]);
    const clocks = { prefill: await row('prefill clocks'), decode: await row('decode clocks'), whole: await row('whole run clocks') };
    for (const [i, variant] of variants.entries()) {
      const d = runDemo(loadAdder(), 'models/adder.ptm', demoProblem(PROBLEM), null, variant);
      expect(clocks.prefill[i], `variant ${variant}`).toBe(d.prefill.cycles.toLocaleString('en-US'));
      expect(clocks.decode[i], `variant ${variant}`).toBe(d.decode!.cycles.toLocaleString('en-US'));
      expect(clocks.whole[i], `variant ${variant}`).toBe(d.total.cycles.toLocaleString('en-US'));
    }
    const gains = await row('whole run gain over the rung before');
    expect(gains[0]).toBe('');
    const whole = clocks.whole.map((c) => Number(c.replaceAll(',', '')));
    for (let i = 1; i < gains.length; i++) expect(gains[i]).toBe(`${(whole[i - 1] / whole[i]).toFixed(2)}x`);
  });

  it('the demo and its ladder on the write-up\'s board: the clocks and counters of `picotpu demo --board seed --variant N`', async () => {
    if (!page.url().startsWith(url)) await page.goto(url);
    await page.locator('#board').selectOption('transformer-tpu-int4');
    await stateIs(page, 'seed/dma_roundtrip: loaded');
    await clear(page, 'demo-figures');
    await page.locator('#demo-run').click();
    const f = await pageDemo(page, 'wait');
    const want = runDemo(loadAdder(), 'models/adder.ptm', demoProblem(PROBLEM), null, 7, {}, modelTargetOf('transformer-tpu-int4')!);
    expect(f.clocks).toBe(want.solution.run.result.clocks);
    expect(f.prefill).toEqual(want.prefill);
    expect(f.decode).toEqual(want.decode);
    expect(f.total).toEqual(want.total);
    expect(withoutWall(await text(page, 'demo-report'))).toBe(withoutWall(formatDemo(want)));

    // Its ladder: the seed firmware's four rungs, each with `demo --board seed --variant N`'s clocks.
    await page.locator('#ladder-run').click();
    await page.waitForFunction(`document.getElementById('ladder-state').textContent.includes('on transformer-tpu-int4: 4 variants')`, undefined, { timeout: 120_000 });
    const row = async (label: string) => (await page.locator(`#ladder tr[data-row="${label}"] td`).allTextContents()).slice(1);
    expect((await row('variant')).map(Number)).toEqual([0, 1, 3, 7]);
    const prefill = await row('prefill clocks'), whole = await row('whole run clocks');
    for (const [i, variant] of [0, 1, 3, 7].entries()) {
      const d = runDemo(loadAdder(), 'models/adder.ptm', demoProblem(PROBLEM), null, variant, {}, modelTargetOf('transformer-tpu-int4')!);
      expect(prefill[i], `variant ${variant}`).toBe(d.prefill.cycles.toLocaleString('en-US'));
      expect(whole[i], `variant ${variant}`).toBe(d.total.cycles.toLocaleString('en-US'));
    }
    await page.locator('#board').selectOption('picotpu');
    await stateIs(page, 'fib: loaded');
  });

  it('draws the study\'s ladder, roofline and prefill vs decode with vega-embed from the sweep\'s records', async () => {
    for (const name of CHART_EXPERIMENTS) await page.locator(`#chart-${name}[data-drawn="yes"] svg`).waitFor({ timeout: 30_000 });
    const ladder = await text(page, 'chart-ladder');
    for (const rung of Object.values(LADDER_NAMES)) expect(ladder).toContain(rung);
    expect(await text(page, 'chart-roofline')).toContain('arithmetic intensity');
    const prefillDecode = await text(page, 'chart-prefill-decode');
    for (const label of ['clocks per token', 'prompt length (tokens)', 'decode, wait tokens', 'prefill, best variant']) expect(prefillDecode).toContain(label);
  });

  it('a new #problem= in the URL starts a new demo', async () => {
    await clear(page, 'demo-figures');
    await page.evaluate(`location.hash = '#problem=12+34'`);
    const figures = await pageDemo(page, 'wait') as unknown as { problem: string; sum: string };
    expect(figures.problem).toBe('12+34');
    expect(figures.sum).toBe('46');
    await page.evaluate(`history.replaceState(null, '', '#problem=${PROBLEM}')`);
  });

  it('a fresh page shows the program it loaded (fib) in the selector, and the memory panel is not clipped', async () => {
    await page.goto('about:blank');
    await page.goto(url);
    await stateIs(page, 'fib: loaded');
    expect(await page.locator('#program').inputValue()).toBe('fib');
    expect(await page.locator('#board').inputValue()).toBe('picotpu');
    // Every column of the memory dump inside its panel (no horizontal scroll).
    expect(await page.evaluate(`(() => { const e = document.getElementById('memory'); return e.scrollWidth - e.clientWidth; })()`)).toBeLessThanOrEqual(0);
  });

  it('samples the timeline while a breakpoint is set: fib to a breakpoint on printf', async () => {
    const m = new Machine(defaultConfig());
    m.loadElf(readFileSync(join(root, 'build', 'fw', 'fib.elf')));
    const control = new ExecutionControl(new ProgramView(m), 1e9);
    const printf = m.symbols.lookup('printf')!.addr;
    control.addBreakpoint(printf, false);
    expect((await control.run({})).kind).toBe('breakpoint');
    const stopClock = m.cpu.cycle;

    await page.locator('#program').selectOption('hello');
    await stateIs(page, 'hello: loaded');
    await page.locator('#program').selectOption('fib');
    await stateIs(page, 'fib: loaded');
    await page.locator('#functions').selectOption({ label: 'printf' });
    await page.locator(`#disassembly div[data-addr="${printf}"]`).click();
    await page.locator(`#disassembly div.bp[data-addr="${printf}"]`).waitFor({ timeout: 5000 });
    await page.locator('#run').click();
    await stateIs(page, 'stopped', 60_000);
    expect(await text(page, 'note')).toContain(`clock ${stopClock.toLocaleString('en-US')},`);
    // One sample per 65,536 clocks, as a free run takes them, and the CPU's time mostly in fib.
    await page.waitForFunction(`Number(document.getElementById('timeline').dataset.samples) === ${Math.ceil(stopClock / 65536)}`, undefined, { timeout: 5000 });
    expect(await page.locator('#timeline g[data-lane="CPU"] rect').count()).toBeGreaterThan(1);
    expect(await text(page, 'timeline')).toMatch(/fib 9\d%/);
  });

  it('refuses an ELF made for the other board with one line naming its board', async () => {
    await page.locator('#elf-file').setInputFiles(join(root, 'build', 'fw', 'seed', 'done.elf'));
    await page.waitForFunction(`document.getElementById('error').textContent !== ''`, undefined, { timeout: 10_000 });
    const refusal = await text(page, 'error');
    expect(refusal).toContain('it looks made for the transformer-tpu-int4 board');
    expect(refusal.split('\n')).toHaveLength(1);
    // On the seed board: its own programs run, and picotpu's hello is refused naming picotpu.
    await page.locator('#board').selectOption('transformer-tpu-int4');
    await stateIs(page, 'seed/dma_roundtrip: loaded');
    await page.locator('#run').click();
    await stateIs(page, 'ended');
    // Its report is the one `picotpu run --board seed` prints on standard error.
    const cli = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', '--board', 'seed', join(root, 'build', 'fw', 'seed', 'dma_roundtrip.elf')], { encoding: 'utf8' });
    const report = await text(page, 'report');
    expect(report.slice(report.lastIndexOf('==\n') + 3)).toBe(cli.stderr);
    await page.locator('#elf-file').setInputFiles(join(root, 'build', 'fw', 'hello.elf'));
    await page.waitForFunction(`document.getElementById('error').textContent.includes('it looks made for the picotpu board')`, undefined, { timeout: 10_000 });
    await page.locator('#elf-file').setInputFiles([]);
    await page.locator('#board').selectOption('picotpu');
    await stateIs(page, 'fib: loaded');
  });

  it('edit → build → run: the template kernel builds, runs as `picotpu run` runs it, on both boards', async () => {
    await page.locator('#board').selectOption('picotpu');
    await stateIs(page, 'fib: loaded');
    await page.locator('#build-run').click();
    await stateIs(page, 'kernel.elf: ended', 60_000);
    // The same source built in process with the same fixed flags: the same ELF, and the page's console is the CLI's.
    const built = await compileKernel('picotpu', PICOTPU_TEMPLATE);
    expect(built.ok).toBe(true);
    const elf = join(profile, 'kernel.elf');
    writeFileSync(elf, Buffer.from(built.elf!, 'base64'));
    const cli = spawnSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', elf], { encoding: 'utf8' });
    expect(cli.stdout).toMatch(/^copied 1024 bytes in \d+ clocks, 0 wrong\n$/);
    expect(await text(page, 'console')).toBe(cli.stdout);
    expect(await text(page, 'note')).toContain('exit 0');
    // The seed board: its own template, its own flags (RV32IC), DONE = 0.
    await page.locator('#board').selectOption('transformer-tpu-int4');
    await stateIs(page, 'seed/dma_roundtrip: loaded');
    expect(await page.locator('.cm-content').textContent()).toContain('seed.h');
    await page.locator('#build-run').click();
    await stateIs(page, 'kernel.elf: ended', 60_000);
    expect(await text(page, 'note')).toContain('exit 0');
    expect((await compileKernel('transformer-tpu-int4', SEED_TEMPLATE)).ok).toBe(true);
    await page.locator('#board').selectOption('picotpu');
    await stateIs(page, 'fib: loaded');
  });

  it('edit → build → run: a compile error is shown beside the source, and nothing runs', async () => {
    await page.locator('.cm-content').fill('int main(void) { return x; }\n');
    await page.locator('#build-run').click();
    await page.waitForFunction(`document.getElementById('build-messages').textContent !== ''`, undefined, { timeout: 60_000 });
    expect(await text(page, 'build-messages')).toContain("kernel.c:1:25: error: 'x' undeclared");
    expect(await page.locator('#build-messages.error').count()).toBe(1);
    expect(await text(page, 'state')).toBe('fib: loaded');
  });

  it('the build endpoint refuses a request from another origin or for another host, and the static build hides the button', async () => {
    const post = (headers: Record<string, string>) => new Promise<number>((resolve, reject) => {
      const u = new URL(BUILD_PATH, url);
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => { res.resume(); resolve(res.statusCode!); });
      req.on('error', reject);
      req.end(JSON.stringify({ board: 'picotpu', source: 'int main(void) { return 0; }' }));
    });
    const own = new URL(url).host;
    expect(await post({ origin: 'http://evil.example' })).toBe(403);
    expect(await post({})).toBe(403);
    expect(await post({ host: 'evil.example', origin: 'http://evil.example' })).toBe(403);
    expect(await post({ origin: `http://${own}` })).toBe(200);
    // A page of another origin (the static server on another port) cannot build through it.
    const other = await serveStatic(join(root, 'build', 'web'));
    try {
      const p = await context!.newPage();
      await p.goto(other.url);
      await p.waitForFunction(`document.getElementById('build-state').textContent.includes('static build')`, undefined, { timeout: 10_000 });
      expect(await p.locator('#build-run').isHidden()).toBe(true);
      // The browser sends its own Origin (the other port's); the server answers 403 (the page cannot read it: no CORS).
      const answered = p.waitForResponse(new URL(BUILD_PATH, url).href);
      await p.evaluate(`fetch(${JSON.stringify(new URL(BUILD_PATH, url).href)}, { method: 'POST', mode: 'no-cors', body: '{}' }).catch(() => null)`);
      expect((await answered).status()).toBe(403);
      await p.close();
    } finally {
      other.server.close();
    }
  });

  it('runs your own ELF from a file: hello prints on the console', async () => {
    await page.locator('#elf-file').setInputFiles(join(root, 'build', 'fw', 'hello.elf'));
    await stateIs(page, 'hello.elf: loaded');
    await page.locator('#run').click();
    await stateIs(page, 'ended');
    expect(await text(page, 'console')).toBe(execFileSync(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'run', join(root, 'build', 'fw', 'hello.elf')], { encoding: 'utf8' }));
    expect(await text(page, 'note')).toContain('exit 0');
  });

  it('refuses an ELF past the command line\'s 16 MiB limit with one message, before reading it', async () => {
    await page.locator('#program').selectOption('fib');
    await stateIs(page, 'fib: loaded');
    const big = Buffer.alloc(MAX_PROGRAM_BYTES + 1);
    readFileSync(join(root, 'build', 'fw', 'hello.elf')).copy(big);
    await page.locator('#elf-file').setInputFiles({ name: 'big.elf', mimeType: 'application/octet-stream', buffer: big });
    await page.waitForFunction(`document.getElementById('error').textContent !== ''`, undefined, { timeout: 10_000 });
    expect(await text(page, 'error')).toBe(`cannot read program big.elf: ${MAX_PROGRAM_BYTES + 1} bytes, more than the ${MAX_PROGRAM_BYTES} allowed`);
    expect(await text(page, 'state')).toBe('fib: loaded');
  });

  it('#problem= that is not valid percent-encoding: one message, and fib.elf loads', async () => {
    await page.goto('about:blank');
    await page.goto(`${url}#problem=%E0%A4%A`);
    await stateIs(page, 'fib: loaded');
    await page.waitForFunction(`document.getElementById('error').textContent !== ''`, undefined, { timeout: 10_000 });
    expect(await text(page, 'error')).toBe('#problem=%E0%A4%A is not valid percent-encoding (e.g. #problem=123%2B456 or #problem=123+456)');
  });

  it('steps fib through a breakpoint clicked in the disassembly, with the debugger\'s registers and clock', async () => {
    // The debugger's own run to the same breakpoint, twice.
    const m = new Machine(defaultConfig());
    m.loadElf(readFileSync(join(root, 'build', 'fw', 'fib.elf')));
    const view = new ProgramView(m);
    const control = new ExecutionControl(view, 1e9);
    const fib = m.symbols.lookup('fib')!.addr;
    control.addBreakpoint(fib, false);
    const stops: { clock: number; a0: number }[] = [];
    for (let i = 0; i < 2; i++) {
      expect((await control.run({})).kind).toBe('breakpoint');
      stops.push({ clock: m.cpu.cycle, a0: view.reg(10) });
    }
    expect(stops.map((s) => s.a0)).toEqual([20, 19]);
    await control.run({ count: 1 });
    const stepped = { pc: m.cpu.pc >>> 0, clock: m.cpu.cycle };

    await page.locator('#program').selectOption('fib');
    await stateIs(page, 'fib: loaded');
    await page.locator('#functions').selectOption({ label: 'fib' });
    const line = page.locator(`#disassembly div[data-addr="${fib}"]`);
    await line.click();
    await page.locator(`#disassembly div.bp[data-addr="${fib}"]`).waitFor({ timeout: 5000 });
    for (const stop of stops) {
      await page.locator('#run').click();
      await stateIs(page, 'stopped', 60_000);
      expect(await register(page, 'pc')).toBe(fib);
      expect(await register(page, 'a0')).toBe(stop.a0);
      expect(await text(page, 'note')).toContain(`clock ${stop.clock.toLocaleString('en-US')},`);
      await clear(page, 'state');
    }
    // A step goes one instruction on, as the debugger's.
    await page.locator('#step').click();
    await stateIs(page, 'stopped', 60_000);
    expect(await register(page, 'pc')).toBe(stepped.pc);
    expect(await text(page, 'note')).toContain(`clock ${stepped.clock.toLocaleString('en-US')},`);
  });
});

/** The demo's report without its last line (the host's wall time and rate). */
const withoutWall = (report: string) => report.trimEnd().split('\n').slice(0, -1).join('\n');
