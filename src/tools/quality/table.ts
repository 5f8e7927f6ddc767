/**
 * The `motionmatch quality` table: one row per measure (QUALITY_COLUMNS), with its unit, the data's
 * own level (the database played plainly), the target, then one column per scenario holding the
 * figure and, where the data has a level, its ratio to it ("25.4 (1.0x)"); figures that miss their
 * target are marked with '*'.
 */
import type { QualityColumn } from './columns.js';
import { QUALITY_COLUMNS, columnDataValue, columnRatio, columnValue, columnVerdict, formatColumnValue } from './columns.js';
import { targetText, type DataLevel } from './targets.js';
import type { ScenarioQuality } from './run.js';

const MISS = '*';

/** "1.0x" (two significant figures below 10), "–" for no ratio. */
export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return '';
  return `${r < 10 ? r.toFixed(r < 1 ? 2 : 1) : Math.round(r).toString()}x`;
}

/** The table's lines (no trailing newline): measures down, data / target / scenarios across, right-aligned. */
export function formatQualityTable(rows: readonly ScenarioQuality[], data: DataLevel | null, columns: readonly QualityColumn[] = QUALITY_COLUMNS): string[] {
  const header = ['measure', 'unit', 'data', 'target', ...rows.map((r) => r.scenario)];
  const lines: string[][] = [header];
  for (const c of columns) {
    const dataText = c.data ? formatColumnValue(c, columnDataValue(c, data)) : '';
    const target = c.target ? targetText(c.target) + (c.target.needs ? ` (${c.target.needs === 'standing' ? 'if the data stands' : 'if the data sidesteps'})` : '') : c.diagnostic ? 'diagnostic' : '';
    lines.push([c.label, c.unit, dataText, target, ...rows.map((r) => {
      const value = formatColumnValue(c, columnValue(c, r.quality));
      const ratio = c.data ? formatRatio(columnRatio(c, r.quality, data)) : '';
      return `${value}${ratio ? ` (${ratio})` : ''}${columnVerdict(c, r.quality, data) === false ? MISS : ' '}`;
    })]);
  }
  const widths = header.map((_, j) => Math.max(...lines.map((l) => l[j].length)));
  return lines.map((l) => l.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  ').trimEnd());
}

/** "all targets met" or which measures each scenario misses. */
export function qualityVerdictLines(rows: readonly ScenarioQuality[], data: DataLevel | null, columns: readonly QualityColumn[] = QUALITY_COLUMNS): string[] {
  const misses = rows.map((r) => ({
    scenario: r.scenario,
    missed: columns.filter((c) => columnVerdict(c, r.quality, data) === false).map((c) => c.label),
  }));
  if (misses.every((m) => m.missed.length === 0)) return ['all targets met'];
  return [
    `${MISS} misses its target:`,
    ...misses.map((m) => `  ${m.scenario}: ${m.missed.length ? m.missed.join('; ') : 'none'}`),
  ];
}
