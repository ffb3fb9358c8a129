// The playground's edit → build → run endpoint, served by `npm run web`
// (scripts/web.ts): POST api/build with {"board", "source"} compiles one C
// file with the machine's RISC-V gcc and the project's fixed flags for that
// board (toolchain/target.mk; linked with the board's start code from
// make -C firmware-c, as the Makefile links its programs) and answers the ELF
// or the compiler's messages. Safe to leave running: the server listens on
// loopback only, and this refuses any request whose Host is not the server's
// own or whose Origin is not the page's; the source is bounded, the compile
// time is bounded, the flags are fixed (the request names a board, nothing
// else), the temporary folder is removed, and one build runs at a time.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTarget, tool } from '../toolchain/toolchain.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const firmware = join(root, 'firmware-c');
const objects = join(root, 'build', 'fw', 'obj');

/** The endpoint's path under the page's folder. */
export const BUILD_PATH = '/api/build';
/** The largest source accepted, bytes (a kernel is a few KiB). */
export const MAX_SOURCE_BYTES = 64 * 1024;
/** The longest a compile may take before it is killed, ms. */
export const COMPILE_MS = 20_000;
/** The compiler's messages kept, characters. */
const MAX_MESSAGES = 32 * 1024;

/** One board's fixed build, as firmware-c/Makefile's rules (cwd firmware-c, where target.mk's paths point): compile, then link with the start code. */
interface BoardBuild { compile: string[]; link: string[]; start: string[]; libs: string[] }

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** Each board's flags and start code. */
function boardBuild(board: string): BoardBuild | null {
  const t = readTarget();
  if (board === 'picotpu') {
    return {
      compile: [...words(t.ARCH_FLAGS), ...words(t.CFLAGS), '-Iruntime', '-Iinclude', '-Ikernels'],
      link: [...words(t.ARCH_FLAGS), ...words(t.LDFLAGS)],
      start: ['crt0', 'console', 'tpu'].map((n) => join(objects, 'runtime', `${n}.o`)),
      libs: words(t.LDLIBS),
    };
  }
  if (board === 'transformer-tpu-int4') {
    return {
      compile: [...words(t.SEED_ARCH_FLAGS), ...words(t.SEED_CFLAGS), '-Iseed'],
      link: [...words(t.SEED_ARCH_FLAGS), ...words(t.SEED_LDFLAGS)],
      start: [join(objects, 'seed', 'start.o')],
      libs: [],
    };
  }
  return null;
}

/** The boards the endpoint builds for. */
export const BUILD_BOARDS = ['picotpu', 'transformer-tpu-int4'];

export interface BuildAnswer { ok: boolean; messages: string; elf?: string }

let building = false;

/** gcc with `args` in firmware-c, killed at `deadline` (Date.now() ms): its messages, and whether it succeeded or was stopped. */
function gcc(args: string[], deadline: number): Promise<{ ok: boolean; killed: boolean; messages: string }> {
  return new Promise((resolve) => {
    execFile(tool('gcc'), ['-fdiagnostics-color=never', ...args], { cwd: firmware, timeout: Math.max(1, deadline - Date.now()), killSignal: 'SIGKILL', maxBuffer: 4 * MAX_MESSAGES }, (err, stdout, stderr) => {
      const killed = err !== null && (err as { killed?: boolean }).killed === true;
      resolve({ ok: err === null, killed, messages: `${stdout}${stderr}` || (err ? `${tool('gcc')} failed: ${err.message}\n` : '') });
    });
  });
}

