// `picotpu run --trace FILE`: an instruction log in the manner of Spike's
// commit log, one line per executed instruction, streamed to FILE.
//
// Format (one header line starting with '#', then one line per instruction;
// from build/fw/hello.elf):
//
//   #    CLOCK 0xPC       (0xWORD)     INSTRUCTION                       REG <- 0xVALUE
//           32 0x00000030 (0x014000ef) jal 44 <main>                     ra <- 0x00000034
//           35 0x00000044 (0xff010113) add sp,sp,-16                     sp <- 0x0000fff0
//           41 0x0000004c (0x00112623) sw ra,12(sp)
//
//   CLOCK        decimal clock at which PicoRV32 launches the instruction (clocks
//                since reset release, as RunResult.clocks counts them; the first
//                instruction's is FIRST_LAUNCH_CLOCK, emu/timing.ts), right-aligned
//                in 10 columns; the next line's CLOCK minus this one is what the
//                instruction cost, wait clocks included
//   0xPC         its address, 8 hex digits
//   (0xWORD)     the instruction word, 8 hex digits; (----------) when the pc
//                cannot be fetched (misaligned, outside the BRAM)
//   INSTRUCTION  its disassembly as objdump -d prints it (emu/disasm.ts), with
//                one space between mnemonic and operands and branch and jump
//                targets named from the ELF's symbols: `jal 64 <puts>`
//   REG <- 0xV   present when the instruction writes a register other than
//                zero: its ABI name and the new value (also when the value is
//                unchanged); separated from the instruction by 2+ spaces
//   !! TEXT      ends the line of the instruction that trapped (TEXT as in the
//                stop message, e.g. `!! ebreak`); it did not retire and wrote no
//                register, except a jump or taken branch to a misaligned target
//                (`!! misaligned instruction fetch`): that one retires, a jump
//                writes its link register (shown), and the stop message names
//                the target as the pc, as on the RTL
//
// The last line of a run that stopped by EXIT is the store to EXIT. With
// --trace-limit N (default 1,000,000; shared with --vcd and --timeline) at most
// N instruction lines are written; if the run executes more, one final line
// `# trace truncated after N instructions ...` follows and tracing stops while
// the run goes on (still stepped, so no faster). A run interrupted by a signal
// ends with `# trace interrupted at clock N (SIGINT): the run stopped there`.
// Lines are buffered and written in 64 KiB chunks, never held whole in memory;
// the file is put in place when the run ends (emu/observe/output-file.ts).

import { ConfigError } from '../config.ts';
import { StopReason, TRAP_TEXT } from '../cpu.ts';
import { disassemble, objdumpNamer, type SymbolNamer } from '../disasm.ts';
import { ABI_NAMES, expandCompressed, INSNS, matchInsn, rdOf } from '../isa.ts';
import type { Machine, RunResult } from '../machine.ts';
import type { RunObserver } from './observer.ts';
import type { StepInfo } from '../stepper.ts';
import { OutputFile } from './output-file.ts';
/** Columns before the instruction: `     CLOCK 0xPC (0xWORD) `. */
const PREFIX_WIDTH = 10 + 1 + 10 + 1 + 12 + 1;
/** The instruction is padded to this width when a register write follows. */
const INSN_WIDTH = 32;

/** The first line of every trace: the column names. */
export const TRACE_HEADER = `#${'CLOCK'.padStart(9)} ${'0xPC'.padEnd(10)} ${'(0xWORD)'.padEnd(12)} ${'INSTRUCTION'.padEnd(INSN_WIDTH)}  REG <- 0xVALUE`;

const hex8 = (v: number) => (v >>> 0).toString(16).padStart(8, '0');

/** Writes the trace of a run to a file; push it into runObserved's observers. */
export class TraceWriter implements RunObserver {
  private readonly file: OutputFile;
  private readonly limit: number;
  private readonly namer: SymbolNamer;
  private lines = 0;
  private done = false;
  // Per instruction slot of the RAM (a word; a halfword with COMPRESSED_ISA): the word
  // last disassembled there (code can change) and its text.
  private readonly cachedWord: Int32Array;
  private readonly cachedText: (string | undefined)[];
  /** Register each cached word writes (0 for none). */
  private readonly cachedRd: Uint8Array;
  /** 1 with COMPRESSED_ISA (instructions on halfwords), else 2. */
  private readonly slotShift: number;
  private readonly ramSize: number;

