// What a backup holds of a service's ledger: every key under its prefix but BullMQ's, dumped, and put back in place
// of what is there now, as restoring an older Redis snapshot does.
import { recoveryDeps } from '../../ledger/recover-deps.ts';
import type { TestService } from './service.ts';

export type LedgerDump = Map<string, { value: Buffer; ttl: number }>;

export async function dumpLedger(svc: TestService): Promise<LedgerDump> {
  const { redis, keys } = svc.wiring;
  const out: LedgerDump = new Map();
  for (const key of await redis.keys(`${keys.prefix}:*`)) {
    if (key.startsWith(`${keys.queuePrefix()}:`)) continue;
    const [value, ttl] = await Promise.all([redis.dumpBuffer(key), redis.pttl(key)]);
    if (value) out.set(key, { value, ttl: Math.max(0, ttl) });
  }
  return out;
}

export async function restoreLedger(svc: TestService, dump: LedgerDump): Promise<void> {
  const { redis, keys } = svc.wiring;
  const now = (await redis.keys(`${keys.prefix}:*`)).filter((k) => !k.startsWith(`${keys.queuePrefix()}:`));
  const multi = redis.multi();
  for (const key of now) if (!dump.has(key)) multi.del(key);
  for (const [key, { value, ttl }] of dump) multi.restore(key, ttl, value, 'REPLACE');
  await multi.exec();
}

/** What `npm run ledger -- recover` builds from the config, taken from the test service's own parts. */
export async function recoveryDepsOf(svc: TestService): ReturnType<typeof recoveryDeps> {
  const { wiring } = svc;
  return recoveryDeps({
    redis: wiring.redis,
    keys: wiring.keys,
    rpc: wiring.rpc,
    setup: wiring.setup,
    anchorKey: wiring.operator.anchor.publicKey,
    aliasOf: (w) => wiring.aliases.of(w),
    rngValue: (chainId, index) => wiring.rngChains.get(chainId).valueHex(index),
    engine: await wiring.analyticsEngine!.get(),
    limits: wiring.limits,
    agentLimits: wiring.config.agentLimits,
    commitment: wiring.config.INDEXER_COMMITMENT,
  });
}
