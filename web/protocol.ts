// The messages between the playground's page (web/main.ts) and the worker
// that runs the emulator (web/worker.ts).

/** The boards the page offers (boards/registry.ts names), the default first. */
export const BOARDS = ['picotpu', 'transformer-tpu-int4'] as const;
export type BoardName = (typeof BOARDS)[number];
/** Each board's bundled programs (build/fw/<name>.elf), in the build under fw/; the first loads when the board is chosen. */
export const BUNDLED: Record<BoardName, readonly string[]> = {
  picotpu: ['fib', 'hello', 'tpubench'],
  'transformer-tpu-int4': ['seed/dma_roundtrip', 'seed/long_dma', 'seed/done'],
};
/** The sweep experiments the page charts (study/sweep/charts.ts), and the file of their records in the build. */
export const CHART_EXPERIMENTS = ['ladder', 'roofline', 'prefill-decode'] as const;
export const STUDY_RECORDS = 'study/records.json';
/** The demo's kernel variants, the write-up's ladder (model/format.ts VARIANT bits; `picotpu demo --variant N`). */
export const DEMO_VARIANTS: readonly { name: string; variant: number }[] = [
  { name: 'base', variant: 0 }, { name: 'double-buffered', variant: 1 }, { name: 'fused', variant: 3 },
  { name: 'FlashAttention', variant: 7 }, { name: 'best', variant: 4095 },
];
/** The demo's program and model blob, in the build under fw/. */
export const DEMO_ELF = 'model';
/** Each board's demo program (model/targets.ts MODEL_TARGETS), in the build under fw/. */
export const DEMO_ELFS: Record<BoardName, string> = { picotpu: DEMO_ELF, 'transformer-tpu-int4': 'seed-model' };
/** The variants a board's demo firmware has (the seed's acts on the first three bits: its best is FlashAttention, 7). */
export const demoVariantsOf = (board: BoardName) => (board === 'picotpu' ? DEMO_VARIANTS : DEMO_VARIANTS.filter((v) => v.variant <= 7));
export const DEMO_MODEL = 'adder.ptm';
/** The blob's name as the demo's report shows it (the CLI's default path). */
export const DEMO_MODEL_SHOWN = 'models/adder.ptm';

export type ToWorker =
  | { type: 'load'; name: string; bytes: ArrayBuffer; board: BoardName; /** Run it once loaded (the editor's Build and run). */ run?: boolean }
  | { type: 'demo'; problem: string; variant: number; board: BoardName; elf: ArrayBuffer; model: ArrayBuffer }
  | { type: 'run' }
  | { type: 'pause' }
  | { type: 'step' }
  | { type: 'next' }
  | { type: 'break'; addr: number }
  | { type: 'disas'; addr: number | null }
  | { type: 'memory'; addr: number };

/** One line of the disassembly around the pc. */
export interface DisasLine { addr: number; text: string; pc: boolean; breakpoint: boolean }

/** Busy clocks of each unit over one sample of the run, and the CPU's function at its end. */
export interface Sample {
  clock: number; clocks: number; mxu: number; vpu: number; dma: number; fn: string;
  /** A PERF_CTRL window that closed within this sample: its label and its exact clocks (its end is known to the sample, not the clock). */
  window?: { label: string; cycles: number };
}

export interface Snapshot {
  program: string;
  /** 'loaded', 'running', 'paused', 'stopped' (at a breakpoint or a step) or 'ended'. */
  state: string;
  /** Why it stopped, one line. */
  note: string;
  clock: number;
  instret: number;
  pc: number;
  fn: string;
  registers: string[];
  disassembly: DisasLine[];
  units: string[];
  /** The performance report (docs/hardware.md §5.9) of each closed PERF_CTRL window, labelled, and of the whole run (web/worker.ts reportText). */
  report: string;
  console: string;
  memory: string[];
  /** The demo's phase by its closed PERF_CTRL windows ('prefill', 'decode', 'done'), or '' for another program. */
  demoPhase: string;
  /** The program's functions, by address (for the disassembly's chooser). */
  functions: { name: string; addr: number }[];
}

/** The demo's figures, for the page's report and the test's comparison with the CLI. */
export interface DemoFigures {
  problem: string;
  variant: number;
  sum: string | null;
  correct: boolean;
  clocks: number;
  instret: number;
  prefill: unknown;
  decode: unknown;
  total: unknown;
  /** Host milliseconds from the run's first slice to its end, in the worker. */
  wallMs: number;
  clocksPerSecond: number;
}

export type FromWorker =
  | { type: 'state'; snapshot: Snapshot }
  | { type: 'samples'; samples: Sample[]; reset: boolean }
  | { type: 'demo'; text: string; figures: DemoFigures }
  | { type: 'error'; message: string };
