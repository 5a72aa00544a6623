// Slow and greedy clients on raw sockets: a stalled body, a trickled body, stalled headers, an idle keep-alive
// connection, and more connections than the cap. Thresholds are the configured timeouts: a body stalls both with its
// first byte in the headers' own write and with one byte sent after the headers.
import { connect, type Socket } from 'node:net';
import type { Harness } from '../harness.ts';
import { TIMEOUT_MARGIN_MS } from '../findings.ts';
import { sleep } from '../ports.ts';
import type { Check, RoundReport } from '../report.ts';
import { beginRound, endRound, timeToFirstBet } from './common.ts';

interface RawOutcome {
  /** Status of the first response, if any came. */
  status: number | null;
  /** When the server closed the socket, in ms from connect; null if it was still open at the deadline. */
  closedMs: number | null;
  answeredMs: number | null;
}

/**
 * Connects, writes `head`, then writes each of `trickle` every `everyMs`; waits for the server to close the socket
 * or for `deadlineMs` (from the connect, or from the first answer when `fromAnswer`).
 */
function raw(
  port: number,
  head: string,
  deadlineMs: number,
  opts: { trickle?: string; everyMs?: number; fromAnswer?: boolean; late?: { text: string; afterMs: number } } = {},
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let t0 = 0;
    let text = '';
    let answeredMs: number | null = null;
    let timer: NodeJS.Timeout | undefined;
    let drip: NodeJS.Timeout | undefined;
    let later: NodeJS.Timeout | undefined;
    const finish = (closedMs: number | null) => {
      clearTimeout(timer);
      clearTimeout(later);
      clearInterval(drip);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : null, closedMs, answeredMs });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(null), deadlineMs);
    };
    socket.once('connect', () => {
      t0 = Date.now();
      socket.write(head);
      const late = opts.late;
      if (late) later = setTimeout(() => socket.writable && socket.write(late.text), late.afterMs);
      if (opts.trickle) {
        let i = 0;
        drip = setInterval(() => {
          if (!socket.writable) return;
          socket.write(opts.trickle![i++ % opts.trickle!.length]!);
        }, opts.everyMs ?? 200);
      }
      arm();
    });
    socket.on('data', (d) => {
      if (answeredMs === null) {
        answeredMs = Date.now() - t0;
        if (opts.fromAnswer) arm();
      }
      text += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('close', () => finish(Date.now() - t0));
  });
}

const POST_HEAD = (length: number) =>
  `POST /api/wallet/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"walletAddress":`;
/** Issue 22's probe: headers that announce 100 bytes of body, without any of it. */
const HEADERS_ONLY = 'POST /api/wallet/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';

function timeoutCheck(name: string, outcome: RawOutcome, limitMs: number, want408: boolean): Check {
  const closedInTime = outcome.closedMs !== null && outcome.closedMs <= limitMs;
  const held = closedInTime && (!want408 || outcome.status === 408);
  return {
    name,
    held,
    detail: `${outcome.status === null ? 'no answer' : `answered ${outcome.status}`}, socket ${outcome.closedMs === null ? `still open after ${limitMs} ms` : `closed after ${outcome.closedMs} ms`} (limit ${limitMs} ms)`,
    finding: 'request-timeouts',
  };
}

/** Opens `count` idle connections; counts those the server closes within `windowMs` of their connect. */
async function flood(port: number, count: number, windowMs: number): Promise<{ refused: number; opened: number }> {
  const sockets: Socket[] = [];
  let refused = 0;
  let opened = 0;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          sockets.push(socket);
          let t0 = 0;
          let settled = false;
          const done = () => {
            if (!settled) {
              settled = true;
              resolve();
            }
          };
          socket.once('connect', () => {
            opened++;
            t0 = Date.now();
            setTimeout(done, windowMs);
          });
          socket.on('error', () => undefined);
          socket.once('close', () => {
            if (!t0 || Date.now() - t0 <= windowMs) refused++;
            done();
          });
        }),
    ),
  );
  for (const s of sockets) s.destroy();
  return { refused, opened };
}

