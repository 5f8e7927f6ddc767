/**
 * A figure in a text report: `x` with `digits` decimals, or 'n/a' where the run has none (null in
 * the JSON report: a velocity change needs three steps, a level of detail no agent reached has no
 * skate, an overlay that never played no entry). Printed as toFixed would, such figures read "NaN".
 */
export function figureText(x: number | null, digits: number): string {
  return x !== null && Number.isFinite(x) ? x.toFixed(digits) : 'n/a';
}
