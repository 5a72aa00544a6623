// Repeats a refresh after each run finishes, as one chain (never overlapping), skipping runs while the tab is hidden.

export interface Poller {
  /** Runs now, out of turn (a filter changed); a run in flight is followed by one more, which sees the change. */
  now(): Promise<void>;
  stop(): void;
}

export function poll(ms: number, run: () => Promise<void>, onError: (err: unknown) => void): Poller {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let again = false;
  let running: Promise<void> | null = null;
  const once = (): Promise<void> => {
    clearTimeout(timer);
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await run().catch(onError);
      } while (again && !stopped);
    })().finally(() => {
      running = null;
      if (!stopped) timer = setTimeout(tick, ms);
    });
    return running;
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
