// The browser playground (web/, docs/playground.md):
//   npm run build:web        builds the firmware (make -C firmware-c) and the page into build/web/
//   npm run web [-- --port N] builds, then serves build/web/ on http://127.0.0.1:N/ (default 5173)
// Served so, the page's C editor builds through scripts/web-build.ts's endpoint;
// the static build has none, and the page says so.
// Without the RISC-V toolchain the build stops with one line saying what to install.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { buildFirmware, hasToolchain } from '../toolchain/toolchain.ts';
import config, { FIRMWARE_FILES, WEB_OUT } from '../web/vite.config.ts';
import { BUILD_PATH, handleBuild } from './web-build.ts';

export class WebBuildError extends Error {}

/**
 * Builds the firmware (unless `makeFirmware` is false: the tests' global setup
 * has built it, and make must not run from several processes at once) and the
 * page; returns the folder of static files.
 */
export async function buildWeb(makeFirmware = true): Promise<string> {
  if (makeFirmware && !hasToolchain()) {
    throw new WebBuildError('the RISC-V toolchain is not installed: run bash toolchain/ensure-toolchain.sh (apt-get install gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf), then npm run build:web');
  }
  if (makeFirmware) buildFirmware();
  const missing = Object.values(FIRMWARE_FILES).find((p) => !existsSync(p));
  if (missing) throw new WebBuildError(`${missing} is missing after make -C firmware-c`);
  await build({ ...config, configFile: false });
  return WEB_OUT;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.wasm': 'application/wasm', '.json': 'application/json',
};

/**
 * Serves `dir`'s files on host:port (0: a free port); resolves once listening,
 * with its URL. With `build`, also the editor's build endpoint
 * (scripts/web-build.ts); without it the page says it has none (the static build).
 */
export function serveStatic(dir: string, port = 0, host = '127.0.0.1', options: { build?: boolean } = {}): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (options.build && pathname === BUILD_PATH) {
      const a = server.address();
      handleBuild(req, res, String(typeof a === 'object' && a ? a.port : port));
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(pathname);
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad path\n');
      return;
    }
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const a = server.address();
      resolve({ server, url: `http://${host}:${typeof a === 'object' && a ? a.port : port}/` });
    });
  });
}

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  const portAt = rest.indexOf('--port');
  const port = portAt >= 0 ? Number(rest[portAt + 1]) : 5173;
  if ((command !== 'build' && command !== 'serve') || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write('usage: tsx scripts/web.ts build | serve [--port N]\n');
    return 2;
  }
  try {
    const dir = await buildWeb();
    if (command === 'build') {
      process.stdout.write(`the playground is in ${dir} (serve it with npm run web)\n`);
      return 0;
    }
    const { url } = await serveStatic(dir, port, '127.0.0.1', { build: true });
    process.stdout.write(`the picotpu playground: ${url}  (the demo: ${url}#problem=1234+5678; Ctrl-C stops)\n`);
    return -1;
  } catch (e) {
    if (e instanceof WebBuildError || (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => { if (code >= 0) process.exitCode = code; });
}
