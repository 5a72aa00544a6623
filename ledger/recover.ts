/**
 * `npm run ledger -- recover` (design §13): a ledger restored from an older backup is rebuilt from what the service
 * archived in ClickHouse, up to the newest on-chain commit and as far past it as the archive goes, then its log root
 * is checked against the chain. Each archived journal entry is written again with its own stream id and seq, and its
 * effects are replayed through the ledger's own scripts: chain items found again on-chain, plays settled again by
 * their games from the archived signed inputs and checked against the archived entry and journal text, withdrawals.
 * What cannot be rebuilt is named (which plays, which wallets, how much), never guessed: its entry and, for a play,
 * its bet-log entry and receipt are kept as archived, its money is not moved.
 * @module
 */
import { isHex32, type Hex32 } from '../protocol/hex32.ts';
import { isAddress, type Address } from '../protocol/address.ts';
import type { Ack } from '../protocol/ack.ts';
import { toHex } from '../protocol/encoding.ts';
import { formatMicro } from '../protocol/money.ts';
import { sweeperReceiptId } from '../protocol/receipt.ts';
import { isSweeperMode, SWEEPER_ROWS, sweeperPayout } from '../protocol/sweeper.ts';
import { newestOperatorCommit, operatorCommitsAfter } from '../chain/operator-history.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { RecoveryArchive } from '../analytics/recovery-archive.ts';
import type { TurnReplayer } from '../games/replay.ts';
import type { TrustedCommit } from '../transparency/log-guard.ts';
import type { AnchorStore, CommitRecord } from '../store/anchor-store.ts';
import type { ManifestStore } from '../store/anchor-manifests.ts';
import type { BetStore } from '../store/bets.ts';
import type { HeartbeatStore } from '../store/heartbeats.ts';
import type { JournalRecord } from '../store/journal-records.ts';
import type { ChainItem, HouseTotals, LedgerStore } from '../store/ledger.ts';
import type { LpStore } from '../store/lp.ts';
import { totalLocked } from '../protocol/house.ts';
import { redemptionValue, redeemFromPosition, sharesForDeposit } from '../protocol/lp-shares.ts';
import type { KeptRecord, LedgerRestore } from '../store/ledger-restore.ts';
import type { RngStore } from '../store/rng.ts';
import type { TicketStore } from '../store/tickets.ts';
import type { WithdrawalStore } from '../store/withdrawals.ts';
import type { ReplicationBarrier } from '../store/replication.ts';
import { archivedTurn, commitAgrees, logRecordOf, receiptIdOf, restoredBetOf, turnsOf, type LogRecord, type TurnInput } from './archived-plays.ts';
import { CHAIN_EVENT_TYPES, takeMatch } from './chain-events.ts';
import { recordLandedPayouts } from './landed-payouts.ts';

export interface RecoverDeps {
  anchors: AnchorStore;
  ledger: Pick<LedgerStore, 'applyChainItem' | 'isApplied' | 'house' | 'player'>;
  /** The vault token account's balance on-chain, micro-USDC. */
  vaultBalance: () => Promise<bigint>;
  bets: Pick<BetStore, 'bet'>;
  tickets: Pick<TicketStore, 'get'>;
  withdrawals: Pick<WithdrawalStore, 'get' | 'request' | 'finish' | 'returnToBalance' | 'openRecords' | 'markStuck'>;
  lp: Pick<LpStore, 'job' | 'position' | 'redeemHead' | 'fixMint' | 'fixRedeem' | 'finish' | 'openJobs' | 'markStuck'>;
  manifests: Pick<ManifestStore, 'state' | 'publish'>;
  rng: Pick<RngStore, 'head'>;
  restore: LedgerRestore;
  heartbeats: Pick<HeartbeatStore, 'read'>;
  archive: RecoveryArchive;
  rpc: SolanaRpc;
  /** The anchor key's public key: its commit memos are the chain's word. */
  anchorKey: string;
  /** The keeper key's public key: its memos tell which open payouts landed after the backup. */
  keeperKey: string;
  /** The commitment a keeper payout counts as landed at. */
  commitment: 'confirmed' | 'finalized';
  /** How long to wait for the lost keeper's sends to expire before open payouts are left to the keeper. @defaultValue 180000 */
  expiryWaitMs?: number;
  /** The games' replayer, their acks answered from `acks` (the archived receipts'). */
  replayer: (acks: ReadonlyMap<string, Ack>) => TurnReplayer;
  aliasOf: (wallet: string) => string;
  /** On-chain items since the indexer's checkpoints, applied or not, in chain order. */
  chainItems: () => Promise<ChainItem[]>;
  /** AGENT_WINDOW_MS: restored MCP stakes count in the agent window again. */
  agentWindowMs: number;
  clock: () => Date;
  /** How long to watch the heartbeats for a running process. @defaultValue 2500 */
  watchMs?: number;
  /** Sentinel (HA) mode: the rebuilt ledger must be on the replicas before it is declared whole. */
  replication?: ReplicationBarrier;
}

