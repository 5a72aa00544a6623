// A scheduler pass run every `pollMs` after the previous one ends (never two at once), stopped by awaiting the pass in flight.

export interface PollLoop {
  /** No pass starts after this; resolves once the pass in flight, if any, has ended. */
  stop(): Promise<void>;
}

export function startPollLoop(pass: () => Promise<void>, pollMs: number, onError: (err: unknown) => void): PollLoop {
  let stopped = false;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    running = pass()
      .catch(onError)
      .finally(() => {
        running = null;
        if (!stopped) timer = setTimeout(loop, pollMs);
      });
  };
  timer = setTimeout(loop, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
