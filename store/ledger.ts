// The Redis ledger: typed reads of player and house state, and the atomic scripts that change them.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { defineScripts, type ScriptRunner } from './scripts.ts';
import type { Aliases } from './aliases.ts';

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
  'vault', 'balances', 'staked', 'exposure', 'pendingWithdrawals', 'unattributed', 'lpPending',
  'capital', 'gameNet', 'volume', 'paidOut', 'plays',
] as const;
export type HouseTotals = Record<(typeof HOUSE_FIELDS)[number], bigint>;

export interface Limits {
  nav: bigint;
  maxBet: bigint;
  maxPayout: bigint;
  maxExposure: bigint;
  openExposure: bigint;
}

export interface LimitSettings {
  maxBetBps: number;
  maxPayoutBps: number;
  maxExposureBps: number;
}

export type ChainItemKind = 'deposit' | 'setup' | 'revoke' | 'unattributed' | 'lp-deposit' | 'house';

/** One on-chain fact, applied at most once under `key` (signature and instruction index). */
export interface ChainItem {
  key: string;
  kind: ChainItemKind;
  signature: string;
  slot: number;
  wallet?: string;
  amount?: bigint;
  sessionPubkey?: string;
}

const big = (value: string | null | undefined): bigint => (value ? BigInt(value) : 0n);

/** The house fields that NAV and the limits depend on. */
export type LockedTotals = Pick<HouseTotals, 'vault' | 'balances' | 'staked' | 'exposure' | 'pendingWithdrawals' | 'unattributed' | 'lpPending'>;

export function totalLocked(h: LockedTotals): bigint {
  return h.balances + h.staked + h.exposure + h.pendingWithdrawals + h.unattributed + h.lpPending;
}

/** Limits as fractions of NAV, computed exactly as the commit script does. */
export function limitsOf(h: LockedTotals, settings: LimitSettings, vault = h.vault): Limits {
  const nav = vault - totalLocked(h);
  const part = (bps: number) => (nav > 0n ? (nav * BigInt(bps)) / 10_000n : 0n);
  return {
    nav,
    maxBet: part(settings.maxBetBps),
    maxPayout: part(settings.maxPayoutBps),
    maxExposure: part(settings.maxExposureBps),
    openExposure: h.exposure,
  };
}

export class Ledger {
  readonly scripts: ScriptRunner;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly aliases: Aliases,
  ) {
    this.scripts = defineScripts(redis);
  }

  async player(wallet: string): Promise<PlayerState> {
    const r = await this.redis.hmget(
      this.keys.player(wallet),
      'balance', 'staked', 'exposure', 'pendingWithdrawals', 'nonce', 'deposited', 'wagered', 'paidOut', 'plays', 'wins',
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

  async sessionKeys(wallet: string): Promise<Record<string, SessionKeyState>> {
    const raw = await this.redis.hgetall(this.keys.sessionKeys(wallet));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, JSON.parse(v) as SessionKeyState]));
  }

  async sessionKey(wallet: string, sessionPubkey: string): Promise<SessionKeyState | null> {
    const raw = await this.redis.hget(this.keys.sessionKeys(wallet), sessionPubkey);
    return raw ? (JSON.parse(raw) as SessionKeyState) : null;
  }

  async house(): Promise<HouseTotals> {
    const r = await this.redis.hmget(this.keys.house(), ...HOUSE_FIELDS);
    return Object.fromEntries(HOUSE_FIELDS.map((f, i) => [f, big(r[i])])) as HouseTotals;
  }

  /** @returns true when the item was applied now, false when it had been applied before */
  async applyChainItem(item: ChainItem, at: string): Promise<boolean> {
    const wallet = item.wallet ?? '-';
    const k = this.keys;
    const reply = await this.scripts.applyChainItem(
      [k.appliedChainItems(), k.player(wallet), k.sessionKeys(wallet), k.house(), k.journal(), k.journalSeq(), k.wallets()],
      [
        item.key, item.kind, (item.amount ?? 0n).toString(), item.sessionPubkey ?? '', item.slot, item.signature, at,
        item.wallet ? this.aliases.of(item.wallet) : '', wallet,
      ],
    );
    return reply === 1;
  }

  async isApplied(itemKey: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.appliedChainItems(), itemKey)) === 1;
  }
}