/** Something of the archive the ledger does not get back, with what it was worth. */
export interface Unrebuilt {
  seq: number;
  type: string;
  player: string | null;
  wallet: string | null;
  /** USDC amounts (and LP shares) the entry names, as decimal strings. */
  amounts: Record<string, string>;
  why: string;
}

export interface RecoveryReport {
  outcome: 'whole' | 'recovered' | 'failed';
  chain: TrustedCommit | null;
  before: { logSize: number; journalSeq: number };
  after: { logSize: number; journalSeq: number; root: string | null };
  archiveSeq: number;
  restored: {
    events: number;
    plays: number;
    chainItems: number;
    withdrawals: number;
    lpSteps: number;
    manifests: number;
    commits: number;
    /** Open keeper jobs found paid on-chain after the backup, recorded as paid. */
    payouts: number;
  };
  unrebuilt: Unrebuilt[];
  /** Conservation after the rebuild, line by line; `conserved` when every line balances. */
  books: { lines: string[]; conserved: boolean };
  notes: string[];
  /** One sentence on the result: what matched, or what did not and the way out. */
  message: string;
}

type Json = Record<string, unknown>;
const parse = (text: string): Json => {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
  } catch {
    return {};
  }
};
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const hashOf = (v: unknown): Hex32 | null => (isHex32(v) ? v : null);
const MONEY_FIELDS = ['wager', 'payout', 'amount', 'value'] as const;
const micro = (v: unknown): bigint | null => (typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : null);

/** Stops the replay at the event it is thrown for: the archive and the ledger disagree, or the log cannot go on. */
class Stop extends Error {}

/** A process of the service writing to this ledger: its heartbeat moves. */
async function refuseWhileRunning(d: RecoverDeps): Promise<void> {
  const roles = ['worker', 'indexer'] as const;
  const first = await Promise.all(roles.map((r) => d.heartbeats.read(r)));
  const now = d.clock().getTime();
  if (!first.some((b) => b && now - b.at < 60_000)) return;
  await new Promise((r) => setTimeout(r, d.watchMs ?? 2_500));
  const again = await Promise.all(roles.map((r) => d.heartbeats.read(r)));
  const moving = roles.filter((_, i) => again[i] && again[i]!.at !== first[i]?.at);
  if (moving.length) {
    throw new Error(
      `the ${moving.join(' and ')} of this ledger is running (its heartbeat moves): stop every process of the service first; recovery writes the journal's own seqs and must be alone`,
    );
  }
}

export async function recoverLedger(d: RecoverDeps): Promise<RecoveryReport> {
  await refuseWhileRunning(d);
  const newest = await newestOperatorCommit(d.rpc, d.anchorKey);
  const chain: TrustedCommit | null = newest ? { entryCount: newest.entryCount, betLogRoot: newest.betLogRoot, signature: newest.signature } : null;
  const before = { logSize: await d.anchors.logSize(), journalSeq: await d.restore.journalPosition() };
  // Read before anything else: every send the lost keeper made has a blockhash at most this high.
  const heightBefore = await d.rpc.getBlockHeight({ commitment: 'confirmed' }).send();
  const backupAt = await d.restore.lastJournalEntry();
  const archiveSeq = await d.archive.maxSeq();
  const report: RecoveryReport = {
    outcome: 'failed',
    chain,
    before,
    after: { ...before, root: null },
    archiveSeq,
    restored: { events: 0, plays: 0, chainItems: 0, withdrawals: 0, lpSteps: 0, manifests: 0, commits: 0, payouts: 0 },
    unrebuilt: [],
    books: { lines: [], conserved: true },
    notes: [],
    message: '',
  };
  const rootAt = async (size: number): Promise<string> => {
    const tree = await d.anchors.loadTree();
    await tree.extendTo(size);
    return toHex(tree.log.root(size));
  };

  if (chain && before.logSize >= chain.entryCount) {
    const root = await rootAt(chain.entryCount);
    if (root !== chain.betLogRoot) {
      report.after.root = root;
      report.message =
        `the ledger's log diverges from the chain: its first ${chain.entryCount} entries have root ${root}, the commit ${chain.signature} names ${chain.betLogRoot}. ` +
        'The archive cannot repair another history: restore a Redis backup taken before it diverged, then recover.';
      return report;
    }
  }
  await checkArchiveContinues(d, before.journalSeq);

  const events = archiveSeq > before.journalSeq ? await d.archive.events(before.journalSeq, archiveSeq) : [];
  const gap = events.findIndex((e, i) => e.seq !== before.journalSeq + 1 + i);
  const contiguous = gap < 0 ? events : events.slice(0, gap);
  if (gap >= 0) report.notes.push(`the archive lacks journal seq ${before.journalSeq + 1 + gap}: nothing after it is restored`);

  const replay = await Replay.start(d, contiguous, report);
  const stoppedAt = await replay.run();
  const notRestored = stoppedAt === null ? events.slice(contiguous.length) : events.slice(stoppedAt);
  for (const e of notRestored) report.unrebuilt.push(unrebuiltOf(e, parse(e.data), null, 'not restored: the replay stopped before it (see above)'));
  const restoredSeq = await d.restore.journalPosition();
  // Seqs the archive holds are never handed out again, restored or not.
  await d.restore.fenceJournal(archiveSeq);
  report.restored.manifests = await restoreManifests(d, restoredSeq, report);
  const replayComplete = gap < 0 && stoppedAt === null;
  const settlePayouts = async () => {
    const payouts = await recordLandedPayouts(
      { ...d, ...(d.expiryWaitMs !== undefined ? { expiryWaitMs: d.expiryWaitMs } : {}) },
      { heightBefore, backupAtMs: backupAt ? Date.parse(backupAt.at) : null, replayComplete },
    );
    report.restored.payouts = payouts.recorded;
    report.notes.push(...payouts.notes);
    report.books = await books(d, replay.items);
  };
  report.books = await books(d, replay.items);

  report.after = { logSize: await d.anchors.logSize(), journalSeq: await d.restore.journalSeq(), root: null };
  if (!chain) {
    await settlePayouts();
    report.after.journalSeq = await d.restore.journalSeq();
    report.outcome = 'recovered';
    report.message = 'the chain holds no commit of this anchor key: there is nothing to check the log against';
    return report;
  }
  const size = report.after.logSize;
  report.after.root = await rootAt(Math.min(size, chain.entryCount));
  if (size < chain.entryCount || report.after.root !== chain.betLogRoot) {
    report.message =
      `the rebuilt log holds ${size} entries (root ${report.after.root}), but the commit ${chain.signature} covers ${chain.entryCount} (root ${chain.betLogRoot}): ` +
      'the archive does not hold the whole tail. The service still refuses to start; restore a newer Redis backup (then recover again).';
    return report;
  }
  report.restored.commits = await restoreCommitRecords(d, size, rootAt, report);
  // Only on the way to a start: a run that fails leaves the journal's tail to the next run's replay.
  await settlePayouts();
  report.after.journalSeq = await d.restore.journalSeq();
  try {
    // A failover must not take the rebuilt tail back: the service would then start on a log behind the chain again.
    await d.replication?.confirm();
  } catch (err) {
    report.message =
      `the log holds the chain's newest commit (${chain.entryCount} entries, root ${chain.betLogRoot}), but the replicas did not confirm it: ` +
      `${(err as Error).message}. Run recover again once the replicas are up (it finds the log whole and only waits for them).`;
    return report;
  }
  await d.anchors.clearForkRefusal();
  report.outcome = before.logSize >= chain.entryCount && report.restored.events === 0 && report.restored.payouts === 0 ? 'whole' : 'recovered';
  report.message =
    `the log holds the chain's newest commit: ${chain.entryCount} entries, root ${chain.betLogRoot} (${chain.signature}); ` +
    `it now holds ${size} entries and the journal is at seq ${report.after.journalSeq}`;
  return report;
}

