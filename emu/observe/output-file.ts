// Output files of a run (--trace, --vcd, --timeline, --profile-json,
// --report-json): complete or untouched. A regular file is written to a
// temporary file beside it and renamed over it only when the run has finished
// (a stop, an interruption), so a failed or killed run leaves the old content;
// a device or FIFO (/dev/null, /dev/stdout) is written directly. The path is
// checked when the file is opened, before the run, and a file that cannot be
// written gives one line (OutputError, exit 165) naming the option and the path.

import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
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
    let temp: string | null = special ? null : join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
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

/** A directory a command writes into (sweep's --results, --docs): made if missing, and writable; else OutputError. */
export function checkOutputDirectory(dir: string, option: string): void {
  if (dir === '') throw new OutputError(`${option} wants a directory name, got ""`);
  try {
    mkdirSync(dir, { recursive: true });
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
