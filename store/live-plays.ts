// The live play feed in Redis: one pub/sub subscription to the plays channel per process (on a connection of its
// own), and the journal reads a reconnecting client resumes from.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { createRedis, type RedisAddress } from './redis.ts';

/** One raw journal stream entry: its stream id and flat field list (`seq`, `type`, `at`, `data`). */
export type JournalEntry = [id: string, fields: string[]];

/** A play as the ledger publishes it (settle_turn.lua): the seq of its settle event and the public play. */
export interface PublishedPlay {
  seq: number;
  play: { game: string; [field: string]: unknown };
}

export interface PlaysSubscription {
  /** Resolves once the channel is subscribed (again, after a lost connection). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface SubscriptionHandlers {
  play(message: PublishedPlay): void;
  /** The connection dropped: anything published until it is subscribed again is not delivered. */
  lost(): void;
}

const READ_CHUNK = 500;

const seqOf = (fields: readonly string[]): number => {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'seq') return Number(fields[i + 1]);
  return Number.NaN;
};

export class LivePlayStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    /** Where the subscriber connects: the ledger's Redis (a URL, or the Sentinels' primary). */
    readonly target: RedisAddress,
  ) {}

  /** The seq of the newest journal event (0 for an empty journal). */
  async currentSeq(): Promise<number> {
    return Number((await this.redis.get(this.keys.journalSeq())) ?? 0);
  }

  /**
   * The journal entries after `afterSeq`, oldest first, read back from the newest. Seqs are contiguous (every
   * journal write INCRs and XADDs in one script), so a gap means the stream was trimmed.
   * @returns null when the stream no longer holds all of them, or there are more than `max`
   */
  async entriesAfter(afterSeq: number, max: number): Promise<JournalEntry[] | null> {
    const out: JournalEntry[] = [];
    let end = '+';
    for (;;) {
      const chunk = (await this.redis.xrevrange(this.keys.journal(), end, '-', 'COUNT', READ_CHUNK)) as JournalEntry[];
      for (const entry of chunk) {
        const seq = seqOf(entry[1]);
        if (seq <= afterSeq) return out.reverse();
        if (out.length === max) return null;
        out.push(entry);
      }
      if (chunk.length < READ_CHUNK) {
        // The start of the stream: complete only if its oldest entry is the one right after afterSeq.
        const oldest = out[out.length - 1];
        return !oldest || seqOf(oldest[1]) === afterSeq + 1 ? out.reverse() : null;
      }
      end = `(${chunk[chunk.length - 1]![0]}`;
    }
  }

  /**
   * Walks the journal entries after `afterSeq`, newest first, until `visit` returns false or none are left: a new
   * client's snapshot needs only the newest few of them, whatever the analytics lag.
   */
  async walkNewest(afterSeq: number, visit: (entry: JournalEntry) => boolean): Promise<void> {
    let end = '+';
    for (let count = 16; ; count = Math.min(READ_CHUNK, count * 4)) {
      const chunk = (await this.redis.xrevrange(this.keys.journal(), end, '-', 'COUNT', count)) as JournalEntry[];
      for (const entry of chunk) if (seqOf(entry[1]) <= afterSeq || !visit(entry)) return;
      if (chunk.length < count) return;
      end = `(${chunk[chunk.length - 1]![0]}`;
    }
  }

  /**
   * Subscribes to the plays channel on a dedicated connection. It subscribes again by itself after a lost
   * connection (`handlers.lost` says when one was lost; messages in between are gone, the journal has them).
   */
  subscribe(handlers: SubscriptionHandlers): PlaysSubscription {
    const channel = this.keys.playsChannel();
    // Subscribed by hand on every 'ready', so that ready() knows when a resubscription is done.
    const sub = createRedis(this.target, {
      enableAutoPipelining: false,
      autoResubscribe: false,
      maxRetriesPerRequest: null,
      // Named, so that CLIENT LIST shows what it is.
      connectionName: `${this.keys.prefix}:plays-subscriber`,
    });
    let subscribed: Promise<void>;
    let resolve: () => void = () => {};
    const arm = () => {
      subscribed = new Promise<void>((r) => {
        resolve = r;
      });
    };
    arm();
    let up = false;
    let closing = false;
    sub.on('ready', () => {
      sub.subscribe(channel).then(
        () => {
          up = true;
          resolve();
        },
        () => sub.disconnect(true),
      );
    });
    sub.on('close', () => {
      if (!up) return;
      up = false;
      arm();
      if (!closing) handlers.lost();
    });
    // Reconnection is ioredis's; an error event only must not crash the process.
    sub.on('error', () => {});
    sub.on('message', (_channel: string, text: string) => {
      let message: PublishedPlay;
      try {
        message = JSON.parse(text) as PublishedPlay;
      } catch {
        return;
      }
      if (Number.isSafeInteger(message.seq) && message.play && typeof message.play.game === 'string') handlers.play(message);
    });
    return {
      ready: () => subscribed,
      close: async () => {
        closing = true;
        // Nothing is owed to a subscriber, and QUIT would wait for a Redis that may be down.
        sub.disconnect();
      },
    };
  }
}
