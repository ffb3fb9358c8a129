// A Machine (emu/machine.ts) with its board chosen by name or alias
// (boards/registry.ts), picotpu when none is given: what the command line,
// the study, the playground and the tests build. A program that does not fit
// the board is refused with the board it looks made for.

import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { ElfError, parseElf, type LoadedElf } from '../emu/elf.ts';
import { Machine as BoardMachine, type MachineOptions as CoreMachineOptions, type RunResult } from '../emu/machine.ts';
import { BoardError, type Board } from '../emu/board.ts';
import type { Tpu } from '../periph/tpu.ts';
import { PicotpuDevices } from './picotpu/board.ts';
import { allBoards, boardNamed, DEFAULT_BOARD } from './registry.ts';
import type { SeedFigures } from './transformer-tpu-int4/report.ts';
import { TransformerTpuInt4Devices } from './transformer-tpu-int4/board.ts';
import type { SeedTpu } from './transformer-tpu-int4/tpu.ts';

export interface MachineOptions extends CoreMachineOptions {
  /** The board or its name (boards/registry.ts); picotpu when not given. */
  board?: Board | string;
}

/**
 * A run's result with the transformer-tpu-int4 board's own figures at its top (null on
 * other boards), as the tests and scripts of that board read them; tools read
 * RunResult.boardFigures through the board's interface instead.
 */
export type BoardRunResult = RunResult & { [K in keyof SeedFigures]: SeedFigures[K] | null };

export class Machine extends BoardMachine {
  constructor(config: PlatformConfig = defaultConfig(), options: MachineOptions = {}) {
    const board = typeof options.board === 'string' ? boardNamed(options.board) : options.board ?? DEFAULT_BOARD;
    super(config, { ...options, board });
  }

  /** picotpu's TPU (periph/tpu.ts); a usage error on another board. */
  get tpu(): Tpu {
    if (!(this.devices instanceof PicotpuDevices)) throw new BoardError(`the ${this.board.name} board has no picotpu TPU`);
    return this.devices.tpu;
  }

  /** The transformer-tpu-int4 board's TPU, or null on another board. */
  get seed(): SeedTpu | null {
    return this.devices instanceof TransformerTpuInt4Devices ? this.devices.tpu : null;
  }

  override run(maxCycles?: number): BoardRunResult {
    return withFigures(super.run(maxCycles));
  }

  override loadElf(bytes: Uint8Array): LoadedElf {
    try {
      return super.loadElf(bytes);
    } catch (e) {
      if (!(e instanceof ElfError)) throw e;
      const fits = boardFitting(bytes, this.config);
      throw new ElfError(fits && fits !== this.board ? `${e.message}; it looks made for the ${fits.name} board (--board ${fits.aliases[0] ?? fits.name})` : e.message);
    }
  }
}

/** A result with the board's own figures at its top, as the tests and tools of one board read them. */
export function withFigures(r: RunResult): BoardRunResult {
  const x = (r.boardFigures ?? {}) as Partial<SeedFigures>;
  return { ...r, seedCounters: x.seedCounters ?? null, aliases: x.aliases ?? null, doneValue: x.doneValue ?? null, hazards: x.hazards ?? null };
}

/** The first board (registry order) that would load this ELF, or null. */
export function boardFitting(bytes: Uint8Array, config: PlatformConfig = defaultConfig()): Board | null {
  let elf: LoadedElf;
  try {
    elf = parseElf(bytes);
  } catch {
    return null;
  }
  for (const board of allBoards()) {
    try {
      if (new BoardMachine(config, { board }).misfit(elf) === null) return board;
    } catch {
      // A board that cannot be built with this configuration does not fit either.
    }
  }
  return null;
}
