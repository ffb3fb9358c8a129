// Builds the firmware once before any test file runs (make is not safe to run
// from several workers at once), and regenerates nothing: a stale generated
// header is a test failure, not something to fix silently.
import { execFileSync } from 'node:child_process';
import { buildFirmware, hasToolchain } from '../toolchain/toolchain.ts';

export default function setup(): void {
  if (!hasToolchain()) {
    throw new Error('the RISC-V toolchain is missing: run bash toolchain/ensure-toolchain.sh');
  }
  buildFirmware();
  // The seed-board command streams measured on the seed's RTL (test/seed-rtl/README.md).
  execFileSync('make', ['-s', '-C', 'test/seed-rtl/streams'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
