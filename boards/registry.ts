// Every board `--board NAME` can choose: one line per board (its folder under
// boards/ holds the rest). The command line, the study and the playground
// name a board here and get it; nothing outside boards/ names one.

import { BoardError, type Board } from '../emu/board.ts';
import { PICOTPU } from './picotpu/board.ts';
import { TRANSFORMER_TPU_INT4 } from './transformer-tpu-int4/board.ts';

export { BoardError, type Board };
// The one machine of several boards: picotpu boards joined by its link (--boards N).
export { Boards, BoardsError, DEFAULT_BOARDS_MAX_CYCLES, MAX_BOARDS, runBoards, type BoardsResult, type Schedule } from './picotpu/ring.ts';
/** The board `--boards N` joins. */
export const RING_BOARD: Board = PICOTPU;

/** The boards, the default first. */
export const BOARDS: readonly Board[] = [
  PICOTPU,
  TRANSFORMER_TPU_INT4,
];

/** Boards added at run time (a test's fixture board): after the built-in ones. */
const added: Board[] = [];

/** Adds a board (a test fixture's); its name and aliases must be new. */
export function registerBoard(board: Board): void {
  for (const name of [board.name, ...board.aliases]) {
    if (findBoard(name)) throw new BoardError(`a board is already called "${name}"`);
  }
  added.push(board);
}

/** Every board, built-in then added. */
export function allBoards(): readonly Board[] {
  return [...BOARDS, ...added];
}

export const DEFAULT_BOARD = PICOTPU;

/** The board names `--board` takes, with each alias after its board. */
export function boardNames(): string[] {
  return allBoards().flatMap((b) => [b.name, ...b.aliases]);
}

function findBoard(name: string): Board | undefined {
  return allBoards().find((b) => b.name === name || b.aliases.includes(name));
}

/** The board called `name` (or one of its aliases); an unknown name is a usage error (exit 165). */
export function boardNamed(name: string): Board {
  const board = findBoard(name);
  if (!board) throw new BoardError(`unknown board "${name}" (boards: ${boardNames().join(', ')})`);
  return board;
}