/** The archive must hold the ledger's own history up to its journal's end: the same event at the ledger's last seq. */
async function checkArchiveContinues(d: RecoverDeps, seq: number): Promise<void> {
  if (seq === 0) return;
  const [mine, archived] = await Promise.all([d.restore.lastJournalEntry(), d.archive.event(seq)]);
  if (!mine || !archived || mine.seq !== seq) return;
  if (mine.id !== archived.id || mine.type !== archived.type || mine.data !== archived.data) {
    throw new Error(
      `the archive holds another history: journal seq ${seq} is ${archived.id} (${archived.type}) there and ${mine.id} (${mine.type}) in the ledger. ` +
        'Was the service started on this ledger after the restore? Restore the backup again and recover before starting.',
    );
  }
}

function unrebuiltOf(e: JournalRecord, data: Json, wallet: string | null, why: string): Unrebuilt {
  const amounts: Record<string, string> = {};
  for (const f of MONEY_FIELDS) {
    const v = data[f];
    if (typeof v === 'string' && /^\d+$/.test(v)) amounts[f] = `${formatMicro(BigInt(v))} USDC`;
  }
  if (typeof data.shares === 'string' && /^\d+$/.test(data.shares)) amounts.shares = `${formatMicro(BigInt(data.shares))} LP shares`;
  const id = str(data.receiptId) ?? str(data.ticketId) ?? str(data.betPayloadHash) ?? str(data.jobId) ?? str(data.id);
  return { seq: e.seq, type: id ? `${e.type} ${id}` : e.type, player: str(data.player), wallet, amounts, why };
}

/** The archived tail, event by event, through the ledger's own scripts. */
class Replay {
  /**
   * The acks the games settle with: every turn the archived receipts hold, a ticket's turns settled before the backup
   * included (its end signs them all again into its receipt).
   */
  readonly acks: Map<string, Ack>;
  readonly replayer: TurnReplayer;

  private constructor(
    readonly d: RecoverDeps,
    readonly events: readonly JournalRecord[],
    readonly report: RecoveryReport,
    readonly receipts: ReadonlyMap<string, Json>,
    readonly turns: ReadonlyMap<string, TurnInput>,
    readonly wallets: Map<string, Address>,
    readonly items: ChainItem[],
    /** Receipts of the plays that end within the archived journal. */
    readonly ended: ReadonlySet<string>,
  ) {
    this.acks = new Map([...turns].map(([hash, t]) => [hash, t.ack]));
    this.replayer = d.replayer(this.acks);
  }

