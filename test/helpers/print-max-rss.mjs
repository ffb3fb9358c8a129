// Preload (node --import) that prints the process's peak resident memory on
// standard error as it exits: `maxrss-kib N`. For the memory-bound tests.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `maxrss-kib ${process.resourceUsage().maxRSS}\n`);
});
