// Vite's build of the playground (npm run build:web, scripts/web.ts): web/ into
// build/web/, static files any server can host, with the bundled firmwares
// (build/fw/*.elf, made by make -C firmware-c) and the demo's model blob
// copied under fw/, and the study's sweep records the charts are drawn from
// (study/records.json). Relative URLs (base './'), so the folder works anywhere.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { fingerprint, readRecords } from '../study/sweep/engine.ts';
import { findExperiment } from '../study/sweep/experiments.ts';
import type { RunRecord } from '../study/sweep/runs.ts';
import { BUNDLED, CHART_EXPERIMENTS, DEMO_ELFS, DEMO_MODEL, STUDY_RECORDS } from './protocol.ts';

const web = dirname(fileURLToPath(import.meta.url));
const root = join(web, '..');
export const WEB_OUT = join(root, 'build', 'web');

/** The files the page fetches from fw/: name in the build → path in the repository. */
export const FIRMWARE_FILES: Record<string, string> = {
  ...Object.fromEntries([...Object.values(BUNDLED).flat(), ...Object.values(DEMO_ELFS)].map((n) => [`${n}.elf`, join(root, 'build', 'fw', `${n}.elf`)])),
  [DEMO_MODEL]: join(root, 'models', DEMO_MODEL),
};

/**
 * The study's records the page's charts are drawn from: each charted
 * experiment's full-scale records in build/sweep/<name>.jsonl made by this
 * firmware (`picotpu sweep <name>`), or null where some are missing.
 */
export function studyRecords(): Record<string, RunRecord[] | null> {
  const fp = fingerprint();
  return Object.fromEntries(CHART_EXPERIMENTS.map((name) => {
    const plan = findExperiment(name)!.plan('full');
    const have = readRecords(join(root, 'build', 'sweep', `${name}.jsonl`), fp);
    return [name, plan.every((p) => have.has(p.key)) ? plan.map((p) => have.get(p.key)!) : null];
  }));
}

function firmwareAssets(): Plugin {
  return {
    name: 'picotpu-firmware',
    generateBundle() {
      for (const [name, path] of Object.entries(FIRMWARE_FILES)) {
        this.emitFile({ type: 'asset', fileName: `fw/${name}`, source: readFileSync(path) });
      }
      this.emitFile({ type: 'asset', fileName: STUDY_RECORDS, source: JSON.stringify(studyRecords()) });
    },
  };
}

export default defineConfig({
  root: web,
  base: './',
  logLevel: 'warn',
  plugins: [firmwareAssets()],
  worker: { format: 'es' },
  build: { outDir: WEB_OUT, emptyOutDir: true, target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 2000 },
});
