/**
 * With chDB the engine belongs to one process (design §8): the main process, which runs the worker. API processes
 * forked by `node:cluster` ask it over the cluster's IPC channel (config/cluster-ipc.ts), and give up with
 * SERVICE_UNAVAILABLE when no answer comes in time. Parameters are checked in the API process first, so only
 * whitelisted, parsed queries cross the channel.
 * @module
 */
import { IpcAsker, serveIpc, type IpcChannel, type IpcHub } from '../config/cluster-ipc.ts';
import type { Activity, Rankings, Stats } from '../protocol/analytics.ts';
import { budgetClientOf, parseQuery, parseReceiptIds, parseSeqRange, unavailable } from './reader.ts';
import type { ActivityQuery, AnalyticsReader, ArchivedEventsQuery, ArchivedReceiptsQuery, RankingsQuery, ShippedActivity, StatsQuery } from './reader.ts';
import type { ArchivedReceiptText } from '../store/retention.ts';
import type { JournalRecord } from '../store/journal-records.ts';

export type { IpcChannel, IpcHub, IpcPeer } from '../config/cluster-ipc.ts';

const KIND = 'analytics';

/**
 * Answers the API processes' analytics questions from `reader` (the owner's). @returns a function that stops answering
 */
export function serveAnalytics(hub: IpcHub, reader: AnalyticsReader): () => void {
  return serveIpc(
    hub,
    KIND,
    {
      activity: (q) => reader.activity(q),
      shippedActivity: (q) => reader.shippedActivity(q),
      rankings: (q) => reader.rankings(q),
      stats: (q) => reader.stats(q),
      archivedReceipts: (q) => reader.archivedReceipts(q as ArchivedReceiptsQuery),
      archivedEvents: (q) => reader.archivedEvents(q as ArchivedEventsQuery),
      ping: () => reader.ping(),
    },
    unavailable,
  );
}

/** The client whose share of the owner's archive budget a read spends, when the caller names one. */
const clientOf = (query: { client?: unknown }): { client?: string } => {
  const client = budgetClientOf(query.client);
  return client === undefined ? {} : { client };
};

/** An API process's reader: every question goes to the owner over IPC. */
export class IpcReader implements AnalyticsReader {
  private readonly asker: IpcAsker;

  /**
   * @param channel - `process` in a cluster worker
   * @param timeoutMs - how long the owner has to answer
   */
  constructor(channel: IpcChannel, timeoutMs = 5_000) {
    this.asker = new IpcAsker(channel, KIND, timeoutMs, unavailable);
  }

  async activity(query: ActivityQuery): Promise<Activity> {
    return this.asker.ask('activity', { ...parseQuery('activity', query) }) as Promise<Activity>;
  }

  async shippedActivity(query: ActivityQuery): Promise<ShippedActivity> {
    return this.asker.ask('shippedActivity', { ...parseQuery('activity', query) }) as Promise<ShippedActivity>;
  }

  async rankings(query: RankingsQuery): Promise<Rankings> {
    return this.asker.ask('rankings', { ...parseQuery('rankings', query) }) as Promise<Rankings>;
  }

  async stats(query: StatsQuery): Promise<Stats> {
    return this.asker.ask('stats', { ...parseQuery('stats', query) }) as Promise<Stats>;
  }

  async archivedReceipts(query: ArchivedReceiptsQuery): Promise<ArchivedReceiptText[]> {
    return this.asker.ask('archivedReceipts', { receiptIds: parseReceiptIds(query.receiptIds), ...clientOf(query) }) as Promise<ArchivedReceiptText[]>;
  }

  async archivedEvents(query: ArchivedEventsQuery): Promise<JournalRecord[]> {
    return this.asker.ask('archivedEvents', { ...parseSeqRange(query), ...clientOf(query) }) as Promise<JournalRecord[]>;
  }

  async ping(): Promise<void> {
    await this.asker.ask('ping', {});
  }

  close(): void {
    this.asker.close();
  }
}