  static async start(d: RecoverDeps, events: readonly JournalRecord[], report: RecoveryReport): Promise<Replay> {
    const ids = events.map((e) => receiptIdOf(e, parse(e.data))).filter((id): id is string => id !== null);
    const receipts = ids.length ? await d.archive.receipts(ids) : new Map<string, Json>();
    const items = await d.chainItems();
    const wallets = new Map<string, Address>();
    for (const w of [...(await d.restore.wallets()), ...items.flatMap((i) => (isAddress(i.wallet) ? [i.wallet] : []))]) wallets.set(d.aliasOf(w), w);
    const ended = new Set(events.flatMap((e) => (e.type === 'bet_settled' || e.type === 'ticket_settled' ? [str(parse(e.data).receiptId) ?? ''] : [])));
    return new Replay(d, events, report, receipts, turnsOf(receipts), wallets, items, ended);
  }

  /** @returns the index of the event the replay stopped at, or null when every event was restored */
  async run(): Promise<number | null> {
    let i = 0;
    while (i < this.events.length) {
      try {
        const consumed = await this.step(i);
        this.report.restored.events += consumed;
        i += consumed;
      } catch (err) {
        // Anything else that fails (a game, a script, Redis) stops the replay the same way: the report still names
        // what was and was not restored, and a run again resumes at this event.
        const e = this.events[i]!;
        const why = err instanceof Stop ? err.message : `${(err as Error).message ?? String(err)} (unexpected)`;
        this.report.notes.push(`stopped at journal seq ${e.seq} (${e.type}): ${why}`);
        return i;
      }
    }
    return null;
  }

  async step(i: number): Promise<number> {
    const e = this.events[i]!;
    const data = parse(e.data);
    switch (e.type) {
      case 'bet_committed':
        return this.commit(e, data);
      case 'bet_settled':
        return this.settleDice(e, data);
      case 'ticket_opened':
        return this.openTicket(e, data);
      case 'sweeper_turn_settled':
        return this.settleSweeperTurn(e, data, this.events[i + 1]);
      case 'ticket_settled':
        return this.endTicket(e, data);
      case 'withdrawal_requested':
        return this.requestWithdrawal(e, data);
      case 'withdrawal_paid':
        return this.finishWithdrawal(e, data);
      case 'withdrawal_returned':
        return this.returnWithdrawal(e, data);
      case 'lp_shares_issued':
        return this.lpMint(e, data);
      case 'lp_redeem_valued':
        return this.lpRedeem(e, data);
      case 'lp_mint_confirmed':
      case 'lp_redeem_paid':
        return this.lpDone(e, data);
      default:
        if (CHAIN_EVENT_TYPES.includes(e.type)) return this.chainItem(e, data);
        return this.keep([e], {}, data, null, `recovery does not know the event type ${e.type}: its effects are not rebuilt`);
    }
  }

  /**
   * A play that ends within the archived journal but whose receipt is not archived yet (the archiver runs behind the
   * shipper) is not kept as it is: the replay stops before it, so a recovery run again once the archive caught up
   * rebuilds it whole.
   */
  stopIfLagging(receiptId: string | null): void {
    if (receiptId && this.ended.has(receiptId) && !this.receipts.has(receiptId)) {
      throw new Stop(`play ${receiptId} ends in the archived journal, but the archive holds no receipt of it yet: run recover again once it does`);
    }
  }

  /** Writes the entries as archived, with what stays whole, and names what is lost (unless `why` is null). */
  async keep(entries: JournalRecord[], kept: KeptRecord, data: Json, wallet: string | null, why: string | null): Promise<number> {
    const { rngBooked } = await this.d.restore.keep(entries, kept);
    await this.expectWritten(entries);
    if (why !== null) this.report.unrebuilt.push(unrebuiltOf(entries[0]!, data, wallet, why));
    if (!rngBooked)
      this.report.notes.push(`journal seq ${entries[0]!.seq}: its RNG chain head is not the ledger's current or next chain; the cursor was not moved`);
    return entries.length;
  }

  async expectWritten(entries: readonly JournalRecord[]): Promise<boolean> {
    const last = entries[entries.length - 1];
    return last !== undefined && (await this.d.restore.lastJournalEntry())?.id === last.id;
  }

  logOf(receiptId: string | null): LogRecord {
    const log = logRecordOf(receiptId ? this.receipts.get(receiptId) : undefined);
    if (!log) throw new Stop(`the archive holds no receipt of play ${receiptId} whose entry matches its leaf: the bet log cannot be rebuilt past it`);
    return log;
  }

