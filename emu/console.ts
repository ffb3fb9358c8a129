// Console and simulation control at 0x1000_0000 (PLATFORM.md §4): TX to the
// host's standard output, RX from the host's input, EXIT halts the machine.

export const CONSOLE_BASE = 0x1000_0000;
export const CONSOLE_SIZE = 0x100;

export const CONSOLE_REG = { TX: 0x00, RX: 0x04, EXIT: 0x08 } as const;

/** RX reads this when the host's input is exhausted. */
export const RX_EMPTY = 0xffff_ffff | 0;

export type OutputSink = (bytes: Uint8Array) => void;

export class Console {
  private input: Uint8Array = new Uint8Array(0);
  private inputPos = 0;
  private readonly out = new Uint8Array(4096);
  private outLen = 0;
  /** Everything the guest printed, when capture is on (tests, reports). */
  private captured: number[] | null = null;

  exitCode: number | null = null;

  constructor(private sink: OutputSink | null = null) {}

  setInput(bytes: Uint8Array): void {
    this.input = bytes;
    this.inputPos = 0;
  }

  setSink(sink: OutputSink | null): void {
    this.sink = sink;
  }

  captureOutput(on = true): void {
    this.captured = on ? [] : null;
  }

  capturedText(): string {
    return this.captured ? Buffer.from(this.captured).toString('latin1') : '';
  }

  /** Returns false when the offset is not a register (a bus error). */
  isRegister(offset: number): boolean {
    return offset === CONSOLE_REG.TX || offset === CONSOLE_REG.RX || offset === CONSOLE_REG.EXIT;
  }

  read(offset: number): number {
    if (offset !== CONSOLE_REG.RX) return 0;
    return this.inputPos < this.input.length ? this.input[this.inputPos++] : RX_EMPTY;
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
