/**
 * Hostile input to merge, info, search and tune (issue 28 §3, cases 1-5): every refusal is one
 * line naming the file, field or option, with exit code 1 (bad input) or 2 (usage), in bounded
 * time, with the inputs unchanged and no output left behind.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, truncateSync, writeFileSync, closeSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, runCliInProcess, tempDir, type CliResult } from '../helpers/cli.js';
import { crc32 } from '../../src/util/crc32.js';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { DEFAULT_SCHEMA } from '../../src/features/schema.js';
import { parseJsonInput, excerpt } from '../../src/util/input-text.js';
import { readRegularFileChecked } from '../../src/util/read-checked-node.js';

/** Every refusal must come well within this; a run is given up after twice as long (a spawned one killed). */
const BOUND_MS = 15_000;

/**
 * The command in this process (runCliInProcess: the compiled main that bin/motionmatch.js calls, its
 * exit code and output as the process's); the simulate runs of beforeAll and the SIGTERM tests run
 * bin/motionmatch.js.
 */
async function run(args: string[]): Promise<CliResult & { ms: number }> {
  const t0 = performance.now();
  const r = await runCliInProcess(args, { timeoutMs: 2 * BOUND_MS });
  return { ...r, ms: performance.now() - t0 };
}

/** Files present in dir (recursively, relative names) with their sizes: "inputs unchanged, nothing left behind". */
function listing(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => `${f}:${statSync(join(dir, f)).size}`);
}

/** A refusal: `code`, one line (for usage errors the first; the usage follows) matching `message`, within the bound, nothing on stdout. */
function expectRefusal(r: CliResult & { ms: number }, code: 1 | 2, message: RegExp): void {
  expect(r.ms, r.stderr).toBeLessThan(BOUND_MS);
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.split('\n');
  expect(lines[0]).toMatch(message);
  expect(lines[0].length, lines[0]).toBeLessThan(400);
  // No raw control character (a terminal escape) reaches the terminal.
  expect(/[\u0000-\u0009\u000b-\u001f\u007f]/.test(r.stderr), JSON.stringify(r.stderr)).toBe(false);
  if (code === 1) expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  else expect(lines[1]).toBe('');
  expect(r.stdout).toBe('');
}

/** A partial report edited by hand, its checksum recomputed as simulate computes it. */
function forge(src: string, dst: string, edit: (r: Record<string, any>) => void): string {
  const r = JSON.parse(readFileSync(src, 'utf8')) as Record<string, any>;
  delete r.checksum;
  edit(r);
  r.checksum = crc32(new TextEncoder().encode(JSON.stringify(r))).toString(16).padStart(8, '0');
  writeFileSync(dst, JSON.stringify(r) + '\n');
  return dst;
}

const dir = tempDir('mm-hostile-b-');
const part = (i: number) => join(dir, `part-${i}.json`);

beforeAll(async () => {
  const shards = await Promise.all([0, 1].map((i) => new Promise<CliResult>((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'simulate', '--agents', '4', '--seconds', '1', '--seed', '5', '--shard', `${i}/2`, '--out', part(i)], { cwd: REPO_ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: '', stderr }));
  })));
  for (const s of shards) expect(s.code, s.stderr).toBe(0);
}, 120_000);

describe('merge: bounded size (case 1)', () => {
  it('refuses a partial report larger than 64 MiB before reading it (four 250 MB files ran V8 out of memory)', async () => {
    const big = join(dir, 'big');
    mkdirSync(big);
    const files = [0, 1, 2, 3].map((i) => {
      const f = join(big, `pad-${i}.json`);
      writeFileSync(f, readFileSync(part(i % 2)));
      truncateSync(f, 250 * 2 ** 20); // sparse: costs no disk
      return f;
    });
    const before = listing(big);
    expectRefusal(await run(['merge', ...files, '--out', join(big, 'merged.json')]), 1,
      /^motionmatch merge: cannot read partial report '.*pad-0\.json': 250\.0 MiB is larger than the 64\.0 MiB a partial report may have$/);
    expect(listing(big)).toEqual(before);
  });

  it('refuses partial reports larger than 1 GiB together, before reading any', async () => {
    const many = join(dir, 'many');
    mkdirSync(many);
    const files = Array.from({ length: 20 }, (_, i) => {
      const f = join(many, `p-${i}.json`);
      closeSync(openSync(f, 'w'));
      truncateSync(f, 60 * 2 ** 20);
      return f;
    });
    expectRefusal(await run(['merge', ...files]), 1, /^motionmatch merge: cannot read the partial reports: together they have 1\.17 GiB, more than the 1 GiB merge reads \(20 files\)$/);
  });

  it('refuses unknown keys, at the top and inside', async () => {
    const padded = forge(part(0), join(dir, 'padded.json'), (r) => { r.pad = 'x'.repeat(1000); });
    expectRefusal(await run(['merge', padded, part(1)]), 1, /^motionmatch merge: .*padded\.json: report\.pad is not a field of a partial report \(edited, or written by another motionmatch version\)$/);
    const inner = forge(part(0), join(dir, 'inner.json'), (r) => { r.result.extra = 1; });
    expectRefusal(await run(['merge', inner, part(1)]), 1, /^motionmatch merge: .*inner\.json: result\.extra is not a field of a partial report/);
  });
});

