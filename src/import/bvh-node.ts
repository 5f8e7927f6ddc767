/**
 * Node-only helpers around the pure BVH parser: read a file, find the .bvh files under folders.
 */
import { readFileSync, readdirSync, statSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parseBvh } from './bvh.js';
import type { BvhImport, BvhParseOptions } from './bvh.js';

/**
 * Reads and parses one BVH file (UTF-8). Errors name the path (BvhError "<path>:<line>: <reason>");
 * options.file overrides the name used in messages and for the clip.
 */
export function readBvhFile(path: string, options: Omit<BvhParseOptions, 'file'> & { file?: string } = {}): BvhImport {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `BVH file not found: ${path}` : `cannot read BVH file ${path}: ${(e as Error).message}`);
  }
  return parseBvh(text, { ...options, file: options.file ?? path });
}

/**
 * The .bvh files (extension case-insensitive) among the given paths: files are taken as given
 * (they must end in .bvh), folders are searched recursively. Returns a sorted list without
 * duplicates. Throws for a path that does not exist or a named file that is not a .bvh file.
 */
export function listBvhFiles(pathsOrFolders: string[]): string[] {
  const out = new Set<string>();
  const visited = new Set<string>();
  const isBvh = (name: string): boolean => name.toLowerCase().endsWith('.bvh');

  const walk = (dir: string): void => {
    let real: string;
    try { real = realpathSync(dir); } catch { real = dir; }
    if (visited.has(real)) return; // symlink loops
    visited.add(real);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const st = statSync(full);
          isDir = st.isDirectory(); isFile = st.isFile();
        } catch {
          continue; // dangling link
        }
      }
      if (isDir) walk(full);
      else if (isFile && isBvh(entry.name)) out.add(full);
    }
  };

  for (const p of pathsOrFolders) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`no such file or folder: ${p}`);
    }
    if (st.isDirectory()) walk(p);
    else if (isBvh(p)) out.add(p);
    else throw new Error(`not a .bvh file: ${p}`);
  }
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
