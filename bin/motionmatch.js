#!/usr/bin/env node
// Thin launcher: the CLI is compiled TypeScript in dist/ (shipped in the package; in a clone of the
// repository, built by `npm install` through `prepare`, or by `npm run build`).
let cli;
try {
  cli = await import('../dist/src/apps/cli.js');
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/src/apps/cli.js')) {
    process.stderr.write('motionmatch: the compiled CLI (dist/) is missing: run `npm run build` in the repository first\n');
    process.exit(1);
  }
  throw err;
}

cli.main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`motionmatch: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
