// Redis out (issue 16), on a Redis of the test's own: requests answer 503 SERVICE_UNAVAILABLE with Retry-After
// within REDIS_COMMAND_TIMEOUT_MS and a little, /ready is red at once, a commit so answered never lands (not even
// once Redis runs again), and service resumes without a restart when Redis is back.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../chaos/redis-server.ts';
import { Keys } from '../../store/keys.ts';
import { Player } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const COMMAND_TIMEOUT_MS = 2_000;
/** How long an answer may take during the outage: REDIS_COMMAND_TIMEOUT_MS, and the rest of the request. */
const ANSWER_WITHIN_MS = COMMAND_TIMEOUT_MS + 1_000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-redis-outage-'));
let redis: RedisServer;
let svc: TestService;
let player: Player;
let other: Player;
let origin: string;

beforeAll(async () => {
  redis = new RedisServer({ dir, appendfsync: 'always' });
  await redis.start();
  svc = await startTestService({
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    // No longer than a command may wait: a body already in while the rate limiter waits on Redis is no stall.
    REQUEST_BODY_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    RATE_LIMIT_MAX: '1000000',
    // Every request reads its token from Redis.
    TOKEN_CACHE_TTL_MS: '0',
  });
  origin = new URL(svc.api).origin;
  player = await new Player(svc.api, svc.rpcUrl).onboard(20);
  other = await new Player(svc.api, svc.rpcUrl).onboard(1);
}, 120_000);

afterAll(async () => {
  redis?.resume();
  try {
    if (redis && !redis.running) await redis.start();
    // Bounded, so that the test's own redis-server is stopped even when a failed test left the service stuck.
    await Promise.race([svc?.cleanup(), new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
  } finally {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

async function ask(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
  return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') };
}

const bearer = () => ({ authorization: `Bearer ${player.token}` });
const unavailable = { status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: expect.stringMatching(/^\d+$/) };

/** Plays one dice bet to its reveal: proof that Redis answers and has run whatever it was sent before. */
async function playOne(): Promise<void> {
  const { clientSeedRaw, res } = await player.prepareDice({ wager: 0.01 });
  expect(res.status).toBe(200);
  const commit = await player.commitDice(res.body);
  expect(commit.status).toBe(200);
  expect((await player.revealDice(res.body.betPayloadHash, clientSeedRaw, commit.body.ack.revealMessage)).status).toBe(200);
}

describe('Redis hung (SIGSTOP)', () => {
  it('answers 503 with Retry-After, /ready is red, and a commit so answered never lands', { timeout: 60_000 }, async () => {
    const prepared = await player.prepareDice({ wager: 0.01 });
    const hash = prepared.res.body.betPayloadHash as string;
    redis.pause();
    try {
      const [commit, status, house, ready] = await Promise.all([
        ask(`${svc.api}/protocol/v1/dice/commit`, {
          method: 'POST',
          headers: { ...bearer(), 'content-type': 'application/json' },
          body: JSON.stringify({ ...prepared.res.body, sessionSignature: player.signHash(hash) }),
        }),
        ask(`${svc.api}/protocol/v1/player/status`, { headers: bearer() }),
        ask(`${svc.api}/house`),
        ask(`${origin}/ready`),
      ]);
      expect(commit).toEqual(unavailable);
      expect(status).toEqual(unavailable);
      expect(house).toEqual(unavailable);
      expect(ready).toEqual(unavailable);
    } finally {
      redis.resume();
    }
    // Redis now runs what it was sent while it hung, the commit among it; a bet played since proves it has.
    await expect.poll(async () => (await player.get('/protocol/v1/player/status')).status, { timeout: 30_000 }).toBe(200);
    await playOne();
    const keys = new Keys(svc.config.REDIS_PREFIX);
    expect(await svc.wiring.redis.exists(keys.bet(hash))).toBe(0);
    const session = (await player.get('/protocol/v1/dice/session')).body;
    expect(session.pendingBets.map((b: { betPayloadHash: string }) => b.betPayloadHash)).not.toContain(hash);
  });
});

describe('Redis hung, with commands queued behind a batch in flight', () => {
  it('still answers within REDIS_COMMAND_TIMEOUT_MS', { timeout: 60_000 }, async () => {
    redis.pause();
    try {
      const first = ask(`${svc.api}/protocol/v1/player/status`, { headers: bearer() });
      // The first request's token read is now in flight; the second's waits for it to be answered before it is sent.
      await new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS / 4));
      const second = ask(`${svc.api}/protocol/v1/player/status`, { headers: { authorization: `Bearer ${other.token}` } });
      expect(await first).toEqual(unavailable);
      expect(await second).toEqual(unavailable);
    } finally {
      redis.resume();
    }
    await expect.poll(async () => (await player.get('/protocol/v1/player/status')).status, { timeout: 30_000 }).toBe(200);
  });
});

describe('Redis killed', () => {
  it('answers 503 at once while it is down, and serves again once it is back, with no restart', { timeout: 120_000 }, async () => {
    await redis.kill();
    try {
      expect(await ask(`${svc.api}/protocol/v1/player/status`, { headers: bearer() })).toEqual(unavailable);
      expect(await ask(`${origin}/ready`)).toEqual(unavailable);
      expect((await player.prepareDice({ wager: 0.01 })).res.status).toBe(503);
    } finally {
      await redis.start();
    }
    await expect.poll(async () => (await fetch(`${origin}/ready`)).status, { timeout: 30_000 }).toBe(200);
    await playOne();
  });
});
