/**
 * Anchors the bet log on-chain: one commit memo per batch, signed by the anchor key alone, then every
 * covered receipt's `anchor` filled with its inclusion proof.
 *
 * Crash safety: the signed transaction is stored (the pending commit) before it is sent; a pending
 * commit is reconciled from the chain (its known signatures, then the anchor key's own history) before
 * anything is re-sent, and re-signed with the same memo only once its blockhash has expired. Receipts
 * are filled only after confirmation, in batches that move a durable cursor. So a restart at any point
 * neither skips an entry nor commits one twice, and no receipt names a root that is not on-chain.
 *
 * Never a fork (design §13): at start the newest commit of the anchor key is read from the chain (a bounded scan),
 * and before every commit the log must still hold it — and every commit this worker made since — as a prefix.
 * @module
 */
import { address, signature as toSignature, type Signature } from '@solana/kit';
import type { Logger } from 'pino';
import type { SolanaRpc } from '../chain/rpc.ts';
import { newestOperatorCommit } from '../chain/operator-history.ts';
import { StartupError } from '../config/startup.ts';
import { assertLogExtends, LedgerForkError, type TrustedCommit } from '../transparency/log-guard.ts';
import { memoInstruction } from '../chain/memo.ts';
import { confirmSignature, sendWire, signInstructions } from '../chain/send.ts';
import type { ExplorerLinks } from '../protocol/explorer.ts';
import type { OperatorKey } from '../operator/keys.ts';
import { commitMemo } from '../protocol/memo.ts';
import { NO_MANIFEST_HASH } from '../protocol/manifest.ts';
import { inclusionProof } from '../protocol/merkle.ts';
import type { MerkleLog } from '../protocol/merkle-log.ts';
import { toHex } from '../protocol/encoding.ts';
import { LIABILITY_SLICE_HASHES, liabilityTreeSteps, type LiabilityTree } from '../protocol/liabilities.ts';
import type { StateTrees } from '../funding/state-proof.ts';
import { inTurns } from '../operator/in-turns.ts';
import { LEAF_KEY, anchorLeafHexOf, type ReceiptAnchor } from '../protocol/receipt.ts';
import { commitMemosOf, type RpcTransaction } from '../protocol/verify/chain.ts';
import type { AnchorStore, CommitRecord, PendingCommit, StateTreeCost } from '../store/anchor-store.ts';
import { type BetLogTree, InvalidEntryError, parseBetLogItem } from '../store/anchor-tree.ts';
import type { TransparencyStore } from '../store/transparency.ts';
import type { ReplicationBarrier } from '../store/replication.ts';
import { signLatestCheckpoint } from './checkpoint.ts';
import { cosignLatest, type WitnessConfig } from '../transparency/witnesses.ts';

/** Points where tests stop the worker, to prove a restart from each is safe. */
export interface AnchorHooks {
  beforeSend?(pending: PendingCommit): Promise<void>;
  afterSend?(pending: PendingCommit): Promise<void>;
  beforeFinalize?(pending: PendingCommit): Promise<void>;
  afterFillBatch?(filledTo: number): Promise<void>;
}

const HISTORY_PAGE = 100;

/** A state tree whose hashing takes less holds no commit back: at a few hundred wallets its share is nothing to pace. */
export const STATE_TREE_PACING_MIN_MS = 10;

/**
 * Until when (epoch ms) a commit's state tree holds the next commit back; 0 when it holds nothing. Each commit builds its
 * tree anew (design §4 salts every leaf per epoch): 13–20 µs of hashing a wallet, 1.5–2 s at 100,000 wallets, which at
 * a commit a second would take a core from play. So the next commit waits until that hashing is at most
 * `cpuPercent` of the time since it began, and covers every entry settled by then (past `maxEntries`, or anchoring
 * would fall behind play for good): anchoring slows as wallets grow, play does not.
 */
export function stateTreeHoldsUntil(last: StateTreeCost | null, cpuPercent: number): number {
  if (!last || last.busyMs < STATE_TREE_PACING_MIN_MS) return 0;
  return last.at + last.busyMs * (100 / cpuPercent - 1);
}

