/**
 * Loading the search kernels: feature detection, choosing a build, compiling once, instantiating
 * against a host-provided memory.
 *
 * Four builds (scripts/build-wasm.mjs): SIMD or scalar, each for a shared or an ordinary memory. A
 * module that declares shared memory refuses an ordinary one and vice versa, so the build follows
 * the memory: shared whenever the platform can create one (Node; cross-origin-isolated pages), which
 * is what lets pool workers search one copy of the database.
 */
import type { SearchKernels } from './memory-layout.js';
import { PAGE_BYTES } from './memory-layout.js';
import { wasmFileName, type WasmVariant } from './variant.js';
import { isNode, readWasmFile } from './package-files.js';

export type { WasmVariant } from './variant.js';
export { wasmFileName } from './variant.js';
export { nodePackageRoot, readWasmFile } from './package-files.js';

/** Where a build comes from when the caller names none and the platform has no files of its own (browsers). */
export type WasmSourceFor = (v: WasmVariant) => WasmSource;

let defaultSourceFor: WasmSourceFor | undefined;

/**
 * Sets where builds come from when a caller passes no `wasm` outside Node (the browser entry sets the
 * package's own build/*.wasm, as bundler-visible URLs). In Node the package's files are always read.
 */
export function setDefaultWasmSource(sourceFor: WasmSourceFor | undefined): void {
  defaultSourceFor = sourceFor;
}

/** Anything a build can come from: bytes, a compiled module, a fetch Response, or a URL to fetch. */
export type WasmSource = BufferSource | WebAssembly.Module | Response | PromiseLike<Response> | URL | string;

/** The largest memory (pages) the shared builds declare; a shared memory must not exceed it. */
export const WASM_MAX_PAGES = 65536;

/** Default maximum of a shared search memory: 16384 pages = 1 GiB of address space reserved up front. */
export const DEFAULT_SHARED_MAXIMUM_PAGES = 16384;

// (module (func (result v128) (v128.const i32x4 0 0 0 0)))
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00,
  0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0x0b,
]);

let simdCache: boolean | undefined;

/** True when the engine accepts f32x4 SIMD. */
export function simdSupported(): boolean {
  if (simdCache === undefined) {
    try {
      simdCache = typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
    } catch {
      simdCache = false;
    }
  }
  return simdCache;
}

/** True when a shared WebAssembly.Memory can be created (Node; cross-origin-isolated browsers). */
export function sharedMemorySupported(): boolean {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

/** True when `memory` is shared (its buffer is a SharedArrayBuffer). */
export function isSharedMemory(memory: WebAssembly.Memory): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
}

/**
 * A memory for the kernels: shared when possible (and not refused), else ordinary. `maximumPages`
 * only matters for shared memories, which reserve address space up front and cannot grow past it.
 */
export function createSearchMemory(opts: { shared?: boolean; initialPages?: number; maximumPages?: number } = {}): WebAssembly.Memory {
  const initial = opts.initialPages ?? 16;
  const shared = opts.shared ?? sharedMemorySupported();
  if (shared) {
    const maximum = Math.max(initial, Math.min(opts.maximumPages ?? DEFAULT_SHARED_MAXIMUM_PAGES, WASM_MAX_PAGES));
    return new WebAssembly.Memory({ initial, maximum, shared: true });
  }
  return opts.maximumPages === undefined
    ? new WebAssembly.Memory({ initial })
    : new WebAssembly.Memory({ initial, maximum: opts.maximumPages });
}

const moduleCache = new Map<string, Promise<WebAssembly.Module>>();

/** Compiles a build once per variant (unless the caller passes its own source). */
export function compileSearchModule(v: WasmVariant, source?: WasmSource): Promise<WebAssembly.Module> {
  if (source !== undefined) return compileSource(source);
  const key = wasmFileName(v);
  let m = moduleCache.get(key);
  if (!m) {
    m = isNode() ? readWasmFile(v).then((b) => WebAssembly.compile(b as BufferSource)) : compileDefault(v);
    m.catch(() => moduleCache.delete(key));
    moduleCache.set(key, m);
  }
  return m;
}

