// Spawns `node bin/picotpu.cjs ...` asynchronously, so a test file can run a
// few at once (it.concurrent) and feed or signal them while they run.

import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const elfPath = (name: string): string => join(root, 'build', 'fw', `${name}.elf`);
export const CLI = join(root, 'bin', 'picotpu.cjs');

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

export interface CliOptions {
  /** Node options before the script (e.g. --import a preload). */
  nodeArgs?: string[];
  /** Called with the child once it is spawned (write its stdin, signal it). */
  onSpawn?: (child: ChildProcess) => void;
  /** Called with each chunk of standard output. */
  onStdout?: (chunk: Buffer, child: ChildProcess) => void;
  /** Keep at most this many bytes of standard output (the rest is counted in stdoutBytes). */
  keepStdout?: number;
  /** Standard input: 'pipe' (onSpawn writes it), 'ignore' (default: /dev/null). */
  stdin?: 'pipe' | 'ignore';
  timeoutMs?: number;
}

export function runCli(args: string[], o: CliOptions = {}): Promise<CliResult & { stdoutBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), CLI, ...args], { cwd: root, stdio: [o.stdin ?? 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let kept = 0, stdoutBytes = 0;
    let stderr = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`picotpu ${args.join(' ')}: timed out`)); }, o.timeoutMs ?? 120_000);
    child.stdout!.on('data', (c: Buffer) => {
      stdoutBytes += c.length;
      const keep = o.keepStdout ?? Number.POSITIVE_INFINITY;
      if (kept < keep) { out.push(c.subarray(0, Math.min(c.length, keep - kept))); kept += Math.min(c.length, keep - kept); }
      o.onStdout?.(c, child);
    });
    child.stderr!.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(out), stderr, stdoutBytes });
    });
    o.onSpawn?.(child);
  });
}

/** Runs `sh -c script` in the project root (for pipelines: `yes | node bin/picotpu.cjs ...`). */
export function runShell(script: string, timeoutMs = 120_000): Promise<CliResult> {
  return runShellArgs('sh', ['-c', script], timeoutMs);
}

/** Runs a program in the project root, collecting its output. */
export function runShellArgs(program: string, args: string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const script = `${program} ${args.join(' ')}`;
    const child = spawn(program, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`sh -c ${script}: timed out`)); }, timeoutMs);
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (status, signal) => { clearTimeout(timer); resolve({ status, signal, stdout: Buffer.concat(out), stderr }); });
  });
}

/** The lines of standard error, without a trailing empty one. */
export const stderrLines = (r: CliResult): string[] => r.stderr.split('\n').filter((l) => l !== '');