  async commit(e: JournalRecord, data: Json): Promise<number> {
    const hash = hashOf(data.betPayloadHash);
    const player = str(data.player);
    const wallet = player ? (this.wallets.get(player) ?? null) : null;
    const t = hash ? this.turns.get(hash) : undefined;
    if (hash && (await this.d.bets.bet(hash)))
      throw new Stop(`the ledger already holds bet ${hash}, which the archive commits after the ledger's journal ends`);
    this.stopIfLagging(receiptIdOf(e, data));
    const kept: KeptRecord = {
      ...(str(data.rngChainHead) && typeof data.rngIndex === 'number'
        ? { rng: { chainHead: data.rngChainHead as string, index: data.rngIndex, disclosed: 0 } }
        : {}),
      ...(wallet && typeof data.betNonce === 'number' ? { nonce: { wallet, betNonce: data.betNonce } } : {}),
      ...(t ? { commitment: t.betPayload.commitment } : {}),
    };
    if (!t)
      return this.keep(
        [e],
        kept,
        data,
        wallet,
        'no settlement of this bet is archived (the play had not ended): its commit is not rebuilt, its stake was not taken',
      );
    if (!wallet) return this.keep([e], kept, data, null, 'no wallet known to the ledger or the chain tail has this alias: the bet is not rebuilt');
    if (!commitAgrees(t, data)) throw new Stop(`bet ${hash}: the journal entry and the archived receipt name different commits`);
    const ticketId = t.betPayload.game === 'sweeper' ? t.betPayload.params.ticketId : null;
    if (ticketId && (await this.d.tickets.get(ticketId))?.status !== 'running') {
      return this.keep([e], kept, data, wallet, `its ticket ${ticketId} is not running in the ledger: the turn is not rebuilt`);
    }
    const result = await this.d.restore.restoreCommit(restoredBetOf(t, wallet), e, this.d.agentWindowMs);
    if (result.kind !== 'ok' || !(await this.expectWritten([e]))) {
      return this.keep([e], kept, data, wallet, `the commit could not be written again (${result.kind === 'err' ? result.reason : 'dup'})`);
    }
    this.acks.set(t.betPayloadHash, t.ack);
    return 1;
  }

  async settleDice(e: JournalRecord, data: Json): Promise<number> {
    const hash = hashOf(data.betPayloadHash);
    const log = this.logOf(str(data.receiptId));
    const t = hash ? this.turns.get(hash) : undefined;
    const bet = hash ? await this.d.bets.bet(hash) : null;
    if (bet?.state === 'settled') throw new Stop(`bet ${hash} is settled in the ledger already, yet the archive settles it after the ledger's journal ends`);
    if (!bet || !t) {
      const kept: KeptRecord = {
        log,
        ...(t ? { rng: { chainHead: t.ack.rngChainHead, index: t.ack.rngIndex, disclosed: t.clientSeedRaw ? t.ack.rngIndex : 0 } } : {}),
      };
      return this.keep(
        [e],
        kept,
        data,
        null,
        'its commit was not rebuilt: the bet-log entry and receipt are restored, its stake and payout are not booked to any balance',
      );
    }
    this.acks.set(bet.hash, t.ack);
    const write = await this.replayer.rebuild(bet, archivedTurn(t, e.at));
    const end = write.end;
    if (!end || end.leafHashHex !== log.leaf || end.event.type !== e.type || end.event.json !== e.data) {
      throw new Stop(`settling bet ${hash} again does not give the archived entry and journal text`);
    }
    const result = await this.replayer.write(bet, write, e.at, [e]);
    if (result.kind !== 'ok' || !(await this.expectWritten([e]))) throw new Stop(`the settlement of bet ${hash} could not be written (${result.kind})`);
    this.report.restored.plays++;
    return 1;
  }

  async openTicket(e: JournalRecord, data: Json): Promise<number> {
    const ticketId = str(data.ticketId) ?? '';
    const player = str(data.player);
    const wallet = player ? (this.wallets.get(player) ?? null) : null;
    this.stopIfLagging(sweeperReceiptId(ticketId));
    const receipt = this.receipts.get(sweeperReceiptId(ticketId));
    const mode = data.mode;
    const wager = typeof data.wager === 'string' && /^\d+$/.test(data.wager) ? BigInt(data.wager) : null;
    if (!receipt) return this.keep([e], {}, data, wallet, 'the ticket had not ended in the archive (no receipt): it is not rebuilt, its stake was not taken');
    if (!wallet || !isSweeperMode(mode) || wager === null)
      return this.keep([e], {}, data, wallet, 'the wallet of this alias is not known: the ticket is not rebuilt');
    const result = await this.d.restore.restoreTicketOpen(
      {
        wallet,
        ticketId,
        mode,
        wager,
        fullPayout: sweeperPayout(wager, mode, SWEEPER_ROWS),
        createdAt: e.at,
        // Replayed in order, the cursor's head is the one the ticket opened under.
        serverSeedHash: (await this.d.rng.head()) ?? '',
        source: receipt.source === 'mcp' ? 'mcp' : 'api',
      },
      e,
      this.d.agentWindowMs,
    );
    if (result.kind !== 'ok' || !(await this.expectWritten([e]))) {
      return this.keep([e], {}, data, wallet, `the ticket could not be opened again (${result.kind === 'err' ? result.reason : 'dup'})`);
    }
    return 1;
  }

