// A test's outside dependency (a tool on PATH, a file not built by the global
// setup): missing, it is skipped with a warning on a developer's machine, but
// under CI (env CI set, where everything is installed) it is a failure, so no
// test is silently skipped there.

/** True when `what` is missing and the tests needing it should be skipped; throws under CI. */
export function skipWhenMissing(present: boolean, file: string, what: string, install: string): boolean {
  if (present) return false;
  const msg = `${file}: ${what} not found (${install})`;
  if (process.env.CI) throw new Error(msg);
  console.warn(`${msg}; skipping the tests that need it`);
  return true;
}
