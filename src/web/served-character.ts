/**
 * How the demo server tells the page which character to start with (`motionmatch demo --character
 * FILE`): it serves the file at SERVED_CHARACTER_PATH (+ its extension) and names it in a <meta>
 * element it adds to the page's index.html, like the --db database (served-database.ts). Without
 * the element the page draws its box figures and makes no extra request. Browser-safe: the page and
 * the Node server share it.
 */
import { servedFileMetaTag, servedFileRef, withMetaTag, type ServedFileRef } from './served-file.js';

/** Where the server answers with the character file, without the extension (.glb, .gltf or .vrm follows). */
export const SERVED_CHARACTER_PATH = '/__motionmatch/character';

/** The <meta name=...> that carries the character's URL (content) and its name on screen (data-name). */
export const SERVED_CHARACTER_META = 'motionmatch-character';

/** Character file extensions the page and the CLI take (a .vrm is a GLB with VRM extensions). */
export const CHARACTER_EXTENSIONS: readonly string[] = ['.glb', '.gltf', '.vrm'];

/** The extension of a file name, lower case with its dot ('' when none). */
export function fileExtension(name: string): string {
  const slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  const dot = name.lastIndexOf('.');
  return dot > slash + 1 ? name.slice(dot).toLowerCase() : '';
}

/** Whether a file name is a character (.glb, .gltf or .vrm). */
export function isCharacterFile(name: string): boolean {
  return CHARACTER_EXTENSIONS.includes(fileExtension(name));
}

/** What a page was asked to load as its character at start-up. */
export type ServedCharacterRef = ServedFileRef;

/** The path the server answers with a character called `name` (its extension kept: the page tells GLB from glTF JSON by it and by its bytes). */
export function servedCharacterPath(name: string): string {
  const ext = fileExtension(name);
  return `${SERVED_CHARACTER_PATH}${CHARACTER_EXTENSIONS.includes(ext) ? ext : '.glb'}`;
}

/** `html` with the character's <meta> element added at the end of its <head> (or at its start when it has none). */
export function withServedCharacterMeta(html: string, name: string): string {
  return withMetaTag(html, servedFileMetaTag(SERVED_CHARACTER_META, servedCharacterPath(name), name));
}

/** The character the page's server named, or null. */
export function servedCharacterRef(doc: Document): ServedCharacterRef | null {
  return servedFileRef(doc, SERVED_CHARACTER_META);
}
