// An attacker's wallet: the public HTTP API, its own wallet and session keys, and signed chain transactions, nothing
// else. What it holds (USDC on-chain and in the arcade, LP shares, SOL) is read the way anyone can read it.
import { address } from '@solana/kit';
import { getBurnCheckedInstruction, getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstructionAsync } from '@solana-program/token';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { formatMicro, parseAmount } from '../../protocol/money.ts';
import { Player } from '../../test/helpers/player.ts';
import { sleep } from '../ports.ts';
import { micro, within, type Target } from './target.ts';

/** A Dice bet committed and not yet revealed: the attacker holds its seed. */
export interface OpenBet {
  betPayloadHash: string;
  clientSeedRaw: string;
  revealMessage: string;
  wager: bigint;
  committedAt: string;
  revealDeadline: string;
}

export interface Refusal {
  status: number;
  code?: string;
  reason?: string;
  details?: Record<string, unknown>;
}

const refusalOf = (res: { status: number; body: any }): Refusal => ({
  status: res.status,
  ...(res.body?.error?.code ? { code: res.body.error.code } : {}),
  ...(res.body?.error?.details?.reason ? { reason: res.body.error.details.reason } : {}),
  ...(res.body?.error?.details ? { details: res.body.error.details } : {}),
});

export const describeRefusal = (r: Refusal): string => `${r.status} ${r.code ?? ''}${r.reason ? ` ${r.reason}` : ''}`;

/**
 * Sends a request again while it answers 503: the service wrote nothing (README, SERVICE_UNAVAILABLE) and asks the
 * client to retry, which a loaded machine makes happen.
 */
async function retrying503<T extends { status: number }>(what: string, send: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    const res = await send();
    if (res.status !== 503 || i >= attempts) return res;
    unavailable.push(what);
    await sleep(250 * Math.min(i, 8));
  }
}

/** Every request the service answered 503 (and the attacker sent again), as `METHOD path`, oldest first. */
export const unavailable: string[] = [];

export class Attacker extends Player {
  constructor(readonly target: Target) {
    super(target.api, target.rpcUrl);
  }

  override get<T = any>(path: string) {
    return retrying503(`GET ${path.split('?')[0]}`, () => super.get<T>(path));
  }

  override post<T = any>(path: string, body: unknown = {}) {
    return retrying503(`POST ${path}`, () => super.post<T>(path, body));
  }

  /** A fresh wallet with `usdc` and `sol` from the dev faucet, signed in; with `arcade`, that much deposited to play. */
  static async create(target: Target, opts: { usdc: number; sol?: number; arcade?: number }): Promise<Attacker> {
    const a = new Attacker(target);
    await a.init();
    await a.faucet(opts.usdc, opts.sol ?? 1);
    await a.login();
    if (opts.arcade) {
      await a.setup(opts.arcade);
      const amount = parseAmount(opts.arcade);
      const credited = await within(30_000, async () => (await a.arcadeMicro()) >= amount);
      if (!credited) throw new Error(`the deposit of ${opts.arcade} USDC was not credited`);
    }
    return a;
  }

