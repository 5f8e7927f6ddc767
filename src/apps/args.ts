import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command-line mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
type Parsed<T extends OptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

/** A token that is a negative number ("-5", "-0.1", "-.5", "-1e3"), not an option. */
const NEGATIVE_NUMBER = /^-(?:\d|\.\d)/;

/**
 * Arguments with every "--opt -5" (and "-o -5") of a value-taking option joined into "--opt=-5".
 * node:util parseArgs takes a value that starts with a dash for an option and calls it ambiguous;
 * a negative number after an option that needs a value can only be that value. Everything after
 * "--" stays as it is.
 */
export function joinNegativeValues(argv: readonly string[], options: OptionsConfig): string[] {
  const byShort = new Map<string, string>();
  for (const [name, o] of Object.entries(options)) if (o.short) byShort.set(o.short, name);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = a.startsWith('--') ? a.slice(2) : /^-[^-]$/.test(a) ? byShort.get(a[1]) : undefined;
    const next = argv[i + 1];
    if (name !== undefined && !name.includes('=') && options[name]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

/** Edit distance (insertions, deletions, substitutions) between two short strings. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length];
}

/** The known option closest to a mistyped one, when it is close enough to be a likely typo. */
function closestOption(typed: string, options: OptionsConfig): string | undefined {
  const bare = typed.replace(/^-+/, '').split('=')[0];
  let best: string | undefined, bestDistance = Infinity;
  for (const name of Object.keys(options)) {
    const d = editDistance(bare, name);
    if (d < bestDistance) { best = name; bestDistance = d; }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/**
 * node:util parseArgs' errors (several lines, ERR_PARSE_ARGS_* codes) as one line that names the
 * option and says what to type instead.
 */
export function describeParseError(e: unknown, options: OptionsConfig): string {
  const err = e as { code?: string; message?: string };
  const message = String(err?.message ?? e);
  // "Option '--seed' ...", "Option '-p, --port <value>' ...": the spellings named, short first.
  const named = (/Option '([^']+)'/.exec(message)?.[1] ?? '').split(/[\s,]+/).filter((t) => t.startsWith('-'));
  const short = named.find((t) => /^-[^-]$/.test(t));
  const long = named.find((t) => t.startsWith('--')) ??
    (short ? Object.entries(options).filter(([, o]) => o.short === short[1]).map(([n]) => `--${n}`)[0] : undefined);
  const shown = short && long ? `${short} (${long})` : (long ?? short ?? 'an option');
  switch (err?.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const typed = /Unknown option '([^']+)'/.exec(message)?.[1] ?? shown;
      const near = closestOption(typed, options);
      return `unknown option ${typed}${near ? ` (did you mean --${near}?)` : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/ambiguous/.test(message)) {
        return `${shown} needs a value, and the next argument starts with '-'; to pass a value that starts with '-', write ${long ?? '--option'}=VALUE`;
      }
      if (/argument missing/.test(message)) return `${shown} needs a value`;
      if (/does not take an argument/.test(message)) return `${shown} takes no value`;
      break;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ''}`.trim();
  }
  return message.split('\n')[0];
}

/**
 * Parses a command's arguments (strict: unknown options are errors; positionals allowed). A
 * negative number after an option that takes a value is that value ("--seed -5" = "--seed=-5"),
 * so that range checks can say what is wrong with it. Mistakes throw UsageError (exit code 2).
 */
export function parseCommandArgs<T extends OptionsConfig>(argv: string[], options: T, usage: string): Parsed<T> {
  try {
    return parseArgs({ args: joinNegativeValues(argv, options), options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(describeParseError(e, options), usage);
  }
}

/**
 * parseCommandArgs for a standalone tool (bench/*.ts, scripts/*.mjs): a mistake, or more than
 * `maxPositionals` positionals, is printed as "`tool`: message" and the usage, and the process exits 2.
 */
export function parseToolArgs<T extends OptionsConfig>(tool: string, argv: string[], options: T, usage: string, maxPositionals = 0): Parsed<T> {
  try {
    const parsed = parseCommandArgs(argv, options, usage);
    if (parsed.positionals.length > maxPositionals) throw new UsageError(`unexpected argument ${parsed.positionals[maxPositionals]}`, usage);
    return parsed;
  } catch (e) {
    process.stderr.write(`${tool}: ${(e as Error).message}\n${usage.endsWith('\n') ? usage : `${usage}\n`}`);
    process.exit(2);
  }
}

/** What a number option accepts, for messages: ">= 0", "<= 10", "in [1, 64]". */
function rangeText(min: number, max: number): string {
  if (min === -Infinity && max === Infinity) return 'a finite number';
  if (max === Infinity) return `>= ${min}`;
  if (min === -Infinity) return `<= ${max}`;
  return `in [${min}, ${max}]`;
}

/** A finite number from an option, within [min, max]. */
export function numberOption(value: string | undefined, name: string, usage: string, min = -Infinity, max = Infinity): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) {
    throw new UsageError(`--${name} must be a number${min !== -Infinity || max !== Infinity ? ` ${rangeText(min, max)}` : ''}, got "${value}"`, usage);
  }
  // Say which bound was crossed: "--seed must be >= 0, got -5".
  if (n < min) throw new UsageError(`--${name} must be >= ${min}, got ${value}`, usage);
  if (n > max) throw new UsageError(`--${name} must be <= ${max}, got ${value}`, usage);
  return n;
}

export function integerOption(value: string | undefined, name: string, usage: string, min: number, max: number): number | undefined {
  const n = numberOption(value, name, usage, min, max);
  if (n !== undefined && !Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got ${value}`, usage);
  return n;
}
