// npm run build: compiles the command line into dist/ with esbuild, so that
// bin/picotpu.mjs runs JavaScript and transpiles no TypeScript at run time.
//   dist/cli.mjs           the command line (cli/main.ts)
//   dist/sweep-worker.mjs  a sweep worker thread (study/sweep/worker.ts)
//   dist/*-HASH.mjs        chunks: code the entries share, and the sub-commands'
//                          modules, which cli.ts imports only when they run
//   dist/inputs.json       every source file in the bundle: bin/picotpu.mjs
//                          runs dist/ only while none is newer than the build
// The chunks sit beside the entries, one level below the repository root, as
// the sources do, so paths the code finds from its own location still hold.
// npm packages are bundled too (yargs, elf-tools): resolving and reading their many
// small files is most of a cold start's module loading.
import { build } from 'esbuild';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Built beside dist/ and renamed into place, so a CLI started meanwhile finds the old
// build, or none (and runs the sources), never half of one.
const outdir = join(root, `dist.tmp-${process.pid}`);

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
// Node's built-ins through require(), not import: an ESM import of node:fs builds its
// ESM facade, which reads every export and so loads all of node:stream (~30 ms a start).
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!isBuiltin(name) || args.namespace === 'builtin') return undefined;
      return { path: name, namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require('node:${args.path}');`, loader: 'js' }));
  },
};

// string-width (yargs' and cliui's help layout) builds an Intl.Segmenter when it loads: ICU's
// segmentation data, about 13 ms of every start, for help text that most runs never lay out.
// Built on its first use instead (the same segmenter, the same widths).
const lazySegmenter = {
  name: 'lazy-segmenter',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(args.path, 'utf8');
      const eager = 'const segmenter = new Intl.Segmenter();';
      if (!text.includes(eager)) return undefined;
      const lazy = 'let segmenterMade; const segmenter = { segment: (s) => (segmenterMade ??= new Intl.Segmenter()).segment(s) };';
      return { contents: text.replace(eager, lazy), loader: 'js' };
    });
  },
};

const result = await build({
  plugins: [builtinsByRequire, lazySegmenter],
  absWorkingDir: root,
  entryPoints: { cli: 'cli/main.ts', 'sweep-worker': 'study/sweep/worker.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled CommonJS packages (elf-tools) require Node's built-ins: give each module a require.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  define: { 'process.env.PICOTPU_COMPILED': '"1"' },
  // The queue's packages load from node_modules when `explore --queue` or `worker` runs (bullmq loads its Lua
  // scripts and optional native codecs from its own folder).
  external: ['bullmq', 'ioredis'],
  metafile: true,
  logLevel: 'warning',
});
// The bundled packages are as package-lock.json says; the bundle is as this script makes it.
const sources = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/') && !f.includes(':'));
const inputs = [...sources, 'package-lock.json', 'scripts/build.mjs'].sort();
writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ inputs }, null, 1)}\n`);
rmSync(dist, { recursive: true, force: true });
renameSync(outdir, dist);
console.log(`npm run build: dist/ from ${sources.length} source files`);
