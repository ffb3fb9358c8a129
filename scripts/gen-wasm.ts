// Compiles the WebAssembly kernels (text, SIMD) with wabt into TypeScript
// modules holding the binary as base64, so neither the emulator nor its
// compiled distribution needs a WebAssembly toolchain at run time:
//   periph/mxu-kernel.wat  -> periph/mxu-kernel.wasm.ts  (the MXU's fast datapath)
//   periph/matvec-kernel.wat -> periph/matvec-kernel.wasm.ts (an int16 matvec: the golden model, the seed MXU)
//   emu/cpu-kernel.wat -> emu/cpu-kernel.wasm.ts (the CPU's plain instructions: runWords' fast path)
// `npm run gen:wasm` writes them; `--check` exits 1 when one is stale
// (test/mxu-kernel.test.ts and test/model-golden.test.ts check the same).

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

export const WAT_PATH = fileURLToPath(new URL('../periph/mxu-kernel.wat', import.meta.url));
export const WASM_TS_PATH = fileURLToPath(new URL('../periph/mxu-kernel.wasm.ts', import.meta.url));

/** A kernel: its .wat, the generated .wasm.ts, the exported constant's name and what it is. */
export interface WasmKernel { wat: string; ts: string; constName: string; what: string }

export const MXU_KERNEL: WasmKernel = { wat: WAT_PATH, ts: WASM_TS_PATH, constName: 'MXU_KERNEL_WASM_BASE64', what: "The MXU kernel's" };
export const MATVEC_KERNEL: WasmKernel = {
  wat: fileURLToPath(new URL('../periph/matvec-kernel.wat', import.meta.url)),
  ts: fileURLToPath(new URL('../periph/matvec-kernel.wasm.ts', import.meta.url)),
  constName: 'MATVEC_KERNEL_WASM_BASE64',
  what: 'The int16 matvec kernel\'s',
};
export const CPU_KERNEL: WasmKernel = {
  wat: fileURLToPath(new URL('../emu/cpu-kernel.wat', import.meta.url)),
  ts: fileURLToPath(new URL('../emu/cpu-kernel.wasm.ts', import.meta.url)),
  constName: 'CPU_KERNEL_WASM_BASE64',
  what: 'The CPU kernel\'s',
};
const KERNELS = [MXU_KERNEL, MATVEC_KERNEL, CPU_KERNEL];

const shown = (path: string) => path.slice(fileURLToPath(new URL('..', import.meta.url)).length);

/** The generated module's text for a kernel's .wat as it is now (default the MXU's). */
export async function generateWasmModule(kernel: WasmKernel = MXU_KERNEL): Promise<string> {
  const wabt = await wabtInit();
  const name = kernel.wat.split('/').pop()!;
  const parsed = wabt.parseWat(name, readFileSync(kernel.wat, 'utf8'), { simd: true });
  try {
    parsed.validate();
    const { buffer } = parsed.toBinary({ canonicalize_lebs: true });
    const b64 = Buffer.from(buffer).toString('base64');
    const lines = b64.match(/.{1,100}/g)!.map((l) => `  '${l}'`).join(' +\n');
    return [
      `// Generated from ${shown(kernel.wat)} by scripts/gen-wasm.ts (npm run gen:wasm): do not edit.`,
      `/** ${kernel.what} WebAssembly binary (${buffer.length} bytes), base64. */`,
      `export const ${kernel.constName} =`,
      `${lines};`,
      '',
    ].join('\n');
  } finally {
    parsed.destroy();
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  for (const kernel of KERNELS) {
    const text = await generateWasmModule(kernel);
    if (process.argv.includes('--check')) {
      let current = '';
      try { current = readFileSync(kernel.ts, 'utf8'); } catch { /* missing counts as stale */ }
      if (current !== text) {
        console.error(`${shown(kernel.ts)} is stale: run npm run gen:wasm`);
        process.exit(1);
      }
    } else {
      writeFileSync(kernel.ts, text);
      console.log(`wrote ${shown(kernel.ts)}`);
    }
  }
}
