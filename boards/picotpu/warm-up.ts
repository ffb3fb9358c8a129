// A short program run once per process on a scratch picotpu board, before the
// first board the user runs is built: the CPU loop's device paths meet this
// board's own bus and TPU classes (SRAM-window stores and loads, staging
// stores of every width, a DMA load, an MXU matmul with each combination of
// its flags, each VPU operation, poll loops the CPU skips, PERF_CTRL windows
// opened and closed). V8 compiles the loop with the type feedback of
// what has run, and the device code inlined into it; a path that had not run
// yet was a deoptimization point, and a model's firmware met these paths one
// after another in its first hundred thousand instructions, so a cold
// `picotpu demo` threw the loop's compiled code away and recompiled it (tens
// of milliseconds on the compiler's thread each time), as it did the units'
// functions (about ten deoptimizations in a cold demo, three after). The scratch board
// shares nothing with any other: no board's state, clock or output can depend
// on it (emu/cpu.ts warms the loop's other paths the same way).

import { Cpu, StopReason } from '../../emu/cpu.ts';
import { defaultConfig, type PlatformConfig } from '../../emu/config.ts';
import { encode, INSNS } from '../../emu/isa.ts';
import { GLOBAL, opcode, packArgs, packField, PUSH_FIELD, UNIT_REG, UNITS } from '../../periph/regs.ts';
import { SRAM_BASE } from '../../periph/sram.ts';
import { Tpu } from '../../periph/tpu.ts';
import { BRAM_SIZE, PicotpuBus, TPU_BASE } from './bus.ts';

let warm = false;
/**
 * Rounds of the program: V8 gives a function its feedback vector only after it has run a
 * while, and feedback is what the rounds are for; eight give the MXU's flags each combination.
 */
export const WARM_UP_ROUNDS = 8;
const ROUNDS = WARM_UP_ROUNDS;
/** The VPU's operations, one a round. */
const VPU_OPS = ['ADD', 'RELU', 'HARDTANH', 'CAUSAL_MASK', 'REQUANT', 'ADD32', 'COPY'];

/**
 * Runs the warm-up once per process (later calls return at once), on the default
 * configuration whatever the user's: the classes and paths are the same, and the
 * program's addresses and sizes fit it (test/warm-up.test.ts runs it).
 */
export function warmUpPicotpu(): void {
  if (warm) return;
  warm = true;
  const { cpu, tpu, stop } = runWarmUp();
  // It ends at its EBREAK with every command done and none dropped: else the program (not a board) is wrong.
  if (stop !== StopReason.TRAP || tpu.units.some((u) => u.done !== ROUNDS) || tpu.errors.length > 0) {
    throw new Error(`picotpu warm-up stopped early at pc 0x${cpu.pc.toString(16)}`);
  }
}

/**
 * The warm-up program on a scratch board of the default configuration: its CPU, its TPU and
 * how it stopped. `oneAtATime` runs it an instruction a run, which skips no poll iteration (a test's).
 */
export function runWarmUp(oneAtATime = false): { cpu: Cpu; tpu: Tpu; stop: StopReason } {
  const config = defaultConfig();
  const bus = new PicotpuBus(config.bus, BRAM_SIZE);
  const tpu = new Tpu(config, bus.sram, false, false);
  bus.tpu = tpu;
  bus.sramSharer = tpu;
  const program = warmUpProgram(config);
  const words = new DataView(bus.bram.buffer);
  for (let i = 0; i < program.length; i++) words.setInt32(4 * i, program[i], true);
  const cpu = new Cpu(bus, config.cpu);
  if (!oneAtATime) return { cpu, tpu, stop: cpu.run(10_000_000) };
  let stop = StopReason.LIMIT;
  while (stop === StopReason.LIMIT && cpu.cycle < 10_000_000) stop = cpu.run(10_000_000, 1);
  return { cpu, tpu, stop };
}

