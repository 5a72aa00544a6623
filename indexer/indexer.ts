// The indexer role: a single leader (Redis lease) tails the vault, the keeper's LP account (LP redemptions), the
// recently active wallets, and the wallets whose bets wait for a reveal (a wallet may reveal on-chain with a memo that
// never touches the vault).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { tailAddress, type TailDeps } from '../funding/tail.ts';
import type { HeartbeatStore } from '../store/heartbeats.ts';

const LEASE_MS = 15_000;
const WATCH_WINDOW_MS = 15 * 60_000;
// A reveal through the API takes milliseconds; a bet still waiting after this may be revealed by memo.
const REVEAL_GRACE_MS = 30_000;
// The vault is tailed every tick; recently active wallets (memo-only setups and revokes) every few ticks.
const WALLET_EVERY_TICKS = 5;

export interface IndexerOptions {
  pollMs: number;
  logger: Logger;
  /** Wallets with a bet committed before `committedBeforeMs` and not revealed: their reveal may be a memo. */
  waitingWallets: (committedBeforeMs: number) => Promise<string[]>;
  /** Where each pass is recorded, so API processes see the indexer alive and how far it has synced. */
  heartbeats?: HeartbeatStore;
}

export class Indexer {
  readonly #id = randomUUID();
  #leader = false;
  #stopped = false;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #ticks = 0;
  #passes = 0;
  #lastPassAt: number | null = null;
  /** The chain slot a leader pass started at, once that pass tailed the vault without error: everything before it is applied. */
  #syncedSlot: bigint | null = null;

  constructor(
    readonly deps: TailDeps,
    readonly options: IndexerOptions,
  ) {}

  get isLeader(): boolean {
    return this.#leader;
  }

  /** Completed passes (as leader or not) and when the last one ended: the indexer is alive while these move. */
  get progress(): { passes: number; lastPassAt: number | null; syncedSlot: bigint | null } {
    return { passes: this.#passes, lastPassAt: this.#lastPassAt, syncedSlot: this.#syncedSlot };
  }

  start(): void {
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    if (this.#leader) await this.deps.indexer.lease.release(this.#id);
    this.#leader = false;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#tick().finally(() => {
        this.#running = null;
        this.#schedule(this.options.pollMs);
      });
    }, delay);
  }

  async #holdLease(): Promise<boolean> {
    const { indexer } = this.deps;
    if (this.#leader) {
      this.#leader = await indexer.lease.renew(this.#id, LEASE_MS);
    } else {
      this.#leader = await indexer.lease.acquire(this.#id, LEASE_MS);
      if (this.#leader) this.options.logger.info({ id: this.#id }, 'indexer: leader');
    }
    return this.#leader;
  }

  async #walletsToTail(): Promise<string[]> {
    const now = this.deps.clock().getTime();
    const [watched, waiting] = await Promise.all([this.deps.indexer.watchedWallets(now - WATCH_WINDOW_MS), this.options.waitingWallets(now - REVEAL_GRACE_MS)]);
    return [...new Set([...watched, ...waiting])];
  }

  async #tick(): Promise<void> {
    try {
      if (!(await this.#holdLease())) return;
      const startSlot = await this.deps.rpc.getSlot({ commitment: this.deps.commitment }).send();
      const active = () => !this.#stopped && this.#leader;
      const wallets = this.#ticks++ % WALLET_EVERY_TICKS === 0 ? await this.#walletsToTail() : [];
      const targets = [this.deps.ctx.vaultTokenAccount, this.deps.ctx.keeperLpAccount, ...wallets];
      for (const target of targets) {
        if (!active()) break;
        const applied = await tailAddress(this.deps, target, active);
        if (applied) this.options.logger.info({ target, applied }, 'indexer: applied on-chain items');
      }
      if (active()) this.#syncedSlot = startSlot;
    } catch (err) {
      this.options.logger.warn({ err }, 'indexer: tick failed, retrying');
    } finally {
      this.#passes++;
      this.#lastPassAt = this.deps.clock().getTime();
      await this.#beat();
    }
  }

  async #beat(): Promise<void> {
    const { heartbeats } = this.options;
    if (!heartbeats || this.#stopped) return;
    const fields: Record<string, string | number> = { passes: this.#passes, leader: this.#leader ? 1 : 0 };
    // Only the leader tails, so only its slot says how far the ledger has synced.
    if (this.#leader && this.#syncedSlot !== null) fields.syncedSlot = this.#syncedSlot.toString();
    await heartbeats
      .beat('indexer', this.options.pollMs, fields, this.deps.clock().getTime())
      .catch((err) => this.options.logger.warn({ err }, 'indexer: heartbeat failed'));
  }
}
