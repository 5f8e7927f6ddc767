/**
 * Loading a GLB safely: the container is checked (magic, version, the header's length against the
 * bytes there are and against a limit, chunk bounds) before three's GLTFLoader sees it, so that a
 * truncated or corrupt file, or one whose header claims gigabytes, is refused with one line
 * (ThreeRigError 'glb') and nothing is allocated from what the header claims.
 *
 * GLB layout: a 12-byte header (magic "glTF", version 2, total length), then chunks of
 * (length, type, data): the JSON chunk first, then optionally the BIN chunk.
 */
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { ThreeRigError } from './errors.js';

/** Largest GLB accepted (bytes): a character with its textures fits many times over. */
export const GLB_MAX_BYTES = 512 * 1024 * 1024;

const MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

function fail(detail: string): never {
  throw new ThreeRigError('glb', `not a usable GLB: ${detail}`);
}

/** Checks a GLB's container; returns its exact bytes (the header's length) as an ArrayBuffer view. */
export function checkGlb(data: ArrayBuffer | Uint8Array, maxBytes = GLB_MAX_BYTES): Uint8Array {
  const bytes = data instanceof Uint8Array ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : fail('expected an ArrayBuffer or Uint8Array');
  if (bytes.byteLength < 12) fail(`${bytes.byteLength} bytes is shorter than the 12-byte header (truncated file?)`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) fail(bytes[0] === 0x7b ? 'this is glTF JSON, not a binary GLB (load it with GLTFLoader.parse and its resource path)' : 'the file does not start with "glTF"');
  const version = dv.getUint32(4, true);
  if (version !== 2) fail(`version ${version} (only glTF 2.0 is supported)`);
  const length = dv.getUint32(8, true);
  if (length > maxBytes) fail(`the header claims ${length.toLocaleString('en-US')} bytes, more than the ${maxBytes.toLocaleString('en-US')}-byte limit`);
  if (length > bytes.byteLength) fail(`the header claims ${length.toLocaleString('en-US')} bytes but there are only ${bytes.byteLength.toLocaleString('en-US')} (truncated file?)`);
  if (length < 20) fail(`the header's length ${length} leaves no room for the JSON chunk`);
  let at = 12, chunk = 0;
  while (at < length) {
    if (at + 8 > length) fail(`chunk ${chunk} header runs past the end (at byte ${at} of ${length})`);
    const size = dv.getUint32(at, true), type = dv.getUint32(at + 4, true);
    if (at + 8 + size > length) fail(`chunk ${chunk} claims ${size.toLocaleString('en-US')} bytes, past the end of the file (truncated?)`);
    if (chunk === 0 && type !== CHUNK_JSON) fail('the first chunk is not JSON');
    if (chunk === 1 && type !== CHUNK_BIN) fail('the second chunk is not BIN');
    at += 8 + size;
    chunk++;
  }
  return bytes.subarray(0, length);
}

/**
 * Checks and parses a GLB with three's GLTFLoader (a new one, or `loader`). Every failure —
 * container or content (bad JSON, buffers out of range) — is a ThreeRigError 'glb'.
 */
export async function parseGlb(data: ArrayBuffer | Uint8Array, loader: GLTFLoader = new GLTFLoader(), path = ''): Promise<GLTF> {
  const bytes = checkGlb(data);
  const exact = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer
    : bytes.slice().buffer;
  try {
    return await loader.parseAsync(exact, path);
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new ThreeRigError('glb', `three's GLTFLoader refused it: ${msg}`);
  }
}
