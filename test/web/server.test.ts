/**
 * The demo's static server (src/web/serve-node.ts) over plain HTTP, no browser: what it serves,
 * with which headers, and what it answers to hostile request targets (over-long names, NUL bytes,
 * encoded separators, "..", very long URLs, symbolic links and FIFOs inside the folder). Every
 * path it cannot serve gets 404 (414 for an over-long target, 400 for a target that is not a
 * path), never a 500 and never a byte from outside the served folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { MAX_URL_LENGTH, requestPathname, resolveRequestPath, startDemoServer, type DemoServer } from '../../src/web/serve-node.js';
import { SERVED_DATABASE_META, SERVED_DATABASE_PATH, withServedDatabaseMeta } from '../../src/web/served-database.js';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-ROOT';
const INDEX = '<!doctype html>\n<html>\n  <head>\n    <title>t</title>\n  </head>\n  <body>page</body>\n</html>\n';

interface RawReply { status: number; headers: Record<string, string>; body: string }

/** Sends `target` exactly as given on a fresh connection (no client-side normalisation or checks). */
function raw(port: number, target: string | Buffer, method = 'GET'): Promise<RawReply> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => { socket.destroy(); reject(new Error(`no answer to ${String(target).slice(0, 80)}`)); });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolvePromise({ status, headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(Buffer.concat([
      Buffer.from(`${method} `, 'latin1'), typeof target === 'string' ? Buffer.from(target, 'latin1') : target,
      Buffer.from(' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 'latin1'),
    ]));
  });
}

describe('demo server over HTTP', () => {
  const dir = tempDir('mm-serve-');
  const root = join(dir, 'root');
  const dbFile = join(dir, 'my "db" <1>.mmdb');
  const dbBytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) & 255));
  let server: DemoServer;
  let withDb: DemoServer;

  beforeAll(async () => {
    mkdirSync(join(root, 'assets'), { recursive: true });
    mkdirSync(join(root, 'empty-dir'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1);\n');
    writeFileSync(join(root, 'assets', 'kernel.wasm'), Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]));
    writeFileSync(join(dir, 'secret.txt'), SECRET);
    symlinkSync(join(dir, 'secret.txt'), join(root, 'link-out.txt'));
    symlinkSync(join(root, 'assets', 'app.js'), join(root, 'link-in.js'));
    execFileSync('mkfifo', [join(root, 'fifo.js')]);
    writeFileSync(dbFile, dbBytes);
    server = await startDemoServer({ root, port: 0, host: '127.0.0.1' });
    withDb = await startDemoServer({ root, port: 0, host: '127.0.0.1', database: { file: dbFile, name: 'my "db" <1>.mmdb' } });
  });

  afterAll(async () => {
    await server?.close();
    await withDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves files with their types, the isolation headers, HEAD without a body, and refuses other methods', async () => {
    const index = await raw(server.port, '/');
    expect(index.status).toBe(200);
    expect(index.body).toBe(INDEX);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(index.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(index.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await raw(server.port, '/assets/app.js')).headers['content-type']).toMatch(/^text\/javascript/);
    expect((await raw(server.port, '/assets/kernel.wasm')).headers['content-type']).toBe('application/wasm');
    expect((await raw(server.port, '/assets/app.js?v=1#x')).status).toBe(200);
    expect((await raw(server.port, '/./assets//app.js')).status).toBe(200);
    expect((await raw(server.port, '/%61ssets/app.js')).status).toBe(200); // percent-encoded letters are letters
    expect((await raw(server.port, '/link-in.js')).status).toBe(200); // a link that stays inside is fine
    const head = await raw(server.port, '/assets/app.js', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('16');
    expect(head.body).toBe('');
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const r = await raw(server.port, '/', method);
      expect(r.status, method).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
    }
  });

  it('answers 404 to every path it cannot serve (never 500, never a byte from outside)', async () => {
    const cases: Array<[string, number]> = [
      // Names longer than the file system allows (ENAMETOOLONG was a 500).
      ['/' + 'a'.repeat(256), 404],
      ['/assets/' + 'b'.repeat(300) + '.js', 404],
      ['/' + '%C3%A9'.repeat(130), 404], // 130 characters, 260 bytes
      // Many segments, deep but within the URL limit.
      ['/' + 'a/'.repeat(900) + 'x.js', 404],
      ['/assets/app.js/' + 'x/'.repeat(100), 404], // a file used as a folder: ENOTDIR
      // Leaving the folder, plain and encoded.
      ['/../secret.txt', 404],
      ['/assets/../../secret.txt', 404],
      ['/%2e%2e/secret.txt', 404],
      ['/..%2fsecret.txt', 404],
      ['/%2e%2e%2fsecret.txt', 404],
      ['/assets%2f..%2f..%2fsecret.txt', 404],
      ['/%2e%2e%5csecret.txt', 404],
      ['/..\\secret.txt', 404],
      ['/..', 404],
      ['http://localhost/../secret.txt', 404],
      ['//secret.txt', 404],
      [`/${dir.slice(1)}/secret.txt`, 404],
      // NUL bytes and broken encodings.
      ['/assets/%00.js', 404],
      ['/index.html%00.js', 404],
      ['/%ff', 404],
      ['/%', 404],
      ['/%E0%A4%A', 404],
      // Symbolic links that lead out, FIFOs (must not hang), folders without an index.
      ['/link-out.txt', 404],
      ['/fifo.js', 404],
      ['/empty-dir/', 404],
      ['/no-such-file.js', 404],
      // Targets that are not paths, and over-long ones.
      ['*', 400],
      ['/' + 'a'.repeat(MAX_URL_LENGTH), 414],
      ['/' + 'a/'.repeat(3000), 414],
    ];
    for (const [target, status] of cases) {
      const r = await raw(server.port, target);
      expect(r.status, target.slice(0, 100)).toBe(status);
      expect(r.body).not.toContain(SECRET);
      expect(r.headers['content-type'], target.slice(0, 100)).toMatch(/^text\/plain/);
    }
  });

  it('lets Node refuse what is not HTTP (raw NUL or control bytes, a target past the header limit)', async () => {
    const nul = await raw(server.port, Buffer.from('/a\0b', 'latin1'));
    expect(nul.status).toBe(400);
    expect((await raw(server.port, 'index.html')).status).toBe(400); // neither origin nor absolute form
    const huge = await raw(server.port, '/' + 'a'.repeat(20_000));
    expect([414, 431]).toContain(huge.status);
    // The server still answers afterwards.
    expect((await raw(server.port, '/')).status).toBe(200);
  });

  it('never answers 500 or leaks the outside file, whatever the path (property)', async () => {
    const piece = fc.oneof(
      fc.constantFrom('..', '.', '%2e', '%2E%2e', '%2f', '%5c', '\\', '%00', '%', '%ff', '%C3%A9', 'assets', 'app.js', 'index.html', 'link-out.txt', 'secret.txt', ''),
      fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
      fc.integer({ min: 200, max: 400 }).map((n) => 'z'.repeat(n)),
    );
    await fc.assert(fc.asyncProperty(fc.array(piece, { maxLength: 8 }), async (pieces) => {
      const target = '/' + pieces.join('/');
      const r = await raw(server.port, target);
      expect([200, 404, 414], target.slice(0, 100)).toContain(r.status);
      expect(r.body).not.toContain(SECRET);
    }), { numRuns: 150 });
  });

  it('with a database: serves the file at its fixed path and names it in index.html', async () => {
    const db = await fetch(new URL(SERVED_DATABASE_PATH, withDb.url));
    expect(db.status).toBe(200);
    expect(db.headers.get('content-type')).toBe('application/octet-stream');
    expect(db.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(Buffer.from(await db.arrayBuffer()).equals(dbBytes)).toBe(true);
    const page = await (await fetch(withDb.url)).text();
    expect(page).toContain(`<meta name="${SERVED_DATABASE_META}" content="${SERVED_DATABASE_PATH}" data-name="my &quot;db&quot; &lt;1&gt;.mmdb" />`);
    expect(page.indexOf(SERVED_DATABASE_META)).toBeLessThan(page.indexOf('</head>'));
    const head = await raw(withDb.port, '/', 'HEAD');
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(page));
    // Without --db: no database path, no <meta>.
    expect((await fetch(new URL(SERVED_DATABASE_PATH, server.url))).status).toBe(404);
    expect(await (await fetch(server.url)).text()).toBe(INDEX);
  });

  it('with a database that disappeared: 404 naming the file, and the page still loads', async () => {
    const moved = dbFile + '.moved';
    execFileSync('mv', [dbFile, moved]);
    try {
      const r = await raw(withDb.port, SERVED_DATABASE_PATH);
      expect(r.status).toBe(404);
      expect(r.body).toContain('is no longer there');
      expect((await raw(withDb.port, '/')).status).toBe(200);
    } finally {
      execFileSync('mv', [moved, dbFile]);
    }
  });
});

