/**
 * docs/mmdb-format.md stays exact: its section tables, field types and element counts, error codes
 * and limits are compared with the code and with the bytes the encoder writes. (The hex dump of the
 * start of a file is compared in mmdb.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Database } from '../../src/database/database.js';
import { DATABASE_FORMAT_ERROR_CODES, FIELD_TYPES, MMDB_MAX_FILE_BYTES, MMDB_MAX_JSON_DEPTH, OPTIONAL_SECTION_DEFS, SECTION_DEFS, fmt } from '../../src/database/mmdb/format.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { MAX_FPS, MAX_TAGS, MIN_FPS } from '../../src/database/limits.js';
import { cloneDatabase, makeRandomDatabase } from '../helpers/random-database.js';
import { parseFile } from './mmdb-craft.js';

const doc = readFileSync(new URL('../../docs/mmdb-format.md', import.meta.url), 'utf8');

/** Rows of the markdown tables whose first cell is a `code` span: [first cell, second cell, rest]. */
function codeRows(text: string): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (const line of text.split('\n')) {
    const m = /^\| `([^`]+)`\s*\| (.*?)\s*\| (.*)\|\s*$/.exec(line);
    if (m) out.push([m[1], m[2], m[3]]);
  }
  return out;
}

function between(start: string, end: string): string {
  const a = doc.indexOf(start);
  const b = doc.indexOf(end, a);
  expect(a, start).toBeGreaterThanOrEqual(0);
  expect(b, end).toBeGreaterThan(a);
  return doc.slice(a, b);
}

const TYPE_ID: Record<string, number> = FIELD_TYPES;
const TYPE_NAME = Object.fromEntries(Object.entries(FIELD_TYPES).map(([k, v]) => [v, k]));
const TYPE_SIZE: Record<string, number> = { u8: 1, i32: 4, u32: 4, f32: 4, f64: 8 };

/** The (type, byte length) of every field in a built-in payload, from the bytes. */
function fieldsOf(payload: Uint8Array): Array<{ type: string; bytes: number }> {
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const out: Array<{ type: string; bytes: number }> = [];
  for (let pos = 0; pos < payload.length;) {
    const n = dv.getUint32(pos, true);
    out.push({ type: TYPE_NAME[dv.getUint32(pos + 4, true)], bytes: n });
    pos += 8 + ((n + 7) & ~7);
  }
  return out;
}

describe('docs/mmdb-format.md', () => {
  const sectionRows = codeRows(between('## Sections', '## Validation')).filter(([tag]) => /^[A-Za-z0-9_]{4}$/.test(tag));

  it('lists every section, required then optional, with its name', () => {
    const documented = sectionRows.map(([tag, name]) => [tag, name.replace(/`/g, '')]);
    expect(documented).toEqual([...SECTION_DEFS, ...OPTIONAL_SECTION_DEFS].map((d) => [d.tag, d.name]));
  });

  it('gives each section the field types and element counts the encoder writes', () => {
    const db: Database = cloneDatabase(makeRandomDatabase(71, { frames: 24, joints: 4, clips: 3, tags: 3 }));
    db.clips[1].sourceFps = 60; // so that the optional section is written too
    const counts: Record<string, number> = { N: 24, J: 4, E: 2, C: 3, T: 3, D: db.dims, S: db.stride };
    const sections = new Map(parseFile(encodeDatabase(db)).sections.map((s) => [s.tag, s.payload]));
    for (const [tag, , fields] of sectionRows) {
      // "`name`: type[count]" or "`name`: utf8 ..."
      const documented = [...fields.matchAll(/`(\w+)`: (u8|i32|u32|f32|f64|utf8)(?:\[([^\]]+)\])?/g)].map((m) => ({ name: m[1], type: m[2], count: m[3] }));
      const actual = fieldsOf(sections.get(tag)!);
      expect(documented.map((f) => f.type), tag).toEqual(actual.map((f) => f.type));
      documented.forEach((f, i) => {
        if (f.type === 'utf8') return;
        const expr = f.count!.replace(/·/g, '*').replace(/(\d)([A-Z])/g, '$1*$2').replace(/[A-Z]/g, (k) => String(counts[k]));
        expect(/^[\d*+ ]+$/.test(expr), `${tag}.${f.name}: ${f.count}`).toBe(true);
        expect(actual[i].bytes, `${tag}.${f.name}[${f.count}]`).toBe(Function(`return ${expr}`)() * TYPE_SIZE[f.type]);
      });
    }
  });

  it('names the field type ids as the code does', () => {
    const m = /element type: (.*?) \|/.exec(doc)!;
    const documented = Object.fromEntries([...m[1].matchAll(/(\d) `(\w+)`/g)].map((x) => [x[2], Number(x[1])]));
    expect(documented).toEqual(TYPE_ID);
  });

  it('lists exactly the error codes, in check order', () => {
    const rows = [...between('| code ', 'Check order:').matchAll(/^\| `([a-z-]+)` +\|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...DATABASE_FORMAT_ERROR_CODES]);
  });

  it('states the limits the code enforces', () => {
    expect(doc).toContain(`at most\n**${fmt(MMDB_MAX_FILE_BYTES)} bytes** (\`MMDB_MAX_FILE_BYTES\` = 2³² − 1)`);
    expect(MMDB_MAX_FILE_BYTES).toBe(2 ** 32 - 1);
    expect(doc).toContain(`larger than ${fmt(MMDB_MAX_FILE_BYTES)} bytes`);
    expect(doc).toContain(`* META: ${MIN_FPS} ≤ fps ≤ ${MAX_FPS} (\`MIN_FPS\`, \`MAX_FPS\``);
    expect(doc).toContain(`\`sourceFps\` absent or in [${MIN_FPS}, ${MAX_FPS}]`);
    expect(doc).toContain(`JSON nested deeper than ${MMDB_MAX_JSON_DEPTH} levels (\`MMDB_MAX_JSON_DEPTH\`)`);
    expect(doc).toContain(`T = tags (≤ ${MAX_TAGS})`);
  });
});
