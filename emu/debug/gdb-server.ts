// `picotpu gdb`: a GDB remote serial protocol server on the loopback
// interface, for one connection. GDB sees one thread of a bare-metal RV32I
// target (x0..x31 and pc, 32-bit); the machine runs at its exact clocks, so
// timing is the same whether or not a debugger is attached.
//
// What it serves:
//  - packets with checksums and acks, QStartNoAckMode, 0x03 to interrupt; a
//    checksum that is not two hex digits is a bad packet (NAK, dropped); a
//    reply is resent on a NAK at most MAX_RESENDS times, then the connection
//    is dropped (a line that garbles every packet cannot be served, and a
//    flood of NAKs must not make the server write without end);
//  - qSupported (PacketSize, qXfer:features:read+, swbreak+, hwbreak+) and a
//    target description (org.gnu.gdb.riscv.cpu);
//  - ?, g/G, p/P (pc is register 32), m/M/X on the board's memories (anything else,
//    the MMIO registers included, whose reads have side effects, is E14); an
//    m of length 0 is E01: the RSP's m reply is hex data or E NN, and an
//    empty packet, the only zero-byte data reply, means "not supported";
//  - c/s/C/S and vCont (c, C, s, S); Z0/Z1 breakpoints (checked before every
//    instruction); Z2 write watchpoints (a CPU store overlapping the range
//    stops after the store: T05watch:<addr>);
//  - k, D, qAttached, qC, qfThreadInfo/qsThreadInfo, Hg/Hc, T;
//  - qRcmd: `monitor units`, `monitor clocks`, `monitor help`.
// Stops: a breakpoint, a step or an interrupt is SIGTRAP/SIGINT; a trap
// (ebreak, ecall, illegal instruction, misaligned access) is T05 with pc at
// the trapping instruction (for a jump or branch to a misaligned target, which
// retires and links first, at the target, as on the RTL); a bus error is T0a
// (SIGBUS is 10 in GDB's signal numbering, include/gdb/signals.def); a TPU
// stop (--strict) T06; the clock
// limit T18 (SIGXCPU). The reason goes to GDB's console as an O packet too.
// Resuming after such a stop ends the run (W with the status `picotpu run`
// exits with), unless the user moved pc away from a trapping instruction; the
// run then goes on from the clock the trap stopped the core at (a trap goes
// high some clocks after its instruction's launch, docs/hardware.md §1.1).
// `monitor` reports that stop clock once the run has stopped.
// The guest's EXIT is W<status>.
//
// A continue with no breakpoint or watchpoint runs the machine free
// (Machine.run) in chunks of clocks; otherwise it runs instruction by
// instruction through the Stepper, checking a Set of breakpoint addresses and
// decoding stores only for watchpoints. Between chunks the event loop reads
// the socket, so a 0x03 byte stops a running continue.

import { createServer, type Server, type Socket } from 'node:net';
import { StopReason } from '../cpu.ts';
import { describeStop, hex8, type Machine, type RunResult } from '../machine.ts';
import { Stepper } from '../stepper.ts';
import { describeError } from '../../periph/tpu.ts';
import { expandCompressed } from '../isa.ts';

/** The only address the server listens on. */
export const GDB_HOST = '127.0.0.1';
/** Largest packet we accept (and say so in qSupported), in bytes. */
export const PACKET_SIZE = 0x4000;
/** Registers in g/G order: x0..x31, then pc. */
export const NUM_REGS = 33;
export const PC_REGNUM = 32;

/** GDB's signal numbers (include/gdb/signals.def), which the protocol uses. */
export const SIG = { INT: 0x02, TRAP: 0x05, ABRT: 0x06, BUS: 0x0a, XCPU: 0x18 } as const;

/** Times one reply is resent on NAKs (`-`) before the connection is dropped. */
export const MAX_RESENDS = 8;

/** Clocks of one free-running chunk of a continue (a few ms of host time). */
const FREE_CHUNK_CLOCKS = 1 << 21;
/** Instructions of one stepped chunk of a continue. */
const STEP_CHUNK_INSNS = 1 << 16;

