/**
 * What a joint's name says about it: its words, its side (left, right or neither) and the body
 * part it names (hips, thigh, knee, foot, toe, ...), for the naming conventions found in the wild:
 * `LeftFoot`, `mixamorig:LeftFoot`, `Foot_L`, `foot_l`, `foot.L`, `L_Foot`, `lFoot`, `lfoot`,
 * `Bip01 L Foot`, `LeftAnkle`, `ankle_l`, `LeftUpLeg`/`LeftLeg`, `LHipJoint`, `lThigh`/`lShin`.
 */

export type Side = 'left' | 'right' | 'none';

/** Body parts the role finder cares about; 'end' marks helper tips (`LeftToe_End`, `Toe0Nub`). */
export type BonePart = 'hips' | 'root' | 'spine' | 'thigh' | 'knee' | 'foot' | 'toe' | 'end' | 'other';

/**
 * Words of a joint name, lower-case: camelCase, separators and digits split apart, namespace
 * prefixes ("mixamorig:", "Armature|") dropped. "mixamorig:LeftToeBase" -> [left, toe, base].
 */
export function nameTokens(name: string): string[] {
  const bare = name.split(/[:|]/).pop() ?? name;
  return bare
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .replace(/[0-9]+/g, ' ')
    .split(/[^A-Za-z]+/)
    .filter((t) => t.length > 0)
    .map((t) => t.toLowerCase());
}

const END_WORDS = new Set(['end', 'site', 'nub', 'tip', 'endsite', 'effector']);
const TOE_WORDS = new Set(['toe', 'toes', 'toebase', 'ball', 'toejoint']);
const FOOT_WORDS = new Set(['foot', 'ankle']);
const KNEE_WORDS = new Set(['knee', 'shin', 'calf', 'lowerleg', 'lowleg', 'crus']);
const THIGH_WORDS = new Set(['thigh', 'upleg', 'upperleg', 'femur', 'hipjoint']);
const HIPS_WORDS = new Set(['hips', 'pelvis', 'hip']);
const SPINE_WORDS = new Set(['spine', 'abdomen', 'chest', 'torso', 'back', 'lowerback', 'upperback', 'neck', 'head', 'waist']);

/** Words that may follow a glued side prefix ("leftfoot", "lfoot", "rtoe"). */
const PART_WORDS = new Set([...TOE_WORDS, ...FOOT_WORDS, ...KNEE_WORDS, ...THIGH_WORDS, ...HIPS_WORDS, 'leg', 'upleg', 'arm', 'hand', 'shoulder', 'collar', 'shldr', 'forearm', 'buttock', 'eye']);

/**
 * Name words with a side prefix glued to a part split off: "leftfoot" -> [left, foot],
 * "lfoot" -> [l, foot] (all-lower-case names), and known compounds kept whole.
 */
export function boneWords(name: string): string[] {
  const out: string[] = [];
  for (const t of nameTokens(name)) {
    const m = /^(left|right|l|r)(.+)$/.exec(t);
    if (m && PART_WORDS.has(m[2])) out.push(m[1], m[2]);
    else out.push(t);
  }
  return out;
}

/** The side a name's words give: Left/Right/L/R/l/r as a word of its own. */
export function sideOfWords(words: readonly string[]): Side {
  for (const t of words) {
    if (t === 'l' || t === 'left') return 'left';
    if (t === 'r' || t === 'right') return 'right';
  }
  return 'none';
}

/** The body part a name's words name (the most specific one when several appear). */
export function partOfWords(words: readonly string[]): BonePart {
  const has = (set: ReadonlySet<string>): boolean => words.some((w) => set.has(w));
  if (has(END_WORDS)) return 'end';
  if (has(TOE_WORDS)) return 'toe';
  if (has(FOOT_WORDS)) return 'foot';
  const leg = words.includes('leg');
  const upper = words.includes('up') || words.includes('upper');
  if (has(THIGH_WORDS) || (leg && upper)) return 'thigh';
  if (has(KNEE_WORDS) || (leg && (words.includes('lower') || words.includes('low'))) || leg) return 'knee';
  const side = sideOfWords(words);
  // "LeftHip" / "l_hip" is a thigh; "Hips", "hip", "pelvis" are the hips.
  if (has(HIPS_WORDS)) return side === 'none' ? 'hips' : 'thigh';
  if (words.includes('root')) return 'root';
  if (has(SPINE_WORDS)) return 'spine';
  return 'other';
}

/** Side and part of every joint of a skeleton, by name. */
export interface JointNameInfo {
  side: Side;
  part: BonePart;
}

export function jointNameInfo(names: readonly string[]): JointNameInfo[] {
  return names.map((n) => {
    const words = boneWords(n);
    return { side: sideOfWords(words), part: partOfWords(words) };
  });
}

// ---------------------------------------------------------------------------------------------
// Mirror partners

/**
 * The joint that mirrors each joint (Left<->Right, L<->R, l<->r at word boundaries, or a one-letter
 * side glued to the start of an all-lower-case name, as CMU's `lfemur`/`rfemur` and `lhand`/`rhand`,
 * when the skeleton has that partner); a joint with no counterpart maps to itself. Partners are
 * mutual: a joint whose counterpart names another partner maps to itself.
 */
export function mirrorJointMap(names: readonly string[]): Int32Array {
  const index = new Map<string, number>();
  names.forEach((n, i) => { if (!index.has(n)) index.set(n, i); });
  const out = new Int32Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const swapped = swapSideInName(names[i]);
    out[i] = (swapped !== names[i] ? index.get(swapped) : undefined) ?? index.get(swapGluedSide(names[i])) ?? i;
  }
  // (a pair found from one side only, e.g. "l_foot" and "lfoot" beside "r_foot", is no pair)
  for (let i = 0; i < names.length; i++) if (out[out[i]] !== i) out[i] = i;
  return out;
}

/**
 * A name whose first letter is a side glued to a lower-case word ("lfoot", "rhipjoint",
 * "mixamorig:lhand"), with that letter swapped; the name itself otherwise. Such a letter is a side
 * only if the skeleton also has the swapped name (mirrorJointMap checks): "root" or "lowerback"
 * find no "loot" or "rowerback".
 */
function swapGluedSide(name: string): string {
  return name.replace(/^((?:.*[:|])?)([lr])(?=[a-z]{2})/, (_m, pre: string, side: string) => pre + SWAP[side]);
}

const SWAP: Record<string, string> = {
  Left: 'Right', Right: 'Left', left: 'right', right: 'left', LEFT: 'RIGHT', RIGHT: 'LEFT',
  L: 'R', R: 'L', l: 'r', r: 'l',
};

export function swapSideInName(name: string): string {
  const swapped = name.replace(/(^|[^A-Za-z])(Left|Right|left|right|LEFT|RIGHT|L|R|l|r)(?=$|[^a-z])/g, (_m, pre: string, side: string) => pre + SWAP[side]);
  if (swapped !== name) return swapped;
  return name.replace(/^(left|right)/i, (side) => SWAP[side] ?? (side.toLowerCase() === 'left' ? 'right' : 'left'));
}
