// npm run build: compiles the command line into dist/ with esbuild, so that
// bin/picotpu.mjs runs JavaScript and transpiles no TypeScript at run time.
//   dist/cli.mjs           the command line (emu/cli.ts)
//   dist/sweep-worker.mjs  a sweep worker thread (scripts/sweep/worker.ts)
//   dist/*-HASH.mjs        chunks: code the entries share, and the sub-commands'
//                          modules, which cli.ts imports only when they run
//   dist/inputs.json       every source file in the bundle: bin/picotpu.mjs
//                          runs dist/ only while none is newer than the build
// The chunks sit beside the entries, one level below the repository root, as
// the sources do, so paths the code finds from its own location still hold.
// npm packages stay external (loaded from node_modules as usual).
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'emu/cli.ts', 'sweep-worker': 'scripts/sweep/worker.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  define: { 'process.env.PICOTPU_COMPILED': '"1"' },
  metafile: true,
  logLevel: 'warning',
});
const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/')).sort();
writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ inputs }, null, 1)}\n`);
console.log(`npm run build: dist/ from ${inputs.length} source files`);
