/**
 * With chDB the engine belongs to one process (design §8): the main process, which runs the worker. API processes
 * forked by `node:cluster` ask it over the cluster's IPC channel, one request id per question, and give up with
 * SERVICE_UNAVAILABLE when no answer comes in time. Parameters are checked in the API process first, so only
 * whitelisted, parsed queries cross the channel.
 * @module
 */
import { isErrorCode, PfwsError } from '../protocol/errors.ts';
import type { Activity, Rankings, Stats } from '../protocol/analytics.ts';
import { parseQuery, parseReceiptIds, parseSeqRange, unavailable } from './reader.ts';
import type { ActivityQuery, AnalyticsReader, ArchivedEventsQuery, ArchivedReceiptsQuery, RankingsQuery, ShippedActivity, StatsQuery } from './reader.ts';
import type { ArchivedReceiptText } from '../store/retention.ts';
import type { JournalRecord } from '../store/journal-records.ts';

const REQUEST = 'pfws:analytics:request';
const REPLY = 'pfws:analytics:reply';

type Method = 'activity' | 'shippedActivity' | 'rankings' | 'stats' | 'archivedReceipts' | 'archivedEvents' | 'ping';
const METHODS: readonly Method[] = ['activity', 'shippedActivity', 'rankings', 'stats', 'archivedReceipts', 'archivedEvents', 'ping'];

interface Request {
  type: typeof REQUEST;
  id: number;
  method: Method;
  query: Record<string, unknown>;
}

type Reply =
  | { type: typeof REPLY; id: number; ok: true; value: unknown }
  | { type: typeof REPLY; id: number; ok: false; error: { code: string; message: string; details?: Record<string, unknown> } };

/** The API process's end of the channel (`process` in a cluster worker). */
export interface IpcChannel {
  send?(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/** A forked process as the main process sees it. */
export interface IpcPeer {
  send(message: unknown): boolean;
}

/** The main process's view of its cluster (`node:cluster`'s primary). */
export interface IpcHub {
  on(event: 'message', listener: (peer: IpcPeer, message: unknown) => void): unknown;
  off(event: 'message', listener: (peer: IpcPeer, message: unknown) => void): unknown;
}

const isRequest = (m: unknown): m is Request =>
  typeof m === 'object' && m !== null && (m as Request).type === REQUEST && Number.isSafeInteger((m as Request).id) && METHODS.includes((m as Request).method);

/**
 * Answers the API processes' analytics questions from `reader` (the owner's). @returns a function that stops answering
 */
export function serveAnalytics(hub: IpcHub, reader: AnalyticsReader): () => void {
  const listener = (peer: IpcPeer, message: unknown) => {
    if (!isRequest(message)) return;
    const { id, method, query } = message;
    const answer = method === 'ping' ? reader.ping() : reader[method](query ?? {});
    answer.then(
      (value) => safeSend(peer, { type: REPLY, id, ok: true, value: value ?? null }),
      (err: unknown) => {
        const e = err instanceof PfwsError ? err : unavailable(err);
        safeSend(peer, { type: REPLY, id, ok: false, error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } });
      },
    );
  };
  hub.on('message', listener);
  return () => hub.off('message', listener);
}

function safeSend(peer: IpcPeer, reply: Reply): void {
  try {
    peer.send(reply);
  } catch {
    // The process went away; it has no one left to answer.
  }
}

/** An API process's reader: every question goes to the owner over IPC. */
export class IpcReader implements AnalyticsReader {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
  private readonly listener = (message: unknown) => {
    const reply = message as Reply;
    if (typeof reply !== 'object' || reply === null || reply.type !== REPLY) return;
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.ok) waiting.resolve(reply.value);
    else {
      const { code, message: text, details } = reply.error;
      waiting.reject(new PfwsError(isErrorCode(code) ? code : 'SERVICE_UNAVAILABLE', text, details));
    }
  };

  /**
   * @param channel - `process` in a cluster worker
   * @param timeoutMs - how long the owner has to answer
   */
  constructor(
    private readonly channel: IpcChannel,
    private readonly timeoutMs = 5_000,
  ) {
    channel.on('message', this.listener);
  }

  async activity(query: ActivityQuery): Promise<Activity> {
    return this.ask('activity', { ...parseQuery('activity', query) }) as Promise<Activity>;
  }

  async shippedActivity(query: ActivityQuery): Promise<ShippedActivity> {
    return this.ask('shippedActivity', { ...parseQuery('activity', query) }) as Promise<ShippedActivity>;
  }

  async rankings(query: RankingsQuery): Promise<Rankings> {
    return this.ask('rankings', { ...parseQuery('rankings', query) }) as Promise<Rankings>;
  }

  async stats(query: StatsQuery): Promise<Stats> {
    return this.ask('stats', { ...parseQuery('stats', query) }) as Promise<Stats>;
  }

  async archivedReceipts(query: ArchivedReceiptsQuery): Promise<ArchivedReceiptText[]> {
    return this.ask('archivedReceipts', { receiptIds: parseReceiptIds(query.receiptIds) }) as Promise<ArchivedReceiptText[]>;
  }

  async archivedEvents(query: ArchivedEventsQuery): Promise<JournalRecord[]> {
    return this.ask('archivedEvents', { ...parseSeqRange(query) }) as Promise<JournalRecord[]>;
  }

  async ping(): Promise<void> {
    await this.ask('ping', {});
  }

  close(): void {
    this.channel.off('message', this.listener);
    for (const [id, w] of this.pending) {
      clearTimeout(w.timer);
      w.reject(unavailable(new Error('closed')));
      this.pending.delete(id);
    }
  }

  private ask(method: Method, query: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(unavailable(new Error(`the analytics owner did not answer within ${this.timeoutMs} ms`)));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const request: Request = { type: REQUEST, id, method, query };
      let sent = false;
      try {
        sent = this.channel.send?.(request) ?? false;
      } catch {
        sent = false;
      }
      if (!sent && !this.channel.send) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(unavailable(new Error('no IPC channel to the analytics owner')));
      }
    });
  }
}
