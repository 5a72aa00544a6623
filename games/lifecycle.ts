/**
 * The one bet lifecycle: prepare → commit → reveal → settle → receipt, for every game and every caller (the
 * REST routes, the MCP tools with the agent's key, the deadline pass, wallet reveal memos). A game supplies
 * only its rules (games/game.ts).
 * @module
 */
import type { Ack } from '../protocol/ack.ts';
import type { Address, Base58Key } from '../protocol/address.ts';
import type { AgentLimitSettings } from '../protocol/agent-limits.ts';
import { betPayloadHashOf, PROTOCOL_ID, type BetPayload } from '../protocol/bet-payload.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import { utf8 } from '../protocol/encoding.ts';
import { gameRejected, PfwsError, rejectionError } from '../protocol/errors.ts';
import { isHex32, type Hex32 } from '../protocol/hex32.ts';
import { exposureRefusal, limitsOf, type LimitSettings } from '../protocol/house.ts';
import { AmountError, microToNumber, parseAmount } from '../protocol/money.ts';
import type { PlaySource, SeedReveal } from '../protocol/receipt.ts';
import { verifyBase64Signature, verifySessionSignature } from '../protocol/signatures.ts';
import type { AckSource, BetRecord, BetStore, PlayerTotals, PreparedBet, PrepareView } from '../store/bets.ts';
import type { GameName, GameRegistry, PrepareInput } from './game.ts';

export interface LifecycleSettings {
  prepareTtlMs: number;
  revealDeadlineMs: number;
  /**
   * While the house's open exposure is above `thresholdBps` of maxExposure, a new bet or turn that adds exposure gets
   * `revealDeadlineMs` of this instead (design §10: holding scarce exposure costs the house edge every few minutes).
   */
  scarceExposure?: { thresholdBps: number; revealDeadlineMs: number };
  limits: LimitSettings;
  /** The agent window an MCP stake counts against, checked in the commit script (design §9). */
  agent: AgentLimitSettings;
  /** Outstanding prepared bets per wallet; a new one past the cap expires the oldest. */
  maxPreparedPerWallet: number;
  /** Committed bets per wallet awaiting their reveal; one more commit is GAME_INPUT_REJECTED (unrevealed_limit). */
  maxUnrevealedPerWallet: number;
}

export interface LifecycleDeps {
  bets: BetStore;
  games: GameRegistry;
  /** The public alias a payload names instead of the wallet. */
  aliasOf: (wallet: Address) => string;
  /** Signs a committed bet's ack (deterministic, so every replay gets the same ack). */
  ackOf: (bet: AckSource) => Ack;
  /** s_index of an operator RNG chain. */
  rngValue: (chainId: number, index: number) => string;
  clock: () => Date;
  settings: LifecycleSettings;
  /** Told of each bet (for Sweeper, each turn) committed and settled the first time, never of a replay: metrics count them. */
  observer?: LifecycleObserver;
  /**
   * The public key of the wallet's agent session key (design §9), held by the service for its MCP plays, or null
   * when it has none: only MCP may play with it, inside the agent limits.
   */
  agentKeyOf: (wallet: Address) => Promise<Base58Key | null>;
}

export interface LifecycleObserver {
  committed(game: GameName): void;
  settled(game: GameName, source: PlaySource): void;
}

/** What prepare checks a bet or turn for. */
export interface PreflightInput {
  sessionPubkey: string;
  commitment: string;
  wager: bigint;
  maxPayout: bigint;
  exposure: bigint;
  locks: 'stake' | 'play';
}

/** What a commit body carries besides the game's own fields. */
export interface CommitBody {
  betPayload: unknown;
  betPayloadHash: string;
  sessionSignature: string;
  [field: string]: unknown;
}

export const playerView = (p: PlayerTotals) => ({
  balance: microToNumber(p.balance),
  exposure: microToNumber(p.exposure),
  stakedInPlay: microToNumber(p.staked),
  nonce: p.nonce,
});

/**
 * A positive amount with at most 6 decimals, as micro-USDC.
 * @throws {PfwsError} INVALID_BET_AMOUNT naming the field
 */
