// The same captures as other users' rigs and files would bring them, to check that the engine's
// figures do not depend on how a capture is named, scaled, timed or rigged: writes a variant of
// every BVH file of a folder. VARIANT is one or more of these, joined with '+':
//   names      CMU ASF-style names (hip, lthigh, lshin, lfoot, ltoe, lhand ...): one-letter sides glued on
//   hipsroot   the root joint (joint_Root) folded into the hips, which become the root
//   notoes     the toe joints removed (their end sites moved up to the feet)
//   rest       another rest pose: every joint's local frame turned by a constant, mirror-symmetric
//   pelvis     a joint at the hips' place holding both thighs, beside the spine (Daz Genesis)
//   hiplink    a joint inserted between the hips and each thigh (CMU's LHipJoint), at the hip socket
//   twist      a joint inserted halfway down each thigh (Daz's lThighTwist)
//   shinsplit  a joint inserted halfway down each shin (Rigify's shin.001)
//   fpsN       resampled to N frames per second (rotations nlerped, translations lerped)
//   inches     written in inches; zyx: rotation channels in ZYX order
//   scaleK     the body K times as large (a taller or shorter performer)
//   yaw90      the whole capture turned a quarter turn about +Y
//   zup        the whole capture turned so that its up is +Z (Z-up exporters)
//   fingers    two fingers of three joints on each hand (index and thumb, curling a little), tips as end sites
// The joint names it looks for are the shared captures' (../shared/data/mocap: joint_Root, Hips,
// UpperLeg_L, LowerLeg_L, Foot_L, Toes_L, ...). Then build both and compare `motionmatch quality`:
//   node scripts/rig-variants.mjs names+notoes ../shared/data/mocap/locomotion /tmp/v
//   motionmatch build /tmp/v --mirror --out /tmp/v.mmdb && motionmatch quality /tmp/v.mmdb
// docs/quality.md ("Rigs and files this project does not have") has what it found.
// Needs the compiled package (npm run build).
const root = new URL('../dist/src/', import.meta.url);
const { readBvhFile } = await import(new URL('import/bvh/bvh-node.js', root));
const { writeBvh } = await import(new URL('import/bvh/write.js', root));
const fs = await import('node:fs'); const path = await import('node:path');
const [variant, src, dst] = process.argv.slice(2);
const USAGE = 'usage: node scripts/rig-variants.mjs VARIANT[+VARIANT...] BVH_FOLDER OUT_FOLDER (the variants: the comment at the top of this file)';
if (variant === '--help' || variant === '-h') { console.log(USAGE); process.exit(0); }
if (!variant || !src || !dst) { console.error(USAGE); process.exit(2); }
const KNOWN = /^(names|hipsroot|notoes|rest|pelvis|hiplink|twist|shinsplit|inches|zyx|yaw90|zup|fingers|fps\d+|scale[\d.]+)$/;
for (const p of variant.split('+')) if (!KNOWN.test(p)) { console.error(`rig-variants: unknown variant '${p}' (see the comment at the top of this file)`); process.exit(2); }
fs.mkdirSync(dst, { recursive: true });
const CMU = { Hips: 'hip', Spine: 'abdomen', Chest: 'chest', Neck: 'neck', Head: 'head', Shoulder_L: 'lcollar', UpperArm_L: 'lshldr', LowerArm_L: 'lforearm', Hand_L: 'lhand', Shoulder_R: 'rcollar', UpperArm_R: 'rshldr', LowerArm_R: 'rforearm', Hand_R: 'rhand', UpperLeg_L: 'lthigh', LowerLeg_L: 'lshin', Foot_L: 'lfoot', Toes_L: 'ltoe', UpperLeg_R: 'rthigh', LowerLeg_R: 'rshin', Foot_R: 'rfoot', Toes_R: 'rtoe' };
function qmul(a, ao, b, bo, o, oo) { const [ax, ay, az, aw] = [a[ao], a[ao+1], a[ao+2], a[ao+3]], [bx, by, bz, bw] = [b[bo], b[bo+1], b[bo+2], b[bo+3]];
  o[oo] = aw*bx + ax*bw + ay*bz - az*by; o[oo+1] = aw*by - ax*bz + ay*bw + az*bx; o[oo+2] = aw*bz + ax*by - ay*bx + az*bw; o[oo+3] = aw*bw - ax*bx - ay*by - az*bz; }
