// Redis key names. Per-wallet keys share the wallet's hash tag; the ledger runs on one primary (design §3).
import type { Address } from '../protocol/address.ts';

/** The BullMQ queues of the worker role (under `queuePrefix()`); metrics report the depth of each. */
export const QUEUE_NAMES = ['anchor', 'manifest'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** The wallet in a script's key list when the item names none: the script never touches that wallet's keys. */
export const NO_WALLET = '-';

export class Keys {
  constructor(readonly prefix: string) {}

  player = (wallet: Address | typeof NO_WALLET) => `${this.prefix}:{${wallet}}:player`;
  sessionKeys = (wallet: Address | typeof NO_WALLET) => `${this.prefix}:{${wallet}}:keys`;
  pendingBets = (wallet: Address) => `${this.prefix}:{${wallet}}:pending`;
  /** The wallet's outstanding prepared bets, oldest first (at most MAX_PREPARED_BETS_PER_WALLET). */
  preparedBets = (wallet: Address) => `${this.prefix}:{${wallet}}:prepared`;
  activeTicket = (wallet: Address) => `${this.prefix}:{${wallet}}:ticket`;
  recentPlays = (wallet: Address, game: 'dice' | 'sweeper') => `${this.prefix}:{${wallet}}:recent:${game}`;
  withdrawals = (wallet: Address) => `${this.prefix}:{${wallet}}:withdrawals`;
  /** The wallet's withdrawals not yet paid nor returned, scored as in `openWithdrawals` (at most MAX_PENDING_WITHDRAWALS_PER_WALLET). */
  walletOpenWithdrawals = (wallet: Address) => `${this.prefix}:{${wallet}}:withdrawals:open`;
  /** `keyHash` is sha256 of the client's Idempotency-Key, so any header text makes a safe key. */
  withdrawalIdempotency = (wallet: Address, keyHash: string) => `${this.prefix}:{${wallet}}:withdrawals:idem:${keyHash}`;
  /** A wallet's LP position as the ledger keeps it: shares and principal at average cost. */
  lpPosition = (wallet: Address) => `${this.prefix}:{${wallet}}:lp`;
  /** The wallet's agent session key, its secret sealed (AES-256-GCM). */
  agentKey = (wallet: Address) => `${this.prefix}:{${wallet}}:agent:key`;
  /** The agent's rolling window: a zset of `<play id>:<stake micro>` scored by commit time, and their running total. */
  agentWagers = (wallet: Address) => `${this.prefix}:{${wallet}}:agent:wagers`;
  agentWagered = (wallet: Address) => `${this.prefix}:{${wallet}}:agent:wagered`;

  prepared = (betPayloadHash: string) => `${this.prefix}:prep:${betPayloadHash}`;
  readonly preparedPrefix = () => `${this.prefix}:prep:`;
  bet = (betPayloadHash: string) => `${this.prefix}:bet:${betPayloadHash}`;
  recoverySeed = (betPayloadHash: string) => `${this.prefix}:recovery:${betPayloadHash}`;
  ticket = (ticketId: string) => `${this.prefix}:ticket:${ticketId}`;
  receipt = (receiptId: string) => `${this.prefix}:receipt:${receiptId}`;
  withdrawal = (id: string) => `${this.prefix}:withdrawal:${id}`;
  lpJob = (jobId: string) => `${this.prefix}:lp:job:${jobId}`;
  /** x402 single-use guard, keyed by the payment transaction's fingerprint. */
  x402Claim = (fingerprint: string) => `${this.prefix}:x402:claim:${fingerprint}`;

  /**
   * The used-nonce set of sign-in challenges, one key per spent nonce (expiring with its challenge): the hash of the
   * token it was spent on, so a re-sent sign-in answers the same.
   */
  challengeUsed = (nonce: string) => `${this.prefix}:challenge-used:${nonce}`;
  /** The rate limit's counters, which every API process leases slots from (store/rate-limit.ts). */
  readonly rateLimit = () => `${this.prefix}:ratelimit:`;
  token = (tokenHash: string) => `${this.prefix}:token:${tokenHash}`;
  /** Pub/sub: the hash of each revoked token, so every API process drops its cached copy (revoke_token.lua). */
  readonly tokenRevocations = () => `${this.prefix}:token-revocations`;

  readonly house = () => `${this.prefix}:house`;
  readonly wallets = () => `${this.prefix}:wallets`;
  readonly aliases = () => `${this.prefix}:aliases`;
  readonly commitments = () => `${this.prefix}:commitments`;
  readonly deadlines = () => `${this.prefix}:deadlines`;
  /** Running Sweeper tickets with no turn in flight, scored by their last activity (ms). */
  readonly idleTickets = () => `${this.prefix}:tickets:idle`;
  /**
   * Withdrawals not yet finalized (nor returned, nor stuck), the keeper's work list in score order: a withdrawal's
   * request time (ms), or later when its wallet has others still open (scripts/request_withdrawal.lua).
   */
  readonly openWithdrawals = () => `${this.prefix}:withdrawals:open`;
  /** Keeper jobs an operator must look at (a transaction landed and failed), by id. */
  readonly stuckKeeperJobs = () => `${this.prefix}:keeper:stuck`;
  /** LP deposits waiting for their shares, FIFO (job ids). */
  readonly lpMintQueue = () => `${this.prefix}:lp:mints`;
  /** LP redemptions waiting to be valued, strictly FIFO (job ids). */
  readonly lpRedeemQueue = () => `${this.prefix}:lp:redeems`;
  /** LP jobs valued but not yet done on-chain (job ids, by when they were valued). */
  readonly lpOpen = () => `${this.prefix}:lp:open`;
  readonly rng = () => `${this.prefix}:rng`;
  readonly journal = () => `${this.prefix}:journal`;
  readonly journalSeq = () => `${this.prefix}:journal:seq`;
  readonly betLog = () => `${this.prefix}:betlog`;
  readonly appliedChainItems = () => `${this.prefix}:chain:applied`;
  readonly watchedWallets = () => `${this.prefix}:chain:watch`;
  checkpoint = (address: string) => `${this.prefix}:chain:checkpoint:${address}`;
  readonly indexerLease = () => `${this.prefix}:indexer:leader`;
  /** Pub/sub: `{"seq":<journal seq of the settle event>,"play":<public play>}` per settled play (settle_turn.lua). */
  /** The one analytics shipper among the worker processes holds this lease. */
  readonly shipperLease = () => `${this.prefix}:analytics:shipper`;
  /** How far receipts and manifests were copied into the ClickHouse archive (bet-log sizes, journal seq). */
  readonly archiveProgress = () => `${this.prefix}:analytics:archive`;
  /** The bet-log size below which settled plays' records were dropped from Redis (store/retention.ts). */
  readonly retention = () => `${this.prefix}:retention`;
  /** The session key that committed each bet whose record was dropped: betPayloadHash → `<wallet>:<sessionPubkey>`. */
  readonly betSessionKeys = () => `${this.prefix}:retention:session-keys`;
  readonly playsChannel = () => `${this.prefix}:plays`;
  readonly meta = () => `${this.prefix}:meta`;
  /** Written before each WAIT, so the WAIT covers every write made before it, on any connection (store/replication.ts). */
  readonly replicationBarrier = () => `${this.prefix}:replication:barrier`;
  heartbeat = (role: string) => `${this.prefix}:heartbeat:${role}`;

  // Anchoring: the bet-log tree, commits, the pending commit, liability snapshots, manifests.
  betLogNodes = (level: number) => `${this.prefix}:betlog:nodes:${level}`;
  readonly betLogTree = () => `${this.prefix}:betlog:tree`;
  readonly anchor = () => `${this.prefix}:anchor`;
  readonly anchorPending = () => `${this.prefix}:anchor:pending`;
  readonly anchorCommits = () => `${this.prefix}:anchor:commits`;
  anchorSnapshot = (epoch: number) => `${this.prefix}:anchor:state:${epoch}`;
  /** A commit's liability snapshot between its copy and its claim (anchor_snapshot.lua, claim_commit.lua). */
  anchorSnapshotDraft = (token: string) => `${this.prefix}:anchor:state-draft:${token}`;
  /** Every wallet's liability, kept by the scripts that move money (store/scripts/_lib.lua add_liability). */
  readonly liabilities = () => `${this.prefix}:liabilities`;
  readonly manifest = () => `${this.prefix}:manifest`;
  readonly manifests = () => `${this.prefix}:manifests`;
  readonly manifestsBySeq = () => `${this.prefix}:manifests:by-seq`;
  /** Signed C2SP checkpoint notes, scored by tree size. */
  readonly betLogCheckpoints = () => `${this.prefix}:betlog:checkpoints`;
  /** Witness name → `{ size, line }`: its newest cosignature of the checkpoint of that size. */
  readonly betLogCosignatures = () => `${this.prefix}:betlog:cosignatures`;
  /** `<role>:<publicKey>` → when the key was first published in the trust root. */
  readonly trustRootKeys = () => `${this.prefix}:trust-root:keys`;
  /** BullMQ key prefix, so each deployment (and test) has its own queues. */
  readonly queuePrefix = () => `${this.prefix}:bull`;
}
