// Crash safety of anchoring: the worker is stopped at each step (before sending, after sending, before
// recording the confirmation, mid-fill) and a fresh one takes over. Nothing is skipped, nothing is
// committed twice, and no receipt ever names a root that is not on-chain. Also: transient RPC failures
// retry, an entry that can never be anchored fails as unrecoverable, and manifests survive a crash.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { base58 } from '@scure/base';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { Anchorer, type AnchorHooks } from '../../anchor-worker/anchor.ts';
import { ManifestBuilder } from '../../anchor-worker/manifests.ts';
import { createQueueRedis } from '../../store/redis.ts';
import { memosSignedBy, type RpcTransaction } from '../../protocol/verify/chain.ts';
import { RngAnchors } from '../../protocol/verify/rng.ts';
import { verifyReceipt } from '../../protocol/verify/receipt.ts';
import { verifyManifest } from '../../protocol/manifest.ts';
import { AnchorStore, type PendingCommit } from '../../store/anchor-store.ts';
import { InvalidEntryError } from '../../store/anchor-tree.ts';

class Crash extends Error {}

let svc: TestService;
let player: Player;
let config: Record<string, string>;
const queues: Queue[] = [];

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(svc.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

const getTx = (signature: string): Promise<RpcTransaction | null> =>
  rpc('getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
const statusOf = async (signature: string) => (await rpc('getSignatureStatuses', [[signature]])).value[0];
const logSize = () => svc.wiring.redis.llen(svc.wiring.keys.betLog());
const crashAt = (point: keyof AnchorHooks): AnchorHooks => ({ [point]: async () => Promise.reject(new Crash(point)) });

/** Every commit memo the anchor key put on-chain, with its transaction signature. */
async function onChainCommits(): Promise<{ entryCount: number; text: string; signature: string }[]> {
  const sigs = (await rpc('getSignaturesForAddress', [config.operatorPublicKey, { limit: 1000 }])) as { signature: string; err: unknown }[];
  const out = [];
  for (const s of sigs) {
    if (s.err) continue;
    for (const m of memosSignedBy(await getTx(s.signature), config.operatorPublicKey!)) {
      if (m.memo.kind === 'commit') out.push({ entryCount: m.memo.entryCount, text: m.text, signature: s.signature });
    }
  }
  return out;
}

/**
 * The invariants after any crash: each size committed at most once on-chain, and every receipt whose
 * anchor is filled verifies against the chain (so it names a root that is there).
 */
async function assertSound(): Promise<{ anchored: number; pending: number }> {
  const commits = await onChainCommits();
  const sizes = commits.map((c) => c.entryCount);
  expect(new Set(sizes).size, `a size was committed twice: ${sizes}`).toBe(sizes.length);
  const rng = new RngAnchors();
  const sigs = (await rpc('getSignaturesForAddress', [config.operatorPublicKey, { limit: 1000 }])) as { signature: string }[];
  const txs = new Map<string, RpcTransaction | null>();
  for (const s of sigs) {
    const tx = await getTx(s.signature);
    txs.set(s.signature, tx);
    for (const m of memosSignedBy(tx, config.operatorPublicKey!)) if (m.memo.kind === 'rng-head') rng.addHead(m.memo.headHex);
  }
  const items = await svc.wiring.redis.lrange(svc.wiring.keys.betLog(), 0, -1);
  let anchored = 0;
  let pending = 0;
  for (const item of items) {
    const id = item.split(':')[1]!;
    const receipt = (await http('GET', `${svc.api}/receipts/${id}`)).body.receipt;
    if (receipt.anchor.status === 'pending_commit') {
      pending++;
      continue;
    }
    anchored++;
    const report = verifyReceipt(receipt, {
      ackPublicKey: config.ackPublicKey!,
      operatorPublicKey: config.operatorPublicKey!,
      rng,
      commitTx: (s) => txs.get(s),
    });
    expect(
      report.checks.filter((c) => c.status === 'fail'),
      id,
    ).toEqual([]);
  }
  return { anchored, pending };
}

async function play(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await player.playDice({ wager: 1, target: 50 });
}

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', MANIFEST_MAX_DELAY_MS: '100' });
  config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
  // The service's own workers stand still while a test drives the processors by hand.
  for (const name of ['anchor', 'manifest']) {
    const q = new Queue(name, { connection: createQueueRedis(svc.config.REDIS_URL), prefix: svc.wiring.keys.queuePrefix() });
    await q.pause();
    queues.push(q);
  }
  // A job the workers had already taken finishes first.
  await vi.waitFor(async () => expect(await Promise.all(queues.map((q) => q.getActiveCount()))).toEqual([0, 0]), { timeout: 20_000, interval: 50 });
  player = await new Player(svc.api, svc.rpcUrl).onboard(100);
}, 60_000);