export class GdbServerError extends Error {}

export interface GdbServerOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one (see onListening). */
  port: number;
  /** Stop (SIGXCPU) when the clock reaches this; default: never. */
  maxCycles?: number;
  /** One-line messages for the user (standard error in the CLI). */
  log?: (msg: string) => void;
  /** Called once the server listens, with its port. */
  onListening?: (port: number) => void;
}

const REG_TYPES: Record<number, string> = { 1: 'code_ptr', 2: 'data_ptr', 3: 'data_ptr', 4: 'data_ptr', 8: 'data_ptr' };

/** The target description: 32-bit RISC-V, the base integer registers and pc. */
export const TARGET_XML = [
  '<?xml version="1.0"?>',
  '<!DOCTYPE target SYSTEM "gdb-target.dtd">',
  '<target version="1.0">',
  '  <architecture>riscv:rv32</architecture>',
  '  <feature name="org.gnu.gdb.riscv.cpu">',
  ...Array.from({ length: 32 }, (_, i) =>
    `    <reg name="x${i}" bitsize="32" type="${REG_TYPES[i] ?? 'int'}" regnum="${i}"/>`),
  '    <reg name="pc" bitsize="32" type="code_ptr" regnum="32"/>',
  '  </feature>',
  '</target>',
  '',
].join('\n');

/**
 * Serves one GDB connection on 127.0.0.1:port for `machine` (loaded, at
 * reset). Resolves, once the connection has ended, with the exit status: the
 * firmware's when it finished, else 0 (after kill or detach). Rejects with a
 * GdbServerError when it cannot listen.
 */
export function serveGdb(machine: Machine, opts: GdbServerOptions): Promise<number> {
  const log = opts.log ?? (() => {});
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    return Promise.reject(new GdbServerError(`--port must be 0..65535, got ${opts.port}`));
  }
  return new Promise<number>((resolve, reject) => {
    let session: GdbSession | null = null;
    const server: Server = createServer({ noDelay: true });
    server.maxConnections = 1;
    server.on('error', (e: NodeJS.ErrnoException) => {
      if (session) return;
      const why = e.code === 'EADDRINUSE' ? 'the port is in use' : e.code === 'EACCES' ? 'permission denied' : e.message;
      reject(new GdbServerError(`cannot listen on ${GDB_HOST}:${opts.port}: ${why}`));
    });
    server.on('connection', (socket: Socket) => {
      if (session) { socket.destroy(); return; }
      server.close(); // one connection only: stop listening, keep this one
      log(`gdb connected from ${socket.remoteAddress}:${socket.remotePort}`);
      session = new GdbSession(machine, socket, opts.maxCycles ?? Number.POSITIVE_INFINITY, log);
      session.done.then(resolve, reject);
    });
    server.listen({ host: GDB_HOST, port: opts.port, exclusive: true }, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : opts.port;
      log(`gdb server listening on ${GDB_HOST}:${port} (in gdb: target remote ${GDB_HOST}:${port})`);
      opts.onListening?.(port);
    });
  });
}

interface Watch { addr: number; len: number }

/** Why a resume stopped. */
type Stop =
  | { kind: 'step' }
  | { kind: 'break'; hw: boolean }
  | { kind: 'watch'; addr: number }
  | { kind: 'interrupt' }
  | { kind: 'end'; result: RunResult };

const enum Parse { IDLE, DATA, CK1, CK2 }

const HEX = '0123456789abcdef';

/** The value of an ASCII hex digit, or -1. */
function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

function hexByte(b: number): string {
  return HEX[(b >> 4) & 15] + HEX[b & 15];
}

/** A 32-bit value as GDB's target byte order (little-endian) hex. */
function regHex(v: number): string {
  return hexByte(v) + hexByte(v >>> 8) + hexByte(v >>> 16) + hexByte(v >>> 24);
}

