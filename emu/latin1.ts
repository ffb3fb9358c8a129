// Bytes as latin-1 text (one character per byte), without Node's Buffer, so
// the machine's sources run in a browser's Web Worker too (web/).

/** bytes[start, end) as a latin-1 string. */
export function latin1Text(bytes: ArrayLike<number>, start: number, end: number): string {
  let out = '';
  // In pieces: String.fromCharCode takes its arguments on the stack.
  for (let i = start; i < end; i += 8192) {
    const piece = Array.prototype.slice.call(bytes, i, Math.min(end, i + 8192)) as number[];
    out += String.fromCharCode(...piece);
  }
  return out;
}
