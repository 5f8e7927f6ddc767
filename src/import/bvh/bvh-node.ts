/**
 * Node-only helpers around the pure BVH parser: read a file, find the .bvh files under folders.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, isAbsolute, sep } from 'node:path';
import { readRegularTextFile } from '../../util/files-node.js';
import { parseBvh } from './bvh.js';
import type { BvhImport, BvhParseOptions } from './bvh.js';

/**
 * Largest BVH file read (bytes). The text is held as one string while it is parsed, and a file of
 * this size already holds hours of capture; anything larger is refused before reading.
 */
export const BVH_MAX_FILE_BYTES = 256 * 1024 * 1024;

export interface ReadBvhFileOptions extends Omit<BvhParseOptions, 'file'> {
  /** Name used in messages and for the clip (default: the path). */
  file?: string;
  /** Largest file accepted, in bytes (default BVH_MAX_FILE_BYTES). */
  maxBytes?: number;
}

/**
 * Reads and parses one BVH file (UTF-8). Refuses, before reading, anything but a regular file
 * (a FIFO would block forever, a device would never end) and files above `maxBytes`
 * (FileAccessError). Parse errors name the path (BvhError "<path>:<line>: <reason>").
 */
export function readBvhFile(path: string, options: ReadBvhFileOptions = {}): BvhImport {
  const { maxBytes = BVH_MAX_FILE_BYTES, file, ...parse } = options;
  const text = readRegularTextFile(path, { what: 'BVH file', maxBytes });
  return parseBvh(text, { ...parse, file: file ?? path });
}

/** Why listBvhFiles left out an entry it found in a folder. */
export interface SkippedBvhEntry {
  /** The entry's path as found (under the named folder). */
  path: string;
  /** One line for the user, e.g. "a link leading outside 'mocap'". */
  reason: string;
}

export interface ListBvhFilesOptions {
  /**
   * Called for each entry left out: links leading outside the folder that was named, broken
   * links, and files reached a second time through a link. Default: ignore them silently.
   */
  onSkip?: (skipped: SkippedBvhEntry) => void;
}

/** True when `path` (a real path) lies inside folder `root` (a real path) or is the folder itself. */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + sep));
}

/**
 * The .bvh files (extension case-insensitive) among the given paths: files are taken as given
 * (they must end in .bvh), folders are searched recursively in name order. Returns a sorted list
 * without duplicates.
 *
 * Inside a named folder, symbolic links are followed only while they stay inside that folder: a
 * link to "..", to "/" or to another tree is left out (reported through `onSkip`), so that naming
 * a folder never reads files from elsewhere. A file reached twice (through a link) is listed once.
 * Throws for a path that does not exist, a named file that is not a .bvh file, or a folder that
 * cannot be read.
 */
export function listBvhFiles(pathsOrFolders: string[], options: ListBvhFilesOptions = {}): string[] {
  const onSkip = options.onSkip ?? (() => {});
  const out = new Set<string>();
  const seenFiles = new Map<string, string>();
  const visited = new Set<string>();
  const isBvh = (name: string): boolean => name.toLowerCase().endsWith('.bvh');

  const addFile = (path: string, real: string): void => {
    const first = seenFiles.get(real);
    if (first === undefined) { seenFiles.set(real, path); out.add(path); } else if (first !== path) onSkip({ path, reason: `the same file as '${first}'` });
  };

  const readFolder = (dir: string) => {
    try {
      return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (e) {
      throw new Error(`cannot read folder '${dir}': ${(e as Error).message}`);
    }
  };

  const walk = (root: string, rootName: string, dir: string, realDir: string): void => {
    if (visited.has(realDir)) return; // reached again through a link inside the folder
    visited.add(realDir);
    for (const entry of readFolder(dir)) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) { walk(root, rootName, full, join(realDir, entry.name)); continue; }
      if (entry.isFile()) { if (isBvh(entry.name)) addFile(full, join(realDir, entry.name)); continue; }
      if (!entry.isSymbolicLink()) continue; // FIFOs, sockets, devices: never BVH files
      let real: string;
      try { real = realpathSync(full); } catch {
        if (isBvh(entry.name)) onSkip({ path: full, reason: 'a broken link' });
        continue;
      }
      if (!isInside(root, real)) { onSkip({ path: full, reason: `a link leading outside '${rootName}'` }); continue; }
      const st = statSync(real);
      if (st.isDirectory()) walk(root, rootName, full, real);
      else if (st.isFile() && isBvh(entry.name)) addFile(full, real);
    }
  };

  for (const p of pathsOrFolders) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`no such file or folder: ${p}`);
    }
    if (st.isDirectory()) {
      // The named folder itself may be a link: the user chose it, so its target is the boundary.
      const root = realpathSync(p);
      walk(root, p, p, root);
    } else if (isBvh(p)) {
      let real = p;
      try { real = realpathSync(p); } catch { /* listed as named; reading will explain */ }
      addFile(p, real);
    } else throw new Error(`not a .bvh file: ${p}`);
  }
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