describe('merge: every field checked, not only the checksum (case 2)', () => {
  const cases: Array<[string, (r: Record<string, any>) => void, RegExp]> = [
    ['quality NaN', (r) => { r.quality.skateNearSum = 'NaN'; }, /quality-nan\.json: quality\.skateNearSum must be a finite number, got "NaN"$/],
    ['hz 0', (r) => { r.run.hz = 0; }, /hz-0\.json: run\.hz must be a number in \[1, 1000\], got 0$/],
    ['steps not seconds x hz', (r) => { r.run.hz = 60; }, /steps-not-seconds-x-hz\.json: run\.steps \(30\) is not run\.seconds x run\.hz \(1 s at 60 Hz: 60 steps\)$/],
    ['terrain {foo:1}', (r) => { r.terrain = { foo: 1 }; }, /terrain-foo-1\.json: terrain must be null \(the run is on flat ground\)$/],
    ['terrain identity {foo:1}', (r) => { r.run.terrain = { foo: 1 }; }, /terrain-identity-foo-1\.json: run\.terrain\.foo is not a field of a partial report/],
    ['negative wall time', (r) => { r.result.wallSeconds = -1; }, /result\.wallSeconds must be a number >= 0, got -1$/],
    ['method', (r) => { r.run.method = 'magic'; }, /run\.method must be one of brute, .*, got the string "magic"$/],
    ['controller', (r) => { r.run.controller = { searchInterval: -1 }; }, /run\.controller: controller option searchInterval must be a finite number > 0, got -1$/],
    ['start time', (r) => { r.result.startedAt = 'yesterday'; }, /result\.startedAt must be a time as simulate writes it .*, got the string "yesterday"$/],
    ['huge host', (r) => { r.result.host = 'h'.repeat(10_000); }, /result\.host must be a string of at most 255 characters, got the string "h{40,50}…$/],
    ['quality steps', (r) => { r.quality.steps = 5; }, /quality\.steps \(5\) is not the shard's 2 agents x 30 steps$/],
  ];
  for (const [name, edit, message] of cases) {
    it(`refuses ${name}, naming the file and the field`, async () => {
      const slug = name.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '').toLowerCase();
      const f = forge(part(0), join(dir, `${slug}.json`), edit);
      const other = name === 'hz 0' || name === 'method' || name === 'controller' || name === 'terrain identity {foo:1}' || name === 'steps not seconds x hz'
        ? forge(part(1), join(dir, `${slug}-1.json`), edit) : part(1);
      const before = listing(dir);
      expectRefusal(await run(['merge', f, other, '--out', join(dir, 'merged.json')]), 1, new RegExp(`^motionmatch merge: .*${message.source}`));
      expect(listing(dir)).toEqual(before);
    });
  }

  it('still merges the untouched shards', async () => {
    const r = await run(['merge', part(1), part(0), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).shards.map((s: { index: number }) => s.index)).toEqual([0, 1]);
  });
});

describe('raw text and huge messages (case 3)', () => {
  it('merge of a non-JSON file quotes a short excerpt with its escape sequences escaped', async () => {
    const f = join(dir, 'escape.json');
    writeFileSync(f, `hello\u001b[31m red\u001b]0;title\u0007 ${'z'.repeat(5000)}`);
    const r = await run(['merge', f, part(1)]);
    expectRefusal(r, 1, /^motionmatch merge: .*escape\.json: not a partial report: invalid JSON: unexpected "h" \(the file starts with "hello\\u001b\[31m red\\u001b\]0;ti…"\)$/);
  });

  it('merge of a cut-short file says where it ends', async () => {
    const f = join(dir, 'cut.json');
    writeFileSync(f, readFileSync(part(0), 'utf8').slice(0, 500));
    expectRefusal(await run(['merge', f, part(1)]), 1, /^motionmatch merge: .*cut\.json: not a partial report: invalid JSON: it ends early \(at line 1, column 501; was it cut short\?\)$/);
  });

  it('merge of 100,000 nested arrays names the file (it gave "Maximum call stack size exceeded")', async () => {
    const f = join(dir, 'deep.json');
    writeFileSync(f, '['.repeat(100_000) + ']'.repeat(100_000));
    expectRefusal(await run(['merge', f, part(1)]), 1, /^motionmatch merge: .*deep\.json: not a partial report: JSON nests deeper than 16 levels \(at line 1, column 17\)$/);
  });

  it('search caps what it echoes of a 10,000-character option', async () => {
    const r = await run(['search', join(dir, 'none.mmdb'), '--queries', 'q.f32', '--method', 'm'.repeat(10_000)]);
    expectRefusal(r, 2, /^motionmatch search: unknown --method "m{80}…" \(expected /);
    expect(r.stderr.length).toBeLessThan(3000);
  });

  it('parseJsonInput: escaped excerpts, depth bound, never the engine\'s raw text', () => {
    const fail = (text: string) => { try { parseJsonInput(text, 'f.json', (m) => new Error(m)); } catch (e) { return (e as Error).message; } return 'parsed'; };
    expect(fail('{"a":1} \u001b[2J')).toBe('f.json: not valid JSON at line 1, column 9 (near "\\u001b[2J")');
    expect(fail('')).toBe('f.json: the file is empty');
    expect(fail('['.repeat(65) + ']'.repeat(65))).toBe('f.json: JSON nests deeper than 64 levels (at line 1, column 65)');
    expect(fail('["[[[[", 1]')).toBe('parsed');
    expect(excerpt('a\nb'.repeat(100), 10)).toBe('a\\u000aba\\u000aba\\u000aba…');
  });
});

describe('large database files (case 4)', () => {
  it('info on a 3 GB file: the magic number, checked from the first bytes (it overflowed: "-1073741824")', async () => {
    const f = join(dir, 'three.mmdb');
    closeSync(openSync(f, 'w'));
    truncateSync(f, 3 * 2 ** 30); // sparse
    const r = await run(['info', f]);
    expectRefusal(r, 1, /^motionmatch info: .*three\.mmdb: bad magic number \(starts with 00 00 00 00 00 00 00 00, expected 4d 4d 44 42 0d 0a 1a 0a\): not a \.mmdb database file$/);
    expect(r.ms).toBeLessThan(5000);
  });

  it('info and search on a 1.9 GB file that is no database: refused after its first bytes, not after reading it (12 s, 2 GB)', async () => {
    const f = join(dir, 'almost2.mmdb');
    writeFileSync(f, 'not a database at all, just text\n');
    truncateSync(f, 1900 * 2 ** 20);
    for (const args of [['info', f], ['search', f, '--queries', part(0)], ['tune', f, '--out', join(dir, 'never')]]) {
      const r = await run(args);
      expectRefusal(r, 1, /almost2\.mmdb: bad magic number \(starts with 6e 6f 74 20 61 20 64 61, expected .*\): not a \.mmdb database file$/);
      expect(r.ms, args[0]).toBeLessThan(5000);
    }
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('info on a file larger than the format allows: refused by its size', async () => {
    const f = join(dir, 'five.mmdb');
    closeSync(openSync(f, 'w'));
    truncateSync(f, 5 * 2 ** 30);
    expectRefusal(await run(['info', f]), 1, /^motionmatch info: cannot read database file '.*five\.mmdb': 5\.0 GiB is larger than the 4\.0 GiB \(4,294,967,295 bytes\) a database file may have$/);
  });

  it('reads in chunks, the head checked first', () => {
    const f = join(dir, 'chunks.bin');
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 255);
    writeFileSync(f, bytes);
    let seen: number[] = [];
    const out = readRegularFileChecked(f, { what: 'test file', maxBytes: 2000, headBytes: 8, chunkBytes: 3, checkHead: (h, size) => { seen = [...h, size]; } });
    expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
    expect(seen).toEqual([...bytes.subarray(0, 8), 1000]);
  });
});

describe('tune: no lost work, nothing left behind (case 5)', () => {
  let small: string, other: string;
  beforeAll(() => {
    const { skeleton, clips } = generateBuiltinClips();
    const sources = clips.filter((c) => /^(idle|walk_1\.2|run_3\.5|strafe_(left|right)_1\.0)$/.test(c.name)).map((clip) => ({ skeleton, clip }));
    small = join(dir, 'small.mmdb');
    writeFileSync(small, encodeDatabase(buildDatabase(sources)));
    other = join(dir, 'other-schema.mmdb');
    writeFileSync(other, encodeDatabase(buildDatabase(sources, { schema: { ...DEFAULT_SCHEMA, groups: DEFAULT_SCHEMA.groups.slice(0, -1) } })));
  });

  it('refuses a --holdout database of another schema before the sweep (it ran the sweep, then failed, leaving an empty folder)', async () => {
    const out = join(dir, 'tune-holdout');
    const r = await run(['tune', small, '--holdout', other, '--out', out, '--budget', '600']);
    expectRefusal(r, 1, /^motionmatch tune: --holdout .*other-schema\.mmdb: its feature schema differs from .*small\.mmdb's \(group \d+: none there, .* here\); build both databases with the same --schema$/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an output folder that holds or is an input, before running', async () => {
    const d = join(dir, 'results');
    mkdirSync(d);
    const front = join(d, 'front.json');
    writeFileSync(front, readFileSync(small));
    const opts = join(d, 'recommended.json');
    writeFileSync(opts, '{"controller": {}}\n');
    const before = listing(d);
    expectRefusal(await run(['tune', front, '--out', d]), 1, /^motionmatch tune: cannot use output folder '.*results': it holds the database '.*front\.json' \(tune writes front\.json, front\.svg, recommended\.json there\); choose another --out$/);
    expectRefusal(await run(['tune', small, '--options', opts, '--out', d]), 1, /it holds the --options file '.*recommended\.json'/);
    expectRefusal(await run(['tune', small, '--holdout', d, '--out', d]), 1, /: it is the --holdout database '.*results'/);
    expect(listing(d)).toEqual(before);
  });

  function startTune(out: string): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'tune', small, '--agents', '2', '--seconds', '2', '--budget', '300', '--out', out], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => child.once('exit', (code, signal) => { clearTimeout(timer); setTimeout(() => resolve({ code, signal, stdout, stderr }), 100); }));
    return { child, done };
  }

  it('SIGTERM during the sweep writes what is done, as the first Ctrl-C does (it left an empty folder)', async () => {
    const out = join(dir, 'tune-term');
    const { child, done } = startTune(out);
    await new Promise((r) => setTimeout(r, 4000));
    expect(existsSync(out)).toBe(false); // made only when the results are written
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('stopping after this evaluation (SIGTERM again to abort)');
    const front = JSON.parse(readFileSync(join(out, 'front.json'), 'utf8')) as { stoppedBy: string; evaluations: unknown[] };
    expect(front.stoppedBy).toBe('interrupted');
    expect(front.evaluations.length).toBeGreaterThanOrEqual(1);
    expect(readdirSync(out).sort()).toEqual(['front.json', 'front.svg', 'recommended.json']);
  }, 120_000);

  it('a second SIGTERM aborts and leaves no folder (or a complete one, when it came too late)', async () => {
    const out = join(dir, 'tune-abort');
    const { child, done } = startTune(out);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    await new Promise((r) => setTimeout(r, 3000));
    child.kill('SIGTERM');
    // The second signal once the first was taken (both at once, while an evaluation runs, arrive as one).
    for (let i = 0; i < 200 && !stderr.includes('stopping after this evaluation'); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    const r = await done;
    // Either the second signal ended it before the results were written or while they were (no
    // folder: it is made only to write them, and removed again when a signal comes meanwhile), or
    // the results were all written before it came (exit 0, or killed by it on the way out: the
    // three files, complete). Never a folder with some of them, or with one cut short.
    if (r.code !== 0) expect(r.signal, r.stderr).toBe('SIGTERM');
    if (r.code === 0 || existsSync(out)) {
      expect(readdirSync(out).sort()).toEqual(['front.json', 'front.svg', 'recommended.json']);
      expect(JSON.parse(readFileSync(join(out, 'front.json'), 'utf8')).evaluations.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(readFileSync(join(out, 'recommended.json'), 'utf8'))).toHaveProperty('controller');
      expect(readFileSync(join(out, 'front.svg'), 'utf8').trimEnd().endsWith('</svg>')).toBe(true);
    }
  }, 120_000);
});
