// The docs' figures test (test/docs.test.ts): finds the large numbers of a Markdown doc that no
// generator writes and no source is named for.

const SECTION_BEGIN = /^<!-- generated(?::| from) /;
const SECTION_END = /^<!-- (?:end generated|generated from .* end) -->$/;
const FIGURES_MARK = /^<!-- figures: \S.* -->$/;
const FENCE = /^\s*```/;

/** Whether a number is a constant rather than a measurement: a power of two, or at most two significant digits (a limit such as 100,000). */
function looksConstant(digits: string): boolean {
  const v = Number(digits);
  return (v & (v - 1)) === 0 && v <= 2 ** 31 || /^\d{1,2}0*$/.test(digits);
}

/**
 * Every measured-looking figure of a doc that no generator writes and no source is named for: a number of
 * five or more digits (1,234,567 or 1234567) outside generated sections, inline figures, blocks marked
 * <!-- figures: SOURCE --> (the next paragraph, table or code block), `code spans` of prose (options and
 * inputs), commands in code blocks, hex, and identifiers; constants (powers of two, round limits) pass.
 */
export function bareFigures(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  let section = false, fence = false, marked = false;
  for (const [i, raw] of lines.entries()) {
    if (section) { if (SECTION_END.test(raw)) section = false; continue; }
    if (SECTION_BEGIN.test(raw)) { section = true; continue; }
    if (FIGURES_MARK.test(raw.trim())) { marked = true; continue; }
    const isFence = FENCE.test(raw);
    if (isFence) fence = !fence;
    // A mark covers one block: a code block to its closing fence, anything else to the next blank line.
    if (marked && (isFence ? !fence : !fence && raw.trim() === '')) { marked = false; continue; }
    if (marked || raw.trim() === '') continue;
    let line = raw.replace(/<!--=.*?-->.*?<!--\/=-->/g, ' ').replace(/0x[0-9a-fA-F_]+/g, ' ');
    if (!fence) line = line.replace(/`[^`]*`/g, ' ');
    // A command in a code block is input (options, problems), not output.
    else if (/^\s*(?:\$ |node |npm |npx |make )/.test(line)) continue;
    for (const m of line.matchAll(/(?<![\w.#/:-])(\d{1,3}(?:,\d{3})+|\d{5,})(?!\w|,\d|\.\d)/g)) {
      const digits = m[1].replaceAll(',', '');
      if (digits.length >= 5 && !looksConstant(digits)) found.push(`${file}:${i + 1}: ${m[1]}: ${raw.trim().slice(0, 100)}`);
    }
  }
  return found;
}
