/**
 * `motionmatch demo --character FILE` before anything is built or served (no browser): a file that
 * is missing, a folder or a FIFO, of another kind, a truncated GLB, a header claiming 2 GB, or a
 * .gltf that needs files beside it is one line naming the file and exit code 1; an empty name or
 * --build-only exit 2. The server then sends the file to the page at its own path with a glTF MIME
 * type and names it in index.html (`src/web/served-character.ts`). The page itself:
 * test/web/character.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { startDemoServer } from '../../src/web/serve-node.js';
import { packGlb } from '../three/fixtures.js';

const dir = tempDir('mm-demo-character-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid (if empty) GLB: header and a JSON chunk. */
const glb = packGlb(JSON.stringify({ asset: { version: '2.0' } }), new Uint8Array(0));

describe('motionmatch demo --character', () => {
  writeFileSync(join(dir, 'ok.glb'), glb);
  writeFileSync(join(dir, 'truncated.glb'), glb.subarray(0, glb.byteLength - 5));
  const huge = glb.slice();
  new DataView(huge.buffer).setUint32(8, 2 ** 31, true);
  writeFileSync(join(dir, 'huge.vrm'), huge);
  writeFileSync(join(dir, 'text.glb'), 'hello');
  writeFileSync(join(dir, 'model.fbx'), 'fbx');
  writeFileSync(join(dir, 'outside.gltf'), JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: 'outside.bin', byteLength: 4 }] }));
  writeFileSync(join(dir, 'broken.gltf'), '{ "asset": ');
  mkdirSync(join(dir, 'folder.glb'));
  execFileSync('mkfifo', [join(dir, 'fifo.glb')]);

  it('refuses unusable files before serving: exit 1, one line naming the file', () => {
    const cases: Array<[string, RegExp]> = [
      ['missing.glb', /does not exist/], ['folder.glb', /not a regular file/], ['fifo.glb', /not a regular file/],
      ['model.fbx', /expected a \.glb, \.gltf or \.vrm/], ['truncated.glb', /truncated/], ['huge.vrm', /claims 2,147,483,648 bytes, more than/],
      ['text.glb', /does not start with "glTF"|shorter than the 12-byte header/], ['outside.gltf', /outside\.bin.*embed/], ['broken.gltf', /not glTF JSON/],
    ];
    for (const [name, why] of cases) {
      const file = join(dir, name);
      const r = runCli(['demo', '--character', file, '--port', '0', '--no-build'], { timeoutMs: 30_000 });
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toContain(file);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).not.toMatch(/serving|http:/);
    }
  });

  it('usage mistakes exit with 2', () => {
    for (const args of [['--character', ''], ['--character', join(dir, 'ok.glb'), '--build-only']]) {
      const r = runCli(['demo', ...args, '--port', '0', '--no-build'], { timeoutMs: 30_000 });
      expect(r.code, args.join(' ')).toBe(2);
    }
  });

  it('the server sends the file at its path and names it in index.html', async () => {
    const root = join(dir, 'site');
    mkdirSync(root);
    writeFileSync(join(root, 'index.html'), '<html><head><title>t</title></head><body></body></html>');
    const server = await startDemoServer({ root, port: 0, character: { file: join(dir, 'ok.glb'), name: 'my "hero".glb' } });
    try {
      const page = await (await fetch(server.url)).text();
      expect(page).toContain('<meta name="motionmatch-character" content="/__motionmatch/character.glb" data-name="my &quot;hero&quot;.glb" />');
      const res = await fetch(new URL('/__motionmatch/character.glb', server.url));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('model/gltf-binary');
      expect(res.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(glb);
      expect((await fetch(new URL('/__motionmatch/character.gltf', server.url))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
