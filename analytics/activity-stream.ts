/**
 * The live activity stream of design §8 (`GET /api/activity/stream`): one Redis subscription per process fans
 * each settled play out to the connected clients whose game filter takes it, as Server-Sent Events.
 *
 * - A new client gets a `snapshot` whose id is the journal seq at connect, then each `play` after it. The
 *   snapshot is read from analytics, which may lag: the journal's plays after what it holds are added to its
 *   lists (analytics/snapshot-tail.ts), so a play settled just before connect is not lost between the two. A client
 *   that resumes with `Last-Event-ID` gets the plays it missed from the journal stream instead (or a fresh
 *   snapshot when the stream no longer holds them all, or there are too many).
 * - No play is lost or sent twice across that switch: a client is registered (its plays queued) before the
 *   seq or the journal is read, and every event carries its seq, so anything already covered is skipped.
 * - Each client has a bounded buffer. A replay that would not fit in it is a snapshot instead. One that falls behind (the bytes its socket has not taken exceed it) is
 *   disconnected and resumes with `Last-Event-ID`, so a slow reader neither slows the others nor grows memory.
 * @module
 */
import type { Writable } from 'node:stream';
import { PfwsError } from '../protocol/errors.ts';
import type { JournalEntry, PlaysSubscription, PublishedPlay, SubscriptionHandlers } from '../store/live-plays.ts';
import { journalRowOf, type JournalRow } from './journal-rows.ts';
import { parseLimit, takesGame as takes, type GameFilter } from './params.ts';
import type { ShippedActivity } from './reader.ts';
import { withJournalTail } from './snapshot-tail.ts';
import type { Activity } from '../protocol/analytics.ts';
import { playOfJournalRow } from './shapes.ts';

export interface ActivityStreamSettings {
  /**
   * A `: keepalive` comment goes to every client this often, so proxies keep the connection open.
   * @defaultValue 15000
   */
  keepAliveMs: number;
  /** Bytes a client may have waiting (queued while it connects, or not yet taken by its socket) before it is dropped. */
  clientBufferBytes: number;
  /**
   * A resume reads at most this many journal events; further behind (or when the plays among them would not fit in
   * `clientBufferBytes`), it gets a fresh snapshot.
   */
  replayMaxEvents: number;
  /**
   * The least time between two writes of plays to the clients: a play goes out on the next turn of the event loop,
   * or, when the last write was sooner than this, with every play that follows it until then, in one write a client.
   */
  flushMs: number;
}

export interface ActivityStreamDeps {
  journal: {
    currentSeq(): Promise<number>;
    entriesAfter(afterSeq: number, max: number): Promise<JournalEntry[] | null>;
    walkNewest(afterSeq: number, visit: (entry: JournalEntry) => boolean): Promise<void>;
  };
  subscribe(handlers: SubscriptionHandlers): PlaysSubscription;
  /** The activity of a game, as `GET /api/activity` answers it, and the journal seq it holds. */
  snapshot(game: GameFilter): Promise<ShippedActivity>;
  settings: ActivityStreamSettings;
  /** Told when a client comes, goes, and is dropped for falling behind (metrics). */
  observer?: { connected(): void; disconnected(): void; dropped(): void };
}

/** Counters for metrics and tests. */
export interface ActivityStreamStats {
  clients: number;
  /** Bytes waiting across every client: queued while connecting, or not yet taken by a socket. */
  bufferedBytes: number;
  /** Clients dropped because they fell behind. */
  dropped: number;
}

export const sseFrame = (id: number, event: 'snapshot' | 'play', data: string): string => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
const snapshotFrame = (seq: number, snapshot: Activity) => sseFrame(seq, 'snapshot', JSON.stringify({ type: 'snapshot', snapshot }));
const playFrame = (seq: number, play: unknown) => sseFrame(seq, 'play', JSON.stringify({ type: 'play', play }));
const KEEPALIVE = ': keepalive\n\n';
/** How long a new client waits for the Redis subscription before it is told to come back. */
const SUBSCRIBE_TIMEOUT_MS = 5_000;

interface QueuedPlay {
  seq: number;
  game: string;
  frame: Buffer;
}

/** The frames of a flush that a client takes, as one chunk, and the newest seq among them. */
interface Batch {
  bytes: Buffer;
  lastSeq: number;
}

function batchOf(queued: readonly QueuedPlay[], game: GameFilter, afterSeq: number): Batch | null {
  const frames: Buffer[] = [];
  let lastSeq = afterSeq;
  for (const q of queued) {
    if (q.seq <= afterSeq || !takes(game, q.game)) continue;
    frames.push(q.frame);
    lastSeq = Math.max(lastSeq, q.seq);
  }
  if (frames.length === 0) return null;
  return { bytes: frames.length === 1 ? frames[0]! : Buffer.concat(frames), lastSeq };
}

