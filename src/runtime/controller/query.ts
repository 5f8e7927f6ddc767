/**
 * The search's query for one controller: the simulated trajectory predicted at the schema's future
 * offsets (controller/trajectory-layout.ts), then the raw features (the playing frame's pose and
 * that trajectory in the root's frame), normalised into the search request with the bound a
 * transition must beat and the frames it must not land on.
 * Works on the controller's state block `s` (controller/state.ts) and the buffers of its host.
 */
import type { Database } from '../../database/database.js';
import type { PoseSearchRequest } from '../search-port.js';
import type { ControllerInput, ControllerOptions } from './options.js';
import type { TrajectoryLayout } from './trajectory-layout.js';
import { springCharacterPredict, springRotationPredict } from '../../math/spring.js';
import { quatInvRotateVec3, quatRotateVec3 } from '../../math/quat.js';
import { countCandidates } from '../../search/upload.js';
import { DESIRED_ROT, DESIRED_VEL, LAST_COST, ROOT_POS, ROOT_ROT, SIM_ACC, SIM_ANGVEL, SIM_POS, SIM_ROT, SIM_VEL, STAND_REQUEST } from './state.js';

/** What the query reads and writes on its host (the controller). */
export interface QueryHost {
  readonly db: Database;
  readonly options: ControllerOptions;
  /** The playing frame. */
  readonly frame: number;
  readonly trajectoryTimes: Float64Array;
  readonly trajectoryPositions: Float64Array;
  readonly trajectoryRotations: Float64Array;
  readonly rawQuery: Float32Array;
  readonly request: PoseSearchRequest;
}

// Temporaries of one call, shared by every controller of a thread.
const QUERY_V3 = new Float64Array(3);
const QUERY_V3B = new Float64Array(3);

/**
 * Fills trajectoryPositions / trajectoryRotations with the simulated trajectory at every one of
 * the schema's offsets.
 */
export function predictTrajectory(c: QueryHost, s: Float64Array): void {
  const o = c.options, n = c.trajectoryTimes.length;
  springCharacterPredict(c.trajectoryPositions, null, null, s, SIM_POS, s, SIM_VEL, s, SIM_ACC, s, DESIRED_VEL, o.trajectoryHalfLife, c.trajectoryTimes, n, 3);
  springRotationPredict(c.trajectoryRotations, null, s, SIM_ROT, s, SIM_ANGVEL, s, DESIRED_ROT, o.facingHalfLife, c.trajectoryTimes, n);
}

/**
 * predictTrajectory() for the query alone: positions at the position groups' offsets and
 * rotations at the direction groups' offsets only (the other entries keep older values; debug
 * views call predictTrajectory() for the full arrays).
 */
export function predictForQuery(c: QueryHost, S: Float64Array, layout: TrajectoryLayout): void {
  const o = c.options, times = c.trajectoryTimes;
  for (const g of layout.positions) {
    springCharacterPredict(c.trajectoryPositions, null, null, S, SIM_POS, S, SIM_VEL, S, SIM_ACC, S, DESIRED_VEL, o.trajectoryHalfLife, times, g.count, 3, g.first);
  }
  for (const g of layout.directions) {
    springRotationPredict(c.trajectoryRotations, null, S, SIM_ROT, S, SIM_ANGVEL, S, DESIRED_ROT, o.facingHalfLife, times, g.count, g.first);
  }
}

/**
 * Raw features of the query (c.rawQuery): the playing frame's pose features and the predicted
 * trajectory; then the normalised query, its bound and exclusion window in c.request.
 */
