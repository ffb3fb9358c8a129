// Runs the command line's main() in this process (fast: no Node start, no
// bundle), capturing what it writes to standard error; what a spawned
// process would add is checked by the tests that spawn one (cli-process.ts).

import { vi } from 'vitest';
import { main } from '../../cli/main.ts';

/** `picotpu ARGS` in this process: the status and what it wrote to standard error. */
export async function cliInProcess(args: string[]): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  try {
    return { status: await main(args), stderr };
  } finally {
    spy.mockRestore();
  }
}
