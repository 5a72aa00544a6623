// Settled plays' records leaving Redis (store/retention.ts): in log order, only below the bound and only those
// settled before the cutoff; every record of a play goes at once (receipt, bets, recovery seeds, ended ticket), the
// session key of each bet stays, and a pruner that read a stale cursor drops nothing. A host without the tile files
// then computes the same tiles and receipt bundles from the archive, and journal events trimmed from the stream are
// read from the archive.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { retentionPass } from '../../anchor-worker/retention.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis } from '../../store/redis.ts';
import { RetentionStore, type ArchivedReceiptText } from '../../store/retention.ts';
import { defineScripts } from '../../store/scripts.ts';
import { TransparencyStore } from '../../store/transparency.ts';
import { ManifestStore } from '../../store/anchor-manifests.ts';
import type { JournalRecord } from '../../store/journal-records.ts';
import { PfwsError } from '../../protocol/errors.ts';

const T = Date.parse('2027-05-01T12:00:00.000Z');
const at = (minutesAgo: number) => new Date(T - minutesAgo * 60_000).toISOString();
const hash = (n: number) => n.toString(16).padStart(64, '0');
const WALLET = 'Wa11et1111111111111111111111111111111111111';
const KEY = 'Sess1onKey111111111111111111111111111111111';

interface Play {
  id: string;
  bets: string[];
  minutesAgo: number;
  /** Stored the old way: no entry text beside the body. */
  noEntry?: boolean;
}

const entryOf = (p: Play) =>
  p.id.startsWith('sweeper_')
    ? `{"game":"sweeper","receiptId":"${p.id}","settledAt":"${at(p.minutesAgo)}","turns":[${p.bets.map((h) => `{"betPayloadHash":"${h}"}`).join(',')}],"v":1}`
    : `{"betPayloadHash":"${p.bets[0]}","game":"dice","receiptId":"${p.id}","settledAt":"${at(p.minutesAgo)}","v":1}`;
const bodyOf = (p: Play) =>
  `{"id":"${p.id}","receiptId":"${p.id}","verifierPayload":{"betLogEntry":${entryOf(p)}},"anchor":{"status":"pending_commit"},"createdAt":"${at(p.minutesAgo)}"}`;
const anchorOf = (i: number) => `{"status":"committed","betLogIndex":${i}}`;

async function seed(redis: ReturnType<typeof createRedis>, keys: Keys, plays: Play[]) {
  const pipeline = redis.pipeline();
  plays.forEach((p, i) => {
    pipeline.rpush(keys.betLog(), `${'ab'.repeat(32)}:${p.id}`);
    pipeline.hset(keys.receipt(p.id), 'body', bodyOf(p), 'anchor', anchorOf(i), ...(p.noEntry ? [] : ['entry', entryOf(p)]));
    for (const h of p.bets) {
      pipeline.hset(keys.bet(h), 'wallet', WALLET, 'sessionPubkey', KEY, 'state', 'settled');
      pipeline.set(keys.recoverySeed(h), 'seed');
    }
    if (p.id.startsWith('sweeper_')) pipeline.hset(keys.ticket(p.id.slice(8)), 'status', 'settled');
  });
  await pipeline.exec();
}

const recordsOf = (keys: Keys, p: Play) => [
  keys.receipt(p.id),
  ...p.bets.flatMap((h) => [keys.bet(h), keys.recoverySeed(h)]),
  ...(p.id.startsWith('sweeper_') ? [keys.ticket(p.id.slice(8))] : []),
];

