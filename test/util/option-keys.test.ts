/**
 * Options objects refuse keys their reader does not know (src/util/option-keys.ts): a misspelt
 * option was ignored without a word — `buildDatabase(sources, { mirorr: true })` built an unmirrored
 * database, `MatcherPool.create(db, { thread: 2 })` started one worker per core.
 */
import { describe, expect, it } from 'vitest';
import { refuseUnknownCallOptions, refuseUnknownOptions } from '../../src/util/option-keys.js';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherPool } from '../../src/search/pool/pool.js';

describe('options objects with a key their reader does not know', () => {
  it('the check names the key and the keys there are; inherited and known keys pass', () => {
    expect(() => refuseUnknownOptions({ a: 1, c: 2 }, { a: true, b: true }, 'thing option ')).toThrow(/^unknown thing option "c" \(options: a, b\)$/);
    expect(() => refuseUnknownOptions({ a: undefined }, { a: true }, '')).not.toThrow();
    expect(() => refuseUnknownOptions(Object.create({ inherited: 1 }), { a: true }, '')).not.toThrow();
    expect(() => refuseUnknownOptions({ toString: 1 }, { a: true }, 'x ')).toThrow(/unknown x "toString"/);
  });

  it('the per-call check (no allocation) refuses the same keys, a key of Object.prototype too', () => {
    expect(() => refuseUnknownCallOptions({ a: 1, c: 2 }, { a: true, b: true }, 'call option ')).toThrow(/^unknown call option "c" \(options: a, b\)$/);
    expect(() => refuseUnknownCallOptions({ constructor: 1 }, { a: true }, '')).toThrow(/unknown "constructor"/);
    expect(() => refuseUnknownCallOptions({ a: 1 }, { a: true }, '')).not.toThrow();
  });

  it('search and searchBatch refuse a misspelt option (normalised: true searched normalised queries as raw ones)', async () => {
    const db = buildDatabase(builtinSources().slice(0, 2));
    const m = await Matcher.create(db, { backend: 'js' });
    const q = db.features.slice(0, db.stride);
    expect(() => m.search(q, { normalised: true } as never)).toThrow(/^unknown search option "normalised" \(options: method, normalized, /);
    expect(m.search(q, { normalized: true }).frame).toBe(0);
    expect(() => m.searchBatch(q, 1, { methd: 'brute' } as never)).toThrow(/^unknown searchBatch option "methd"/);
    // One object may serve both calls: search ignores the batch's per-query exclusions.
    const shared = { normalized: true, excludeRangesPerQuery: [null] };
    expect(m.search(q, shared).frame).toBe(m.searchBatch(q, 1, shared).frames[0]);
  });

  it('buildDatabase, Matcher.create and MatcherPool.create refuse a misspelt option and take the right one', async () => {
    const sources = builtinSources().slice(0, 2);
    expect(() => buildDatabase(sources, { mirorr: true } as never)).toThrow(/^unknown build option "mirorr" \(options: schema, mirror, /);
    const db = buildDatabase(sources, { mirror: true });
    expect(db.clips).toHaveLength(4);
    await expect(Matcher.create(db, { backnd: 'js' } as never)).rejects.toThrow(/^unknown Matcher option "backnd" \(options: backend, /);
    expect((await Matcher.create(db, { backend: 'js' })).backend).toBe('js');
    await expect(MatcherPool.create(db, { thread: 2 } as never)).rejects.toThrow(/^unknown MatcherPool option "thread" \(options: .*threads/);
    // memory keeps its own reason (the pool makes its shared memory).
    await expect(MatcherPool.create(db, { memory: new WebAssembly.Memory({ initial: 1 }) } as never)).rejects.toThrow(/creates its own shared memory/);
    const pool = await MatcherPool.create(db, { threads: 0, backend: 'js' });
    await expect(pool.searchBatch(db.features.slice(0, db.stride), 1, { normalised: true } as never)).rejects.toThrow(/unknown searchBatch option "normalised"/);
    await pool.close();
    // With worker threads the batch does not go through the matcher: checked there too.
    const threaded = await MatcherPool.create(db, { threads: 1 });
    try {
      await expect(threaded.searchBatch(db.features.slice(0, db.stride), 1, { normalised: true } as never)).rejects.toThrow(/unknown searchBatch option "normalised"/);
      expect((await threaded.searchBatch(db.features.slice(0, db.stride), 1, { normalized: true })).frames[0]).toBe(0);
    } finally { await threaded.close(); }
  });
});
