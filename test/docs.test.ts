// Docs are for users: README.md and docs/*.md name no machine path, no issue
// number, no person of the team that built the project and no dated lab
// note (a day or a clock time of a measurement). Development
// history belongs to the git log; a doc says what the tool is, how to use it
// and what it shows. And every measured figure comes from a generator (a
// gen:docs section or inline figure) or says where it is from: a large number
// outside them stands in a block marked <!-- figures: SOURCE -->.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bareFigures } from './helpers/bare-figures.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What a user-facing doc must not contain, with why, so a failure explains itself. */
const FORBIDDEN: [pattern: RegExp, what: string][] = [
  [/\/work\//, 'a path on the build machine (/work/...)'],
  [/\/home\//, 'a path in someone\'s home directory (/home/...)'],
  [/\/root\//, 'a path in root\'s home directory (/root/...)'],
  [/\bissue #\d+|\bissue \d+(?![,\d])|\bissues #\d/i, 'an issue number'],
  [/\(#\d+[),]/, 'an issue reference such as (#17)'],
  [/\b(?:PR|pull request) #?\d+/i, 'a pull request number'],
  [/\b(?:the|our) (?:[a-z-]+ )?engineers?\b/i, 'a person of the team ("the board engineer")'],
  [/\bengineers'/i, 'a person of the team ("other engineers\' jobs")'],
  [/\bthe lead(?:'s)?\b/i, 'a person of the team ("the lead")'],
  [/\b(?:other|five|six) sessions\b/i, 'the team\'s working sessions'],
  [/\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December)\b/, 'a dated lab note ("on 4 December")'],
  [/\b\d{2}:\d{2}(?:[–-]\d{2}:\d{2})? UTC\b/, 'a dated lab note ("at 21:21 UTC")'],
];

/** README.md and every Markdown file of docs/. */
function userDocs(): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/** Every forbidden phrase of a text, as "file:line: what (the line)". */
export function hygieneFindings(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [pattern, what] of FORBIDDEN) {
      if (pattern.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
    }
  });
  return found;
}

describe('docs name no machine path, issue number or person', () => {
  it('catches each kind of phrase it is meant to catch', () => {
    const bad = [
      'the RTL under /work/seed on the build machine',
      'see /home/me/notes',
      'as issue #25 asks',
      'issue 16 added this',
      'one branch case (#26).',
      'filled by the board engineer',
      'while the lead ran the test suite',
      'other engineers\' test suites',
      'with the machine shared by five sessions',
      'Measured on 4 December 2026 at 19:43',
      'pair 3 (04:20–04:22 UTC; load average 5.9)',
    ];
    for (const line of bad) expect(hygieneFindings('x.md', line), line).not.toEqual([]);
  });

  it('lets command serials, gdb frames and VCD times through', () => {
    const good = [
      'queued  #298: LOAD sram=0x00140 spad=0x3000',
      '#0   0x00000080 <fib+0x34>  sp 0x0000ff90',
      "sed -n '/^#133485$/,/^#133729$/p' /tmp/tpubench.vcd",
      'STORE #593: pushed 131238, ran 133055..133120',
      'which means the LOAD #298 behind the running one must finish first.',
      'accelerator performance engineering',
      'head of the DMA\'s in-order queue and holds up LOADs #300 and #301, although',
      'One decode step issues 1,297 commands',
    ];
    for (const line of good) expect(hygieneFindings('x.md', line), line).toEqual([]);
  });

  it.each(userDocs())('%s', (file) => {
    expect(hygieneFindings(file, readFileSync(join(root, file), 'utf8'))).toEqual([]);
  });
});

/** Docs generated whole by their own commands (`sweep`, `explore`): their figures are the generator's. */
const GENERATED_WHOLE = new Set(['docs/scaling.md', 'docs/scaling-seed.md', 'docs/explore-example.md', 'docs/explore-boards.md']);

describe('every large figure in the docs is generated or names its source', () => {
  it('catches a bare measured figure and lets generated, marked and constant ones through', () => {
    const doc = `
The run takes 1,234,567 clocks.

<!--=prefill, base.cycles-->4,133,696<!--/=--> clocks, and 123456 on the next line

<!-- figures: measured on the RTL (test/rtl/firmware-measured.json) -->
| a | 98,765 |
| b | 43,210 |

after the table 55,555 is bare again; 65,536 and 100,000 and 0x12345 and \`--max-cycles 12345678\` are not
<!-- generated: npm run gen:docs -- bench-summary -->
run 76543 clocks
<!-- end generated -->
<!-- figures: a session of picotpu debug -->
\`\`\`
clock 66942

clock 66943
\`\`\`
\`\`\`
clock 77777
\`\`\`
`;
    expect(bareFigures('x.md', doc).map((f) => f.split(': ')[1])).toEqual(['1,234,567', '123456', '55,555', '77777']);
  });

  it.each(userDocs().filter((f) => !GENERATED_WHOLE.has(f)))('%s', (file) => {
    expect(bareFigures(file, readFileSync(join(root, file), 'utf8'))).toEqual([]);
  });
});