function qrot(q, qo, v) { const [x, y, z, w] = [q[qo], q[qo+1], q[qo+2], q[qo+3]]; const tx = 2*(y*v[2]-z*v[1]), ty = 2*(z*v[0]-x*v[2]), tz = 2*(x*v[1]-y*v[0]); return [v[0]+w*tx+y*tz-z*ty, v[1]+w*ty+z*tx-x*tz, v[2]+w*tz+x*ty-y*tx]; }
/** Drops joint `d` (a leaf with one end site or none, or the root whose one child becomes the root). */
function dropJoint(sk, clip, d) {
  const J = sk.names.length, F = clip.frameCount, keep = [...Array(J).keys()].filter(j => j !== d), map = new Map(keep.map((j, i) => [j, i]));
  const rot = new Float64Array(F * (J - 1) * 4), tr = new Float64Array(F * (J - 1) * 3);
  const isRoot = sk.parents[d] < 0;
  for (let f = 0; f < F; f++) keep.forEach((j, i) => {
    for (let k = 0; k < 4; k++) rot[(f*(J-1)+i)*4+k] = clip.rotations[(f*J+j)*4+k];
    for (let k = 0; k < 3; k++) tr[(f*(J-1)+i)*3+k] = clip.translations[(f*J+j)*3+k];
    if (isRoot && sk.parents[j] === d) { // fold the root's transform into its child
      qmul(clip.rotations, (f*J+d)*4, clip.rotations, (f*J+j)*4, rot, (f*(J-1)+i)*4);
      const p = qrot(clip.rotations, (f*J+d)*4, [clip.translations[(f*J+j)*3], clip.translations[(f*J+j)*3+1], clip.translations[(f*J+j)*3+2]]);
      for (let k = 0; k < 3; k++) tr[(f*(J-1)+i)*3+k] = clip.translations[(f*J+d)*3+k] + p[k];
    }
  });
  const parents = Int32Array.from(keep, j => sk.parents[j] === d ? (isRoot ? -1 : map.get(sk.parents[d])) : sk.parents[j] < 0 ? -1 : map.get(sk.parents[j]));
  const offsets = new Float64Array(3 * (J - 1)); keep.forEach((j, i) => { for (let k = 0; k < 3; k++) offsets[3*i+k] = sk.offsets[3*j+k]; });
  if (isRoot) keep.forEach((j, i) => { if (sk.parents[j] === d) for (let k = 0; k < 3; k++) offsets[3*i+k] += sk.offsets[3*d+k]; });
  const esP = [], esO = [];
  for (let e = 0; e < sk.endSiteParents.length; e++) {
    const p = sk.endSiteParents[e];
    if (p === d) { for (let k = 0; k < 3; k++) esO.push(sk.offsets[3*d+k] + sk.endSiteOffsets[3*e+k]); esP.push(map.get(sk.parents[d])); }
    else { esP.push(map.get(p)); for (let k = 0; k < 3; k++) esO.push(sk.endSiteOffsets[3*e+k]); }
  }
  return { sk: { names: keep.map(j => sk.names[j]), parents, offsets, endSiteParents: Int32Array.from(esP), endSiteOffsets: Float64Array.from(esO) }, clip: { ...clip, rotations: rot, translations: tr } };
}
function resample(clip, J, fps) {
  const F = Math.max(1, Math.round((clip.frameCount - 1) * fps / clip.fps) + 1), rot = new Float64Array(F*J*4), tr = new Float64Array(F*J*3);
  for (let g = 0; g < F; g++) {
    const t = g * clip.fps / fps, a = Math.min(clip.frameCount - 1, Math.floor(t)), b = Math.min(clip.frameCount - 1, a + 1), u = t - a;
    for (let j = 0; j < J; j++) {
      const qa = (a*J+j)*4, qb = (b*J+j)*4; let dot = 0; for (let k = 0; k < 4; k++) dot += clip.rotations[qa+k]*clip.rotations[qb+k];
      const s = dot < 0 ? -1 : 1; let n = 0; const q = [0,0,0,0];
      for (let k = 0; k < 4; k++) { q[k] = (1-u)*clip.rotations[qa+k] + u*s*clip.rotations[qb+k]; n += q[k]*q[k]; }
      n = Math.sqrt(n); for (let k = 0; k < 4; k++) rot[(g*J+j)*4+k] = q[k]/n;
      for (let k = 0; k < 3; k++) tr[(g*J+j)*3+k] = (1-u)*clip.translations[(a*J+j)*3+k] + u*clip.translations[(b*J+j)*3+k];
    }
  }
  return { ...clip, fps, frameCount: F, rotations: rot, translations: tr };
}
/** Inserts joint `name` above joint `child` (between it and its parent), taking `share` of the child's offset; identity rotation. */
function insertAbove(sk, clip, child, name, share) {
  const J = sk.names.length, F = clip.frameCount, at = child; // new joint index = child, everything from child on shifts by one
  const oldToNew = (j) => (j >= at ? j + 1 : j);
  const names = [...sk.names.slice(0, at), name, ...sk.names.slice(at)];
  const parents = new Int32Array(J + 1), offsets = new Float64Array(3 * (J + 1));
  for (let j = 0; j < J; j++) { const n = oldToNew(j); parents[n] = sk.parents[j] < 0 ? -1 : oldToNew(sk.parents[j]); for (let k = 0; k < 3; k++) offsets[3 * n + k] = sk.offsets[3 * j + k]; }
  parents[at] = oldToNew(sk.parents[child]); parents[at + 1] = at;
  for (let k = 0; k < 3; k++) { offsets[3 * at + k] = share * sk.offsets[3 * child + k]; offsets[3 * (at + 1) + k] = (1 - share) * sk.offsets[3 * child + k]; }
  const rot = new Float64Array(F * (J + 1) * 4), tr = new Float64Array(F * (J + 1) * 3);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) { const n = oldToNew(j); for (let k = 0; k < 4; k++) rot[(f * (J + 1) + n) * 4 + k] = clip.rotations[(f * J + j) * 4 + k]; for (let k = 0; k < 3; k++) tr[(f * (J + 1) + n) * 3 + k] = clip.translations[(f * J + j) * 3 + k]; }
    rot[(f * (J + 1) + at) * 4 + 3] = 1;
    for (let k = 0; k < 3; k++) { const v = clip.translations[(f * J + child) * 3 + k]; tr[(f * (J + 1) + at) * 3 + k] = share * v; tr[(f * (J + 1) + at + 1) * 3 + k] = (1 - share) * v; }
  }
  const esP = Int32Array.from(sk.endSiteParents, (p) => oldToNew(p));
  return { sk: { names, parents, offsets, endSiteParents: esP, endSiteOffsets: sk.endSiteOffsets }, clip: { ...clip, rotations: rot, translations: tr } };
}
/**
 * Two fingers of three joints on each hand (Index1..3, Thumb1..3 with the hand's side suffix), laid
 * along the hand's end site (the index) and turned 40° off it (the thumb), 3 cm a segment, each
 * curling about its local z by up to 0.3 rad as the clip goes on; the hand's end site moves to the
 * finger tips. Joints are appended after the others (parents come first).
 */