export interface AnchorerDeps {
  store: AnchorStore;
  rpc: SolanaRpc;
  /** The anchor key: it alone signs the commit memos. */
  anchorKey: OperatorKey;
  /** s_index of an operator RNG chain (the commit discloses the highest index already revealed). */
  rngValue: (chainId: number, index: number) => string;
  /** State-tree salts derive from it. */
  saltSecret: Uint8Array;
  links: ExplorerLinks;
  clock: () => Date;
  logger: Logger;
  /** Entries per commit at most (ANCHOR_MAX_ENTRIES). */
  maxEntries: number;
  /** Receipts are filled only once a commit reached this commitment (finalized in production). */
  commitment: 'confirmed' | 'finalized';
  /** Where the C2SP checkpoint of each commit, signed by the anchor key, is stored, and its origin line. */
  checkpoints: { store: TransparencyStore; origin: string; witnesses?: readonly WitnessConfig[]; fetch?: typeof fetch };
  /** The entries a commit covers, and the pending commit itself, are on the replicas before it is sent. */
  replication: ReplicationBarrier;
  /** Keeps each claimed commit's state tree, from which the API serves state proofs without building it again. */
  stateTrees?: Pick<StateTrees, 'keep'>;
  /**
   * Most of one core, in percent, that building the commits' state trees may take (STATE_TREE_CPU_PERCENT).
   * @defaultValue 100
   */
  stateTreeCpuPercent?: number;
}

export interface AnchorerOptions {
  hooks?: AnchorHooks;
  /**
   * Receipts filled per atomic step of the fill cursor.
   * @defaultValue 500
   */
  fillBatch?: number;
}

export class Anchorer {
  readonly store: AnchorStore;
  readonly hooks: AnchorHooks;
  readonly #fillBatch: number;
  #tree: BetLogTree | null = null;
  /** The newest commit known to be on-chain: read at start, then each one this worker lands. */
  #trusted: TrustedCommit | null = null;

  constructor(
    readonly deps: AnchorerDeps,
    options: AnchorerOptions = {},
  ) {
    this.store = deps.store;
    this.hooks = options.hooks ?? {};
    this.#fillBatch = options.fillBatch ?? 500;
  }

