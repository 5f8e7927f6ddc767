/**
 * Bad input: every refusal is a one-line ThreeRigError with a code, nothing crashes, and a header
 * claiming gigabytes allocates nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/database/database.js';
import { ThreeRetargeter, ThreeRigError, checkGlb, parseGlb } from '../../src/three/index.js';
import { buildGlb, databaseRig, packGlb } from './fixtures.js';
import { variantRig } from './rigs.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
beforeAll(() => { db = builtinDatabase(); });

/** The error a promise or function ends with (must be a one-line ThreeRigError). */
async function refusal(f: () => unknown): Promise<ThreeRigError> {
  try { await f(); } catch (e) {
    expect(e).toBeInstanceOf(ThreeRigError);
    expect((e as Error).message).not.toContain('\n');
    return e as ThreeRigError;
  }
  throw new Error('expected a refusal');
}

describe('three adapter: bad input', () => {
  it('a glTF with no skin', async () => {
    const gltf = await parseGlb(buildGlb({ bones: databaseRig(db), noSkin: true }));
    const e = await refusal(() => ThreeRetargeter.fromGltf(gltf.scene, db));
    expect(e.code).toBe('no-skin');
    console.log(e.message);
  });

  it('a glTF with two skeletons asks to pick one, and the pick works', async () => {
    const gltf = await parseGlb(buildGlb({ bones: databaseRig(db), copies: 2 }));
    const e = await refusal(() => ThreeRetargeter.fromGltf(gltf.scene, db));
    expect(e.code).toBe('several-skeletons');
    expect(e.message).toContain('skeleton option');
    console.log(e.message);
    // three sanitizes "Body.001" to "Body001".
    const r = ThreeRetargeter.fromGltf(gltf.scene, db, { skeleton: 'Body001' });
    expect(r.rig.names[0]).toBe('pelvis001');
    expect(r.root.name).toBe('Character001');
  });

  it('a missing leg bone is named, with the bones seen', async () => {
    const gltf = await parseGlb(buildGlb({ bones: variantRig(databaseRig(db), { names: { calf_l: null } }) }));
    const e = await refusal(() => ThreeRetargeter.fromGltf(gltf.scene, db));
    expect(e.code).toBe('missing-bone');
    expect(e.message).toMatch(/no leftLowerLeg bone found in the character \(bones: pelvis, /);
    expect(e.message).toContain('boneMap');
    console.log(e.message);
    // ... and the boneMap option settles it (the thigh named as the knee is the user's choice).
    const fixed = ThreeRetargeter.fromGltf(gltf.scene, db, { boneMap: { leftUpperLeg: 'pelvis', leftLowerLeg: 'thigh_l' }, footIK: false });
    expect(fixed.boneMap.find((m) => m.role === 'leftLowerLeg')).toMatchObject({ target: 'thigh_l', how: 'given' });
  });

  it('a boneMap naming no bone or no role', async () => {
    const gltf = await parseGlb(buildGlb({ bones: databaseRig(db) }));
    expect((await refusal(() => ThreeRetargeter.fromGltf(gltf.scene, db, { boneMap: { leftFoot: 'Nope' } }))).code).toBe('bad-bone-map');
    expect((await refusal(() => ThreeRetargeter.fromGltf(gltf.scene, db, { boneMap: { leftFeet: 'foot_l' } as never }))).code).toBe('bad-bone-map');
  });

  it('a misspelt option is refused, naming it (it was ignored: { footIk: false } left foot IK on)', async () => {
    const gltf = await parseGlb(buildGlb({ bones: databaseRig(db) }));
    const e = await refusal(() => ThreeRetargeter.fromGltf(gltf.scene, db, { footIk: false } as never));
    expect(e.code).toBe('bad-option');
    expect(e.message).toMatch(/^motionmatch\/three: unknown option "footIk" \(options: boneMap, skeleton, root, footIK, /);
    const rig = ThreeRetargeter.fromGltf(gltf.scene, db, { footIK: false });
    expect(rig.boneMap.length).toBeGreaterThan(0);
    // apply() without a controller names what it got (it read "Cannot read properties of undefined (reading 'db')").
    expect(() => rig.apply(undefined as never)).toThrow(/^ThreeRetargeter\.apply: expected the character's MotionMatchingController, got undefined$/);
  });

  it('a truncated GLB', async () => {
    const glb = buildGlb({ bones: databaseRig(db) });
    for (const cut of [5, 16, glb.byteLength - 40]) {
      const e = await refusal(() => parseGlb(glb.slice(0, cut)));
      expect(e.code).toBe('glb');
    }
    console.log((await refusal(() => parseGlb(glb.slice(0, glb.byteLength - 40)))).message);
  });

  it('a GLB whose header claims 2 GB: refused without allocating it', async () => {
    const glb = buildGlb({ bones: databaseRig(db) });
    new DataView(glb.buffer).setUint32(8, 2 ** 31, true);
    const before = process.memoryUsage();
    const e = await refusal(() => parseGlb(glb));
    const after = process.memoryUsage();
    expect(e.code).toBe('glb');
    expect(e.message).toContain('2,147,483,648');
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    expect(after.rss - before.rss).toBeLessThan(256 * 1024 * 1024);
    console.log(e.message);
    // A chunk claiming more than the file holds, too.
    const glb2 = buildGlb({ bones: databaseRig(db) });
    new DataView(glb2.buffer).setUint32(12, 2 ** 31, true);
    expect(() => checkGlb(glb2)).toThrow(/chunk 0 claims 2,147,483,648 bytes/);
  });

  it('not a GLB at all, and a GLB with broken JSON', async () => {
    expect((await refusal(() => parseGlb(new TextEncoder().encode('{"asset":{}}')))).message).toContain('glTF JSON');
    const e = await refusal(() => parseGlb(packGlb('{"asset": {"version": "2.0"}, "nodes": [', new Uint8Array(0))));
    expect(e.code).toBe('glb');
    console.log(e.message);
  });
});