function addFingers(sk, clip) {
  const J = sk.names.length, F = clip.frameCount;
  const names = [...sk.names], parents = Array.from(sk.parents), offsets = Array.from(sk.offsets), esP = [], esO = [];
  const added = []; // [parent, offset[3], phase]
  for (const side of ['L', 'R']) {
    const hand = sk.names.indexOf(`Hand_${side}`);
    const e = Array.from(sk.endSiteParents).indexOf(hand);
    // along the hand's end site, or else its own bone (from its parent), 8 cm to the knuckles
    let dir = e >= 0 ? [sk.endSiteOffsets[3 * e], sk.endSiteOffsets[3 * e + 1], sk.endSiteOffsets[3 * e + 2]] : [0, 0, 0];
    if (!(Math.hypot(...dir) > 1e-4)) { const b = [sk.offsets[3 * hand], sk.offsets[3 * hand + 1], sk.offsets[3 * hand + 2]], bl = Math.hypot(...b); dir = b.map((v) => (v / bl) * 0.08); }
    const len = Math.hypot(...dir), u = dir.map((v) => v / len);
    // the thumb: u turned 40° about an axis perpendicular to it
    const a = Math.abs(u[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
    const n = [u[1] * a[2] - u[2] * a[1], u[2] * a[0] - u[0] * a[2], u[0] * a[1] - u[1] * a[0]], nl = Math.hypot(...n);
    const c = Math.cos(0.7), sn = Math.sin(0.7), t = u.map((v, k) => c * v + sn * n[k] / nl);
    for (const [finger, d, phase] of [['Index', u, 0], ['Thumb', t, 1.3]]) {
      let parent = hand;
      for (let i = 1; i <= 3; i++) {
        const at = names.length;
        names.push(`${finger}${i}_${side}`); parents.push(parent);
        const o = i === 1 ? d.map((v) => v * len) : d.map((v) => v * 0.03);
        offsets.push(...o);
        added.push([at, o, phase + i]);
        parent = at;
      }
      esP.push(parent); esO.push(...d.map((v) => v * 0.02));
    }
  }
  for (let e = 0; e < sk.endSiteParents.length; e++) {
    if (sk.names[sk.endSiteParents[e]].startsWith('Hand_')) continue;
    esP.push(sk.endSiteParents[e]); esO.push(sk.endSiteOffsets[3 * e], sk.endSiteOffsets[3 * e + 1], sk.endSiteOffsets[3 * e + 2]);
  }
  const J2 = names.length, rot = new Float64Array(F * J2 * 4), tr = new Float64Array(F * J2 * 3);
  for (let f = 0; f < F; f++) {
    rot.set(clip.rotations.subarray(f * J * 4, (f + 1) * J * 4), f * J2 * 4);
    tr.set(clip.translations.subarray(f * J * 3, (f + 1) * J * 3), f * J2 * 3);
    for (const [at, o, phase] of added) {
      const angle = 0.15 + 0.15 * Math.sin(f / 20 + phase);
      rot.set([0, 0, Math.sin(angle / 2), Math.cos(angle / 2)], (f * J2 + at) * 4);
      tr.set(o, (f * J2 + at) * 3);
    }
  }
  return { sk: { names, parents: Int32Array.from(parents), offsets: Float64Array.from(offsets), endSiteParents: Int32Array.from(esP), endSiteOffsets: Float64Array.from(esO) }, clip: { ...clip, rotations: rot, translations: tr } };
}
for (const f of fs.readdirSync(src).filter(n => n.endsWith('.bvh'))) {
  const imp = readBvhFile(path.join(src, f));
  let sk = imp.skeleton, clip = imp.clip, opts = {};
  const parts = new Set(variant.split('+'));
  if (parts.has('hipsroot')) ({ sk, clip } = dropJoint(sk, clip, sk.names.indexOf('joint_Root')));
  if (parts.has('notoes')) for (const t of ['Toes_L', 'Toes_R']) ({ sk, clip } = dropJoint(sk, clip, sk.names.indexOf(t)));
  if (parts.has('rest')) {
    // another rest pose: each joint's local frame turned by a constant C_j (mirror-symmetric: a left
    // joint about +Z by an angle, its right partner by the opposite, a centre joint about X), the
    // motion re-expressed so that every world position stays: L' = C_p⁻¹ L C_j, offsets C_p⁻¹ o.
    const J2 = sk.names.length, C = new Float64Array(4 * J2);
    const angle = (name) => { let h = 0; for (const ch of name.replace(/_[LR]$/, '')) h = (h * 31 + ch.charCodeAt(0)) % 1000; return 0.3 + 0.9 * (h / 1000); };
    sk.names.forEach((n, j) => {
      const a = angle(n), side = /_L$/.test(n) ? 1 : /_R$/.test(n) ? -1 : 0;
      if (side === 0) { C[4 * j] = Math.sin(a / 2); C[4 * j + 3] = Math.cos(a / 2); }
      else { C[4 * j + 2] = Math.sin((side * a) / 2); C[4 * j + 3] = Math.cos((side * a) / 2); }
    });
    const inv = (o) => new Float64Array([-C[o], -C[o + 1], -C[o + 2], C[o + 3]]);
    const id = new Float64Array([0, 0, 0, 1]);
    const pinv = (j) => (sk.parents[j] >= 0 ? inv(4 * sk.parents[j]) : id);
    const off = Float64Array.from(sk.offsets), rot = Float64Array.from(clip.rotations), tr = Float64Array.from(clip.translations), tmp = new Float64Array(4);
    for (let j = 0; j < J2; j++) off.set(qrot(pinv(j), 0, [sk.offsets[3 * j], sk.offsets[3 * j + 1], sk.offsets[3 * j + 2]]), 3 * j);
    for (let f = 0; f < clip.frameCount; f++) for (let j = 0; j < J2; j++) {
      const o = (f * J2 + j) * 4, t = (f * J2 + j) * 3;
      qmul(pinv(j), 0, clip.rotations, o, tmp, 0); qmul(tmp, 0, C, 4 * j, rot, o);
      tr.set(qrot(pinv(j), 0, [clip.translations[t], clip.translations[t + 1], clip.translations[t + 2]]), t);
    }
    const es = Float64Array.from(sk.endSiteOffsets);
    for (let e = 0; e < sk.endSiteParents.length; e++) es.set(qrot(inv(4 * sk.endSiteParents[e]), 0, [es[3 * e], es[3 * e + 1], es[3 * e + 2]]), 3 * e);
    sk = { ...sk, offsets: off, endSiteOffsets: es };
    clip = { ...clip, rotations: rot, translations: tr };
  }
  if (parts.has('pelvis')) {
    // a joint at the hips' place holding both thighs beside the spine (Daz Genesis' pelvis under hip)
    ({ sk, clip } = insertAbove(sk, clip, sk.names.indexOf('UpperLeg_L'), 'Pelvis', 0));
    const pelvis = sk.names.indexOf('Pelvis'), right = sk.names.indexOf('UpperLeg_R');
    if (right < pelvis) throw new Error('rig-variants: pelvis needs the right thigh after the left');
    sk = { ...sk, parents: Int32Array.from(sk.parents, (p, j) => (j === right ? pelvis : p)) };
  }
  if (parts.has('hiplink')) for (const side of ['L', 'R']) ({ sk, clip } = insertAbove(sk, clip, sk.names.indexOf(`UpperLeg_${side}`), `HipJoint_${side}`, 1));
  if (parts.has('shinsplit')) for (const side of ['L', 'R']) ({ sk, clip } = insertAbove(sk, clip, sk.names.indexOf(`Foot_${side}`), `LowerLeg2_${side}`, 0.5));
  if (parts.has('twist')) for (const side of ['L', 'R']) ({ sk, clip } = insertAbove(sk, clip, sk.names.indexOf(`LowerLeg_${side}`), `UpperLegTwist_${side}`, 0.5));
  if (parts.has('names')) sk = { ...sk, names: sk.names.map(n => CMU[n] ?? n) };
  for (const p of parts) { const m = /^fps(\d+)$/.exec(p); if (m) clip = resample(clip, sk.names.length, Number(m[1])); }
  if (parts.has('yaw90')) {
    // the whole capture turned a quarter turn about +Y (the performer faces +X instead of +Z)
    const q = [0, Math.SQRT1_2, 0, Math.SQRT1_2], J2 = sk.names.length, rot = Float64Array.from(clip.rotations), tr = Float64Array.from(clip.translations);
    for (let f = 0; f < clip.frameCount; f++) { qmul(q, 0, clip.rotations, f * J2 * 4, rot, f * J2 * 4); const p = qrot(q, 0, [tr[f * J2 * 3], tr[f * J2 * 3 + 1], tr[f * J2 * 3 + 2]]); tr.set(p, f * J2 * 3); }
    const off = Float64Array.from(sk.offsets); off.set(qrot(q, 0, [off[0], off[1], off[2]]), 0); sk = { ...sk, offsets: off };
    clip = { ...clip, rotations: rot, translations: tr };
  }
  if (parts.has('zup')) {
    // written by a Z-up exporter: the whole file in a basis turned a quarter turn about +X (+Y becomes
    // +Z), rest pose included: offsets and end sites q·o, rotations q L q⁻¹, translations q·t
    const q = [Math.SQRT1_2, 0, 0, Math.SQRT1_2], qi = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2], J2 = sk.names.length;
    const rot = new Float64Array(clip.rotations.length), tr = new Float64Array(clip.translations.length), tmp = new Float64Array(4);
    for (let i = 0; i < clip.frameCount * J2; i++) {
      qmul(q, 0, clip.rotations, 4 * i, tmp, 0); qmul(tmp, 0, qi, 0, rot, 4 * i);
      tr.set(qrot(q, 0, [clip.translations[3 * i], clip.translations[3 * i + 1], clip.translations[3 * i + 2]]), 3 * i);
    }
    const turn = (v) => { const o = new Float64Array(v.length); for (let i = 0; i < v.length; i += 3) o.set(qrot(q, 0, [v[i], v[i + 1], v[i + 2]]), i); return o; };
    sk = { ...sk, offsets: turn(sk.offsets), endSiteOffsets: turn(sk.endSiteOffsets) };
    clip = { ...clip, rotations: rot, translations: tr };
  }
  if (parts.has('fingers')) ({ sk, clip } = addFingers(sk, clip));
  if (parts.has('inches')) opts = { ...opts, unitScale: 100 / 2.54 };
  if (parts.has('zyx')) opts = { ...opts, order: 'ZYX' };
  for (const p of parts) { const m = /^scale([\d.]+)$/.exec(p); if (m) { const s = Number(m[1]); sk = { ...sk, offsets: sk.offsets.map(v => v * s), endSiteOffsets: sk.endSiteOffsets.map(v => v * s) }; clip = { ...clip, translations: clip.translations.map(v => v * s) }; } }
  fs.writeFileSync(path.join(dst, f), writeBvh(sk, clip, opts));
}
