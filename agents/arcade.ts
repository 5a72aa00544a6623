/**
 * What an LLM agent can do in the arcade (design §9): read its state, and play Dice and Sweeper through THE bet
 * lifecycle (games/lifecycle.ts) with the wallet's agent key, recorded with source `mcp`, under the agent limits.
 * Every play returns what the agent needs to verify it itself: its seed, the commitment, the signed payload and
 * ack, the RNG index and reveal, and the receipt id.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Ack } from '../protocol/ack.ts';
import type { BetPayload } from '../protocol/bet-payload.ts';
import type { AgentLimitsView } from '../protocol/agent-limits.ts';
import { commitmentOf, isClientSeedHex } from '../protocol/commitment.ts';
import { gameRejected, PfwsError } from '../protocol/errors.ts';
import { microToNumber } from '../protocol/money.ts';
import type { BetStore } from '../store/bets.ts';
import type { TicketRecord, TicketStore } from '../store/tickets.ts';
import type { GameName, PrepareInput } from '../games/game.ts';
import { parseWager, type BetLifecycle } from '../games/lifecycle.ts';
import { ticketView, type SweeperGame } from '../games/sweeper.ts';
import type { AgentKey, AgentKeys, AgentKeyStatus } from './agent-keys.ts';
import type { AgentLimits } from './limits.ts';
import { WalletQueue } from './wallet-queue.ts';
import type { Address } from '../protocol/address.ts';

/** How often a play is prepared again when another commit of the wallet took its bet nonce first. */
const STALE_NONCE_RETRIES = 8;
const RECENT_PLAYS = 10;
/** An agent turn still unrevealed this long after its commit was cut short (a crash, an error) and is finished. */
const UNFINISHED_AFTER_MS = 30_000;

export interface AgentArcadeDeps {
  lifecycle: BetLifecycle;
  sweeper: SweeperGame;
  tickets: Pick<TicketStore, 'activeTicketId' | 'get'>;
  bets: Pick<BetStore, 'recentPlays' | 'playerTotals' | 'pendingBets' | 'bet' | 'saveRecoverySeed'>;
  keys: AgentKeys;
  limits: AgentLimits;
  clock: () => Date;
}

/** A settled Sweeper turn as the reveal reply shows it. */
export interface SweeperTurnView {
  kind: 'choice' | 'cashout';
  row: number | null;
  choiceColumn: number | null;
  mineColumn: number | null;
  safe: boolean | null;
  rngIndex: number;
  rngReveal: string | null;
}

export interface DicePlayInput {
  betAmount: unknown;
  target: unknown;
  direction: unknown;
  clientSeed?: string | undefined;
}

/** The setup transaction the wallet owner sends once to authorize the agent key (design §9). */
export const howToAuthorize = (sessionPubkey: string) => ({
  summary:
    'The wallet owner authorizes the agent key once with the normal setup transaction (a deposit is optional), ' +
    'signs it with the wallet and sends it, then syncs. The normal revoke transaction revokes it.',
  steps: [
    { method: 'POST', path: '/api/protocol/v1/player/setup-transaction', body: { amount: 0, sessionPubkey } },
    { action: 'sign the returned base64 transaction with the wallet and send it to the RPC named in GET /api/protocol/v1/config' },
    { method: 'POST', path: '/api/protocol/v1/player/sync' },
  ],
  revoke: { method: 'POST', path: '/api/protocol/v1/player/revoke-session-key-transaction', body: { sessionPubkey } },
});

const hasReason = (err: unknown, reason: string) => err instanceof PfwsError && err.details?.reason === reason;

/** The agent's clientSeed (32 bytes of hex), or a fresh one. @throws {PfwsError} INVALID_REQUEST */
function seedOf(clientSeed: string | undefined): string {
  if (clientSeed === undefined) return randomBytes(32).toString('hex');
  if (!isClientSeedHex(clientSeed.toLowerCase())) throw new PfwsError('INVALID_REQUEST', 'clientSeed must be 32 bytes of hex (64 hex characters)');
  return clientSeed.toLowerCase();
}

