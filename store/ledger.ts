// The Redis ledger: typed reads of player and house state, on-chain facts applied exactly once, and the
// deployment's identity (which chain this key prefix belongs to, when it started).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { NO_WALLET, type Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';
import { replayArg, type JournalRecord } from './journal-records.ts';
import type { Address, Base58Key } from '../protocol/address.ts';

export interface PlayerState {
  balance: bigint;
  staked: bigint;
  exposure: bigint;
  pendingWithdrawals: bigint;
  nonce: number;
  deposited: bigint;
  wagered: bigint;
  paidOut: bigint;
  plays: number;
  wins: number;
}

export interface SessionKeyState {
  status: 'active' | 'revoked';
  slot: number;
  signature: string;
  at: string;
}

export const HOUSE_FIELDS = [
  'vault',
  'balances',
  'staked',
  'banked',
  'exposure',
  'pendingWithdrawals',
  'unattributed',
  'lpPending',
  'lpPayable',
  'lpSupply',
  'lpPrincipal',
  'lpNet',
  'capital',
  'gameNet',
  'volume',
  'paidOut',
  'plays',
] as const;
export type HouseTotals = Record<(typeof HOUSE_FIELDS)[number], bigint>;

export type ChainItemKind = 'deposit' | 'x402-deposit' | 'setup' | 'revoke' | 'unattributed' | 'lp-deposit' | 'lp-redeem' | 'house';

/** One on-chain fact, applied at most once under `key` (signature and instruction index). */
export interface ChainItem {
  key: string;
  kind: ChainItemKind;
  signature: string;
  slot: number;
  wallet?: Address;
  /** The wallet's public alias, journaled instead of the address. */
  alias?: string;
  amount?: bigint;
  /** LP shares sent back for redemption (`lp-redeem`). */
  shares?: bigint;
  sessionPubkey?: string;
}

/** The keeper job of an LP item: `lpd_` (mint) or `lpr_` (redeem) and 32 hex of sha256(item key); fits a keeper memo. */
export const lpJobIdOf = (item: Pick<ChainItem, 'key' | 'kind'>): string =>
  `${item.kind === 'lp-redeem' ? 'lpr' : 'lpd'}_${createHash('sha256').update(item.key).digest('hex').slice(0, 32)}`;

const big = (value: string | null | undefined): bigint => (value ? BigInt(value) : 0n);

export class LedgerStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {}

  async player(wallet: Address): Promise<PlayerState> {
    const r = await this.redis.hmget(
      this.keys.player(wallet),
      'balance',
      'staked',
      'exposure',
      'pendingWithdrawals',
      'nonce',
      'deposited',
      'wagered',
      'paidOut',
      'plays',
      'wins',
    );
    return {
      balance: big(r[0]),
      staked: big(r[1]),
      exposure: big(r[2]),
      pendingWithdrawals: big(r[3]),
      nonce: Number(r[4] ?? 0),
      deposited: big(r[5]),
      wagered: big(r[6]),
      paidOut: big(r[7]),
      plays: Number(r[8] ?? 0),
      wins: Number(r[9] ?? 0),
    };
  }

  async sessionKeys(wallet: Address): Promise<Record<string, SessionKeyState>> {
    const raw = await this.redis.hgetall(this.keys.sessionKeys(wallet));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, JSON.parse(v) as SessionKeyState]));
  }

  async sessionKey(wallet: Address, sessionPubkey: Base58Key): Promise<SessionKeyState | null> {
    const raw = await this.redis.hget(this.keys.sessionKeys(wallet), sessionPubkey);
    return raw ? (JSON.parse(raw) as SessionKeyState) : null;
  }

  async house(): Promise<HouseTotals> {
    const r = await this.redis.hmget(this.keys.house(), ...HOUSE_FIELDS);
    return Object.fromEntries(HOUSE_FIELDS.map((f, i) => [f, big(r[i])])) as HouseTotals;
  }

  /** @returns true when the item was applied now, false when it had been applied before */
  /**
   * @param replay - ledger recovery only: the archived journal entry of this item, written instead of a new one
   */
  async applyChainItem(item: ChainItem, at: string, replay?: readonly JournalRecord[]): Promise<boolean> {
    const wallet = item.wallet ?? NO_WALLET;
    const k = this.keys;
    const lp = item.kind === 'lp-deposit' || item.kind === 'lp-redeem';
    const jobId = lp ? lpJobIdOf(item) : '';
    const queue = item.kind === 'lp-redeem' ? k.lpRedeemQueue() : k.lpMintQueue();
    const reply = await this.scripts.applyChainItem(
      [k.appliedChainItems(), k.player(wallet), k.sessionKeys(wallet), k.house(), k.journal(), k.journalSeq(), k.wallets(), k.lpJob(jobId || '-'), queue],
      {
        itemKey: item.key,
        kind: item.kind,
        amount: item.amount ?? 0n,
        sessionPubkey: item.sessionPubkey ?? '',
        slot: item.slot,
        signature: item.signature,
        at,
        alias: item.alias ?? '',
        wallet,
        jobId,
        shares: item.shares ?? 0n,
        replay: replayArg(replay),
      },
    );
    return reply === 1;
  }

  async isApplied(itemKey: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.appliedChainItems(), itemKey)) === 1;
  }

  /**
   * Binds this key prefix to one chain (its USDC mint and vault): a prefix holds the ledger of one chain only,
   * and mixing two (another DATA_DIR, say) would corrupt both.
   * @returns the identity already stored when it differs, else null
   */
  /** True until a first start claims this prefix for a chain: nothing of a ledger was ever written here. */
  async isEmpty(): Promise<boolean> {
    return (await this.redis.exists(this.keys.meta())) === 0;
  }

  async claimChain(identity: string): Promise<string | null> {
    await this.redis.hsetnx(this.keys.meta(), 'chain', identity);
    const stored = await this.redis.hget(this.keys.meta(), 'chain');
    return stored === identity ? null : stored;
  }

  /** When this ledger first started (ms), recorded once; the house APR counts from it. */
  async startedAt(nowMs: number): Promise<number> {
    await this.redis.hsetnx(this.keys.meta(), 'startedAt', String(nowMs));
    return Number(await this.redis.hget(this.keys.meta(), 'startedAt'));
  }
}
