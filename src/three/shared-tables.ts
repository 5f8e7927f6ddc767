/**
 * Constant tables shared by the retargeters of one character's clones. A crowd is many clones of
 * one loaded character (SkeletonUtils.clone): every clone's rig, pairing and skinning plan are the
 * same numbers. Sharing one copy saves memory and, above all, keeps the tables in the CPU's caches
 * while a frame walks a thousand characters (each its own copy: a cache miss per table per character).
 *
 * A family is an object every clone shares — the skeleton's boneInverses array, which
 * SkeletonUtils.clone passes on — and tables are shared only when their contents are identical.
 */
import { sameBits } from '../util/same-bits.js';

export type Table = Float64Array | Int32Array | Uint8Array;

const families = new WeakMap<object, Map<string, Table[]>>();

function sameContent(a: Table, b: Table): boolean {
  return a.constructor === b.constructor && sameBits(a, b);
}

/** `t`, or an identical table of the same family made before (null family: `t` itself). */
export function sharedTable<T extends Table>(family: object | null, t: T): T {
  if (family === null) return t;
  let byShape = families.get(family);
  if (!byShape) { byShape = new Map(); families.set(family, byShape); }
  const key = `${t.constructor.name}:${t.length}`;
  let list = byShape.get(key);
  if (!list) { list = []; byShape.set(key, list); }
  for (const c of list) if (sameContent(c, t)) return c as T;
  list.push(t);
  return t;
}
