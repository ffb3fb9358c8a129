// The exit-status table (emu/exit-status.ts): the help text is built from it,
// and it agrees with docs/hardware.md §7 status by status.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_STATUSES, exitStatusText, OTHER_COMMAND_STATUSES } from '../emu/exit-status.ts';

describe('exit statuses', () => {
  it('the help epilogue lists every run status of the table, as written before it was derived', () => {
    expect(exitStatusText()).toBe(
      'Exit status: the guest\'s EXIT value (0-255); 160 trap, 161 bus error, 162 cycle limit, 163 TPU error (--strict), '
      + '164 bad program or SRAM file, 165 bad command line, config, input or output file, 166 internal error, '
      + '130 interrupted (SIGINT), 141 standard output closed, 143 terminated (SIGTERM).',
    );
    expect(EXIT).toEqual({ TRAP: 160, BUS_ERROR: 161, CYCLE_LIMIT: 162, TPU_ERROR: 163, BAD_PROGRAM: 164, USAGE: 165, INTERNAL: 166, INTERRUPTED: 130, STDOUT_CLOSED: 141, TERMINATED: 143, MISMATCH: 167, QUEUE_UNREACHABLE: 168, QUEUE_REFUSED: 169, POINTS_FAILED: 170 });
  });

  it('docs/hardware.md §7 has a row for each emulator status of `picotpu run`, and no other', () => {
    const doc = readFileSync(new URL('../docs/hardware.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## 7. Exit statuses'), doc.indexOf('## 8.'));
    const runTable = section.slice(0, section.indexOf('### 7.1'));
    const rows = [...runTable.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual(EXIT_STATUSES.filter((s) => !OTHER_COMMAND_STATUSES.includes(s.name)).map((s) => s.value));
  });

  it('docs/hardware.md §7.1 has a row for each status only another command ends with', () => {
    const doc = readFileSync(new URL('../docs/hardware.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### 7.1'), doc.indexOf('## 8.'));
    const rows = [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual(EXIT_STATUSES.filter((s) => OTHER_COMMAND_STATUSES.includes(s.name)).map((s) => s.value));
  });

  it('picotpu --help prints it', () => {
    const r = spawnSync(process.execPath, ['bin/picotpu.cjs', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(exitStatusText());
  });
});
