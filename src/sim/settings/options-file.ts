/**
 * Engine settings files (`--options FILE`, what `motionmatch tune` recommends): controller options
 * and feature-group weights in one JSON object,
 *
 *   { "controller": { "continuingBias": 0.05, "searchInterval": 0.15, ... },
 *     "schemaWeights": { "trajectoryPosition": 1.4, "footPosition": 0.6, ... },
 *     "comment": "free text (optional)" }
 *
 * Both parts are optional. Controller options are any of ControllerOptions except the `constrain`
 * hook (a function) and the `ground` (an object with methods: `--terrain` picks it); they are checked generically — the key must be an option, the value of the
 * option's JSON type, a number within its physical range (runtime/controller/option-ranges.ts) — and then by resolveControllerOptions, so options added to the controller
 * later are accepted without a change here. Schema weights name groups of the database they are
 * applied to (checked when applied: a settings file does not know its database). Browser-safe:
 * the page reads settings too; reading files is in settings/options-file-node.ts.
 */
import { validateFootIKOptions } from '../../runtime/foot-ik/foot-ik.js';
import type { Database } from '../../database/database.js';
import { reweightDatabase, schemaWeights } from '../../database/reweight.js';
import { DEFAULT_CONTROLLER_OPTIONS, resolveControllerOptions, type ControllerOptions } from '../../runtime/controller/options.js';
import { isPlainObject, jsonType, parseJsonText } from '../../util/json-text.js';
import { isGroupWeight, weightRangeText } from '../../features/schema-validate.js';
import { CONTROLLER_SETTING_RANGES, OptionRangeError, inRange, rangeText } from '../../runtime/controller/option-ranges.js';

/** Controller options a file can set: structured-cloneable (the simulation's workers receive them). */
export type ControllerSettings = Partial<Omit<ControllerOptions, 'constrain' | 'ground'>>;

export interface EngineSettings {
  controller: ControllerSettings;
  /** Feature-group name -> weight (docs/features.md: a group's scale is its mean std / weight). */
  schemaWeights: Record<string, number>;
  comment?: string;
}

/** A settings file that cannot be used; the message starts with the file (or "settings"). */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

const TOP_LEVEL_KEYS = ['controller', 'schemaWeights', 'comment'];
/** Options that hold code, not values: never in a file; why, for the message. */
const NOT_SETTABLE = new Map([
  ['constrain', 'a code hook: set it in code, not in a file'],
  ['ground', 'an object with methods: walk on a terrain with --terrain hills|steps|FILE, or set it in code; groundOptions can be set here'],
]);

/** Settings that change nothing. */
export function emptySettings(): EngineSettings {
  return { controller: {}, schemaWeights: {} };
}

/** Parses and checks a settings file's text. `source` names it in messages. */
export function parseSettings(text: string, source = 'settings'): EngineSettings {
  return checkSettings(parseJsonText(text, source, (m) => new SettingsError(m)), source);
}

/**
 * `value` checked against the shape of `model` (a default option value): the same JSON type, objects
 * completed with the model's fields (a partial object sets only the fields it names), numbers finite.
 */
