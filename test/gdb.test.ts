// `picotpu gdb`: the GDB remote serial protocol server (emu/debug/gdb-server.ts).
//
// Two parts:
//  - gdb-multiarch in batch mode debugs firmware-c/examples/gdbdemo.c (built
//    with -g) through `picotpu gdb --port 0`: break, continue, next, step,
//    info registers, print of locals, a struct and an SRAM word, unmapped
//    and MMIO reads, a hardware watchpoint, monitor units/clocks, and
//    continue to the exit, whose status the server exits with;
//  - the protocol itself, packet by packet, against serveGdb in this process
//    with small assembled programs: acks and checksums, no-ack mode, the
//    target description, registers, memory and its errors, breakpoints,
//    watchpoints, single steps, interrupting a continue, traps, bus errors,
//    monitor commands, exit, kill and detach.
// Everything is bounded in time: gdb and the server are killed after 60 s.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { GDB_HOST, MAX_RESENDS, serveGdb, TARGET_XML } from '../emu/debug/gdb-server.ts';
import { Machine } from '../boards/machine.ts';
import { FIRST_LAUNCH_CLOCK, storeAccessOffset, trapClocks } from '../emu/timing.ts';
import { assemble } from '../toolchain/toolchain.ts';
import { skipWhenMissing } from './helpers/require.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const GDB = 'gdb-multiarch';
const DEMO_ELF = join(root, 'build', 'fw', 'gdbdemo.elf');
const DEMO_SRC = join(root, 'firmware-c', 'examples', 'gdbdemo.c');
/** gdb and the server are killed after this. */
const SESSION_TIMEOUT_MS = 60_000;

function hasGdb(): boolean {
  return spawnSync(GDB, ['--version'], { stdio: 'ignore' }).status === 0;
}

// CI installs it, so there a missing gdb is a failure, not a skip.
const gdbMissing = skipWhenMissing(hasGdb(), 'gdb.test.ts', GDB, 'install: bash toolchain/ensure-toolchain.sh --with-test-tools');

/** The 1-based line of gdbdemo.c that contains `text` (so the test follows edits of the demo). */
function demoLine(text: string): number {
  const lines = readFileSync(DEMO_SRC, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`gdbdemo.c has no line with "${text}"`);
  return i + 1;
}

interface Exited {
  status: number | null;
  signal: NodeJS.Signals | null;
}

function exited(p: ChildProcess): Promise<Exited> {
  return new Promise((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) resolve({ status: p.exitCode, signal: p.signalCode });
    else p.on('exit', (status, signal) => resolve({ status, signal }));
  });
}

// ---------------------------------------------------------------------------
// gdb-multiarch against `picotpu gdb`