/** What a settled turn gives the agent to check it: the seed opens the commitment, the ack binds the RNG index. */
function proofOf(seed: string, commitment: string, prepared: { betPayload: BetPayload; betPayloadHash: string }, ack: Ack, rngReveal: unknown) {
  return {
    clientSeed: seed,
    commitment,
    betPayloadHash: prepared.betPayloadHash,
    betPayload: prepared.betPayload,
    sessionPubkey: prepared.betPayload.sessionPubkey,
    rngIndex: ack.rngIndex,
    rngChainHead: ack.rngChainHead,
    rngReveal,
    ack,
  };
}

export class AgentArcade {
  readonly #queue = new WalletQueue();

  constructor(readonly deps: AgentArcadeDeps) {}

  /** Everything an agent needs to decide its next call, with the next steps spelled out. */
  async state(wallet: Address) {
    const { bets, tickets, keys, limits } = this.deps;
    const [agentKey, player, limitsView, activeId, dice, sweeper] = await Promise.all([
      keys.status(wallet),
      bets.playerTotals(wallet),
      limits.view(wallet),
      tickets.activeTicketId(wallet),
      bets.recentPlays(wallet, 'dice', RECENT_PLAYS),
      bets.recentPlays(wallet, 'sweeper', RECENT_PLAYS),
    ]);
    const active = activeId ? await tickets.get(activeId) : null;
    const at = (p: Record<string, unknown>) => String(p.settledAt ?? p.endedAt ?? '');
    const recentPlays = [
      ...(dice as Record<string, unknown>[]).map((p) => ({ game: 'dice', ...p })),
      ...(sweeper as Record<string, unknown>[]).map((p) => ({ game: 'sweeper', ...p })),
    ]
      .sort((a, b) => at(b).localeCompare(at(a)))
      .slice(0, RECENT_PLAYS);
    const balance = microToNumber(player.balance);
    const activeTicket = active ? ticketView(active) : null;
    return {
      balance,
      stakedInPlay: microToNumber(player.staked),
      agentKey: { ...agentKey, ...(agentKey.authorized ? {} : { howToAuthorize: howToAuthorize(agentKey.sessionPubkey) }) },
      activeTicket,
      recentPlays,
      limits: limitsView,
      nextSteps: nextSteps(agentKey, balance, activeTicket, limitsView),
    };
  }

  /** One Dice bet: prepare, sign, commit, store the seed for recovery, sign the reveal message, reveal. */
  async playDice(wallet: Address, input: DicePlayInput) {
    const stake = parseWager(input.betAmount, 'betAmount');
    const key = await this.deps.keys.key(wallet);
    // Two reads that do not depend on each other, in one round trip to Redis.
    await Promise.all([this.deps.limits.check(wallet, stake), this.#finishCutShort(wallet, key)]);
    const turn = await this.#play('dice', wallet, key, { wager: input.betAmount, target: input.target, direction: input.direction }, input.clientSeed);
    const reply = turn.settled as { receiptId: string; outcome: Record<string, unknown>; rngReveal: string | null; betLogEntryHash: string };
    return {
      game: 'dice' as const,
      source: 'mcp' as const,
      receiptId: reply.receiptId,
      betAmount: microToNumber(stake),
      outcome: reply.outcome,
      balance: turn.player.balance,
      proof: { ...proofOf(turn.seed, turn.commitment, turn.prepared, turn.ack, reply.rngReveal), betLogEntryHash: reply.betLogEntryHash },
      verify: `npx pfws-verify receipt ${reply.receiptId}`,
      limits: await this.deps.limits.view(wallet),
    };
  }

  /** Opens a Sweeper ticket with the agent key; its stake counts against the window now. */
  async openTicket(wallet: Address, input: { betAmount: unknown; mode: unknown }) {
    const stake = parseWager(input.betAmount, 'betAmount');
    const { limits, keys, sweeper, lifecycle } = this.deps;
    await limits.check(wallet, stake);
    const key = await keys.key(wallet);
    const opened = await this.#asAgent(wallet, key, () =>
      sweeper.openTicket(lifecycle, wallet, { mode: input.mode, sessionPubkey: key.sessionPubkey, wager: input.betAmount }, 'mcp'),
    );
    return { game: 'sweeper' as const, source: 'mcp' as const, ticket: opened.ticket, balance: opened.player.balance, limits: await limits.view(wallet) };
  }

  /** A choice on the next row of the agent's open ticket. */
  async choose(wallet: Address, input: { column: unknown; clientSeed?: string | undefined }) {
    const ticket = await this.#agentTicket(wallet);
    return this.#sweeperTurn(wallet, { ticketId: ticket.id, row: ticket.rowsWon, choiceColumn: input.column, turn: 'choice' }, input.clientSeed);
  }

  /** Cashes the agent's open ticket out at its current payout (at least one cleared row). */
  async cashout(wallet: Address, input: { clientSeed?: string | undefined }) {
    const ticket = await this.#agentTicket(wallet);
    return this.#sweeperTurn(wallet, { ticketId: ticket.id, turn: 'cashout' }, input.clientSeed);
  }

  async #sweeperTurn(wallet: Address, input: Record<string, unknown>, clientSeed: string | undefined) {
    const key = await this.deps.keys.key(wallet);
    await this.#finishCutShort(wallet, key);
    const turn = await this.#play('sweeper', wallet, key, input, clientSeed);
    const reply = turn.settled as {
      ticketId: string;
      turn: SweeperTurnView;
      ticket: Record<string, unknown>;
      receiptId: string | null;
      betLogEntryHash: string | null;
    };
    return {
      game: 'sweeper' as const,
      source: 'mcp' as const,
      ticketId: reply.ticketId,
      turn: reply.turn,
      ticket: reply.ticket,
      receiptId: reply.receiptId,
      balance: turn.player.balance,
      proof: proofOf(turn.seed, turn.commitment, turn.prepared, turn.ack, reply.turn.rngReveal),
      ...(reply.receiptId ? { verify: `npx pfws-verify receipt ${reply.receiptId}` } : {}),
      limits: await this.deps.limits.view(wallet),
    };
  }