  get #log() {
    return this.deps.logger;
  }

  async #treeAt(size: number): Promise<BetLogTree> {
    if (!this.#tree) this.#tree = await this.store.loadTree();
    await this.#tree.extendTo(size);
    return this.#tree;
  }

  /** Until when (epoch ms) the last commit's state tree (`AnchorStore.stateTree`) holds the next commit back; 0 when it holds nothing. */
  heldBackUntil(last: StateTreeCost | null): number {
    return stateTreeHoldsUntil(last, this.deps.stateTreeCpuPercent ?? 100);
  }

  /** The commit this worker holds the log to. */
  get trusted(): TrustedCommit | null {
    return this.#trusted;
  }

  /**
   * At start: reads the anchor key's newest commit from the chain and checks that the log holds it.
   * @throws {LedgerForkError} when it does not (a ledger behind the chain)
   * @throws {StartupError} when the chain cannot be read
   */
  async checkChain(): Promise<void> {
    const { rpc, anchorKey } = this.deps;
    let newest: Awaited<ReturnType<typeof newestOperatorCommit>>;
    try {
      newest = await newestOperatorCommit(rpc, anchorKey.publicKey);
    } catch (err) {
      throw new StartupError(
        `cannot read the anchor key's commits from the chain to check the bet log against them (${(err as Error).message}); check the RPC`,
      );
    }
    if (newest) this.#trusted = { entryCount: newest.entryCount, betLogRoot: newest.betLogRoot, signature: newest.signature };
    else {
      // Older than the bounded scan reaches: the ledger's own newest record is the best evidence left.
      const recorded = await this.store.latestCommit();
      this.#trusted = recorded ? { entryCount: recorded.entryCount, betLogRoot: recorded.betLogRoot, signature: recorded.signature } : null;
    }
    await this.assertLogWhole();
  }

  /**
   * The log must hold the trusted commit as a prefix, by the worker's own tree and by the nodes in Redis.
   * @throws {LedgerForkError} when it does not
   */
  async assertLogWhole(): Promise<void> {
    // A tree ahead of the one persisted means Redis went back under this worker: read it again from Redis.
    if (this.#tree && this.#tree.size > (await this.store.treeSize())) this.#tree = null;
    await assertLogExtends(
      {
        size: () => this.store.logSize(),
        roots: async (size) => {
          const tree = await this.#treeAt(size);
          return [toHex(tree.log.root(size)), await this.store.treeRoot(size)];
        },
      },
      this.#trusted,
      this.deps.anchorKey.publicKey,
    );
  }

  /**
   * One pass: finishes a pending commit, fills receipts, then commits what the log holds beyond the
   * committed size (at most ANCHOR_MAX_ENTRIES entries).
   * @returns the committed size after the pass
   * @throws {InvalidEntryError} when a log entry can never be anchored
   */
  async run(): Promise<number> {
    await this.assertLogWhole();
    const pending = await this.store.pending();
    if (pending) await this.#complete(pending);
    await this.fill();
    if (await this.#commitNew()) await this.fill();
    const { checkpoints, anchorKey } = this.deps;
    await signLatestCheckpoint({ anchorStore: this.store, transparency: checkpoints.store, anchorKey, origin: checkpoints.origin });
    await cosignLatest({
      transparency: checkpoints.store,
      consistencyProof: (a, b) => this.store.consistencyProof(a, b),
      witnesses: checkpoints.witnesses ?? [],
      logger: this.#log,
      ...(checkpoints.fetch ? { fetch: checkpoints.fetch } : {}),
    });
    const committed = await this.store.committedSize();
    // Tiles the API cannot find as files it computes and stores itself: a failed write delays nothing.
    await checkpoints.store
      .writeFullTiles(committed, (ids) => this.store.takeTileEntries(ids))
      .catch((err: unknown) => this.#log.warn({ err, committed }, 'anchor: full tiles not written'));
    // Receipt bundles once their anchors are filled: the API's main per-entry cost when built per request.
    const filled = Math.min(committed, await this.store.filledSize());
    await checkpoints.store
      .writeReceiptBundles(filled, (ids) => this.store.takeBundleFields(ids))
      .catch((err: unknown) => this.#log.warn({ err, filled }, 'anchor: receipt bundles not written'));
    return committed;
  }

  async #commitNew(): Promise<boolean> {
    const { deps } = this;
    // Here as well as in the scheduler: a job queued for the fill of the last commit must not commit early either.
    const heldBackUntil = this.heldBackUntil(await this.store.stateTree());
    if (Date.now() < heldBackUntil) return false;
    // A commit the state tree held back takes every entry: it came later than maxEntries alone would have had it.
    const snap = await this.store.snapshot(heldBackUntil > 0 ? Number.MAX_SAFE_INTEGER : deps.maxEntries);
    const from = snap.committedSize;
    const entryCount = snap.entryCount;
    if (entryCount <= from) {
      await this.store.discard(snap);
      return false;
    }
    const trusted = this.#trusted;
    if (trusted && from < trusted.entryCount) {
      // The ledger records fewer commits than this worker knows are on-chain: it went back under the worker.
      throw new LedgerForkError({ anchorKey: deps.anchorKey.publicKey, ledgerSize: from, ledgerRoot: await this.store.treeRoot(from), chain: trusted });
    }
    const tree = await this.#treeAt(entryCount);
    await this.#checkReceipts(from, entryCount);
    if (!snap.rngHead || snap.rngChainId === null) throw new Error('no RNG chain is committed yet');
    const rngReveal = snap.disclosed > 0 ? deps.rngValue(snap.rngChainId, snap.disclosed) : snap.rngHead;
    let state: LiabilityTree;
    const busy = { ms: 0 };
    try {
      state = await inTurns(liabilityTreeSteps(deps.saltSecret, entryCount, snap.liabilities, LIABILITY_SLICE_HASHES), busy);
    } catch (err) {
      throw new InvalidEntryError(`the liability snapshot cannot form a state tree: ${(err as Error).message}`);
    }
    // Measured with the turns between slices left out; kept in the ledger for every worker process.
    await this.store.setStateTree({ at: Date.now(), busyMs: busy.ms });
    const fields = {
      entryCount,
      betLogRoot: toHex(tree.log.root(entryCount)),
      stateRoot: toHex(state.tree.root),
      totalLiabilities: state.tree.total,
      rngIndex: snap.disclosed,
      rngRevealHex: rngReveal,
      manifestHash: snap.latestManifest ?? NO_MANIFEST_HASH,
    };
    const memo = commitMemo(fields);
    const signed = await signInstructions(deps.rpc, deps.anchorKey.signer, [memoInstruction(memo, [deps.anchorKey.signer])]);
    const pending: PendingCommit = {
      from,
      entryCount,
      memo,
      betLogRoot: fields.betLogRoot,
      stateRoot: fields.stateRoot,
      totalLiabilities: fields.totalLiabilities.toString(),
      rngIndex: fields.rngIndex,
      rngReveal,
      manifestHash: fields.manifestHash,
      signature: signed.signature,
      wire: signed.wire,
      lastValidBlockHeight: signed.lastValidBlockHeight.toString(),
      signatures: [signed.signature],
      createdAt: deps.clock().toISOString(),
    };
    if (!(await this.store.claim(pending, snap))) {
      this.#log.info({ entryCount }, 'anchor: another commit holds the slot');
      return false;
    }
    deps.stateTrees?.keep(entryCount, state);
    await this.#sendAndFinalize(pending);
    return true;
  }

  /** Every new entry must name a stored receipt that carries the same leaf hash. */
  async #checkReceipts(from: number, to: number): Promise<void> {
    for (let start = from; start < to; start += this.#fillBatch) {
      const items = await this.store.logItems(start, Math.min(to, start + this.#fillBatch));
      const parsed = items.map((item, i) => parseBetLogItem(item, start + i));
      const bodies = await this.store.receiptBodies(parsed.map((p) => p.receiptId));
      parsed.forEach((p, i) => {
        const body = bodies[i];
        if (!body) throw new InvalidEntryError(`bet-log entry ${start + i} names receipt ${p.receiptId}, which does not exist`);
        if (storedLeafHexOf(body) !== p.leafHex) throw new InvalidEntryError(`bet-log entry ${start + i} does not match receipt ${p.receiptId}`);
      });
    }
  }

  async #sendAndFinalize(pending: PendingCommit): Promise<void> {
    // A failover must not take back entries the chain commits (nor the pending commit that reconciles it): the
    // barrier comes after both were written; if it fails, the pending commit is sent by a later pass.
    await this.deps.replication.confirm();
    await this.hooks.beforeSend?.(pending);
    try {
      await sendWire(this.deps.rpc, pending.wire);
    } catch (err) {
      // It may have landed anyway: the confirmation (or the next reconciliation) decides.
      this.#log.warn({ err, entryCount: pending.entryCount }, 'anchor: send failed; confirming or reconciling');
    }
    await this.hooks.afterSend?.(pending);
    // The same bytes again until they land or expire; once expired, the next pass signs the same memo afresh.
    const { slot } = await confirmSignature(this.deps.rpc, pending.signature as Signature, {
      commitment: this.deps.commitment,
      timeoutMs: 90_000,
      resend: {
        wire: pending.wire,
        lastValidBlockHeight: BigInt(pending.lastValidBlockHeight),
        onError: (err) => this.#log.debug({ err, entryCount: pending.entryCount }, 'anchor: re-send failed'),
      },
    });
    await this.#finalize(pending, pending.signature, Number(slot));
  }

  async #finalize(pending: PendingCommit, signature: string, slot: number): Promise<void> {
    await this.hooks.beforeFinalize?.(pending);
    const record: CommitRecord = {
      commitId: `commit-${pending.entryCount}`,
      entryCount: pending.entryCount,
      previousEntryCount: pending.from,
      betLogRoot: pending.betLogRoot,
      stateRoot: pending.stateRoot,
      totalLiabilities: pending.totalLiabilities,
      rngIndex: pending.rngIndex,
      rngReveal: pending.rngReveal,
      manifestHash: pending.manifestHash,
      memo: pending.memo,
      signature,
      slot,
      committedAt: this.deps.clock().toISOString(),
    };
    if (await this.store.finalize(record)) {
      this.#log.info({ entryCount: record.entryCount, signature }, 'anchor: bet log committed on-chain');
    }
    if (!this.#trusted || record.entryCount >= this.#trusted.entryCount) {
      this.#trusted = { entryCount: record.entryCount, betLogRoot: record.betLogRoot, signature };
    }
  }

  /** Finishes a commit left pending by a crash or a failed attempt. */
  async #complete(pending: PendingCommit): Promise<void> {
    const landed = await this.#reconcile(pending);
    if (landed) return this.#finalize(pending, landed.signature, landed.slot);
    const { rpc, anchorKey } = this.deps;
    const height = await rpc.getBlockHeight({ commitment: 'confirmed' }).send();
    let current = pending;
    // Past its blockhash's life (or failed) no earlier signature can land any more: the same memo is signed afresh.
    if (height > BigInt(pending.lastValidBlockHeight) || (await this.#failed(pending.signature))) {
      const signed = await signInstructions(rpc, anchorKey.signer, [memoInstruction(pending.memo, [anchorKey.signer])]);
      current = {
        ...pending,
        signature: signed.signature,
        wire: signed.wire,
        lastValidBlockHeight: signed.lastValidBlockHeight.toString(),
        signatures: [...pending.signatures, signed.signature],
      };
      if (!(await this.store.updatePending(current))) return;
      this.#log.warn({ entryCount: current.entryCount, signature: current.signature }, 'anchor: re-signed a commit whose transaction can no longer land');
    }
    await this.#sendAndFinalize(current);
  }

  async #landed(signature: string): Promise<{ signature: string; slot: number }> {
    const { slot } = await confirmSignature(this.deps.rpc, signature as Signature, { commitment: this.deps.commitment, timeoutMs: 90_000 });
    return { signature, slot: Number(slot) };
  }

  async #failed(signature: string): Promise<boolean> {
    const { value } = await this.deps.rpc.getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true }).send();
    return Boolean(value[0]?.err);
  }

  /**
   * Finds the pending commit on-chain: by any signature it was sent under, else in the anchor key's
   * history since the last confirmed commit (a memo of the same text).
   * @returns the confirmed landing, or null when it is not on-chain
   */
  async #reconcile(pending: PendingCommit): Promise<{ signature: string; slot: number } | null> {
    const { rpc, anchorKey } = this.deps;
    const { value } = await rpc
      .getSignatureStatuses(
        pending.signatures.map((s) => toSignature(s)),
        { searchTransactionHistory: true },
      )
      .send();
    for (let i = 0; i < pending.signatures.length; i++) {
      const status = value[i];
      // Seen on-chain without error: it will reach the wanted commitment (or fail, and the job retries).
      if (status && !status.err) return this.#landed(pending.signatures[i] as string);
    }
    const previous = await this.store.commitAt(pending.from);
    const known = new Set(pending.signatures);
    let before: Signature | undefined;
    for (;;) {
      const page = await rpc
        .getSignaturesForAddress(address(anchorKey.publicKey), { limit: HISTORY_PAGE, commitment: 'confirmed', ...(before ? { before } : {}) })
        .send();
      for (const info of page) {
        if (previous && info.signature === previous.signature) return null;
        if (info.err !== null || known.has(info.signature)) continue;
        const tx = await rpc.getTransaction(info.signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
        const memos = commitMemosOf(tx as unknown as RpcTransaction, anchorKey.publicKey);
        if (memos.some((m) => m.text === pending.memo)) return this.#landed(info.signature);
        if (memos.some((m) => m.memo.entryCount === pending.entryCount)) {
          throw new InvalidEntryError(`a different commit of size ${pending.entryCount} is on-chain (${info.signature})`);
        }
      }
      if (page.length < HISTORY_PAGE) return null;
      before = page[page.length - 1]!.signature;
    }
  }

  /** Fills the anchor of every receipt below the committed size, from the durable cursor on. */
  async fill(): Promise<void> {
    const { links, anchorKey } = this.deps;
    let filled = await this.store.filledSize();
    const committed = await this.store.committedSize();
    while (filled < committed) {
      const commit = await this.store.commitCovering(filled);
      if (!commit) throw new Error(`no commit covers bet-log entry ${filled}`);
      const tree = await this.#treeAt(commit.entryCount);
      const end = Math.min(commit.entryCount, filled + this.#fillBatch);
      const items = await this.store.logItems(filled, end);
      const proofOf = proofsAt(tree.log, commit.entryCount);
      const anchorJson = committedAnchorJson({
        status: 'committed',
        commitId: commit.commitId,
        commitSignature: commit.signature,
        commitTransactionUrl: links.transaction(commit.signature),
        commitAccount: anchorKey.publicKey,
        commitExplorerUrl: links.account(anchorKey.publicKey),
        betLogRoot: commit.betLogRoot,
        entryCount: commit.entryCount,
        stateRoot: commit.stateRoot,
      });
      const anchors = items.map((item, i) => {
        const index = filled + i;
        const { leafHex, receiptId } = parseBetLogItem(item, index);
        return { receiptId, anchorJson: anchorJson(leafHex, index, proofOf(index)) };
      });
      await this.store.fillBatch(anchors, end);
      filled = end;
      await this.hooks.afterFillBatch?.(filled);
    }
  }
}

