/**
 * `motionmatch demo --character FILE`: the file is checked before anything is built or served — it
 * exists, is a regular file, has a character extension and is a usable glTF container (a GLB's
 * header and chunks, checked by the adapter's own checkGlb; a .gltf's JSON, glTF 2.0, with every
 * buffer and image embedded, since the server sends the page this one file). Whether it holds a
 * humanoid skin is for the page to say (ThreeRigError, on screen). Every refusal is one line.
 */
import { openSync, readSync, closeSync, statSync, readFileSync } from 'node:fs';
import { CHARACTER_EXTENSIONS, fileExtension } from './served-character.js';

/** Largest character file served (bytes), as the adapter's GLB_MAX_BYTES. */
const MAX_CHARACTER_BYTES = 512 * 1024 * 1024;

export class CharacterFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CharacterFileError';
  }
}

/** Checks a character file for the demo; returns its size in bytes. Throws CharacterFileError (one line). */
export async function checkCharacterFile(file: string): Promise<number> {
  const ext = fileExtension(file);
  if (!CHARACTER_EXTENSIONS.includes(ext)) {
    throw new CharacterFileError(`character file '${file}': expected a .glb, .gltf or .vrm file`);
  }
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CharacterFileError(code === 'ENOENT' ? `character file '${file}' does not exist` : `cannot read character file '${file}': ${(e as Error).message}`);
  }
  if (!st.isFile()) throw new CharacterFileError(`character file '${file}' is not a regular file`);
  if (st.size > MAX_CHARACTER_BYTES) {
    throw new CharacterFileError(`character file '${file}' is ${st.size.toLocaleString('en-US')} bytes, more than the ${MAX_CHARACTER_BYTES.toLocaleString('en-US')}-byte limit`);
  }
  if (ext === '.gltf') {
    checkGltfJson(file, readFileSync(file, 'utf8'));
    return st.size;
  }
  // GLB (.glb, .vrm): the adapter's container check, on the bytes.
  const bytes = new Uint8Array(st.size);
  const fd = openSync(file, 'r');
  try {
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n <= 0) break;
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  const { checkGlb } = await import('../three/glb.js');
  try {
    checkGlb(bytes);
  } catch (e) {
    throw new CharacterFileError(`character file '${file}': ${(e as Error).message.replace(/^motionmatch\/three: /, '')}`);
  }
  return st.size;
}

function checkGltfJson(file: string, text: string): void {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CharacterFileError(`character file '${file}': not glTF JSON (${(e as Error).message.split('\n')[0]})`);
  }
  const doc = json as { asset?: { version?: unknown }; buffers?: Array<{ uri?: unknown }>; images?: Array<{ uri?: unknown }> };
  if (typeof doc !== 'object' || doc === null || typeof doc.asset?.version !== 'string') {
    throw new CharacterFileError(`character file '${file}': not glTF (no asset.version)`);
  }
  if (!doc.asset.version.startsWith('2.')) throw new CharacterFileError(`character file '${file}': glTF version ${doc.asset.version} (only 2.0 is supported)`);
  const external = [...(doc.buffers ?? []), ...(doc.images ?? [])].find((b) => typeof b?.uri === 'string' && !b.uri.startsWith('data:'));
  if (external) {
    throw new CharacterFileError(`character file '${file}' refers to '${String(external.uri)}' beside it: the demo serves one file, so embed its buffers and images (data: URIs) or save it as .glb`);
  }
}
