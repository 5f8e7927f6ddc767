/**
 * Where a database schema's trajectory groups sit in a query row, and at which future offsets the
 * controller must predict its simulated trajectory. Computed once per database, shared by every
 * controller of it.
 */
import type { Database } from '../../database/database.js';
import { groupColumns } from '../../features/schema.js';

export interface TrajectoryGroup {
  /** First query column of the group, its first entry in `times`, and its number of offsets. */
  readonly col: number;
  readonly first: number;
  readonly count: number;
}

export interface TrajectoryLayout {
  /** Every trajectory offset (s), position groups' and direction groups' in schema order. */
  readonly times: readonly number[];
  readonly positions: readonly TrajectoryGroup[];
  readonly directions: readonly TrajectoryGroup[];
  /** The query columns [first, end) of the bone velocity groups (the pose's motion). */
  readonly velocityColumns: readonly (readonly [number, number])[];
}

const trajectoryLayouts = new WeakMap<Database, TrajectoryLayout>();

/** The schema's trajectory groups (throws for a past offset: the controller predicts the future only). */
export function trajectoryLayout(db: Database): TrajectoryLayout {
  let layout = trajectoryLayouts.get(db);
  if (layout) return layout;
  const cols = groupColumns(db.schema);
  const times: number[] = [], positions: TrajectoryGroup[] = [], directions: TrajectoryGroup[] = [];
  const velocityColumns: (readonly [number, number])[] = [];
  db.schema.groups.forEach((g, i) => {
    if (g.kind === 'boneVelocity') velocityColumns.push([cols[i][0], cols[i][1]]);
    if (g.kind !== 'trajectoryPosition' && g.kind !== 'trajectoryDirection') return;
    const offsets = g.offsets ?? [];
    for (const o of offsets) if (o < 0) throw new RangeError(`the controller predicts the future only: schema group "${g.name}" has a past offset ${o}`);
    (g.kind === 'trajectoryPosition' ? positions : directions).push({ col: cols[i][0], first: times.length, count: offsets.length });
    times.push(...offsets);
  });
  layout = { times, positions, directions, velocityColumns };
  trajectoryLayouts.set(db, layout);
  return layout;
}