function parseRegHex(s: string): number | null {
  if (!/^[0-9a-fA-F]{8}$/.test(s)) return null;
  return (parseInt(s.slice(0, 2), 16) | (parseInt(s.slice(2, 4), 16) << 8) | (parseInt(s.slice(4, 6), 16) << 16)
    | (parseInt(s.slice(6, 8), 16) << 24)) >>> 0;
}

function hexOf(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += hexByte(b);
  return s;
}

function textToHex(text: string): string {
  return hexOf(Buffer.from(text, 'utf8'));
}

function parseHexBytes(s: string): Uint8Array | null {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) return null;
  return Uint8Array.from(Buffer.from(s, 'hex'));
}

/** A hex number of at most 8 digits (a 32-bit address or length), or null. */
function parseHex32(s: string | undefined): number | null {
  if (s === undefined || !/^[0-9a-fA-F]{1,8}$/.test(s)) return null;
  return parseInt(s, 16) >>> 0;
}

/** The `addr,len` of m/M/X/Z packets. */
function parseAddrLen(s: string): { addr: number; len: number } | null {
  const [a, l, ...rest] = s.split(',');
  const addr = parseHex32(a), len = parseHex32(l);
  return addr === null || len === null || rest.length > 0 ? null : { addr, len };
}

/** Escapes the bytes that cannot appear raw in a packet ($ # } *). */
function escapeBinary(bytes: Uint8Array): Buffer {
  const out: number[] = [];
  for (const b of bytes) {
    if (b === 0x23 || b === 0x24 || b === 0x7d || b === 0x2a) out.push(0x7d, b ^ 0x20);
    else out.push(b);
  }
  return Buffer.from(out);
}

function unescapeBinary(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x7d && i + 1 < bytes.length) out.push(bytes[++i] ^ 0x20);
    else out.push(bytes[i]);
  }
  return Uint8Array.from(out);
}

/** The store an instruction word makes from the current registers, or null. */
function storeOf(word: number, regs: Int32Array): { addr: number; size: number } | null {
  if ((word & 0x7f) !== 0x23) return null;
  const f3 = (word >>> 12) & 7;
  if (f3 > 2) return null;
  const imm = ((word >> 25) << 5) | ((word >>> 7) & 31);
  return { addr: (regs[(word >>> 15) & 31] + imm) >>> 0, size: 1 << f3 };
}

class GdbSession {
  /** Resolves with the exit status once the connection has ended. */
  readonly done: Promise<number>;
  private resolveDone!: (status: number) => void;

  private readonly stepper: Stepper;
  private readonly swBreaks = new Set<number>();
  private readonly hwBreaks = new Set<number>();
  /** swBreaks ∪ hwBreaks, what the run loop checks (kept up to date per Z/z, O(1) each). */
  private readonly breaks = new Set<number>();
  private readonly watches: Watch[] = [];

  // The packet reader.
  private parse = Parse.IDLE;
  private packet: number[] = [];
  private sum = 0;
  private checksum = 0;
  private readonly queue: Buffer[] = [];
  private ackMode = true;
  private lastSent: Buffer | null = null;
  /** NAKs answered with a resend of lastSent. */
  private resends = 0;

  private running = false;
  private interruptRequested = false;
  /** Skip the breakpoint at the pc a resume starts from. */
  private resumeFromPc = -1;
  /** A stop the machine cannot go on from (trap, bus error, TPU stop, clock limit). */
  private fatal: RunResult | null = null;
  /** Set once the firmware finished (W sent): its exit status. */
  private exitStatus: number | null = null;
  /** The run's end once the firmware exited. */
  private exited: RunResult | null = null;
  private closed = false;

