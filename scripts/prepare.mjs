#!/usr/bin/env node
// `npm install` / `npm ci` in a clone build dist/ and build/ (a registry install runs no scripts
// of the package: the tarball ships them built). `npm pack` and `npm publish` run `prepare` right
// after `prepack`, which has just built everything: building again would only rewrite the same
// files and leave web-dist/ looking older than its inputs.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { restoreManifest } from './packed-manifest.mjs';

// A pack that died between prepack and postpack left the shipped package.json in place: put the
// repository's back (scripts/packed-manifest.mjs).
if (restoreManifest(join(dirname(fileURLToPath(import.meta.url)), '..'))) {
  process.stderr.write('prepare: restored package.json left by an interrupted npm pack\n');
}

const command = process.env.npm_command;
if (command === 'pack' || command === 'publish') {
  process.stderr.write(`prepare: skipped under \`npm ${command}\` (prepack has built or checked the package)\n`);
  process.exit(0);
}
const npm = process.env.npm_execpath;
const [cmd, args] = npm && npm.endsWith('.js') ? [process.execPath, [npm, 'run', 'build']] : ['npm', ['run', 'build']];
const r = spawnSync(cmd, args, { stdio: 'inherit' });
if (r.error) process.stderr.write(`prepare: npm run build: ${r.error.message}\n`);
process.exit(r.status ?? 1);
