// The package.json that ships: the repository's, with only the scripts an installed package can
// run. `prepare`, `prepack`, `pretest`, the builds and the checks call files that are not shipped
// (scripts/, web/, assembly/, test/); left in, they are scripts that fail for whoever runs them.
// prepack writes the shipped manifest in place (npm packs the package.json it finds on disk) and
// keeps the original beside it; postpack puts the original back. Both carry the original's
// modification time: the demo bundle's freshness check compares against it. A pack that died
// between the two leaves the backup, and the next prepack or postpack restores it first. Every write goes to a temporary file
// renamed over the target: whatever reads package.json meanwhile (vite resolving imports while the
// tests pack the repository) sees one whole file or the other, never an empty one.
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Scripts kept in the packed package.json: they need only what ships (bin/, dist/src/, web-dist/). */
export const PACKED_SCRIPTS = ['start', 'bench'];

/** The original package.json while a pack runs: { text, atimeMs, mtimeMs }. Not in `files`: never shipped. */
export const MANIFEST_BACKUP = '.package.json.prepack';

/** The repository's package.json text as shipped: the same fields, scripts cut to PACKED_SCRIPTS. */
export function packedManifest(text) {
  const pkg = JSON.parse(text);
  const scripts = {};
  for (const name of PACKED_SCRIPTS) if (pkg.scripts?.[name] !== undefined) scripts[name] = pkg.scripts[name];
  pkg.scripts = scripts;
  return JSON.stringify(pkg, null, 2) + '\n';
}

/** Writes `text` to `file` whole (a temporary file renamed over it), with the given times when there are. */
function replaceFile(file, text, times) {
  const part = `${file}.${process.pid}.part`;
  writeFileSync(part, text);
  // Seconds as numbers, not Dates: a Date keeps whole milliseconds and would move the time back.
  if (times) utimesSync(part, times.atimeMs / 1000, times.mtimeMs / 1000);
  renameSync(part, file);
}

/** Puts the original package.json back if a backup is there; returns whether it did. */
export function restoreManifest(root) {
  const backup = join(root, MANIFEST_BACKUP);
  if (!existsSync(backup)) return false;
  const { text, atimeMs, mtimeMs } = JSON.parse(readFileSync(backup, 'utf8'));
  replaceFile(join(root, 'package.json'), text, { atimeMs, mtimeMs });
  unlinkSync(backup);
  return true;
}

/** Writes the shipped package.json in place of the repository's, which is kept for restoreManifest. */
export function writePackedManifest(root) {
  restoreManifest(root);
  const file = join(root, 'package.json');
  const text = readFileSync(file, 'utf8');
  const st = statSync(file);
  replaceFile(join(root, MANIFEST_BACKUP), JSON.stringify({ text, atimeMs: st.atimeMs, mtimeMs: st.mtimeMs }));
  // With the original's times: a demo started meanwhile would otherwise take package.json for newer
  // than web-dist/ and rebuild it (emptying it) under the pack.
  replaceFile(file, packedManifest(text), { atimeMs: st.atimeMs, mtimeMs: st.mtimeMs });
}
