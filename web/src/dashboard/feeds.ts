// Where the play feed comes from: the SSE stream of design §8, or, until it exists, the public bet log and receipts.
import { getJson } from '../api.ts';
import type { Activity, BetLogPage, Game, Play, Receipt } from '../types.ts';
import { playOfReceipt } from './plays.ts';

export interface FeedEvents {
  snapshot(activity: Activity): void;
  play(play: Play): void;
  status(text: string, state: 'live' | 'connecting' | 'polling' | 'error'): void;
}

export interface Feed {
  stop(): void;
}

/** `GET /api/activity/stream`: a snapshot, then each settled play; EventSource resumes with Last-Event-ID. */
export function streamFeed(game: Game, on: FeedEvents): Feed {
  const source = new EventSource(`/api/activity/stream?game=${encodeURIComponent(game)}`);
  on.status('Connecting to the live play stream…', 'connecting');
  source.addEventListener('open', () => on.status('Live: new plays appear as they settle.', 'live'));
  source.addEventListener('snapshot', (event) => {
    const data = JSON.parse((event as MessageEvent<string>).data) as { snapshot: Activity };
    on.snapshot(data.snapshot);
  });
  source.addEventListener('play', (event) => {
    const data = JSON.parse((event as MessageEvent<string>).data) as { play: Play };
    on.play(data.play);
  });
  source.addEventListener('error', () => {
    on.status(source.readyState === EventSource.CLOSED ? 'The live stream closed; reload the page to reconnect.' : 'Reconnecting to the live stream…', 'error');
  });
  return { stop: () => source.close() };
}

const WINDOW = 20;

/**
 * The newest plays read from the public bet log (`/protocol/v1/bet-log/entries`) and their receipts,
 * polled: what the contract's receipt routes give before the analytics routes exist.
 */
export function betLogFeed(game: Game, on: FeedEvents & { size(size: number): void }, everyMs = 2000): Feed {
  const seen = new Set<string>();
  let lastSize = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const controller = new AbortController();
  on.status(`Reading the latest plays from the public bet log every ${everyMs / 1000} seconds.`, 'polling');

  const tick = async () => {
    const head = await getJson<BetLogPage>('/protocol/v1/bet-log/entries?from=0&limit=1', { signal: controller.signal });
    on.size(head.size);
    if (head.size === lastSize) return;
    const from = Math.max(0, head.size - WINDOW);
    const page = await getJson<BetLogPage>(`/protocol/v1/bet-log/entries?from=${from}&limit=${WINDOW}`, { signal: controller.signal });
    const fresh = page.entries.filter((e) => !seen.has(e.receiptId)).sort((a, b) => b.index - a.index);
    const receipts = await Promise.all(
      fresh.map((e) => getJson<{ receipt: Receipt }>(`/receipts/${encodeURIComponent(e.receiptId)}`, { signal: controller.signal }).then((b) => b.receipt)),
    );
    for (const e of fresh) seen.add(e.receiptId);
    lastSize = head.size;
    // Oldest first, so the newest ends on top.
    for (const receipt of receipts.reverse()) if (game === 'all' || receipt.game === game) on.play(playOfReceipt(receipt));
    on.status(`Reading the latest plays from the public bet log every ${everyMs / 1000} seconds.`, 'polling');
  };
  const loop = async () => {
    try {
      await tick();
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      on.status(`Could not read the bet log: ${(err as Error).message}. Retrying.`, 'error');
    }
    if (!stopped) timer = setTimeout(() => void loop(), everyMs);
  };
  void loop();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      controller.abort();
    },
  };
}
