// What the near-ground foot skate of `motionmatch quality` is made of: every foot joint-step (toe
// and ankle, per step) split by the contact label of the frame shown (the frame played, or the
// captured frame) and by whether the joint is near the ground (its height over its own low height
// below H = 2.5 cm, the skate measure's band), with each part's share of the joint-steps and its
// mean skate (speed × the measure's weight). Side by side: the database played plainly (every clip,
// frame by frame, no search, no IK: the data's level), the same data at the frames the output plays
// (each output step counts the captured step from the frame it shows to the next: the data's level
// for the mix of motion the scenario asks for) and the engine's output in one scenario.
// A diagnostic for docs/quality.md ("Where the stand-in's skate comes from"): it splits the measure by
// the data's labels, it is no measure itself.
//
// Usage: node scripts/skate-split.mjs DB.mmdb [--scenario wander] [--agents 24] [--seconds 20] [--hz 60] [--json]
// Needs the compiled package (npm run build).
import { DIST, scenarioDiagnostic } from './scenario-diagnostic.mjs';

const { db, dbPath, scenario, agents, seconds, hz, json, port, MotionMatchingController, createInput, ScriptedDriver } = await scenarioDiagnostic('skate-split');
const { forwardKinematics } = await import(new URL('anim/pose.js', DIST));
const { qualityRig } = await import(new URL('runtime/quality/quality-rig.js', DIST));
const { SKATE_HEIGHT, skateWeight } = await import(new URL('runtime/quality/output-measures.js', DIST));
const { CONTACT_LEFT, CONTACT_RIGHT } = await import(new URL('features/contacts.js', DIST));
const rig = qualityRig(db), r = db.roles, J = db.skeleton.names.length;
/** Per foot joint: its leg's contact bit (left toe and ankle: CONTACT_LEFT). */
const bits = Int32Array.from(rig.feet, (j) => (j === r.leftToe || j === r.leftFoot ? CONTACT_LEFT : CONTACT_RIGHT));
const PARTS = ['contact, near the ground', 'contact, above H', 'no contact, near the ground', 'no contact, above H'];

/** Per part: joint-steps and the sum of their skate (cm/s). */
function tally() { return { count: new Float64Array(4), skate: new Float64Array(4) }; }

/** One foot joint-step: `over` and `overPrev` its heights over its low height (m) at both ends, `dist` its horizontal move (m) over `dt`. */
function add(t, contact, over, overPrev, dist, dt) {
  const mid = 0.5 * (over + overPrev), near = mid < SKATE_HEIGHT;
  const part = (contact ? 0 : 2) + (near ? 0 : 1);
  t.count[part]++;
  if (near) t.skate[part] += (dist / dt) * 100 * skateWeight(mid);
}

// The data played plainly, frame by frame at the database's rate; each frame's foot joint positions
// are kept for the tally at the frames played.
const data = tally(), FEET = rig.feet.length, captured = new Float64Array(db.frameCount * 3 * FEET);
{
  const rot = new Float64Array(4 * J), pos = new Float64Array(3 * J), wr = new Float64Array(4 * J), wp = new Float64Array(3 * J), prev = new Float64Array(3 * J);
  const dt = 1 / db.fps;
  for (const clip of db.clips) {
    for (let k = 0; k < clip.count; k++) {
      const f = clip.start + k;
      for (let i = 0; i < 4 * J; i++) rot[i] = db.rotations[4 * J * f + i];
      for (let i = 0; i < 3 * J; i++) pos[i] = db.translations[3 * J * f + i];
      forwardKinematics(db.skeleton.parents, rot, 0, pos, 0, wr, wp);
      for (let q = 0; q < FEET; q++) for (let d = 0; d < 3; d++) captured[3 * (FEET * f + q) + d] = wp[3 * rig.feet[q] + d];
      if (k > 0) {
        for (let q = 0; q < rig.feet.length; q++) {
          const j = 3 * rig.feet[q];
          add(data, (db.contacts[f] & bits[q]) !== 0, wp[j + 1] - rig.restHeights[q], prev[j + 1] - rig.restHeights[q], Math.hypot(wp[j] - prev[j], wp[j + 2] - prev[j + 2]), dt);
        }
      }
      prev.set(wp);
    }
  }
}

/** The captured step from frame f to the next of its clip (none at a clip's end), into `t`, labelled by f. */
function addCaptured(t, f, clip) {
  if (f + 1 >= clip.start + clip.count) return;
  for (let q = 0; q < FEET; q++) {
    const a = 3 * (FEET * f + q), b = a + 3 * FEET;
    add(t, (db.contacts[f] & bits[q]) !== 0, captured[b + 1] - rig.restHeights[q], captured[a + 1] - rig.restHeights[q], Math.hypot(captured[b] - captured[a], captured[b + 2] - captured[a + 2]), 1 / db.fps);
  }
}

