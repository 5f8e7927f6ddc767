/**
 * The built-in database and a KD-tree search port on it: what most controller tests step against.
 * The database is the process's (builtinDatabase caches it); the port is new for every caller, so
 * that no test file sees another's search settings.
 */
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import type { Database } from '../../src/database/database.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

export async function builtinSearch(): Promise<{ db: Database; port: MatcherSearchPort }> {
  const db = builtinDatabase();
  return { db, port: new MatcherSearchPort(await Matcher.create(db), 'kdtree') };
}
