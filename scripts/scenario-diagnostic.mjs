// What the scenario diagnostics (contact-locks.mjs, skate-split.mjs) share: their command line
// (DB.mmdb [--scenario S] [--agents N] [--seconds S] [--hz H] [--json]), checked with a usage line and exit 2,
// the database read (a one-line error and exit 1), and the compiled package's modules they drive a
// crowd with. Needs the compiled package (npm run build).
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';

/** The compiled package's src/ folder. */
export const DIST = new URL('../dist/src/', import.meta.url);

/**
 * Parses and checks `name`'s command line (`defaultScenario` without --scenario), reads the database, and imports the crowd's modules:
 * { db, scenario, agents, seconds, hz (the display rate, 10-240, default 60), json, dbPath, port,
 * MotionMatchingController, createInput, ScriptedDriver }.
 * Exits with a one-line message on a bad command line (2) or an unreadable database (1).
 */
export async function scenarioDiagnostic(name, defaultScenario = 'wander') {
  const usage = `usage: node scripts/${name}.mjs DB.mmdb [--scenario wander|path|stop-go|strafe (default ${defaultScenario})] [--agents N] [--seconds S] [--hz H] [--json]`;
  const fail = (code, message) => { process.stderr.write(`${message}\n`); process.exit(code); };
  if (!existsSync(new URL('sim/scenarios.js', DIST))) fail(1, `${name}: dist/ not found; run \`npm run build\` first`);
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      allowPositionals: true,
      options: { scenario: { type: 'string', default: defaultScenario }, agents: { type: 'string', default: '24' }, seconds: { type: 'string', default: '20' }, hz: { type: 'string', default: '60' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    }));
  } catch (e) {
    fail(2, `${name}: ${e.message}\n${usage}`);
  }
  if (values.help) { process.stdout.write(`${usage}\n`); process.exit(0); }
  const agents = Number(values.agents), seconds = Number(values.seconds), hz = Number(values.hz);
  if (positionals.length !== 1 || !(Number.isInteger(agents) && agents >= 1 && agents <= 10_000) || !(seconds > 0 && seconds <= 3600) || !(hz >= 10 && hz <= 240)) fail(2, usage);
  const { readDatabaseFile } = await import(new URL('database/mmdb/mmdb-node.js', DIST));
  const { Matcher } = await import(new URL('search/matcher.js', DIST));
  const { MatcherSearchPort } = await import(new URL('runtime/matcher-port.js', DIST));
  const { MotionMatchingController, createInput } = await import(new URL('runtime/controller/controller.js', DIST));
  const { ScriptedDriver, QUALITY_SCENARIOS } = await import(new URL('sim/scenarios.js', DIST));
  if (!QUALITY_SCENARIOS.includes(values.scenario)) fail(2, `${name}: --scenario must be one of ${QUALITY_SCENARIOS.join(', ')}, got ${values.scenario}\n${usage}`);
  let db;
  try {
    db = readDatabaseFile(positionals[0]);
  } catch (e) {
    fail(1, `${name}: ${e.message}`);
  }
  const port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
  return { db, dbPath: positionals[0], scenario: values.scenario, agents, seconds, hz, json: values.json, port, MotionMatchingController, createInput, ScriptedDriver };
}
