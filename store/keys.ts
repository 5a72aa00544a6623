// Redis key names. Per-wallet keys share the wallet's hash tag; the ledger runs on one primary (design §3).

/** The BullMQ queues of the worker role (under `queuePrefix()`); metrics report the depth of each. */
export const QUEUE_NAMES = ['anchor', 'manifest'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export class Keys {
  constructor(readonly prefix: string) {}

  player = (wallet: string) => `${this.prefix}:{${wallet}}:player`;
  sessionKeys = (wallet: string) => `${this.prefix}:{${wallet}}:keys`;
  pendingBets = (wallet: string) => `${this.prefix}:{${wallet}}:pending`;
  activeTicket = (wallet: string) => `${this.prefix}:{${wallet}}:ticket`;
  recentPlays = (wallet: string, game: 'dice' | 'sweeper') => `${this.prefix}:{${wallet}}:recent:${game}`;
  withdrawals = (wallet: string) => `${this.prefix}:{${wallet}}:withdrawals`;

  prepared = (betPayloadHash: string) => `${this.prefix}:prep:${betPayloadHash}`;
  bet = (betPayloadHash: string) => `${this.prefix}:bet:${betPayloadHash}`;
  recoverySeed = (betPayloadHash: string) => `${this.prefix}:recovery:${betPayloadHash}`;
  ticket = (ticketId: string) => `${this.prefix}:ticket:${ticketId}`;
  receipt = (receiptId: string) => `${this.prefix}:receipt:${receiptId}`;

  challenge = (nonce: string) => `${this.prefix}:challenge:${nonce}`;
  token = (tokenHash: string) => `${this.prefix}:token:${tokenHash}`;

  readonly house = () => `${this.prefix}:house`;
  readonly wallets = () => `${this.prefix}:wallets`;
  readonly aliases = () => `${this.prefix}:aliases`;
  readonly commitments = () => `${this.prefix}:commitments`;
  readonly deadlines = () => `${this.prefix}:deadlines`;
  readonly rng = () => `${this.prefix}:rng`;
  readonly journal = () => `${this.prefix}:journal`;
  readonly journalSeq = () => `${this.prefix}:journal:seq`;
  readonly betLog = () => `${this.prefix}:betlog`;
  readonly appliedChainItems = () => `${this.prefix}:chain:applied`;
  readonly watchedWallets = () => `${this.prefix}:chain:watch`;
  checkpoint = (address: string) => `${this.prefix}:chain:checkpoint:${address}`;
  readonly indexerLease = () => `${this.prefix}:indexer:leader`;
  readonly playsChannel = () => `${this.prefix}:plays`;
  readonly meta = () => `${this.prefix}:meta`;
  heartbeat = (role: string) => `${this.prefix}:heartbeat:${role}`;

  // Anchoring: the bet-log tree, commits, the pending commit, liability snapshots, manifests.
  betLogNodes = (level: number) => `${this.prefix}:betlog:nodes:${level}`;
  readonly betLogTree = () => `${this.prefix}:betlog:tree`;
  readonly anchor = () => `${this.prefix}:anchor`;
  readonly anchorPending = () => `${this.prefix}:anchor:pending`;
  readonly anchorCommits = () => `${this.prefix}:anchor:commits`;
  anchorSnapshot = (epoch: number) => `${this.prefix}:anchor:state:${epoch}`;
  readonly manifest = () => `${this.prefix}:manifest`;
  readonly manifests = () => `${this.prefix}:manifests`;
  readonly manifestsBySeq = () => `${this.prefix}:manifests:by-seq`;
  /** BullMQ key prefix, so each deployment (and test) has its own queues. */
  readonly queuePrefix = () => `${this.prefix}:bull`;
}
