// Console input streamed from a file descriptor (standard input, --input-file):
// read in chunks as the guest consumes RX, so memory stays bounded whatever the
// input's size, and every byte arrives in order. A read that would block on a
// non-blocking descriptor (EAGAIN: a pipe whose writer has not written yet, or
// a descriptor another program left non-blocking) is retried after a short
// sleep; only a read of 0 bytes is the end of the input.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 * 1024;
/** Longest sleep between retries of a read that would block, in ms. */
const MAX_BACKOFF_MS = 10;

export interface InputSource {
  /** Fills `into` from its start; returns the bytes read, 0 at the end of the input. */
  read(into: Uint8Array): number;
}

export class InputReadError extends Error {}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` milliseconds (no event loop needed). */
export function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Reads a descriptor to its end, waiting out EAGAIN and EINTR. */
export class FdInput implements InputSource {
  private ended = false;

  constructor(private readonly fd: number, private readonly what: string, private readonly ownsFd = false) {}

  /** Opens a file (--input-file) for streaming; throws InputReadError with one line if it cannot. */
  static open(path: string, what: string): FdInput {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new InputReadError(`cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code ?? String(e)}`);
    }
    if (fstatSync(fd).isDirectory()) {
      closeSync(fd);
      throw new InputReadError(`cannot read ${what} ${path}: is a directory`);
    }
    return new FdInput(fd, what, true);
  }

  read(into: Uint8Array): number {
    if (this.ended) return 0;
    let backoff = 1;
    for (;;) {
      try {
        const n = readSync(this.fd, into, 0, Math.min(into.length, CHUNK), null);
        if (n === 0) this.end();
        return n;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') {
          sleepMs(backoff);
          backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
          continue;
        }
        // EBADF: no descriptor at all (a closed standard input), which is no input.
        if (code === 'EOF' || code === 'EBADF') { this.end(); return 0; }
        throw new InputReadError(`cannot read ${this.what}: ${code ?? String(e)}`);
      }
    }
  }

  private end(): void {
    this.ended = true;
    if (this.ownsFd) {
      try { closeSync(this.fd); } catch { /* already closed */ }
    }
  }
}

/**
 * One input given whole to each of several readers (the boards of a ring:
 * every board's RX gets the same bytes), read once from `source` in chunks as
 * the readers consume it. The bytes between the reader furthest behind and
 * the one furthest ahead are kept, at most `limit` of them: a reader more
 * than `limit` bytes behind the others is an InputReadError (one line), so
 * memory stays bounded whatever the input's size. Which reader reads first
 * does not change what any reader gets.
 */
export class SharedInput {
  /** Bytes from offset `base` of the input on, in the order read. */
  private chunks: Uint8Array[] = [];
  private base = 0;
  private buffered = 0;
  private ended = false;
  private readonly cursors: number[];

  constructor(private readonly source: InputSource, readers: number, private readonly limit: number, private readonly what: string) {
    this.cursors = new Array<number>(readers).fill(0);
  }

  /** Reader k's view of the input. */
  reader(k: number): InputSource {
    return { read: (into) => this.readFor(k, into) };
  }

  private readFor(k: number, into: Uint8Array): number {
    const pos = this.cursors[k];
    while (pos >= this.base + this.buffered) {
      if (this.ended) return 0;
      if (this.buffered >= this.limit) {
        throw new InputReadError(`cannot read ${this.what}: one board is more than ${this.limit} bytes behind another `
          + '(every board reads the same bytes; that many are kept for the one behind)');
      }
      const chunk = new Uint8Array(CHUNK);
      const n = this.source.read(chunk);
      if (n === 0) { this.ended = true; return 0; }
      this.chunks.push(chunk.subarray(0, n));
      this.buffered += n;
    }
    let off = pos - this.base, i = 0;
    while (off >= this.chunks[i].length) off -= this.chunks[i++].length;
    const n = Math.min(into.length, this.chunks[i].length - off);
    into.set(this.chunks[i].subarray(off, off + n));
    this.cursors[k] = pos + n;
    this.dropRead();
    return n;
  }

  /** Drops the chunks every reader has gone past. */
  private dropRead(): void {
    const slowest = Math.min(...this.cursors);
    while (this.chunks.length > 0 && this.base + this.chunks[0].length <= slowest) {
      const c = this.chunks.shift()!;
      this.base += c.length;
      this.buffered -= c.length;
    }
  }
}