afterAll(async () => {
  for (const q of queues) await q.close();
  await svc?.cleanup();
});

describe('a worker killed while committing', () => {
  it('before sending: the stored transaction is sent on restart, once', async () => {
    await play(2);
    const crashing = new Anchorer(svc.wiring.worker!.anchoring.anchorer, { hooks: crashAt('beforeSend') });
    await expect(crashing.run()).rejects.toThrow(Crash);
    const pending = (await crashing.store.pending()) as PendingCommit;
    expect(pending.entryCount).toBe(2);
    expect(await statusOf(pending.signature)).toBeNull();
    expect(await crashing.store.committedSize()).toBe(0);
    expect(await assertSound()).toEqual({ anchored: 0, pending: 2 });

    expect(await new Anchorer(svc.wiring.worker!.anchoring.anchorer).run()).toBe(2);
    expect(await crashing.store.pending()).toBeNull();
    const commits = await onChainCommits();
    expect(commits.filter((c) => c.entryCount === 2)).toEqual([{ entryCount: 2, text: pending.memo, signature: pending.signature }]);
    expect(await assertSound()).toEqual({ anchored: 2, pending: 0 });
  });

  it('after sending, before confirming: reconciled from the chain, never sent again', async () => {
    await play(2);
    const sent: string[] = [];
    const crashing = new Anchorer(svc.wiring.worker!.anchoring.anchorer, {
      hooks: { afterSend: async (p) => Promise.reject(new Crash(sent.push(p.signature).toString())) },
    });
    await expect(crashing.run()).rejects.toThrow(Crash);
    for (let i = 0; i < 50 && !(await statusOf(sent[0]!)); i++) await new Promise((r) => setTimeout(r, 50));
    expect((await statusOf(sent[0]!))?.err).toBeNull();
    expect(await assertSound()).toEqual({ anchored: 2, pending: 2 });

    const sends: string[] = [];
    const restarted = new Anchorer(svc.wiring.worker!.anchoring.anchorer, { hooks: { beforeSend: async (p) => void sends.push(p.signature) } });
    expect(await restarted.run()).toBe(4);
    expect(sends).toEqual([]);
    const record = await restarted.store.commitAt(4);
    expect(record?.signature).toBe(sent[0]);
    expect((await onChainCommits()).filter((c) => c.entryCount === 4)).toHaveLength(1);
    expect(await assertSound()).toEqual({ anchored: 4, pending: 0 });
  });

  it('after confirming, before recording it: the landing is found and recorded', async () => {
    await play(1);
    const crashing = new Anchorer(svc.wiring.worker!.anchoring.anchorer, { hooks: crashAt('beforeFinalize') });
    await expect(crashing.run()).rejects.toThrow(Crash);
    expect(await crashing.store.committedSize()).toBe(4);
    expect(await assertSound()).toEqual({ anchored: 4, pending: 1 });
    expect(await new Anchorer(svc.wiring.worker!.anchoring.anchorer).run()).toBe(5);
    expect((await onChainCommits()).filter((c) => c.entryCount === 5)).toHaveLength(1);
    expect(await assertSound()).toEqual({ anchored: 5, pending: 0 });
  });

  it('while filling receipts: the fill resumes from its cursor', async () => {
    await play(3);
    let batches = 0;
    const crashing = new Anchorer(svc.wiring.worker!.anchoring.anchorer, {
      fillBatch: 1,
      hooks: { afterFillBatch: async () => (++batches === 1 ? Promise.reject(new Crash('fill')) : undefined) },
    });
    await expect(crashing.run()).rejects.toThrow(Crash);
    expect(await crashing.store.committedSize()).toBe(8);
    expect(await crashing.store.filledSize()).toBe(6);
    expect(await assertSound()).toEqual({ anchored: 6, pending: 2 });
    expect(await new Anchorer(svc.wiring.worker!.anchoring.anchorer, { fillBatch: 1 }).run()).toBe(8);
    expect(await crashing.store.filledSize()).toBe(8);
    expect(await assertSound()).toEqual({ anchored: 8, pending: 0 });
  });

  it('re-signs the same memo only once the stored transaction can no longer land', async () => {
    await play(1);
    const crashing = new Anchorer(svc.wiring.worker!.anchoring.anchorer, { hooks: crashAt('beforeSend') });
    await expect(crashing.run()).rejects.toThrow(Crash);
    const pending = (await crashing.store.pending()) as PendingCommit;
    // As if the blockhash had expired while the worker was down (and a newer one exists, a slot later).
    const { value: then } = await svc.wiring.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    await vi.waitFor(
      async () => expect((await svc.wiring.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value.blockhash).not.toBe(then.blockhash),
      {
        timeout: 20_000,
        interval: 50,
      },
    );
    await svc.wiring.redis.hset(svc.wiring.keys.anchorPending(), 'json', JSON.stringify({ ...pending, lastValidBlockHeight: '0' }));
    expect(await new Anchorer(svc.wiring.worker!.anchoring.anchorer).run()).toBe(9);
    const record = await crashing.store.commitAt(9);
    expect(record?.signature).not.toBe(pending.signature);
    expect(record?.memo).toBe(pending.memo);
    expect(await statusOf(pending.signature)).toBeNull();
    expect((await onChainCommits()).filter((c) => c.entryCount === 9)).toHaveLength(1);
    expect(await assertSound()).toEqual({ anchored: 9, pending: 0 });
  });

  it("finds a landed commit in the anchor key's history even when its signature was not recorded", async () => {
    await play(1);
    const landed: string[] = [];
    const crashing = new Anchorer(svc.wiring.worker!.anchoring.anchorer, {
      hooks: { afterSend: async (p) => Promise.reject(new Crash(landed.push(p.signature).toString())) },
    });
    await expect(crashing.run()).rejects.toThrow(Crash);
    for (let i = 0; i < 50 && !(await statusOf(landed[0]!)); i++) await new Promise((r) => setTimeout(r, 50));
    const pending = (await crashing.store.pending()) as PendingCommit;
    const unknown = base58.encode(randomBytes(64));
    await svc.wiring.redis.hset(svc.wiring.keys.anchorPending(), 'json', JSON.stringify({ ...pending, signature: unknown, signatures: [unknown] }));
    const sends: string[] = [];
    expect(await new Anchorer(svc.wiring.worker!.anchoring.anchorer, { hooks: { beforeSend: async (p) => void sends.push(p.signature) } }).run()).toBe(10);
    expect(sends).toEqual([]);
    expect((await crashing.store.commitAt(10))?.signature).toBe(landed[0]);
    expect(await assertSound()).toEqual({ anchored: 10, pending: 0 });
  });

  it('a transient RPC failure leaves nothing half-done, and the next attempt commits', async () => {
    await play(1);
    const flaky = new Proxy(svc.wiring.rpc, {
      get(target, prop, receiver) {
        if (prop === 'getLatestBlockhash') return () => ({ send: () => Promise.reject(new Error('503 from the RPC')) });
        return Reflect.get(target, prop, receiver);
      },
    });
    const anchorer = new Anchorer({ ...svc.wiring.worker!.anchoring.anchorer, rpc: flaky });
    await expect(anchorer.run()).rejects.toThrow('503 from the RPC');
    expect(await anchorer.store.pending()).toBeNull();
    expect(await new Anchorer(svc.wiring.worker!.anchoring.anchorer).run()).toBe(11);
    expect(await assertSound()).toEqual({ anchored: 11, pending: 0 });
  });

  it('a Redis read that fails while it checks receipts is an error to retry, never a missing receipt', async () => {
    await play(1);
    // The first receipt body read in a pipeline gets a real error reply (WRONGTYPE, from a key that is not a hash), as a
    // timeout or a Redis still loading its data would give.
    const notAHash = `${svc.wiring.keys.prefix}:not-a-hash`;
    await svc.wiring.redis.set(notAHash, 'x');
    const failing = new Proxy(svc.wiring.redis, {
      get(target, prop, receiver) {
        if (prop !== 'pipeline') return Reflect.get(target, prop, receiver);
        return () => {
          const pipeline = target.pipeline();
          const hmgetBuffer = pipeline.hmgetBuffer.bind(pipeline);
          let failed = false;
          pipeline.hmgetBuffer = ((key: string, ...fields: string[]) => {
            if (failed || fields[0] !== 'body' || !key.startsWith(svc.wiring.keys.receipt(''))) return hmgetBuffer(key, ...fields);
            failed = true;
            return hmgetBuffer(notAHash, ...fields);
          }) as typeof pipeline.hmgetBuffer;
          return pipeline;
        };
      },
    });
    const base = svc.wiring.worker!.anchoring.anchorer;
    const anchorer = new Anchorer({ ...base, store: new AnchorStore(failing, base.store.keys, base.store.scripts) });
    const err = await anchorer.run().then(
      () => expect.fail('the run went on past a failed read'),
      (e: unknown) => e,
    );
    expect(err).not.toBeInstanceOf(InvalidEntryError);
    expect((err as Error).message).toMatch(/WRONGTYPE/);
    expect(await base.store.pending()).toBeNull();
    expect(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'halted')).toBeNull();
    const size = await logSize();
    expect(await new Anchorer(base).run()).toBe(size);
    expect(await assertSound()).toEqual({ anchored: size, pending: 0 });
  });

  it('a send the RPC node drops is sent again, and the commit lands within seconds', async () => {
    await play(1);
    const dropped: string[] = [];
    // The node answers the signature but keeps nothing, as a node that drops a transaction (or a restarted one) does.
    const dropping = new Proxy(svc.wiring.rpc, {
      get(target, prop, receiver) {
        if (prop === 'sendTransaction' && dropped.length === 0) {
          return () => ({ send: async () => void dropped.push('first') });
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    const started = Date.now();
    const size = await logSize();
    expect(await new Anchorer({ ...svc.wiring.worker!.anchoring.anchorer, rpc: dropping }).run()).toBe(size);
    expect(dropped).toEqual(['first']);
    // Not the 90 s a confirmation waits before it gives up.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await onChainCommits()).filter((c) => c.entryCount === size)).toHaveLength(1);
    expect(await assertSound()).toEqual({ anchored: size, pending: 0 });
  });

  it("waits while the last commit's state tree, whichever worker built it, is over its share of a core; then takes every entry", async () => {
    await play(3);
    const base = svc.wiring.worker!.anchoring.anchorer;
    const paced = { ...base, stateTreeCpuPercent: 10, maxEntries: 1 };
    const committed = await base.store.committedSize();
    const size = await logSize();
    // Another worker's tree of 1 s of hashing, built just now: the next 9 s are not this commit's.
    await base.store.setStateTree({ at: Date.now(), busyMs: 1_000 });
    expect(await new Anchorer(paced).run()).toBe(committed);
    // Built 10 s ago: the commit comes, and takes all three entries though maxEntries is 1.
    await base.store.setStateTree({ at: Date.now() - 10_000, busyMs: 1_000 });
    expect(await new Anchorer(paced).run()).toBe(size);
    expect((await onChainCommits()).filter((c) => c.entryCount === size)).toHaveLength(1);
    expect(await assertSound()).toEqual({ anchored: size, pending: 0 });
    // Its own tree, a few wallets' worth, is what the next commit goes by now: it holds nothing back.
    expect((await base.store.stateTree())?.busyMs).toBeLessThan(10);
  });
});

describe('manifests across a crash', () => {
  it('re-signs exactly the drafted manifest after a crash, and never two on one predecessor', async () => {
    await new ManifestBuilder(svc.wiring.worker!.anchoring.manifests).run();
    const before = (await http('GET', `${svc.api}/protocol/v1/journal/manifest/latest`)).body.manifest;
    await play(1);
    const crashing = new ManifestBuilder(svc.wiring.worker!.anchoring.manifests, { afterDraft: async () => Promise.reject(new Crash('draft')) });
    await expect(crashing.run()).rejects.toThrow(Crash);
    const { draft } = await crashing.store.state();
    expect(draft?.body.previousManifestHash).toBe(before.manifestHash);
    await play(1);
    const manifest = await new ManifestBuilder(svc.wiring.worker!.anchoring.manifests).run();
    expect(manifest).toMatchObject({ previousManifestHash: before.manifestHash, lastEventId: draft!.body.lastEventId, eventRoot: draft!.body.eventRoot });
    expect(verifyManifest(manifest, config.operatorPublicKey!)).toEqual({ ok: true });
    const next = await new ManifestBuilder(svc.wiring.worker!.anchoring.manifests).run();
    expect(next?.previousManifestHash).toBe(manifest!.manifestHash);
    const records = Object.values(await svc.wiring.redis.hgetall(svc.wiring.keys.manifests())).map((r) => JSON.parse(r).manifest);
    const predecessors = records.map((m) => m.previousManifestHash);
    expect(new Set(predecessors).size).toBe(predecessors.length);
  });
});

describe('the BullMQ processors', () => {
  it('retry a transient RPC failure with backoff, then commit', { timeout: 60_000 }, async () => {
    await play(1);
    // Jobs queued while the workers were paused are stale, and a job still running must finish first:
    // then one fresh job meets the failures alone.
    await queues[0]!.drain(true);
    while ((await queues[0]!.getActiveCount()) > 0) await new Promise((r) => setTimeout(r, 50));
    const deps = svc.wiring.worker!.anchoring.anchorer;
    const real = deps.rpc;
    let failures = 0;
    deps.rpc = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'getLatestBlockhash' && failures < 2) {
          failures++;
          return () => ({ send: () => Promise.reject(new Error('503 from the RPC')) });
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    try {
      await queues[0]!.resume();
      // Two failed attempts back off 400 and 800 ms; a loaded machine may take much longer to pick the job up.
      const size = String(await logSize());
      await vi.waitFor(async () => expect(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'committedSize')).toBe(size), {
        timeout: 45_000,
        interval: 100,
      });
    } finally {
      deps.rpc = real;
    }
    expect(failures).toBe(2);
    expect(Number(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'committedSize'))).toBe(await logSize());
    // The scheduler may queue a later job for entries that settle meanwhile; exactly one job met the failures:
    // two failed attempts, then success, after backing off 400 ms and 800 ms.
    // A later job may commit first on a loaded machine, while the retried one still waits out its backoff.
    const retried = await vi.waitFor(
      async () => {
        const done = (await queues[0]!.getCompleted()).filter((j) => j.attemptsMade > 1);
        expect(done).toHaveLength(1);
        return done;
      },
      { timeout: 45_000, interval: 100 },
    );
    const job = retried[0];
    expect(job!.attemptsMade).toBe(3);
    expect(job!.finishedOn! - job!.timestamp).toBeGreaterThanOrEqual(1_000);
    expect(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'lastError')).toBeNull();
    await assertSound();
  });

  it('fail an entry that can never be anchored as unrecoverable, once, and halt anchoring', async () => {
    const size = await logSize();
    await svc.wiring.redis.rpush(svc.wiring.keys.betLog(), 'not-a-bet-log-entry');
    let failed: Awaited<ReturnType<Queue['getFailed']>> = [];
    for (let i = 0; i < 100 && !failed.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      failed = await queues[0]!.getFailed();
    }
    expect(failed).toHaveLength(1);
    expect(failed[0]!.failedReason).toContain(`bet-log entry ${size} is malformed`);
    expect(failed[0]!.attemptsMade).toBe(1);
    expect(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'halted')).toContain('malformed');
    // Scheduler passes after the halt queue nothing more.
    await svc.worker!.anchoring.flush();
    await svc.worker!.anchoring.flush();
    expect(await queues[0]!.getJobCounts('waiting', 'delayed', 'failed')).toEqual({ waiting: 0, delayed: 0, failed: 1 });
    expect(Number(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'committedSize'))).toBe(size);
  });
});
