// `npm run ledger -- status|recover`: the operator's tool for a ledger restored from an older backup (design §13).
// It reads the same environment as the service and must run while the service is stopped (chDB and the embedded
// localnet each belong to one process; recovery writes the journal's own seqs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/env.ts';
import { StartupError } from '../config/startup.ts';
import { setCryptoBackend } from '../protocol/crypto.ts';
import { nodeBackend } from '../protocol/crypto-node.ts';
import { configuredSetup, type ChainSetup } from '../chain/genesis.ts';
import { createRpc } from '../chain/rpc.ts';
import { loadOperatorKey, loadSecret } from '../operator/keys.ts';
import { Aliases } from '../operator/aliases.ts';
import { RngChains } from '../operator/rng-chains.ts';
import { assertRedisReachable, createRedis } from '../store/redis.ts';
import { Keys } from '../store/keys.ts';
import { Replication } from '../store/replication.ts';
import { defineScripts } from '../store/scripts.ts';
import { AnchorStore } from '../store/anchor-store.ts';
import { LedgerRestore } from '../store/ledger-restore.ts';
import { openAnalyticsEngine } from '../analytics/open-engine.ts';
import { RecoveryArchive } from '../analytics/recovery-archive.ts';
import { recoverLedger, type RecoveryReport } from './recover.ts';
import { recoveryDeps } from './recover-deps.ts';
import { ledgerStatus } from './status.ts';

const USAGE = `usage: npm run ledger -- <command>

  status    compare the ledger with the newest on-chain commit of the anchor key and with the ClickHouse archive;
            writes nothing
  recover   rebuild what a ledger restored from an older backup lacks, from the ClickHouse archive, up to and past
            the newest on-chain commit, then check the log's root against the chain. Stop the service first.

It reads the service's environment (REDIS_URL or REDIS_SENTINELS and REDIS_SENTINEL_NAME, REDIS_PREFIX, DATA_DIR, KEYS_DIR, SOLANA_RPC_URL, CLICKHOUSE_URL, ...).
Exit codes: 0 the log holds the chain's newest commit, 1 it does not (or the tool failed), 64 usage error.`;

/** The chain objects: localnet's genesis file, or the configured mints. */
function setupOf(config: Config, keeper: string): Promise<ChainSetup> {
  if (!config.localnet) return configuredSetup(config.USDC_MINT!, config.LP_MINT!, keeper);
  const file = path.join(config.dataDir, 'genesis.json');
  if (!existsSync(file)) throw new StartupError(`no localnet genesis at ${file}: DATA_DIR must be the service's own`);
  return Promise.resolve(JSON.parse(readFileSync(file, 'utf8')) as ChainSetup);
}

