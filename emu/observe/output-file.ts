// Output files of a run (--trace, --vcd, --timeline, --profile-json,
// --report-json): complete or untouched. A regular file is written to a
// temporary file beside it and renamed over it only when the run has finished
// (a stop, an interruption), so a failed or killed run leaves the old content;
// the temporary files a killed run (SIGKILL) could not remove are removed by the
// next run that writes into that directory, once their process has gone;
// a device or FIFO (/dev/null, /dev/stdout) is written directly. The path is
// checked when the file is opened, before the run, and a file that cannot be
// written gives one line (OutputError, exit 165) naming the option and the path.

import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { sleepMs } from '../console-input.ts';

/** A path as messages show it: relative to the working directory when that is shorter. */
export function shownPath(path: string): string {
  const r = relative(process.cwd(), path);
  return r && r.length < path.length ? r : path;
}

/** An output file cannot be created or written: one line, exit status 165 (docs/hardware.md §7). */
export class OutputError extends Error {}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such directory', EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory', ENOSPC: 'no space left on device', EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system', EFBIG: 'file too large', EIO: 'input/output error', EPIPE: 'nobody reads the pipe',
  ENAMETOOLONG: 'name too long',
};

/** `no space left on device (ENOSPC)` for an errno exception. */
export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (!code) return String((e as Error).message ?? e);
  return ERRNO_TEXT[code] ? `${ERRNO_TEXT[code]} (${code})` : code;
}

/** Writes all of `bytes` to `fd` synchronously, through partial writes and EAGAIN on a non-blocking pipe. */
export function writeFully(fd: number, bytes: Uint8Array): void {
  let off = 0;
  let backoff = 1;
  while (off < bytes.length) {
    try {
      off += writeSync(fd, bytes, off, bytes.length - off);
      backoff = 1;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EINTR') throw e;
      sleepMs(backoff);
      backoff = Math.min(10, backoff * 2);
    }
  }
}

const open = new Set<OutputFile>();

/** Removes the temporary files of every output not yet committed (a failed run: the old files stay). */
export function discardAllOutputs(): void {
  for (const f of [...open]) f.discard();
}

// A process that ends without committing (an exception, process.exit) leaves no temporary file behind.
process.on('exit', discardAllOutputs);

const CHUNK = 64 * 1024;

/** The temporary file of output NAME while process PID writes it: `.NAME.picotpu-PID.tmp`, hidden, and marked as ours. */
const tempName = (name: string, pid: number): string => `.${name}.picotpu-${pid}.tmp`;
const TEMP_NAME = /^\..+\.picotpu-(\d+)\.tmp$/;

/** Whether process `pid` has gone (a signal 0 to it fails with ESRCH); another user's live process counts as alive. */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes from `dir` the temporary output files of picotpu runs whose process
 * has gone: a run killed by SIGKILL cannot remove its own. A live run's files
 * (its process still there) are left alone; nothing else is touched.
 */
export function removeDeadTemps(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // unreadable: the open below says why, if it matters
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || !Number.isSafeInteger(pid) || pid < 1 || !processGone(pid)) continue;
    try { unlinkSync(join(dir, name)); } catch { /* removed by another run, or not ours to remove */ }
  }
}

export class OutputFile {
  private readonly fd: number;
  /** The temporary file renamed over `path` on commit; null when writing a device directly. */
  private readonly temp: string | null;
  private parts: string[] = [];
  private pending = 0;
  private closed = false;