export function parseWager(value: unknown, field = 'wager'): bigint {
  try {
    return parseAmount(value);
  } catch (err) {
    if (err instanceof AmountError) throw new PfwsError('INVALID_BET_AMOUNT', `${field}: ${err.message}`);
    throw err;
  }
}

const keyRejection = (status: string | null) =>
  new PfwsError(
    'SESSION_KEY_NOT_AUTHORIZED',
    status ? 'The session key was revoked' : 'The session key is not authorized: send the setup transaction and sync first',
  );

/** How many (wallet, session key) pairs known not to be the wallet's agent key a process remembers. */
const NOT_AGENT_KEYS_LIMIT = 100_000;

/** Bets a process holds from their commit to their reveal: a reveal follows within seconds, so thousands in flight. */
const COMMITTED_LIMIT = 4096;

/** How many wallets' next bet nonces a process remembers. */
const NONCES_LIMIT = 10_000;

export class BetLifecycle {
  /**
   * A wallet's agent key never changes once made, and a key made later is fresh random bytes, so a key once found
   * not to be it never will be: each REST play step then skips the read.
   */
  readonly #notAgentKeys = new Set<string>();

  /**
   * The bets this process committed, with their acks, until their reveal. A client reveals on the connection it
   * committed on, so mostly in this process, which then neither reads the bet back nor looks its ack up: the settle
   * script re-reads the bet's state, and what is held here is what the commit stored and never changes.
   */
  readonly #committed = new Map<string, { bet: BetRecord; ack: Ack }>();

  /**
   * The nonce each wallet's next bet carries, as this process last saw it (a prepare's read, or one more than its
   * commit's). Prepare builds the payload with it and stores it in the same call as its read, which stores nothing
   * when the nonce has moved on elsewhere; prepare then builds it again with the nonce it read.
   */
  readonly #nonces = new Map<string, number>();

  constructor(readonly deps: LifecycleDeps) {}