async function main(argv: readonly string[]): Promise<number> {
  const command = argv[0];
  if (command !== 'status' && command !== 'recover') {
    console.error(USAGE);
    return command === undefined || command === '--help' || command === '-h' ? 0 : 64;
  }
  const config = loadConfig(process.env, []);
  setCryptoBackend(nodeBackend);
  await assertRedisReachable(config.redis);
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const anchorKey = await loadOperatorKey(config.keysDir, 'anchor', false);
    const keeperKey = await loadOperatorKey(config.keysDir, 'keeper', false);
    const aliases = new Aliases(loadSecret(config.keysDir, 'alias', false));
    let rpcUrl = config.SOLANA_RPC_URL;
    if (!rpcUrl) {
      const { startLocalnet } = await import('../localnet/index.ts');
      const localnet = await startLocalnet({ port: 0, dataDir: path.join(config.dataDir, 'localnet') }).catch((err: unknown) => {
        throw new StartupError(`cannot open the localnet under ${config.dataDir} (${(err as Error).message}): stop the service first`);
      });
      closers.push(() => localnet.close());
      rpcUrl = localnet.url;
    }
    const rpc = createRpc(rpcUrl);
    const redis = createRedis(config.redis, { maxRetriesPerRequest: 3 });
    closers.push(() => redis.quit());
    const keys = new Keys(config.REDIS_PREFIX);
    const engine = await openAnalyticsEngine({ clickhouseUrl: config.CLICKHOUSE_URL, dataDir: config.dataDir }).catch((err: unknown) => {
      throw new StartupError(
        `cannot open the ClickHouse archive (${(err as Error).message}): stop the service first (chDB belongs to one process), or check CLICKHOUSE_URL`,
      );
    });
    closers.push(() => engine.close());

    if (command === 'status') {
      const scripts = defineScripts(redis);
      const status = await ledgerStatus({
        anchors: new AnchorStore(redis, keys, scripts),
        restore: new LedgerRestore(redis, keys, scripts),
        archive: new RecoveryArchive(engine),
        rpc,
        anchorKey: anchorKey.publicKey,
      });
      for (const line of status.lines) console.log(line);
      return status.whole ? 0 : 1;
    }

    const rngChains = new RngChains(path.join(config.keysDir, 'rng'));
    const deps = await recoveryDeps({
      redis,
      keys,
      rpc,
      setup: await setupOf(config, keeperKey.publicKey),
      anchorKey: anchorKey.publicKey,
      aliasOf: (wallet) => aliases.of(wallet),
      rngValue: (chainId, index) => rngChains.get(chainId).valueHex(index),
      engine,
      limits: { maxBetBps: config.MAX_BET_BPS, maxPayoutBps: config.MAX_PAYOUT_BPS, maxExposureBps: config.MAX_EXPOSURE_BPS },
      agentLimits: config.agentLimits,
      commitment: config.INDEXER_COMMITMENT,
    });
    const replication = new Replication(redis, keys.replicationBarrier(), { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS });
    const report = await recoverLedger({ ...deps, replication });
    for (const line of reportLines(report)) console.log(line);
    return report.outcome === 'failed' ? 1 : 0;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

/** The report as an operator reads it: the result first, then what was rebuilt, then what was not, by play and wallet. */
export function reportLines(r: RecoveryReport): string[] {
  const lines = [`ledger recover: ${r.outcome === 'failed' ? 'FAILED' : r.outcome}: ${r.message}`];
  lines.push(`  before: ${r.before.logSize} bet-log entries, journal at seq ${r.before.journalSeq}; archive up to seq ${r.archiveSeq}`);
  lines.push(`  after:  ${r.after.logSize} bet-log entries, journal at seq ${r.after.journalSeq}`);
  const x = r.restored;
  lines.push(
    `  restored: ${x.events} journal events (${x.plays} plays settled again, ${x.chainItems} chain items, ${x.withdrawals} withdrawal steps, ${x.lpSteps} LP steps), ${x.manifests} manifests, ${x.commits} commit records, ${x.payouts} payouts found on-chain`,
  );
  for (const line of r.books.lines) lines.push(`  books: ${line}`);
  for (const note of r.notes) lines.push(`  note: ${note}`);
  if (r.unrebuilt.length) {
    lines.push(`  NOT REBUILT (${r.unrebuilt.length}): kept in the journal as archived, no money moved for them:`);
    for (const u of r.unrebuilt) {
      const who = [u.player ? `player ${u.player}` : null, u.wallet ? `wallet ${u.wallet}` : null].filter(Boolean).join(', ');
      const amounts = Object.entries(u.amounts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      lines.push(`    seq ${u.seq} ${u.type}${who ? ` (${who})` : ''}${amounts ? `: ${amounts}` : ''}: ${u.why}`);
    }
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof ConfigError) console.error(`config error: ${err.message}`);
      else if (err instanceof StartupError || process.env.LOG_LEVEL !== 'debug') console.error(`ledger: ${(err as Error).message ?? String(err)}`);
      else console.error('ledger:', err);
      process.exit(1);
    },
  );
}
