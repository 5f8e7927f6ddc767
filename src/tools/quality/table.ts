/**
 * The `motionmatch quality` table: one row per scenario, one column per QUALITY_COLUMNS entry,
 * the targets in a row of their own, and values that miss their target marked with '*'.
 */
import type { QualityColumn } from './columns.js';
import { QUALITY_COLUMNS, columnValue, columnVerdict, formatColumnValue } from './columns.js';
import { targetText } from './targets.js';
import type { ScenarioQuality } from './run.js';

const MISS = '*';

/** The table's lines (no trailing newline), columns right-aligned under two-line headers. */
export function formatQualityTable(rows: readonly ScenarioQuality[], columns: readonly QualityColumn[] = QUALITY_COLUMNS): string[] {
  const first = ['scenario', '', 'target', ...rows.map((r) => r.scenario)];
  // Every cell ends in one marker-wide character ('*' or a space) so that digits, headers and
  // targets line up.
  const cells = columns.map((c) => [
    `${c.header} `,
    `${c.unit} `,
    `${c.target ? targetText(c.target) : ''} `,
    ...rows.map((r) => formatColumnValue(c, columnValue(c, r.quality)) + (columnVerdict(c, r.quality) === false ? MISS : ' ')),
  ]);
  const firstWidth = Math.max(...first.map((s) => s.length));
  const widths = cells.map((col) => Math.max(...col.map((s) => s.length)));
  return first.map((name, i) => [name.padEnd(firstWidth), ...cells.map((col, j) => col[i].padStart(widths[j]))].join('  ').trimEnd());
}

/** "all targets met" or which measures each scenario misses. */
export function qualityVerdictLines(rows: readonly ScenarioQuality[], columns: readonly QualityColumn[] = QUALITY_COLUMNS): string[] {
  const misses = rows.map((r) => ({
    scenario: r.scenario,
    missed: columns.filter((c) => columnVerdict(c, r.quality) === false).map((c) => c.header),
  }));
  if (misses.every((m) => m.missed.length === 0)) return ['all targets met'];
  return [
    `${MISS} misses its target:`,
    ...misses.map((m) => `  ${m.scenario}: ${m.missed.length ? m.missed.join(', ') : 'none'}`),
  ];
}
