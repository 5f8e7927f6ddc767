/**
 * Which skeleton of a loaded scene to drive. A character is often several skinned meshes (body,
 * hair, clothes) over one bone hierarchy, which glTF loads as several three.js Skeletons: they
 * count as one when they share their top bone. Two hierarchies are two characters (or a character
 * and a prop) and the caller must say which one.
 */
import type { Bone, Object3D, Skeleton, SkinnedMesh } from 'three';
import { ThreeRigError, listBriefly } from './errors.js';

/** What the adapter accepts as a character: a scene (or any object) holding skinned meshes, a SkinnedMesh, or a Skeleton. */
export type CharacterSource = Object3D | SkinnedMesh | Skeleton;

export interface SelectedSkeleton {
  /** The bones of the chosen hierarchy: every skin's joints over it, and the bones below its top bone. */
  readonly bones: Object3D[];
  /** The top bone of the hierarchy. */
  readonly top: Object3D;
  /** The object placed in the world each step (the character's root). */
  readonly root: Object3D;
  /** The skinned meshes bound to it (for the caller's information). */
  readonly meshes: SkinnedMesh[];
  /** Their skeletons, each once (meshes may share one): what the 'matrices' output writes. */
  readonly skeletons: Skeleton[];
}

function isSkeleton(x: unknown): x is Skeleton {
  return typeof x === 'object' && x !== null && Array.isArray((x as Skeleton).bones) && Array.isArray((x as Skeleton).boneInverses);
}

function isSkinnedMesh(x: unknown): x is SkinnedMesh {
  return typeof x === 'object' && x !== null && (x as SkinnedMesh).isSkinnedMesh === true;
}

/** The highest bone above (or at) b, following Bone parents. */
function topBone(b: Object3D): Object3D {
  let t = b;
  while (t.parent && (t.parent as Bone).isBone) t = t.parent;
  return t;
}

/** The object right under the scene (or the top of the graph) above `o`: a loaded character's root. */
function characterRoot(o: Object3D): Object3D {
  let r = o;
  while (r.parent && !(r.parent as { isScene?: boolean }).isScene) r = r.parent;
  return r;
}

/**
 * Picks the skeleton to drive. `pick` (a Skeleton, a SkinnedMesh, or the name of a skinned mesh or
 * of any bone) chooses among several; `root` overrides the object placed in the world.
 */
export function selectSkeleton(source: CharacterSource, pick?: Skeleton | SkinnedMesh | string, root?: Object3D): SelectedSkeleton {
  if (source === null || typeof source !== 'object') throw new ThreeRigError('no-skin', 'expected a three.js Object3D, SkinnedMesh or Skeleton');
  const meshes: SkinnedMesh[] = [];
  let scope: Object3D | null = null;
  if (isSkeleton(source)) {
    if (source.bones.length === 0) throw new ThreeRigError('no-skin', 'the skeleton has no bones');
    return fromGroup([source], [], root ?? characterRoot(topBone(source.bones[0])));
  }
  scope = source as Object3D;
  if (typeof scope.traverse !== 'function') throw new ThreeRigError('no-skin', 'expected a three.js Object3D, SkinnedMesh or Skeleton');
  scope.traverse((o) => { if (isSkinnedMesh(o) && o.skeleton && o.skeleton.bones.length > 0) meshes.push(o); });
  if (meshes.length === 0) {
    throw new ThreeRigError('no-skin', `no skinned mesh in "${scope.name || scope.type}": motionmatch/three drives the bones of a SkinnedMesh (export the character with its armature and skin)`);
  }
  // Group the meshes by the top bone of their skeletons.
  const groups = new Map<Object3D, SkinnedMesh[]>();
  for (const m of meshes) {
    const t = topBone(m.skeleton.bones[0]);
    const g = groups.get(t);
    if (g) g.push(m); else groups.set(t, [m]);
  }
  let chosen: [Object3D, SkinnedMesh[]] | undefined;
  if (pick !== undefined) {
    for (const [t, g] of groups) {
      const hit = typeof pick === 'string'
        ? g.some((m) => m.name === pick || m.skeleton.bones.some((b) => b.name === pick)) || t.name === pick
        : g.some((m) => m === pick || m.skeleton === pick);
      if (hit) { chosen = [t, g]; break; }
    }
    if (!chosen) throw new ThreeRigError('several-skeletons', `the skeleton option (${typeof pick === 'string' ? `"${pick}"` : 'an object'}) matches none of the skeletons: ${describeGroups(groups)}`);
  } else if (groups.size > 1) {
    throw new ThreeRigError('several-skeletons', `the scene holds ${groups.size} skeletons (${describeGroups(groups)}): pick one with the skeleton option, e.g. { skeleton: '${[...groups.values()][0][0].name || [...groups.keys()][0].name}' }`);
  } else {
    chosen = [...groups][0];
  }
  const [top, group] = chosen;
  // One character among several in a scene: its own subtree is what moves (the child of the scene
  // object holding its top bone), not the whole scene.
  const own = (): Object3D => { let r: Object3D = top; while (r.parent && r.parent !== scope) r = r.parent; return r.parent === scope ? r : scope!; };
  return fromGroup(group.map((m) => m.skeleton), group, root ?? (isSkinnedMesh(source) ? characterRoot(top) : groups.size > 1 ? own() : scope));
}

function describeGroups(groups: Map<Object3D, SkinnedMesh[]>): string {
  return listBriefly([...groups].map(([t, g]) => `top bone "${t.name}" with mesh${g.length > 1 ? 'es' : ''} ${g.map((m) => `"${m.name}"`).join(', ')}`), 4);
}

function fromGroup(skeletons: Skeleton[], meshes: SkinnedMesh[], root: Object3D): SelectedSkeleton {
  const set = new Set<Object3D>();
  for (const s of skeletons) for (const b of s.bones) if (b) set.add(b);
  const top = topBone([...set][0]);
  top.traverse((o) => { if ((o as Bone).isBone) set.add(o); });
  return { bones: [...set], top, root, meshes, skeletons: [...new Set(skeletons)] };
}
