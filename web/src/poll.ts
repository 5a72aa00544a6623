// Repeats a refresh after each run finishes (never overlapping), skipping runs while the tab is hidden.

export interface Poller {
  /** Runs now, out of turn (a filter changed). */
  now(): Promise<void>;
  stop(): void;
}

export function poll(ms: number, run: () => Promise<void>, onError: (err: unknown) => void): Poller {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let running: Promise<void> | null = null;
  const once = async () => {
    clearTimeout(timer);
    if (!running) {
      running = run()
        .catch(onError)
        .finally(() => {
          running = null;
        });
    }
    await running;
    if (!stopped) timer = setTimeout(tick, ms);
  };
  const tick = () => {
    if (document.hidden) timer = setTimeout(tick, ms);
    else void once();
  };
  void once();
  return {
    now: once,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
