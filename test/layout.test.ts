// The layout (README, "Where things are"): imports go one way, bin → cli →
// study → model → boards → emu → periph (test/helpers/import-direction.ts),
// tools reach a board only through the registry and the machine, and every
// source file opens with a comment on what it is for.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHECKED_FOLDERS, checkRepository, importsOf, sourceFiles, violationsOf } from './helpers/import-direction.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('import direction', () => {
  it('finds static, type-only, re-exported and dynamic imports, and nothing else', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "export { c } from './c.ts';",
      "import './side-effect.ts';",
      "const d = await import('../d/d.ts');",
      "import yargs from 'yargs';",
      "// from './in-a-comment.ts' is not at a line start: counted as well, which errs on the safe side",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.ts', '../b.ts', './c.ts', './side-effect.ts', '../d/d.ts', './in-a-comment.ts']);
  });

  it('refuses a deliberately wrong import in each direction the layout forbids', () => {
    const wrong: [file: string, text: string, target: string][] = [
      ['periph/tpu.ts', "import type { MmioDevice } from '../emu/bus.ts';", 'emu/bus.ts'],
      ['boards/transformer-tpu-int4/tpu.ts', "import { x } from '../../model/format.ts';", 'model/format.ts'],
      ['emu/machine.ts', "import { PICOTPU } from '../boards/picotpu/board.ts';", 'boards/picotpu/board.ts'],
      ['emu/debug/format.ts', "import { BOARDS } from '../../boards/registry.ts';", 'boards/registry.ts'],
      ['periph/tpu.ts', "import { SeedTpu } from '../boards/transformer-tpu-int4/tpu.ts';", 'boards/transformer-tpu-int4/tpu.ts'],
      ['cli/run.ts', "import { seedStatusLines } from '../boards/transformer-tpu-int4/report.ts';", 'boards/transformer-tpu-int4/report.ts'],
      ['web/worker.ts', "import { PicotpuDevices } from '../boards/picotpu/board.ts';", 'boards/picotpu/board.ts'],
      ['model/tp-run.ts', "import { Boards } from '../boards/picotpu/ring.ts';", 'boards/picotpu/ring.ts'],
      ['boards/picotpu/board.ts', "import { SeedBus } from '../transformer-tpu-int4/bus.ts';", 'boards/transformer-tpu-int4/bus.ts'],
      ['emu/machine.ts', "import { Profiler } from './observe/profiler.ts';", 'emu/observe/profiler.ts'],
      ['emu/cpu.ts', "const m = await import('./debug/debugger.ts');", 'emu/debug/debugger.ts'],
      ['emu/debug/debugger.ts', "import { buildMachine } from '../../cli/board-options.ts';", 'cli/board-options.ts'],
      ['model/run.ts', "import { variantName } from '../study/bench.ts';", 'study/bench.ts'],
      ['study/bench.ts', "import { say } from '../cli/common.ts';", 'cli/common.ts'],
      ['study/sweep/runs.ts', "import { x } from '../../scripts/train.ts';", 'scripts/train.ts'],
      ['cli/main.ts', "import { rng } from '../test/helpers/rng.ts';", 'test/helpers/rng.ts'],
      ['toolchain/toolchain.ts', "import { Machine } from '../emu/machine.ts';", 'emu/machine.ts'],
    ];
    for (const [file, text, target] of wrong) {
      expect(violationsOf(file, text), `${file}: ${text}`).toEqual([{ file, imports: text.match(/'([^']+)'/)![1], target }]);
    }
  });

  it('lets each folder import its own and those below it', () => {
    const right: [string, string][] = [
      ['bin/picotpu.cjs', "await import('../cli/main.ts')"],
      ['cli/run.ts', "import { Profiler } from '../emu/observe/profiler.ts';"],
      ['cli/bench.ts', "import { runBench } from '../study/bench.ts';"],
      ['study/bench.ts', "import { predict } from '../model/predict/analytic.ts';"],
      ['model/run.ts', "import { Machine } from '../emu/machine.ts';"],
      ['emu/debug/gdb-server.ts', "import { Stepper } from '../stepper.ts';"],
      ['emu/observe/vcd.ts', "import { UNIT_NAMES } from '../../periph/counters.ts';"],
      ['emu/bus.ts', "import type { MmioDevice } from '../periph/mmio.ts';"],
      ['boards/transformer-tpu-int4/tpu.ts', "import type { MmioDevice } from '../../periph/mmio.ts';"],
      ['boards/picotpu/board.ts', "import type { Board } from '../../emu/board.ts';"],
      ['boards/registry.ts', "import { PICOTPU } from './picotpu/board.ts';"],
      ['cli/board-options.ts', "import { boardNamed } from '../boards/registry.ts';"],
      ['model/emulator-job.ts', "import { Machine } from '../boards/machine.ts';"],
      ['cli/common.ts', "import { buildFirmware } from '../toolchain/toolchain.ts';"],
    ];
    for (const [file, text] of right) expect(violationsOf(file, text), `${file}: ${text}`).toEqual([]);
  });

  it('holds in the repository', () => {
    expect(sourceFiles(root).length).toBeGreaterThan(70);
    expect(checkRepository(root)).toEqual([]);
  });
});

describe('file headers', () => {
  it('every source file opens with a comment on what it is for', () => {
    const files = sourceFiles(root, [...CHECKED_FOLDERS, 'scripts', 'test', 'web']);
    const bare = files.filter((f) => !/^(#![^\n]*\n)?\s*(\/\/|\/\*)/.test(readFileSync(join(root, f), 'utf8')));
    expect(bare).toEqual([]);
  });
});