// The engine's output in the scenario (foot IK on, flat ground, at the display rate --hz), labelled by the frame played;
// the data at the same frames beside it.
const output = tally(), played = tally();
{
  const dt = 1 / hz, steps = Math.round(seconds / dt), prev = new Float64Array(3 * J);
  for (let a = 0; a < agents; a++) {
    const c = new MotionMatchingController(db);
    c.reset(c.frame, 3 * a, 0, 0);
    const driver = new ScriptedDriver(scenario, 1, a, dt), input = createInput();
    for (let t = 0; t < steps; t++) {
      driver.drive(c.rootPosition, input);
      c.update(dt, input, port);
      const wp = c.worldPositions;
      addCaptured(played, c.frame, db.clips[c.clipIndex]);
      if (t > 0) {
        for (let q = 0; q < rig.feet.length; q++) {
          const j = 3 * rig.feet[q];
          add(output, (db.contacts[c.frame] & bits[q]) !== 0, wp[j + 1] - rig.restHeights[q], prev[j + 1] - rig.restHeights[q], Math.hypot(wp[j] - prev[j], wp[j + 2] - prev[j + 2]), dt);
        }
      }
      prev.set(wp);
    }
  }
}

/** The table rows of a tally: each part's share of all joint-steps, its mean skate (near parts), and what it adds to the near-ground mean. */
function rows(t) {
  const all = t.count.reduce((a, b) => a + b, 0), near = t.count[0] + t.count[2];
  return PARTS.map((name, k) => ({
    part: name,
    share: all ? t.count[k] / all : 0,
    meanSkateCmPerSec: k % 2 === 0 && t.count[k] ? t.skate[k] / t.count[k] : null,
    addsToNearMeanCmPerSec: k % 2 === 0 && near ? t.skate[k] / near : null,
  }));
}
const nearMean = (t) => (t.skate[0] + t.skate[2]) / Math.max(1, t.count[0] + t.count[2]);
const result = {
  database: dbPath, scenario: scenario, agents, seconds, skateHeightM: SKATE_HEIGHT,
  data: { nearGroundSkateCmPerSec: nearMean(data), parts: rows(data) },
  dataAtFramesPlayed: { nearGroundSkateCmPerSec: nearMean(played), parts: rows(played) },
  output: { nearGroundSkateCmPerSec: nearMean(output), parts: rows(output) },
};
if (json) {
  process.stdout.write(JSON.stringify(result) + '\n');
} else {
  process.stdout.write(`${dbPath}: foot joint-steps by the contact label of the frame shown and by height (near the ground: below ${100 * SKATE_HEIGHT} cm over the joint's low height)\n`);
  process.stdout.write(`data: every clip played plainly; at frames played: the data's step from each frame the output shows; output: ${scenario}, ${agents} agents x ${seconds} s at ${hz} Hz\n`);
  process.stdout.write(`${'part'.padEnd(30)} ${'data share'.padStart(10)} ${'skate'.padStart(7)} ${'played share'.padStart(12)} ${'skate'.padStart(7)} ${'output share'.padStart(12)} ${'skate'.padStart(7)}\n`);
  const fmt = (x) => (x === null ? '–' : x.toFixed(1));
  for (let k = 0; k < 4; k++) {
    const d = result.data.parts[k], p = result.dataAtFramesPlayed.parts[k], o = result.output.parts[k];
    process.stdout.write(`${PARTS[k].padEnd(30)} ${(100 * d.share).toFixed(1).padStart(9)}% ${fmt(d.meanSkateCmPerSec).padStart(7)} ${(100 * p.share).toFixed(1).padStart(11)}% ${fmt(p.meanSkateCmPerSec).padStart(7)} ${(100 * o.share).toFixed(1).padStart(11)}% ${fmt(o.meanSkateCmPerSec).padStart(7)}\n`);
  }
  process.stdout.write(`${'near-ground skate mean (cm/s)'.padEnd(30)} ${''.padStart(10)} ${result.data.nearGroundSkateCmPerSec.toFixed(1).padStart(7)} ${''.padStart(12)} ${result.dataAtFramesPlayed.nearGroundSkateCmPerSec.toFixed(1).padStart(7)} ${''.padStart(12)} ${result.output.nearGroundSkateCmPerSec.toFixed(1).padStart(7)}\n`);
}
