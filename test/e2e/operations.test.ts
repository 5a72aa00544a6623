// What an operator watches: liveness, readiness with reasons, Prometheus metrics that follow real play, a worker
// that finishes its job in flight when stopped, and a setup deposit larger than the wallet refused up front.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { startWorker } from '../../anchor-worker/worker.ts';

let svc: TestService;
let base: string;
let original: TestService['worker'];

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '200', MANIFEST_MAX_DELAY_MS: '200' });
  base = svc.api.replace(/\/api$/, '');
  original = svc.worker;
});
afterAll(async () => {
  // Workers started here are not among the service's own stoppers.
  if (svc?.worker && svc.worker !== original) await svc.worker.stop();
  await svc?.cleanup();
});

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

/** Every sample of a scrape: `name{labels} value`. */
function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

const scrape = async () => {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await res.text());
};
const value = (all: ReturnType<typeof samples>, name: string, labels: Record<string, string> = {}) =>
  all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('health and readiness', () => {
  it('/health answers without touching a dependency; /ready names every check', async () => {
    const health = await http('GET', `${base}/health`);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.body.uptimeSeconds).toBeGreaterThanOrEqual(0);

    const ready = await until(
      '/ready',
      () => http('GET', `${base}/ready`),
      (r) => r.status === 200,
    );
    expect(ready.body.status).toBe('ready');
    expect(ready.body.checks).toMatchObject({
      redis: { status: 'ok' },
      rpc: { status: 'ok' },
      clickhouse: { status: 'ok' },
      indexer: { status: 'ok' },
      worker: { status: 'ok' },
    });
    expect(ready.body.checks.rpc.slot).toBeGreaterThan(0);
    // chDB in this process answers; an engine that cannot answer would be named in `reason`.
    expect(ready.body.checks.clickhouse.reason).toBeUndefined();
    expect(ready.body.checks.clickhouse.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('is not ready, and says which role, when the worker stops beating', async () => {
    await svc.worker!.stop();
    // The worker's last beat ages past its limit; the indexer keeps beating on the same clock.
    svc.clock.offsetMs += 60_000;
    const ready = await until(
      '/ready after the worker stopped',
      () => http('GET', `${base}/ready`),
      (r) => r.status === 503 && r.body.checks.indexer.status === 'ok',
    );
    expect(ready.body.status).toBe('not_ready');
    expect(ready.body.checks.worker.status).toBe('failing');
    expect(ready.body.checks.worker.reason).toMatch(/worker last reported \d+ s ago/);
    // Back to a running worker for the tests below.
    svc.worker = await startWorker(svc.wiring.worker!);
    await until(
      '/ready with a new worker',
      () => http('GET', `${base}/ready`),
      (r) => r.status === 200,
    );
  });
});

describe('metrics', () => {
  it('count requests per route, bets committed and settled per game, and report the service gauges', async () => {
    const before = await scrape();
    const player = await new Player(svc.api, svc.rpcUrl).onboard(50);
    await player.playDice({ wager: 1 });
    await player.playDice({ wager: 1 });
    const pending = await player.prepareDice({ wager: 1, target: 10 });
    const committed = await player.commitDice(pending.res.body);
    expect(committed.status).toBe(200);
    // A re-sent commit resolves the same bet and is not counted again.
    expect((await player.commitDice(pending.res.body)).status).toBe(200);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => (value(after, name, labels) ?? 0) - (value(before, name, labels) ?? 0);
    expect(delta('pfws_bets_committed_total', { game: 'dice' })).toBe(3);
    expect(delta('pfws_bets_settled_total', { game: 'dice', source: 'api' })).toBe(2);
    expect(delta('pfws_http_request_duration_seconds_count', { route: '/api/protocol/v1/dice/commit', method: 'POST', status_code: '200' })).toBe(4);
    expect(value(after, 'pfws_http_request_duration_seconds_bucket', { route: '/api/protocol/v1/dice/reveal', le: '+Inf' })).toBe(2);

    // The open bet (target 10: pays 9.9x) holds its exposure until it settles.
    expect(value(after, 'pfws_open_exposure_usdc')).toBeCloseTo(8.9, 6);
    for (const queue of ['anchor', 'manifest']) expect(value(after, 'pfws_queue_jobs', { queue, state: 'waiting' })).toBeGreaterThanOrEqual(0);
    expect(value(after, 'pfws_role_heartbeat_age_seconds', { role: 'worker' })).toBeGreaterThanOrEqual(0);
    expect(value(after, 'pfws_indexer_lag_slots')).toBeGreaterThanOrEqual(0);
    expect(value(after, 'pfws_anchor_pending_entries')).toBeGreaterThanOrEqual(0);

    // Anchoring catches up: nothing settled waits, so the oldest pending age is 0.
    const anchored = await until('anchor lag', scrape, (s) => value(s, 'pfws_anchor_pending_entries') === 0);
    expect(value(anchored, 'pfws_anchor_oldest_pending_age_seconds')).toBe(0);
  });

  it('report the shipper lag from the running shipper, down to 0 once it caught up', async () => {
    const scraped = await until('shipper lag 0', scrape, (s) => value(s, 'pfws_shipper_lag_events') === 0);
    expect(value(scraped, 'pfws_role_heartbeat_age_seconds', { role: 'shipper' })).toBeGreaterThanOrEqual(0);
    const beat = await svc.wiring.stores.heartbeats.read('shipper');
    expect(Number(beat?.fields.shippedSeq)).toBe(await svc.wiring.stores.manifests.journalSeq());
  });
});

describe('a stopping worker', () => {
  it('finishes the anchor job in flight before it stops', async () => {
    await svc.worker!.stop();
    let entered!: () => void;
    const inSend = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = await startWorker(svc.wiring.worker!, {
      anchorer: {
        hooks: {
          beforeSend: async () => {
            entered();
            await released;
          },
        },
      },
    });
    const committedBefore = await svc.wiring.stores.anchors.committedSize();
    const player = await new Player(svc.api, svc.rpcUrl).onboard(20);
    await player.playDice({ wager: 1 });
    await inSend;

    // Stop is asked while the job waits in its send; the job is let go only then, and must have ended
    // (commit on-chain and recorded, nothing left pending) by the time stop returns.
    const { anchors } = svc.wiring.stores;
    const stopping = worker.stop().then(async () => ({ committed: await anchors.committedSize(), pending: (await anchors.progress()).pending }));
    release();
    const atStop = await stopping;
    expect(atStop).toEqual({ committed: committedBefore + 1, pending: false });
    svc.worker = await startWorker(svc.wiring.worker!);
  });
});

describe('the setup transaction', () => {
  it('refuses a deposit larger than the wallet holds, naming both amounts; builds one it can pay', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.faucet(25);
    await player.login();
    const sessionPubkey = player.session.publicKey;
    const over = await player.post('/protocol/v1/player/setup-transaction', { amount: 25.000001, sessionPubkey });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({
      code: 'GAME_INPUT_REJECTED',
      details: { reason: 'insufficient_wallet_balance', amount: 25.000001, walletBalance: 25 },
    });
    expect(over.body.error.message).toMatch(/exceeds the wallet's USDC balance \(25\)/);
    const exact = await player.post('/protocol/v1/player/setup-transaction', { amount: 25, sessionPubkey });
    expect(exact.status).toBe(200);
    await player.signAndSend(exact.body.transaction);

    // A wallet without a USDC account holds nothing; a setup without a deposit still builds.
    const empty = await new Player(svc.api, svc.rpcUrl).init();
    await empty.faucet(0);
    await empty.login();
    const none = await empty.post('/protocol/v1/player/setup-transaction', { amount: 1, sessionPubkey: empty.session.publicKey });
    expect(none.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'insufficient_wallet_balance', walletBalance: 0 } });
    expect((await empty.post('/protocol/v1/player/setup-transaction', { amount: 0, sessionPubkey: empty.session.publicKey })).status).toBe(200);
  });
});
