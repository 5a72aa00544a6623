// Anchoring state in Redis: the committed size, the one pending commit, published commits, liability snapshots.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';
import type { PublishedCommit } from '../protocol/verify/log.ts';
import { BetLogTree, persistedTreeSize, readConsistencyProof, readTreeRoot } from './anchor-tree.ts';
import { toHex } from '../protocol/encoding.ts';
import { pipelineReplies } from './redis.ts';
import type { ReceiptFields } from './transparency.ts';

/** The memo fields every commit carries, as the verifier reads them. */
type CommitFields = Omit<PublishedCommit, 'commitId' | 'signature'>;

/**
 * The last commit's state tree: when it was built (epoch ms) and how long its hashing took. Kept in the ledger, so
 * every worker process paces its commits by it (anchor-worker/anchor.ts `stateTreeHoldsUntil`), a restarted one too.
 */
export interface StateTreeCost {
  at: number;
  busyMs: number;
}

/** A commit whose memo transaction is signed, stored before it is sent, until it is confirmed. */
export interface PendingCommit extends CommitFields {
  /** Committed size this commit extends. */
  from: number;
  memo: string;
  /** The latest signed transaction; earlier ones (expired blockhashes) are in `signatures`. */
  signature: string;
  wire: string;
  lastValidBlockHeight: string;
  /** Every signature this commit was ever sent under, oldest first. */
  signatures: string[];
  createdAt: string;
}

/** A confirmed commit, as `GET /api/protocol/v1/bet-log/commits` lists it. */
export interface CommitRecord extends PublishedCommit {
  previousEntryCount: number;
  memo: string;
  slot: number;
  committedAt: string;
}

/** What one atomic read of the ledger gave for a new commit. */
export interface LedgerSnapshot {
  committedSize: number;
  /** Entries this commit will cover: the log size, at most `maxEntries` past the committed size. */
  entryCount: number;
  logSize: number;
  rngChainId: number | null;
  rngHead: string | null;
  disclosed: number;
  latestManifest: string | null;
  /** wallet → liability (balance + staked + pendingWithdrawals), micro-USDC. */
  liabilities: Map<string, bigint>;
  /** Where the snapshot's copy of the liabilities waits for {@link AnchorStore.claim} (or expires). */
  draft: string;
}

/** How long a liability copy outlives a commit attempt that never claims it (an error, a crash). */
const DRAFT_TTL_MS = 600_000;
/** Fields a liability copy is read in, each an HSCAN of its own, so reading it holds Redis briefly each time. */
const SCAN_COUNT = 2_000;

/**
 * Receipt fields that readers want a moment apart (neither changes once written), kept by the first for the others and
 * taken once by each: a body the anchor's check or the archiver read from Redis, an anchor the fill just wrote, for the
 * archiver, the check and the receipt bundles. At most this many wait in each (a body is about 3.6 kB: 15 MB, the same
 * buffers in each), the oldest dropped first. Bodies stay the bytes Redis sent: every reader wants bytes or finds what
 * it checks in them, so none is decoded into a string, and a kept one holds no space in the collected heap.
 */
const KEPT_FIELDS = 4096;

class KeptFields<T> {
  readonly #values = new Map<string, T>();

  put(receiptId: string, value: T): void {
    this.#values.set(receiptId, value);
    if (this.#values.size > KEPT_FIELDS) this.#values.delete(this.#values.keys().next().value as string);
  }

  take(receiptId: string): T | undefined {
    const value = this.#values.get(receiptId);
    if (value !== undefined) this.#values.delete(receiptId);
    return value;
  }
}

export class AnchorStore {
  readonly #bodiesForArchive = new KeptFields<Buffer>();
  readonly #bodiesForAnchor = new KeptFields<Buffer>();
  readonly #anchorsForArchive = new KeptFields<string>();
  readonly #bodiesForBundles = new KeptFields<Buffer>();
  readonly #anchorsForBundles = new KeptFields<string>();
  readonly #entriesForTiles = new KeptFields<Buffer>();

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {}

  async committedSize(): Promise<number> {
    return Number((await this.redis.hget(this.keys.anchor(), 'committedSize')) ?? 0);
  }

  /** Receipts of entries below this index have their anchor filled. */
  async filledSize(): Promise<number> {
    return Number((await this.redis.hget(this.keys.anchor(), 'filled')) ?? 0);
  }

  async pending(): Promise<PendingCommit | null> {
    const json = await this.redis.hget(this.keys.anchorPending(), 'json');
    return json ? (JSON.parse(json) as PendingCommit) : null;
  }