/** Outside Node: the source set with setDefaultWasmSource, else a one-line error saying what to pass. */
function compileDefault(v: WasmVariant): Promise<WebAssembly.Module> {
  if (defaultSourceFor) return compileSource(defaultSourceFor(v));
  return Promise.reject(new Error(
    `motionmatch: no source for ${wasmFileName(v)}: pass { wasm } (a URL, Response or bytes) to Matcher.create, or import 'motionmatch' so that its browser entry names the packaged builds`,
  ));
}

async function compileSource(source: WasmSource): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === 'string' || source instanceof URL) {
    const res = await fetch(source);
    if (!res.ok) throw new Error(`motionmatch: fetching ${String(source)} failed: ${res.status}`);
    return WebAssembly.compile(checkWasmBytes(await res.arrayBuffer(), String(source)));
  }
  const s = await source;
  if (typeof Response !== 'undefined' && s instanceof Response) return WebAssembly.compile(checkWasmBytes(await s.arrayBuffer(), s.url || 'the Response'));
  return WebAssembly.compile(s as BufferSource);
}

/**
 * Refuses fetched bytes that are not WebAssembly with a line saying what came instead (a server
 * that does not have the file often answers with its HTML page, status 200).
 */
function checkWasmBytes(bytes: ArrayBuffer, from: string): ArrayBuffer {
  const head = new Uint8Array(bytes, 0, Math.min(4, bytes.byteLength));
  if (head.length === 4 && head[0] === 0x00 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d) return bytes;
  const text = String.fromCharCode(...new Uint8Array(bytes, 0, Math.min(16, bytes.byteLength))).replace(/[^\x20-\x7e]/g, '?');
  throw new Error(`motionmatch: ${from} is not a WASM build (${bytes.byteLength} bytes starting "${text}"): serve build/*.wasm with the app, or pass { wasm } to Matcher.create`);
}

/** The raw exports (no loader wrappers: those allocate an arguments array per call). */
type RawExports = SearchKernels & Record<string, unknown>;

/** Instantiates a compiled build against `memory` and returns its kernels. */
export async function instantiateKernels(module: WebAssembly.Module, memory: WebAssembly.Memory): Promise<SearchKernels> {
  // WebAssembly's own instantiate: the builds import the memory and nothing else (no abort or trace
  // for @assemblyscript/loader to supply), and that loader's instantiate read the global Response
  // on the way, which in Node loads its fetch implementation: 50-60 ms of every process's start and
  // of every pool worker's.
  const instance = await WebAssembly.instantiate(module, { env: { memory } });
  const x = instance.exports as unknown as RawExports;
  return {
    search: x.search,
    searchBatch: x.searchBatch,
    firstAllowed: x.firstAllowed,
    blockMinBias: x.blockMinBias,
    kdNodeMinBias: x.kdNodeMinBias,
    rowCost: x.rowCost,
    rowBoxBound: x.rowBoxBound,
    encodeQueryU8: x.encodeQueryU8,
    rowCodeDistance: x.rowCodeDistance,
    rowHalfDistance: x.rowHalfDistance,
    recordBoxDistances: x.recordBoxDistances,
    boxCostLow: x.boxCostLow,
    heapBase: x.heapBase,
  };
}

/** Picks the build: SIMD unless refused or unsupported; shared iff the memory is. */
export function chooseVariant(memory: WebAssembly.Memory, simd: boolean): WasmVariant {
  return { simd: simd && simdSupported(), shared: isSharedMemory(memory) };
}

/** Pages needed to hold `bytes`. */
export function pagesFor(bytes: number): number {
  return Math.ceil(bytes / PAGE_BYTES);
}
