// Where the largest velocity changes of `motionmatch quality` happen: every agent of a scenario is
// run as the quality command runs it (the same scripted input per agent and seed, foot IK on,
// flat ground, at the display rate --hz), each step's largest change of a joint's world velocity
// between consecutive steps is taken from the output positions (the pops measure), and the
// largest events are listed with what was going on: the joint, the clip and frame played, steps
// since the last transition, which feet were locked before and after the step, the requested
// speed. The same event replayed with foot IK off (--no-ik) tells whether the animation itself
// (a transition's blend, the capture) or foot IK made it. A diagnostic for docs/quality.md, no
// measure itself (its agents start on a grid as the crowd's do, not from quality's own run).
//
// Usage: node scripts/pop-events.mjs DB.mmdb [--scenario wander] [--agents 24] [--seconds 20] [--hz 60] [--json]
//        (POP_EVENTS_TOP=N lists N events, default 12; POP_EVENTS_NO_IK=1 runs without foot IK;
//        POP_EVENTS_TERRAIN=hills|steps on that terrain, as `quality --terrain` builds it;
//        POP_EVENTS_SEED=K the scripted inputs' and the terrain's seed, as `quality --seed K`, default 1)
// Needs the compiled package (npm run build).
import { DIST, scenarioDiagnostic } from './scenario-diagnostic.mjs';

// The environment's settings, checked before the database is read.
const top = Math.max(1, Number(process.env.POP_EVENTS_TOP ?? 12) || 12), footIK = process.env.POP_EVENTS_NO_IK !== '1';
const terrain = process.env.POP_EVENTS_TERRAIN ?? '';
const seed = Number(process.env.POP_EVENTS_SEED ?? 1);
if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) { process.stderr.write(`pop-events: POP_EVENTS_SEED must be a whole number from 0 to 4294967295, got ${process.env.POP_EVENTS_SEED}\n`); process.exit(2); }
if (terrain !== '' && terrain !== 'hills' && terrain !== 'steps') { process.stderr.write(`pop-events: POP_EVENTS_TERRAIN must be hills or steps, got ${terrain}\n`); process.exit(2); }
const { db, dbPath, scenario, agents, seconds, hz, json, port, MotionMatchingController, createInput, ScriptedDriver } = await scenarioDiagnostic('pop-events');
const ground = terrain === '' ? null : (await import(new URL('sim/terrain/terrain.js', DIST))).terrainGround({ kind: terrain, seed });
const dt = 1 / hz, steps = Math.round(seconds / dt), J = db.skeleton.names.length, names = db.skeleton.names;

/** The largest change of a joint's velocity (m/s) from positions at three consecutive steps, and the joint; into out. */
function largestChange(wp, p1, p2, out) {
  let most = 0, joint = -1;
  for (let j = 0; j < J; j++) {
    let d = 0;
    for (let k = 0; k < 3; k++) { const a = (wp[3 * j + k] - 2 * p1[3 * j + k] + p2[3 * j + k]) / dt; d += a * a; }
    if (d > most) { most = d; joint = j; }
  }
  out.change = Math.sqrt(most); out.joint = joint;
}

const events = [], found = { change: 0, joint: -1 };
for (let a = 0; a < agents; a++) {
  const c = new MotionMatchingController(db, { footIK, ...(ground ? { ground } : {}) });
  c.reset(c.frame, 3 * (a % 64), 3 * Math.floor(a / 64), 0);
  const driver = new ScriptedDriver(scenario, seed, a, dt), input = createInput();
  const p1 = new Float64Array(3 * J), p2 = new Float64Array(3 * J);
  let transitions = c.transitionCount, lastTransition = -1;
  const locks = () => (footIK ? `${c.footIK.isLocked(0) ? 'L' : '-'}${c.footIK.isLocked(1) ? 'R' : '-'}` : '--');
  for (let t = 0; t < steps; t++) {
    driver.drive(c.rootPosition, input);
    const before = locks();
    c.update(dt, input, port);
    if (c.transitionCount !== transitions) { transitions = c.transitionCount; lastTransition = t; }
    if (t >= 2) {
      largestChange(c.worldPositions, p1, p2, found);
      events.push({
        agent: a, step: t, seconds: +(t * dt).toFixed(3), change: found.change, joint: names[found.joint],
        clip: db.clips[c.clipIndex].name, frame: c.frame, stepsSinceTransition: lastTransition < 0 ? null : t - lastTransition,
        lockedBefore: before, lockedAfter: locks(), requestedSpeed: Math.hypot(input.velocityX, input.velocityZ),
      });
      // Keep the list short as it grows: only the largest matter.
      if (events.length > 4 * top + 1000) { events.sort((x, y) => y.change - x.change); events.length = 4 * top; }
    }
    p2.set(p1); p1.set(c.worldPositions);
  }
}
events.sort((x, y) => y.change - x.change);
const shown = events.slice(0, top);
if (json) {
  process.stdout.write(JSON.stringify({ database: dbPath, scenario, agents, seconds, hz, seed, footIK, terrain: terrain || null, events: shown }) + '\n');
} else {
  process.stdout.write(`${dbPath}: the ${shown.length} largest velocity changes of a joint between steps, ${scenario}, ${agents} agents x ${seconds} s at ${hz} Hz, seed ${seed}, foot IK ${footIK ? 'on' : 'off'}${ground ? `, on ${terrain}` : ''}\n`);
  process.stdout.write(`${'m/s'.padStart(6)}  ${'joint'.padEnd(14)} ${'agent'.padStart(5)} ${'time s'.padStart(7)} ${'since tr'.padStart(8)} ${'locks'.padEnd(7)} ${'speed'.padStart(5)}  clip (frame)\n`);
  for (const e of shown) {
    process.stdout.write(`${e.change.toFixed(2).padStart(6)}  ${e.joint.padEnd(14)} ${String(e.agent).padStart(5)} ${e.seconds.toFixed(2).padStart(7)} ${String(e.stepsSinceTransition ?? '-').padStart(8)} ${e.lockedBefore} → ${e.lockedAfter} ${e.requestedSpeed.toFixed(2).padStart(5)}  ${e.clip} (${e.frame})\n`);
  }
  process.stdout.write('locks: L / R the left / right foot locked, before → after the step; since tr: steps since the last transition\n');
}