  async settleSweeperTurn(e: JournalRecord, data: Json, next: JournalRecord | undefined): Promise<number> {
    const hash = hashOf(data.betPayloadHash);
    const ticketId = str(data.ticketId) ?? '';
    const [bet, ticket] = await Promise.all([hash ? this.d.bets.bet(hash) : null, this.d.tickets.get(ticketId)]);
    const t = hash ? this.turns.get(hash) : undefined;
    if (bet?.state !== 'committed' || !t || ticket?.status !== 'running' || ticket.pendingTurn !== hash) {
      const why = !t
        ? 'the archive holds no seed of this turn (its ticket had not ended): if the ledger holds the turn, it awaits its reveal again, which settles it the same way'
        : 'its commit or ticket was not rebuilt: the turn is not settled again';
      return this.keep([e], {}, data, bet?.wallet ?? null, why);
    }
    this.acks.set(hash, t.ack);
    const write = await this.replayer.rebuild(bet, archivedTurn(t, e.at));
    if (!write.turnEvent || write.turnEvent.type !== e.type || write.turnEvent.json !== e.data) {
      throw new Stop(`settling turn ${hash} of ticket ${ticketId} again does not give the archived journal text`);
    }
    const entries = [e];
    if (write.end) {
      const log = this.logOf(sweeperReceiptId(ticketId));
      if (!next) throw new Stop(`the archive ends between turn ${hash} and the end of ticket ${ticketId} it wrote with it`);
      if (write.end.leafHashHex !== log.leaf || next.type !== write.end.event.type || next.data !== write.end.event.json) {
        throw new Stop(`ticket ${ticketId} ends again with another entry or journal text than the archive's`);
      }
      entries.push(next);
    }
    const result = await this.replayer.write(bet, write, e.at, entries);
    if (result.kind !== 'ok' || !(await this.expectWritten(entries)))
      throw new Stop(`turn ${hash} of ticket ${ticketId} could not be written (${result.kind})`);
    if (write.end) this.report.restored.plays++;
    return entries.length;
  }

  /** A ticket's end on its own: an idle close, or the end of a ticket whose turns were not rebuilt. */
  async endTicket(e: JournalRecord, data: Json): Promise<number> {
    const ticketId = str(data.ticketId) ?? '';
    const log = this.logOf(str(data.receiptId));
    const ticket = await this.d.tickets.get(ticketId);
    if (ticket?.status !== 'running') {
      return this.keep(
        [e],
        { log },
        data,
        ticket?.wallet ?? null,
        'its ticket was not rebuilt: the bet-log entry and receipt are restored, its stake and payout are not booked',
      );
    }
    const close = data.closedBy === 'idle' && !ticket.pendingTurn ? await this.replayer.rebuildIdleClose(ticketId, e.at) : null;
    const end = close?.outcome.write.end;
    // Left running, the idle sweep would close it a second time: a second entry for one play.
    if (!close || !end || end.leafHashHex !== log.leaf || end.event.type !== e.type || end.event.json !== e.data) {
      throw new Stop(`ticket ${ticketId} runs in the ledger, but its archived end cannot be rebuilt`);
    }
    const result = await this.replayer.write({ hash: '', wallet: close.wallet, game: 'sweeper', ticketId }, close.outcome.write, e.at, [e]);
    if (result.kind !== 'ok' || !(await this.expectWritten([e]))) throw new Stop(`the idle close of ticket ${ticketId} could not be written (${result.kind})`);
    this.report.restored.plays++;
    return 1;
  }

  async chainItem(e: JournalRecord, data: Json): Promise<number> {
    const item = takeMatch(this.items, e, data);
    if (!item) {
      return this.keep(
        [e],
        {},
        data,
        null,
        'the chain tail since the indexer checkpoint holds no such item: not applied (the indexer applies whatever it finds on-chain)',
      );
    }
    if (isAddress(item.wallet) && item.alias) this.wallets.set(item.alias, item.wallet);
    const applied = await this.d.ledger.applyChainItem(item, e.at, [e]);
    if (!applied) return this.keep([e], {}, data, item.wallet ?? null, `chain item ${item.key} is applied in the ledger already: not applied twice`);
    // A memo older than the key's state is applied without an entry of its own; the archived one is kept as it was.
    if (!(await this.expectWritten([e]))) return this.keep([e], {}, data, item.wallet ?? null, null);
    this.report.restored.chainItems++;
    return 1;
  }

  async requestWithdrawal(e: JournalRecord, data: Json): Promise<number> {
    const id = str(data.id);
    const player = str(data.player);
    const wallet = player ? (this.wallets.get(player) ?? null) : null;
    const amount = typeof data.amount === 'string' && /^\d+$/.test(data.amount) ? BigInt(data.amount) : null;
    if (!id || !wallet || !player || amount === null || (await this.d.withdrawals.get(id))) {
      return this.keep([e], {}, data, wallet, 'the withdrawal is not rebuilt (unknown wallet, or the ledger holds it already)');
    }
    // The client's Idempotency-Key is not archived: the request is keyed by its id instead.
    const result = await this.d.withdrawals.request(
      wallet,
      { id, amount, at: e.at, atMs: Date.parse(e.at), alias: player, idempotencyKey: `recovered:${id}` },
      [e],
    );
    if (result.kind !== 'ok' || !(await this.expectWritten([e]))) {
      return this.keep([e], {}, data, wallet, `the withdrawal could not be requested again (${result.kind === 'err' ? result.reason : result.kind})`);
    }
    this.report.notes.push(`withdrawal ${id} restored; a re-send of its original Idempotency-Key is not recognized`);
    this.report.restored.withdrawals++;
    return 1;
  }

