// A child process of the SSE benchmark: holds N activity-stream connections and reports, per event id, when each
// connection received it (epoch ms with sub-ms precision), so that the publisher's clock and theirs agree.
import http from 'node:http';

const [url, countText, lastEventId] = process.argv.slice(2) as [string, string, string];
const count = Number(countText);
const now = () => performance.timeOrigin + performance.now();

/** id → receive times, one per connection; sent to the parent once every connection has it. */
const received = new Map<number, number[]>();

function onEvent(id: number, at: number): void {
  let times = received.get(id);
  if (!times) {
    times = [];
    received.set(id, times);
  }
  times.push(at);
  if (times.length === count) {
    process.send?.({ id, times });
    received.delete(id);
  }
}

let open = 0;
const MAX_ATTEMPTS = 10;

/**
 * One connection. A 503 (the service could not give it its first frames, e.g. a thousand snapshots read at once with
 * the answer cache off; seen once in nine mixed runs) is tried again after its Retry-After, as a client that honours it
 * would; what it then replays reaches it late, and counts so.
 */
function connect(attempt: number): void {
  const req = http.get(url, { headers: { accept: 'text/event-stream', 'last-event-id': lastEventId }, agent: false }, (res) => {
    if (res.statusCode === 503 && attempt < MAX_ATTEMPTS) {
      res.resume();
      setTimeout(() => connect(attempt + 1), Number(res.headers['retry-after'] ?? 1) * 1000);
      return;
    }
    if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode} (attempt ${attempt})`);
    if (++open === count) process.send?.({ ready: true });
    res.setEncoding('utf8');
    let rest = '';
    res.on('data', (chunk: string) => {
      const at = now();
      const text = rest + chunk;
      const end = text.lastIndexOf('\n\n');
      rest = end >= 0 ? text.slice(end + 2) : text;
      // Only the ids: what the clients parse is not what is measured.
      for (const m of (end >= 0 ? text.slice(0, end) : '').matchAll(/^id: (\d+)$/gm)) onEvent(Number(m[1]), at);
    });
  });
  req.on('error', (err) => {
    console.error(err);
    process.exit(1);
  });
}
for (let i = 0; i < count; i++) connect(1);
process.on('SIGTERM', () => process.exit(0));
