// When a stop settles: for every stop request of a scenario (the quality meter's rule: the
// requested speed drops to 0 from above 0.1 m/s), measured from the output joint positions after
// IK, how long after the request the root is still (under 2 cm/s), when the last transition came,
// and when both feet are still on the ground (each leg's lowest foot joint under 1 cm/s and within
// 1 cm of its own planted height) for good, while the request holds (at most 3 s); and the lowest
// foot's speed one second after the request, the figure `motionmatch quality` reports (its mean
// is the quality table's "1 s after a stop" foot column). A diagnostic for docs/quality.md's
// stops ("Stops on captures at 24 fps"): it explains the one-second figure, and is no measure itself.
//
// Usage: node scripts/stop-settle.mjs DB.mmdb [--scenario stop-go] [--agents 24] [--seconds 20] [--hz 60] [--json]
//        (STOP_SETTLE_TERRAIN=hills|steps on that terrain, as `quality --terrain` builds it, heights then
//        measured from the ground under each joint; STOP_SETTLE_SEED=K the scripted inputs' and the
//        terrain's seed, default 1; STOP_SETTLE_TOP=N lists the N stops whose lowest foot moves
//        fastest a second after the request, with the clip and frame shown and the locks)
// Needs the compiled package (npm run build).
import { DIST, scenarioDiagnostic } from './scenario-diagnostic.mjs';

// The environment's settings, checked before the database is read (as pop-events.mjs does).
const terrain = process.env.STOP_SETTLE_TERRAIN ?? '';
const seed = Number(process.env.STOP_SETTLE_SEED ?? 1), top = Number(process.env.STOP_SETTLE_TOP ?? 0);
if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) { process.stderr.write(`stop-settle: STOP_SETTLE_SEED must be a whole number from 0 to 4294967295, got ${process.env.STOP_SETTLE_SEED}\n`); process.exit(2); }
if (terrain !== '' && terrain !== 'hills' && terrain !== 'steps') { process.stderr.write(`stop-settle: STOP_SETTLE_TERRAIN must be hills or steps, got ${terrain}\n`); process.exit(2); }
if (!(Number.isInteger(top) && top >= 0 && top <= 1000)) { process.stderr.write(`stop-settle: STOP_SETTLE_TOP must be a whole number from 0 to 1000, got ${process.env.STOP_SETTLE_TOP}\n`); process.exit(2); }
const { db, dbPath, scenario, agents, seconds, hz, json, port, MotionMatchingController, createInput, ScriptedDriver } = await scenarioDiagnostic('stop-settle', 'stop-go');
const { qualityRig } = await import(new URL('runtime/quality/quality-rig.js', DIST));
const ground = terrain === '' ? null : (await import(new URL('sim/terrain/terrain.js', DIST))).terrainGround({ kind: terrain, seed });
const dt = 1 / hz, steps = Math.round(seconds / dt);
const rig = qualityRig(db), roles = db.roles;
/** Which leg (0 left, 1 right) each of the rig's foot joints belongs to. */
const legOf = Array.from(rig.feet, (f) => (f === roles.leftToe || f === roles.leftFoot ? 0 : 1));
const STILL_ROOT = 0.02, STILL_FOOT = 0.01, DOWN = 0.01, WINDOW = 3;
const stops = [];
for (let a = 0; a < agents; a++) {
  const c = new MotionMatchingController(db, ground ? { ground } : {});
  c.reset(c.frame, 3 * (a % 64), 3 * Math.floor(a / 64), 0); // where the simulation places agent a (sim/agents.ts)
  const driver = new ScriptedDriver(scenario, seed, a, dt), input = createInput();
  const prev = new Float64Array(c.worldPositions.length), prevRoot = new Float64Array(3), low = [0, 0], speed = [0, 0];
  let requested = 0, stop = null, transitions = c.transitionCount;
  const close = () => { if (stop && stop.footAt1s !== null) stops.push(stop); stop = null; };
  for (let t = 0; t < steps; t++) {
    driver.drive(c.rootPosition, input);
    c.update(dt, input, port);
    const time = (t + 1) * dt, wp = c.worldPositions, root = c.rootPosition;
    const req = Math.hypot(input.velocityX, input.velocityZ);
    if (req > 1e-3) close();
    else if (requested > 0.1) { close(); stop = { agent: a, at: time - dt, lastTransition: 0, rootMoving: 0, feetMoving: 0, footAt1s: null }; }
    requested = req;
    const rootSpeed = Math.hypot(root[0] - prevRoot[0], root[2] - prevRoot[2]) / dt;
    if (stop && t > 0) {
      const since = time - stop.at;
      if (c.transitionCount !== transitions) stop.lastTransition = since;
      if (rootSpeed > STILL_ROOT) stop.rootMoving = since;
      low[0] = low[1] = Infinity;
      for (let k = 0; k < rig.feet.length; k++) {
        const j = 3 * rig.feet[k], h = wp[j + 1] - (ground ? ground.height(wp[j], wp[j + 2]) : 0) - rig.restHeights[k], l = legOf[k];
        if (h < low[l]) { low[l] = h; speed[l] = Math.hypot(wp[j] - prev[j], wp[j + 1] - prev[j + 1], wp[j + 2] - prev[j + 2]) / dt; }
      }
      if (low[0] > DOWN || low[1] > DOWN || speed[0] > STILL_FOOT || speed[1] > STILL_FOOT) stop.feetMoving = since;
      // The meter's one-second figure: the lowest foot joint of both legs, its speed over the last step.
      if (stop.footAt1s === null && since >= 1 - 1e-9) {
        stop.footAt1s = low[0] <= low[1] ? speed[0] : speed[1];
        stop.shown = { clip: db.clips[c.clipIndex].name, frame: c.frame, locks: `${c.footIK.isLocked(0) ? 'L' : '-'}${c.footIK.isLocked(1) ? 'R' : '-'}` };
      }
      if (since >= WINDOW - 1e-9) close();
    }
    transitions = c.transitionCount;
    prev.set(wp); prevRoot.set(root);
  }
  close();
}
const n = stops.length;
const stat = (key) => {
  const v = stops.map((s) => s[key]).sort((x, y) => x - y);
  const q = (p) => (n ? v[Math.min(n - 1, Math.floor(p * n))] : Number.NaN);
  return { mean: n ? v.reduce((x, y) => x + y, 0) / n : Number.NaN, p50: q(0.5), p90: q(0.9), max: n ? v[n - 1] : Number.NaN };
};
const worst = [...stops].sort((x, y) => y.footAt1s - x.footAt1s).slice(0, top)
  .map((s) => ({ agent: s.agent, at: +s.at.toFixed(3), lowestFootCmPerSec: +(100 * s.footAt1s).toFixed(2), ...s.shown }));
