// A Server-Sent Events client for tests: parses frames as a browser's EventSource does, keeps comments, and lets a
// test wait for what it expects; `stalledClient` opens a stream and never reads it; `emptyActivity` is a snapshot
// for streams whose snapshot a test does not look at (`emptySnapshot` as a stream's source).
import http from 'node:http';
import net from 'node:net';
import type { GameFilter } from '../../analytics/params.ts';
import type { ShippedActivity } from '../../analytics/reader.ts';
import type { Activity } from '../../protocol/analytics.ts';

/** An activity snapshot with nothing in it. */
export const emptyActivity = (game: GameFilter): Activity => ({
  generatedAt: new Date().toISOString(),
  game,
  latestPlays: [],
  latestEvents: [],
  topWagers: [],
  topActors: [],
  totals: { plays: 0, wagered: 0, paidOut: 0, houseNet: 0 },
  bankroll: { totalValue: 0 },
});

/** The stream's snapshot source, answering {@link emptyActivity} as if analytics held nothing yet. */
export const emptySnapshot = async (game: GameFilter): Promise<ShippedActivity> => ({ shippedSeq: 0, activity: emptyActivity(game) });

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The parsed error envelope of a non-200 answer. */
  body: any;
  events: SseEvent[];
  comments: string[];
  /** The id of the last event (what EventSource would send as Last-Event-ID). */
  lastEventId: string | undefined;
  closed: boolean;
  /** Resolves with the events once `done` holds (rejects when the stream closes first or on timeout). */
  until(what: string, done: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

/** Opens `url` (an `/api/activity/stream` URL); resolves once the response head (or an error body) is in. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const waiters = new Set<() => void>();
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        events: [],
        comments: [],
        lastEventId: undefined,
        closed: false,
        until(what, done, timeoutMs = 30_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (done(client.events)) {
                cleanup();
                ok(client.events);
              } else if (client.closed) {
                cleanup();
                fail(new Error(`stream closed before ${what} (${client.events.length} events)`));
              }
            };
            const timer = setTimeout(() => {
              cleanup();
              fail(new Error(`timed out waiting for ${what} (${client.events.length} events)`));
            }, timeoutMs);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
        close() {
          req.destroy();
        },
      };
      const notify = () => {
        for (const w of [...waiters]) w();
      };
      if (client.status !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          client.body = text ? JSON.parse(text) : undefined;
          client.closed = true;
          resolve(client);
        });
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) client.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) {
            if (id !== undefined) client.lastEventId = id;
            client.events.push({ id, event, data: JSON.parse(data.join('\n')) });
          }
        }
        notify();
      });
      const onClose = () => {
        client.closed = true;
        notify();
      };
      res.on('close', onClose);
      res.on('error', onClose);
      resolve(client);
    });
  });
}

/** A client that sends the request and then never reads a byte: its socket fills up and stays full. */
export function stalledClient(url: string): Promise<net.Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) }, () => {
      socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: text/event-stream\r\n\r\n`);
      // Read nothing: the kernel buffers fill, then the server's.
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}
