// What the WebAssembly kernels share (periph/mxu-kernel.ts, periph/matvec-kernel.ts,
// emu/cpu-kernel.ts): the little of the WebAssembly JS API they use (the project's lib
// setting has no DOM types), and each one's module compiled once from the base64 text
// npm run gen:wasm committed, with atob, so the same files run in Node and in a browser's
// Web Worker (web/).

export interface WasmMemory { readonly buffer: ArrayBuffer; grow(pages: number): number }
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (d: { initial: number; maximum: number }) => WasmMemory;
}

/** The WebAssembly API, or undefined where there is none. */
export const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Base64 to bytes with atob (Node and browsers alike; Buffer is Node's only). */
export function bytesOfBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * A function that returns the module of `base64`, compiled at its first call, or null where
 * WebAssembly (or a feature the module uses, such as SIMD) is unavailable.
 */
export function moduleOnce(base64: string): () => object | null {
  let compiled: object | null | undefined;
  return () => {
    if (compiled === undefined) {
      try {
        compiled = wasm ? new wasm.Module(bytesOfBase64(base64)) : null;
      } catch {
        compiled = null;
      }
    }
    return compiled;
  };
}
