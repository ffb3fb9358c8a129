// The direction imports may take between the source folders (README, "Where
// things are"): bin → cli → study → model → boards → emu → periph. A file may
// import from its own folder and from those to its right, never to its left;
// inside emu/, the machine never imports its debug and observe wings. Above
// boards/, a file reaches a board only through the registry and the machine
// (boards/registry.ts, boards/machine.ts), never a board's folder; a board's
// folder imports no other board's. toolchain/ is a leaf anything may use;
// scripts/ and test/ are entry points outside the order.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

/** Each folder's place: a file may import a folder of the same or a lower rank. */
const RANKS: [prefix: string, rank: number][] = [
  ['bin/', 60],
  ['cli/', 50],
  ['study/', 40],
  ['model/', 30],
  ['boards/', 27],
  ['emu/debug/', 25],
  ['emu/observe/', 25],
  ['emu/', 20],
  ['periph/', 10],
  ['toolchain/', 0],
];

/** The folders whose files the check reads (scripts/ and test/ may import anything). */
export const CHECKED_FOLDERS = RANKS.map(([p]) => p.split('/')[0]).filter((f, i, all) => all.indexOf(f) === i);

function rankOf(path: string): number | null {
  for (const [prefix, rank] of RANKS) if (path.startsWith(prefix)) return rank;
  return null;
}

/** The relative module specifiers a source text imports or re-exports (static and dynamic). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[2]);
  return out;
}

export interface ImportViolation { file: string; imports: string; target: string }

/** The imports of `file` (a repository path) with text `text` that go against the direction. */
export function violationsOf(file: string, text: string): ImportViolation[] {
  const from = rankOf(file);
  // The playground (web/) is an entry point outside the order, but a tool: it too reaches boards only through their interface.
  const tool = file.startsWith('web/');
  if (from === null && !tool) return [];
  const out: ImportViolation[] = [];
  for (const spec of importsOf(text)) {
    const target = posix.normalize(posix.join(posix.dirname(file), spec));
    const to = rankOf(target);
    // Outside every checked folder (scripts/, test/) is as wrong as a higher rank.
    const wrongRank = from !== null && (to === null || to > from);
    if (wrongRank || !throughBoardInterface(file, target)) out.push({ file, imports: spec, target });
  }
  return out;
}

/** What a file outside boards/ may import of boards/: the registry and the machine (every board's interface). */
export const BOARD_INTERFACE = ['boards/registry.ts', 'boards/machine.ts'];

/** The board a path lies in (boards/NAME/...), or null. */
function boardFolderOf(path: string): string | null {
  const m = /^boards\/([^/]+)\//.exec(path);
  return m ? m[1] : null;
}

/**
 * Tools reach a board only through its interface: outside boards/, an import
 * of boards/ must be the registry or the machine; inside, a board's folder
 * never imports another board's (the registry and the machine may import every board).
 */
function throughBoardInterface(file: string, target: string): boolean {
  if (!target.startsWith('boards/')) return true;
  if (!file.startsWith('boards/')) return BOARD_INTERFACE.includes(target);
  const from = boardFolderOf(file), to = boardFolderOf(target);
  return from === null || to === null || from === to;
}

/** Every .ts, .mjs and .cjs file under `folders` of `root` (the checked folders), as repository paths. */
export function sourceFiles(root: string, folders = CHECKED_FOLDERS): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = posix.join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (/\.(ts|mjs|cjs)$/.test(name)) out.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return out;
}

/** All the violations in the repository at `root`. */
export function checkRepository(root: string): ImportViolation[] {
  return sourceFiles(root, [...CHECKED_FOLDERS, 'web']).flatMap((f) => violationsOf(relative(root, join(root, f)), readFileSync(join(root, f), 'utf8')));
}