function checkLike(value: unknown, model: unknown, at: string, source: string): unknown {
  if (model === null || model === undefined) return value; // an option without a default shape: resolveControllerOptions judges it
  const want = jsonType(model);
  if (jsonType(value) !== want) throw new SettingsError(`${source}: ${at} must be ${want === 'object' ? 'an object' : `a ${want}`}, got ${JSON.stringify(value)}`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new SettingsError(`${source}: ${at} must be a finite number, got ${value}`);
  if (want !== 'object') return value;
  const m = model as Record<string, unknown>, v = value as Record<string, unknown>;
  const out: Record<string, unknown> = { ...m };
  for (const k of Object.keys(v)) {
    if (!Object.hasOwn(m, k)) throw new SettingsError(`${source}: unknown option ${at}.${k} (known: ${Object.keys(m).join(', ')})`);
    out[k] = checkLike(v[k], m[k], `${at}.${k}`, source);
  }
  return out;
}

/**
 * Every number the file sets within its physical range (runtime/controller/option-ranges.ts): checked after the
 * controller's own rules, which say what cannot work at all (a half-life of 0), these say what
 * would pass them and still poison every step (a half-life of 1e300 or 1e-300 s).
 */
function checkRanges(value: Record<string, unknown>, at: string, source: string): void {
  for (const [k, v] of Object.entries(value)) {
    const path = `${at}.${k}`;
    if (isPlainObject(v)) { checkRanges(v, path, source); continue; }
    if (typeof v !== 'number') continue;
    const range = CONTROLLER_SETTING_RANGES[path.replace(/^controller\./, '')];
    if (range && !inRange(v, range)) throw new SettingsError(`${source}: ${path} must be ${rangeText(range)}, got ${String(v)}`);
  }
}

/** Foot IK's own rules, with the file named in the message. */
function checkFootIK(o: ControllerOptions, source: string): void {
  try {
    validateFootIKOptions(o.footIKOptions);
  } catch (e) {
    throw new SettingsError(`${source}: controller.footIKOptions: ${(e as Error).message}`);
  }
}

/** Checks a parsed settings object (see the file comment); returns a clean copy. */
export function checkSettings(value: unknown, source = 'settings'): EngineSettings {
  if (!isPlainObject(value)) throw new SettingsError(`${source}: a settings file is a JSON object {"controller": {...}, "schemaWeights": {...}}, got ${jsonType(value)}`);
  for (const k of Object.keys(value)) {
    if (!TOP_LEVEL_KEYS.includes(k)) throw new SettingsError(`${source}: unknown key "${k}" (a settings file has ${TOP_LEVEL_KEYS.map((t) => `"${t}"`).join(', ')})`);
  }
  const out = emptySettings();
  if (value.comment !== undefined) {
    if (typeof value.comment !== 'string') throw new SettingsError(`${source}: "comment" must be a string`);
    out.comment = value.comment;
  }
  if (value.controller !== undefined) {
    if (!isPlainObject(value.controller)) throw new SettingsError(`${source}: "controller" must be an object of controller options, got ${jsonType(value.controller)}`);
    const defaults = DEFAULT_CONTROLLER_OPTIONS as unknown as Record<string, unknown>;
    const controller: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value.controller)) {
      if (!Object.hasOwn(defaults, k) || NOT_SETTABLE.has(k)) {
        const known = Object.keys(defaults).filter((n) => !NOT_SETTABLE.has(n));
        const why = NOT_SETTABLE.get(k);
        throw new SettingsError(`${source}: ${why ? 'controller option' : 'unknown controller option'} "${k}"${why ? ` cannot be set from a file (${why})` : ''} (options: ${known.join(', ')})`);
      }
      controller[k] = checkLike(v, defaults[k], `controller.${k}`, source);
    }
    let resolved: ControllerOptions;
    try {
      resolved = resolveControllerOptions(controller as Partial<ControllerOptions>);
    } catch (e) {
      // A range the library checks too: said as every range of the file is (checkRanges).
      if (e instanceof OptionRangeError) throw new SettingsError(`${source}: controller.${e.key} must be ${rangeText(e.range)}, got ${String(e.value)}`);
      throw new SettingsError(`${source}: ${(e as Error).message}`);
    }
    checkFootIK(resolved, source);
    checkRanges(controller, 'controller', source);
    out.controller = controller as ControllerSettings;
  }
  if (value.schemaWeights !== undefined) {
    if (!isPlainObject(value.schemaWeights)) throw new SettingsError(`${source}: "schemaWeights" must be an object {"group name": weight}, got ${jsonType(value.schemaWeights)}`);
    for (const [k, w] of Object.entries(value.schemaWeights)) {
      if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) throw new SettingsError(`${source}: schemaWeights.${k} must be a finite number > 0, got ${JSON.stringify(w)}`);
      if (!isGroupWeight(w)) throw new SettingsError(`${source}: schemaWeights.${k} must be in ${weightRangeText()}, got ${typeof w === 'number' ? String(w) : JSON.stringify(w)}`);
      out.schemaWeights[k] = w;
    }
  }
  return out;
}

/**
 * The database with the settings' group weights (the same object when they change nothing), or a
 * SettingsError naming a group the database does not have.
 */
export function applySchemaWeights(db: Database, settings: EngineSettings, source = 'settings'): Database {
  const current = schemaWeights(db.schema);
  for (const k of Object.keys(settings.schemaWeights)) {
    if (!Object.hasOwn(current, k)) throw new SettingsError(`${source}: schemaWeights names feature group "${k}", which this database does not have (its groups: ${Object.keys(current).join(', ')})`);
  }
  const changes = Object.entries(settings.schemaWeights).some(([k, w]) => current[k] !== w);
  return changes ? reweightDatabase(db, settings.schemaWeights) : db;
}

/** The settings as a file's text (stable key order, two-space indent, trailing newline). */
export function formatSettings(settings: EngineSettings): string {
  const out: Record<string, unknown> = {};
  if (settings.comment !== undefined) out.comment = settings.comment;
  out.controller = settings.controller;
  out.schemaWeights = settings.schemaWeights;
  return JSON.stringify(out, null, 2) + '\n';
}

/** Settings in a URL fragment (`#options=...`): how `motionmatch demo --options FILE` hands them to the page. */
export const SETTINGS_FRAGMENT_KEY = 'options';

export function settingsFragment(settings: EngineSettings): string {
  return `#${SETTINGS_FRAGMENT_KEY}=${encodeURIComponent(JSON.stringify({ controller: settings.controller, schemaWeights: settings.schemaWeights }))}`;
}

/** The settings a page's URL fragment carries (null when none); a SettingsError when they are bad. */
export function settingsFromFragment(hash: string): EngineSettings | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const text = params.get(SETTINGS_FRAGMENT_KEY);
  return text === null ? null : parseSettings(text, 'the page address (#options=...)');
}
