// The named fields of the ledger scripts that take more than a handful: one interface per script, read in Lua with
// `fields()` (scripts/_lib.lua). Each script's KEYS are listed in the header of its `.lua` file.
import type { RestoredBet } from './ledger-restore.ts';

/** A field's value, sent as its decimal or literal text: amounts stay exact, booleans go as '1' and '0'. */
export type FieldValue = string | number | bigint | boolean;

/** Scripts that take named fields; every other script keeps a few positional ARGV. */
export interface ScriptFields {
  applyChainItem: ApplyChainItemFields;
  commitBet: CommitBetFields;
  prepareBet: PrepareBetFields;
  openTicket: OpenTicketFields;
  settleTurn: SettleTurnFields;
  publishManifest: PublishManifestFields;
  lpFixMint: LpFixMintFields;
  lpFixRedeem: LpFixRedeemFields;
  restoreCommit: RestoreCommitFields;
  restoreTicketOpen: RestoreTicketOpenFields;
  restoreRecord: RestoreRecordFields;
}

/**
 * ARGV for named fields: name, value, name, value... A field left undefined is not sent (nil in Lua).
 * Pairs rather than one JSON text, so the documents a script stores verbatim are not rescanned by cjson.decode.
 */
export function packFields(fields: object): string[] {
  const argv: string[] = [];
  for (const [name, value] of Object.entries(fields) as [string, FieldValue | undefined][]) {
    if (value === undefined) continue;
    argv.push(name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  return argv;
}

/** The ledger recovery's archived journal entries a script writes again instead of new ones (journal-records.ts). */
interface Replay {
  /** JSON list of `{id, seq, type, at, data}`; '' or absent for none. */
  replay?: string;
}

/** apply_chain_item.lua: one on-chain fact, applied once. */
export interface ApplyChainItemFields extends Replay {
  itemKey: string;
  kind: string;
  amount: bigint;
  sessionPubkey: string;
  slot: number;
  signature: string;
  at: string;
  alias: string;
  wallet: string;
  jobId: string;
  shares: bigint;
}

/** prepare_bet.lua: what prepare checks, and with `id` the prepared bet, stored when it fits. */
export interface PrepareBetFields {
  sessionPubkey: string;
  commitment: string;
  nonce?: number;
  id?: string;
  record?: string;
  ttlMs?: number;
  cap?: number;
  recordKeyPrefix?: string;
  locks?: 'stake' | 'play';
  wager?: bigint;
  maxPayout?: bigint;
  exposure?: bigint;
  maxExposureBps?: number;
  maxPayoutBps?: number;
  maxBetBps?: number;
  maxWalletExposureBps?: number;
}

/** commit_bet.lua: commits a prepared bet or turn. */
export interface CommitBetFields {
  hash: string;
  wallet: string;
  nowMs: number;
  committedAt: string;
  revealDeadlineMs: number;
  revealDeadline: string;
  maxExposureBps: number;
  maxPayoutBps: number;
  maxBetBps: number;
  sessionSignature: string;
  agentMaxWagered: bigint;
  agentWindowMs: number;
  maxUnrevealed: number;
  /** Redis clock (unix ms) after which the script does nothing; 0 for no limit. */
  notAfterMs: number;
  maxWalletExposureBps: number;
  /** The short reveal deadline while exposure is scarce; all three or none. */
  shortRevealDeadlineMs?: number;
  shortRevealDeadline?: string;
  scarceExposureBps?: number;
}

/** open_ticket.lua: opens a Sweeper ticket and locks its stake. */
export interface OpenTicketFields {
  wallet: string;
  ticketId: string;
  mode: string;
  wager: bigint;
  fullPayout: bigint;
  /** The headroom the full board needs under maxExposure (checked, not reserved). */
  headroom: bigint;
  sessionPubkey: string;
  createdAt: string;
  serverSeedHash: string;
  maxExposureBps: number;
  maxPayoutBps: number;
  maxBetBps: number;
  source: string;
  nowMs: number;
  agentMaxWagered: bigint;
  agentWindowMs: number;
  notAfterMs: number;
}

/**
 * settle_turn.lua: settles one turn, or closes an idle play (`hash` ''). A play that spans turns sends `play*` and
 * its game's own state as `state.<name>` fields; a turn that ends its play sends `ended` and the end fields.
 */
export interface SettleTurnFields extends Replay {
  hash: string;
  wallet: string;
  settlement: string;
  settledAt: string;
  settledAtMs: number;
  disclosedIndex: number;
  turnEventType?: string;
  turnEventJson?: string;
  playId?: string;
  playStatus?: 'running' | 'settled';
  playBanked?: bigint;
  playOutcome?: string;
  [state: `state.${string}`]: string;
  idleCutoffMs?: number;
  closedBy?: string;
  ended?: boolean;
  payout?: bigint;
  houseNet?: bigint;
  won?: boolean;
  receiptJson?: string;
  entryJson?: string;
  betLogItem?: string;
  endEventType?: string;
  endEventJson?: string;
  recentJson?: string;
  livePlayJson?: string;
  playsChannel?: string;
}

/** publish_manifest.lua: the signed draft becomes the head of the manifest chain. */
export interface PublishManifestFields {
  previousHash: string;
  manifestHash: string;
  recordJson: string;
  firstSeq: number;
  lastEventId: string;
  lastSeq: number;
}

/** lp_fix_mint.lua: fixes an LP deposit's shares (compare-and-set on NAV and supply). */
export interface LpFixMintFields extends Replay {
  jobId: string;
  navBefore: bigint;
  supply: bigint;
  shares: bigint;
  at: string;
  atMs: number;
}

/** lp_fix_redeem.lua: values the LP redemption at the head of the queue (compare-and-set). */
export interface LpFixRedeemFields extends Replay {
  jobId: string;
  nav: bigint;
  supply: bigint;
  exposure: bigint;
  heldShares: bigint;
  heldPrincipal: bigint;
  value: bigint;
  newShares: bigint;
  newPrincipal: bigint;
  principalOut: bigint;
  at: string;
  atMs: number;
}

/** restore_commit.lua: commit_bet's writes for a bet the archive holds. */
export interface RestoreCommitFields extends Replay, RestoredBet {
  committedAtMs: number;
  revealDeadlineMs: number;
  agentWindowMs: number;
}

/** restore_ticket_open.lua: open_ticket's writes for a ticket the archive holds. */
export interface RestoreTicketOpenFields extends Replay {
  wallet: string;
  ticketId: string;
  mode: string;
  wager: bigint;
  fullPayout: bigint;
  createdAt: string;
  activeAtMs: number;
  serverSeedHash: string;
  source: string;
  agentWindowMs: number;
}

/** restore_record.lua: archived entries written again, with what stays whole of them. */
export interface RestoreRecordFields extends Replay {
  logItem?: string;
  receiptBody?: string;
  entryJson?: string;
  rngChainHead?: string;
  rngIndex?: number;
  disclosed?: number;
  betNonce?: number;
  commitment?: string;
}