  /** The wallet's running ticket, which must be one the agent opened. */
  async #agentTicket(wallet: Address): Promise<TicketRecord> {
    const id = await this.deps.tickets.activeTicketId(wallet);
    const ticket = id ? await this.deps.tickets.get(id) : null;
    if (!ticket) throw gameRejected('No active Sweeper ticket: open one with sweeper_open', 'no_active_ticket');
    if (ticket.source !== 'mcp') {
      throw gameRejected('The active ticket was opened outside MCP; finish it through the REST API, where its session key is', 'not_agent_ticket', {
        ticketId: ticket.id,
      });
    }
    return ticket;
  }

  /**
   * One turn through the lifecycle with the agent key. Prepare and commit run one at a time per wallet in this
   * process, since the bet nonce orders a wallet's commits anyway; a commit that another process (or the REST API)
   * beat to the nonce is prepared again. The seed goes to the recovery store before the reveal, so a crash in
   * between still settles the bet with it. Callers finish the agent's turns cut short first (#finishCutShort).
   */
  async #play(game: GameName, wallet: Address, key: AgentKey, input: Record<string, unknown>, clientSeed: string | undefined) {
    const { lifecycle } = this.deps;
    const seed = seedOf(clientSeed);
    const commitment = commitmentOf(seed);
    const body: PrepareInput = { ...input, commitment, sessionPubkey: key.sessionPubkey };
    const { prepared, commit } = await this.#asAgent(wallet, key, () =>
      this.#queue.run(wallet, async () => {
        for (let attempt = 0; ; attempt++) {
          const prepared = await lifecycle.prepare(game, wallet, body, 'mcp');
          try {
            const sessionSignature = key.signHash(prepared.betPayloadHash);
            const commit = await lifecycle.commit(
              game,
              wallet,
              { betPayload: prepared.betPayload, betPayloadHash: prepared.betPayloadHash, sessionSignature },
              'mcp',
            );
            return { prepared, commit };
          } catch (err) {
            if (hasReason(err, 'stale_nonce') && attempt < STALE_NONCE_RETRIES) continue;
            throw err;
          }
        }
      }),
    );
    // The bet this agent just committed, with this seed's commitment: nothing to read back before keeping the seed.
    await this.deps.bets.saveRecoverySeed(prepared.betPayloadHash, seed);
    const revealed = await lifecycle.reveal(game, wallet, prepared.betPayloadHash, seed, key.signText(commit.revealMessage));
    const { player, ...settled } = revealed as Record<string, unknown> & { player: { balance: number } };
    return { seed, commitment, prepared: prepared as { betPayload: BetPayload; betPayloadHash: string }, ack: commit.ack, settled, player };
  }

  /**
   * Reveals the agent's turns that were committed but never revealed (the process stopped, or the reveal failed),
   * with the seed kept in the recovery store, so a bet settles now rather than at its deadline and a ticket is not
   * left waiting on its turn. Best effort: what cannot be finished now settles at the deadline as always.
   */
  async #finishCutShort(wallet: Address, key: AgentKey): Promise<void> {
    const { bets, lifecycle, clock } = this.deps;
    const hashes = await bets.pendingBets(wallet);
    for (const hash of hashes) {
      try {
        const bet = await bets.bet(hash);
        if (bet?.state !== 'committed' || bet.sessionPubkey !== key.sessionPubkey) continue;
        if (clock().getTime() - Date.parse(bet.committedAt) < UNFINISHED_AFTER_MS) continue;
        const seed = await lifecycle.knownSeed(bet);
        if (!seed) continue;
        const { ack } = await lifecycle.fetchRecoverySeed(wallet, hash);
        await lifecycle.reveal(bet.game, wallet, hash, seed, key.signText(ack.revealMessage));
      } catch {
        // Left to the deadline pass, which settles it with the same seed.
      }
    }
  }

  /** Runs a play, turning the ledger's refusals that concern the agent into answers an agent can act on. */
  async #asAgent<T>(wallet: Address, key: AgentKey, play: () => Promise<T>): Promise<T> {
    try {
      return await play();
    } catch (err) {
      if (hasReason(err, 'agent_wager_limit')) throw this.deps.limits.capReached(await this.deps.limits.view(wallet));
      if (err instanceof PfwsError && err.code === 'SESSION_KEY_NOT_AUTHORIZED') {
        const status = await this.deps.keys.status(wallet);
        const what = status.status === 'revoked' ? 'was revoked by the wallet' : 'is not authorized yet';
        throw new PfwsError(
          'SESSION_KEY_NOT_AUTHORIZED',
          `The agent key ${key.sessionPubkey} ${what}. The wallet owner must send a setup transaction naming it ` +
            `(POST /api/protocol/v1/player/setup-transaction { amount, sessionPubkey: "${key.sessionPubkey}" }), then POST /api/protocol/v1/player/sync. ` +
            'get_arcade_state shows the steps.',
          { sessionPubkey: key.sessionPubkey, status: status.status, howToAuthorize: howToAuthorize(key.sessionPubkey) },
        );
      }
      throw err;
    }
  }
}

