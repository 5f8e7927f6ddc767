import { describe, it, expect } from 'vitest';
import { buildDatabase } from '../../src/database/build.js';
import { DEFAULT_SCHEMA } from '../../src/features/schema.js';
import { groupColumns } from '../../src/features/schema.js';
import { parseSchemaJson, SchemaError } from '../../src/features/schema-validate.js';
import { quatFromYaw, quatFromAxisAngle } from '../../src/math/quat.js';
import type { Clip } from '../../src/anim/clip.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import { bipedSkeleton } from '../helpers/skeletons.js';

/** A skeleton moving at `speed` along heading `yaw` (radians from +z), legs swinging. */
function travellingClip(s: Skeleton, yaw: number, speed: number, frames = 90, fps = 30, origin = [0, 0, 0]): Clip {
  const J = s.names.length;
  const rotations = new Float64Array(frames * J * 4);
  const translations = new Float64Array(frames * J * 3);
  for (let f = 0; f < frames; f++) {
    const t = f / fps;
    for (let j = 0; j < J; j++) {
      rotations[(f * J + j) * 4 + 3] = 1;
      translations.set(s.offsets.subarray(3 * j, 3 * j + 3), (f * J + j) * 3);
    }
    quatFromYaw(rotations, f * J * 4, yaw);
    translations[f * J * 3] = origin[0] + Math.sin(yaw) * speed * t;
    translations[f * J * 3 + 2] = origin[2] + Math.cos(yaw) * speed * t;
    // swing the thighs so that feet move relative to the root
    quatFromAxisAngle(rotations, (f * J + 3) * 4, 1, 0, 0, 0.4 * Math.sin(2 * Math.PI * t));
    quatFromAxisAngle(rotations, (f * J + 7) * 4, 1, 0, 0, -0.4 * Math.sin(2 * Math.PI * t));
  }
  return { name: `travel_${yaw.toFixed(2)}`, source: 'test', fps, frameCount: frames, rotations, translations, loop: false, tags: ['walk'] };
}

describe('features in the root frame', () => {
  const s = bipedSkeleton(0);
  const cols = groupColumns(DEFAULT_SCHEMA);
  const [trajPos, trajDir] = [cols[3], cols[4]];

  it('trajectory and bone features do not depend on the clip heading or origin', () => {
    const a = buildDatabase([{ skeleton: s, clip: travellingClip(s, 0, 1.5) }]);
    for (const [yaw, origin] of [[0.7, [5, 0, -3]], [-2.5, [-100, 0, 42]], [Math.PI, [0, 0, 0]]] as const) {
      const b = buildDatabase([{ skeleton: s, clip: travellingClip(s, yaw, 1.5, 90, 30, origin as unknown as number[]) }]);
      for (let i = 0; i < a.rawFeatures.length; i++) expect(b.rawFeatures[i]).toBeCloseTo(a.rawFeatures[i], 3);
    }
  });

  it('future positions lie straight ahead at speed * offset, facing forward', () => {
    const db = buildDatabase([{ skeleton: s, clip: travellingClip(s, 1.1, 1.5) }]);
    const row = 30 * db.stride;
    const offsets = DEFAULT_SCHEMA.groups[3].offsets!;
    offsets.forEach((o, k) => {
      expect(db.rawFeatures[row + trajPos[0] + 2 * k]).toBeCloseTo(0, 3);
      expect(db.rawFeatures[row + trajPos[0] + 2 * k + 1]).toBeCloseTo(1.5 * Math.round(o * 30) / 30, 3);
      expect(db.rawFeatures[row + trajDir[0] + 2 * k]).toBeCloseTo(0, 5);
      expect(db.rawFeatures[row + trajDir[0] + 2 * k + 1]).toBeCloseTo(1, 5);
    });
  });

  it('hip velocity is the travel speed along +z in the root frame', () => {
    const db = buildDatabase([{ skeleton: s, clip: travellingClip(s, -0.4, 2) }]);
    const hipVel = cols[2][0];
    expect(db.rawFeatures[40 * db.stride + hipVel + 2]).toBeCloseTo(2, 3);
    expect(db.rawFeatures[40 * db.stride + hipVel]).toBeCloseTo(0, 3);
  });
});

