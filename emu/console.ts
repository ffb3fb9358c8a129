// Console and simulation control at 0x1000_0000 (PLATFORM.md §4): TX to the
// host's standard output, RX from the host's input, EXIT halts the machine.

import { latin1Text } from './latin1.ts';

export const CONSOLE_BASE = 0x1000_0000;
export const CONSOLE_SIZE = 0x100;

export const CONSOLE_REG = { TX: 0x00, RX: 0x04, EXIT: 0x08 } as const;

/** RX reads this when the host's input is exhausted. */
export const RX_EMPTY = 0xffff_ffff | 0;

export type OutputSink = (bytes: Uint8Array) => void;

/** Where RX bytes come from beyond the buffered ones: a stream read in chunks (emu/console-input.ts). */
export interface InputStream {
  /** Fills `into` from its start; returns the bytes read, 0 at the end of the input. */
  read(into: Uint8Array): number;
}

export class Console {
  private input: Uint8Array = new Uint8Array(0);
  private inputPos = 0;
  private inputLen = 0;
  private stream: InputStream | null = null;
  private readonly out = new Uint8Array(4096);
  private outLen = 0;
  /** Everything the guest printed, when capture is on (tests, reports). */
  private captured: number[] | null = null;

  exitCode: number | null = null;

  constructor(private sink: OutputSink | null = null) {}

  setInput(bytes: Uint8Array): void {
    this.input = bytes;
    this.inputPos = 0;
    this.inputLen = bytes.length;
    this.stream = null;
  }

  /** RX reads from `stream`, a chunk at a time as the guest consumes it (bounded memory, any length). */
  setInputStream(stream: InputStream, chunkBytes = 64 * 1024): void {
    this.input = new Uint8Array(chunkBytes);
    this.inputPos = 0;
    this.inputLen = 0;
    this.stream = stream;
  }

  setSink(sink: OutputSink | null): void {
    this.sink = sink;
  }

  captureOutput(on = true): void {
    this.captured = on ? [] : null;
  }

  capturedText(): string {
    return this.captured ? latin1Text(this.captured, 0, this.captured.length) : '';
  }

  /** Returns false when the offset is not a register (a bus error). */
  isRegister(offset: number): boolean {
    return offset === CONSOLE_REG.TX || offset === CONSOLE_REG.RX || offset === CONSOLE_REG.EXIT;
  }

  read(offset: number): number {
    if (offset !== CONSOLE_REG.RX) return 0;
    if (this.inputPos < this.inputLen) return this.input[this.inputPos++];
    return this.refill() ? this.input[this.inputPos++] : RX_EMPTY;
  }

  /** Reads the stream's next chunk; false at the end of the input. */
  private refill(): boolean {
    if (!this.stream) return false;
    // The guest waits here for its byte, as it would on a UART: the clocks are the same whatever the host's timing.
    this.flush();
    const n = this.stream.read(this.input);
    this.inputPos = 0;
    this.inputLen = n;
    if (n === 0) this.stream = null;
    return n > 0;
  }

  write(offset: number, value: number): void {
    if (offset === CONSOLE_REG.TX) this.putByte(value & 0xff);
    else if (offset === CONSOLE_REG.EXIT) this.exitCode = value & 0xff;
  }

  private putByte(b: number): void {
    this.captured?.push(b);
    this.out[this.outLen++] = b;
    if (b === 10 || this.outLen === this.out.length) this.flush();
  }

  flush(): void {
    if (this.outLen === 0) return;
    if (this.sink) this.sink(this.out.slice(0, this.outLen));
    this.outLen = 0;
  }
}
