/** Which dropped files make a database (shared by the page and the database worker). */

/** Why a set of dropped files cannot be loaded, or which kind it is. */
export function classifyFiles(names: readonly string[]): { kind: 'mmdb' | 'bvh' } | { error: string } {
  if (names.length === 0) return { error: 'no files were dropped' };
  const ext = (n: string): string => (n.lastIndexOf('.') >= 0 ? n.slice(n.lastIndexOf('.')).toLowerCase() : '');
  const other = names.filter((n) => ext(n) !== '.mmdb' && ext(n) !== '.bvh');
  if (other.length) {
    return { error: `unsupported file${other.length > 1 ? 's' : ''}: ${other.join(', ')} — drop .mmdb databases or .bvh motion files (or one .glb, .gltf or .vrm character)` };
  }
  const mmdb = names.filter((n) => ext(n) === '.mmdb');
  if (mmdb.length > 1) return { error: `drop one .mmdb database at a time (got ${mmdb.length}: ${mmdb.join(', ')})` };
  if (mmdb.length === 1 && names.length > 1) return { error: 'drop either one .mmdb database or .bvh files, not both' };
  return { kind: mmdb.length ? 'mmdb' : 'bvh' };
}