const LEAF_KEY_BYTES = Buffer.from(LEAF_KEY);

/**
 * {@link anchorLeafHexOf} of a stored body's UTF-8 bytes, read off the bytes where it reads the text: the key, the quote
 * that ends its value and the backslash it refuses are ASCII, so they sit at the same places in either.
 */
export function storedLeafHexOf(body: Buffer): unknown {
  const at = body.indexOf(LEAF_KEY_BYTES);
  if (at >= 0 && body.indexOf(LEAF_KEY_BYTES, at + 1) < 0) {
    const from = at + LEAF_KEY_BYTES.length;
    const end = body.indexOf(0x22, from);
    const backslash = body.indexOf(0x5c, from);
    if (end > from && (backslash < 0 || backslash > end)) return body.toString('utf8', from, end);
  }
  return anchorLeafHexOf(body.toString('utf8'));
}

/**
 * Hex inclusion proofs at one tree size. Neighbouring receipts' proofs share most of their hashes, and all of them the
 * right edge of the tree at that size, which the log hashes afresh on every request: each range is hashed, and each
 * hash written as hex, once.
 */
export function proofsAt(log: Pick<MerkleLog, 'subtreeHash'>, size: number): (index: number) => string[] {
  const ranges = new Map<string, Uint8Array>();
  const hexes = new Map<Uint8Array, string>();
  const subtree = (start: number, end: number): Uint8Array => {
    const key = `${start}:${end}`;
    let hash = ranges.get(key);
    if (!hash) {
      hash = log.subtreeHash(start, end);
      ranges.set(key, hash);
    }
    return hash;
  };
  const hexOf = (hash: Uint8Array): string => {
    let hex = hexes.get(hash);
    if (hex === undefined) {
      hex = toHex(hash);
      hexes.set(hash, hex);
    }
    return hex;
  };
  return (index) => inclusionProof(index, size, subtree).map(hexOf);
}

