// The playground's C editor (CodeMirror 6): the chosen board's kernel
// template, built by the local server's endpoint (scripts/web-build.ts, only
// when the page is served by `npm run web`), the compiler's messages beside
// the source, then the ELF loaded and run. The static build has no endpoint:
// the build button is hidden and the page says why.

import { basicSetup, EditorView } from 'codemirror';
import { cpp } from '@codemirror/lang-cpp';
import { PICOTPU_TEMPLATE, SEED_TEMPLATE } from './templates.ts';
import type { BoardName } from './protocol.ts';

/** The endpoint, relative to the page. */
const BUILD_URL = 'api/build';

const TEMPLATES: Record<BoardName, string> = { picotpu: PICOTPU_TEMPLATE, 'transformer-tpu-int4': SEED_TEMPLATE };

export interface Editor {
  /** Puts the board's template in the editor (a board change), unless the text was edited. */
  showBoard(board: BoardName): void;
}

/**
 * Sets up the editor in #editor; `run` loads and runs a built ELF. Asks the
 * server whether it builds (GET api/build); if not, hides the button.
 */
export function setupEditor(board: () => BoardName, run: (name: string, bytes: ArrayBuffer) => void): Editor {
  const $ = (id: string) => document.getElementById(id)!;
  let shown: BoardName = board();
  const view = new EditorView({ doc: TEMPLATES[shown], extensions: [basicSetup, cpp()], parent: $('editor') });
  const button = $('build-run') as HTMLButtonElement;
  const state = $('build-state');
  const messages = $('build-messages');
  button.hidden = true;
  state.textContent = 'asking the server for a compiler…';
  void fetch(BUILD_URL, { method: 'GET' }).then((r) => r.ok, () => false).then((ok) => {
    button.hidden = !ok;
    state.textContent = ok ? '' : 'no build here: this is the static build (npm run build:web), which has no compiler behind it; serve the page with npm run web to build C';
  });
  button.onclick = async () => {
    const b = board();
    button.disabled = true;
    state.textContent = `building for ${b}…`;
    messages.classList.remove('error');
    messages.textContent = '';
    try {
      const r = await fetch(BUILD_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ board: b, source: view.state.doc.toString() }) });
      const a = (await r.json()) as { ok: boolean; messages: string; elf?: string };
      messages.textContent = a.messages || (a.ok ? '(no compiler messages)' : '');
      messages.classList.toggle('error', !a.ok);
      state.textContent = a.ok ? `built kernel.elf for ${b}: running it` : 'the build failed: the compiler\'s messages are beside the source';
      if (a.ok && a.elf) {
        const bytes = Uint8Array.from(atob(a.elf), (c) => c.charCodeAt(0));
        run('kernel.elf', bytes.buffer);
      }
    } catch (e) {
      state.textContent = `the build did not answer: ${(e as Error).message}`;
    } finally {
      button.disabled = false;
    }
  };
  return {
    showBoard(next: BoardName): void {
      if (next === shown) return;
      if (view.state.doc.toString() === TEMPLATES[shown]) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: TEMPLATES[next] } });
      shown = next;
    },
  };
}
