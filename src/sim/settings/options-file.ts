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
import { isPlainObject, jsonType } from '../../util/json-text.js';
import { excerpt } from '../../util/input-text.js';
import { checkJson, describeValue, plainObject, readJson, saysLine, strictEntries, strictObject, v } from '../../util/json-schema.js';
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

const error = (m: string) => new SettingsError(m);

/**
 * The shape of an option's value, from its default `model`: the same JSON type, numbers finite,
 * objects with the model's fields only (each optional: a partial object sets only the fields it
 * names). An option without a default shape (null) is resolveControllerOptions' to judge.
 */
function optionSchema(model: unknown, at: string): v.GenericSchema {
  switch (jsonType(model)) {
    case 'null': case 'undefined': return v.unknown();
    case 'number': return v.pipe(v.number('a number'), v.finite('a finite number'));
    case 'boolean': return v.boolean('a boolean');
    case 'string': return v.string('a string');
    case 'array': return v.array(v.unknown(), 'an array');
    default: {
      const m = model as Record<string, unknown>;
      const entries: v.ObjectEntries = {};
      for (const [k, x] of Object.entries(m)) entries[k] = v.optional(optionSchema(x, `${at}.${k}`));
      return v.pipe(plainObject('an object'), strictEntries(entries, { unknown: (k) => saysLine(`unknown option ${at}.${k} (known: ${Object.keys(m).join(', ')})`) }));
    }
  }
}

/** Options a file may set, and the words for the others. */
function controllerSchema() {
  const defaults = DEFAULT_CONTROLLER_OPTIONS as unknown as Record<string, unknown>;
  const known = Object.keys(defaults).filter((n) => !NOT_SETTABLE.has(n));
  const entries: v.ObjectEntries = {};
  for (const k of known) entries[k] = v.optional(optionSchema(defaults[k], `controller.${k}`));
  return strictEntries(entries, { unknown: (k) => saysLine(`unknown controller option "${k}" (options: ${known.join(', ')})`) });
}

/** A settings file's shape (what the values mean is checked after: the controller's rules and the physical ranges). */
export const SettingsFileSchema = strictObject({
  controller: v.optional(v.pipe(v.custom<Record<string, unknown>>(isPlainObject, (issue) => saysLine(`"controller" must be an object of controller options, got ${describeValue(issue.input)}`)), controllerSchema())),
  schemaWeights: v.optional(v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, (issue) => saysLine(`"schemaWeights" must be an object {"group name": weight}, got ${describeValue(issue.input)}`)),
    v.record(v.string(), v.pipe(v.number('a finite number > 0'), v.finite('a finite number > 0'), v.gtValue(0, 'a finite number > 0'))),
  )),
  comment: v.optional(v.string((issue) => saysLine(`"comment" must be a string, got ${describeValue(issue.input)}`))),
}, {
  says: (got) => `a settings file is a JSON object {"controller": {...}, "schemaWeights": {...}}, got ${got}`,
  unknown: (k) => `unknown key "${k}" (a settings file has ${TOP_LEVEL_KEYS.map((t) => `"${t}"`).join(', ')})`,
});

/** Parses and checks a settings file's text. `source` names it in messages. */
export function parseSettings(text: string, source = 'settings'): EngineSettings {
  return checkSettings(readJson(v.unknown(), text, source, error, { empty: 'not valid JSON (the file is empty)' }), source);
}

/**
 * `value` (checked against the shape of `model`, a default option value) with objects completed
 * with the model's fields (a partial object sets only the fields it names).
 */
function completeLike(value: unknown, model: unknown): unknown {
  if (!isPlainObject(model) || !isPlainObject(value)) return value;
  const out: Record<string, unknown> = { ...model };
  for (const k of Object.keys(value)) out[k] = completeLike(value[k], model[k]);
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
  // Options that hold code first: why a file cannot set them says more than "unknown".
  if (isPlainObject(value) && isPlainObject(value.controller)) {
    for (const k of Object.keys(value.controller)) {
      const why = NOT_SETTABLE.get(k);
      if (why) {
        const known = Object.keys(DEFAULT_CONTROLLER_OPTIONS).filter((n) => !NOT_SETTABLE.has(n));
        throw error(`${source}: controller option "${k}" cannot be set from a file (${why}) (options: ${known.join(', ')})`);
      }
    }
  }
  const file = checkJson(SettingsFileSchema, value, source, error);
  const out = emptySettings();
  if (file.comment !== undefined) out.comment = file.comment;
  if (file.controller !== undefined) {
    const defaults = DEFAULT_CONTROLLER_OPTIONS as unknown as Record<string, unknown>;
    const controller: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(file.controller)) controller[k] = completeLike(x, defaults[k]);
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
  if (file.schemaWeights !== undefined) {
    for (const [k, w] of Object.entries(file.schemaWeights)) {
      // (A key valibot's record leaves alone, "__proto__" or "constructor", is checked here too.)
      if (!isGroupWeight(w)) throw new SettingsError(`${source}: schemaWeights.${excerpt(k, 40)} must be in ${weightRangeText()}, got ${typeof w === 'number' ? String(w) : describeValue(w)}`);
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
