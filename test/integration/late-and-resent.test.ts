// What a script does when Redis runs it twice (ioredis re-sends a command whose reply was lost) or late (Redis hung
// past the moment the API gave up and answered 503): the same answer once more with nothing moved twice, or nothing
// at all (issue 16: redis-resend, redis-outage).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../store/keys.ts';
import { createRedis, type NotAfter, type Redis } from '../../store/redis.ts';
import { defineScripts, type Scripts } from '../../store/scripts.ts';
import { TicketStore } from '../../store/tickets.ts';
import { WithdrawalStore } from '../../store/withdrawals.ts';
import type { Address } from '../../protocol/address.ts';
import { randomAddress, randomKey } from '../helpers/random-ids.ts';

let redis: Redis;
let keys: Keys;
let scripts: Scripts;
const past: NotAfter = () => Date.now() - 60_000;
const future: NotAfter = () => Date.now() + 60_000;
const wallet = randomAddress;
const LIMITS = { maxExposureBps: 10_000, maxPayoutBps: 10_000, maxBetBps: 10_000 };
const AGENT = { maxBet: 1n, maxWagered: 1n, windowMs: 1_000 };
const SESSION = randomKey();

async function fund(w: Address, balance: bigint): Promise<void> {
  await redis.hset(keys.player(w), { balance: balance.toString(), nonce: '0', alias: `p_${w.slice(0, 8)}` });
  await redis.hset(keys.sessionKeys(w), SESSION, JSON.stringify({ status: 'active' }));
  await redis.hset(keys.house(), { vault: '1000000000000', balances: '0' });
}

const ticket = (id: string) => ({
  id,
  mode: 'easy',
  wager: 1_000_000n,
  fullPayout: 2_000_000n,
  sessionPubkey: SESSION,
  createdAt: new Date().toISOString(),
  serverSeedHash: 'ab'.repeat(32),
  source: 'api' as const,
  limits: LIMITS,
  agent: AGENT,
  nowMs: Date.now(),
});

beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  keys = new Keys(`test-late-${randomBytes(4).toString('hex')}`);
  scripts = defineScripts(redis);
});

afterAll(async () => {
  const left = await redis.keys(`${keys.prefix}:*`);
  if (left.length) await redis.del(...left);
  await redis.quit();
});

describe('a ticket open run twice', () => {
  it('answers ok both times with the same nonce, and locks the stake once', async () => {
    const w = wallet();
    await fund(w, 5_000_000n);
    const store = new TicketStore(redis, keys, scripts, future);
    const t = ticket(`t_${w.slice(0, 8)}`);
    const first = await store.open(w, t);
    const again = await store.open(w, t);
    expect(first).toEqual({ kind: 'ok', nonce: 0 });
    expect(again).toEqual(first);
    expect(await redis.hget(keys.player(w), 'balance')).toBe('4000000');
    // Another ticket is still refused while this one runs.
    expect(await store.open(w, ticket('another'))).toMatchObject({ kind: 'err', reason: 'ticket_active' });
  });
});

describe('a money-moving script run after its deadline', () => {
  it('a ticket open does nothing and says late (503)', async () => {
    const w = wallet();
    await fund(w, 5_000_000n);
    const result = await new TicketStore(redis, keys, scripts, past).open(w, ticket(`t_${w.slice(0, 8)}`));
    expect(result).toMatchObject({ kind: 'err', reason: 'late' });
    expect(await redis.hget(keys.player(w), 'balance')).toBe('5000000');
    expect(await redis.exists(keys.activeTicket(w))).toBe(0);
  });

  it('a withdrawal does nothing and says late; in time, it goes through', async () => {
    const w = wallet();
    await fund(w, 5_000_000n);
    const request = { id: `wd_${w.slice(0, 8)}`, amount: 1_000_000n, at: new Date().toISOString(), atMs: Date.now(), alias: 'p', idempotencyKey: 'k' };
    expect(await new WithdrawalStore(redis, keys, scripts, past).request(w, request)).toEqual({ kind: 'err', reason: 'late' });
    expect(await redis.hget(keys.player(w), 'balance')).toBe('5000000');
    expect(await new WithdrawalStore(redis, keys, scripts, future).request(w, request)).toEqual({ kind: 'ok', id: request.id });
    expect(await redis.hget(keys.player(w), 'balance')).toBe('4000000');
  });
});