  constructor(
    private readonly machine: Machine,
    private readonly socket: Socket,
    private readonly maxCycles: number,
    private readonly log: (msg: string) => void,
  ) {
    this.stepper = new Stepper(machine);
    this.done = new Promise((resolve) => { this.resolveDone = resolve; });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.log(`gdb connection: ${e.message}`));
    socket.on('close', () => this.onClose());
  }

  // ---- transport ----

  private onData(chunk: Buffer): void {
    for (const b of chunk) {
      switch (this.parse) {
        case Parse.IDLE:
          if (b === 0x24) { // $
            this.parse = Parse.DATA;
            this.packet = [];
            this.sum = 0;
          } else if (b === 0x03) {
            if (this.running) this.interruptRequested = true;
          } else if (b === 0x2d && this.ackMode && this.lastSent) { // -: resend
            if (this.resends >= MAX_RESENDS) { this.dropConnection(); return; }
            this.resends++;
            this.socket.write(this.lastSent);
          }
          break; // + and stray bytes are ignored
        case Parse.DATA:
          if (b === 0x23) { // #
            this.parse = Parse.CK1;
          } else if (this.packet.length > PACKET_SIZE + 64) {
            this.parse = Parse.IDLE; // runaway packet: drop it, gdb resends
            if (this.ackMode) this.socket.write('-');
          } else {
            this.packet.push(b);
            this.sum = (this.sum + b) & 0xff;
          }
          break;
        case Parse.CK1:
          // A non-hex digit makes the checksum -1: never equal to a sum.
          this.checksum = hexDigit(b) < 0 ? -1 : hexDigit(b) << 4;
          this.parse = Parse.CK2;
          break;
        case Parse.CK2: {
          this.checksum = this.checksum < 0 || hexDigit(b) < 0 ? -1 : this.checksum | hexDigit(b);
          this.parse = Parse.IDLE;
          const ok = this.checksum === this.sum;
          if (this.checksum < 0) { // not a checksum at all: a bad packet even without acks
            if (this.ackMode) this.socket.write('-');
            break;
          }
          if (this.ackMode) this.socket.write(ok ? '+' : '-');
          if (ok || !this.ackMode) this.queue.push(Buffer.from(this.packet));
          break;
        }
      }
    }
    this.pump();
  }

  private send(payload: string | Buffer): void {
    if (this.closed) return;
    const body = typeof payload === 'string' ? Buffer.from(payload, 'latin1') : payload;
    let sum = 0;
    for (const b of body) sum = (sum + b) & 0xff;
    const frame = Buffer.concat([Buffer.from('$'), body, Buffer.from(`#${hexByte(sum)}`)]);
    this.lastSent = frame;
    this.resends = 0;
    this.socket.write(frame);
  }

  /** Text for GDB's console (an O packet; only while GDB waits for a stop or a qRcmd). */
  private console(text: string): void {
    for (let i = 0; i < text.length; i += 1024) this.send(`O${textToHex(text.slice(i, i + 1024))}`);
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.running = false;
    this.machine.bus.console.flush();
    this.resolveDone(this.exitStatus ?? 0);
  }

  /** Too many NAKs of one reply: stop answering them and close the connection. */
  private dropConnection(): void {
    this.log(`gdb connection: the reply was refused (NAK) ${MAX_RESENDS + 1} times; closing the connection`);
    this.lastSent = null;
    this.queue.length = 0;
    this.exitStatus ??= 0;
    this.socket.destroy();
  }

  private end(): void {
    this.machine.bus.console.flush();
    this.socket.end();
    // 'close' follows and resolves `done`.
  }

  /** Handles queued packets until one starts the machine running. */
  private pump(): void {
    while (!this.running && !this.closed && this.queue.length > 0) {
      const pkt = this.queue.shift()!;
      let reply: string | Buffer | null;
      try {
        reply = this.handle(pkt);
      } catch (e) {
        this.log(`internal error handling a gdb packet: ${(e as Error).stack ?? e}`);
        reply = 'E01';
      }
      if (reply !== null) this.send(reply);
    }
  }

  // ---- packets ----

  /** Returns the reply, or null when there is none now (resume, kill). */
  private handle(pkt: Buffer): string | Buffer | null {
    const s = pkt.toString('latin1');
    const cmd = s[0] ?? '';
    const arg = s.slice(1);
    switch (cmd) {
      case '?': return this.exitStatus !== null ? this.exitReply() : this.stopReply(SIG.TRAP, '');
      case 'g': return this.readRegisters();
      case 'G': return this.writeRegisters(arg);
      case 'p': return this.readRegister(arg);
      case 'P': return this.writeRegister(arg);
      case 'm': return this.readMemory(arg);
      case 'M': return this.writeMemoryHex(arg);
      case 'X': return this.writeMemoryBinary(pkt);
      case 'c': case 's': case 'C': case 'S': {
        // c [addr], s [addr], C sig[;addr], S sig[;addr]
        const at = cmd === 'c' || cmd === 's' ? arg : arg.split(';')[1] ?? '';
        if (at) {
          const pc = parseHex32(at);
          if (pc === null) return 'E01';
          this.machine.cpu.pc = pc;
        }
        return this.resume(cmd === 's' || cmd === 'S');
      }
      case 'v': return this.handleV(s);
      case 'Z': case 'z': return this.handleBreak(cmd === 'Z', arg);
      case 'H': return /^[gc](-1|0|1|p?[0-9a-fA-F.-]+)$/.test(arg) ? 'OK' : 'E01';
      case 'T': return arg === '1' || arg === 'p1.1' ? 'OK' : 'E01';
      case 'k':
        this.log('killed by gdb');
        this.exitStatus ??= 0;
        this.end();
        return null;
      case 'D':
        this.log('gdb detached');
        this.send('OK');
        this.exitStatus ??= 0;
        this.end();
        return null;
      case 'q': return this.handleQuery(s);
      case 'Q':
        if (s === 'QStartNoAckMode') {
          this.send('OK'); // acknowledged in ack mode; none from here on
          this.ackMode = false;
          return null;
        }
        return '';
      default: return '';
    }
  }

  private handleQuery(s: string): string | Buffer {
    if (s.startsWith('qSupported')) {
      return `PacketSize=${PACKET_SIZE.toString(16)};qXfer:features:read+;swbreak+;hwbreak+;QStartNoAckMode+`;
    }
    if (s.startsWith('qXfer:features:read:')) {
      const m = /^qXfer:features:read:([^:]*):([0-9a-fA-F]+),([0-9a-fA-F]+)$/.exec(s);
      if (!m) return 'E01';
      if (m[1] !== 'target.xml') return 'E00';
      const xml = Buffer.from(TARGET_XML, 'utf8');
      const off = parseInt(m[2], 16), len = parseInt(m[3], 16);
      if (off > xml.length) return 'E01';
      const part = xml.subarray(off, off + len);
      return Buffer.concat([Buffer.from(off + len >= xml.length ? 'l' : 'm'), escapeBinary(part)]);
    }
    if (s === 'qAttached' || s.startsWith('qAttached:')) return '1';
    if (s === 'qC') return 'QC1';
    if (s === 'qfThreadInfo') return 'm1';
    if (s === 'qsThreadInfo') return 'l';
    if (s.startsWith('qSymbol')) return 'OK';
    if (s.startsWith('qRcmd,')) return this.monitor(s.slice(6));
    return '';
  }

  private handleV(s: string): string | null {
    if (s === 'vCont?') return 'vCont;c;C;s;S';
    if (s.startsWith('vCont;')) {
      // The first action that names our thread, or all threads.
      for (const action of s.slice(6).split(';')) {
        const [what = '', thread] = action.split(':');
        if (thread !== undefined && !/^(-1|0|1|p1\.(-1|0|1)|p-1\.-1)$/.test(thread)) continue;
        const kind = what[0];
        if (kind === 'c' || kind === 'C') return this.resume(false);
        if (kind === 's' || kind === 'S') return this.resume(true);
        return 'E01';
      }
      return 'E01';
    }
    if (s.startsWith('vKill')) {
      this.log('killed by gdb');
      this.send('OK');
      this.exitStatus ??= 0;
      this.end();
      return null;
    }
    return '';
  }

  // ---- registers ----

  private regValue(n: number): number {
    return n === PC_REGNUM ? this.machine.cpu.pc >>> 0 : n === 0 ? 0 : this.machine.cpu.regs[n] >>> 0;
  }

  private setReg(n: number, v: number): void {
    const cpu = this.machine.cpu;
    if (n === PC_REGNUM) cpu.pc = v >>> 0;
    else if (n !== 0) cpu.regs[n] = v | 0;
  }

  private readRegisters(): string {
    let out = '';
    for (let n = 0; n < NUM_REGS; n++) out += regHex(this.regValue(n));
    return out;
  }

  private writeRegisters(hex: string): string {
    if (hex.length < NUM_REGS * 8) return 'E01';
    const values: number[] = [];
    for (let n = 0; n < NUM_REGS; n++) {
      const v = parseRegHex(hex.slice(n * 8, n * 8 + 8));
      if (v === null) return 'E01';
      values.push(v);
    }
    values.forEach((v, n) => this.setReg(n, v));
    return 'OK';
  }

  private readRegister(arg: string): string {
    const n = parseHex32(arg);
    return n !== null && n < NUM_REGS ? regHex(this.regValue(n)) : 'E01';
  }

  private writeRegister(arg: string): string {
    const [num, val] = arg.split('=');
    const n = parseHex32(num), v = parseRegHex(val ?? '');
    if (n === null || n >= NUM_REGS || v === null) return 'E01';
    this.setReg(n, v);
    return 'OK';
  }

  // ---- memory ----

  /**
   * The bytes of the memory at [addr, addr + len) that side-effect-free
   * access reaches: one of the board's memories (emu/board.ts), cut at the
   * memory's end; null outside them (unmapped, or an MMIO register block).
   */
  private memoryAt(addr: number, len: number): Uint8Array | null {
    return this.machine.memoryAt(addr, len);
  }

  private readMemory(arg: string): string {
    const r = parseAddrLen(arg);
    if (!r) return 'E01';
    if (r.len === 0) return 'E01';
    const len = Math.min(r.len, PACKET_SIZE / 2 - 8);
    const mem = this.memoryAt(r.addr, len);
    if (!mem || (mem.length === 0 && len > 0)) return 'E14';
    return hexOf(mem);
  }

  private writeMemory(addr: number, data: Uint8Array): string {
    const mem = this.memoryAt(addr, data.length);
    if (!mem || mem.length < data.length) return 'E14';
    mem.set(data);
    if (addr < this.machine.cpu.ramSize && data.length > 0) this.machine.cpu.invalidateAll(); // it may be code
    return 'OK';
  }

  private writeMemoryHex(arg: string): string {
    const colon = arg.indexOf(':');
    const r = parseAddrLen(colon < 0 ? '' : arg.slice(0, colon));
    const data = parseHexBytes(arg.slice(colon + 1));
    if (!r || !data || data.length !== r.len) return 'E01';
    return this.writeMemory(r.addr, data);
  }

  private writeMemoryBinary(pkt: Buffer): string {
    const colon = pkt.indexOf(0x3a);
    const r = colon < 0 ? null : parseAddrLen(pkt.subarray(1, colon).toString('latin1'));
    if (!r) return 'E01';
    const data = unescapeBinary(pkt.subarray(colon + 1));
    if (data.length !== r.len) return 'E01';
    return this.writeMemory(r.addr, data);
  }

  // ---- breakpoints and watchpoints ----

  private handleBreak(insert: boolean, arg: string): string {
    const [type = '', rest = ''] = arg.split(/,(.*)/s);
    const r = parseAddrLen(rest.split(';')[0]); // conditions after ';' are not supported (not announced)
    if (!r) return 'E01';
    switch (type) {
      case '0': case '1': {
        const set = type === '0' ? this.swBreaks : this.hwBreaks;
        const other = type === '0' ? this.hwBreaks : this.swBreaks;
        if (insert) {
          set.add(r.addr);
          this.breaks.add(r.addr);
        } else {
          set.delete(r.addr);
          if (!other.has(r.addr)) this.breaks.delete(r.addr);
        }
        return 'OK';
      }
      case '2': {
        if (insert) {
          if (r.len === 0) return 'E01';
          this.watches.push({ addr: r.addr, len: r.len });
        } else {
          const i = this.watches.findIndex((w) => w.addr === r.addr && w.len === r.len);
          if (i >= 0) this.watches.splice(i, 1);
        }
        return 'OK';
      }
      default: return ''; // read and access watchpoints: not supported
    }
  }

  // ---- running ----

  private resume(step: boolean): string | null {
    if (this.exitStatus !== null) return this.exitReply();
    const cpu = this.machine.cpu;
    if (this.fatal) {
      const f = this.fatal;
      const movedOff = (f.reason === 'trap' || f.reason === 'bus-error') && cpu.pc !== f.pc;
      if (!movedOff) return this.finishWith(f);
      // The user moved pc past the faulting instruction: go on from there, from
      // the clock the core stopped at (the TPU has been accounted up to it).
      cpu.cycle = Math.max(cpu.cycle, f.clocks);
      this.fatal = null;
      this.stepper.stopped = null;
    }
    this.resumeFromPc = cpu.pc;
    this.interruptRequested = false;
    if (step) {
      const stop = this.runStepped(1) ?? { kind: 'step' };
      return this.reportStop(stop);
    }
    this.running = true;
    setImmediate(() => this.continueChunk());
    return null;
  }

  /** One chunk of a continue; schedules the next one until the machine stops. */
  private continueChunk(): void {
    if (!this.running || this.closed) return;
    let stop: Stop | null;
    try {
      if (this.interruptRequested) stop = { kind: 'interrupt' };
      else if (this.breaks.size === 0 && this.watches.length === 0) stop = this.runFree();
      else stop = this.runStepped(STEP_CHUNK_INSNS);
    } catch (e) {
      this.log(`internal error while running: ${(e as Error).stack ?? e}`);
      stop = { kind: 'interrupt' };
    }
    if (stop === null) {
      setImmediate(() => this.continueChunk());
      return;
    }
    this.running = false;
    const reply = this.reportStop(stop);
    if (reply !== null) this.send(reply);
    this.pump();
  }

  /** Runs the machine free for a chunk of clocks: null when it can go on. */
  private runFree(): Stop | null {
    const cpu = this.machine.cpu;
    const limit = Math.min(this.maxCycles, cpu.cycle + FREE_CHUNK_CLOCKS);
    const r = this.machine.run(limit);
    if (r.reason === 'cycle-limit' && cpu.cycle < this.maxCycles) return null;
    return { kind: 'end', result: r };
  }

  /**
   * Runs up to `count` instructions through the Stepper, checking breakpoints
   * before and watchpoints after each: null when it can go on.
   */
  private runStepped(count: number): Stop | null {
    const { cpu } = this.machine;
    const stepper = this.stepper;
    const breaks = this.breaks, watches = this.watches;
    for (let n = 0; n < count; n++) {
      const pc = cpu.pc;
      if (breaks.size > 0 && pc !== this.resumeFromPc && breaks.has(pc)) {
        return { kind: 'break', hw: !this.swBreaks.has(pc) };
      }
      this.resumeFromPc = -1;
      let store: { addr: number; size: number } | null = null;
      if (watches.length > 0 && pc < cpu.ramSize && (pc & (cpu.compressed ? 1 : 3)) === 0) {
        // A compressed store is looked at in its 32-bit form.
        const word = cpu.lengthAt(pc) === 2 ? expandCompressed(cpu.wordAt(pc) & 0xffff) : cpu.wordAt(pc);
        store = word === -1 ? null : storeOf(word, cpu.regs);
      }
      const more = stepper.step(this.maxCycles);
      if (!more) {
        if (stepper.stopped !== null || cpu.cycle >= this.maxCycles) {
          return { kind: 'end', result: this.machine.finishRun(stepper.stopped ?? StopReason.LIMIT) };
        }
      }
      if (store && stepper.executed) {
        for (const w of watches) {
          if (store.addr < w.addr + w.len && w.addr < store.addr + store.size) {
            return { kind: 'watch', addr: Math.max(store.addr, w.addr) };
          }
        }
      }
    }
    return null;
  }

  /** The reply for a stop (null when the connection is ending). */
  private reportStop(stop: Stop): string | null {
    this.machine.bus.console.flush();
    // Bring the TPU to the stop's clock, so memory and `monitor` show it as of now
    // (a run that ended was accounted up to its stop by finishRun).
    if (stop.kind !== 'end') this.machine.activity.advanceTo(this.machine.cpu.cycle);
    switch (stop.kind) {
      case 'step': return this.stopReply(SIG.TRAP, '');
      case 'break': return this.stopReply(SIG.TRAP, stop.hw ? 'hwbreak:;' : 'swbreak:;');
      case 'watch': return this.stopReply(SIG.TRAP, `watch:${stop.addr.toString(16)};`);
      case 'interrupt': return this.stopReply(SIG.INT, '');
      case 'end': {
        const r = stop.result;
        if (r.reason === 'exit') return this.finishWith(r);
        const text = describeStop(r);
        this.log(text);
        this.console(`picotpu: ${text}\n`);
        for (const e of r.tpuErrors) if (r.reason === 'tpu-error') this.console(`picotpu: ${describeError(e)}\n`);
        this.fatal = r;
        const sig = r.reason === 'trap' ? SIG.TRAP : r.reason === 'bus-error' ? SIG.BUS
          : r.reason === 'tpu-error' ? SIG.ABRT : SIG.XCPU;
        return this.stopReply(sig, '');
      }
    }
  }

  /** The firmware is done: W with the run's exit status. */
  private finishWith(r: RunResult): string {
    this.exitStatus = r.exit & 0xff;
    this.exited = r;
    if (r.reason === 'exit') this.log(`firmware exited with ${r.exit} after ${r.clocks} clocks, ${r.instret} instructions`);
    else this.log(`run ended: exit status ${r.exit}`);
    for (const e of r.tpuErrors) if (r.reason !== 'tpu-error') this.log(describeError(e));
    return this.exitReply();
  }

  private exitReply(): string {
    return `W${hexByte(this.exitStatus ?? 0)}`;
  }

  private stopReply(sig: number, reason: string): string {
    const cpu = this.machine.cpu;
    return `T${hexByte(sig)}${reason}thread:1;20:${regHex(cpu.pc)};02:${regHex(cpu.regs[2])};08:${regHex(cpu.regs[8])};`;
  }

  // ---- monitor commands ----

  private monitor(hexCmd: string): string {
    const bytes = parseHexBytes(hexCmd);
    if (!bytes) return 'E01';
    const cmd = Buffer.from(bytes).toString('utf8').trim();
    let out: string;
    if (cmd === 'units') out = this.unitsText();
    else if (cmd === 'clocks') out = this.clocksText();
    else if (cmd === 'help' || cmd === '') out = MONITOR_HELP;
    else out = `unknown monitor command "${cmd}"\n${MONITOR_HELP}`;
    this.console(out);
    return 'OK';
  }

  /** The current clock: the run's stop clock once it stopped (a trap's is after its instruction's launch). */
  private clock(): number {
    const end = this.fatal ?? this.exited;
    return end ? end.clocks : this.machine.cpu.cycle;
  }

  private unitsText(): string {
    return this.machine.devices.monitorUnits(this.clock()).join('\n') + '\n';
  }

  private clocksText(): string {
    const m = this.machine;
    return m.devices.monitorClocks(this.clock(), { instret: m.cpu.instret, pc: m.cpu.pc, where: m.symbols.describe(m.cpu.pc) }).join('\n') + '\n';
  }
}

const MONITOR_HELP = [
  'picotpu monitor commands:',
  '  monitor units   each TPU unit: busy, running command, queue, ISSUED/DONE, errors',
  '  monitor clocks  the current clock, instructions retired, the performance counters',
  '',
].join('\n');