/** What a commit fixes in the anchors of the receipts it covers. */
export type CommitAnchorFields = Omit<ReceiptAnchor, 'betLogEntryHash' | 'betLogIndex' | 'betLogProof'>;

/**
 * The text `JSON.stringify` gives each committed receipt's {@link ReceiptAnchor}, with the commit's fields written
 * once: a receipt adds its leaf, its index and its proof, whose hex hashes JSON writes as they are.
 */
export function committedAnchorJson(fixed: CommitAnchorFields): (leafHex: string, index: number, proofHex: readonly string[]) => string {
  const { status, commitId, commitSignature, commitTransactionUrl, commitAccount, commitExplorerUrl, betLogRoot, entryCount, stateRoot } = fixed;
  const head = JSON.stringify({ status, commitId, commitSignature, commitTransactionUrl, commitAccount, commitExplorerUrl });
  const start = `${head.slice(0, -1)},"betLogEntryHash":`;
  const root = `,"betLogRoot":${JSON.stringify(betLogRoot)},"betLogIndex":`;
  const tail = `,"entryCount":${JSON.stringify(entryCount)},"stateRoot":${JSON.stringify(stateRoot)}}`;
  return (leafHex, index, proofHex) => {
    if (!Number.isSafeInteger(index)) throw new RangeError(`bet-log index ${index} is not a safe integer`);
    for (const hex of proofHex) if (!HEX_RE.test(hex)) throw new RangeError('a proof hash is not hex');
    const proof = proofHex.length ? `["${proofHex.join('","')}"]` : '[]';
    return `${start}${JSON.stringify(leafHex)}${root}${index},"betLogProof":${proof}${tail}`;
  };
}

// One regex test a hash, not encoding.ts's isHex: its loop over each character took 3 of the 8 µs a receipt costs.
const HEX_RE = /^[0-9a-f]*$/;
