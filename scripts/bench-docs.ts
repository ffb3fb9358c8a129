// `npm run bench:docs`: runs `bench --json` on every board with model
// firmware and writes docs/data/bench-BOARD.json (study/bench-docs.ts), the
// results docs/study.md is generated from; then run `npm run gen:docs`.
// Each file is written whole (a temporary file renamed over it) or not at all.

import { renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDataPath, benchDocument, BENCH_DOC_TARGETS } from '../study/bench-docs.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function main(): number {
  for (const target of BENCH_DOC_TARGETS) {
    const path = join(root, benchDataPath(target));
    process.stderr.write(`bench-docs: ${target.board} ...\n`);
    const doc = benchDocument(target);
    const failed = (doc.experiments as { name: string; golden?: { equal: boolean } }[]).filter((e) => e.golden && !e.golden.equal);
    if (failed.length) {
      process.stderr.write(`bench-docs: not golden-exact on ${target.board}: ${failed.map((e) => e.name).join('; ')}; nothing written\n`);
      return 1;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, JSON.stringify(doc, null, 1) + '\n');
    renameSync(`${path}.tmp`, path);
    process.stdout.write(`bench-docs: wrote ${benchDataPath(target)}\n`);
  }
  return 0;
}

process.exitCode = main();
