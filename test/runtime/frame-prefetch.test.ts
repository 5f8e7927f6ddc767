/**
 * FramePrefetch (runtime/crowd/prefetch.ts): the rows a character's next step reads, touched one
 * character ahead. It only reads: every load must land inside its table (the sum of what it read
 * stays finite: a typed array read out of range gives undefined, and the sum NaN) on every frame
 * up to the database's last, and a character stepped after its rows were touched moves exactly as
 * one stepped without.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { FramePrefetch } from '../../src/runtime/crowd/prefetch.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import type { Database } from '../../src/database/database.js';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { builtinSearch } from '../helpers/builtin-search.js';
import * as api from '../../src/api.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => { ({ db, port } = await builtinSearch()); });

describe('FramePrefetch', () => {
  it('is part of the portable API, for crowds stepped by the user\'s own loop', () => {
    expect(api.FramePrefetch).toBe(FramePrefetch);
  });

  it('reads inside every table on every frame, the last one included', () => {
    const prefetch = new FramePrefetch(db);
    const c = new MotionMatchingController(db);
    for (let f = 0; f < db.frameCount; f++) {
      c.frame = f;
      prefetch.touch(c);
    }
    expect(Number.isFinite(prefetch.touchedSum)).toBe(true);
  });

  it('leaves a character of another database alone, and changes nothing a step computes', () => {
    const other = new FramePrefetch({ ...db });
    const a = new MotionMatchingController(db), b = new MotionMatchingController(db);
    const input = createInput();
    input.velocityX = 1.2; input.velocityZ = 0.4;
    other.touch(a);
    expect(other.touchedSum).toBe(0);
    const prefetch = new FramePrefetch(db);
    for (let s = 0; s < 90; s++) {
      prefetch.touch(a);
      a.update(1 / 30, input, port);
      b.update(1 / 30, input, port);
    }
    expect(Array.from(a.worldPositions)).toEqual(Array.from(b.worldPositions));
    expect(Array.from(a.rootPosition)).toEqual(Array.from(b.rootPosition));
  });
});
