// What the ledger scripts ask of Redis (issue 25): a Dice bet's scripts read nothing they have read already, and a
// write whose reply says what a read would does without the read; an anchor fill batch is one command. Counted with
// INFO commandstats on a redis-server of the test's own, so nothing else runs commands meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../chaos/redis-server.ts';
import { diceMultiplierBps, dicePayout } from '../../protocol/dice.ts';
import { AnchorStore } from '../../store/anchor-store.ts';
import { BetStore, type BetRecord } from '../../store/bets.ts';
import { Keys } from '../../store/keys.ts';
import { LedgerStore } from '../../store/ledger.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { defineScripts } from '../../store/scripts.ts';
import { randomAddress, randomHex32, randomKey } from '../helpers/random-ids.ts';

const USDC = 1_000_000n;
const LIMITS = { maxBetBps: 50, maxPayoutBps: 100, maxExposureBps: 2500, maxWalletExposureBps: 500 };

let server: RedisServer;
let redis: Redis;

const commandCalls = async (): Promise<Record<string, number>> => {
  const calls: Record<string, number> = {};
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]!] = Number(m[2]);
  return calls;
};

/** The commands `run` sends, script-internal ones included, by name (the INFO that reads them left out). */
async function commandsOf(run: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await commandCalls();
  await run();
  const after = await commandCalls();
  const diff: Record<string, number> = {};
  for (const [name, n] of Object.entries(after)) if (n - (before[name] ?? 0) > 0 && name !== 'info') diff[name] = n - (before[name] ?? 0);
  return diff;
}

beforeAll(async () => {
  server = new RedisServer({ dir: mkdtempSync(path.join(os.tmpdir(), 'pfws-script-commands-')), args: ['--appendonly', 'no'] });
  await server.start();
  redis = createRedis(server.url);
});

afterAll(async () => {
  await redis.quit();
  await server.kill();
  rmSync(server.options.dir, { recursive: true, force: true });
});

describe('the ledger scripts', () => {
  it('prepares, commits and settles without reading what the script read or was just told', async () => {
    const keys = new Keys('cmds');
    const scripts = defineScripts(redis);
    const ledger = new LedgerStore(redis, keys, scripts);
    const bets = new BetStore(redis, keys, scripts);
    await redis.hset(keys.rng(), { chainId: '1', head: 'ab'.repeat(32), length: '1000000', next: '1' });
    const at = new Date().toISOString();
    await ledger.applyChainItem({ key: 'h:0', signature: 'h', slot: 1, kind: 'house', amount: 1_000_000n * USDC }, at);
    const session = randomKey();
    const w = randomAddress();
    await ledger.applyChainItem({ key: 's:0', signature: 's', slot: 2, kind: 'setup', wallet: w, alias: 'p_w', sessionPubkey: session }, at);
    await ledger.applyChainItem({ key: 'd:0', signature: 'd', slot: 3, kind: 'deposit', wallet: w, alias: 'p_w', amount: 1_000n * USDC }, at);

    const wager = 10n * USDC;
    const maxPayout = dicePayout(wager, diceMultiplierBps(100));
    const hash = randomHex32();
    const now = Date.now();
    const prepared = await commandsOf(() =>
      bets.savePrepared(
        hash,
        {
          wallet: w,
          game: 'dice',
          payload: JSON.stringify({ params: {} }),
          wager,
          maxPayout,
          exposureDelta: maxPayout - wager,
          sessionPubkey: session,
          commitment: hash,
          betNonce: 0,
          expiresAtMs: now + 60_000,
          source: 'api',
        },
        60_000,
        100,
      ),
    );
    expect(prepared.llen).toBeUndefined();

    let held: BetRecord | undefined;
    const committed = await commandsOf(async () => {
      const result = await bets.commit(hash, w, {
        nowMs: now,
        committedAt: new Date(now).toISOString(),
        revealDeadlineMs: now + 86_400_000,
        revealDeadline: new Date(now + 86_400_000).toISOString(),
        // Any open exposure is scarce here, so the bet takes the short deadline from the exposure the check read.
        shortReveal: { deadlineMs: now + 300_000, deadline: new Date(now + 300_000).toISOString(), scarceExposureBps: 0 },
        limits: LIMITS,
        agent: { maxBet: USDC, maxWagered: USDC, windowMs: 1_000 },
        sessionSignature: 'sig',
        maxUnrevealed: 100,
      });
      expect(result).toMatchObject({ kind: 'ok', revealDeadline: new Date(now + 300_000).toISOString() });
      if (result.kind === 'ok') held = result.bet;
    });
    // The bet the commit returns, which its reveal uses instead of reading it, is the bet as stored.
    expect(held).toEqual(await bets.bet(hash));
    expect(held).toMatchObject({ revealDeadlineMs: now + 300_000, commitSignature: 'sig', stake: wager, maxPayout });
    // The bet, the house, the wallet and the RNG cursor: one HMGET each; the session key is the only HGET.
    expect({ hmget: committed.hmget, hget: committed.hget }).toEqual({ hmget: 4, hget: 1 });

    const settle = (recentJson: string) =>
      bets.settleTurn(
        { hash, wallet: w, game: 'dice', ticketId: '' },
        {
          settlement: 'lost',
          disclosedIndex: 0,
          turnEvent: null,
          play: null,
          end: {
            payout: 0n,
            houseNet: wager,
            won: false,
            receiptId: `dice_${hash}`,
            receiptJson: '{}',
            leafHashHex: '00',
            entryJson: '{}',
            event: { type: 'bet_settled', json: '{}' },
            recentJson,
            playJson: '',
          },
        },
        new Date().toISOString(),
      );
    // The wallet's recent plays are trimmed to 50 only once past 64, so most settlements send no LTRIM.
    const recent = keys.recentPlays(w, 'dice');
    await redis.lpush(recent, ...Array.from({ length: 63 }, (_, i) => `{"old":${i}}`));
    const settled = await commandsOf(async () => expect((await settle('{"new":1}')).kind).toBe('ok'));
    expect(settled.ltrim).toBeUndefined();
    expect(await redis.llen(recent)).toBe(64);
    await redis.lpush(recent, '{"old":63}');
    await redis.hset(keys.bet(hash), 'state', 'committed');
    await settle('{"new":2}');
    expect(await redis.lrange(recent, 0, 0)).toEqual(['{"new":2}']);
    expect(await redis.llen(recent)).toBe(50);
  });

  it('fills a batch of anchors, and moves the fill cursor, in one command', async () => {
    const keys = new Keys('fill');
    const store = new AnchorStore(redis, keys, defineScripts(redis));
    const anchors = ['a', 'b', 'c'].map((id) => ({ receiptId: `dice_${id}`, anchorJson: `{"of":"${id}"}` }));
    // The script's first call loads it.
    await store.fillBatch([], 0);
    const sent = await commandsOf(() => store.fillBatch(anchors, 3));
    expect(sent).toEqual({ evalsha: 1, hset: 4 });
    expect(await redis.hget(keys.receipt('dice_b'), 'anchor')).toBe('{"of":"b"}');
    expect(await redis.hget(keys.anchor(), 'filled')).toBe('3');
  });
});
