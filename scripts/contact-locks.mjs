// Where the skate of feet the data has down comes from: for every leg-step whose playing frame
// labels the foot in contact, the foot IK's lock state (locked, released while the contact lasts,
// free) and the contact joint's horizontal speed in the output (world positions after IK). A
// diagnostic for docs/quality.md's skate: the state is the controller's own (read from its foot
// IK block), so it explains the measure and is no measure itself. Also counted: feet out of
// contact within 5 cm of the floor.
//
// Usage: node scripts/contact-locks.mjs DB.mmdb [--scenario wander] [--agents 24] [--seconds 20] [--hz 60] [--json]
// Needs the compiled package (npm run build).
import { DIST, scenarioDiagnostic } from './scenario-diagnostic.mjs';

const { db, dbPath, scenario, agents, seconds, hz, json, port, MotionMatchingController, createInput, ScriptedDriver } = await scenarioDiagnostic('contact-locks');
const { LOCKED, LEG_SIZE, RELEASED } = await import(new URL('runtime/foot-ik/state.js', DIST));
const { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } = await import(new URL('features/contacts.js', DIST));
const dt = 1 / hz, steps = Math.round(seconds / dt);
const [leftJoint, rightJoint] = contactJoints(db.roles);
const legs = [{ bit: CONTACT_LEFT, joint: leftJoint }, { bit: CONTACT_RIGHT, joint: rightJoint }];
/** Per row: leg-steps and the sum of their speeds (cm/s). */
const rows = new Map();
const add = (key, speed) => { const r = rows.get(key) ?? [0, 0]; r[0]++; r[1] += speed; rows.set(key, r); };
for (let a = 0; a < agents; a++) {
  const c = new MotionMatchingController(db);
  c.reset(c.frame, 3 * a, 0, 0);
  const driver = new ScriptedDriver(scenario, 1, a, dt), input = createInput(), prev = new Float64Array(6);
  for (let t = 0; t < steps; t++) {
    driver.drive(c.rootPosition, input);
    c.update(dt, input, port);
    const wp = c.worldPositions, S = c.footIK.S; // the foot IK's block (private: a diagnostic's read)
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
if (json) {
  process.stdout.write(JSON.stringify({ database: dbPath, scenario: scenario, agents, seconds, rows: out }) + '\n');
} else {
  process.stdout.write(`${dbPath}, ${scenario}, ${agents} agents x ${seconds} s at ${hz} Hz: leg-steps whose frame has the foot down\n`);
  process.stdout.write(`${'steps'.padEnd(36)} ${'leg-steps'.padStart(9)} ${'share'.padStart(7)} ${'speed cm/s'.padStart(10)} ${'adds cm/s'.padStart(9)}\n`);
  for (const r of out) {
    process.stdout.write(`${r.steps.padEnd(36)} ${String(r.legSteps).padStart(9)} ${(100 * r.shareOfContact).toFixed(1).padStart(6)}% ${r.meanSpeedCmPerSec.toFixed(1).padStart(10)} ${r.addsToContactMeanCmPerSec.toFixed(2).padStart(9)}\n`);
  }
}
