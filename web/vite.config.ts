// Vite's build of the playground (npm run build:web, scripts/web.ts): web/ into
// build/web/, static files any server can host, with the bundled firmwares
// (build/fw/*.elf, made by make -C firmware-c) and the demo's model blob
// copied under fw/. Relative URLs (base './'), so the folder works anywhere.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { BUNDLED, DEMO_ELF, DEMO_MODEL } from './protocol.ts';

const web = dirname(fileURLToPath(import.meta.url));
const root = join(web, '..');
export const WEB_OUT = join(root, 'build', 'web');

/** The files the page fetches from fw/: name in the build → path in the repository. */
export const FIRMWARE_FILES: Record<string, string> = {
  ...Object.fromEntries([...Object.values(BUNDLED).flat(), DEMO_ELF].map((n) => [`${n}.elf`, join(root, 'build', 'fw', `${n}.elf`)])),
  [DEMO_MODEL]: join(root, 'models', DEMO_MODEL),
};

function firmwareAssets(): Plugin {
  return {
    name: 'picotpu-firmware',
    generateBundle() {
      for (const [name, path] of Object.entries(FIRMWARE_FILES)) {
        this.emitFile({ type: 'asset', fileName: `fw/${name}`, source: readFileSync(path) });
      }
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
