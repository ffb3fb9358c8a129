// Reads a whole input file (program, SRAM image, config) with an upper bound
// on its size, so a device or FIFO without end (/dev/zero, /dev/urandom) is
// refused after at most limit + 1 bytes instead of filling the memory. A
// regular file's size is known from fstat and refused before any read.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { sleepMs } from '../emu/console-input.ts';

/** Why a bounded read failed: 'too-big' (more than the limit), or the errno code. */
export class BoundedReadError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

/** The bytes of `path`, at most `limit` of them; throws BoundedReadError('too-big') beyond. */
export function readBounded(path: string, limit: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    throw new BoundedReadError(code === 'ENOENT' ? 'no such file' : code, code);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new BoundedReadError('is a directory', 'EISDIR');
    if (st.isFile() && st.size > limit) throw new BoundedReadError(tooBig(st.size, limit), 'too-big');
    const buf = Buffer.allocUnsafe(Math.min(limit + 1, st.isFile() ? st.size + 1 : limit + 1));
    let len = 0;
    for (;;) {
      if (len === buf.length) {
        if (len > limit) throw new BoundedReadError(tooBig(null, limit), 'too-big');
        break; // a regular file that grew: what fstat said is read
      }
      let n: number;
      try {
        n = readSync(fd, buf, len, buf.length - len, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
        if (code === 'EAGAIN' || code === 'EINTR') { sleepMs(1); continue; }
        throw new BoundedReadError(code, code);
      }
      if (n === 0) break;
      len += n;
    }
    return buf.subarray(0, len);
  } finally {
    closeSync(fd);
  }
}

function tooBig(size: number | null, limit: number): string {
  return size === null ? `more than the ${limit} bytes allowed` : `${size} bytes, more than the ${limit} allowed`;
}
