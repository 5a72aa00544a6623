// The analytics shipper's Redis side: the journal stream it reads (and trims below what ClickHouse holds), the
// lease that makes one worker process the shipper, and how far receipts and manifests were archived.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { Lease } from './lease.ts';
import type { Scripts } from './scripts.ts';
import { NO_REPLICATION, type ReplicationBarrier } from './replication.ts';

/** One journal stream entry as Redis returns it: its id and a flat field list (`seq`, `type`, `at`, `data`). */
export type StreamEntry = [id: string, fields: string[]];

/** A reader that may block waiting for new entries; it holds a connection of its own. */
export interface BlockingStreamReader {
  /** Entries after `afterId`, waiting up to `blockMs` for the first one. */
  read(afterId: string, count: number, blockMs: number): Promise<StreamEntry[]>;
  close(): void;
}

/** Far above any block the shipper asks for (about a second). */
const BLOCKING_COMMAND_TIMEOUT_MS = 30_000;

export class JournalStream {
  constructor(
    readonly redis: Redis,
    readonly streamKey: string,
    /** The counter the ledger scripts take each event's seq from (`journal()` in _lib.lua). */
    readonly seqKey = `${streamKey}:seq`,
    /** Entries leave for the archive only once they are on the replicas: a failover must not take back what analytics hold. */
    readonly replication: ReplicationBarrier = NO_REPLICATION,
  ) {}

  static of(redis: Redis, keys: Keys, replication?: ReplicationBarrier): JournalStream {
    return new JournalStream(redis, keys.journal(), keys.journalSeq(), replication);
  }

  /** The seq of the newest event the ledger handed out (0 before the first). */
  async lastSeq(): Promise<number> {
    return Number((await this.redis.get(this.seqKey)) ?? 0);
  }

  /** Up to `count` entries strictly after `afterId` (`'0-0'` for the first). */
  async range(afterId: string, count: number): Promise<StreamEntry[]> {
    const entries = (await this.redis.xrange(this.streamKey, `(${afterId}`, '+', 'COUNT', count)) as StreamEntry[];
    if (entries.length) await this.replication.confirm();
    return entries;
  }

  /** Removes the entries below `minId`. @returns how many */
  async trimBelow(minId: string): Promise<number> {
    return Number(await this.redis.xtrim(this.streamKey, 'MINID', minId));
  }

  /**
   * XREAD BLOCK holds its connection, so a blocking reader gets one of its own, without the request paths' short
   * command timeout (which would cut a block of the same length); a hung Redis still fails it after 30 s.
   */
  blockingReader(): BlockingStreamReader {
    const connection = this.redis.duplicate({ commandTimeout: BLOCKING_COMMAND_TIMEOUT_MS, enableOfflineQueue: true });
    return {
      read: async (afterId, count, blockMs) => {
        const reply = (await connection.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.streamKey, afterId)) as [string, StreamEntry[]][] | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length) await this.replication.confirm();
        return entries;
      },
      close: () => connection.disconnect(),
    };
  }
}

/** How far the archive got: bet-log sizes whose receipts were copied (as settled, and with their anchor), and the journal seq of the newest manifest copied. */
export interface ArchiveProgress {
  settled: number;
  anchored: number;
  manifestSeq: number;
}

export class ShipperStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {
    this.lease = new Lease(redis, scripts, keys.shipperLease());
  }

  /** The lease that makes one worker process the shipper. */
  readonly lease: Lease;

  async archiveProgress(): Promise<ArchiveProgress> {
    const [settled, anchored, manifestSeq] = await this.redis.hmget(this.keys.archiveProgress(), 'settled', 'anchored', 'manifestSeq');
    return { settled: Number(settled ?? 0), anchored: Number(anchored ?? 0), manifestSeq: Number(manifestSeq ?? 0) };
  }

  /** Records progress; re-archiving after a crash before this is harmless (the archive tables replace by key). */
  async setArchiveProgress(progress: Partial<ArchiveProgress>): Promise<void> {
    const fields = Object.entries(progress).filter(([, v]) => v !== undefined);
    if (fields.length) await this.redis.hset(this.keys.archiveProgress(), Object.fromEntries(fields));
  }
}
