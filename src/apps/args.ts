import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command-line mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Parsed<T extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, usage: string): Parsed<T> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message, usage);
  }
}

/** A finite number from an option, within [min, max]. */
export function numberOption(value: string | undefined, name: string, usage: string, min = -Infinity, max = Infinity): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a number in [${min}, ${max}], got "${value}"`, usage);
  }
  return n;
}

export function integerOption(value: string | undefined, name: string, usage: string, min: number, max: number): number | undefined {
  const n = numberOption(value, name, usage, min, max);
  if (n !== undefined && !Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got "${value}"`, usage);
  return n;
}
