/**
 * Tag filters of a crowd's locomotion searches (src/sim/search-tags.ts): --require-tag and
 * --exclude-tag reach every search, an overlay's tag is left out of locomotion unless required, bad
 * tags are refused by name, and shards with other filters do not merge.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import type { Database } from '../../src/database/database.js';
import { Matcher } from '../../src/search/matcher.js';
import { AgentGroup, type SimulationConfig } from '../../src/sim/agents.js';
import { checkSearchTags, locomotionTags } from '../../src/sim/search-tags.js';
import { overlaySimulation } from '../../src/sim/overlay/schedule.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { runCli, runCliInProcess, tempDir } from '../helpers/cli.js';

let db: Database;
let matcher: Matcher;
beforeAll(async () => {
  db = buildDatabase(builtinSources(), { tagRules: [{ tag: 'stand', pattern: 'idle' }, { tag: 'side', pattern: 'strafe_*' }] });
  matcher = await Matcher.create(db);
});

/**
 * Searches that landed on a frame carrying `tag`, over 24 agents x 4 s at 30 Hz. (Where an agent
 * starts is no search's choice: every agent starts on the first clip, the built-in idle.)
 */
function landingsOnTag(cfg: Partial<SimulationConfig>, tag: string): number {
  const bit = 1 << db.tagNames.indexOf(tag);
  const full: SimulationConfig = { agents: 24, seconds: 4, hz: 30, seed: 3, scenario: 'stop-go', method: 'kdtree', footIK: true, recordAgent: -1, ...cfg };
  const g = new AgentGroup(db, matcher, [[0, full.agents]], full);
  let n = 0;
  for (let s = 0; s < full.seconds * full.hz; s++) {
    g.step();
    for (const c of g.controllers) if (c.transitioned && db.tagBits[c.frame] & bit) n++;
  }
  return n;
}

describe('tag filters of the locomotion searches', () => {
  it('--exclude-tag keeps every search off the tag; without it the same crowd plays it', () => {
    expect(landingsOnTag({ scenario: 'strafe' }, 'side')).toBeGreaterThan(5);
    expect(landingsOnTag({ scenario: 'strafe', tags: { require: [], exclude: ['side'] } }, 'side')).toBe(0);
  });

  it('--require-tag keeps every search on the tag', () => {
    const bit = 1 << db.tagNames.indexOf('side');
    const g = new AgentGroup(db, matcher, [[0, 24]], { agents: 24, seconds: 3, hz: 30, seed: 5, scenario: 'strafe', method: 'kdtree', footIK: true, recordAgent: -1, tags: { require: ['side'], exclude: [] } });
    let off = 0, searched = 0;
    for (let s = 0; s < 90; s++) {
      g.step();
      for (const c of g.controllers) if (c.transitioned) { searched++; if (!(db.tagBits[c.frame] & bit)) off++; }
    }
    expect(searched).toBeGreaterThan(12);
    expect(off).toBe(0);
  });

  it("leaves an overlay's tag out of locomotion unless required", () => {
    // (Any tag does for the rule: here the sidesteps, which the strafe's searches otherwise land on.)
    expect(landingsOnTag({ scenario: 'strafe', overlay: overlaySimulation('side') }, 'side')).toBe(0);
    expect(landingsOnTag({ scenario: 'strafe', overlay: overlaySimulation('side'), tags: { require: ['side'], exclude: [] } }, 'side')).toBeGreaterThan(5);
    expect(locomotionTags(db, null, 'stand')).toEqual({ require: null, exclude: ['stand'] });
    expect(locomotionTags(db, { require: ['stand'], exclude: [] }, 'stand')).toEqual({ require: ['stand'], exclude: null });
    expect(locomotionTags(db, null, null)).toEqual({ require: null, exclude: null });
  });

  it('refuses tags the database does not have, and a tag both required and excluded', () => {
    expect(() => checkSearchTags(db, { require: ['wave'], exclude: [] })).toThrow(/--require-tag wave: the database has no frames tagged 'wave' \(its tags: .*side.*stand/);
    expect(() => checkSearchTags(db, { require: ['side'], exclude: ['side'] })).toThrow(/tag 'side' is both required .* and excluded/);
    expect(() => new AgentGroup(db, matcher, [[0, 1]], { agents: 1, seconds: 1, hz: 30, seed: 1, scenario: 'wander', method: 'kdtree', footIK: true, recordAgent: -1, tags: { require: [], exclude: ['nope'] } })).toThrow(/no frames tagged 'nope'/);
  });
});

describe('simulate --require-tag / --exclude-tag', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = tempDir('mm-tags-');
    file = join(dir, 'tagged.mmdb');
    writeFileSync(file, encodeDatabase(db));
  });

  it('reports the filters, refuses unknown tags with exit 2, and shards of other filters do not merge', async () => {
    const base = ['simulate', '--db', file, '--agents', '8', '--seconds', '3', '--scenario', 'strafe', '--no-warmup'];
    const filtered = await runCliInProcess([...base, '--exclude-tag', 'side', '--json']);
    expect(filtered.code, filtered.stderr).toBe(0);
    expect(JSON.parse(filtered.stdout).tags).toEqual({ require: [], exclude: ['side'] });
    const plain = await runCliInProcess([...base, '--json']);
    expect(JSON.parse(plain.stdout).hash).not.toBe(JSON.parse(filtered.stdout).hash);
    const bad = runCli([...base, '--exclude-tag', 'wave']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/^motionmatch simulate: --exclude-tag wave: the database has no frames tagged 'wave'/);
    const a = join(dir, 'a.json'), b = join(dir, 'b.json');
    expect((await runCliInProcess([...base, '--exclude-tag', 'side', '--shard', '0/2', '--out', a])).code).toBe(0);
    expect((await runCliInProcess([...base, '--shard', '1/2', '--out', b])).code).toBe(0);
    const merged = await runCliInProcess(['merge', a, b]);
    expect(merged.code).not.toBe(0);
    expect(merged.stderr).toMatch(/tag filters/);
  });
});