describe('request path helpers', () => {
  it('requestPathname keeps "//x" a path and drops query and fragment', () => {
    expect(requestPathname('/a/b?c=d#e')).toBe('/a/b');
    expect(requestPathname('//evil.example/x')).toBe('//evil.example/x');
    expect(requestPathname('http://host/a/../b')).toBe('/b');
    expect(requestPathname('*')).toBeNull();
    expect(requestPathname('a/b')).toBeNull();
  });

  it('resolveRequestPath stays inside root or says null', () => {
    const root = '/srv/root';
    expect(resolveRequestPath(root, '/')).toBe(root);
    expect(resolveRequestPath(root, '/a/./b//c.js')).toBe('/srv/root/a/b/c.js');
    for (const bad of ['/..', '/a/../../x', '/%2e%2e/x', '/a%5cb', '/a%00', '/%zz', '/' + 'n'.repeat(256)]) {
      expect(resolveRequestPath(root, bad), bad).toBeNull();
    }
    expect(resolveRequestPath(root, '/' + 'n'.repeat(255))).toBe(`/srv/root/${'n'.repeat(255)}`);
  });

  it('withServedDatabaseMeta adds the element inside <head>, or in front when there is none', () => {
    expect(withServedDatabaseMeta('<html><head></head></html>', 'a.mmdb')).toMatch(/<head>\s*<meta name="motionmatch-database"[^>]*data-name="a\.mmdb" \/>\s*<\/head>/);
    expect(withServedDatabaseMeta('<p>x</p>', 'a.mmdb')).toMatch(/^<meta name="motionmatch-database"[^>]*\/>\n<p>x<\/p>$/);
  });

});
