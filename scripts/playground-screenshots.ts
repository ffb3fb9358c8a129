// The pictures of docs/playground.md, taken afresh: builds the page (and the
// firmware), serves it with the editor's build endpoint on a free loopback
// port, drives Debian's chromium (/usr/bin/chromium) with playwright-core and
// saves docs/figures/playground*.png. Run: npm run screenshots:web
// Without chromium it stops with one line saying what to install (exit 1).

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { buildWeb, serveStatic, WebBuildError } from './web.ts';
import { CHART_EXPERIMENTS } from '../web/protocol.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const figures = join(root, 'docs', 'figures');

const until = (page: Page, js: string, timeout = 120_000) => page.waitForFunction(js, undefined, { timeout });

async function main(): Promise<number> {
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(`${CHROMIUM} is missing: apt-get install chromium (bash toolchain/ensure-toolchain.sh --with-test-tools)\n`);
    return 1;
  }
  let dir: string;
  try {
    dir = await buildWeb();
  } catch (e) {
    if (e instanceof WebBuildError) { process.stderr.write(`${e.message}\n`); return 1; }
    throw e;
  }
  const { server, url } = await serveStatic(dir, 0, '127.0.0.1', { build: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // The demo, its report and its timeline (the picture at the top).
    await page.goto(`${url}#problem=1234+5678`);
    await until(page, `document.getElementById('demo-figures').textContent !== ''`);
    await page.screenshot({ path: join(figures, 'playground.png') });
    // The ladder side by side, and the study's charts below it.
    await page.locator('#ladder-run').click();
    await until(page, `document.getElementById('ladder-state').textContent.includes('variants, each as')`);
    await until(page, `document.querySelectorAll('[id^=chart-][data-drawn=yes]').length === ${CHART_EXPERIMENTS.length}`);
    await page.locator('#ladder-panel').screenshot({ path: join(figures, 'playground-ladder.png') });
    await page.locator('#charts-panel').screenshot({ path: join(figures, 'playground-charts.png') });
    // Edit → build → run: the template with a mistake, its message beside the source.
    await page.locator('#build-run').waitFor({ state: 'visible' });
    await page.locator('.cm-content').press('Control+End');
    await page.locator('.cm-content').type('\nint broken(void) { return undeclared; }\n');
    await page.locator('#build-run').click();
    await until(page, `document.getElementById('build-messages').textContent !== ''`);
    await page.locator('#editor-panel').screenshot({ path: join(figures, 'playground-editor.png') });
    process.stdout.write(`docs/figures/playground.png, playground-ladder.png, playground-charts.png, playground-editor.png taken from ${url}\n`);
    return 0;
  } finally {
    await browser.close();
    server.close();
  }
}

void main().then((code) => { process.exitCode = code; });
