// vitest: every test/**/*.test.ts, after the firmware is built once (test/global-setup.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Firmware builds and qemu runs share the toolchain; one fork per file is plenty on 2 cores.
    pool: 'forks',
  },
});
