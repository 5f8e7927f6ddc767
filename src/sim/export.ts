import type { Database } from '../database/database.js';
import type { Clip } from '../anim/clip.js';
import { quatMultiply, quatRotateVec3 } from '../math/quat.js';
import type { Recording } from './agents.js';

/**
 * A recorded agent as a clip on the database skeleton: joint 0 carries the agent's world motion
 * (root transform composed with the root-relative pose), the other joints their local pose.
 */
export function recordingToClip(db: Database, r: Recording, fps: number, name = `agent_${r.agent}`): Clip {
  const J = db.skeleton.names.length;
  const rotations = new Float64Array(r.steps * J * 4);
  const translations = new Float64Array(r.steps * J * 3);
  for (let i = 0; i < r.rotations.length; i++) rotations[i] = r.rotations[i];
  for (let i = 0; i < r.translations.length; i++) translations[i] = r.translations[i];
  const v = new Float64Array(3);
  for (let s = 0; s < r.steps; s++) {
    const root = r.root.subarray(s * 7, s * 7 + 7);
    quatRotateVec3(v, 0, root, 3, translations, s * J * 3);
    translations[s * J * 3] = root[0] + v[0];
    translations[s * J * 3 + 1] = root[1] + v[1];
    translations[s * J * 3 + 2] = root[2] + v[2];
    quatMultiply(rotations, s * J * 4, root, 3, rotations, s * J * 4);
  }
  return { name, source: 'simulation', fps, frameCount: r.steps, rotations, translations, loop: false, tags: [] };
}
