// npm run build: compiles the command line into dist/ with esbuild, so that
// bin/picotpu.cjs runs JavaScript and transpiles no TypeScript at run time.
//   dist/cli.mjs           the command line (cli/main.ts)
//   dist/sweep-worker.mjs  a sweep worker thread (study/sweep/worker.ts)
//   dist/*-HASH.mjs        chunks: code the entries share, and the sub-commands'
//                          modules, which cli.ts imports only when they run
//   dist/cli.cjs           the quick commands (run, gdb, debug, eval, demo) as one
//                          CommonJS file, which bin/picotpu.cjs compiles with a V8
//                          code cache (dist/code-cache/, written by the first run of
//                          each command): no parse and no compile of what it ran before
//   dist/inputs.json       every source file in the bundle: bin/picotpu.cjs
//                          runs dist/ only while none is newer than the build; and
//                          the quick commands with cli.cjs's hash, which names its caches
// The chunks sit beside the entries, one level below the repository root, as
// the sources do, so paths the code finds from its own location still hold.
// npm packages are bundled too (yargs, elf-tools): resolving and reading their many
// small files is most of a cold start's module loading.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

// string-width (yargs' and cliui's help layout; two versions) builds an Intl.Segmenter and
// Unicode property regular expressions when it loads: ICU's segmentation data, about 13 ms,
// and \p{RGI_Emoji} alone about 15 ms of every start, for help text that most runs never lay
// out. Each is built on its first use instead (the same segmenter, the same expressions).
function lazyStringWidth(text) {
  const eager = 'const segmenter = new Intl.Segmenter();';
  if (!text.includes(eager)) return undefined; // another version of the package: bundled as it is
  let out = text.replace(eager, 'let segmenterMade; const segmenter = { segment: (s) => (segmenterMade ??= new Intl.Segmenter()).segment(s) };');
  for (const [line, name, pattern, flags] of text.matchAll(/^const (\w+) = \/(.*\\p\{.*)\/([a-z]*);$/gm)) {
    out = out.replace(line, `let ${name}Made; const ${name}Of = () => (${name}Made ??= new RegExp(${JSON.stringify(pattern)}, ${JSON.stringify(flags)}));`);
    out = out.replace(new RegExp(`\\b${name}\\b(?!Made|Of)`, 'g'), `${name}Of()`);
  }
  return out;
}
const lazyStringWidthPlugin = {
  name: 'lazy-string-width',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, (args) => {
      const contents = lazyStringWidth(readFileSync(args.path, 'utf8'));
      return contents === undefined ? undefined : { contents, loader: 'js' };
    });
  },
};

// yargs' platform shim imports node:assert for two checks (notStrictEqual, strictEqual), and
// loading node:assert costs about 3.5 ms of every start. The checks are made here, by
// Object.is as node:assert makes them; node:assert is loaded only to throw its AssertionError
// when one fails.
function lazyAssert(text) {
  const eager = "import { notStrictEqual, strictEqual } from 'assert'";
  if (!text.includes(eager)) return undefined; // another version of the package: bundled as it is
  return text.replace(eager, [
    "import { createRequire as lazyAssertRequire } from 'node:module'",
    'const notStrictEqual = (a, b, m) => { if (Object.is(a, b)) lazyAssertRequire(import.meta.url)(\'node:assert\').notStrictEqual(a, b, m); };',
    'const strictEqual = (a, b, m) => { if (!Object.is(a, b)) lazyAssertRequire(import.meta.url)(\'node:assert\').strictEqual(a, b, m); };',
  ].join('\n'));
}
const lazyAssertPlugin = {
  name: 'lazy-assert',
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, (args) => {
      const contents = lazyAssert(readFileSync(args.path, 'utf8'));
      return contents === undefined ? undefined : { contents, loader: 'js' };
    });
  },
};

const result = await build({
  plugins: [builtinsByRequire, lazyStringWidthPlugin, lazyAssertPlugin],
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
// The quick commands, those whose start a user waits for, again as one CommonJS file: Node 20
// caches no compiled ES module, but a CommonJS file compiled through vm.Script takes a V8 code
// cache. The other commands' modules are left out of it (sweep and explore draw with vega, whose
// module awaits at its top level, which CommonJS cannot; worker loads bullmq): they run from cli.mjs.
const QUICK_COMMANDS = ['run', 'gdb', 'debug', 'eval', 'demo', 'bench'];
const commandModule = /^\.\/([a-z]+)\.ts$/;
const onlyQuickCommands = {
  name: 'only-quick-commands',
  setup(b) {
    b.onResolve({ filter: commandModule }, (args) => {
      const name = commandModule.exec(args.path)[1];
      if (args.kind !== 'dynamic-import' || !args.importer.endsWith(join('cli', 'main.ts')) || QUICK_COMMANDS.includes(name)) return undefined;
      return { path: name, namespace: 'not-quick' };
    });
    b.onLoad({ filter: /.*/, namespace: 'not-quick' }, (args) => ({ contents: `throw new Error('picotpu ${args.path} runs from dist/cli.mjs');`, loader: 'js' }));
  },
};
await build({
  plugins: [onlyQuickCommands, lazyStringWidthPlugin, lazyAssertPlugin],
  absWorkingDir: root,
  entryPoints: { cli: 'cli/main.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  entryNames: '[name]',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // A module's own location, and resolution from it, as the ES build's import.meta gives them.
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href; const __importMetaResolve = (s) => require('node:url').pathToFileURL(require.resolve(s)).href;" },
  define: { 'process.env.PICOTPU_COMPILED': '"1"', 'import.meta.url': '__importMetaUrl', 'import.meta.resolve': '__importMetaResolve' },
  external: ['bullmq', 'ioredis'],
  logLevel: 'warning',
});
// In ASCII only (a few comments and a regular expression carry other characters, written as
// \\u escapes, which mean the same there), so that bin/picotpu.cjs reads it as Latin-1: a
// one-byte string, without decoding UTF-8.
const quickFile = join(outdir, 'cli.cjs');
const quickSource = readFileSync(quickFile, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
writeFileSync(quickFile, quickSource);
const quickHash = createHash('sha256').update(quickSource).digest('hex').slice(0, 16);

// The bundled packages are as package-lock.json says; the bundle is as this script makes it.
const sources = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/') && !f.includes(':'));
const inputs = [...sources, 'package-lock.json', 'scripts/build.mjs'].sort();
const quick = { commands: QUICK_COMMANDS, hash: quickHash };
writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ inputs, quick }, null, 1)}\n`);
rmSync(dist, { recursive: true, force: true });
renameSync(outdir, dist);
console.log(`npm run build: dist/ from ${sources.length} source files`);
