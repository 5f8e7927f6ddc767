/**
 * CRC-32s of a loaded database's derived arrays (features, raw features, normalisation, root
 * track, contacts), for comparing a load in the browser with one in Node bit for bit
 * (`window.motionmatch.databaseChecksums()`; test/web/compact-browser.test.ts). Browser-safe.
 */
import type { Database } from '../database/database.js';
import { crc32 } from '../util/crc32.js';

export type DatabaseChecksums = Record<'features' | 'rawFeatures' | 'mean' | 'scale' | 'rootPositions' | 'rootRotations' | 'contacts' | 'rotations' | 'translations', number>;

export function databaseChecksums(db: Database): DatabaseChecksums {
  const crc = (a: ArrayBufferView): number => crc32(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  return {
    features: crc(db.features), rawFeatures: crc(db.rawFeatures), mean: crc(db.mean), scale: crc(db.scale),
    rootPositions: crc(db.rootPositions), rootRotations: crc(db.rootRotations), contacts: crc(db.contacts),
    rotations: crc(db.rotations), translations: crc(db.translations),
  };
}