  /** The house's totals and NAV as the keeper prices with them. */
  async nav(): Promise<{ totals: HouseTotals; nav: bigint }> {
    const totals = await this.d.ledger.house();
    return { totals, nav: totals.vault - totalLocked(totals) };
  }

  /** An LP deposit's shares, fixed again: replayed in order, the ledger's NAV and supply give the archived count. */
  async lpMint(e: JournalRecord, data: Json): Promise<number> {
    const jobId = str(data.jobId);
    const job = jobId ? await this.d.lp.job(jobId) : null;
    const shares = micro(data.shares);
    if (job?.kind !== 'mint' || job.status !== 'queued' || shares === null) {
      return this.keep([e], {}, data, job?.wallet ?? null, 'its LP deposit is not queued in the ledger: the shares are not fixed again');
    }
    const { totals, nav } = await this.nav();
    if (nav <= 0n || sharesForDeposit(job.amount, totals.lpSupply, nav) !== shares) {
      return this.keep([e], {}, data, job.wallet, "the ledger's NAV and LP supply do not give the archived shares: not fixed again");
    }
    const fixed = await this.d.lp.fixMint(job, { navBefore: nav, supply: totals.lpSupply, shares, at: e.at, atMs: Date.parse(e.at) }, [e]);
    if (fixed !== 'ok' || !(await this.expectWritten([e]))) return this.keep([e], {}, data, job.wallet, `the shares could not be fixed again (${fixed})`);
    this.report.restored.lpSteps++;
    return 1;
  }

  /** An LP redemption's value, fixed again at the head of the queue. */
  async lpRedeem(e: JournalRecord, data: Json): Promise<number> {
    const jobId = str(data.jobId);
    const job = jobId ? await this.d.lp.job(jobId) : null;
    const value = micro(data.value);
    if (job?.kind !== 'redeem' || job.status !== 'queued' || value === null || (await this.d.lp.redeemHead()) !== jobId) {
      return this.keep([e], {}, data, job?.wallet ?? null, "its LP redemption is not at the head of the ledger's queue: not valued again");
    }
    const { totals, nav } = await this.nav();
    if (nav <= 0n || job.shares > totals.lpSupply || redemptionValue(job.shares, totals.lpSupply, nav) !== value) {
      return this.keep([e], {}, data, job.wallet, "the ledger's NAV and LP supply do not give the archived value: not valued again");
    }
    const held = await this.d.lp.position(job.wallet);
    const { after, principalOut } = redeemFromPosition(held, job.shares);
    const p = { nav, supply: totals.lpSupply, exposure: totals.exposure, held, value, after, principalOut, at: e.at, atMs: Date.parse(e.at) };
    const fixed = await this.d.lp.fixRedeem(job, p, [e]);
    if (fixed !== 'ok' || !(await this.expectWritten([e]))) return this.keep([e], {}, data, job.wallet, `the redemption could not be valued again (${fixed})`);
    this.report.restored.lpSteps++;
    return 1;
  }

  /** The keeper's LP transaction landed: recorded again. */
  async lpDone(e: JournalRecord, data: Json): Promise<number> {
    const jobId = str(data.jobId);
    const job = jobId ? await this.d.lp.job(jobId) : null;
    if (!jobId || !job || (job.status !== 'fixed' && job.status !== 'sent')) {
      return this.keep([e], {}, data, job?.wallet ?? null, 'its LP job is not fixed in the ledger: its transaction is not recorded again');
    }
    const done = await this.d.lp.finish(jobId, typeof data.signature === 'string' ? data.signature : '', e.at, [e]);
    if (!done || !(await this.expectWritten([e]))) return this.keep([e], {}, data, job.wallet, 'the LP transaction could not be recorded again');
    this.report.restored.lpSteps++;
    return 1;
  }

  async finishWithdrawal(e: JournalRecord, data: Json): Promise<number> {
    const id = str(data.id);
    const signature = str(data.signature);
    const w = id ? await this.d.withdrawals.get(id) : null;
    if (!id || !signature || !w || w.status === 'finalized' || w.status === 'returned')
      return this.keep([e], {}, data, w?.wallet ?? null, 'its withdrawal is not in the ledger as open: not finished again');
    const done = await this.d.withdrawals.finish(id, w.wallet, signature, e.at, [e]);
    if (!done || !(await this.expectWritten([e]))) return this.keep([e], {}, data, w.wallet, 'the payout could not be recorded again');
    this.report.restored.withdrawals++;
    return 1;
  }