  /** At most `limit` instruction lines (a positive integer, or Infinity). */
  constructor(readonly path: string, machine: Machine, limit = 1_000_000) {
    if (!(Number.isSafeInteger(limit) || limit === Number.POSITIVE_INFINITY) || limit < 1) {
      throw new ConfigError(`--trace-limit must be a positive integer, got ${limit}`);
    }
    this.limit = limit;
    this.namer = objdumpNamer(machine.symbols.all);
    this.slotShift = machine.cpu.compressed ? 1 : 2;
    this.ramSize = machine.cpu.ramSize;
    const slots = this.ramSize >>> this.slotShift;
    this.cachedWord = new Int32Array(slots);
    this.cachedText = new Array(slots);
    this.cachedRd = new Uint8Array(slots);
    this.file = new OutputFile(path, '--trace');
    this.push(`${TRACE_HEADER}\n`);
  }

  step(info: StepInfo, machine: Machine): void {
    if (this.done) return;
    if (this.lines >= this.limit) {
      this.push(`# trace truncated after ${this.lines} instructions (--trace-limit ${this.lines}); the run went on untraced\n`);
      this.done = true;
      this.file.flush();
      return;
    }
    this.lines++;
    const cpu = machine.cpu;
    const pc = info.pc;
    const clock = String(info.clockBefore).padStart(10);
    const trapped = cpu.stopReason === StopReason.TRAP || cpu.stopReason === StopReason.BUS_ERROR;
    let line: string;
    const rvc = this.slotShift === 1;
    if ((pc & (rvc ? 1 : 3)) !== 0 || pc >>> 0 >= this.ramSize) {
      line = `${clock} 0x${hex8(pc)} (----------) -`;
    } else {
      const k = pc >>> this.slotShift;
      const short = rvc && info.length === 2;
      const word = short ? info.word & 0xffff : info.word | 0;
      let text = this.cachedText[k];
      if (text === undefined || this.cachedWord[k] !== word) {
        text = disassemble(word, pc, this.namer, rvc).replace('\t', ' ');
        this.cachedText[k] = text;
        this.cachedWord[k] = word;
        const full = short ? expandCompressed(word) : word;
        this.cachedRd[k] = full === -1 ? 0 : writtenRegister(full);
      }
      // A compressed instruction shows its 16 bits, as objdump -d does.
      line = `${clock} 0x${hex8(pc)} ${short ? `(0x${word.toString(16).padStart(4, '0')})    ` : `(0x${hex8(word)})`} ${text}`;
      const rd = this.cachedRd[k];
      // A jump to a misaligned target retires (pc has moved to the target) and links before the trap.
      if (rd !== 0 && (!trapped || cpu.pc !== pc)) {
        line = `${line.padEnd(PREFIX_WIDTH + INSN_WIDTH)}  ${ABI_NAMES[rd]} <- 0x${hex8(cpu.regs[rd])}`;
      }
    }
    if (trapped) line += `   !! ${TRAP_TEXT[cpu.trapKind]}`;
    this.push(`${line}\n`);
  }

  finish(result: RunResult, _machine: Machine): void {
    if (result.reason === 'interrupted') {
      this.push(`# trace interrupted at clock ${result.clocks} (${result.signal}): the run stopped there\n`);
    }
    this.close();
  }

  /** Flushes, closes and puts the file in place (idempotent). */
  close(): void {
    this.file.commit();
  }

  private push(s: string): void {
    this.file.write(s);
  }
}

/** The register an instruction word writes on retiring (0 for none or x0). */
function writtenRegister(word: number): number {
  const k = matchInsn(word);
  if (k < 0) return 0;
  switch (INSNS[k].format) {
    case 'R': case 'I': case 'U': case 'J': case 'SHIFTI': case 'CSR': return rdOf(word);
    default: return 0;
  }
}