export async function slowClientsRound(h: Harness, round: number): Promise<RoundReport> {
  const c = h.profile.hardening;
  const workers = h.service.apiPids().length;
  const cap = c.MAX_CONNECTIONS * workers;
  const report = beginRound(
    h,
    round,
    'slow-clients',
    `stalled body, trickled body, stalled headers, idle keep-alive; ${cap + h.profile.extraConnections} idle connections (cap ${c.MAX_CONNECTIONS} × ${workers})`,
  );
  const port = Number(h.service.options.env.PORT);
  const pidsBefore = h.service.apiPids().sort().join();
  const m = TIMEOUT_MARGIN_MS;
  const [body, firstByte, byteAfter, trickled, headers, keepAlive] = await Promise.all([
    raw(port, POST_HEAD(200), c.REQUEST_BODY_TIMEOUT_MS + m),
    // The body's first byte in the headers' own write (one TCP segment), then nothing.
    raw(port, `${HEADERS_ONLY}{`, c.REQUEST_BODY_TIMEOUT_MS + m),
    // The headers alone, one byte a moment later, then nothing: the stall counts from that byte.
    raw(port, HEADERS_ONLY, c.REQUEST_BODY_TIMEOUT_MS + 200 + m, { late: { text: '{', afterMs: 200 } }),
    raw(port, POST_HEAD(100_000), c.REQUEST_TIMEOUT_MS + m, { trickle: '"a', everyMs: Math.max(50, Math.floor(c.REQUEST_BODY_TIMEOUT_MS / 5)) }),
    raw(port, 'GET /api/house HTTP/1.1\r\nHost: 127.0.0.1\r\n', c.HEADERS_TIMEOUT_MS + m),
    raw(port, 'GET /api/protocol/v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', c.KEEP_ALIVE_TIMEOUT_MS + m, { fromAnswer: true }),
  ]);
  report.checks.push(
    timeoutCheck('a stalled body gets 408 and its socket is closed (REQUEST_BODY_TIMEOUT_MS)', body, c.REQUEST_BODY_TIMEOUT_MS + m, true),
    timeoutCheck(
      'a body whose first byte came with the headers, then stalled, gets 408 (REQUEST_BODY_TIMEOUT_MS)',
      firstByte,
      c.REQUEST_BODY_TIMEOUT_MS + m,
      true,
    ),
    timeoutCheck(
      'a body whose one byte came after the headers, then stalled, gets 408 (REQUEST_BODY_TIMEOUT_MS)',
      byteAfter,
      c.REQUEST_BODY_TIMEOUT_MS + 200 + m,
      true,
    ),
    timeoutCheck('a trickled body gets 408 and its socket is closed (REQUEST_TIMEOUT_MS)', trickled, c.REQUEST_TIMEOUT_MS + m, true),
    timeoutCheck('stalled headers get 408 and the socket is closed (HEADERS_TIMEOUT_MS)', headers, c.HEADERS_TIMEOUT_MS + m, true),
    {
      ...timeoutCheck('an idle keep-alive connection is closed (KEEP_ALIVE_TIMEOUT_MS)', keepAlive, c.KEEP_ALIVE_TIMEOUT_MS + m, false),
      held:
        keepAlive.status === 200 &&
        keepAlive.closedMs !== null &&
        keepAlive.answeredMs !== null &&
        keepAlive.closedMs - keepAlive.answeredMs <= c.KEEP_ALIVE_TIMEOUT_MS + m,
      detail: `answered ${keepAlive.status} after ${keepAlive.answeredMs} ms; ${keepAlive.closedMs === null ? 'still open' : `closed ${keepAlive.closedMs - (keepAlive.answeredMs ?? 0)} ms later`} (limit ${c.KEEP_ALIVE_TIMEOUT_MS + m} ms)`,
    },
  );
  const windowMs = Math.min(1_000, Math.floor(c.HEADERS_TIMEOUT_MS / 2));
  const wanted = cap + h.profile.extraConnections;
  const flooded = await flood(port, wanted, windowMs);
  report.checks.push({
    name: 'connections beyond MAX_CONNECTIONS per process are refused',
    held: flooded.refused >= h.profile.extraConnections,
    detail: `${flooded.opened} connected, ${flooded.refused} closed by the server within ${windowMs} ms; at least ${h.profile.extraConnections} should be`,
    finding: 'connection-cap',
  });
  await sleep(100);
  report.figures.recoverMs = await timeToFirstBet(h, Date.now(), 30_000);
  report.checks.push(
    { name: 'play goes on after the slow clients', held: report.figures.recoverMs !== null, detail: `a bet ${report.figures.recoverMs ?? 'never'} ms after` },
    {
      name: 'no API process died',
      held: h.service.apiPids().sort().join() === pidsBefore,
      detail: `API processes ${pidsBefore} → ${h.service.apiPids().sort().join()}`,
    },
  );
  return endRound(h, report);
}
