import { UsageError } from './args.js';

const USAGE = `motionmatch — motion matching engine (TypeScript host, SIMD WebAssembly search)

usage: motionmatch <command> [options]

commands:
  build      import BVH clips (or --builtin) into a .mmdb database
  info       describe a .mmdb database
  search     answer feature queries against a database
  bench      benchmark the search methods and backends (WASM SIMD / scalar / JS)
  simulate   run headless agents (server-side simulation)
  merge      combine the partial reports of simulate --shard I/N into the whole run's report
  quality    measure foot skate, transitions, trajectory error per scenario (table, JSON, SVG)
  coverage   which requests a database answers, and what to capture next (HTML heat maps, JSON)
  tune       sweep controller settings and feature weights; Pareto front and recommended settings
  demo       serve the browser demo (what npm start runs)

Run "motionmatch <command> --help" for a command's options.`;

type Command = (argv: string[]) => Promise<number>;

async function loadCommand(name: string): Promise<Command | undefined> {
  switch (name) {
    case 'build': return (await import('./commands/build.js')).buildCommand;
    case 'info': return (await import('./commands/info.js')).infoCommand;
    case 'search': return (await import('./commands/search.js')).searchCommand;
    case 'bench': return (await import('./commands/bench.js')).benchCommand;
    case 'simulate': return (await import('./commands/simulate.js')).simulateCommand;
    case 'merge': return (await import('./commands/merge.js')).mergeCommand;
    case 'quality': return (await import('./commands/quality.js')).qualityCommand;
    case 'coverage': return (await import('./commands/coverage.js')).coverageCommand;
    case 'tune': return (await import('./commands/tune.js')).tuneCommand;
    case 'demo': return (await import('./commands/demo.js')).demoCommand;
    default: return undefined;
  }
}

/** Runs the CLI; returns the exit code (0 ok, 1 failed on bad input or data, 2 usage error). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return name ? 0 : 2;
  }
  const command = await loadCommand(name);
  if (!command) {
    process.stderr.write(`motionmatch: unknown command "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  const json = rest.includes('--json');
  try {
    return await command(rest);
  } catch (e) {
    const err = e as Error;
    if (err instanceof UsageError) {
      process.stderr.write(`motionmatch ${name}: ${err.message}\n\n${err.usage}\n`);
      return 2;
    }
    const message = err && err.message ? err.message : String(e);
    if (json) process.stdout.write(JSON.stringify({ error: { type: err?.name ?? 'Error', message } }) + '\n');
    process.stderr.write(`motionmatch ${name}: ${message}\n`);
    // Unexpected failures keep their stack for bug reports; input errors are plain messages.
    if (!(err instanceof Error) || ['Error', 'TypeError', 'ReferenceError'].includes(err.name)) {
      if (err?.stack && process.env.MOTIONMATCH_DEBUG) process.stderr.write(err.stack + '\n');
    }
    return 1;
  }
}
