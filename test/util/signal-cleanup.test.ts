/**
 * Temporary files are removed when a signal interrupts their writing (util/files-node.ts), and the
 * listeners doing it re-raise the signal with its default action only when the program has no
 * handler of its own: before, they re-raised every later Ctrl-C and killed programs that stop
 * gracefully on it (`motionmatch demo` after it had written a file exited 130, not 0).
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const FILES = pathToFileURL(join(__dirname, '../../dist/src/util/files-node.js')).href;

/** Runs `body` (an ES module's text) in a child process, sends it SIGINT once it prints "ready", and resolves with its exit. */
function interrupt(body: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', body], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no exit; output: ${out}`)); }, 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) child.kill('SIGINT');
    });
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, out }); });
  });
}

describe('temporary files and signals', () => {
  it('a program that handles Ctrl-C itself still does after writing a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-signal-'));
    try {
      const r = await interrupt(`
        import { writeFileAtomic } from ${JSON.stringify(FILES)};
        writeFileAtomic(${JSON.stringify(join(dir, 'a.txt'))}, 'hello', 'test file');
        process.on('SIGINT', () => { console.log('stopped cleanly'); process.exit(0); });
        console.log('ready');
        setInterval(() => {}, 1000);
      `);
      expect(r.out).toContain('stopped cleanly');
      expect(r.code).toBe(0);
      expect(readdirSync(dir)).toEqual(['a.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an interrupted write leaves no temporary and ends the process with the signal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-signal-'));
    try {
      const tmp = join(dir, 'big.mmdb.tmp');
      const r = await interrupt(`
        import { writeFileSync } from 'node:fs';
        import { trackTemporaryFile } from ${JSON.stringify(FILES)};
        writeFileSync(${JSON.stringify(tmp)}, 'partial');
        trackTemporaryFile(${JSON.stringify(tmp)});
        console.log('ready');
        setInterval(() => {}, 1000);
      `);
      expect(r.signal).toBe('SIGINT');
      expect(existsSync(tmp)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('while a temporary exists, a program handling Ctrl-C itself keeps running its handler, and the temporary is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-signal-'));
    try {
      const tmp = join(dir, 'part.tmp');
      const r = await interrupt(`
        import { writeFileSync, existsSync } from 'node:fs';
        import { trackTemporaryFile } from ${JSON.stringify(FILES)};
        writeFileSync(${JSON.stringify(tmp)}, 'partial');
        trackTemporaryFile(${JSON.stringify(tmp)});
        process.on('SIGINT', () => { console.log('handled; temporary there: ' + existsSync(${JSON.stringify(tmp)})); process.exit(0); });
        console.log('ready');
        setInterval(() => {}, 1000);
      `);
      expect(r.code).toBe(0);
      expect(r.out).toContain('handled; temporary there: false');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
