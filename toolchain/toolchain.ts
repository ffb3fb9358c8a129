// Access to the RISC-V cross toolchain from TypeScript: the target flags of
// target.mk, tool names, assembling test snippets, building the firmware.
import type * as ChildProcess from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** node:child_process when a tool first runs: loading it (with net and dgram) at import would cost every CLI start. */
const childProcess = (): typeof ChildProcess => process.getBuiltinModule('node:child_process') as typeof ChildProcess;

// From the repository root, one level up: true of this file and of the compiled bundle (dist/).
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolchainDir = join(repoRoot, 'toolchain');

let target: Record<string, string> | undefined;

/** The `NAME := value` lines of toolchain/target.mk (the one home of the flags). */
export function readTarget(): Record<string, string> {
  if (!target) {
    const vars: Record<string, string> = {};
    const text = readFileSync(join(toolchainDir, 'target.mk'), 'utf8');
    for (const line of text.split('\n')) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*:=\s*(.*?)\s*$/.exec(line);
      if (m?.[1] !== undefined) vars[m[1]] = m[2] ?? '';
    }
    target = vars;
  }
  return { ...target };
}

function targetVar(name: string): string {
  const value = readTarget()[name];
  if (value === undefined) throw new Error(`toolchain/target.mk does not define ${name}`);
  return value;
}

/** The cross tool's command name: tool('gcc') -> 'riscv64-unknown-elf-gcc'. */
export function tool(name: string): string {
  return targetVar('CROSS') + name;
}

let present: boolean | undefined;

/** Whether gcc, objdump and objcopy run; lets tests skip rather than fail. */
export function hasToolchain(): boolean {
  if (present === undefined) {
    try {
      for (const t of ['gcc', 'objdump', 'objcopy']) {
        childProcess().execFileSync(tool(t), ['--version'], { stdio: 'ignore' });
      }
      present = true;
    } catch {
      present = false;
    }
  }
  return present;
}

/** The value of -march=... (or -mabi=...) in ARCH_FLAGS. */
function archFlag(flag: 'march' | 'mabi'): string {
  const m = new RegExp(`-${flag}=(\\S+)`).exec(targetVar('ARCH_FLAGS'));
  if (m?.[1] === undefined) throw new Error(`ARCH_FLAGS in target.mk has no -${flag}`);
  return m[1];
}

// Everything in link order from linkAt, plus .sram at the SRAM window so a
// snippet can carry SRAM data. No ENTRY: ld then takes the start of .text,
// i.e. linkAt, as the entry point.
function snippetLinkerScript(linkAt: number): string {
  return `SECTIONS
{
  . = 0x${linkAt.toString(16)};
  .text : { *(.text.init) *(.text .text.*) }
  .rodata : { *(.rodata .rodata.* .srodata .srodata.*) }
  .data : { *(.data .data.* .sdata .sdata.*) }
  .bss : { *(.sbss .sbss.* .bss .bss.* COMMON) }
  .sram 0x40000000 : { *(.sram .sram.*) }
}
`;
}

export interface AssembleOptions {
  /** -march for the assembler; default: target.mk's, plus _zicsr. */
  march?: string;
  /** Address of .text (and the entry point); default 0. */
  linkAt?: number;
}

/**
 * Assembles and links an assembly snippet (run through the C preprocessor,
 * with firmware-c/runtime on the include path for platform.h) and returns
 * the ELF file. Throws with the assembler's messages on error.
 */
export function assemble(src: string, opts: AssembleOptions = {}): Uint8Array {
  const linkAt = opts.linkAt ?? 0;
  if (!Number.isInteger(linkAt) || linkAt < 0 || linkAt > 0xffffffff || linkAt % 4 !== 0) {
    throw new Error(`assemble: linkAt must be a 4-byte aligned 32-bit address, got ${linkAt}`);
  }
  // Zicsr so that tests can write rdcycle/csrrs mnemonics on any binutils;
  // only the firmware's libraries depend on the exact -march (multilib).
  const march = opts.march ?? `${archFlag('march')}_zicsr`;

  const dir = mkdtempSync(join(tmpdir(), 'picotpu-as-'));
  try {
    const source = join(dir, 'snippet.S');
    const script = join(dir, 'snippet.ld');
    const elf = join(dir, 'snippet.elf');
    writeFileSync(source, src.endsWith('\n') ? src : `${src}\n`);
    writeFileSync(script, snippetLinkerScript(linkAt));
    const args = [
      `-march=${march}`,
      `-mabi=${archFlag('mabi')}`,
      '-nostdlib',
      '-I', join(repoRoot, 'firmware-c', 'runtime'),
      '-T', script,
      // No relaxation: a call stays auipc+jalr, so a snippet's instructions
      // (and clock counts) are exactly the ones written.
      '-Wl,--no-relax',
      '-Wl,--no-warn-rwx-segments',
      // No page alignment, so the ELF headers never land in a loaded segment
      // (below linkAt) and each segment starts at its first section.
      '-Wl,--nmagic',
      source,
      '-o', elf,
    ];
    try {
      childProcess().execFileSync(tool('gcc'), args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    } catch (e) {
      throw new Error(`assemble failed:\n${commandOutput(e)}`);
    }
    return new Uint8Array(readFileSync(elf));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Builds every firmware example into build/fw (make -C firmware-c, silent;
 * incremental, so cheap when up to date). Returns that directory. Not safe
 * to run from several processes at once: call it from one place, e.g. a
 * vitest globalSetup.
 */
export function buildFirmware(): string {
  try {
    childProcess().execFileSync('make', ['-s', '-C', join(repoRoot, 'firmware-c')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (e) {
    throw new Error(`make -C firmware-c failed:\n${commandOutput(e)}`);
  }
  return join(repoRoot, 'build', 'fw');
}

/** stdout and stderr of a failed execFileSync, or its message. */
function commandOutput(e: unknown): string {
  const err = e as { stdout?: unknown; stderr?: unknown; message?: unknown };
  const out = `${typeof err.stdout === 'string' ? err.stdout : ''}${typeof err.stderr === 'string' ? err.stderr : ''}`;
  return out || String(err.message ?? e);
}