  /** The keeper gave a withdrawal back to the balance (none of its transactions could land): given back again. */
  async returnWithdrawal(e: JournalRecord, data: Json): Promise<number> {
    const id = str(data.id);
    const w = id ? await this.d.withdrawals.get(id) : null;
    if (!id || !w || w.status === 'finalized' || w.status === 'returned' || micro(data.amount) !== w.amount) {
      return this.keep([e], {}, data, w?.wallet ?? null, 'its withdrawal is not in the ledger as open with this amount: not returned to the balance again');
    }
    // The compare-and-set guards a live keeper against a racing one; here the ledger's own record is the one to move.
    const returned = await this.d.withdrawals.returnToBalance(id, w.wallet, w.signature, str(data.reason) ?? '', e.at, [e]);
    if (returned !== 'ok' || !(await this.expectWritten([e]))) {
      return this.keep([e], {}, data, w.wallet, `the withdrawal could not be returned to the balance again (${returned})`);
    }
    this.report.restored.withdrawals++;
    return 1;
  }
}

/** The archived manifests that continue the ledger's chain of manifests, over events the journal now holds. */
async function restoreManifests(d: RecoverDeps, journalSeq: number, report: RecoveryReport): Promise<number> {
  const byPrevious = await d.archive.manifestsByPrevious(journalSeq, d.anchorKey);
  let latest = (await d.manifests.state()).latest;
  let restored = 0;
  for (;;) {
    const next = byPrevious.get(latest ?? '0'.repeat(64)) ?? [];
    if (next.length > 1) report.notes.push(`the archive holds ${next.length} manifests after ${latest}: a fork of the manifest chain, none restored past it`);
    const record = next.length === 1 ? next[0]! : null;
    if (!record || !(await d.manifests.publish(latest, record))) break;
    latest = record.manifest.manifestHash;
    restored++;
  }
  return restored;
}

/** The chain's commits the ledger has no record of, each checked against the rebuilt log, recorded. */
async function restoreCommitRecords(d: RecoverDeps, size: number, rootAt: (n: number) => Promise<string>, report: RecoveryReport): Promise<number> {
  const latest = await d.anchors.latestCommit();
  const { commits, complete } = await operatorCommitsAfter(d.rpc, d.anchorKey, latest?.signature ?? null);
  if (!complete) report.notes.push('the scan of the anchor key reached its bound: commits older than it are not recorded again');
  const records: CommitRecord[] = [];
  let previous = latest?.entryCount ?? 0;
  for (const c of commits) {
    if (c.entryCount > size || c.entryCount <= previous) continue;
    if ((await rootAt(c.entryCount)) !== c.betLogRoot) {
      report.notes.push(`the on-chain commit ${c.signature} of size ${c.entryCount} names another root than the log: not recorded`);
      continue;
    }
    records.push({
      commitId: `commit-${c.entryCount}`,
      entryCount: c.entryCount,
      previousEntryCount: previous,
      betLogRoot: c.betLogRoot,
      stateRoot: c.memo.stateRoot,
      totalLiabilities: c.memo.totalLiabilities.toString(),
      rngIndex: c.memo.rngIndex,
      rngReveal: c.memo.rngRevealHex,
      manifestHash: c.memo.manifestHash,
      memo: c.text,
      signature: c.signature,
      slot: c.slot,
      committedAt: new Date(c.blockTime !== null ? c.blockTime * 1000 : d.clock().getTime()).toISOString(),
    });
    previous = c.entryCount;
  }
  return d.restore.restoreCommits(records);
}

const INFLOWS: readonly ChainItem['kind'][] = ['deposit', 'x402-deposit', 'unattributed', 'lp-deposit', 'house'];

/**
 * Conservation after the rebuild: the house's totals against the sum over every wallet, and the ledger's vault against
 * the vault on-chain less the inflows the indexer has still to apply.
 */
async function books(d: RecoverDeps, unmatched: readonly ChainItem[]): Promise<RecoveryReport['books']> {
  const house = await d.ledger.house();
  let balances = 0n;
  let staked = 0n;
  let pendingWithdrawals = 0n;
  const wallets = await d.restore.wallets();
  const banked = await d.restore.bankedOnRunningTickets(wallets);
  for (const w of wallets) {
    const p = await d.ledger.player(w);
    balances += p.balance;
    staked += p.staked;
    pendingWithdrawals += p.pendingWithdrawals;
  }
  let inflows = 0n;
  for (const item of unmatched) if (INFLOWS.includes(item.kind) && !(await d.ledger.isApplied(item.key))) inflows += item.amount ?? 0n;
  const vault = await d.vaultBalance();
  const usdc = (m: bigint) => `${formatMicro(m)} USDC`;
  const rows: [string, bigint, bigint, string][] = [
    ['player balances', house.balances, balances, 'the house total against the sum over every wallet'],
    ['stakes in play', house.staked, staked, 'the house total against the sum over every wallet'],
    ['pending withdrawals', house.pendingWithdrawals, pendingWithdrawals, 'the house total against the sum over every wallet'],
    ['banked on running tickets', house.banked, banked, "the house total against the sum over every wallet's running ticket"],
    [
      'vault',
      house.vault + inflows,
      vault,
      `the ledger's vault plus ${usdc(inflows)} of on-chain inflows the indexer applies at start, against the vault on-chain`,
    ],
  ];
  return {
    lines: rows.map(([name, a, b, what]) => `${a === b ? 'ok' : 'MISMATCH'} ${name}: ${usdc(a)} / ${usdc(b)} (${what})`),
    conserved: rows.every(([, a, b]) => a === b),
  };
}