/** The agent's next moves, in words, from its state. */
function nextSteps(key: AgentKeyStatus, balance: number, ticket: ReturnType<typeof ticketView> | null, limits: AgentLimitsView): string[] {
  const steps: string[] = [];
  if (!key.authorized) {
    steps.push(
      key.status === 'revoked'
        ? `The wallet revoked the agent key ${key.sessionPubkey}. Only the wallet owner can authorize it again, with a new setup transaction (agentKey.howToAuthorize).`
        : `The agent key ${key.sessionPubkey} is not authorized yet. Ask the wallet owner to authorize it once with the setup transaction in agentKey.howToAuthorize; plays fail until then.`,
    );
  }
  if (balance <= 0) steps.push('The balance is empty: top it up with top_up { amount } (an x402 payment), or the wallet owner deposits.');
  if (ticket && ticket.status === 'running') {
    steps.push(
      `A Sweeper ticket is open (${ticket.mode}, row ${ticket.rowsWon} of ${ticket.rows} next, current payout ${ticket.payout} USDC): ` +
        `sweeper_choose { column: 0..${ticket.columns - 1} }${ticket.rowsWon > 0 ? ' or sweeper_cashout' : ''}.`,
    );
  }
  if (limits.remaining <= 0) {
    steps.push(
      `The agent wager limit is reached (${limits.wagered} of ${limits.maxWagered} USDC); it frees up from ${limits.resetsAt}. Read-only tools still work.`,
    );
  } else if (key.authorized && balance > 0 && !ticket) {
    steps.push(
      `Ready: play_dice { betAmount ≤ ${Math.min(limits.maxBet, limits.remaining)}, target, direction } or sweeper_open { betAmount, mode }. ` +
        `${limits.remaining} USDC of the ${limits.maxWagered} USDC cap remains in this window${limits.resetsAt ? `; the oldest stake leaves it at ${limits.resetsAt}` : ''}.`,
    );
  }
  return steps;
}
