/**
 * The camera of a headless run with levels of detail (`simulate --lod`): a point on the ground
 * (agents' levels come from their horizontal distance to it). Agents start on a grid 3 m apart,
 * 64 to a row (agents.ts); the camera stands at the middle of the grid's width and at a seeded
 * depth within the middle half of its length, so that a long crowd has near, middle and far
 * agents and the figures do not hinge on the camera sitting at an edge. Depends only on the seed
 * and the agent count: the same for every thread and shard.
 */
import { createRandom } from '../../util/prng.js';

/** Spacing (m) and row length of the agents' starting grid (agents.ts places agent a at (3·(a mod 64), 3·⌊a/64⌋)). */
export const GRID_SPACING = 3;
export const GRID_ROW = 64;

export interface LodCamera {
  x: number;
  z: number;
}

export function lodCamera(seed: number, agents: number): LodCamera {
  const width = GRID_SPACING * (Math.min(agents, GRID_ROW) - 1);
  const length = GRID_SPACING * Math.floor((agents - 1) / GRID_ROW);
  // A stream of its own (the agents' inputs use the seed with their index).
  const rand = createRandom((seed ^ 0x6c6f6463) >>> 0);
  return { x: width / 2, z: length * (0.25 + 0.5 * rand()) };
}
