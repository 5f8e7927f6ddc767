/**
 * A take's frames as the capture-fault rules compare them (calibration-frames.ts, place-jumps.ts,
 * glitch-frames.ts): per frame, the joints of the body — the hips and the joints under them; a
 * reference root above the hips carries the clip's placement and is no part of the pose — relative
 * to the hips, and the hips' place in the world.
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { worldTransformsOfFrames } from '../anim/pose.js';

/** Per frame the body's joints (the hips and the joints under them) relative to the hips (J*3, others 0), and the hips' place (3). */
export class BodyFrames {
  readonly rel: Float64Array;
  readonly place: Float64Array;
  private readonly body: Uint8Array;
  private readonly wr: Float64Array;
  private readonly wp: Float64Array;

  /** The clip whose frames these are; a copy with the same numbers may take its place (repairGlitches edits a copy). */
  clip: Clip;

  constructor(private readonly skeleton: Skeleton, clip: Clip, private readonly hips: number) {
    this.clip = clip;
    const J = skeleton.names.length, F = clip.frameCount, parents = skeleton.parents;
    this.body = new Uint8Array(J);
    for (let j = 0; j < J; j++) for (let k = j; k >= 0; k = parents[k]) if (k === hips) { this.body[j] = 1; break; }
    this.rel = new Float64Array(F * J * 3);
    this.place = new Float64Array(F * 3);
    this.wr = new Float64Array(J * 4);
    this.wp = new Float64Array(J * 3);
    for (let f = 0; f < F; f++) this.update(f);
  }

  /** Recomputes frame f from the clip's pose. */
  update(f: number): void {
    const J = this.skeleton.names.length, h = 3 * this.hips;
    worldTransformsOfFrames(this.skeleton.parents, this.clip.rotations.subarray(f * J * 4, (f + 1) * J * 4), this.clip.translations.subarray(f * J * 3, (f + 1) * J * 3), 1, this.wr, this.wp);
    for (let j = 0; j < J; j++) for (let k = 0; k < 3; k++) this.rel[(f * J + j) * 3 + k] = this.body[j] ? this.wp[3 * j + k] - this.wp[h + k] : 0;
    for (let k = 0; k < 3; k++) this.place[3 * f + k] = this.wp[h + k];
  }

  /** How far apart the poses of frames f and g are: the largest move of a body joint relative to the hips (m). */
  poseDistance(f: number, g: number): number {
    const J = this.skeleton.names.length, a = f * J * 3, b = g * J * 3;
    let most = 0;
    for (let i = 0; i < J * 3; i += 3) {
      const dx = this.rel[b + i] - this.rel[a + i], dy = this.rel[b + i + 1] - this.rel[a + i + 1], dz = this.rel[b + i + 2] - this.rel[a + i + 2];
      const d = dx * dx + dy * dy + dz * dz;
      if (d > most) most = d;
    }
    return Math.sqrt(most);
  }

  /** How far apart frames f and g are: poseDistance, or the hips' move in the world if that is larger (m). */
  distance(f: number, g: number): number {
    const px = this.place[3 * g] - this.place[3 * f], py = this.place[3 * g + 1] - this.place[3 * f + 1], pz = this.place[3 * g + 2] - this.place[3 * f + 2];
    return Math.max(this.poseDistance(f, g), Math.sqrt(px * px + py * py + pz * pz));
  }
}