  /**
   * What a new commit covers, read at one instant, with a copy of every wallet's liability (kept by the scripts that
   * move money), read afterwards in chunks.
   */
  async snapshot(maxEntries: number): Promise<LedgerSnapshot> {
    const k = this.keys;
    const draft = k.anchorSnapshotDraft(randomUUID());
    const r = (await this.scripts.anchorSnapshot(
      [k.betLog(), k.wallets(), k.rng(), k.manifest(), k.anchor(), k.liabilities(), draft],
      [k.prefix, maxEntries, DRAFT_TTL_MS],
    )) as string[];
    const liabilities = new Map<string, bigint>();
    let cursor = '0';
    do {
      const [next, fields] = await this.redis.hscan(draft, cursor, 'COUNT', SCAN_COUNT);
      // HSCAN may return a field twice; the '' field marks a complete hash.
      for (let i = 0; i < fields.length; i += 2) if (fields[i] !== '') liabilities.set(fields[i] as string, BigInt(fields[i + 1] as string));
      cursor = next;
    } while (cursor !== '0');
    return {
      committedSize: Number(r[0]),
      entryCount: Number(r[1]),
      logSize: Number(r[2]),
      rngChainId: r[3] ? Number(r[3]) : null,
      rngHead: r[4] || null,
      disclosed: Number(r[5] || 0),
      latestManifest: r[6] || null,
      liabilities,
      draft,
    };
  }

  /** Drops a snapshot's liability copy that no commit will claim. */
  async discard(snapshot: LedgerSnapshot): Promise<void> {
    await this.redis.del(snapshot.draft);
  }

  /**
   * Stores the signed commit and keeps its snapshot's liability copy as the epoch's, before anything is sent.
   * @returns false when another commit holds the slot or the committed size moved (the copy is dropped)
   */
  async claim(pending: PendingCommit, snapshot: LedgerSnapshot): Promise<boolean> {
    const k = this.keys;
    const claimed =
      (await this.scripts.claimCommit(
        [k.anchor(), k.anchorPending(), k.anchorSnapshot(pending.entryCount), snapshot.draft],
        [pending.from, JSON.stringify(pending)],
      )) === 1;
    if (!claimed) await this.discard(snapshot);
    return claimed;
  }

  /** Replaces the stored transaction of the pending commit (a re-signed one after its blockhash expired). */
  async updatePending(pending: PendingCommit): Promise<boolean> {
    return (await this.scripts.updatePendingCommit([this.keys.anchorPending()], [pending.entryCount, JSON.stringify(pending)])) === 1;
  }

  async finalize(record: CommitRecord): Promise<boolean> {
    const k = this.keys;
    const done = (await this.scripts.finalizeCommit([k.anchor(), k.anchorPending(), k.anchorCommits()], [record.entryCount, JSON.stringify(record)])) === 1;
    // Only the latest snapshot is served; the one before stays for readers that raced the switch.
    if (done && record.previousEntryCount > 0) {
      const older = await this.redis.zrangebyscore(k.anchorCommits(), '-inf', `(${record.previousEntryCount}`, 'WITHSCORES');
      const stale: string[] = [];
      for (let i = 1; i < older.length; i += 2) stale.push(k.anchorSnapshot(Number(older[i])));
      if (stale.length) await this.redis.del(...stale);
    }
    return done;
  }

  /** Commits with `entryCount > after`, oldest first. */
  async commits(after: number, limit: number): Promise<CommitRecord[]> {
    const raw = await this.redis.zrangebyscore(this.keys.anchorCommits(), `(${after}`, '+inf', 'LIMIT', 0, limit);
    return raw.map((r) => JSON.parse(r) as CommitRecord);
  }

  /** The commit of exactly this size, if any. */
  async commitAt(entryCount: number): Promise<CommitRecord | null> {
    const raw = await this.redis.zrangebyscore(this.keys.anchorCommits(), entryCount, entryCount);
    return raw[0] ? (JSON.parse(raw[0]) as CommitRecord) : null;
  }

  /** The first commit covering entry `index` (the smallest size above it). */
  async commitCovering(index: number): Promise<CommitRecord | null> {
    return (await this.commits(index, 1))[0] ?? null;
  }

  async latestCommit(): Promise<CommitRecord | null> {
    const raw = await this.redis.zrevrange(this.keys.anchorCommits(), 0, 0);
    return raw[0] ? (JSON.parse(raw[0]) as CommitRecord) : null;
  }

  async liability(epoch: number, wallet: string): Promise<bigint | null> {
    const v = await this.redis.hget(this.keys.anchorSnapshot(epoch), wallet);
    return v === null ? null : BigInt(v);
  }

  async snapshotOf(epoch: number): Promise<Map<string, bigint>> {
    const raw = await this.redis.hgetall(this.keys.anchorSnapshot(epoch));
    return new Map(Object.entries(raw).map(([w, v]) => [w, BigInt(v)]));
  }

