#!/usr/bin/env node
// The picotpu command. Runs the compiled command line (dist/, `npm run build`)
// when it is up to date: no source file it was built from (dist/inputs.json)
// is newer than dist/cli.mjs. Otherwise, or with PICOTPU_FROM_SOURCE=1, it
// runs the TypeScript sources through tsx's loader, so a checkout that was
// never built, or was edited since, still runs what its sources say.
// The quick commands (run, demo, ...) run from dist/cli.cjs, compiled with the
// V8 code cache the command's first run left in dist/code-cache/: a start then
// neither parses nor compiles the code that command ran before.
// CommonJS, not an ES module: Node starts a CommonJS entry without its ES module loader,
// about 7 ms less a start (the compiled command line is CommonJS too, dist/cli.cjs).
'use strict';
const { createRequire } = require('node:module');
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const root = join(__dirname, '..');
const dist = join(root, 'dist');

/** dist/inputs.json when dist/ is built and no source is newer than the build, else undefined. */
function freshBuild() {
  if (process.env.PICOTPU_FROM_SOURCE === '1') return undefined;
  try {
    const built = statSync(join(dist, 'cli.mjs')).mtimeMs;
    const manifest = JSON.parse(readFileSync(join(dist, 'inputs.json'), 'utf8'));
    // The inputs are relative paths with '/' (esbuild's), which every platform's stat takes; a
    // concatenation, not path.join, and no exception for a missing file: about 2 ms less a start.
    const prefix = `${root}/`;
    for (const f of manifest.inputs) {
      const s = statSync(prefix + f, { throwIfNoEntry: false });
      if (s === undefined || s.mtimeMs > built) return undefined;
    }
    return manifest;
  } catch {
    return undefined; // not built, or a source file is gone
  }
}

/**
 * dist/cli.cjs's main, compiled with the code cache of this command's earlier runs. Also
 * returns a function that stores the cache when there was none or V8 refused it (another
 * Node): called after the command ran, so the cache holds what it compiled while running.
 */
function quickMain(quick, command) {
  const file = join(dist, 'cli.cjs');
  const cacheDir = join(dist, 'code-cache');
  const cacheFile = join(cacheDir, `${command}-${quick.hash}.bin`);
  const source = readFileSync(file, 'latin1'); // written in ASCII by the build
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // the command's first run
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dist);
  const storeCache = () => {
    if (cachedData && !script.cachedDataRejected) return;
    try {
      // Written beside and renamed into place: a start meanwhile reads the whole cache or none.
      mkdirSync(cacheDir, { recursive: true });
      const partial = `${cacheFile}.${process.pid}`;
      writeFileSync(partial, script.createCachedData());
      renameSync(partial, cacheFile);
    } catch {
      // a read-only checkout runs without a cache
    }
  };
  return { main: module.exports.main, storeCache };
}

/** Runs the command line's main on this process's arguments; its exit status becomes the process's. */
async function start() {
  const argv = process.argv.slice(2);
  // The commands that run a model (millions of clocks through the TPU) from a cold start: their
  // young generation grows to its full size (V8's maximum, unchanged) at its first growth instead
  // of doubling from 1 MB. The demo allocates ~17 MB while its code is still unoptimized; V8's
  // default took ten scavenges for it, this takes three, and on a loaded machine each scavenge
  // can wait on its helper threads (the demo's GC pauses, load 5-9: median ~50 ms -> ~12 ms; peak
  // RSS +11 MB). A start as small as run hello.elf's pays a few ms for the larger space, so only
  // these commands set it.
  // They also make a function earn its optimization longer (an interrupt budget of 300000 bytes of
  // bytecode run, V8's default 67584): fewer functions are compiled by TurboFan in the first tenth
  // of a second, and on a machine of few cores those compiles took the main thread's core. A cold
  // demo on 2 cores: its compiler threads' CPU ~215 -> ~145 ms, its main thread's wait for a core
  // ~45 -> ~15 ms, the whole process ~25 ms shorter (docs/performance.md, Start-up).
  // Set at run time before anything is compiled, the same for every run of a command: V8 keys its
  // code cache on its flags, and each command has its own cache.
  if (['demo', 'eval', 'bench'].includes(argv[0])) {
    require('node:v8').setFlagsFromString('--semi-space-growth-factor=16 --interrupt-budget=300000');
  }
  const built = freshBuild();
  let main, storeCache;
  if (built?.quick?.commands.includes(argv[0])) {
    ({ main, storeCache } = quickMain(built.quick, argv[0]));
  } else if (built) {
    ({ main } = await import(pathToFileURL(join(dist, 'cli.mjs')).href));
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import(pathToFileURL(join(root, 'cli', 'main.ts')).href));
  }
  process.exitCode = await main(argv);
  storeCache?.();
}

start();
