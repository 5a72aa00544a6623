// Builds the shared services every role uses: Redis ledger, chain RPC, operator keys, RNG chains.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { Config } from './config/env.ts';
import { createRedis } from './store/redis.ts';
import { Keys } from './store/keys.ts';
import { Ledger } from './store/ledger.ts';
import { Aliases } from './store/aliases.ts';
import { BetStore } from './store/bets.ts';
import { TicketStore } from './store/tickets.ts';
import { createRpc, type SolanaRpc } from './chain/rpc.ts';
import { configuredSetup, ensureLocalnetGenesis, type ChainSetup } from './chain/genesis.ts';
import { loadOperatorKey, loadOperatorKeys, loadSecret, type OperatorKey, type OperatorKeys } from './operator/keys.ts';
import { RngChains } from './operator/rng-chains.ts';
import { setCryptoBackend } from './protocol/crypto.ts';
import { nodeBackend } from './protocol/crypto-node.ts';

export interface Services {
  config: Config;
  logger: Logger;
  redis: Redis;
  keys: Keys;
  ledger: Ledger;
  bets: BetStore;
  tickets: TicketStore;
  aliases: Aliases;
  rpc: SolanaRpc;
  rpcUrl: string;
  setup: ChainSetup;
  operator: OperatorKeys;
  /** localnet only: the dev USDC mint authority. */
  faucet: OperatorKey | null;
  rngChains: RngChains;
  /** State-tree salts are derived from this secret. */
  saltSecret: Uint8Array;
  now: () => Date;
  close(): Promise<void>;
}

/** A Redis prefix holds the ledger of one chain only; mixing two (another DATA_DIR, say) would corrupt both. */
async function assertSameChain(redis: Redis, keys: Keys, setup: ChainSetup, owned: Redis | null): Promise<void> {
  const identity = `${setup.usdcMint}:${setup.vaultTokenAccount}`;
  await redis.hsetnx(keys.meta(), 'chain', identity);
  const stored = await redis.hget(keys.meta(), 'chain');
  if (stored !== identity) {
    owned?.disconnect();
    throw new Error(
      `Redis prefix "${keys.prefix}" holds the ledger of another chain (${stored}); this one is ${identity}. ` +
        'Use another REDIS_PREFIX, or delete that prefix\'s keys to start over.',
    );
  }
}

export interface ServiceOverrides {
  now?: () => Date;
  redis?: Redis;
}

export async function createServices(config: Config, logger: Logger, rpcUrl: string, overrides: ServiceOverrides = {}): Promise<Services> {
  setCryptoBackend(nodeBackend);
  const redis = overrides.redis ?? createRedis(config.REDIS_URL);
  const keys = new Keys(config.REDIS_PREFIX);
  const operator = await loadOperatorKeys(config.keysDir, config.localnet);
  const aliases = new Aliases(loadSecret(config.keysDir, 'alias', config.localnet));
  const saltSecret = loadSecret(config.keysDir, 'salt', config.localnet);
  const rpc = createRpc(rpcUrl);
  const now = overrides.now ?? (() => new Date());
  const ledger = new Ledger(redis, keys, aliases);
  let faucet: OperatorKey | null = null;
  let setup: ChainSetup;
  if (config.localnet) {
    faucet = await loadOperatorKey(config.keysDir, 'faucet', true);
    setup = await ensureLocalnetGenesis(rpc, config.dataDir, operator, faucet, config.DEV_HOUSE_CAPITAL);
    await assertSameChain(redis, keys, setup, overrides.redis ? null : redis);
    if (setup.houseFunding) {
      // The genesis mint into the vault is house capital, not an unattributed inflow.
      await ledger.applyChainItem(
        { key: `${setup.houseFunding.signature}:rest`, kind: 'house', signature: setup.houseFunding.signature, slot: 0, amount: BigInt(setup.houseFunding.amount) },
        now().toISOString(),
      );
    }
  } else {
    setup = await configuredSetup(config.USDC_MINT!, config.LP_MINT!, operator.keeper.publicKey);
    await assertSameChain(redis, keys, setup, overrides.redis ? null : redis);
  }
  return {
    config,
    logger,
    redis,
    keys,
    ledger,
    bets: new BetStore(redis, keys, ledger.scripts),
    tickets: new TicketStore(redis, keys, ledger.scripts),
    aliases,
    rpc,
    rpcUrl,
    setup,
    operator,
    faucet,
    rngChains: new RngChains(path.join(config.keysDir, 'rng')),
    saltSecret,
    now,
    async close() {
      if (!overrides.redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
