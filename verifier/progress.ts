// A progress bar on stderr, drawn only on a terminal so that piped output and --json stay clean.

export interface Progress {
  start(label: string, total: number): void;
  update(done: number): void;
  finish(): void;
}

export const silentProgress: Progress = { start() {}, update() {}, finish() {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silentProgress;
  let label = '';
  let total = 0;
  let last = 0;
  const draw = (done: number) => {
    const width = 30;
    const ratio = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(ratio * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
  };
  return {
    start(l, t) {
      label = l;
      total = t;
      last = 0;
      draw(0);
    },
    update(done) {
      const now = Date.now();
      if (now - last < 50 && done < total) return;
      last = now;
      draw(done);
    },
    finish() {
      draw(total);
      stream.write('\n');
    },
  };
}