  async status(): Promise<any> {
    const res = await this.get('/protocol/v1/player/status');
    if (res.status !== 200) throw new Error(`player/status: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Balance, stakes in play and pending withdrawals: what the arcade owes this wallet. */
  async arcadeMicro(): Promise<bigint> {
    const s = await this.status();
    return micro(s.balance) + micro(s.stakedInPlay) + micro(s.pendingWithdrawals);
  }

  usdcMicro(): Promise<bigint> {
    return this.target.tokens(this.address, this.target.config.usdcMint);
  }

  lpShares(): Promise<bigint> {
    return this.target.tokens(this.address, this.target.config.lpMint);
  }

  lamports(): Promise<bigint> {
    return this.target.lamports(this.address);
  }

  /** USDC on-chain plus what the arcade owes it. */
  async worth(): Promise<bigint> {
    const [onChain, arcade] = await Promise.all([this.usdcMicro(), this.arcadeMicro()]);
    return onChain + arcade;
  }

  /**
   * Commits a 99x Dice bet (under 1.00) of `wager` micro-USDC and keeps it unrevealed.
   * @returns the open bet, or the service's refusal at prepare or commit
   */
  async commit99x(wager: bigint): Promise<OpenBet | Refusal> {
    const prepared = await this.prepareDice({ wager: formatMicro(wager), target: 1, direction: 'under' });
    if (prepared.res.status !== 200) return refusalOf(prepared.res);
    const committed = await this.commitDice(prepared.res.body);
    if (committed.status !== 200) return refusalOf(committed);
    const ack = committed.body.ack;
    return {
      betPayloadHash: prepared.res.body.betPayloadHash,
      clientSeedRaw: prepared.clientSeedRaw,
      revealMessage: ack.revealMessage,
      wager,
      committedAt: ack.committedAt,
      revealDeadline: ack.revealDeadline,
    };
  }

  /** Reveals an open bet; a bet the deadline already settled answers with its receipt. @returns the payout */
  async reveal(bet: OpenBet): Promise<bigint> {
    const res = await this.revealDice(bet.betPayloadHash, bet.clientSeedRaw, bet.revealMessage);
    if (res.status === 200) return BigInt(res.body.outcome.payoutMicro);
    const receipt = await this.get(`/receipts/dice_${bet.betPayloadHash.slice(0, 32)}`);
    if (receipt.status === 200) return micro(receipt.body.receipt.payout);
    throw new Error(`reveal: ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** Commits a choice turn on `row` of a running ticket and keeps it unrevealed. `wager` is the ticket's stake. */
  async commitChoice(ticketId: string, row: number, column: number, wager: bigint): Promise<OpenBet | Refusal> {
    const prepared = await this.prepareChoice(ticketId, row, column);
    if (prepared.res.status !== 200) return refusalOf(prepared.res);
    const committed = await this.commitSweeper(prepared.res.body);
    if (committed.status !== 200) return refusalOf(committed);
    const ack = committed.body.ack;
    return {
      betPayloadHash: prepared.res.body.betPayloadHash,
      clientSeedRaw: prepared.clientSeedRaw,
      revealMessage: ack.revealMessage,
      wager,
      committedAt: ack.committedAt,
      revealDeadline: ack.revealDeadline,
    };
  }

  /** Reveals a Sweeper turn. @returns the ticket after it */
  async revealTurn(turn: OpenBet): Promise<{ id: string; status: string; rowsWon: number }> {
    const res = await this.revealSweeper(turn.betPayloadHash, turn.clientSeedRaw, turn.revealMessage);
    if (res.status !== 200) throw new Error(`sweeper reveal: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.ticket;
  }

  /** Cashes a running ticket with a cleared row out: prepare, commit, reveal. */
  async cashOut(ticketId: string): Promise<void> {
    const prepared = await this.prepareCashout(ticketId);
    if (prepared.res.status !== 200) throw new Error(`cashout prepare: ${prepared.res.status} ${JSON.stringify(prepared.res.body)}`);
    const committed = await this.commitSweeper(prepared.res.body);
    if (committed.status !== 200) throw new Error(`cashout commit: ${committed.status} ${JSON.stringify(committed.body)}`);
    const revealed = await this.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, committed.body.ack.revealMessage);
    if (revealed.status !== 200) throw new Error(`cashout reveal: ${revealed.status} ${JSON.stringify(revealed.body)}`);
  }

  /** The wallet's open exposure as player/status reports it. */
  async exposure(): Promise<bigint> {
    return micro((await this.status()).exposure);
  }

  /** Signs and sends the service's unsigned LP deposit of `amount` micro-USDC. */
  async lpDeposit(amount: bigint): Promise<string> {
    const built = await this.post('/protocol/v1/house/lp-deposit-transaction', { amount: formatMicro(amount) });
    if (built.status !== 200) throw new Error(`lp-deposit-transaction: ${built.status} ${JSON.stringify(built.body)}`);
    return this.signAndSend(built.body.transaction);
  }

  async lpRedeem(shares: bigint): Promise<string> {
    const built = await this.post('/protocol/v1/house/lp-redeem-transaction', { shares: formatMicro(shares) });
    if (built.status !== 200) throw new Error(`lp-redeem-transaction: ${built.status} ${JSON.stringify(built.body)}`);
    return this.signAndSend(built.body.transaction);
  }

  withdraw(amount: unknown, idempotencyKey?: string): Promise<{ status: number; body: any }> {
    return retrying503('POST /protocol/v1/player/withdraw', async () => {
      const res = await fetch(`${this.api}/protocol/v1/player/withdraw`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${this.token}`,
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify({ amount }),
      });
      return { status: res.status, body: await res.json() };
    });
  }

  /** Burns what the wallet's USDC account holds and closes it, taking its rent back. */
  async closeUsdcAccount(): Promise<void> {
    const mint = this.target.config.usdcMint;
    const ata = await ataOf(address(this.address), mint);
    // The keeper may pay into the account between the balance read and the close, which then fails as not empty:
    // read again and retry.
    for (let attempt = 1; ; attempt++) {
      const held = await this.usdcMicro();
      try {
        await sendAndConfirm(this.target.rpc, this.signer, [
          ...(held > 0n ? [getBurnCheckedInstruction({ account: ata, mint, authority: this.signer, amount: held, decimals: 6 })] : []),
          getCloseAccountInstruction({ account: ata, destination: this.signer.address, owner: this.signer }),
        ]);
        return;
      } catch (err) {
        if (attempt >= 5) throw new Error(`closing the USDC account (${held} micro held): ${simulationLogs(err)}`, { cause: err });
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }

  /** Creates the wallet's USDC account again, paying its rent itself. */
  async openUsdcAccount(): Promise<void> {
    const mint = this.target.config.usdcMint;
    const open = await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: this.signer, owner: this.signer.address, mint });
    // An open right after an earlier one, under the same blockhash, is the same transaction: the chain refuses it as
    // already processed. Retry once the blockhash has moved on.
    for (let attempt = 1; ; attempt++) {
      try {
        await sendAndConfirm(this.target.rpc, this.signer, [open]);
        return;
      } catch (err) {
        if (attempt >= 5) throw new Error(`opening the USDC account: ${simulationLogs(err)}`, { cause: err });
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }
}

/** What a failed send's preflight said: its logs, which name the instruction and the program's reason. */
function simulationLogs(err: unknown): string {
  const context = (err as { context?: { logs?: string[] } } | null)?.context;
  return context?.logs?.length ? context.logs.join(' | ') : String((err as Error)?.message ?? err);
}

export const isRefusal = (x: OpenBet | Refusal): x is Refusal => 'status' in x;

/** `n` fresh wallets made as {@link Attacker.create} makes one, eight at a time. */
export async function wallets(target: Target, n: number, opts: Parameters<typeof Attacker.create>[1]): Promise<Attacker[]> {
  const out: Attacker[] = [];
  for (let i = 0; i < n; i += 8) out.push(...(await Promise.all(Array.from({ length: Math.min(8, n - i) }, () => Attacker.create(target, opts)))));
  return out;
}