  /**
   * The service-held agent key plays only through MCP, where the agent limits apply; a REST caller (`api`) naming it
   * is refused, whatever it signs. Every play step that names a key checks this first.
   * @throws {PfwsError} GAME_INPUT_REJECTED `agent_key_rest_forbidden`
   */
  async checkKeySource(wallet: Address, sessionPubkey: unknown, source: PlaySource): Promise<void> {
    if (source !== 'api' || typeof sessionPubkey !== 'string') return;
    const pair = `${wallet} ${sessionPubkey}`;
    if (this.#notAgentKeys.has(pair)) return;
    if ((await this.deps.agentKeyOf(wallet)) !== sessionPubkey) {
      if (this.#notAgentKeys.size >= NOT_AGENT_KEYS_LIMIT) this.#notAgentKeys.clear();
      this.#notAgentKeys.add(pair);
      return;
    }
    throw gameRejected(
      "This session key is the wallet's agent key: it plays only through the MCP tools (/api/mcp), within the agent limits. Sign REST plays with a session key of your own.",
      'agent_key_rest_forbidden',
    );
  }

  /**
   * Everything prepare checks, from one atomic read: the key, the commitment, for a new stake the balance and the live
   * limits, and the exposure it would reserve (`exposure`) within maxExposure and the wallet's share. A new stake's
   * worst case (`maxPayout − wager`) must fit the headroom under maxExposure even when it reserves less (a ticket
   * open). The commit script checks them all again.
   * @returns the bet nonce the payload carries
   */
  async preflight(wallet: Address, p: PreflightInput): Promise<number> {
    return this.checkView(await this.deps.bets.prepareView(wallet, p.sessionPubkey, p.commitment), p);
  }

  /**
   * Prepare's checks on the state it read (`preflight`).
   * @returns the bet nonce the payload carries
   */
  checkView(view: PrepareView, p: PreflightInput): number {
    if (view.sessionKeyStatus !== 'active') throw keyRejection(view.sessionKeyStatus);
    if (view.commitmentUsed) throw gameRejected('This commitment was used before; every bet needs a fresh client seed', 'commitment_used');
    if (p.locks === 'play' && p.exposure === 0n) return view.nonce;
    const limits = limitsOf(view.house, this.deps.settings.limits);
    const usdc = (m: bigint) => microToNumber(m);
    if (limits.nav <= 0n) throw gameRejected('Betting is paused: the house NAV is not positive', 'house_closed');
    if (p.locks === 'stake') {
      if (p.wager > view.balance)
        throw gameRejected(`The wager exceeds the balance (${usdc(view.balance)})`, 'insufficient_balance', { balance: usdc(view.balance) });
      if (p.wager > limits.maxBet) throw gameRejected(`The wager exceeds house.maxBet (${usdc(limits.maxBet)})`, 'max_bet', { maxBet: usdc(limits.maxBet) });
      if (p.maxPayout > limits.maxPayout) {
        throw gameRejected(`The possible payout ${usdc(p.maxPayout)} exceeds house.maxPayout (${usdc(limits.maxPayout)})`, 'max_payout', {
          maxPayout: usdc(limits.maxPayout),
        });
      }
    }
    const headroom = p.locks === 'stake' ? p.maxPayout - p.wager : p.exposure;
    const refusal = exposureRefusal(limits, { house: view.house.exposure, wallet: view.exposure }, { headroom, reserve: p.exposure });
    if (refusal?.reason === 'max_exposure') {
      throw gameRejected('The bet would take the house over maxExposure', 'max_exposure', { maxExposure: usdc(refusal.limit) });
    }
    if (refusal) {
      throw gameRejected(
        `The bet would take this wallet's open exposure over its share of maxExposure (${usdc(refusal.limit)}); reveal or finish open bets first`,
        'wallet_exposure',
        { maxWalletExposure: usdc(refusal.limit), walletExposure: usdc(view.exposure) },
      );
    }
    return view.nonce;
  }

  /**
   * Step 1: the game plans the turn; the canonical payload is built, stored until it expires, and returned. With the
   * wallet's nonce known here, the payload is stored in the same call as prepare's read.
   */
  async prepare(game: GameName, wallet: Address, input: PrepareInput, source: PlaySource) {
    const { bets, clock, settings } = this.deps;
    const { commitment } = input;
    if (!isHex32(commitment)) throw new PfwsError('INVALID_REQUEST', 'commitment must be 32 bytes of lowercase hex');
    await this.checkKeySource(wallet, input.sessionPubkey, source);
    const plan = await this.deps.games[game].planTurn(wallet, input);
    // Returned only once the checks found the key active in the wallet's key set, which holds only parsed keys.
    const sessionPubkey = input.sessionPubkey as Base58Key;
    const expiresAtMs = clock().getTime() + settings.prepareTtlMs;
    const build = (betNonce: number) => {
      const betPayload = {
        protocol: PROTOCOL_ID,
        game,
        player: this.deps.aliasOf(wallet),
        sessionPubkey,
        betNonce,
        wager: plan.wager.toString(),
        params: plan.params,
        commitment,
        expiresAt: new Date(expiresAtMs).toISOString(),
      } as BetPayload;
      const hash = betPayloadHashOf(betPayload);
      const bet: PreparedBet = {
        wallet,
        game,
        payload: JSON.stringify(betPayload),
        wager: plan.wager,
        maxPayout: plan.locks === 'stake' ? plan.maxPayout : 0n,
        exposureDelta: plan.exposure,
        sessionPubkey,
        commitment,
        betNonce,
        expiresAtMs,
        ...(plan.ticketId ? { ticketId: plan.ticketId } : {}),
        ...(plan.turn ? { turn: plan.turn } : {}),
        source,
      };
      return { betPayload, hash, bet };
    };
    const known = this.#nonces.get(wallet);
    let built = known === undefined ? null : build(known);
    const save = built
      ? { hash: built.hash, bet: built.bet, ttlMs: settings.prepareTtlMs, cap: settings.maxPreparedPerWallet, locks: plan.locks, limits: settings.limits }
      : undefined;
    const view = await bets.prepareView(wallet, input.sessionPubkey, commitment, save);
    const betNonce = this.checkView(view, Object.assign({}, plan, { sessionPubkey: input.sessionPubkey, commitment }));
    if (!built || built.bet.betNonce !== betNonce) built = build(betNonce);
    if (!view.saved) await bets.savePrepared(built.hash, built.bet, settings.prepareTtlMs, settings.maxPreparedPerWallet);
    this.#rememberNonce(wallet, betNonce);
    return { betPayload: built.betPayload, betPayloadHash: built.hash, ...plan.reply };
  }

  #rememberNonce(wallet: Address, nonce: number): void {
    if (this.#nonces.size >= NONCES_LIMIT && !this.#nonces.has(wallet)) this.#nonces.clear();
    this.#nonces.set(wallet, nonce);
  }

  /**
   * Step 2: the session key's signature over the payload hash, then the atomic commit (store/scripts/commit_bet.lua)
   * that locks the stake and assigns the RNG index. A re-sent commit gets the same ack, and names the bet's state.
   */
  async commit(game: GameName, wallet: Address, body: CommitBody, source: PlaySource) {
    const { bets, clock, settings } = this.deps;
    await this.checkKeySource(wallet, (body.betPayload as { sessionPubkey?: unknown } | null)?.sessionPubkey, source);
    const { payload, betPayloadHash } = checkCommitBody(body.betPayload, body.betPayloadHash, body.sessionSignature, game);
    const rules = this.deps.games[game];
    rules.checkCommit(payload, body);
    const now = clock();
    const deadline = new Date(now.getTime() + settings.revealDeadlineMs);
    const short = settings.scarceExposure && new Date(now.getTime() + settings.scarceExposure.revealDeadlineMs);
    const result = await bets.commit(betPayloadHash, wallet, {
      nowMs: now.getTime(),
      committedAt: now.toISOString(),
      revealDeadlineMs: deadline.getTime(),
      revealDeadline: deadline.toISOString(),
      ...(short && settings.scarceExposure
        ? { shortReveal: { deadlineMs: short.getTime(), deadline: short.toISOString(), scarceExposureBps: settings.scarceExposure.thresholdBps } }
        : {}),
      limits: settings.limits,
      agent: settings.agent,
      sessionSignature: body.sessionSignature,
      maxUnrevealed: settings.maxUnrevealedPerWallet,
      ...(rules.playOf?.(payload) ? { ticketId: rules.playOf(payload) } : {}),
    });
    if (result.kind === 'err') throw rejectionError(result.reason, result.detail);
    const ack = this.deps.ackOf({ hash: betPayloadHash, ...result });
    if (result.kind === 'ok') {
      this.deps.observer?.committed(game);
      this.#rememberNonce(wallet, result.betNonce + 1);
      if (this.#committed.size >= COMMITTED_LIMIT) this.#committed.delete(this.#committed.keys().next().value as string);
      this.#committed.set(betPayloadHash, { bet: result.bet, ack: { ...ack } });
    }
    return {
      status: result.state === 'settled' ? ('settled' as const) : ('awaiting_reveal' as const),
      betPayloadHash,
      rngIndex: ack.rngIndex,
      ack,
      revealMessage: ack.revealMessage,
      revealDeadline: ack.revealDeadline,
      ...(await rules.commitReply(payload, ack)),
    };
  }

  /** Step 3: the seed must open the commitment and the committing key must sign revealMessage; then settle. */
  async reveal(game: GameName, wallet: Address, betPayloadHash: string, clientSeedRaw: string, sessionSignature: string) {
    const held = this.#committed.get(betPayloadHash);
    const fits = held !== undefined && held.bet.wallet === wallet && held.bet.game === game;
    const bet = fits ? held.bet : await this.committedBet(wallet, betPayloadHash, game);
    const ack = this.checkReveal(bet, clientSeedRaw, sessionSignature, fits ? held.ack : undefined);
    const { reply, player } = await this.settle(bet, { clientSeedRaw, revealSignature: sessionSignature, via: 'reveal' }, ack);
    this.#committed.delete(betPayloadHash);
    return Object.assign({}, reply, { player: playerView(player) });
  }

  /**
   * Settles a committed turn exactly once, with its seed or (past the deadline) without; a settled one answers
   * its stored reply.
   */
  async settle(bet: BetRecord, reveal: SeedReveal | null, knownAck?: Ack): Promise<{ reply: Record<string, unknown>; player: PlayerTotals; fresh: boolean }> {
    const { bets, games } = this.deps;
    const rules = games[bet.game];
    if (bet.state === 'settled') {
      const [reply, player] = await Promise.all([rules.storedReply(bet, bet.settlement ?? ''), bets.playerTotals(bet.wallet)]);
      return { reply, player, fresh: false };
    }
    const settledAt = this.deps.clock().toISOString();
    let outcome: Awaited<ReturnType<typeof rules.settleTurn>>;
    try {
      outcome = await rules.settleTurn({
        bet,
        payload: JSON.parse(bet.payload) as BetPayload,
        ack: knownAck ?? this.deps.ackOf(bet),
        reveal,
        rngReveal: reveal ? this.deps.rngValue(bet.rngChainId, bet.rngIndex) : null,
        settledAt,
        source: bet.source,
      });
    } catch (err) {
      // A concurrent re-send may have settled this turn after `bet` was read, so the play it reads (a ticket that
      // has ended since) no longer fits the turn: then this one answers what that settle stored.
      const now = await bets.bet(bet.hash);
      if (now?.state === 'settled') return this.settle(now, reveal, knownAck);
      throw err;
    }
    const result = await bets.settleTurn(bet, outcome.write, settledAt);
    if (result.kind === 'err') throw rejectionError(result.reason, result.detail);
    if (result.kind === 'ok') this.deps.observer?.settled(bet.game, bet.source);
    const reply = result.kind === 'ok' ? outcome.reply : await rules.storedReply(bet, result.settlement);
    return { reply, player: result.player, fresh: result.kind === 'ok' };
  }

  /**
   * Closes a play left idle (design §10: a Sweeper ticket with no turn in flight for TICKET_IDLE_MS) through the same
   * settle script as every turn, which re-checks atomically that it is still running, idle and without a turn.
   * @returns true when it was closed now
   */
  async closeIdle(game: GameName, playId: string, idleMs: number): Promise<boolean> {
    const rules = this.deps.games[game];
    if (!rules.closeIdle) return false;
    const now = this.deps.clock();
    const settledAt = now.toISOString();
    const plan = await rules.closeIdle(playId, settledAt);
    if (!plan) return false;
    const result = await this.deps.bets.settleTurn({ hash: '', wallet: plan.wallet, game, ticketId: playId }, plan.outcome.write, settledAt, {
      cutoffMs: now.getTime() - idleMs,
    });
    if (result.kind === 'err') {
      if (result.reason === 'not_idle' || result.reason === 'turn_pending' || result.reason === 'ticket_not_running') return false;
      throw rejectionError(result.reason, result.detail);
    }
    return result.kind === 'ok';
  }

  /** A wallet's on-chain `pfws:v1:reveal:<betPayloadHash>:<clientSeedRaw>` memo settles its own committed bet. */
  async applyWalletReveal(reveal: { wallet: Address; betPayloadHash: Hex32; clientSeedRaw: string }): Promise<void> {
    const bet = await this.deps.bets.bet(reveal.betPayloadHash);
    if (!bet || bet.wallet !== reveal.wallet || bet.state !== 'committed') return;
    if (!verifyCommitment(reveal.clientSeedRaw, bet.commitment)) return;
    await this.deps.bets.saveRecoverySeed(bet.hash, reveal.clientSeedRaw);
    await this.settle(bet, { clientSeedRaw: reveal.clientSeedRaw, revealSignature: null, via: 'wallet-memo' });
  }

  /** The seed known for a bet (recovery store or wallet memo), if it opens the commitment. */
  async knownSeed(bet: BetRecord): Promise<string | null> {
    const stored = await this.deps.bets.recoverySeed(bet.hash);
    return stored && verifyCommitment(stored, bet.commitment) ? stored : null;
  }

  /** Recovery seeds are accepted only once the ack exists, and only when they open the commitment. */
  async storeRecoverySeed(wallet: Address, betPayloadHash: string, clientSeedRaw: string) {
    const bet = isHex32(betPayloadHash) ? await this.deps.bets.bet(betPayloadHash) : null;
    if (!bet || bet.wallet !== wallet) {
      throw gameRejected("Recovery seeds are accepted only after the commit ack exists for this wallet's bet", 'not_committed');
    }
    if (!verifyCommitment(clientSeedRaw, bet.commitment)) throw gameRejected("clientSeedRaw does not match the bet's commitment", 'commitment_mismatch');
    await this.deps.bets.saveRecoverySeed(bet.hash, clientSeedRaw);
    return { betPayloadHash: bet.hash, stored: true, state: bet.state };
  }

  /** A stored seed, served back only for a committed bet of the same wallet. */
  async fetchRecoverySeed(wallet: Address, betPayloadHash: string) {
    if (!isHex32(betPayloadHash)) throw new PfwsError('INVALID_REQUEST', 'betPayloadHash must be 32 bytes of lowercase hex');
    const bet = await this.deps.bets.bet(betPayloadHash);
    if (!bet || bet.wallet !== wallet) throw new PfwsError('NOT_FOUND', 'No committed bet with this betPayloadHash for this wallet');
    const clientSeedRaw = await this.deps.bets.recoverySeed(betPayloadHash);
    if (!clientSeedRaw) throw new PfwsError('NOT_FOUND', 'No recovery seed was stored for this bet');
    return { betPayloadHash, clientSeedRaw, state: bet.state, ack: this.deps.ackOf(bet) };
  }

  /** The caller's committed bet of this game, or a GAME_INPUT_REJECTED that reveals nothing about others' bets. */
  async committedBet(wallet: Address, betPayloadHash: string, game: GameName): Promise<BetRecord> {
    const bet = isHex32(betPayloadHash) ? await this.deps.bets.bet(betPayloadHash) : null;
    if (!bet || bet.wallet !== wallet || bet.game !== game) {
      throw gameRejected(`No committed ${game} bet with this betPayloadHash for this wallet`, 'not_found');
    }
    return bet;
  }

  /** The seed must open the commitment, and the committing key must sign the ack's revealMessage — even if it was revoked since. */
  checkReveal(bet: BetRecord, clientSeedRaw: string, sessionSignature: string, knownAck?: Ack): Ack {
    if (!verifyCommitment(clientSeedRaw, bet.commitment)) {
      throw gameRejected("clientSeedRaw does not match the bet's commitment (sha256 of the 32 seed bytes)", 'commitment_mismatch');
    }
    const ack = knownAck ?? this.deps.ackOf(bet);
    if (!verifyBase64Signature(sessionSignature, utf8(ack.revealMessage), bet.sessionPubkey)) {
      throw new PfwsError('INVALID_SESSION_SIGNATURE', 'sessionSignature must sign the UTF-8 bytes of ack.revealMessage with the committing session key');
    }
    return ack;
  }
}

/**
 * Rejects a commit body whose hash is not the payload's, or whose session signature does not verify.
 * @returns the payload, and its hash as computed here
 */
export function checkCommitBody(
  betPayload: unknown,
  betPayloadHash: string,
  sessionSignature: string,
  game: GameName,
): { payload: BetPayload; betPayloadHash: Hex32 } {
  const payload = betPayload as BetPayload;
  if (typeof betPayload !== 'object' || betPayload === null || payload.game !== game) {
    throw gameRejected(`betPayload is not a ${game} payload`, 'bad_payload');
  }
  let recomputed: Hex32;
  try {
    recomputed = betPayloadHashOf(payload);
  } catch {
    throw gameRejected('betPayload has no canonical JSON form', 'bad_payload');
  }
  if (recomputed !== betPayloadHash) throw gameRejected('betPayloadHash is not sha256 of the canonical betPayload', 'hash_mismatch');
  if (typeof payload.sessionPubkey !== 'string' || !verifySessionSignature(betPayloadHash, sessionSignature, payload.sessionPubkey)) {
    throw new PfwsError('INVALID_SESSION_SIGNATURE', "sessionSignature must be the session key's Ed25519 signature over the 32 bytes of betPayloadHash");
  }
  return { payload, betPayloadHash: recomputed };
}