describe('RetentionStore.prune', () => {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(`test-retention-${randomBytes(4).toString('hex')}`);
  const scripts = defineScripts(redis);
  const store = new RetentionStore(redis, keys, scripts);
  const plays: Play[] = [
    { id: 'dice_0', bets: [hash(1)], minutesAgo: 30 },
    { id: 'sweeper_t_1', bets: [hash(2), hash(3)], minutesAgo: 29 },
    { id: 'dice_2', bets: [hash(4)], minutesAgo: 28, noEntry: true },
    { id: 'dice_3', bets: [hash(5)], minutesAgo: 27 },
    { id: 'dice_4', bets: [hash(6)], minutesAgo: 1 },
    { id: 'dice_5', bets: [hash(7)], minutesAgo: 40 },
  ];
  const left = async (p: Play) => redis.exists(...recordsOf(keys, p));

  afterAll(async () => {
    const all = await redis.keys(`${keys.prefix}:*`);
    if (all.length) await redis.del(...all);
    await redis.quit();
  });

  it('drops every record of the oldest plays, in log order, up to the bound and the limit', async () => {
    await seed(redis, keys, plays);
    const cutoff = T - 10 * 60_000;
    expect(await store.prunedSize()).toBe(0);
    expect(await store.prune(1, cutoff, 100)).toBe(1);
    expect(await left(plays[0]!)).toBe(0);
    expect(await left(plays[1]!)).toBe(6);
    expect(await store.prune(6, cutoff, 2)).toBe(2);
    expect(await store.prunedSize()).toBe(3);
    expect(await left(plays[1]!)).toBe(0);
    // The old way: the bets are named by the entry inside the body.
    expect(await left(plays[2]!)).toBe(0);
    // Each bet's session key stays, and the log itself.
    expect(await redis.hgetall(keys.betSessionKeys())).toEqual(Object.fromEntries([1, 2, 3, 4].map((n) => [hash(n), `${WALLET}:${KEY}`])));
    expect(await redis.llen(keys.betLog())).toBe(plays.length);
  });

  it('stops at the first play that settled after the cutoff, even with older ones behind it', async () => {
    const cutoff = T - 10 * 60_000;
    expect(await store.prune(6, cutoff, 100)).toBe(1);
    expect(await left(plays[3]!)).toBe(0);
    expect(await store.prune(6, cutoff, 100)).toBe(0);
    expect(await store.prunedSize()).toBe(4);
    expect(await left(plays[4]!)).toBe(3);
    expect(await left(plays[5]!)).toBe(3);
  });

  it('drops nothing when the cursor moved since it was read', async () => {
    expect(await scripts.pruneSettled([keys.retention(), keys.betSessionKeys(), keys.bet(hash(6)), keys.receipt('dice_4')], [3, 5, hash(6)])).toBe(-1);
    expect(await left(plays[4]!)).toBe(3);
    expect(await store.prunedSize()).toBe(4);
  });
});

describe('retentionPass', () => {
  const deps = (latestEventId: string | null) => ({
    store: { prune: async () => 0 },
    archived: { archiveProgress: async () => ({ settled: 0, anchored: 0, manifestSeq: 0 }) },
    files: { writtenSize: async () => 0 },
    manifests: { latest: async () => (latestEventId ? ({ manifest: { lastEventId: latestEventId } } as never) : null) },
    retentionMs: 60_000,
    clock: () => new Date(T),
  });

  it('trims the journal below what the newest manifest covers and the window, never without a manifest', async () => {
    const kept: string[] = [];
    const journal = { trim: async (id: string) => (kept.push(id), 5) };
    expect(await retentionPass(deps(`${T - 120_000}-3`), journal)).toEqual({ plays: 0, events: 5 });
    expect(await retentionPass(deps(`${T}-0`), journal)).toEqual({ plays: 0, events: 5 });
    expect(kept).toEqual([`${T - 120_000}-3`, `${T - 60_000}-0`]);
    expect(await retentionPass(deps(null), journal)).toEqual({ plays: 0, events: 0 });
    expect(await retentionPass(deps(`${T}-0`), null)).toEqual({ plays: 0, events: 0 });
    expect(kept).toHaveLength(2);
  });

  it('bounds the drop by what the archive and the files hold, and drains a backlog in batches', async () => {
    const calls: [number, number, number][] = [];
    let backlog = 1_000;
    const dropped = await retentionPass(
      {
        ...deps(null),
        store: {
          prune: async (below, before, limit) => {
            calls.push([below, before, limit]);
            const n = Math.min(backlog, limit);
            backlog -= n;
            return n;
          },
        },
        archived: { archiveProgress: async () => ({ settled: 9_000, anchored: 5_120, manifestSeq: 0 }) },
        files: { writtenSize: async () => 7_680 },
      },
      null,
      { batch: 256, maxBatches: 3 },
    );
    expect(dropped).toEqual({ plays: 768, events: 0 });
    expect(calls).toEqual(Array.from({ length: 3 }, () => [5_120, T - 60_000, 256]));
  });
});