export function buildQuery(c: QueryHost, s: Float64Array, layout: TrajectoryLayout, input: ControllerInput, clipStart: number, clipEnd: number, atEnd: boolean): void {
  const db = c.db, S = db.stride, q = c.rawQuery, f = c.frame, request = c.request;
  // Pose features come from the playing frame (as in Holden's controller): they describe where
  // the feet are now; the trajectory part comes from the simulation.
  for (let d = 0; d < S; d++) q[d] = db.rawFeatures[f * S + d];
  // Asked to stand, the pose's motion asked for is none: matched on its walking feet, a stop
  // found the slow phase of another walk and walked on (standing.ts).
  if (s[STAND_REQUEST] !== 0) for (const [a, b] of layout.velocityColumns) for (let d = a; d < b; d++) q[d] = 0;
  const v = QUERY_V3, r = QUERY_V3B;
  for (const g of layout.positions) {
    for (let k = 0; k < g.count; k++) {
      const t = 3 * (g.first + k);
      v[0] = c.trajectoryPositions[t] - s[ROOT_POS]; v[1] = 0; v[2] = c.trajectoryPositions[t + 2] - s[ROOT_POS + 2];
      quatInvRotateVec3(r, 0, s, ROOT_ROT, v, 0);
      q[g.col + 2 * k] = r[0]; q[g.col + 2 * k + 1] = r[2];
    }
  }
  for (const g of layout.directions) {
    for (let k = 0; k < g.count; k++) {
      v[0] = 0; v[1] = 0; v[2] = 1;
      quatRotateVec3(r, 0, c.trajectoryRotations, 4 * (g.first + k), v, 0);
      quatInvRotateVec3(v, 0, s, ROOT_ROT, r, 0);
      q[g.col + 2 * k] = v[0]; q[g.col + 2 * k + 1] = v[2];
    }
  }
  const nq = request.query;
  for (let d = 0; d < db.dims; d++) nq[d] = (q[d] - db.mean[d]) / db.scale[d];
  for (let d = db.dims; d < S; d++) nq[d] = 0;
  // Continuing sets the bound a transition must beat. Its cost is the playing frame's own: the
  // query copies that frame's pose features, so every candidate is compared as "the frame to be
  // at now" (judging the next frame instead would favour any lookalike of the current pose).
  // A transition must save continuingBias and minRelativeGain of that cost (UE's minimum percent
  // improvement): smaller gains are within what the playing clip's own cost varies by over a step.
  let cost = 0;
  if (!atEnd) {
    for (let d = 0; d < S; d++) { const e = db.features[f * S + d] - nq[d]; cost += e * e; }
    s[LAST_COST] = cost;
    request.bestCost = Math.min(cost - c.options.continuingBias, cost * (1 - c.options.minRelativeGain));
  } else {
    s[LAST_COST] = Infinity;
    request.bestCost = Infinity;
  }
  const w = Math.round(c.options.sameClipWindow * db.fps);
  request.excludeStart = Math.max(clipStart, f - w);
  request.excludeEnd = Math.min(clipEnd, f + w + 1);
  request.requireTags = input.requireTags;
  request.excludeTags = input.excludeTags;
}

/** Search candidates per database (counted once). */
const candidateCounts = new WeakMap<Database, number>();

function candidateCount(db: Database): number {
  let n = candidateCounts.get(db);
  if (n === undefined) {
    n = countCandidates(db.candidates, db.frameCount);
    candidateCounts.set(db, n);
  }
  return n;
}

/**
 * Whether the request built by buildQuery leaves a candidate frame outside its same-clip window.
 * None does only in a database of one short clip (a single 1-frame capture: its one candidate is
 * always the playing frame's neighbour): the character then plays on instead of searching, as a
 * search that finds nothing better. (Searched, it threw "the candidate set is empty" from the
 * controller's update.) Counted in the window only when the database has no more candidates than it spans.
 */
export function searchCanLand(db: Database, request: PoseSearchRequest): boolean {
  const total = candidateCount(db), from = request.excludeStart, to = request.excludeEnd;
  if (total > to - from) return true;
  let inside = 0;
  for (let f = from; f < to; f++) if (db.candidates[f] !== 0) inside++;
  return inside < total;
}
