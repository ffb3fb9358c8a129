// Compiles periph/mxu-kernel.wat (WebAssembly text, SIMD) with wabt into
// periph/mxu-kernel.wasm.ts, the binary as base64, so neither the emulator nor
// its compiled distribution needs a WebAssembly toolchain at run time.
// `npm run gen:wasm` writes it; `--check` exits 1 when it is stale
// (test/mxu-kernel.test.ts checks the same).

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

export const WAT_PATH = fileURLToPath(new URL('../periph/mxu-kernel.wat', import.meta.url));
export const WASM_TS_PATH = fileURLToPath(new URL('../periph/mxu-kernel.wasm.ts', import.meta.url));

/** The generated module's text for the .wat as it is now. */
export async function generateWasmModule(): Promise<string> {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('mxu-kernel.wat', readFileSync(WAT_PATH, 'utf8'), { simd: true });
  try {
    parsed.validate();
    const { buffer } = parsed.toBinary({ canonicalize_lebs: true });
    const b64 = Buffer.from(buffer).toString('base64');
    const lines = b64.match(/.{1,100}/g)!.map((l) => `  '${l}'`).join(' +\n');
    return [
      '// Generated from periph/mxu-kernel.wat by scripts/gen-wasm.ts (npm run gen:wasm): do not edit.',
      `/** The MXU kernel's WebAssembly binary (${buffer.length} bytes), base64. */`,
      'export const MXU_KERNEL_WASM_BASE64 =',
      `${lines};`,
      '',
    ].join('\n');
  } finally {
    parsed.destroy();
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const text = await generateWasmModule();
  if (process.argv.includes('--check')) {
    let current = '';
    try { current = readFileSync(WASM_TS_PATH, 'utf8'); } catch { /* missing counts as stale */ }
    if (current !== text) {
      console.error('periph/mxu-kernel.wasm.ts is stale: run npm run gen:wasm');
      process.exit(1);
    }
  } else {
    writeFileSync(WASM_TS_PATH, text);
    console.log(`wrote ${WASM_TS_PATH}`);
  }
}