function warmUpProgram(config: PlatformConfig): number[] {
  const byName = new Map(INSNS.map((d) => [d.name, d]));
  const code: number[] = [];
  const op = (name: string, rd: number, rs1: number, rs2: number, imm: number) => code.push(encode(byName.get(name)!, rd, rs1, rs2, imm));
  const li = (rd: number, value: number) => {
    const upper = (value + 0x800) & ~0xfff;
    op('lui', rd, 0, 0, upper);
    op('addi', rd, rd, 0, value - upper);
  };
  const [dma, mxu, vpu] = UNITS.map((u) => u.base);
  // One command through a unit's staging registers and PUSH, then a poll of its DONE until it
  // reaches `done`: the CPU skips the poll's iterations its promise covers.
  const command = (base: number, args: number[], push: number, done: number) => {
    for (let i = 0; i < 5; i++) {
      li(8, args[i]);
      op('sw', 0, 5, 8, base + UNIT_REG.ARG0 + 4 * i);
    }
    op('sw', 0, 5, 0, base + UNIT_REG.ARG5);
    li(8, push);
    op('sw', 0, 5, 8, base + UNIT_REG.PUSH);
    op('addi', 11, 0, 0, done);
    op('lw', 9, 5, 0, base + UNIT_REG.DONE);
    op('bne', 0, 9, 11, -4);
    op('lw', 9, 5, 0, base + UNIT_REG.STATUS);
  };
  const push = (unit: 'DMA' | 'MXU' | 'VPU', name: string, flags = 0) =>
    (packField(PUSH_FIELD.OPCODE, opcode(unit, name)) | packField(PUSH_FIELD.FLAGS, flags)) >>> 0;
  const region = config.tpu.regionKiB * 1024, d = config.tpu.mxuDim, k = 32;
  // x5 = the TPU's registers, x6 = the SRAM window, x7 = -7 (a value of every byte lane).
  li(5, TPU_BASE);
  li(6, SRAM_BASE);
  op('addi', 7, 0, 0, -7);
  for (let r = 1; r <= ROUNDS; r++) {
    // The SRAM window: stores and loads of every width.
    for (const name of ['sw', 'sh', 'sb']) op(name, 0, 6, 7, 0);
    for (const name of ['lw', 'lh', 'lhu', 'lb', 'lbu']) op(name, 8, 6, 0, 0);
    // A PERF_CTRL window opens.
    op('addi', 8, 0, 0, 1);
    op('sw', 0, 5, 8, GLOBAL.PERF_CTRL);
    // Staging registers stored by halves and bytes (the next command stores them whole).
    op('sh', 0, 5, 7, dma + UNIT_REG.ARG4);
    op('sb', 0, 5, 7, dma + UNIT_REG.ARG4 + 3);
    // A DMA LOAD of 16 rows of 4 bytes into the scratchpad's first region.
    command(dma, packArgs('DMA', { SRAM_ADDR: 0, SPAD_ADDR: 0, ROWS: 16, ROW_BYTES: 4, SPAD_STRIDE: 4, SRAM_STRIDE: 4 }), push('DMA', 'LOAD'), r);
    // An MXU MATMUL with each combination of its flags in turn: A, B, Cin and C in regions 0-3.
    command(mxu, packArgs('MXU', {
      A_ADDR: 0, B_ADDR: region, C_ADDR: 3 * region, K: k, A_STRIDE: k / 2, B_STRIDE: k / 2, C_STRIDE: 4 * d, SHIFT: 4,
      CIN_ADDR: 2 * region, CIN_STRIDE: 4 * d,
    }), push('MXU', 'MATMUL', r % 8), r);
    // A VPU operation, each in turn: int4 or int32 operands of 16 elements a row, two rows.
    const vpuOp = VPU_OPS[r % VPU_OPS.length];
    command(vpu, packArgs('VPU', {
      A_ADDR: 0, B_ADDR: region, C_ADDR: 3 * region, ROWS: 2, A_STRIDE: 64, B_STRIDE: 64, C_STRIDE: 64, COLS: 16, PARAM: 3,
    }), push('VPU', vpuOp), r);
    // The window closes.
    op('sw', 0, 5, 0, GLOBAL.PERF_CTRL);
  }
  op('ebreak', 0, 0, 0, 0);
  return code;
}
