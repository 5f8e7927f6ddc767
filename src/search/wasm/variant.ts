/** The four builds of the search kernels (scripts/build-wasm.mjs): SIMD or scalar, shared or ordinary memory. */
export interface WasmVariant {
  simd: boolean;
  shared: boolean;
}

/** File name of a build inside build/. */
export function wasmFileName(v: WasmVariant): string {
  return `search.${v.simd ? 'simd' : 'scalar'}${v.shared ? '' : '.unshared'}.wasm`;
}
