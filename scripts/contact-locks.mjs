// Where the skate of feet the data has down comes from: for every leg-step whose playing frame
// labels the foot in contact, the foot IK's lock state (locked, released while the contact lasts,
// free) and the contact joint's horizontal speed in the output (world positions after IK). A
// diagnostic for docs/quality.md's skate: the state is the controller's own (read from its foot
// IK block), so it explains the measure and is no measure itself. Also counted: feet out of
// contact within 5 cm of the floor. Then the locks let go of while their contact lasts (RELEASED:
// the leg could not reach them), by how long after the last transition they were planted, whether
// a transition started while they were held, how far (horizontally) the animation's contact point
// was from the lock when they were let go of, and how many were planted again before the contact
// ended (docs/quality.md, "A foot let go of in mid-contact").
//
// Usage: node scripts/contact-locks.mjs DB.mmdb [--scenario wander] [--agents 24] [--seconds 20] [--hz 60] [--json]
// Needs the compiled package (npm run build).
import { DIST, scenarioDiagnostic } from './scenario-diagnostic.mjs';

const { db, dbPath, scenario, agents, seconds, hz, json, port, MotionMatchingController, createInput, ScriptedDriver } = await scenarioDiagnostic('contact-locks');
const { LOCKED, LEG_SIZE, OFFSET, RELEASED } = await import(new URL('runtime/foot-ik/state.js', DIST));
const { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } = await import(new URL('features/contacts.js', DIST));
const dt = 1 / hz, steps = Math.round(seconds / dt);
const [leftJoint, rightJoint] = contactJoints(db.roles);
const legs = [{ bit: CONTACT_LEFT, joint: leftJoint }, { bit: CONTACT_RIGHT, joint: rightJoint }];
/** Per row: leg-steps and the sum of their speeds (cm/s). */
const rows = new Map();
const add = (key, speed) => { const r = rows.get(key) ?? [0, 0]; r[0]++; r[1] += speed; rows.set(key, r); };
/** Locks: how many were planted, and of those let go of in mid-contact, by how long after the last transition they were planted (s). */
const AFTER = [0.1, 0.2, 0.4, Infinity];
const locks = { planted: 0, releasedInContact: 0, plantedAfter: AFTER.map(() => 0), transitionWhileHeld: 0, gapSum: 0, plantedAgain: 0 };
for (let a = 0; a < agents; a++) {
  const c = new MotionMatchingController(db);
  c.reset(c.frame, 3 * a, 0, 0);
  const driver = new ScriptedDriver(scenario, 1, a, dt), input = createInput(), prev = new Float64Array(6);
  // Per leg: the last step's lock state, when the held lock was planted and whether a transition came while it was held.
  const was = [0, 0], since = [0, 0], crossed = [false, false];
  let transitions = c.transitionCount, lastTransition = -Infinity;
  for (let t = 0; t < steps; t++) {
    driver.drive(c.rootPosition, input);
    c.update(dt, input, port);
    const wp = c.worldPositions, S = c.footIK.S; // the foot IK's block (private: a diagnostic's read)
    const transitioned = c.transitionCount !== transitions;
    if (transitioned) { transitions = c.transitionCount; lastTransition = t; }
    for (let i = 0; i < 2; i++) {
      const state = S[i * LEG_SIZE + LOCKED];
      if (state === 1 && was[i] !== 1) {
        locks.planted++;
        if (was[i] === RELEASED) locks.plantedAgain++;
        since[i] = (t - lastTransition) * dt; crossed[i] = false;
      } else if (state === 1 && transitioned) crossed[i] = true;
      if (was[i] === 1 && state === RELEASED) {
        locks.releasedInContact++;
        const k = AFTER.findIndex((x) => since[i] < x);
        locks.plantedAfter[k < 0 ? AFTER.length - 1 : k]++; // (none before it: the last bucket)
        if (crossed[i]) locks.transitionWhileHeld++;
        // The offset a release hands over is the lock less the animated contact point (plus what was still blending).
        locks.gapSum += Math.hypot(S[i * LEG_SIZE + OFFSET], S[i * LEG_SIZE + OFFSET + 2]);
      }
      was[i] = state;
    }
    for (let i = 0; i < 2; i++) {
      const j = 3 * legs[i].joint;
      if (t > 0) {
        const speed = (Math.hypot(wp[j] - prev[3 * i], wp[j + 2] - prev[3 * i + 2]) / dt) * 100;
        const state = S[i * LEG_SIZE + LOCKED] === 1 ? 'locked' : S[i * LEG_SIZE + LOCKED] === RELEASED ? 'released' : 'free';
        if ((db.contacts[c.frame] & legs[i].bit) !== 0) { add('contact', speed); add(`contact, ${state}`, speed); }
        else if (wp[j + 1] < 0.05) add(`no contact, within 5 cm, ${state}`, speed);
      }
      prev[3 * i] = wp[j]; prev[3 * i + 1] = wp[j + 1]; prev[3 * i + 2] = wp[j + 2];
    }
  }
}
const all = rows.get('contact')?.[0] ?? 0;
const out = [...rows].sort(([a], [b]) => a.localeCompare(b)).map(([key, [n, sum]]) => ({
  steps: key, legSteps: n, shareOfContact: all ? n / all : 0, meanSpeedCmPerSec: sum / n, addsToContactMeanCmPerSec: all ? sum / all : 0,
}));
const released = locks.releasedInContact;
const releases = {
  planted: locks.planted, releasedInContact: released,
  plantedAfterTransition: Object.fromEntries(AFTER.map((x, k) => [k === AFTER.length - 1 ? `${AFTER[k - 1]}s+` : `<${x}s`, locks.plantedAfter[k]])),
  transitionWhileHeld: locks.transitionWhileHeld, meanGapCm: released ? (100 * locks.gapSum) / released : 0, plantedAgainInContact: locks.plantedAgain,
};
if (json) {
  process.stdout.write(JSON.stringify({ database: dbPath, scenario: scenario, agents, seconds, rows: out, releases }) + '\n');
} else {
  process.stdout.write(`${dbPath}, ${scenario}, ${agents} agents x ${seconds} s at ${hz} Hz: leg-steps whose frame has the foot down\n`);
  process.stdout.write(`${'steps'.padEnd(36)} ${'leg-steps'.padStart(9)} ${'share'.padStart(7)} ${'speed cm/s'.padStart(10)} ${'adds cm/s'.padStart(9)}\n`);
  for (const r of out) {
    process.stdout.write(`${r.steps.padEnd(36)} ${String(r.legSteps).padStart(9)} ${(100 * r.shareOfContact).toFixed(1).padStart(6)}% ${r.meanSpeedCmPerSec.toFixed(1).padStart(10)} ${r.addsToContactMeanCmPerSec.toFixed(2).padStart(9)}\n`);
  }
  const after = Object.entries(releases.plantedAfterTransition).map(([k, n]) => `${k} ${n}`).join(', ');
  process.stdout.write(`locks: ${releases.planted} planted, ${released} let go of in mid-contact (${releases.plantedAgainInContact} planted again before the contact ended); ` +
    `those were planted after the last transition: ${after}; ${releases.transitionWhileHeld} saw a transition while held; the animation's contact point was ${releases.meanGapCm.toFixed(1)} cm from the lock on average when let go of\n`);
}