class Client {
  /** The seq of the newest event this client has (or will have, once its first frames are written). */
  lastSeq = 0;
  /** Frames that arrive while it connects, with their seqs; null once it is live. */
  pending: { seq: number; frame: Buffer }[] | null = [];
  pendingBytes = 0;
  /** It fell behind, or the subscription was lost, while it connected: it is ended once its first frames are out. */
  ending = false;
  out: Writable | null = null;

  constructor(readonly game: GameFilter) {}
}

/** A client whose first frames are ready; {@link StreamStart.attach} starts its stream on a response. */
export interface StreamStart {
  /** Writes the first frames and goes live; the caller has written the response head. */
  attach(out: Writable): void;
  /** Gives up before attaching (the request went away). */
  cancel(): void;
}

export class ActivityStream {
  readonly #clients = new Set<Client>();
  #subscription: PlaysSubscription | null = null;
  #keepAlive: NodeJS.Timeout | null = null;
  #dropped = 0;
  #stopped = false;
  /** How many clients each game filter has. */
  readonly #filters = new Map<GameFilter, number>();
  /** Plays published since the last flush, in the order they came. */
  #queued: QueuedPlay[] = [];
  /** Cancels the flush that is scheduled; null when none is. */
  #cancelFlush: (() => void) | null = null;
  #lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(readonly deps: ActivityStreamDeps) {}

  /**
   * Registers a client and prepares its first frames: the missed plays after `lastEventId` when the journal
   * still holds them, else a snapshot.
   * @throws whatever the snapshot throws (the caller answers with an error; nothing was streamed)
   */
  async connect(game: GameFilter, lastEventId?: number): Promise<StreamStart> {
    if (this.#stopped) throw new Error('the activity stream is stopped');
    this.#start();
    await this.#subscribed();
    const client = new Client(game);
    this.#clients.add(client);
    this.#filters.set(game, (this.#filters.get(game) ?? 0) + 1);
    this.deps.observer?.connected();
    let first: string[];
    try {
      first = await this.#firstFrames(client, lastEventId);
    } catch (err) {
      this.#remove(client);
      throw err;
    }
    return {
      attach: (out) => this.#attach(client, out, first),
      cancel: () => this.#remove(client),
    };
  }

  /** Waits for the subscription (again, after a lost connection), but not forever: Redis may be down. */
  async #subscribed(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new PfwsError('SERVICE_UNAVAILABLE', 'The live play feed is not connected to Redis; retry shortly')),
        SUBSCRIBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.#subscription!.ready(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  stats(): ActivityStreamStats {
    let bufferedBytes = 0;
    for (const c of this.#clients) bufferedBytes += c.pendingBytes + (c.out?.writableLength ?? 0);
    return { clients: this.#clients.size, bufferedBytes, dropped: this.#dropped };
  }

  /** Ends every stream and the subscription. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.#keepAlive = null;
    this.#cancelFlush?.();
    this.#cancelFlush = null;
    this.#queued = [];
    this.#endAll();
    const sub = this.#subscription;
    this.#subscription = null;
    await sub?.close();
  }

  #start(): void {
    if (this.#subscription) return;
    this.#subscription = this.deps.subscribe({
      play: (message) => this.#publish(message),
      // Plays published while the connection was down never arrive here: every client resumes from the journal.
      lost: () => this.#endAll(),
    });
    this.#keepAlive = setInterval(() => this.#keepAliveTick(), this.deps.settings.keepAliveMs);
    this.#keepAlive.unref();
  }

  async #firstFrames(client: Client, lastEventId: number | undefined): Promise<string[]> {
    const { journal, settings } = this.deps;
    if (lastEventId !== undefined) {
      const seq = await journal.currentSeq();
      if (lastEventId <= seq && seq - lastEventId <= settings.replayMaxEvents) {
        const entries = await journal.entriesAfter(lastEventId, settings.replayMaxEvents);
        const replay = entries && this.#replayOf(client.game, lastEventId, entries);
        // A replay larger than the client's buffer would hold that much here at once: a snapshot is smaller.
        if (replay && replay.bytes <= settings.clientBufferBytes) {
          client.lastSeq = replay.lastSeq;
          return replay.frames;
        }
      }
    }
    const seq = await journal.currentSeq();
    const { shippedSeq, activity } = await this.deps.snapshot(client.game);
    client.lastSeq = seq;
    return [snapshotFrame(seq, await this.#upTo(seq, shippedSeq, activity))];
  }

  /**
   * The snapshot with the journal's newest plays and events after `shippedSeq` and up to `seq` in its lists: read
   * newest first until the lists are full, and never more than `replayMaxEvents` entries.
   */
  async #upTo(seq: number, shippedSeq: number, activity: Activity): Promise<Activity> {
    if (shippedSeq >= seq) return activity;
    const limit = parseLimit(undefined);
    const rows: JournalRow[] = [];
    let [plays, events, read] = [0, 0, 0];
    await this.deps.journal.walkNewest(shippedSeq, ([id, fields]) => {
      if (++read > this.deps.settings.replayMaxEvents) return false;
      const row = journalRowOf(id, fields);
      // Events after `seq` arrived meanwhile: they are the live plays that follow the snapshot.
      if (!row || row.seq > seq) return true;
      rows.push(row);
      if (takes(activity.game, row.eventGame)) events++;
      if (row.play && takes(activity.game, row.play.game)) plays++;
      return plays < limit || events < limit;
    });
    return withJournalTail(activity, rows.reverse(), limit);
  }

  #replayOf(game: GameFilter, afterSeq: number, entries: JournalEntry[]): { frames: string[]; bytes: number; lastSeq: number } {
    const frames: string[] = [];
    let bytes = 0;
    let lastSeq = afterSeq;
    for (const [id, fields] of entries) {
      const row = journalRowOf(id, fields);
      if (!row) continue;
      lastSeq = Math.max(lastSeq, row.seq);
      const play = playOfJournalRow(row);
      if (!play || !takes(game, play.game)) continue;
      const frame = playFrame(row.seq, play);
      frames.push(frame);
      bytes += Buffer.byteLength(frame);
    }
    return { frames, bytes, lastSeq };
  }

