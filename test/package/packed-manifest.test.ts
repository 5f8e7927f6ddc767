/**
 * The shipped package.json that prepack writes in place of the repository's (scripts/packed-manifest.mjs).
 * While a pack runs, other processes read the repository: `motionmatch demo` rebuilds web-dist/ when
 * package.json looks newer than the last build, and vite empties web-dist/ while it builds. A pack
 * running beside a browser test then shipped a package without the demo page (seen in a full run:
 * the tarball lacked web-dist/index.html). The shipped manifest must keep the original's times.
 */
import { readFileSync, statSync, utimesSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { writePackedManifest, restoreManifest, MANIFEST_BACKUP } from '../../scripts/packed-manifest.mjs';
import { webBundleStaleReason } from '../../src/web/bundle-node.js';

describe('the shipped package.json written for a pack', () => {
  it('keeps the original modification time, so the demo bundle does not look stale during a pack', () => {
    const root = tempDir('mm-packed-manifest-');
    const original = JSON.stringify({ name: 'x', version: '1.0.0', scripts: { start: 'a', test: 'b', prepare: 'c' } }, null, 2) + '\n';
    writeFileSync(join(root, 'package.json'), original);
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, 'package.json'), past, past);
    // A demo bundle built after the manifest was last changed.
    mkdirSync(join(root, 'web-dist'));
    writeFileSync(join(root, 'web-dist', 'index.html'), '<!doctype html>');
    writeFileSync(join(root, 'web-dist', '.motionmatch-build'), 'built\n');
    const built = new Date(Date.now() - 1_800_000);
    utimesSync(join(root, 'web-dist', '.motionmatch-build'), built, built);
    expect(webBundleStaleReason(root)).toBeNull();

    writePackedManifest(root);
    const shipped = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(Object.keys(shipped.scripts)).toEqual(['start']);
    const mtime = statSync(join(root, 'package.json')).mtimeMs;
    expect(Math.abs(mtime - past.getTime())).toBeLessThan(0.01);
    expect(webBundleStaleReason(root)).toBeNull();

    expect(restoreManifest(root)).toBe(true);
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe(original);
    expect(statSync(join(root, 'package.json')).mtimeMs).toBe(mtime);
    expect(existsSync(join(root, MANIFEST_BACKUP))).toBe(false);
  });
});
