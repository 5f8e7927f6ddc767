/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal (and never in --json
 * mode), so piped and machine output stay clean.
 */
export interface Progress {
  update(done: number, total: number, label?: string): void;
  done(message?: string): void;
}

export function createProgress(title: string, enabled: boolean = !!process.stderr.isTTY): Progress {
  let last = 0;
  const width = 28;
  return {
    update(done, total, label = '') {
      if (!enabled) return;
      const now = Date.now();
      if (done < total && now - last < 50) return;
      last = now;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const fill = Math.round(frac * width);
      const bar = '#'.repeat(fill) + '-'.repeat(width - fill);
      const text = `${title} [${bar}] ${String(Math.round(frac * 100)).padStart(3)}% ${done}/${total} ${label}`;
      const cols = process.stderr.columns || 100;
      process.stderr.write(`\r${text.slice(0, cols - 1).padEnd(Math.min(cols - 1, text.length + 10))}`);
    },
    done(message) {
      if (!enabled) return;
      process.stderr.write(`\r\x1b[2K${message ?? ''}${message ? '\n' : ''}`);
    },
  };
}