  #attach(client: Client, out: Writable, first: string[]): void {
    if (!this.#clients.has(client)) {
      out.end();
      return;
    }
    client.out = out;
    out.on('close', () => this.#remove(client));
    out.on('error', () => this.#remove(client));
    const pending = client.pending ?? [];
    client.pending = null;
    client.pendingBytes = 0;
    for (const frame of first) out.write(frame);
    if (client.ending) {
      this.#remove(client);
      out.end();
      return;
    }
    for (const p of pending) if (p.seq > client.lastSeq) this.#send(client, p.seq, p.frame);
  }

  #publish(message: PublishedPlay): void {
    const { game } = message.play;
    // Nobody here watches this game: nothing to queue, and no flush to bring forward.
    if (!this.#filters.get('all') && !this.#filters.get(game as GameFilter)) return;
    // Encoded once for every client it goes to.
    this.#queued.push({ seq: message.seq, game, frame: Buffer.from(playFrame(message.seq, message.play)) });
    if (this.#cancelFlush) return;
    // A play goes out on the next turn, unless the last flush was under flushMs ago: then with those that follow it.
    const wait = this.#lastFlushAt + this.deps.settings.flushMs - performance.now();
    if (wait > 0) {
      const timer = setTimeout(() => this.#flush(), wait);
      this.#cancelFlush = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.#flush());
      this.#cancelFlush = () => clearImmediate(immediate);
    }
  }

  /**
   * Gives each client the queued plays it takes, in one write: a write per play per client made a thousand
   * subscribers cost more than the plays themselves. Clients of one filter that have none of them yet share the bytes.
   */
  #flush(): void {
    this.#cancelFlush = null;
    this.#lastFlushAt = performance.now();
    const queued = this.#queued;
    this.#queued = [];
    let firstSeq = Number.POSITIVE_INFINITY;
    for (const q of queued) firstSeq = Math.min(firstSeq, q.seq);
    const shared = new Map<GameFilter, Batch | null>();
    for (const client of this.#clients) {
      if (client.pending) {
        for (const q of queued) this.#hold(client, q);
        continue;
      }
      let batch: Batch | null;
      if (client.lastSeq >= firstSeq) batch = batchOf(queued, client.game, client.lastSeq);
      else if (shared.has(client.game)) batch = shared.get(client.game)!;
      else {
        batch = batchOf(queued, client.game, client.lastSeq);
        shared.set(client.game, batch);
      }
      if (batch) this.#send(client, batch.lastSeq, batch.bytes);
    }
  }

  /** Queues a play for a client that is still connecting, within its buffer. */
  #hold(client: Client, q: QueuedPlay): void {
    const pending = client.pending!;
    if (client.ending || !takes(client.game, q.game) || q.seq <= client.lastSeq) return;
    pending.push({ seq: q.seq, frame: q.frame });
    client.pendingBytes += q.frame.length;
    if (client.pendingBytes > this.deps.settings.clientBufferBytes) {
      client.ending = true;
      client.pending = [];
      client.pendingBytes = 0;
    }
  }

  #send(client: Client, seq: number, frame: Buffer): void {
    client.lastSeq = seq;
    this.#write(client, frame);
  }

  #write(client: Client, chunk: Buffer | string): void {
    const out = client.out!;
    out.write(chunk);
    // What the socket has not taken stays in this process: past the bound, the client is dropped and resumes.
    if (out.writableLength > this.deps.settings.clientBufferBytes) {
      this.#dropped++;
      this.deps.observer?.dropped();
      this.#remove(client);
      out.destroy();
    }
  }

  #remove(client: Client): void {
    if (!this.#clients.delete(client)) return;
    this.#filters.set(client.game, this.#filters.get(client.game)! - 1);
    this.deps.observer?.disconnected();
  }

  #keepAliveTick(): void {
    for (const client of this.#clients) if (client.out) this.#write(client, KEEPALIVE);
  }

  #endAll(): void {
    for (const client of this.#clients) {
      if (client.out) {
        this.#remove(client);
        client.out.end();
      } else {
        client.ending = true;
      }
    }
  }
}
