#!/usr/bin/env node
// `npm pack` / `npm publish` run this last: the repository's own package.json comes back
// (prepack replaced it with the shipped one: scripts/packed-manifest.mjs).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { restoreManifest } from './packed-manifest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (restoreManifest(root)) process.stderr.write('postpack: package.json restored\n');
