// Counts the issue-cost terms of model/predict/issue-cost.ts on the emulator's trace:
// runs mmbench.elf (and the tiled kernel of its -mxu16 and -spad32 builds) on a calibration shape per code class with the TPU's
// command records, the PERF_CTRL writes and the DONE reads logged, aligns the
// model's PUSH sequence with the trace's, and for each code path takes the
// fewest clocks seen from the previous PUSH where the CPU did not poll
// (issue), from the previous PUSH to the first DONE read (firstRead) and from
// the read that sees the awaited command done to the PUSH (afterRead).
// Writes model/predict/calibration/issue-terms.jsonl and issue-accesses.jsonl (re-run it whenever the kernels change):
//   make -C firmware-c -j2 && npx tsx scripts/calibrate-issue.ts

import { runMatmulOnEmulator } from '../model/run.ts';
import { codeClass, KernelCpu, matmulProgram, matmulProgramKind } from '../model/predict/issue-cost.ts';
import { VARIANT } from '../model/format.ts';
import type { MatmulShape } from '../model/predict/analytic.ts';
import type { CommandRecord } from '../periph/tpu.ts';
import { defaultConfig, type PlatformConfig } from '../emu/config.ts';
import { MXU16_ELFS, SPAD32_ELFS } from '../study/sweep/runs.ts';
import { completeAccesses, writeAccesses } from './issue-accesses.ts';
import { writeCalibration } from '../model/predict/calibration.ts';

const CLASSES = [0, 1, 8, 9, 16, 17, 24, 25];
/** Calibration shapes (the 1x8x8 one: the shortest commands, so that the CPU's own path shows where every other shape waits): several row groups and tiles, or one group (K = 64, and K = 8: the shortest commands, so that waits bind least), and one with two A blocks (K = 512: 128-row blocks). */
const SHAPES: Record<string, MatmulShape[]> = {
  tiled: [{ m: 1, k: 8, n: 8 }, { m: 24, k: 64, n: 40 }, { m: 24, k: 8, n: 40 }, { m: 8, k: 8, n: 40 }, { m: 136, k: 512, n: 16 }, { m: 136, k: 512, n: 24 }, { m: 264, k: 256, n: 8 }],
  // Panels: partial and full chunks, more chunks than ring buffers (K = 512: one tile each).
  panel: [{ m: 1, k: 8, n: 8 }, { m: 4, k: 64, n: 136 }, { m: 8, k: 8, n: 40 }, { m: 8, k: 512, n: 128 }, { m: 8, k: 8, n: 512 }],
  // Streams: one and several row groups, with one and several chunks, more chunks than ring buffers.
  stream: [{ m: 1, k: 8, n: 8 }, { m: 8, k: 512, n: 96 }, { m: 8, k: 64, n: 136 }, { m: 24, k: 64, n: 136 }, { m: 16, k: 8, n: 64 }, { m: 16, k: 512, n: 96 }, { m: 8, k: 8, n: 40 }],
};
/** The 16×16-MXU build's tiled shapes: as SHAPES.tiled with N (and the short Ks) multiples of 16. */
const MXU16_TILED: MatmulShape[] = [{ m: 1, k: 16, n: 16 }, { m: 24, k: 64, n: 48 }, { m: 24, k: 16, n: 48 }, { m: 16, k: 16, n: 48 }, { m: 136, k: 512, n: 32 }, { m: 136, k: 512, n: 48 }, { m: 264, k: 256, n: 16 }];
/** The builds whose terms it counts: mmbench.elf (every kernel), and the tiled kernel of the 16×16-MXU build and of the 32 KiB-scratchpad build. */
const FIRMWARES: { tag: string; elfPath?: string; config: (c: PlatformConfig) => void; shapes: Record<string, MatmulShape[]> }[] = [
  { tag: '', config: () => {}, shapes: SHAPES },
  { tag: 'mxu16:', elfPath: MXU16_ELFS.mmbench, config: (c) => { c.tpu.mxuDim = 16; }, shapes: { tiled: MXU16_TILED } },
  { tag: 'spad32:', elfPath: SPAD32_ELFS.mmbench, config: (c) => { c.tpu.spadKiB = 32; }, shapes: { tiled: SHAPES.tiled } },
];
const KIND_BIT: Record<string, number> = { tiled: 0, panel: VARIANT.PANEL, stream: VARIANT.STREAM };
const UNITS = ['DMA', 'MXU', 'VPU'];
/** tpu_regs.h TPU_UNIT_DONE: a unit's DONE register, in each unit's 0x100-byte block. */
const DONE_OFFSET = 0x24;

function trace(sh: MatmulShape, variant: number, config: PlatformConfig, elfPath?: string) {
  let records: CommandRecord[] = [];
  const perf: number[] = [], doneReads: number[] = [], accesses: number[] = [];
  runMatmulOnEmulator(sh, variant, {
    config, elfPath,
    onMachine: (m) => {
      m.tpu.records = records;
      const write = m.tpu.write.bind(m.tpu);
      m.tpu.write = (off, value, wstrb, clock) => { accesses.push(clock); if (off === 8) perf.push(clock); write(off, value, wstrb, clock); };
      const read = m.tpu.read.bind(m.tpu);
      m.tpu.read = (off, clock) => { accesses.push(clock); if (off >= 0x100 && (off & 0xff) === DONE_OFFSET) doneReads.push(clock); return read(off, clock); };
    },
  });
  records = records.slice().sort((a, b) => a.pushClock - b.pushClock);
  return { records, start: perf[0], stop: perf[1], doneReads, accesses };
}

