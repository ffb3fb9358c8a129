// The command line with the test fixture board (test/fixtures/ram-console-board.ts)
// registered: `node test/helpers/cli-with-fixture-board.mjs run --board ram-console ...`.
// Adding a board is its folder plus one registry line; this entry is that line for a test.
import { register } from 'tsx/esm/api';

register();
const { registerBoard } = await import('../../boards/registry.ts');
const { RAM_CONSOLE } = await import('../fixtures/ram-console-board.ts');
registerBoard(RAM_CONSOLE);
const { main } = await import('../../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
