// Anchoring state in Redis: the committed size, the one pending commit, published commits, liability snapshots.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { PublishedCommit } from '../protocol/verify/log.ts';

/** The memo fields every commit carries, as the verifier reads them. */
type CommitFields = Omit<PublishedCommit, 'commitId' | 'signature'>;

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
}

// One script, so the log size, the disclosed RNG index, the latest manifest and every liability are
// read at the same instant. Player keys are derived here: the ledger runs on one Redis primary.
const SNAPSHOT = `
local committed = tonumber(redis.call('HGET', KEYS[5], 'committedSize') or '0')
local size = redis.call('LLEN', KEYS[1])
local count = math.min(size, committed + tonumber(ARGV[2]))
local rng = redis.call('HMGET', KEYS[3], 'chainId', 'head', 'disclosed')
local out = {tostring(committed), tostring(count), tostring(size), rng[1] or '', rng[2] or '', rng[3] or '0', redis.call('HGET', KEYS[4], 'latest') or ''}
for _, w in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local p = redis.call('HMGET', ARGV[1] .. ':{' .. w .. '}:player', 'balance', 'staked', 'pendingWithdrawals')
  out[#out + 1] = w
  out[#out + 1] = p[1] or '0'
  out[#out + 1] = p[2] or '0'
  out[#out + 1] = p[3] or '0'
end
return out`;

// Claims the pending slot: only one commit may extend a given committed size, and only one at a time.
const CLAIM = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'committedSize') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'json', ARGV[2])
redis.call('DEL', KEYS[3])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
return 1`;

const UPDATE_PENDING = `
local cur = redis.call('HGET', KEYS[1], 'json')
if not cur or cjson.decode(cur).entryCount ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2])
return 1`;

// Confirmation: the commit becomes part of the record and the pending slot is freed, in one step.
const FINALIZE = `
local cur = redis.call('HGET', KEYS[2], 'json')
if not cur or cjson.decode(cur).entryCount ~= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'committedSize', ARGV[1], 'latestEpoch', ARGV[1])
redis.call('DEL', KEYS[2])
return 1`;

export class AnchorStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
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

  async snapshot(maxEntries: number): Promise<LedgerSnapshot> {
    const k = this.keys;
    const r = (await this.redis.eval(SNAPSHOT, 5, k.betLog(), k.wallets(), k.rng(), k.manifest(), k.anchor(), k.prefix, maxEntries)) as string[];
    const liabilities = new Map<string, bigint>();
    for (let i = 7; i < r.length; i += 4) {
      liabilities.set(r[i] as string, BigInt(r[i + 1] as string) + BigInt(r[i + 2] as string) + BigInt(r[i + 3] as string));
    }
    return {
      committedSize: Number(r[0]),
      entryCount: Number(r[1]),
      logSize: Number(r[2]),
      rngChainId: r[3] ? Number(r[3]) : null,
      rngHead: r[4] || null,
      disclosed: Number(r[5] || 0),
      latestManifest: r[6] || null,
      liabilities,
    };
  }

  /**
   * Stores the signed commit and its liability snapshot before anything is sent.
   * @returns false when another commit holds the slot or the committed size moved
   */
  async claim(pending: PendingCommit, liabilities: Map<string, bigint>): Promise<boolean> {
    const k = this.keys;
    const args: string[] = [];
    for (const [wallet, amount] of liabilities) args.push(wallet, amount.toString());
    const snapshotKey = k.anchorSnapshot(pending.entryCount);
    const r = await this.redis.eval(CLAIM, 3, k.anchor(), k.anchorPending(), snapshotKey, pending.from, JSON.stringify(pending), ...args);
    return r === 1;
  }

  /** Replaces the stored transaction of the pending commit (a re-signed one after its blockhash expired). */
  async updatePending(pending: PendingCommit): Promise<boolean> {
    return (await this.redis.eval(UPDATE_PENDING, 1, this.keys.anchorPending(), pending.entryCount, JSON.stringify(pending))) === 1;
  }

  async finalize(record: CommitRecord): Promise<boolean> {
    const k = this.keys;
    const done = (await this.redis.eval(FINALIZE, 3, k.anchor(), k.anchorPending(), k.anchorCommits(), record.entryCount, JSON.stringify(record))) === 1;
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
    const multi = this.redis.multi();
    for (const a of anchors) multi.hset(this.keys.receipt(a.receiptId), 'anchor', a.anchorJson);
    multi.hset(this.keys.anchor(), 'filled', String(filledTo));
    await multi.exec();
  }

  async setLastError(message: string | null): Promise<void> {
    if (message === null) await this.redis.hdel(this.keys.anchor(), 'lastError');
    else await this.redis.hset(this.keys.anchor(), 'lastError', message.slice(0, 1000));
  }
}
