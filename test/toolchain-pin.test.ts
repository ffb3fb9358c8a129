// The compiler the tests' ELF hashes and clocks were made with is written once, in
// toolchain/ensure-toolchain.sh (PINNED): the README names the same distribution and gcc version.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const script = readFileSync(join(root, 'toolchain', 'ensure-toolchain.sh'), 'utf8');
const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');

describe('the pinned toolchain', () => {
  it("README names ensure-toolchain.sh's distribution and gcc version", () => {
    const distribution = /^PINNED_DISTRIBUTION="([^"]+)"$/m.exec(script)?.[1];
    const gcc = /^PINNED_GCC=(\S+)$/m.exec(script)?.[1];
    expect(distribution).toBe('Debian 12 (bookworm)');
    expect(readme).toContain(`on ${distribution}, the supported distribution`);
    expect(readme).toContain(`riscv64-unknown-elf-gcc ${gcc}`);
    expect(script).toContain(`"gcc-riscv64-unknown-elf ${gcc}-`);
  });
});