  /**
   * Fills receipts of one batch and moves the fill cursor in the same transaction, so a crash
   * between batches resumes exactly where it stopped.
   */
  async fillBatch(anchors: { receiptId: string; anchorJson: string }[], filledTo: number): Promise<void> {
    const keys = [this.keys.anchor()];
    const args: string[] = [String(filledTo)];
    for (const a of anchors) {
      keys.push(this.keys.receipt(a.receiptId));
      args.push(a.anchorJson);
    }
    await this.scripts.fillAnchors(keys, args);
    for (const a of anchors) {
      this.#anchorsForArchive.put(a.receiptId, a.anchorJson);
      this.#anchorsForBundles.put(a.receiptId, a.anchorJson);
    }
  }

  /** The bet log's size, how far it is committed and filled, and why anchoring halted (if it did). */
  async progress(): Promise<{
    logSize: number;
    committedSize: number;
    filledSize: number;
    halted: string | null;
    pending: boolean;
    stateTree: StateTreeCost | null;
  }> {
    const [state, logSize, pending] = await Promise.all([
      this.redis.hmget(this.keys.anchor(), 'committedSize', 'filled', 'halted', 'stateTreeAt', 'stateTreeBusyMs'),
      this.redis.llen(this.keys.betLog()),
      this.redis.exists(this.keys.anchorPending()),
    ]);
    return {
      logSize,
      committedSize: Number(state[0] ?? 0),
      filledSize: Number(state[1] ?? 0),
      halted: state[2] || null,
      pending: pending === 1,
      stateTree: stateTreeCostOf(state[3], state[4]),
    };
  }

  /** The last commit's state tree, as any worker built it; null before the first. */
  async stateTree(): Promise<StateTreeCost | null> {
    const [at, busyMs] = await this.redis.hmget(this.keys.anchor(), 'stateTreeAt', 'stateTreeBusyMs');
    return stateTreeCostOf(at, busyMs);
  }

  async setStateTree(cost: StateTreeCost): Promise<void> {
    await this.redis.hset(this.keys.anchor(), 'stateTreeAt', String(cost.at), 'stateTreeBusyMs', String(cost.busyMs));
  }

  async halted(): Promise<string | null> {
    return (await this.redis.hget(this.keys.anchor(), 'halted')) || null;
  }

  /** Stops anchoring until an operator clears the `halted` field of the anchor hash after repair. */
  async halt(reason: string): Promise<void> {
    await this.redis.hset(this.keys.anchor(), 'halted', reason);
  }

  /**
   * Stops anchoring because the log no longer holds the chain's newest commit as a prefix; readiness reports it
   * (every API process reads it here) until a start or a recovery finds the log whole again.
   */
  async refuseFork(reason: string): Promise<void> {
    await this.redis.hset(this.keys.anchor(), 'halted', reason, 'fork', reason);
  }

  /** Why anchoring refuses to fork the log, or null. */
  async forkRefusal(): Promise<string | null> {
    return (await this.redis.hget(this.keys.anchor(), 'fork')) || null;
  }

  /** Lifts a fork refusal once the log was found whole again (a halt for another reason stays). */
  async clearForkRefusal(): Promise<void> {
    const [halted, fork] = await this.redis.hmget(this.keys.anchor(), 'halted', 'fork');
    if (!fork) return;
    if (halted === fork) await this.redis.hdel(this.keys.anchor(), 'halted', 'fork');
    else await this.redis.hdel(this.keys.anchor(), 'fork');
  }

  /** Bet-log items `<leafHashHex>:<receiptId>` in [from, to). */
  async logItems(from: number, to: number): Promise<string[]> {
    return to > from ? this.redis.lrange(this.keys.betLog(), from, to - 1) : [];
  }

  async logSize(): Promise<number> {
    return this.redis.llen(this.keys.betLog());
  }

