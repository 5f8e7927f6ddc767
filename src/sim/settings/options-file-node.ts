/**
 * Reading engine settings files (`--options FILE`) in Node, and applying them to a database: the
 * loader the commands and library users share (see settings/options-file.ts for the format).
 */
import type { Database } from '../../database/database.js';
import { readRegularTextFile } from '../../util/files-node.js';
import { applySchemaWeights, parseSettings, type ControllerSettings, type EngineSettings } from './options-file.js';

/** A settings file is a few hundred bytes; anything near this is not one. */
export const SETTINGS_MAX_BYTES = 1 << 20;

/** Reads and checks a settings file (FileAccessError or SettingsError, both naming the file). */
export function readSettingsFile(path: string): EngineSettings {
  const text = readRegularTextFile(path, { what: 'settings file', maxBytes: SETTINGS_MAX_BYTES, missingHint: 'write one, or take the recommended.json `motionmatch tune` writes' });
  return parseSettings(text, path);
}

/**
 * Everything a settings file changes for `db`: the database with the file's group weights and the
 * controller options to pass to MotionMatchingController / runSimulation (`controller`).
 *
 *   const { db: tuned, controller } = loadSettingsForDatabase('recommended.json', db);
 *   const c = new MotionMatchingController(tuned, controller);
 */
export function loadSettingsForDatabase(path: string, db: Database): { db: Database; controller: ControllerSettings; settings: EngineSettings } {
  const settings = readSettingsFile(path);
  return { db: applySchemaWeights(db, settings, path), controller: settings.controller, settings };
}
