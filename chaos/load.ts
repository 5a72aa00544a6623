// The load: N players on Dice and Sweeper through the real prepare → commit → recovery-seed → reveal flow,
// journaling every bet's seed before its commit so that any bet the service acknowledged can be recovered.
import { Pool } from 'undici';
import { BenchPlayer } from '../bench/client.ts';
import type { BetJournal, BetRecord } from './bet-journal.ts';
import type { SeededRandom } from './random.ts';

export interface RoundStats {
  requests: number;
  acked: number;
  settled: number;
  recoveredStoredSeed: number;
  recoveredLocalSeed: number;
  /** Commits and reveals that got no answer, sent again during recovery. */
  replayed: number;
  ticketsOpened: number;
  /** Requests that got no HTTP answer (connection refused or reset, client timeout). */
  networkErrors: number;
  status5xx: number;
  /** INTERNAL: never a right answer, unlike 503 while a dependency is down. */
  status500: number;
  /** Answers other than 200 and 5xx in the play flow (which should not happen to a well-behaved player). */
  unexpected: number;
  rejections: { path: string; status: number; code?: string; reason?: string }[];
  samples: string[];
}

export const emptyStats = (): RoundStats => ({
  requests: 0,
  acked: 0,
  settled: 0,
  recoveredStoredSeed: 0,
  recoveredLocalSeed: 0,
  replayed: 0,
  ticketsOpened: 0,
  networkErrors: 0,
  status5xx: 0,
  status500: 0,
  unexpected: 0,
  rejections: [],
  samples: [],
});

/** The round the players are in and where its figures go; the harness moves it on. */
export interface LoadContext {
  round: number;
  stats: RoundStats;
}

