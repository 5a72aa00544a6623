// The indexer role: a single leader (Redis lease) tails the vault, the recently active wallets, and the
// wallets whose bets wait for a reveal (a wallet may reveal on-chain with a memo that never touches the vault).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { tailAddress, type TailDeps } from './tail.ts';

const LEASE_MS = 15_000;
const WATCH_WINDOW_MS = 15 * 60_000;
// A reveal through the API takes milliseconds; a bet still waiting after this may be revealed by memo.
const REVEAL_GRACE_MS = 30_000;
// The vault is tailed every tick; recently active wallets (memo-only setups and revokes) every few ticks.
const WALLET_EVERY_TICKS = 5;

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface IndexerOptions {
  pollMs: number;
  logger: Logger;
}

export class Indexer {
  readonly #id = randomUUID();
  #leader = false;
  #stopped = false;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #ticks = 0;

  constructor(
    readonly deps: TailDeps,
    readonly options: IndexerOptions,
  ) {}

  get isLeader(): boolean {
    return this.#leader;
  }

  start(): void {
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    if (this.#leader) await this.deps.redis.eval(RELEASE, 1, this.deps.keys.indexerLease(), this.#id);
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
    const key = this.deps.keys.indexerLease();
    if (this.#leader) {
      this.#leader = (await this.deps.redis.eval(RENEW, 1, key, this.#id, LEASE_MS)) === 1;
    } else {
      this.#leader = (await this.deps.redis.set(key, this.#id, 'PX', LEASE_MS, 'NX')) === 'OK';
      if (this.#leader) this.options.logger.info({ id: this.#id }, 'indexer: leader');
    }
    return this.#leader;
  }

  async #walletsToTail(watchKey: string): Promise<string[]> {
    const [watched, waiting] = await Promise.all([
      this.deps.redis.zrange(watchKey, '0', '-1'),
      this.deps.waitingWallets?.(this.deps.now().getTime() - REVEAL_GRACE_MS) ?? [],
    ]);
    return [...new Set([...watched, ...waiting])];
  }

  async #tick(): Promise<void> {
    try {
      if (!(await this.#holdLease())) return;
      const active = () => !this.#stopped && this.#leader;
      const watchKey = this.deps.keys.watchedWallets();
      await this.deps.redis.zremrangebyscore(watchKey, 0, Date.now() - WATCH_WINDOW_MS);
      const wallets = this.#ticks++ % WALLET_EVERY_TICKS === 0 ? await this.#walletsToTail(watchKey) : [];
      const targets = [this.deps.ctx.vaultTokenAccount, ...wallets];
      for (const target of targets) {
        if (!active()) break;
        const applied = await tailAddress(this.deps, target, active);
        if (applied) this.options.logger.info({ target, applied }, 'indexer: applied on-chain items');
      }
    } catch (err) {
      this.options.logger.warn({ err }, 'indexer: tick failed, retrying');
    }
  }
}