  /**
   * The stored bodies of these receipts, as bytes (null where none), in order; a failed read throws. Every body the
   * anchor's check reads here is kept for the receipt bundles, which the worker writes once the fill has filled their
   * anchors; the entry text read with it, for the full tiles.
   */
  async receiptBodies(receiptIds: readonly string[]): Promise<(Buffer | null)[]> {
    const out = receiptIds.map((id) => this.#bodiesForAnchor.take(id) ?? null);
    const missing = receiptIds.flatMap((_, i) => (out[i] === null ? [i] : []));
    if (missing.length > 0) {
      const pipeline = this.redis.pipeline();
      for (const i of missing) pipeline.hmgetBuffer(this.keys.receipt(receiptIds[i] as string), 'body', 'entry');
      (await pipelineReplies(pipeline)).forEach((r, j) => {
        const i = missing[j] as number;
        const [body, entry] = r as (Buffer | null)[];
        if (!body) return;
        out[i] = body;
        this.#bodiesForArchive.put(receiptIds[i] as string, body);
        this.#keepEntry(receiptIds[i] as string, entry);
      });
    }
    out.forEach((body, i) => {
      if (body !== null) this.#bodiesForBundles.put(receiptIds[i] as string, body);
    });
    return out;
  }

  /**
   * The entry texts the anchor's check or the archiver read with the bodies, as bytes, or undefined where none was
   * kept: the full tiles then read it from Redis. Each is handed over once.
   */
  takeTileEntries(receiptIds: readonly string[]): (Buffer | undefined)[] {
    return receiptIds.map((id) => this.#entriesForTiles.take(id));
  }

  // An empty entry is none: the tiles rebuild it from the body, as they do for a receipt stored before entries were.
  #keepEntry(receiptId: string, entry: Buffer | null | undefined): void {
    if (entry && entry.length > 0) this.#entriesForTiles.put(receiptId, entry);
  }

  /**
   * The body and the filled anchor of each of these receipts, as the anchor's check read the one and the fill wrote the
   * other, or undefined where either was not kept: the receipt bundles then read it from Redis. Each is handed over once.
   */
  takeBundleFields(receiptIds: readonly string[]): (ReceiptFields | undefined)[] {
    return receiptIds.map((id) => {
      const body = this.#bodiesForBundles.take(id);
      const anchor = this.#anchorsForBundles.take(id);
      return body === undefined || anchor === undefined ? undefined : { body, anchor };
    });
  }

  /**
   * One stored field of these receipts as bytes (null where absent), in order: the archive copies them as they are. A
   * body the anchor's check has read, or an anchor the fill has written, is taken from what was kept; a body read here
   * is kept for the check, and the entry text read with it for the full tiles.
   */
  async receiptFieldBytes(receiptIds: readonly string[], field: 'body' | 'anchor'): Promise<(Buffer | null)[]> {
    const body = field === 'body';
    const out = receiptIds.map((id): Buffer | null => {
      if (body) return this.#bodiesForArchive.take(id) ?? null;
      const anchor = this.#anchorsForArchive.take(id);
      return anchor === undefined ? null : Buffer.from(anchor, 'utf8');
    });
    const missing = receiptIds.flatMap((_, i) => (out[i] === null ? [i] : []));
    if (missing.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const i of missing) {
      if (body) pipeline.hmgetBuffer(this.keys.receipt(receiptIds[i] as string), 'body', 'entry');
      else pipeline.hgetBuffer(this.keys.receipt(receiptIds[i] as string), field);
    }
    (await pipelineReplies(pipeline)).forEach((r, j) => {
      const i = missing[j] as number;
      const [value, entry] = body ? (r as (Buffer | null)[]) : [r as Buffer | null];
      if (!value) return;
      out[i] = value;
      if (!body) return;
      this.#bodiesForAnchor.put(receiptIds[i] as string, value);
      this.#keepEntry(receiptIds[i] as string, entry);
    });
    return out;
  }

  /** The bet-log Merkle tree as persisted (extend it with `extendTo`). */
  loadTree(): Promise<BetLogTree> {
    return BetLogTree.load(this.redis, this.keys);
  }

  /** Entries the persisted tree covers. */
  treeSize(): Promise<number> {
    return persistedTreeSize(this.redis, this.keys);
  }

  /** The root of the first `size` entries as the persisted tree's nodes give it, hex. */
  async treeRoot(size: number): Promise<string> {
    return toHex(await readTreeRoot(this.redis, this.keys, size));
  }

  /** The RFC 6962 consistency proof between two sizes of the persisted tree. */
  consistencyProof(size1: number, size2: number): Promise<Uint8Array[]> {
    return readConsistencyProof(this.redis, this.keys, size1, size2);
  }

  /** When the receipt of the entry at `index` was created, if it can be read. */
  async entryCreatedAt(index: number): Promise<string | null> {
    const item = await this.redis.lindex(this.keys.betLog(), index);
    const body = item ? await this.redis.hget(this.keys.receipt(item.slice(65)), 'body') : null;
    try {
      return body ? ((JSON.parse(body) as { createdAt?: string }).createdAt ?? null) : null;
    } catch {
      return null;
    }
  }

  async setLastError(message: string | null): Promise<void> {
    if (message === null) await this.redis.hdel(this.keys.anchor(), 'lastError');
    else await this.redis.hset(this.keys.anchor(), 'lastError', message.slice(0, 1000));
  }
}

function stateTreeCostOf(at: string | null | undefined, busyMs: string | null | undefined): StateTreeCost | null {
  const cost = { at: Number(at), busyMs: Number(busyMs) };
  return at && busyMs && Number.isFinite(cost.at) && Number.isFinite(cost.busyMs) ? cost : null;
}