  /** `option` names the file in messages: `--trace`, `--report-json`. Throws OutputError. */
  constructor(readonly path: string, readonly option: string) {
    if (path === '') throw new OutputError(`${option} wants a file name, got ""`);
    let special = false;
    if (existsSync(path)) {
      const st = statSync(path);
      if (st.isDirectory()) throw new OutputError(`cannot write ${option} ${path}: is a directory`);
      special = !st.isFile();
      try {
        accessSync(path, constants.W_OK);
      } catch (e) {
        throw new OutputError(`cannot write ${option} ${path}: ${errnoText(e)}`);
      }
    }
    if (!special) removeDeadTemps(dirname(path));
    let temp: string | null = special ? null : join(dirname(path), tempName(basename(path), process.pid));
    let fd: number;
    try {
      fd = openSync(temp ?? path, 'w');
    } catch (e) {
      // A writable file in a directory we may not add to: written in place (not atomic, but writable as asked).
      if (!temp || !existsSync(path)) throw new OutputError(`cannot write ${option} ${path}: ${errnoText(e)}`);
      temp = null;
      try {
        fd = openSync(path, 'w');
      } catch (e2) {
        throw new OutputError(`cannot write ${option} ${path}: ${errnoText(e2)}`);
      }
    }
    this.fd = fd;
    this.temp = temp;
    open.add(this);
  }

  /** Buffers text (written in 64 KiB pieces). Throws OutputError when the file cannot take it. */
  write(s: string): void {
    this.parts.push(s);
    this.pending += s.length;
    if (this.pending >= CHUNK) this.flush();
  }

  /** Writes binary data (after what is buffered). Throws OutputError when the file cannot take it. */
  writeBytes(bytes: Uint8Array): void {
    this.flush();
    try {
      writeFully(this.fd, bytes);
    } catch (e) {
      throw new OutputError(`cannot write ${this.option} ${this.path}: ${errnoText(e)}`);
    }
  }

  flush(): void {
    if (this.pending === 0 || this.closed) return;
    const bytes = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.pending = 0;
    try {
      writeFully(this.fd, bytes);
    } catch (e) {
      throw new OutputError(`cannot write ${this.option} ${this.path}: ${errnoText(e)}`);
    }
  }

  /** Flushes, closes and puts the file in place (idempotent). */
  commit(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    open.delete(this);
    try {
      closeSync(this.fd);
      if (this.temp) renameSync(this.temp, this.path);
    } catch (e) {
      this.removeTemp();
      throw new OutputError(`cannot write ${this.option} ${this.path}: ${errnoText(e)}`);
    }
  }

  /** Closes without putting the file in place: the old file, if any, stays (idempotent). */
  discard(): void {
    if (this.closed) return;
    this.closed = true;
    open.delete(this);
    try { closeSync(this.fd); } catch { /* closed already */ }
    this.removeTemp();
  }

  private removeTemp(): void {
    if (!this.temp) return;
    try { unlinkSync(this.temp); } catch { /* gone already */ }
  }
}

/** Refuses two outputs on one path (they would overwrite each other): OutputError. */
export function checkDistinctOutputs(outputs: { option: string; path: string | undefined }[]): void {
  const seen = new Map<string, string>();
  for (const { option, path } of outputs) {
    if (path === undefined || path === '') continue;
    const key = resolve(path);
    const other = seen.get(key);
    if (other && !key.startsWith('/dev/')) throw new OutputError(`${other} and ${option} name the same file ${path}`);
    seen.set(key, option);
  }
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir retries for ever
 * where a directory cannot be made on a pseudo file system (procfs answers
 * ENOENT for the very directory it was asked to make); here that is an error
 * at once. Throws the errno exception of the level that failed.
 */
export function makeDirectories(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try { mkdirSync(d); } catch (e) { if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; }
  }
  if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR', path: dir });
}

/** A directory a command writes into (sweep's --results, --docs): made if missing, and writable; else OutputError. */
export function checkOutputDirectory(dir: string, option: string): void {
  if (dir === '') throw new OutputError(`${option} wants a directory name, got ""`);
  try {
    makeDirectories(dir);
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new OutputError(`cannot write ${option} ${dir}: ${errnoText(e)}`);
  }
}

/** A file-system error met while writing outputs (an errno exception with a path) as one line, else null. */
export function outputErrorOf(e: unknown): OutputError | null {
  const x = e as NodeJS.ErrnoException;
  return x && typeof x.code === 'string' && typeof x.path === 'string' ? new OutputError(`cannot write ${x.path}: ${errnoText(e)}`) : null;
}
