#!/usr/bin/env node
// The picotpu command. Runs the compiled command line (dist/, `npm run build`)
// when it is up to date: no source file it was built from (dist/inputs.json)
// is newer than dist/cli.mjs. Otherwise, or with PICOTPU_FROM_SOURCE=1, it
// runs the TypeScript sources through tsx's loader, so a checkout that was
// never built, or was edited since, still runs what its sources say.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = new URL('../dist/cli.mjs', import.meta.url);

function builtAndFresh() {
  if (process.env.PICOTPU_FROM_SOURCE === '1') return false;
  try {
    const built = statSync(compiled).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(new URL('../dist/inputs.json', import.meta.url), 'utf8'));
    return inputs.every((f) => statSync(root + f).mtimeMs <= built);
  } catch {
    return false; // not built, or a source file is gone
  }
}

let main;
if (builtAndFresh()) {
  ({ main } = await import(compiled));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
