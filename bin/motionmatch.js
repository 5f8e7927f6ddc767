#!/usr/bin/env node
// Thin launcher: the CLI is compiled TypeScript in dist/ (built by `npm install` via `prepare`).
import { main } from '../dist/src/apps/cli.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`motionmatch: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
