// A test's outside dependency (a tool on PATH, a file not built by the global
// setup): missing, it is skipped with one line naming it and how to get it on a
// developer's machine, but under CI (env CI set, where .ci/run installs every
// tool the README's claims need: the toolchain, redis-server, chromium, qemu,
// gdb-multiarch, llvm) it is a failure, so no claim is silently skipped there.
// The seed's own RTL and firmware are never in this repository nor on CI: the
// tests that need them skip with one line everywhere, naming the environment
// variable that points at a local copy (skipWithoutLocal).

/** True when `what` is missing and the tests needing it should be skipped; throws under CI. */
export function skipWhenMissing(present: boolean, file: string, what: string, install: string): boolean {
  if (present) return false;
  const msg = `${file}: ${what} not found (${install})`;
  if (process.env.CI) throw new Error(msg);
  console.warn(`${msg}; skipping the tests that need it`);
  return true;
}

/**
 * True when the seed's own files (its RTL under Verilator, its built test firmware: never committed, never on CI)
 * are missing and the tests needing them should be skipped: one line naming what is missing and the environment
 * variable `envVar` that names a local copy, under CI as elsewhere.
 */
export function skipWithoutLocal(present: boolean, file: string, what: string, envVar: string): boolean {
  if (present) return false;
  const where = process.env[envVar] ? `${envVar}=${process.env[envVar]} does not hold it` : `set ${envVar} to enable`;
  console.warn(`${file}: ${what} not found (${where}); skipping the tests that need it`);
  return true;
}
