// What the 1 s trajectory error of `motionmatch quality` is made of: how far the simulated
// trajectory leads the character's root, split by the kind of request (the direction of travel
// against the requested facing, in 45-degree bins, and the requested speed). Only steps whose
// request has held for SETTLED seconds count: the lead then is the steady gap the root adjustment
// leaves, which the meter's prediction (made from the simulation) reads as trajectory error. Beside
// each row: the root's speed, and the share of steps where the adjustment wanted more than its limit
// (the animation's own speed: docs/runtime.md, root adjustment). The directions the database covers
// (runtime/controller/travel-coverage.ts) are listed first: a request outside them is answered by
// orientation warping. A diagnostic for docs/quality.md ("Where the stand-in's trajectory error
// comes from"), no measure itself.
//
// Usage: node scripts/trajectory-lag.mjs DB.mmdb [--scenario strafe] [--agents 24] [--seconds 20] [--hz 60] [--json]
// Needs the compiled package (npm run build).
import { DIST, scenarioDiagnostic } from './scenario-diagnostic.mjs';

const { db, dbPath, scenario, agents, seconds, hz, json, port, MotionMatchingController, createInput, ScriptedDriver } = await scenarioDiagnostic('trajectory-lag', 'strafe');
const { ADJUST_CAP, ADJUST_POS_K } = await import(new URL('runtime/controller/state.js', DIST));
const { travelCoverage, TRAVEL_BINS } = await import(new URL('runtime/controller/travel-coverage.js', DIST));
/** Seconds a request must have held for its steps to count. */
const SETTLED = 1.5;
const dt = 1 / hz, steps = Math.round(seconds / dt);
const rows = new Map();
for (let a = 0; a < agents; a++) {
  const c = new MotionMatchingController(db, {});
  c.reset(c.frame, 3 * (a % 64), 3 * Math.floor(a / 64), 0); // where the simulation places agent a (sim/agents.ts)
  // The controller's state block, read for the adjustment's limit (a diagnostic looks inside).
  const s = c.s;
  const driver = new ScriptedDriver(scenario, 1, a, dt), input = createInput();
  let px = c.rootPosition[0], pz = c.rootPosition[2], held = 0, last = '';
  for (let t = 0; t < steps; t++) {
    driver.drive(c.rootPosition, input);
    c.update(dt, input, port);
    const speed = Math.hypot(input.velocityX, input.velocityZ);
    const rootSpeed = Math.hypot(c.rootPosition[0] - px, c.rootPosition[2] - pz) / dt;
    px = c.rootPosition[0]; pz = c.rootPosition[2];
    if (speed < 0.1) { held = 0; last = ''; continue; }
    // The direction of travel against the facing asked for (or against the travel itself when none is).
    const facing = Number.isNaN(input.facing) ? Math.atan2(input.velocityX, input.velocityZ) : input.facing;
    let rel = (Math.atan2(input.velocityX, input.velocityZ) - facing) * (180 / Math.PI);
    rel = ((rel % 360) + 540) % 360 - 180;
    const bin = Math.round(rel / 45) * 45, key = `${bin === -180 ? 180 : bin}|${speed.toFixed(1)}`;
    if (key !== last) { held = 0; last = key; }
    held += dt;
    if (held < SETTLED) continue;
    const lx = c.simPosition[0] - c.rootPosition[0], lz = c.simPosition[2] - c.rootPosition[2];
    const lead = Math.hypot(lx, lz), along = (lx * input.velocityX + lz * input.velocityZ) / speed;
    // The adjustment this step wanted (the gap times its per-step share) against its limit.
    const wanted = (lead * s[ADJUST_POS_K]) / dt, limited = wanted > s[ADJUST_CAP] ? 1 : 0;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { direction: bin === -180 ? 180 : bin, speed: +speed.toFixed(1), steps: 0, lead: 0, along: 0, rootSpeed: 0, limited: 0 }));
    r.steps++; r.lead += lead; r.along += along; r.rootSpeed += rootSpeed; r.limited += limited;
  }
}
const table = [...rows.values()].sort((p, q) => p.direction - q.direction || p.speed - q.speed).map((r) => ({
  direction: r.direction, speed: r.speed, steps: r.steps,
  leadCm: (100 * r.lead) / r.steps, leadAlongCm: (100 * r.along) / r.steps, rootSpeed: r.rootSpeed / r.steps, limitedShare: r.limited / r.steps,
}));
const cov = travelCoverage(db), width = 360 / TRAVEL_BINS;
const covered = [];
for (let b = 0; b < TRAVEL_BINS; b++) if (cov.covered[b]) covered.push(-180 + (b + 0.5) * width);
if (json) {
  process.stdout.write(`${JSON.stringify({ database: dbPath, scenario, agents, seconds, hz, settledSeconds: SETTLED, coveredTravelDegrees: covered, rows: table })}\n`);
} else {
  const all = table.reduce((n, r) => n + r.steps, 0), mean = table.reduce((m, r) => m + r.leadCm * r.steps, 0) / Math.max(1, all);
  console.log(`${dbPath}, ${scenario}: ${agents} agents x ${seconds} s at ${hz} Hz, steps whose request held ${SETTLED} s or more (${all}); the simulation's lead over the root ${mean.toFixed(1)} cm on average`);
  console.log(`  directions of travel the data covers (degrees from the facing, bin centres): ${covered.map((d) => d.toFixed(0)).join(' ') || 'none'}`);
  console.log('  travel vs facing  speed  steps   lead (cm)  along travel  root speed  adjustment limited');
  for (const r of table) console.log(`  ${String(r.direction).padStart(5)} deg      ${r.speed.toFixed(1).padStart(5)}  ${String(r.steps).padStart(5)}   ${r.leadCm.toFixed(1).padStart(8)}  ${r.leadAlongCm.toFixed(1).padStart(12)}  ${r.rootSpeed.toFixed(2).padStart(10)}  ${(100 * r.limitedShare).toFixed(0).padStart(17)}%`);
}