describe('tiles of dropped plays on a host without the files', () => {
  it('are computed from the archive, the same bytes as from Redis', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = new Keys(`test-retention-tiles-${randomBytes(4).toString('hex')}`);
    try {
      const plays: Play[] = Array.from({ length: 256 }, (_, i) => ({ id: `dice_${i}`, bets: [hash(i + 1)], minutesAgo: 30, noEntry: i % 2 === 0 }));
      await seed(redis, keys, plays);
      await redis.hset(keys.anchor(), 'committedSize', '256');
      const archive = new Map<string, ArchivedReceiptText>(plays.map((p, i) => [p.id, { receiptId: p.id, body: bodyOf(p), anchor: anchorOf(i) }]));
      const asked: string[] = [];
      const store = new TransparencyStore(redis, keys, undefined, {
        archivedReceipts: async ({ receiptIds }) => {
          asked.push(...receiptIds);
          return receiptIds.flatMap((id) => archive.get(id) ?? []);
        },
      });
      const bundle = await store.receiptBundleJson(0, 256, 256);
      const entries = await store.entryBundle(0, 256, 256);
      expect(asked).toEqual([]);
      await new RetentionStore(redis, keys, defineScripts(redis)).prune(256, T, 256);
      expect(await redis.exists(keys.receipt('dice_0'), keys.receipt('dice_1'))).toBe(0);
      expect(await store.receiptBundleJson(0, 256, 256)).toBe(bundle);
      expect(Buffer.from((await store.entryBundle(0, 256, 256))!).equals(Buffer.from(entries!))).toBe(true);
      expect(asked).toHaveLength(512);
      // Without an archive, a dropped receipt is named, not guessed.
      await expect(new TransparencyStore(redis, keys).receiptBundleJson(0, 256, 256)).rejects.toThrow(/names receipt dice_0, which is not stored/);
    } finally {
      const all = await redis.keys(`${keys.prefix}:*`);
      if (all.length) await redis.del(...all);
      await redis.quit();
    }
  });
});

describe('journal events trimmed from the stream', () => {
  it('are read from the archive below the oldest entry, and a failing archive is never taken for no events', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = new Keys(`test-retention-journal-${randomBytes(4).toString('hex')}`);
    try {
      const record = (seq: number): JournalRecord => ({ id: `${1000 + seq}-0`, seq, type: 'bet_settled', at: at(30), data: `{"n":${seq}}` });
      const all = Array.from({ length: 30 }, (_, i) => record(i + 1));
      for (const r of all) await redis.xadd(keys.journal(), r.id, 'seq', r.seq, 'type', r.type, 'at', r.at, 'data', r.data);
      await redis.set(keys.journalSeq(), '30');
      const down = { on: false };
      const archive = {
        archivedEvents: async ({ afterSeq, toSeq }: { afterSeq: number; toSeq: number }) => {
          if (down.on) throw new PfwsError('SERVICE_UNAVAILABLE', 'down');
          return all.filter((r) => r.seq > afterSeq && r.seq <= toSeq);
        },
      };
      const store = new ManifestStore(redis, keys, defineScripts(redis), archive);
      const whole = await store.eventsAfterSeq(0, 100);
      expect(whole.map((e) => e.seq)).toEqual(all.map((r) => r.seq));
      await redis.xtrim(keys.journal(), 'MINID', '1021-0');
      expect(await store.eventsAfterSeq(0, 100)).toEqual(whole);
      expect(await store.eventsAfterSeq(17, 6)).toEqual(whole.slice(17, 23));
      expect(await store.eventsAfterSeq(25, 100)).toEqual(whole.slice(25));
      down.on = true;
      await expect(store.eventsAfterSeq(5, 10)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      // What the stream still holds needs no archive.
      expect(await store.eventsAfterSeq(20, 100)).toEqual(whole.slice(20));
      // Everything trimmed: the counter says what there was.
      await redis.xtrim(keys.journal(), 'MAXLEN', 0);
      down.on = false;
      expect(await store.eventsAfterSeq(28, 100)).toEqual(whole.slice(28));
    } finally {
      const left = await redis.keys(`${keys.prefix}:*`);
      if (left.length) await redis.del(...left);
      await redis.quit();
    }
  });
});