export class StepError extends Error {
  override readonly name = 'StepError';
  constructor(
    readonly kind: 'network' | 'status',
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

const WAGERS = [0.01, 0.02, 0.05, 0.1];
const MODES = ['easy', 'medium', 'hard'] as const;

export interface OpenTicket {
  id: string;
  rowsWon: number;
  columns: number;
}

export class ChaosPlayer {
  readonly client: BenchPlayer;
  ticket: OpenTicket | null = null;
  deposit = 0;
  parked = false;
  /** Every receipt of this player is known to the journal, so its books can be checked one by one. */
  booksKnown = true;
  lastError: Error | null = null;

  constructor(
    readonly index: number,
    readonly pool: Pool,
    readonly apiPath: string,
    rpcUrl: string,
    readonly journal: BetJournal,
    readonly rng: SeededRandom,
    readonly ctx: LoadContext,
  ) {
    this.client = new BenchPlayer(pool, apiPath, rpcUrl);
  }

  get wallet(): string {
    return this.client.wallet.publicKey;
  }

  async onboard(deposit: number): Promise<void> {
    await this.client.onboard(deposit);
    this.deposit = deposit;
  }

  /** One request; a 5xx is counted, a missing answer becomes a StepError('network'). */
  async call<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<T>> {
    const stats = this.ctx.stats;
    stats.requests++;
    let status: number;
    let text: string;
    let headers: Answer['headers'];
    try {
      const res = await this.pool.request({
        method,
        path: `${this.apiPath}${path}`,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.client.token ? { authorization: `Bearer ${this.client.token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (err) {
      stats.networkErrors++;
      this.sample(`no answer ${method} ${path}: ${(err as Error).message}`);
      throw new StepError('network', `${method} ${path}: ${(err as Error).message}`);
    }
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { unparsed: text.slice(0, 200) };
    }
    if (status >= 500) {
      stats.status5xx++;
      if (status === 500) stats.status500++;
      this.sample(`${status} ${method} ${path}: ${text.slice(0, 200)}`);
    }
    return { status, body: parsed as T, headers };
  }

  /**
   * The commit, recovery-seed or reveal that got no answer (or a 5xx): the contract says re-sending it resolves
   * the same bet, so recovery sends it again before anything else.
   */
  inflight: { path: string; body: unknown } | null = null;

  /** A request that must answer 200; anything else is a StepError. */
  async must<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const replayable = method === 'POST' && /\/(commit|reveal|recovery-seed)$/.test(path);
    if (replayable) this.inflight = { path, body };
    const res = await this.call<T>(method, path, body);
    if (replayable && res.status < 500) this.inflight = null;
    if (res.status !== 200) {
      const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code;
      if (res.status < 500) {
        this.ctx.stats.unexpected++;
        const reason = (res.body as { error?: { details?: { reason?: string } } } | undefined)?.error?.details?.reason;
        this.ctx.stats.rejections.push({ path, status: res.status, ...(code ? { code } : {}), ...(reason ? { reason } : {}) });
        this.sample(`${res.status} ${method} ${path}: ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      throw new StepError('status', `${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`, res.status, code);
    }
    return res.body;
  }

  sample(text: string): void {
    if (this.ctx.stats.samples.length < 8) this.ctx.stats.samples.push(text);
  }

  signHash(hex: string): string {
    return this.client.session.sign(Buffer.from(hex, 'hex'));
  }

  signText(text: string): string {
    return this.client.session.sign(Buffer.from(text));
  }

  /** Plays until `stopped()` or the first failure, after which the player waits for the harness to recover it. */
  async loop(stopped: () => boolean): Promise<void> {
    while (!stopped() && !this.parked) {
      try {
        if (this.ticket || this.rng.next() < 0.4) await this.sweeperTicket();
        else await this.diceBet();
      } catch (err) {
        this.parked = true;
        this.lastError = err as Error;
      }
    }
  }

  async diceBet(): Promise<BetRecord> {
    const { clientSeedRaw, commitment } = this.client.seed();
    const direction = this.rng.pick(['under', 'over']);
    const target = this.rng.int(1_000, 9_000) / 100;
    const prepared = await this.must('POST', '/protocol/v1/dice/prepare', {
      commitment,
      sessionPubkey: this.client.session.publicKey,
      direction,
      target,
      wager: this.rng.pick(WAGERS),
    });
    const bet = this.journal.prepared({
      betPayloadHash: prepared.betPayloadHash,
      clientSeedRaw,
      game: 'dice',
      player: this.index,
      ticketId: null,
      round: this.ctx.round,
    });
    const commit = await this.must('POST', '/protocol/v1/dice/commit', { ...prepared, sessionSignature: this.signHash(prepared.betPayloadHash) });
    bet.acked = bet.committed = true;
    this.ctx.stats.acked++;
    await this.must('POST', '/protocol/v1/dice/recovery-seed', { betPayloadHash: bet.betPayloadHash, clientSeedRaw });
    await this.must('POST', '/protocol/v1/dice/reveal', {
      betPayloadHash: bet.betPayloadHash,
      clientSeedRaw,
      sessionSignature: this.signText(commit.ack.revealMessage),
    });
    bet.settledBy = 'play';
    this.ctx.stats.settled++;
    return bet;
  }

  /** Opens a ticket (or goes on with the open one) and plays it to its end: some rows, then a cashout. */
  async sweeperTicket(): Promise<void> {
    if (!this.ticket) {
      const open = await this.must('POST', '/protocol/v1/sweeper/ticket', {
        mode: this.rng.pick(MODES),
        sessionPubkey: this.client.session.publicKey,
        wager: this.rng.pick(WAGERS),
      });
      this.journal.ticket(open.ticket.id, this.index, this.ctx.round);
      this.ctx.stats.ticketsOpened++;
      this.applyTicket(open.ticket);
    }
    const rows = this.rng.int(1, 8);
    while (this.ticket) await this.turn(this.ticket.rowsWon >= rows ? 'cashout' : 'choice');
  }

  /** One Sweeper turn, prepare to reveal. */
  async turn(kind: 'choice' | 'cashout'): Promise<void> {
    const ticket = this.ticket!;
    const { clientSeedRaw, commitment } = this.client.seed();
    const params = kind === 'choice' ? { row: ticket.rowsWon, choiceColumn: this.rng.int(0, ticket.columns - 1) } : {};
    const prepared = await this.must('POST', `/protocol/v1/sweeper/${kind}/prepare`, {
      ticketId: ticket.id,
      commitment,
      sessionPubkey: this.client.session.publicKey,
      ...params,
    });
    const bet = this.journal.prepared({
      betPayloadHash: prepared.betPayloadHash,
      clientSeedRaw,
      game: 'sweeper',
      player: this.index,
      ticketId: ticket.id,
      round: this.ctx.round,
    });
    const commit = await this.must('POST', '/protocol/v1/sweeper/commit', { ...prepared, sessionSignature: this.signHash(prepared.betPayloadHash) });
    bet.acked = bet.committed = true;
    this.ctx.stats.acked++;
    await this.must('POST', '/protocol/v1/sweeper/recovery-seed', { betPayloadHash: bet.betPayloadHash, clientSeedRaw });
    const reveal = await this.must('POST', '/protocol/v1/sweeper/reveal', {
      betPayloadHash: bet.betPayloadHash,
      clientSeedRaw,
      sessionSignature: this.signText(commit.ack.revealMessage),
    });
    bet.settledBy = 'play';
    this.ctx.stats.settled++;
    this.applyTicket(reveal.ticket);
  }

  applyTicket(ticket: { id: string; status: string; rowsWon: number; columns: number } | null): void {
    this.ticket = ticket && ticket.status === 'running' ? { id: ticket.id, rowsWon: ticket.rowsWon, columns: ticket.columns } : null;
  }
}

/** Runs every player's loop between start() and stop(). */
export class Load {
  #stopping = false;
  #running: Promise<void> | null = null;

  constructor(readonly players: ChaosPlayer[]) {}

  start(): void {
    if (this.#running) throw new Error('the load is already running');
    this.#stopping = false;
    this.#running = Promise.all(this.players.filter((p) => !p.parked).map((p) => p.loop(() => this.#stopping))).then(() => undefined);
  }

  /** Lets every player finish its step (a dice bet or a ticket) and waits for all of them. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#running;
    this.#running = null;
  }

  get parked(): number {
    return this.players.filter((p) => p.parked).length;
  }
}

export function playerPool(api: string, connections: number): { pool: Pool; apiPath: string } {
  const url = new URL(api);
  // Bounded waits: a request that hangs past these is a finding, not a reason for the suite to hang.
  return { pool: new Pool(url.origin, { connections, pipelining: 1, headersTimeout: 90_000, bodyTimeout: 90_000 }), apiPath: url.pathname };
}
