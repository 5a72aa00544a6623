// Progress on stderr, so stdout (and --json) stays clean: a bar with rate and ETA on a terminal, and a
// plain line every few seconds otherwise (logs, CI), so long runs never look hung.

export interface Progress {
  start(label: string, total: number): void;
  update(done: number): void;
  finish(): void;
}

export const silentProgress: Progress = { start() {}, update() {}, finish() {} };

export interface ProgressOptions {
  write(text: string): void;
  tty: boolean;
  /** Milliseconds between plain lines when not on a terminal. @defaultValue 5000 */
  lineEveryMs?: number;
  now?: () => number;
}

/** `1m05s`, `42s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const every = options.lineEveryMs ?? 5_000;
  let label = '';
  let total = 0;
  let started = 0;
  let lastDraw = 0;
  let done = 0;
  const status = () => {
    const elapsed = now() - started;
    const rate = elapsed > 0 ? (done * 1000) / elapsed : 0;
    const eta = rate > 0 && total > done ? formatDuration(((total - done) / rate) * 1000) : total > 0 && done >= total ? '0s' : '?';
    const pct = total > 0 ? ` (${Math.floor((Math.min(done, total) / total) * 100)}%)` : '';
    return `${done}${total > 0 ? `/${total}` : ''}${pct} ${Math.round(rate)}/s ETA ${eta}`;
  };
  const draw = (final = false) => {
    if (options.tty) {
      const width = 30;
      const filled = total > 0 ? Math.round(Math.min(1, done / total) * width) : 0;
      options.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${status()}\u001b[K${final ? '\n' : ''}`);
    } else {
      options.write(`${label}: ${status()}${final ? ` done in ${formatDuration(now() - started)}` : ''}\n`);
    }
  };
  return {
    start(l, t) {
      label = l;
      total = t;
      done = 0;
      started = now();
      lastDraw = started;
      if (options.tty) draw();
    },
    update(d) {
      done = d;
      const t = now();
      if (t - lastDraw < (options.tty ? 100 : every)) return;
      lastDraw = t;
      draw();
    },
    finish() {
      // A plain log gets a closing line only for a phase long enough to have shown progress.
      if (options.tty || now() - started >= every) draw(true);
    },
  };
}
