// Issue 22: a stalled body gets 408 and its socket closed on every API process from the first seconds of its life,
// whatever the timing of the chunks; the whole request ends at REQUEST_TIMEOUT_MS in any case. A fresh `main.ts`
// is probed as an operator's client would, as soon as it answers.
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../store/redis.ts';
import { freePort, Processes, type Proc, waitForLog } from '../helpers/process.ts';

const BODY_MS = 1_000;
const REQUEST_MS = 3_000;
/** Scheduling on a loaded machine: the socket must be closed by then, or it was left open. */
const SLACK_MS = 2_500;

const procs = new Processes();
const prefixes: string[] = [];

afterAll(async () => {
  procs.cleanup();
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.unlink(...keys);
  }
  await redis.quit();
});

interface Outcome {
  status: number | null;
  text: string;
  /** ms from the first write to the server's close; null when still open at the deadline. */
  closedMs: number | null;
}

const HEAD = 'POST /api/wallet/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';

/**
 * The issue's probe: the head and the body's first byte in one write (`together`), or the head alone and the
 * byte `gapMs` later; then nothing. Resolves when the server closes the socket, or at `deadlineMs`.
 */
function probe(port: number, shape: { together: true } | { together: false; gapMs: number }, deadlineMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let t0 = 0;
    const finish = (closedMs: number | null) => {
      clearTimeout(deadline);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : null, text, closedMs });
    };
    const deadline = setTimeout(() => finish(null), deadlineMs);
    socket.once('connect', () => {
      t0 = Date.now();
      if (shape.together) socket.write(`${HEAD}{`);
      else {
        socket.write(HEAD);
        setTimeout(() => socket.writable && socket.write('{'), shape.gapMs);
      }
    });
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => finish(t0 ? Date.now() - t0 : 0));
  });
}

const tcpOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts a fresh service and resolves as soon as its API port accepts a connection: the probes follow at once. */
async function freshService(apiWorkers: number): Promise<{ proc: Proc; port: number }> {
  const prefix = `test-${randomBytes(6).toString('hex')}`;
  prefixes.push(prefix);
  const port = await freePort();
  const proc = procs.start({
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALNET_PORT: String(await freePort()),
    DATA_DIR: procs.tempDir(),
    REDIS_PREFIX: prefix,
    API_WORKERS: String(apiWorkers),
    RNG_CHAIN_LENGTH: '5000',
    LOG_LEVEL: 'info',
    REQUEST_BODY_TIMEOUT_MS: String(BODY_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_MS),
  });
  for (const end = Date.now() + 400_000; !(await tcpOpen(port)); ) {
    if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}: ${proc.output()}`);
    if (Date.now() > end) throw new Error(`never listened: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { proc, port };
}

/** Several probes of each shape, staggered over the first seconds. */
async function probeEarly(port: number): Promise<Outcome[]> {
  const deadline = REQUEST_MS + SLACK_MS;
  const shapes = [
    ...Array.from({ length: 16 }, () => ({ together: true as const })),
    ...Array.from({ length: 4 }, (_, i) => ({ together: false as const, gapMs: i % 2 ? 100 : Math.floor(BODY_MS / 2) })),
  ];
  return Promise.all(shapes.map((shape, i) => new Promise((r) => setTimeout(r, i * 300)).then(() => probe(port, shape, deadline))));
}

/** Every probe answered 408 in the envelope for its stalled body, and its socket closed in time; else what each got. */
function expectStalledBody408(outcomes: Outcome[]): void {
  const failed = outcomes
    .map((o, i) => {
      const body = o.status === null ? null : o.text.slice(o.text.indexOf('\r\n\r\n') + 4);
      let envelope: { error?: { code?: string; message?: string } } = {};
      try {
        envelope = JSON.parse(body ?? '');
      } catch {}
      const ok =
        o.status === 408 &&
        o.closedMs !== null &&
        o.closedMs <= BODY_MS + SLACK_MS &&
        envelope.error?.code === 'INVALID_REQUEST' &&
        /body stalled/.test(envelope.error.message ?? '');
      return ok ? null : `probe ${i}: ${o.status ?? 'no answer'}, ${o.closedMs === null ? 'still open' : `closed after ${o.closedMs} ms`}: ${body}`;
    })
    .filter((f) => f !== null);
  expect(failed).toEqual([]);
}

describe('a stalled body on a freshly started service', () => {
  it('API_WORKERS=0: every probe in the first seconds gets 408 and is closed', { timeout: 600_000 }, async () => {
    const { port } = await freshService(0);
    expectStalledBody408(await probeEarly(port));
  });

  it('two API processes: every probe in the first seconds gets 408 and is closed', { timeout: 600_000 }, async () => {
    const { proc, port } = await freshService(2);
    const first = probeEarly(port);
    // The first process answered; the primary says when every one listens, and those are probed too.
    await waitForLog(proc, /pfws started/, 300_000);
    const second = await probeEarly(port);
    expectStalledBody408([...(await first), ...second]);
  });
});