const report = {
  db: dbPath, scenario, agents, seconds, hz, seed, terrain: terrain || null, stops: n,
  lastTransitionSeconds: stat('lastTransition'), rootStillSeconds: stat('rootMoving'), feetSettledSeconds: stat('feetMoving'),
  feetSettledAfter1s: stops.filter((s) => s.feetMoving > 1).length,
  lowestFootAt1sCmPerSec: { mean: n ? (100 * stops.reduce((x, s) => x + s.footAt1s, 0)) / n : Number.NaN },
  worst,
};
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const f = (s) => `mean ${s.mean.toFixed(2)} s, median ${s.p50.toFixed(2)}, p90 ${s.p90.toFixed(2)}, longest ${s.max.toFixed(2)}`;
  console.log(`${dbPath}, ${scenario}: ${n} stop requests (${agents} agents x ${seconds} s at ${hz} Hz, seed ${seed}${ground ? `, on ${terrain}` : ''}), from the output joint positions`);
  console.log(`  last transition after the request: ${f(report.lastTransitionSeconds)}`);
  console.log(`  root still (under ${100 * STILL_ROOT} cm/s) from:  ${f(report.rootStillSeconds)}`);
  console.log(`  both feet down and still from:     ${f(report.feetSettledSeconds)}; ${report.feetSettledAfter1s} of ${n} after 1 s`);
  console.log(`  lowest foot 1 s after the request: ${report.lowestFootAt1sCmPerSec.mean.toFixed(2)} cm/s on average (the quality table's figure)`);
  for (const w of worst) console.log(`    agent ${w.agent}, request at ${w.at.toFixed(2)} s: ${w.lowestFootCmPerSec.toFixed(2)} cm/s, showing ${w.clip} (${w.frame}), locks ${w.locks}`);
}
