// A minimal GDB remote-protocol client for the tests that drive the GDB stub
// in-process (serveGdb): one packet out, one reply in, and `monitor` commands.

import { connect, type Socket } from 'node:net';
import { expect } from 'vitest';

/** A minimal GDB remote-protocol client: one packet out, one reply in. */
export class Rsp {
  private buf = '';
  private waiter: (() => void) | null = null;
  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => { this.buf += d; this.waiter?.(); });
  }

  static async open(port: number): Promise<Rsp> {
    const s = connect(port, '127.0.0.1');
    await new Promise<void>((res, rej) => { s.once('connect', () => res()); s.once('error', rej); });
    return new Rsp(s);
  }

  async send(packet: string): Promise<string> {
    let sum = 0;
    for (const ch of packet) sum = (sum + ch.charCodeAt(0)) & 0xff;
    this.socket.write(`$${packet}#${sum.toString(16).padStart(2, '0')}`);
    return this.next();
  }

  /** `monitor TEXT`: the console output packets up to the final OK, decoded. */
  async monitor(text: string): Promise<string> {
    let out = '';
    for (let reply = await this.send(`qRcmd,${Buffer.from(text).toString('hex')}`); reply !== 'OK'; reply = await this.next()) {
      expect(reply).toMatch(/^O[0-9a-f]*$/);
      out += Buffer.from(reply.slice(1), 'hex').toString();
    }
    return out;
  }

  async next(): Promise<string> {
    for (;;) {
      this.buf = this.buf.replace(/^\++/, '');
      const m = /^\$([^#]*)#[0-9a-f]{2}/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        this.socket.write('+');
        return m[1];
      }
      await new Promise<void>((res) => { this.waiter = res; });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