const table: Record<string, Record<string, [number, number, number]>> = {};
/** Per class and path, the TPU-register accesses (each waits tpuWait) in the issue, firstRead and afterRead stretches of the run whose clocks the term took. */
const accessTable: Record<string, Record<string, [number, number, number]>> = {};
/** TPU-register accesses at clocks in [from, to): an access's wait comes after its clock, so it belongs to the stretch it starts. */
const accessesIn = (clocks: number[], from: number, to: number) => clocks.filter((c) => c >= from && c < to).length;
for (const fw of FIRMWARES) for (const kind of Object.keys(fw.shapes)) for (const base of CLASSES) {
  const v = base | KIND_BIT[kind], cfg = defaultConfig();
  fw.config(cfg);
  const cls = `${fw.tag}${kind === 'tiled' ? '' : kind + ':'}${codeClass(v)}`, terms: Record<string, [number, number, number]> = {};
  const acc: Record<string, number[]> = {};
  for (const sh of fw.shapes[kind]) {
    if (matmulProgramKind(sh, v) !== kind) throw new Error(`calibration shape ${sh.m}x${sh.k}x${sh.n} does not take the ${kind} kernel`);
    const t = trace(sh, v, cfg, fw.elfPath);
    const k = new KernelCpu(v, () => ({ issue: 1, firstRead: 1, afterRead: 1 }), cls, cfg);
    k.s.pollLog = [];
    matmulProgram(k, sh, v, cfg);
    if (k.paths.length !== t.records.length + 1) throw new Error(`${cls} ${sh.m}x${sh.k}x${sh.n}: model ${k.paths.length - 1} pushes, trace ${t.records.length}`);
    const byUnit = UNITS.map((u) => t.records.filter((r) => r.unit === u));
    k.paths.forEach((path, i) => {
      const at = (i < t.records.length ? t.records[i].pushClock : t.stop) - k.extras[i];
      const prevAt = i === 0 ? t.start : t.records[i - 1].pushClock;
      const prev = prevAt;
      const reads = t.doneReads.filter((r) => r > prevAt && r < at + k.extras[i]);
      const cur = terms[path] ?? [Infinity, Infinity, Infinity];
      const pushAt = i < t.records.length ? t.records[i].pushClock : t.stop;
      const a = (acc[path] ??= [-1, -1, -1]);
      // A path's access count varies a little with the units' state (k_need reads DONE only when its cached count is short): keep the count of the run the term takes.
      if ((!k.s.pollLog![i].length || !reads.length) && at - prev < cur[0]) { cur[0] = at - prev; a[0] = accessesIn(t.accesses, prev, pushAt); }
      if (k.s.pollLog![i].length && reads.length) {
        // The read that sees the last awaited command done ends the poll that binds.
        const end = Math.max(...k.s.pollLog![i].map((p) => byUnit[p.unit][p.ticket - 1].endClock));
        const seeing = reads.find((r) => r > end) ?? reads[reads.length - 1];
        // The extra work sits after the poll in the serial variant, before it in the others (KernelCpu.push).
        const first = reads[0] - prev - (k.serial ? 0 : k.extras[i]), after = at + (k.serial ? 0 : k.extras[i]) - seeing;
        if (first < cur[1]) { cur[1] = first; a[1] = accessesIn(t.accesses, prev, reads[0]); }
        if (after < cur[2]) { cur[2] = after; a[2] = accessesIn(t.accesses, seeing, pushAt); }
      }
      terms[path] = cur;
    });
  }
  // A path seen only polling: without a poll it costs its first read and the rest (a read is 7 clocks of it).
  for (const p of Object.keys(terms)) {
    const t = terms[p];
    if (t[1] === Infinity) { t[1] = t[0]; t[2] = 0; }
    if (t[0] === Infinity) t[0] = t[1] + t[2];
  }
  table[cls] = terms;
  accessTable[cls] = completeAccesses(acc);
}
writeCalibration('issue-terms', `Issue-cost terms, counted by scripts/calibrate-issue.ts on mmbench.elf's trace (shapes ${Object.values(SHAPES).flat().map((s) => `${s.m}x${s.k}x${s.n}`).join(', ')}; the mxu16: classes on mmbench-mxu16.elf, shapes ${MXU16_TILED.map((s) => `${s.m}x${s.k}x${s.n}`).join(', ')}; the spad32: classes on mmbench-spad32.elf, the tiled shapes): per code class, per path between PUSH sites, [issue, firstRead, afterRead] in CPU clocks (model/predict/issue-cost.ts).`, table);
writeAccesses('issue-accesses', 'scripts/calibrate-issue.ts on mmbench.elf', accessTable);
