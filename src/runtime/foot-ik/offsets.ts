/**
 * The offset a free foot carries between where the animation has it and where it is shown (foot
 * IK, foot-ik.ts): on the ground it moves as the captured foot moves (followDataOnGround), and the
 * target offset and a released heel's turn blend out with decay springs (decayOffset, decayHeel).
 * Functions on the foot IK state block (state.ts). Settings come in the options object: a number
 * argument of a call V8 does not inline is boxed, garbage per character-step.
 */
import type { Database } from '../../database/database.js';
import { quatRotateVec3 } from '../../math/quat.js';
import type { CapturedData } from '../captured-data.js';
import type { FootIKHost } from './host.js';
import type { FootIKOptions } from './options.js';
import type { LegJoints } from './rig.js';
import { holdRisen } from './leg.js';
import { ANIM_PREV, DATA_HOLD, DECAY_DT, DECAY_E, HEEL, HEEL_VEL, HOLD, HOLD_CAPTURED, LOCKED, OFFSET, OFFSET_VEL, REACH, RELEASED, STEP_DT } from './state.js';

/** The captured contact point's motion over a step, in the world. */
const DATA_STEP = new Float64Array(3);

/**
 * A free foot on the ground moves as the captured foot of the playing frame moves (capturedData's
 * contact motion, turned into the world by the character's root), not as the animated pose
 * moves it: what inertialization offsets, root corrections and the other leg's lock add to the
 * animated motion of a foot on the floor is what shows as sliding (on real captures, free feet on
 * the ground moved 20-40% faster than the data's own at the same frames). The difference goes
 * into the leg's horizontal offset, in proportion to how much the foot is on the ground
 * (groundHold), and blends out as the foot rises (decayOffset). Off the ground, nothing changes.
 */
export function followDataOnGround(S: Float64Array, at: number, i: number, leg: LegJoints, host: FootIKHost, data: CapturedData, db: Database): void {
  // (a foot raised by updateLift is that much further off the ground; a released one is held by
  // the ground alone, as in decayOffset)
  const want = S[at + HOLD] * (S[at + LOCKED] === RELEASED ? 1 : S[at + REACH]);
  if (want <= 0) { S[at + DATA_HOLD] = 0; return; }
  const wp = host.worldPositions, c = 3 * leg.contact, m = data.contactMotion, f = 6 * host.frame + 3 * i;
  // The captured foot's motion counts as far as the captured foot is on the ground too: a foot the
  // capture has in its swing while the output still has it down (a transition's blend) lifts
  // before it moves, and catches up in the air.
  const frames = S[STEP_DT] * host.playRate * db.fps * S[at + HOLD_CAPTURED];
  DATA_STEP[0] = m[f] * frames; DATA_STEP[1] = m[f + 1] * frames; DATA_STEP[2] = m[f + 2] * frames;
  quatRotateVec3(DATA_STEP, 0, host.rootRotation, 0, DATA_STEP, 0);
  const dx = DATA_STEP[0] - (wp[c] - S[at + ANIM_PREV]), dz = DATA_STEP[2] - (wp[c + 2] - S[at + ANIM_PREV + 2]);
  // The hold changes the shown foot's velocity by its rise times the gap between the captured and
  // the animated motion: it rises no faster than changes it by more than the captures' own feet
  // ever change theirs in a frame (CapturedData.contactVelocityChangeMax). Taken at once as the
  // foot came into the ground band, a foot landing with a transition's blend still carrying it
  // over the floor (6 m/s) stopped dead in one step (5.6 m/s at a toe, at 30 Hz on the shared real
  // captures, where a step crosses the band); a foot landing as captured is held at once.
  const hold = holdRisen(S[at + DATA_HOLD], want, data.contactVelocityChangeMax * S[STEP_DT], Math.sqrt(dx * dx + dz * dz));
  S[at + DATA_HOLD] = hold;
  if (hold <= 0) return;
  S[at + OFFSET] += hold * dx;
  S[at + OFFSET + 2] += hold * dz;
}

/** The decay spring (as decaySpringUpdate) on a released foot's heel turn, with the offset's half-life. */
export function decayHeel(S: Float64Array, at: number, opts: FootIKOptions): void {
  const o = at + HEEL, v = at + HEEL_VEL, dt = S[STEP_DT];
  if (S[o] === 0 && S[o + 1] === 0 && S[o + 2] === 0 && S[v] === 0 && S[v + 1] === 0 && S[v + 2] === 0) return;
  // = decaySpringUpdate(S, o, S, v, blendHalfLife, dt, 3), with decayOffset's cached e^(-y dt)
  // (the call boxed its two number arguments: 26 bytes of garbage per character-step).
  const y = (2 * Math.LN2) / opts.blendHalfLife;
  if (dt !== S[DECAY_DT]) { S[DECAY_DT] = dt; S[DECAY_E] = Math.exp(-y * dt); }
  const e = S[DECAY_E];
  for (let k = 0; k < 3; k++) {
    const j = S[v + k] + S[o + k] * y;
    S[o + k] = e * (S[o + k] + j * dt);
    S[v + k] = e * (S[v + k] - j * y * dt);
  }
}

/**
 * The decay spring (as decaySpringUpdate) on a leg's target offset, with e^(-y dt) cached per dt.
 * A free foot on the ground (its animated contact point within the ground band of its planted
 * height) keeps its horizontal offset: blended out there, the gap between where it was held and
 * where the animation has it would show as the foot sliding along the floor (on real captures,
 * released feet moved 20-35 cm/s faster near the ground than the data's own). It blends out as
 * the foot rises, where the same motion is part of the swing.
 */
export function decayOffset(S: Float64Array, at: number, opts: FootIKOptions): void {
  const o = at + OFFSET, v = at + OFFSET_VEL, dt = S[STEP_DT];
  if (S[o] === 0 && S[o + 1] === 0 && S[o + 2] === 0 && S[v] === 0 && S[v + 1] === 0 && S[v + 2] === 0) return;
  const y = (2 * Math.LN2) / opts.blendHalfLife;
  if (dt !== S[DECAY_DT]) { S[DECAY_DT] = dt; S[DECAY_E] = Math.exp(-y * dt); }
  const e = S[DECAY_E];
  // A foot let go of in mid-contact (RELEASED: its leg could not reach the lock) is held by the
  // ground alone, not let go of for its reach: it moves as its step lifts it (updateLift), where
  // let go at once it slid the first centimetres along the floor (on the shared captures'
  // locomotion clips alone, strafe skate 17.5 → 19.0 cm/s without this, 16.9 with it).
  const hold = S[at + LOCKED] === 1 ? 0 : S[at + HOLD] * (S[at + LOCKED] === RELEASED ? 1 : S[at + REACH]);
  for (let k = 0; k < 3; k++) {
    if (k !== 1 && hold > 0) {
      // The horizontal parts move on by the share of the step the foot is off the ground, dt (1 − hold):
      // the spring's time slows down on the ground and stops on it, so the blend goes on where it was.
      if (hold >= 1) continue;
      const t = dt * (1 - hold), eh = Math.exp(-y * t), j = S[v + k] + S[o + k] * y;
      S[o + k] = eh * (S[o + k] + j * t);
      S[v + k] = eh * (S[v + k] - j * y * t);
      continue;
    }
    const j = S[v + k] + S[o + k] * y;
    S[o + k] = e * (S[o + k] + j * dt);
    S[v + k] = e * (S[v + k] - j * y * dt);
  }
}
