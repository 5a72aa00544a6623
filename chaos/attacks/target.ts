// The service as an outsider sees it: its public config and house figures, and the chain read through its public RPC.
import { address, signature as toSignature, type Address } from '@solana/kit';
import { fetchMint } from '@solana-program/token';
import { ataOf } from '../../chain/genesis.ts';
import { createRpc, type SolanaRpc } from '../../chain/rpc.ts';
import { toMicro } from '../books.ts';
import { sleep } from '../ports.ts';

export interface PublicConfig {
  usdcMint: Address;
  lpMint: Address;
  /** The keeper key: it signs every payout and pays its fees. */
  vaultAuthority: Address;
  vaultTokenAccount: Address;
}

/** The house figures of GET /api/house that the attacks read, exact in micro-USDC. */
export interface HouseFigures {
  nav: bigint;
  gameNet: bigint;
  maxExposure: bigint;
  openExposure: bigint;
  maxPayout: bigint;
  maxBet: bigint;
}

/** An API decimal number as exact micro-USDC (a negative game net included). */
export const micro = toMicro;

export class Target {
  readonly rpc: SolanaRpc;

  private constructor(
    readonly api: string,
    readonly rpcUrl: string,
    readonly config: PublicConfig,
  ) {
    this.rpc = createRpc(rpcUrl, 30_000);
  }

  static async connect(api: string, rpcUrl: string): Promise<Target> {
    const res = await fetch(`${api}/protocol/v1/config`);
    if (!res.ok) throw new Error(`GET /protocol/v1/config answered ${res.status}`);
    const c = (await res.json()) as Record<string, string>;
    return new Target(api, rpcUrl, {
      usdcMint: address(c.usdcMint!),
      lpMint: address(c.lpMint!),
      vaultAuthority: address(c.vaultAuthority!),
      vaultTokenAccount: address(c.vaultTokenAccount!),
    });
  }

  async house(): Promise<HouseFigures> {
    const res = await fetch(`${this.api}/house`);
    if (!res.ok) throw new Error(`GET /house answered ${res.status}`);
    const h = ((await res.json()) as { house: Record<string, number> }).house;
    return {
      nav: micro(h.totalValue!),
      gameNet: micro(h.gameNet!),
      maxExposure: micro(h.maxExposure!),
      openExposure: micro(h.openExposure!),
      maxPayout: micro(h.maxPayout!),
      maxBet: micro(h.maxBet!),
    };
  }

  /** The LP mint's supply on-chain: the supply the keeper prices with whenever no LP job is half done. */
  async lpSupply(): Promise<bigint> {
    return (await fetchMint(this.rpc, this.config.lpMint)).data.supply;
  }

  async lamports(owner: Address | string): Promise<bigint> {
    return (await this.rpc.getBalance(address(owner)).send()).value;
  }

  /** A wallet's tokens of `mint` in its associated account, 0 without one. */
  async tokens(owner: Address | string, mint: Address): Promise<bigint> {
    const ata = await ataOf(address(owner), mint);
    const { value } = await this.rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
    return value ? BigInt((await this.rpc.getTokenAccountBalance(ata).send()).value.amount) : 0n;
  }

  /** Every transaction of the keeper's address after `since` (exclusive), oldest first, as they landed. */
  async keeperHistory(since: string | null): Promise<{ signature: string; failed: boolean }[]> {
    const sigs = await this.rpc.getSignaturesForAddress(this.config.vaultAuthority, { limit: 1000, ...(since ? { until: toSignature(since) } : {}) }).send();
    return sigs.map((s) => ({ signature: s.signature as string, failed: s.err !== null })).reverse();
  }

  /**
   * What the keeper's SOL paid since a reading: its loss, the fees of its own transactions since `since`, and the
   * rest (rent or transfers: what an attacker could take).
   */
  async keeperSpend(since: { bookmark: string | null; lamports: bigint }): Promise<{ lost: bigint; fees: bigint; beyondFees: bigint; sends: number }> {
    const [now, history] = await Promise.all([this.lamports(this.config.vaultAuthority), this.keeperHistory(since.bookmark)]);
    let fees = 0n;
    for (const tx of history) fees += await this.keeperFeeOf(tx.signature);
    const lost = since.lamports - now;
    return { lost, fees, beyondFees: lost - fees, sends: history.length };
  }

  async keeperReading(): Promise<{ bookmark: string | null; lamports: bigint }> {
    const [bookmark, lamports] = await Promise.all([this.keeperBookmark(), this.lamports(this.config.vaultAuthority)]);
    return { bookmark, lamports };
  }

  /** The newest signature of the keeper's history, a bookmark for {@link keeperSends}. */
  async keeperBookmark(): Promise<string | null> {
    const [newest] = await this.rpc.getSignaturesForAddress(this.config.vaultAuthority, { limit: 1 }).send();
    return newest ? (newest.signature as string) : null;
  }

  /** The fee the keeper paid for a landed transaction: its fee when the keeper was its fee payer, else 0. */
  async keeperFeeOf(sig: string): Promise<bigint> {
    const tx = await this.rpc.getTransaction(toSignature(sig), { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const payer = tx?.transaction.message.accountKeys[0];
    return tx?.meta && payer === this.config.vaultAuthority ? BigInt(tx.meta.fee) : 0n;
  }
}

/** Polls `check` until it returns a value, or gives up after `timeoutMs` and returns null. */
export async function within<T>(timeoutMs: number, check: () => Promise<T | null | undefined | false>, everyMs = 100): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) return null;
    await sleep(everyMs);
  }
}