describe('database build', () => {
  const s = bipedSkeleton(0);
  const clips = [travellingClip(s, 0, 1), travellingClip(s, 1, 2, 60), travellingClip(s, 2, 3, 45)];
  const db = buildDatabase(clips.map((clip) => ({ skeleton: s, clip })), { tagRules: [{ tag: 'fast', pattern: 'travel_2*' }] });

  it('lays clips out back to back and flags the last second (the trajectory\'s horizon, at most half a clip) as non-candidates', () => {
    expect(db.frameCount).toBe(195);
    expect(db.clips.map((c) => [c.start, c.count])).toEqual([[0, 90], [90, 60], [150, 45]]);
    // 90 and 60 frames at 30 fps: the last 30 frames; 45 frames: its last 22 (half of it).
    const margins = [30, 30, 22];
    db.clips.forEach((c, i) => {
      for (let f = 0; f < c.count; f++) expect(db.candidates[c.start + f]).toBe(f < c.count - margins[i] ? 1 : 0);
    });
  });

  it('pads rows to a multiple of 4 with zeros and normalises each group', () => {
    expect(db.dims).toBe(27);
    expect(db.stride).toBe(28);
    for (let i = 0; i < db.frameCount; i++) expect(db.features[i * 28 + 27]).toBe(0);
    // normalised columns have zero mean
    for (let d = 0; d < db.dims; d++) {
      let m = 0;
      for (let i = 0; i < db.frameCount; i++) m += db.features[i * db.stride + d];
      expect(Math.abs(m / db.frameCount)).toBeLessThan(1e-4);
    }
    // a group's mean per-dimension std equals its weight after normalisation
    groupColumns(db.schema).forEach(([a, b], g) => {
      let stdSum = 0;
      for (let d = a; d < b; d++) {
        let v = 0;
        for (let i = 0; i < db.frameCount; i++) v += db.features[i * db.stride + d] ** 2;
        stdSum += Math.sqrt(v / db.frameCount);
      }
      // (a group that never varies, like the facing of straight walks, stays all-zero)
      if (stdSum > 1e-6) expect(stdSum / (b - a)).toBeCloseTo(db.schema.groups[g].weight, 3);
      else expect(db.scale[a]).toBeCloseTo(1 / db.schema.groups[g].weight, 6);
    });
  });

  it('applies tag rules and clip tags as per-frame bits', () => {
    expect(db.tagNames).toEqual(['fast', 'walk']);
    expect(db.tagBits[0]).toBe(2);
    expect(db.tagBits[160]).toBe(3);
  });

  it('tags frame ranges (seconds) of matching clips', () => {
    const r = buildDatabase(clips.map((clip) => ({ skeleton: s, clip })), { tagRules: [{ tag: 'early', pattern: 'travel_*', from: 0, to: 0.5 }] });
    const bit = 1 << r.tagNames.indexOf('early');
    for (const c of r.clips) {
      for (let f = 0; f < c.count; f++) expect((r.tagBits[c.start + f] & bit) !== 0).toBe(f < 15);
      expect(c.tags).not.toContain('early');
    }
    expect(() => buildDatabase(clips.map((clip) => ({ skeleton: s, clip })), { tagRules: [{ tag: 'bad tag', pattern: '*' }] })).toThrow(/tag "bad tag"/);
  });

  it('mirroring doubles the frames and marks the copies', () => {
    const m = buildDatabase(clips.map((clip) => ({ skeleton: s, clip })), { mirror: true });
    expect(m.frameCount).toBe(390);
    expect(m.clips.filter((c) => c.mirrored).length).toBe(3);
    // a straight walk mirrored is still a straight walk: same trajectory features
    const cols = groupColumns(m.schema)[3];
    for (let d = cols[0]; d < cols[1]; d += 2) {
      expect(m.rawFeatures[(195 + 30) * m.stride + d]).toBeCloseTo(-m.rawFeatures[30 * m.stride + d], 3);
      expect(m.rawFeatures[(195 + 30) * m.stride + d + 1]).toBeCloseTo(m.rawFeatures[30 * m.stride + d + 1], 3);
    }
  });

  it('resamples clips to a common rate', () => {
    const c60 = { ...travellingClip(s, 0, 1, 121, 60), name: 'sixty' };
    const mixed = buildDatabase([{ skeleton: s, clip: clips[0] }, { skeleton: s, clip: c60 }]);
    expect(mixed.fps).toBe(60);
    expect(mixed.clips[0].count).toBe(179);
    expect(mixed.clips[1].count).toBe(121);
  });
});

describe('schema files', () => {
  it('accepts a partial schema and fills defaults', () => {
    const s = parseSchemaJson(JSON.stringify({ groups: [{ name: 'feet', kind: 'bonePosition', bones: ['leftFoot', 'rightFoot'], weight: 1 }] }));
    expect(s.endMarginSeconds).toBe(1);
    expect(s.groups).toHaveLength(1);
  });
  it.each([
    ['not json', '{', /not valid JSON/],
    ['zero weight', JSON.stringify({ groups: [{ name: 'a', kind: 'bonePosition', bones: ['hips'], weight: 0 }] }), /weight/],
    ['unknown kind', JSON.stringify({ groups: [{ name: 'a', kind: 'boneColour', bones: ['hips'], weight: 1 }] }), /kind/],
    ['no offsets', JSON.stringify({ groups: [{ name: 'a', kind: 'trajectoryPosition', weight: 1 }] }), /offsets/],
    ['NaN-ish margin', JSON.stringify({ endMarginSeconds: -1 }), /endMarginSeconds/],
  ])('rejects %s', (_label, text, re) => {
    expect(() => parseSchemaJson(text, 'my.json')).toThrow(SchemaError);
    expect(() => parseSchemaJson(text, 'my.json')).toThrow(re);
  });
});
