/**
 * Writing a Database as a compact `.mmdb` file (version 2, docs/compact.md): the sections a float32
 * file shares (META, SKEL, CLIP, SCHM, rate), then what the load needs to rebuild the rest: tag runs,
 * contact options, mirror links and the compressed poses; and the pose error measured here against
 * the database's own poses. Deterministic. Pure and browser-safe.
 */
import type { Database } from '../database.js';
import { checkDatabaseConsistency } from '../database-check.js';
import { DEFAULT_CONTACT_OPTIONS, type ContactOptions } from '../../features/contacts.js';
import { findMirrorLinks } from '../compact/mirror-links.js';
import { GENERAL_REFLECTION } from '../../features/mirror.js';
import { ENCODER_MARGIN, decodeDatabasePoses, encodeDatabasePoses, type PoseBlobs } from '../compact/database-poses.js';
import { measurePoseError, type PoseErrorReport } from '../compact/pose-error.js';
import { tagRuns } from '../compact/tag-runs.js';
import { ERROR_THRESHOLD } from '../compact/error-metric.js';
import { canonicalJson, checkFieldSizes, f32, f64, headSections, i32, sourceRatesSection, u32, u8, utf8, writeContainer, type SectionOut } from './encode.js';
import { DatabaseFormatError, MMDB_COMPACT_VERSION } from './format.js';
import { compactClipTable } from './compact-clip-table.js';

export interface EncodeCompactOptions {
  /** Stored in META like encodeDatabase's. */
  generator?: string;
  /** The contact detection the database was built with (rebuilt on load with the same). */
  contacts?: ContactOptions;
  /** Largest virtual-point error allowed (m); default ERROR_THRESHOLD (0.01 cm). */
  threshold?: number;
  /** Called per compressed clip. */
  onProgress?: (done: number, total: number, label: string) => void;
}

/** Rounds of re-encoding originals whose general-mirrored copies miss the bound (one was enough in tests). */
const MAX_TIGHTER_ROUNDS = 3;

export interface CompactEncoding {
  bytes: Uint8Array;
  /** The decoded poses' error against `db`'s, every clip (mirrored copies included). */
  error: PoseErrorReport;
}

/** The `cerr` section's values: max and 99.9th percentile per clip, then overall (metres). */
export function errorReportValues(e: PoseErrorReport): Float32Array {
  return Float32Array.from([...e.clips.flatMap((c) => [c.max, c.p999]), e.overall.max, e.overall.p999]);
}

/**
 * Encodes `db` as a compact file. Throws DatabaseFormatError when `db` is inconsistent, and when the
 * decoded poses would miss the error bound (which the encoder's choice of bit rates prevents; the
 * check makes a broken promise loud rather than silent).
 */
export function encodeCompactDatabase(db: Database, options: EncodeCompactOptions = {}): CompactEncoding {
  checkDatabaseConsistency(db, 'encodeCompactDatabase');
  const threshold = options.threshold ?? ERROR_THRESHOLD;
  const links = findMirrorLinks(db);
  // A general mirror reflection (features/mirror.ts) carries an original's error to other virtual
  // points of the copy's joints, where it can measure larger than the original's own: an original
  // whose copy misses the bound is encoded again, tighter by the ratio it missed by.
  const tighter = new Float64Array(db.clips.length).fill(1);
  let blobs: PoseBlobs, decoded: ReturnType<typeof decodeDatabasePoses>, error: PoseErrorReport;
  for (let round = 0; ; round++) {
    blobs = encodeDatabasePoses(db, links, threshold, options.onProgress, tighter);
    decoded = decodeDatabasePoses(blobs, db.clips, db.frameCount, db.fps, db.skeleton, links);
    error = measurePoseError(db.skeleton.parents, db.clips, db, decoded);
    let missed = false;
    error.clips.forEach((c, i) => {
      const o = links.mirrorOf[i];
      if (o !== -1 && !(c.max <= threshold)) { tighter[o] *= (threshold / c.max) * ENCODER_MARGIN; missed = true; }
    });
    if (!missed || round === MAX_TIGHTER_ROUNDS) break;
  }
  if (!(error.overall.max <= threshold)) {
    throw new DatabaseFormatError('inconsistent', 'encodeCompactDatabase', `the decoded poses miss the error bound (${error.overall.max} m > ${threshold} m)`);
  }
  const runs = tagRuns(db.tagBits);
  const contacts = options.contacts ?? DEFAULT_CONTACT_OPTIONS;
  const sections: SectionOut[] = [
    ...headSections(db, options.generator ?? '').map((sec) => (sec.tag === 'CLIP' ? { tag: 'CLIP' as const, fields: [utf8(canonicalJson(compactClipTable(db.clips, links.mirrorOf)))] } : sec)),
    { tag: 'SCHM', fields: [utf8(canonicalJson(db.schema))] },
    { tag: 'CTAG', fields: [utf8(canonicalJson(db.tagNames)), u32([runs.length / 3]), u32(runs)] },
    { tag: 'CCON', fields: [utf8(canonicalJson({ speedThreshold: contacts.speedThreshold, filterSeconds: contacts.filterSeconds }))] },
    { tag: 'CMIR', fields: [i32(links.mirrorOf), i32(links.setup.partner), u8(Uint8Array.from(links.setup.axes)), ...(links.setup.axes.includes(GENERAL_REFLECTION) ? [f64(links.setup.frames)] : [])] },
    { tag: 'CPOS', fields: [u32([blobs.offsets.length - 1, blobs.data.length]), u32(blobs.offsets), u8(blobs.data)] },
    ...sourceRatesSection(db),
    { tag: 'cerr', fields: [f32(errorReportValues(error))] },
  ];
  checkFieldSizes(sections);
  return { bytes: writeContainer(sections, MMDB_COMPACT_VERSION), error };
}
