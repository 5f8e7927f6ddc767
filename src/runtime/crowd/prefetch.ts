/**
 * Bringing the database rows a character's next step reads into the caches while the character
 * before it steps. A crowd's characters play frames scattered over the whole database (the
 * built-in one's poses are 6.9 MB, the shared real set's 31 MB), so every step of every character
 * starts with a dozen cache misses: its frame's pose (about 10 lines of rotations and translations)
 * and one line in each per-frame table (root-relative joint, root track, clip, contacts, the
 * captured contact motion and heights). Read one after another, as the step needs them, they cost
 * the memory's latency each; touched together one character ahead, they arrive while the previous
 * character's step computes. JavaScript has no prefetch instruction; independent loads do the
 * same. Nothing is written: the step's results are the same to the bit.
 */
import type { Database } from '../../database/database.js';
import { capturedData, type CapturedData } from '../captured-data.js';
import type { MotionMatchingController } from '../controller/controller.js';
import { databaseRuntime, type DatabaseRuntime } from '../database-runtime.js';

/** Floats per 64-byte cache line in a Float32Array, and in a Float64Array. */
const F32_PER_LINE = 16, F64_PER_LINE = 8;

/** Where touchLines leaves the sum of its loads, so that they are not optimised away. */
const LINES_SUM = new Float64Array(1);

/**
 * Reads one value per 64-byte line of a[from, from + n) (a crowd's state buffer: the next
 * character's block, touched while the current one steps). The sum goes to an array, not returned:
 * a double returned by a call that is not inlined is a 16-byte heap box, one per agent-step.
 */
export function touchLines(a: Float64Array, from: number, n: number): void {
  let sum = 0;
  for (let i = from, end = from + n; i < end; i += F64_PER_LINE) sum += a[i];
  LINES_SUM[0] += sum;
}

export class FramePrefetch {
  private readonly rt: DatabaseRuntime;
  private readonly captured: CapturedData;
  /** Where the loads' sum goes, so that they are not optimised away (a returned double would be boxed). */
  private readonly sink = new Float64Array(1);

  constructor(readonly db: Database) {
    this.rt = databaseRuntime(db);
    this.captured = capturedData(db);
  }

  /**
   * Touches what `c`'s next step reads at frames f and f + 1 (f the frame it plays: a step on a
   * frame exactly reads f + 1 next, one between two frames reads both). A character of another
   * database is left alone.
   */
  touch(c: MotionMatchingController): void {
    const rt = this.rt;
    if (c.rt !== rt) return;
    const J = rt.joints, last = rt.db.frameCount - 1, f = c.frame < last ? c.frame : last - 1;
    if (f < 0) return;
    const R = rt.db.rotations, T = rt.db.translations, cd = this.captured;
    let sum = 0;
    // The two frames' poses are consecutive rows: 2 * J * 4 rotations, 2 * J * 3 translations.
    for (let i = f * J * 4, end = i + 8 * J; i < end; i += F32_PER_LINE) sum += R[i];
    for (let i = f * J * 3, end = i + 6 * J; i < end; i += F32_PER_LINE) sum += T[i];
    sum += rt.rootRelativeRotations[4 * f] + rt.rootRelativeTranslations[3 * f] + rt.rootVelocity[3 * f] + rt.rootYawRate[f];
    sum += rt.clipOf[f] + rt.db.contacts[f];
    sum += cd.contactMotion[6 * f] + cd.contactHeight[2 * f] + cd.hipsHeight[f] + cd.contactEnds[f];
    this.sink[0] += sum;
  }

  /** The sum of every value touched so far: NaN once a load fell outside its table (tests). */
  get touchedSum(): number {
    return this.sink[0];
  }
}