/** Compiles `source` for `board` in a temporary folder removed afterwards: the ELF (base64) or gcc's messages, the folder's path left out (`kernel.c:3:5: error: ...`). */
export async function compileKernel(board: string, source: string): Promise<BuildAnswer> {
  const build = boardBuild(board);
  if (!build) return { ok: false, messages: `no build for the board "${board}" (boards: ${BUILD_BOARDS.join(', ')})\n` };
  const missing = build.start.find((p) => !existsSync(p));
  if (missing) return { ok: false, messages: `${missing} is missing: run make -C firmware-c\n` };
  const dir = mkdtempSync(join(tmpdir(), 'picotpu-kernel-'));
  const deadline = Date.now() + COMPILE_MS;
  try {
    const src = join(dir, 'kernel.c'), obj = join(dir, 'kernel.o'), elf = join(dir, 'kernel.elf');
    writeFileSync(src, source);
    const clean = (m: string) => m.replaceAll(`${dir}/`, '').slice(0, MAX_MESSAGES);
    let messages = '';
    for (const args of [[...build.compile, '-c', src, '-o', obj], [...build.link, ...build.start, obj, ...build.libs, '-o', elf]]) {
      const r = await gcc(args, deadline);
      messages += clean(r.messages);
      if (r.killed) return { ok: false, messages: `${messages}the build took more than ${COMPILE_MS / 1000} s and was stopped\n` };
      if (!r.ok) return { ok: false, messages };
    }
    return { ok: true, messages, elf: readFileSync(elf).toString('base64') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** Why a request may not use the endpoint, or null: its Host must be the server's own, its Origin the page's. */
export function refusal(req: IncomingMessage, hostPort: string): string | null {
  const allowed = new Set([`127.0.0.1:${hostPort}`, `localhost:${hostPort}`]);
  const host = req.headers.host ?? '';
  if (!allowed.has(host)) return `Host ${host || '(none)'} is not this server`;
  const origin = req.headers.origin;
  if (origin !== `http://${host}`) return `Origin ${origin ?? '(none)'} is not this page's (http://${host})`;
  return null;
}

/** Handles a request to BUILD_PATH: GET says the endpoint is there; POST builds. */
export function handleBuild(req: IncomingMessage, res: ServerResponse, hostPort: string): void {
  if (req.method === 'GET') { answer(res, 200, { boards: BUILD_BOARDS, maxSourceBytes: MAX_SOURCE_BYTES }); return; }
  if (req.method !== 'POST') { answer(res, 405, { ok: false, messages: 'POST a build\n' }); return; }
  const refused = refusal(req, hostPort);
  if (refused) { answer(res, 403, { ok: false, messages: `refused: ${refused}\n` }); req.resume(); return; }
  const chunks: Buffer[] = [];
  let size = 0, tooBig = false;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_SOURCE_BYTES + 1024) { tooBig = true; req.destroy(); return; }
    chunks.push(c);
  });
  req.on('close', () => { if (tooBig && !res.headersSent) answer(res, 413, { ok: false, messages: `the source is more than ${MAX_SOURCE_BYTES} bytes\n` }); });
  req.on('end', () => {
    if (tooBig) return;
    let body: { board?: unknown; source?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      answer(res, 400, { ok: false, messages: 'the request is not JSON {"board", "source"}\n' });
      return;
    }
    const { board, source } = body ?? {};
    if (typeof board !== 'string' || !BUILD_BOARDS.includes(board)) { answer(res, 400, { ok: false, messages: `board must be one of ${BUILD_BOARDS.join(', ')}\n` }); return; }
    if (typeof source !== 'string') { answer(res, 400, { ok: false, messages: 'source must be the C text\n' }); return; }
    if (Buffer.byteLength(source) > MAX_SOURCE_BYTES) { answer(res, 413, { ok: false, messages: `the source is more than ${MAX_SOURCE_BYTES} bytes\n` }); return; }
    if (building) { answer(res, 409, { ok: false, messages: 'another build is running: try again when it ends\n' }); return; }
    building = true;
    compileKernel(board, source)
      .then((a) => answer(res, 200, a), (e: Error) => answer(res, 500, { ok: false, messages: `${e.message}\n` }))
      .finally(() => { building = false; });
  });
}
