/**
 * The command-line parser every command uses (src/apps/args.ts): negative numbers as option values,
 * one-line messages for parse mistakes, range checks that say which bound was crossed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeParseError, integerOption, numberOption, parseCommandArgs, UsageError } from '../../src/apps/args.js';
import { runCli } from '../helpers/cli.js';

const USAGE = 'usage: test [--seed K] [--noise X] [--port N] [--json]';
const OPTIONS = {
  seed: { type: 'string' },
  noise: { type: 'string' },
  port: { type: 'string', short: 'p' },
  tag: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).usage).toBe(USAGE);
    return (e as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('parseCommandArgs: negative numbers', () => {
  it('takes a negative number after a value-taking option as its value, in every spelling', () => {
    for (const argv of [['--seed', '-5'], ['--seed=-5']]) {
      expect(parseCommandArgs(argv, OPTIONS, USAGE).values.seed).toBe('-5');
    }
    expect(parseCommandArgs(['--noise', '-0.1'], OPTIONS, USAGE).values.noise).toBe('-0.1');
    expect(parseCommandArgs(['--noise', '-.5'], OPTIONS, USAGE).values.noise).toBe('-.5');
    expect(parseCommandArgs(['--noise', '-1e-3'], OPTIONS, USAGE).values.noise).toBe('-1e-3');
    expect(parseCommandArgs(['-p', '-1'], OPTIONS, USAGE).values.port).toBe('-1');
    expect(parseCommandArgs(['--tag', '-1', '--tag', '-2'], OPTIONS, USAGE).values.tag).toEqual(['-1', '-2']);
  });

  it('leaves everything else as it was: flags, positionals, values after "--"', () => {
    const r = parseCommandArgs(['--json', 'file.mmdb', '--seed', '3', '--', '--noise', '-1'], OPTIONS, USAGE);
    expect(r.values).toEqual({ json: true, seed: '3' });
    expect(r.positionals).toEqual(['file.mmdb', '--noise', '-1']);
    // A negative number anywhere else is what parseArgs makes of it: an unknown option.
    expect(usageMessage(() => parseCommandArgs(['--json', '-5'], OPTIONS, USAGE))).toBe('unknown option -5');
  });

  it('reads any mix of options with negative values, flags and positionals as written (property)', () => {
    const negative = fc.oneof(
      fc.integer({ min: -1_000_000, max: -1 }).map(String),
      fc.double({ min: -1e6, max: -1e-6, noNaN: true }).map(String),
    );
    const entry = fc.oneof(
      fc.record({ kind: fc.constant('option' as const), flag: fc.constantFrom('--seed', '--noise', '-p'), value: negative }),
      fc.record({ kind: fc.constant('flag' as const) }),
      fc.record({ kind: fc.constant('positional' as const), value: fc.constantFrom('a.mmdb', 'b', '0') }),
    );
    fc.assert(fc.property(fc.array(entry, { maxLength: 10 }), (entries) => {
      const argv: string[] = [];
      const expected: Record<string, string> = {};
      const positionals: string[] = [];
      let json = false;
      for (const e of entries) {
        if (e.kind === 'option') {
          argv.push(e.flag, e.value);
          expected[e.flag === '-p' ? 'port' : e.flag.slice(2)] = e.value;
        } else if (e.kind === 'flag') {
          argv.push('--json');
          json = true;
        } else {
          argv.push(e.value);
          positionals.push(e.value);
        }
      }
      const r = parseCommandArgs(argv, OPTIONS, USAGE);
      expect(r.values).toEqual({ ...expected, ...(json ? { json: true } : {}) });
      expect(r.positionals).toEqual(positionals);
    }));
  });
});

describe('parseCommandArgs: mistakes are one line that names the option', () => {
  it('a value that starts with a dash but is not a number', () => {
    const m = usageMessage(() => parseCommandArgs(['--seed', '--json'], OPTIONS, USAGE));
    expect(m).not.toContain('\n');
    expect(m).toMatch(/--seed needs a value/);
    const m2 = usageMessage(() => parseCommandArgs(['--noise', '-x'], OPTIONS, USAGE));
    expect(m2).toMatch(/--noise needs a value.*--noise=VALUE/);
    expect(m2).not.toContain('\n');
  });

  it('a missing value, a value for a flag, an unknown option with a suggestion', () => {
    expect(usageMessage(() => parseCommandArgs(['--seed'], OPTIONS, USAGE))).toBe('--seed needs a value');
    expect(usageMessage(() => parseCommandArgs(['-p'], OPTIONS, USAGE))).toBe('-p (--port) needs a value');
    expect(usageMessage(() => parseCommandArgs(['--json=yes'], OPTIONS, USAGE))).toBe('--json takes no value');
    expect(usageMessage(() => parseCommandArgs(['--sed', '1'], OPTIONS, USAGE))).toBe('unknown option --sed (did you mean --seed?)');
    expect(usageMessage(() => parseCommandArgs(['--frobnicate'], OPTIONS, USAGE))).toBe('unknown option --frobnicate');
    expect(usageMessage(() => parseCommandArgs(['-z'], OPTIONS, USAGE))).toBe('unknown option -z');
  });

  it('keeps the first line of an error it does not know', () => {
    expect(describeParseError(new Error('first\nsecond'), OPTIONS)).toBe('first');
  });
});

describe('numberOption / integerOption', () => {
  it('says which bound was crossed, with the value as typed', () => {
    expect(usageMessage(() => integerOption('-5', 'seed', USAGE, 0, 2 ** 32 - 1))).toBe('--seed must be >= 0, got -5');
    expect(usageMessage(() => numberOption('-0.1', 'noise', USAGE, 0))).toBe('--noise must be >= 0, got -0.1');
    expect(usageMessage(() => integerOption('70000', 'port', USAGE, 0, 65535))).toBe('--port must be <= 65535, got 70000');
    expect(usageMessage(() => integerOption('1.5', 'agents', USAGE, 1, 100))).toBe('--agents must be an integer, got 1.5');
    expect(usageMessage(() => numberOption('abc', 'seconds', USAGE, 0, 10))).toBe('--seconds must be a number in [0, 10], got "abc"');
    expect(usageMessage(() => numberOption('', 'seconds', USAGE))).toBe('--seconds must be a number, got ""');
    expect(usageMessage(() => numberOption('Infinity', 'seconds', USAGE))).toMatch(/must be a number/);
  });

  it('accepts negative values where the range allows them', () => {
    expect(numberOption('-0.1', 'noise', USAGE, -1, 1)).toBe(-0.1);
    expect(integerOption('-5', 'offset', USAGE, -10, 10)).toBe(-5);
    expect(numberOption(undefined, 'noise', USAGE)).toBeUndefined();
  });

  it('end to end: parse then range-check "--x -5"', () => {
    const { values } = parseCommandArgs(['--seed', '-5'], OPTIONS, USAGE);
    expect(usageMessage(() => integerOption(values.seed, 'seed', USAGE, 0, 100))).toBe('--seed must be >= 0, got -5');
  });
});

describe('the CLI with negative numbers', () => {
  it('simulate --seed -5: the range message, exit code 2, no "ambiguous"', () => {
    const r = runCli(['simulate', '--seed', '-5', '--agents', '1', '--seconds', '0.1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^motionmatch simulate: --seed must be >= 0, got -5$/m);
    expect(r.stderr).not.toMatch(/ambiguous/);
  });

  it('demo --port -1 is a range error, not a parse error', () => {
    const r = runCli(['demo', '--port', '-1', '--no-build']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port must be >= 0, got -1/);
  });
});