describe.skipIf(gdbMissing)('picotpu gdb with gdb-multiarch', () => {
  it('breaks, steps, prints, watches, runs monitor commands and continues to the exit', async () => {
    // The server on a free port (--port 0): it names the port on standard error.
    const server = spawn(process.execPath, [join(root, 'bin', 'picotpu.cjs'), 'gdb', DEMO_ELF, '--port', '0'], {
      cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let serverOut = '', serverErr = '';
    server.stdout!.on('data', (d: Buffer) => { serverOut += d.toString(); });
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        server.kill('SIGKILL');
        reject(new Error(`picotpu gdb did not listen within 30 s:\n${serverErr}`));
      }, 30_000);
      server.stderr!.on('data', (d: Buffer) => {
        serverErr += d.toString();
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(serverErr);
        if (m) { clearTimeout(timer); resolve(Number(m[1])); }
      });
      server.on('exit', () => { clearTimeout(timer); reject(new Error(`picotpu gdb exited before listening:\n${serverErr}`)); });
    });

    // Each command is preceded by a marker, so its output can be picked out.
    const steps: [string, string][] = [
      ['connect', `target remote ${GDB_HOST}:${port}`],
      ['break', 'break main'],
      ['continue-main', 'continue'],
      ['next1', 'next'],
      ['next2', 'next'],
      ['next3', 'next'],
      ['next4', 'next'],
      ['step', 'step'],
      ['next5', 'next'],
      ['next6', 'next'],
      ['registers', 'info registers'],
      ['print-n', 'print n'],
      ['print-total', 'print total'],
      ['print-i', 'print i'],
      ['print-struct', 'print g_stats'],
      ['print-member', 'print g_stats.last'],
      ['print-sram', 'print/x g_sram_magic'],
      ['read-mmio', 'x/x 0x10000000'],
      ['read-unmapped', 'x/x 0x30000000'],
      ['watch', 'watch g_stats.count'],
      ['continue-watch1', 'continue'],
      ['continue-watch2', 'continue'],
      ['print-total2', 'print total'],
      ['monitor-units', 'monitor units'],
      ['monitor-clocks', 'monitor clocks'],
      ['delete', 'delete'],
      ['continue-exit', 'continue'],
    ];
    const args = ['-nx', '-batch',
      '-iex', 'set debuginfod enabled off', '-ex', 'set pagination off', '-ex', 'set confirm off',
      '-ex', 'set architecture riscv:rv32', '-ex', `file ${DEMO_ELF}`];
    for (const [name, cmd] of steps) args.push('-ex', `echo @@${name}\\n`, '-ex', cmd);

    // stdout and stderr into one file, so errors stay next to their command.
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-gdb-'));
    const outPath = join(dir, 'gdb.out');
    const fd = openSync(outPath, 'w');
    const gdb = spawn(GDB, args, { cwd: root, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const killer = setTimeout(() => { gdb.kill('SIGKILL'); server.kill('SIGKILL'); }, SESSION_TIMEOUT_MS);
    let out: string;
    let gdbExit: Exited, serverExit: Exited;
    try {
      [gdbExit, serverExit] = await Promise.all([exited(gdb), exited(server)]);
      out = readFileSync(outPath, 'utf8');
    } finally {
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    }
    const context = `gdb output:\n${out}\nserver stderr:\n${serverErr}`;
    expect(gdbExit.signal, `gdb was killed (timeout?)\n${context}`).toBeNull();
    expect(serverExit.signal, `the server was killed (timeout?)\n${context}`).toBeNull();

    const section: Record<string, string> = {};
    for (const part of out.split(/^@@/m).slice(1)) {
      const nl = part.indexOf('\n');
      section[part.slice(0, nl)] = part.slice(nl + 1);
    }
    const sec = (name: string): string => {
      expect(section, `no output section ${name}\n${context}`).toHaveProperty(name);
      return section[name];
    };
    const line = (n: number, text: string) => new RegExp(`^${n}\\s+${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm');

    expect(sec('connect'), context).toMatch(/_start \(\) at runtime\/crt0\.S:\d+/);
    const mainLine = demoLine('int limit = 4;');
    expect(sec('break'), context).toMatch(new RegExp(`Breakpoint 1 at 0x[0-9a-f]+: file examples/gdbdemo\\.c, line ${mainLine}\\.`));
    expect(sec('continue-main'), context).toMatch(new RegExp(`Breakpoint 1, main \\(\\) at examples/gdbdemo\\.c:${mainLine}`));
    expect(sec('next1'), context).toMatch(line(demoLine('g_stats.last.x = 3;'), 'g_stats.last.x = 3;'));
    expect(sec('next2'), context).toMatch(line(demoLine('g_stats.last.y = 5;'), 'g_stats.last.y = 5;'));
    expect(sec('next3'), context).toMatch(line(demoLine('start_dma();'), 'start_dma();'));
    expect(sec('next4'), context).toMatch(line(demoLine('int result = accumulate(limit);'), 'int result = accumulate(limit);'));
    expect(sec('step'), context).toMatch(new RegExp(`accumulate \\(n=4\\) at examples/gdbdemo\\.c:${demoLine('int total = 0;')}`));
    expect(sec('next5'), context).toMatch(line(demoLine('for (int i = 1; i <= n; i++)'), 'for (int i = 1; i <= n; i++)'));
    expect(sec('next6'), context).toMatch(line(demoLine('total += i;'), 'total += i;'));

    const regs = sec('registers');
    expect(regs, context).toMatch(/^ra\s+0x[0-9a-f]+\s+0x[0-9a-f]+ <main\+\d+>/m);
    expect(regs, context).toMatch(/^sp\s+0x[0-9a-f]+\s+0x[0-9a-f]+/m);
    expect(regs, context).toMatch(/^a0\s+0x4\s+4$/m); // n, still in a0 at -O0
    expect(regs, context).toMatch(/^pc\s+0x[0-9a-f]+\s+0x[0-9a-f]+ <accumulate\+\d+>/m);
    // x1..x31 by their ABI names and pc (gdb leaves out zero).
    expect(regs.match(/^(ra|sp|gp|tp|t[0-6]|fp|s[1-9]|s1[01]|a[0-7]|pc)\s+0x/gm)?.length, context).toBe(32);

    expect(sec('print-n'), context).toMatch(/^\$1 = 4$/m);
    expect(sec('print-total'), context).toMatch(/^\$2 = 0$/m);
    expect(sec('print-i'), context).toMatch(/^\$3 = 1$/m);
    expect(sec('print-struct'), context)
      .toMatch(/^\$4 = \{count = 0, sum = 0, last = \{x = 3, y = 5\}, tag = "demo\\000\\000\\000"\}$/m);
    expect(sec('print-member'), context).toMatch(/^\$5 = \{x = 3, y = 5\}$/m);
    expect(sec('print-sram'), context).toMatch(/^\$6 = 0x5eed1234$/m);
    expect(sec('read-mmio'), context).toMatch(/Cannot access memory at address 0x10000000/);
    expect(sec('read-unmapped'), context).toMatch(/Cannot access memory at address 0x30000000/);

    expect(sec('watch'), context).toMatch(/Hardware watchpoint 2: g_stats\.count/);
    const afterStore = new RegExp(`accumulate \\(n=4\\) at examples/gdbdemo\\.c:${demoLine('g_stats.sum = total;')}`);
    expect(sec('continue-watch1'), context).toMatch(/Hardware watchpoint 2: g_stats\.count\s+Old value = 0\s+New value = 1/);
    expect(sec('continue-watch1'), context).toMatch(afterStore);
    expect(sec('continue-watch2'), context).toMatch(/Old value = 1\s+New value = 2/);
    expect(sec('continue-watch2'), context).toMatch(afterStore);
    expect(sec('print-total2'), context).toMatch(/^\$7 = 3$/m);

    // Two 8 KiB DMA loads pushed a few hundred clocks ago: one runs, one waits.
    const units = sec('monitor-units');
    expect(units, context).toMatch(/^TPU units at clock \d+:/m);
    expect(units, context).toMatch(/^DMA: busy, ISSUED 2, DONE 0, STATUS\.ERROR 0, queue 1\/8$/m);
    expect(units, context).toMatch(/^ {2}running #0 since clock \d+ \(pushed at \d+\): LOAD .*rows=32 row_bytes=256/m);
    expect(units, context).toMatch(/^ {2}queued {2}#1 pushed at clock \d+: LOAD .*spad=0x2000/m);
    expect(units, context).toMatch(/^MXU: idle, ISSUED 0, DONE 0, STATUS\.ERROR 0, queue 0\/8$/m);
    expect(units, context).toMatch(/^VPU: idle, ISSUED 0, DONE 0/m);
    expect(units, context).toMatch(/errors: none/);

    const clocks = sec('monitor-clocks');
    const m = /^clock (\d+) \([\d.]+ ms\), instret (\d+), pc 0x[0-9a-f]{8} <accumulate\+0x[0-9a-f]+>$/m.exec(clocks);
    expect(m, context).not.toBeNull();
    const clock = Number(m![1]), instret = Number(m![2]);
    expect(instret).toBeGreaterThan(50);
    expect(clock).toBeGreaterThan(instret);
    expect(clocks, context).toMatch(new RegExp(`^run ${clock} clocks [\\d.]+ ms @ 12 MHz$`, 'm'));
    expect(clocks, context).toMatch(/^DMA busy [1-9]\d* /m);
    expect(clocks, context).toMatch(/^MXU busy 0 0\.0%$/m);

    expect(sec('continue-exit'), context).toMatch(/\[Inferior 1 \(Remote target\) exited with code 03\]/);
    expect(out, context).not.toMatch(/Remote connection closed|Ignoring packet error|internal-error/);

    // The server ends with the firmware's exit status; the guest's console went to its stdout.
    expect(serverExit.status, context).toBe(3);
    expect(serverOut).toBe('gdbdemo: sum 10 count 4\n');
    expect(serverErr).toMatch(/firmware exited with 3 after \d+ clocks/);
  }, 90_000);
});

// ---------------------------------------------------------------------------
// The protocol, packet by packet

function checksum(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) sum = (sum + payload.charCodeAt(i)) & 0xff;
  return sum.toString(16).padStart(2, '0');
}

function hexText(hex: string): string {
  return Buffer.from(hex, 'hex').toString('utf8');
}

const toHex = (text: string): string => Buffer.from(text, 'latin1').toString('hex');

/** Little-endian register hex of a 32-bit value. */
function le32(v: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b.toString('hex');
}

/** A minimal GDB: frames packets, checks checksums, collects O output. */
class Client {
  private buf = '';
  private wake: (() => void) | null = null;
  ack = true;
  /** Bytes received from the server, in all. */
  received = 0;
  /** Text of O packets received since the last take. */
  consoleText = '';

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buf += d.toString('latin1');
      this.received += d.length;
      this.wake?.();
    });
    socket.on('close', () => this.wake?.());
  }

  static connect(port: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: GDB_HOST, port }, () => resolve(new Client(s)));
      s.on('error', reject);
    });
  }

  raw(text: string): void {
    this.socket.write(Buffer.from(text, 'latin1'));
  }

  sendPacket(payload: string): void {
    this.raw(`$${payload}#${checksum(payload)}`);
  }

  private async waitFor<T>(take: () => T | null, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = take();
      if (v !== null) return v;
      if (this.socket.destroyed || this.socket.readableEnded) throw new Error(`connection closed waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what} (have "${this.buf}")`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.wake = () => { clearTimeout(t); r(); };
      });
      this.wake = null;
    }
  }

  /** The next ack byte (+ or -). */
  nextAck(): Promise<string> {
    return this.waitFor(() => {
      const c = this.buf[0];
      if (c !== '+' && c !== '-') return null;
      this.buf = this.buf.slice(1);
      return c;
    }, 'an ack');
  }

  /** The next packet's payload (acking it in ack mode); acks before it are skipped. */
  nextPacket(timeoutMs?: number): Promise<string> {
    return this.waitFor(() => {
      const start = this.buf.indexOf('$');
      if (start < 0) return null;
      const hash = this.buf.indexOf('#', start);
      if (hash < 0 || this.buf.length < hash + 3) return null;
      const payload = this.buf.slice(start + 1, hash);
      const sum = this.buf.slice(hash + 1, hash + 3);
      expect(this.buf.slice(0, start).replace(/\+/g, ''), 'stray bytes before a packet').toBe('');
      this.buf = this.buf.slice(hash + 3);
      expect(sum, `checksum of ${payload}`).toBe(checksum(payload));
      if (this.ack) this.raw('+');
      return payload;
    }, 'a packet', timeoutMs);
  }

  /** The next packet that is not console output (O packets go to consoleText). */
  async reply(timeoutMs?: number): Promise<string> {
    for (;;) {
      const p = await this.nextPacket(timeoutMs);
      if (/^O[0-9a-f]+$/.test(p)) this.consoleText += hexText(p.slice(1));
      else return p;
    }
  }

  /** Sends a packet and returns the reply. */
  async ask(payload: string, timeoutMs?: number): Promise<string> {
    this.sendPacket(payload);
    if (this.ack) expect(await this.nextAck(), `ack of ${payload}`).toBe('+');
    return this.reply(timeoutMs);
  }

  takeConsole(): string {
    const t = this.consoleText;
    this.consoleText = '';
    return t;
  }

  closed(): Promise<void> {
    return new Promise((r) => {
      if (this.socket.destroyed || this.socket.readableEnded) r();
      else this.socket.on('close', () => r());
    });
  }
}

interface Served {
  machine: Machine;
  client: Client;
  status: Promise<number>;
  log: string[];
}

const sessions: Served[] = [];

afterEach(() => {
  for (const s of sessions.splice(0)) s.client.socket.destroy();
});

/** A machine with `elf` loaded, served on a free port, with a connected client. */
async function serve(elf: Uint8Array, maxCycles?: number): Promise<Served> {
  const machine = new Machine();
  machine.loadElf(elf);
  machine.bus.console.captureOutput();
  const log: string[] = [];
  let resolvePort!: (p: number) => void;
  const portP = new Promise<number>((r) => { resolvePort = r; });
  const status = serveGdb(machine, { port: 0, maxCycles, log: (m) => log.push(m), onListening: resolvePort });
  status.catch(() => {});
  const client = await Client.connect(await portP);
  const s = { machine, client, status, log };
  sessions.push(s);
  return s;
}

/** The register values of a `g` reply. */
function regsOf(g: string): number[] {
  expect(g).toMatch(/^[0-9a-f]{264}$/);
  return Array.from({ length: 33 }, (_, i) => Buffer.from(g.slice(i * 8, i * 8 + 8), 'hex').readUInt32LE());
}

const pcOf = (stop: string): number => {
  const m = /(?:^|;)20:([0-9a-f]{8});/.exec(stop.replace(/^T[0-9a-f]{2}/, ';'));
  expect(m, `pc in stop reply ${stop}`).not.toBeNull();
  return Buffer.from(m![1], 'hex').readUInt32LE();
};

describe('the GDB remote protocol', () => {
  // x5 counts; `here` stores it to SRAM word 0 and to `var` in BRAM, for ever.
  const LOOP = `
    .globl _start
_start:
    li   t0, 0
    li   t1, 0x40000000
    la   t2, var
loop:
    addi t0, t0, 1
here:
    sw   t0, 0(t1)
store2:
    sw   t0, 0(t2)
    j    loop
    .data
    .balign 4
var: .word 0x11223344
    .word 0x55667788
`;
  const loop = () => assemble(LOOP);
  /** Address of a label of the served program. */
  const at = (machine: Machine, label: string): number => {
    const sym = machine.symbols.lookup(label);
    if (!sym) throw new Error(`no symbol ${label}`);
    return sym.addr;
  };

  it('acks packets, rejects bad checksums, and switches acks off on QStartNoAckMode', async () => {
    const { client } = await serve(loop());
    client.raw('$qC#00');
    expect(await client.nextAck()).toBe('-');
    expect(await client.ask('qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386'))
      .toBe('PacketSize=4000;qXfer:features:read+;swbreak+;hwbreak+;QStartNoAckMode+');
    expect(await client.ask('qC')).toBe('QC1');
    expect(await client.ask('QStartNoAckMode')).toBe('OK');
    client.ack = false;
    client.sendPacket('qAttached');
    expect(await client.reply()).toBe('1'); // no ack byte before it: nextPacket rejects stray bytes
    expect(await client.ask('qfThreadInfo')).toBe('m1');
    expect(await client.ask('qsThreadInfo')).toBe('l');
    expect(await client.ask('Hg0')).toBe('OK');
    expect(await client.ask('Hc-1')).toBe('OK');
    expect(await client.ask('T1')).toBe('OK');
    expect(await client.ask('vCont?')).toBe('vCont;c;C;s;S');
    expect(await client.ask('vMustReplyEmpty')).toBe('');
    expect(await client.ask('qTStatus')).toBe('');
  });

  it('serves the target description in pieces', async () => {
    const { client } = await serve(loop());
    let xml = '';
    for (let off = 0; ; off += 100) {
      const r = await client.ask(`qXfer:features:read:target.xml:${off.toString(16)},${(100).toString(16)}`);
      expect(r[0]).toMatch(/[ml]/);
      xml += r.slice(1);
      if (r[0] === 'l') break;
    }
    expect(xml).toBe(TARGET_XML);
    expect(xml).toContain('<feature name="org.gnu.gdb.riscv.cpu">');
    expect(xml).toContain('<architecture>riscv:rv32</architecture>');
    expect(xml.match(/<reg name="x\d+" bitsize="32"/g)).toHaveLength(32);
    expect(xml).toMatch(/<reg name="pc" bitsize="32" type="code_ptr" regnum="32"\/>/);
    expect(await client.ask('qXfer:features:read:other.xml:0,100')).toBe('E00');
  });

  it('reads and writes registers: g/G, p/P (pc is 32), x0 stays 0', async () => {
    const { client, machine } = await serve(loop());
    expect(await client.ask('?')).toMatch(/^T05thread:1;20:00000000;/);
    machine.cpu.regs[5] = 0x12345678;
    machine.cpu.regs[31] = -2;
    let regs = regsOf(await client.ask('g'));
    expect(regs[5]).toBe(0x12345678);
    expect(regs[31]).toBe(0xfffffffe);
    expect(regs[32]).toBe(0);
    expect(await client.ask('p20')).toBe('00000000');
    expect(await client.ask('p5')).toBe('78563412');
    expect(await client.ask(`P20=${le32(0x10)}`)).toBe('OK');
    expect(machine.cpu.pc).toBe(0x10);
    expect(await client.ask(`P6=${le32(0xdeadbeef)}`)).toBe('OK');
    expect(machine.cpu.regs[6] >>> 0).toBe(0xdeadbeef);
    expect(await client.ask(`P0=${le32(7)}`)).toBe('OK');
    expect(await client.ask('p0')).toBe('00000000');
    expect(await client.ask('p21')).toBe('E01');
    regs = Array.from({ length: 33 }, (_, i) => (i === 32 ? 0 : i * 0x01010101));
    expect(await client.ask(`G${regs.map(le32).join('')}`)).toBe('OK');
    expect(Array.from(machine.cpu.regs, (v) => v >>> 0)).toEqual(regs.slice(0, 32).map((v, i) => (i === 0 ? 0 : v)));
    expect(await client.ask('Gzz')).toBe('E01');
  });

  it('reads and writes BRAM and SRAM; unmapped and MMIO addresses are E14', async () => {
    const { client, machine } = await serve(loop());
    const bram = machine.bus.bram;
    expect(await client.ask('m0,8')).toBe(Buffer.from(bram.subarray(0, 8)).toString('hex'));
    // A read running off the end of a memory returns the part that exists.
    expect(await client.ask('mfffe,4')).toBe(Buffer.from(bram.subarray(0xfffe)).toString('hex'));
    machine.sramBytes.set([1, 2, 3, 4], 0x100);
    expect(await client.ask('m40000100,4')).toBe('01020304');
    expect(await client.ask('m4007fffe,4')).toBe('0000');
    for (const addr of ['10000', '10000000', '10000004', '10000008', '20000000', '20000100', '30000000', '40080000', 'fffffffc']) {
      expect(await client.ask(`m${addr},4`), `read ${addr}`).toBe('E14');
      expect(await client.ask(`M${addr},1:00`), `write ${addr}`).toBe('E14');
      expect(await client.ask(`X${addr},1:\x00`), `binary write ${addr}`).toBe('E14');
    }
    // Reading the console RX register would consume input, the TPU's would advance it: nothing happened.
    expect(machine.bus.console.exitCode).toBeNull();
    expect(await client.ask('M40000200,4:a1b2c3d4')).toBe('OK');
    expect(Array.from(machine.sramBytes.subarray(0x200, 0x204))).toEqual([0xa1, 0xb2, 0xc3, 0xd4]);
    // X: binary, with } # $ * escaped.
    expect(await client.ask('X40000300,0:')).toBe('OK');
    const payload = `X40000300,5:}${String.fromCharCode(0x23 ^ 0x20)}}${String.fromCharCode(0x24 ^ 0x20)}}${String.fromCharCode(0x7d ^ 0x20)}}${String.fromCharCode(0x2a ^ 0x20)}\xff`;
    expect(await client.ask(payload)).toBe('OK');
    expect(Array.from(machine.sramBytes.subarray(0x300, 0x305))).toEqual([0x23, 0x24, 0x7d, 0x2a, 0xff]);
    // A write across the end of a memory is refused whole.
    expect(await client.ask('M4007ffff,2:0102')).toBe('E14');
    expect(machine.sramBytes[0x7ffff]).toBe(0);
    expect(await client.ask('Mzz,1:00')).toBe('E01');
    expect(await client.ask('M40000000,2:00')).toBe('E01');
  });

  it('writing code through M is seen by the CPU (predecoded words are dropped)', async () => {
    const { client, machine } = await serve(loop());
    expect(await client.ask('s')).toMatch(/^T05/); // decodes the first word
    // Overwrite `addi t0, t0, 1` at `loop` with `addi t0, t0, 5`.
    const loopAt = at(machine, 'loop');
    expect(await client.ask(`M${loopAt.toString(16)},4:${le32(0x00528293)}`)).toBe('OK');
    await client.ask(`P20=${le32(loopAt)}`);
    machine.cpu.regs[5] = 0;
    expect(await client.ask('s')).toMatch(/^T05/);
    expect(machine.cpu.regs[5]).toBe(5);
  });

  it('single-steps one instruction at a time, with the clocks of a free run', async () => {
    const { client, machine } = await serve(loop());
    const free = new Machine();
    free.loadElf(loop());
    const pcs: number[] = [];
    for (let i = 0; i < 8; i++) {
      const stop = await client.ask(i % 2 ? 'vCont;s:1;c' : 's');
      expect(stop).toMatch(/^T05thread:1;/);
      pcs.push(pcOf(stop));
    }
    // li, li (lui), la (auipc, addi), then loop: addi, sw, sw, j.
    const loopAt = at(machine, 'loop');
    expect(loopAt).toBe(16);
    expect(pcs).toEqual([4, 8, 12, 16, 20, 24, 28, 16]);
    expect(machine.cpu.instret).toBe(8);
    free.cpu.run(Number.POSITIVE_INFINITY, 8);
    expect(machine.cpu.cycle).toBe(free.cpu.cycle);
    expect(machine.cpu.regs[5]).toBe(1);
  });

  it('stops at breakpoints before the instruction, and continues past them', async () => {
    const { client, machine } = await serve(loop());
    const here = at(machine, 'here');
    expect(await client.ask(`Z0,${here.toString(16)},4`)).toBe('OK');
    let stop = await client.ask('c');
    expect(stop).toMatch(/^T05swbreak:;thread:1;/);
    expect(pcOf(stop)).toBe(here);
    expect(machine.cpu.regs[5]).toBe(1);
    expect(new DataView(machine.sramBytes.buffer).getInt32(0, true)).toBe(0); // the store has not run
    stop = await client.ask('vCont;c');
    expect(pcOf(stop)).toBe(here);
    expect(machine.cpu.regs[5]).toBe(2);
    expect(new DataView(machine.sramBytes.buffer).getInt32(0, true)).toBe(1);
    // A hardware breakpoint elsewhere; the software one removed.
    const store2 = at(machine, 'store2');
    expect(await client.ask(`Z1,${store2.toString(16)},4`)).toBe('OK');
    expect(await client.ask(`z0,${here.toString(16)},4`)).toBe('OK');
    stop = await client.ask('c');
    expect(stop).toMatch(/^T05hwbreak:;/);
    expect(pcOf(stop)).toBe(store2);
    expect(await client.ask(`z1,${store2.toString(16)},4`)).toBe('OK');
    expect(await client.ask('Z3,40000000,4')).toBe(''); // read watchpoints: not supported
  });

  it('stops after a store that overlaps a write watchpoint, reporting the address', async () => {
    const { client, machine } = await serve(loop());
    // One byte in the middle of the SRAM word that `here` stores.
    expect(await client.ask('Z2,40000002,1')).toBe('OK');
    let stop = await client.ask('c');
    expect(stop).toMatch(/^T05watch:40000002;thread:1;/);
    expect(pcOf(stop)).toBe(at(machine, 'store2'));
    expect(new DataView(machine.sramBytes.buffer).getInt32(0, true)).toBe(1);
    expect(await client.ask('z2,40000002,1')).toBe('OK');
    // Around the BRAM word `var`: the word after it is never written, the range from its middle is.
    const varAddr = at(machine, 'var');
    expect(new DataView(machine.sramBytes.buffer).getInt32(0, true)).toBe(1);
    expect(await client.ask(`Z2,${(varAddr + 4).toString(16)},4`)).toBe('OK');
    expect(await client.ask(`Z2,${(varAddr + 2).toString(16)},4`)).toBe('OK');
    stop = await client.ask('c');
    expect(stop).toMatch(new RegExp(`^T05watch:${(varAddr + 2).toString(16)};`));
    expect(pcOf(stop)).toBe(at(machine, 'store2') + 4); // after the store: the j
    expect(machine.bus.bram[varAddr]).toBe(1);
  });

  it('a 0x03 byte interrupts a running continue, free-running or stepping', async () => {
    const { client, machine } = await serve(loop());
    for (const withBreak of [false, true]) {
      if (withBreak) expect(await client.ask('Z0,fff0,4')).toBe('OK'); // never reached: the stepping path
      const before = machine.cpu.instret;
      client.sendPacket('vCont;c');
      expect(await client.nextAck()).toBe('+');
      await new Promise((r) => setTimeout(r, 300));
      client.raw('\x03');
      const stop = await client.reply(5_000);
      expect(stop).toMatch(/^T02thread:1;/);
      const pc = pcOf(stop);
      expect(pc).toBeGreaterThanOrEqual(at(machine, 'loop'));
      expect(pc).toBeLessThanOrEqual(at(machine, 'loop') + 12);
      // It ran in the meantime (at millions of instructions a second; a loose bound for slow machines).
      expect(machine.cpu.instret - before).toBeGreaterThan(50_000);
      expect(regsOf(await client.ask('g'))[32]).toBe(pc);
    }
  });

  it('reports a trap as SIGTRAP at the trapping instruction, then the exit status of a trap', async () => {
    const { client, status, log } = await serve(assemble(`
      .globl _start
_start:
      nop
      nop
      ebreak
      nop
`));
    const stop = await client.ask('c');
    expect(stop).toMatch(/^T05thread:1;/);
    expect(pcOf(stop)).toBe(8);
    expect(client.takeConsole()).toMatch(/^picotpu: ebreak at pc 0x00000008 <_start\+0x8>: 0x00100073 {2}ebreak, clock \d+\n$/);
    expect(log.join('\n')).toMatch(/ebreak at pc 0x00000008/);
    // Going on from there ends the run with `picotpu run`'s status for a trap (160).
    expect(await client.ask('c')).toBe('Wa0');
    client.socket.end(); // as gdb does after W
    expect(await status).toBe(160);
  });

  it('reports a jump to a misaligned target as SIGTRAP at the target, the link register written (as on the RTL)', async () => {
    const { client } = await serve(assemble(`
      .option norelax
      .globl _start
_start:
      nop
      jal  ra, .+6
      nop
      nop
`));
    const stop = await client.ask('c');
    expect(stop).toMatch(/^T05thread:1;/);
    expect(pcOf(stop)).toBe(10);
    expect(regsOf(await client.ask('g'))[1]).toBe(8);
    // nop and jal launch 3 clocks apart from FIRST_LAUNCH_CLOCK; the trap goes high 4 clocks after the jal's launch (§1.1).
    expect(client.takeConsole()).toBe(`picotpu: misaligned instruction fetch at pc 0x0000000a <_start+0xa> (jump at pc 0x00000004 <_start+0x4>), clock ${FIRST_LAUNCH_CLOCK + 3 + 4}\n`);
  });

  it('resumes after a trap when the user moves pc past it, from the clock the trap went high', async () => {
    const { client, machine, log } = await serve(assemble(`
      .globl _start
_start:
      ebreak
      li   t0, 0x10000008
      li   t1, 9
      sw   t1, 0(t0)
`));
    expect(pcOf(await client.ask('c'))).toBe(0);
    // The ebreak launched at FIRST_LAUNCH_CLOCK; its trap went high 3 clocks later (docs/hardware.md §1.1).
    const trapAt = FIRST_LAUNCH_CLOCK + 3;
    expect(trapClocks('ebreak', machine.config.cpu)).toBe(3);
    expect(client.takeConsole()).toMatch(new RegExp(`ebreak, clock ${trapAt}\n$`));
    expect(await client.ask(`qRcmd,${toHex('clocks')}`)).toBe('OK');
    expect(client.takeConsole()).toMatch(new RegExp(`^clock ${trapAt} \\(`));
    expect(await client.ask(`P20=${le32(4)}`)).toBe('OK');
    expect(await client.ask('c')).toBe('W09');
    expect(machine.bus.console.exitCode).toBe(9);
    // From there: lui + addi + addi (3 clocks each, §1.2), then the EXIT store's handshake
    // (launch + 4) after the console's wait clocks.
    expect(storeAccessOffset(machine.config.cpu)).toBe(4);
    const exitAt = trapAt + 9 + 4 + machine.config.bus.consoleWait;
    expect(log.join('\n')).toContain(`firmware exited with 9 after ${exitAt} clocks`);
  });

  it('reports a bus error as SIGBUS (GDB signal 10) at the faulting load', async () => {
    const { client } = await serve(assemble(`
      .globl _start
_start:
      li   t1, 0x30000000
      lw   t0, 0(t1)
`));
    const stop = await client.ask('c');
    expect(stop).toMatch(/^T0athread:1;/);
    expect(pcOf(stop)).toBe(4);
    expect(client.takeConsole()).toMatch(/bus error: load from unmapped address \(address 0x30000000\) at pc 0x00000004/);
    expect(await client.ask('s')).toBe('Wa1');
  });

  it('stops with SIGXCPU at the clock limit', async () => {
    const { client, machine } = await serve(loop(), 5_000);
    const stop = await client.ask('c');
    expect(stop).toMatch(/^T18/);
    expect(machine.cpu.cycle).toBeGreaterThanOrEqual(5_000);
    expect(client.takeConsole()).toMatch(/cycle limit reached/);
    expect(await client.ask('c')).toBe('Wa2');
  });

  it('answers monitor units and monitor clocks with console output', async () => {
    const { client, machine } = await serve(assemble(`
      .globl _start
_start:
      # One DMA load of 64 rows x 64 bytes: ARG0 sram 0, ARG1 spad 0 | rows 64 << 16, ARG2 row bytes 64 | spad stride 64 << 16, ARG3 sram stride 64.
      li   t0, 0x20000100
      sw   zero, 0(t0)
      li   t1, 0x00400000
      sw   t1, 4(t0)
      li   t1, 0x00400040
      sw   t1, 8(t0)
      li   t1, 64
      sw   t1, 12(t0)
      li   t1, 1
      sw   t1, 0x18(t0)
      nop
stop_here:
      j    stop_here
`));
    const stopHere = at(machine, 'stop_here');
    expect(await client.ask(`Z0,${stopHere.toString(16)},4`)).toBe('OK');
    expect(pcOf(await client.ask('c'))).toBe(stopHere);
    expect(await client.ask(`qRcmd,${toHex('units')}`)).toBe('OK');
    const units = client.takeConsole();
    // The load moves 4096 bytes at one clock a byte, so at stop_here, a few instructions after
    // the PUSH, it is still running: busy, not done, and no error (a dropped command would be DONE 1, STATUS.ERROR 1).
    const now = machine.cpu.cycle;
    expect(units).toMatch(new RegExp(`^TPU units at clock ${now}:\n`));
    const dma = /^DMA: busy, ISSUED 1, DONE 0, STATUS\.ERROR 0, queue 0\/8\n {2}running #0 since clock (\d+) \(pushed at (\d+)\): (.*)\n {2}errors: none$/m.exec(units);
    expect(dma, units).not.toBeNull();
    // A command pushed at clock p to an idle unit starts at p + 1 (docs/hardware.md §5.3).
    expect(Number(dma![1])).toBe(Number(dma![2]) + 1);
    expect(Number(dma![1])).toBeLessThan(now);
    expect(dma![3]).toBe('LOAD sram=0x00000 spad=0x0000 rows=64 row_bytes=64 sram_stride=64 spad_stride=64');
    expect(machine.tpu.errors).toEqual([]);
    expect(units).toMatch(/^MXU: idle, ISSUED 0, DONE 0, STATUS\.ERROR 0, queue 0\/8\n {2}errors: none$/m);
    expect(await client.ask(`qRcmd,${toHex('clocks')}`)).toBe('OK');
    const clocks = client.takeConsole();
    expect(clocks).toMatch(new RegExp(`^clock \\d+ \\([\\d.]+ ms\\), instret 13, pc 0x${stopHere.toString(16).padStart(8, '0')} <stop_here>\n`));
    expect(clocks).toMatch(/^counters \(whole run\):\nrun \d+ clocks/m);
    expect(clocks).toMatch(/^producer stalled on a full queue 0 0\.0%$/m);
    expect(await client.ask(`qRcmd,${toHex('help')}`)).toBe('OK');
    expect(client.takeConsole()).toMatch(/monitor units.*\n.*monitor clocks/);
    expect(await client.ask(`qRcmd,${toHex('frobnicate')}`)).toBe('OK');
    expect(client.takeConsole()).toMatch(/^unknown monitor command "frobnicate"/);
  });

  it('reports the exit as W<status> and resolves with it', async () => {
    const { client, status, machine } = await serve(assemble(`
      .globl _start
_start:
      li   t0, 0x10000000
      li   t1, 0x41
      sw   t1, 0(t0)
      li   t1, 10
      sw   t1, 0(t0)
      li   t1, 42
      sw   t1, 8(t0)
`));
    expect(await client.ask('vCont;c')).toBe('W2a');
    expect(machine.bus.console.capturedText()).toBe('A\n');
    expect(await client.ask('?')).toBe('W2a');
    client.socket.end();
    expect(await status).toBe(42);
  });

  it('ends with status 0 on kill and on detach', async () => {
    const a = await serve(loop());
    a.client.sendPacket('k');
    expect(await a.client.nextAck()).toBe('+');
    await a.client.closed();
    expect(await a.status).toBe(0);
    const b = await serve(loop());
    expect(await b.client.ask('s')).toMatch(/^T05/);
    expect(await b.client.ask('D')).toBe('OK');
    await b.client.closed();
    expect(await b.status).toBe(0);
  });

  it('listens on 127.0.0.1 only, for one connection', async () => {
    const { log, client } = await serve(loop());
    expect(log[0]).toMatch(/^gdb server listening on 127\.0\.0\.1:\d+/);
    const port = Number(/:(\d+)/.exec(log[0])![1]);
    await expect(Client.connect(port)).rejects.toThrow(/ECONNREFUSED/);
    expect(await client.ask('qC')).toBe('QC1');
    await expect(serveGdb(new Machine(), { port: 70000 })).rejects.toThrow(/--port must be 0\.\.65535/);
  });

  it('NAKs a packet whose checksum is not hex, even an empty one, and serves the next', async () => {
    const { client } = await serve(loop());
    client.raw('$#zz');
    expect(await client.nextAck()).toBe('-');
    client.raw('$qC#g0');
    expect(await client.nextAck()).toBe('-');
    expect(await client.ask('qC')).toBe('QC1'); // nothing was queued for the bad ones
  });

  it(`resends a NAKed reply at most ${MAX_RESENDS} times, then drops the connection`, async () => {
    const { client, log, status } = await serve(loop());
    expect(await client.ask('qC')).toBe('QC1'); // lastSent: $QC1#c5, 7 bytes
    const before = client.received;
    client.raw('-'.repeat(256 * 1024));
    await client.closed();
    expect(client.received - before).toBe(MAX_RESENDS * '$QC1#c5'.length);
    expect(log.at(-1)).toBe(`gdb connection: the reply was refused (NAK) ${MAX_RESENDS + 1} times; closing the connection`);
    expect(await status).toBe(0);
  });

  it('answers a zero-length memory read with an error, not the empty "unsupported" reply', async () => {
    const { client, machine } = await serve(loop());
    expect(await client.ask('m0,0')).toBe('E01');
    expect(await client.ask('m40000000,0')).toBe('E01');
    expect(await client.ask('m0,1')).toBe(Buffer.from(machine.bus.bram.subarray(0, 1)).toString('hex'));
  });

  it('inserts 8,000 breakpoints in linear time, and one set as Z0 and Z1 stays until both are removed', async () => {
    const { client, machine } = await serve(loop());
    expect(await client.ask('QStartNoAckMode')).toBe('OK');
    client.ack = false;
    const N = 8000;
    const t0 = performance.now();
    // Addresses in the SRAM: never executed, so the loop below is not stopped by them.
    client.raw(Array.from({ length: N }, (_, i) => { const p = `Z0,${(0x40000000 + 4 * i).toString(16)},4`; return `$${p}#${checksum(p)}`; }).join(''));
    // Every reply is $OK#9a (6 bytes): wait for all of them by count, so the figure is the server's time.
    const start = client.received;
    while (client.received - start < 6 * N && performance.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 5));
    const ms = performance.now() - t0;
    for (let i = 0; i < N; i++) expect(await client.reply()).toBe('OK');
    console.log(`gdb.test.ts: ${N} Z0 packets answered in ${ms.toFixed(0)} ms`);
    // Quadratic insertion (a new Set of all breakpoints per Z0) took 1.5 s here (counted as below); this takes about 0.1 s.
    expect(ms).toBeLessThan(1000);
    const here = at(machine, 'here');
    expect(await client.ask(`Z0,${here.toString(16)},4`)).toBe('OK');
    expect(await client.ask(`Z1,${here.toString(16)},4`)).toBe('OK');
    expect(await client.ask(`z0,${here.toString(16)},4`)).toBe('OK');
    expect(pcOf(await client.ask('c'))).toBe(here); // the Z1 one still stops
    expect(await client.ask(`z1,${here.toString(16)},4`)).toBe('OK');
    const store2 = at(machine, 'store2');
    expect(await client.ask(`Z1,${store2.toString(16)},4`)).toBe('OK');
    expect(pcOf(await client.ask('c'))).toBe(store2); // here no longer stops
  });
});
