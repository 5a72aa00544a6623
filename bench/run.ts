// `npm run bench [-- name ...]`: runs the benchmarks against a service started here, prints a table and
// merges the figures into bench/results.json. Figure names are stable so runs compare over time.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBenchService, type BenchService } from './service.ts';
import { analyticsCost, benchDice } from './dice.ts';
import { benchEcho } from './echo.ts';
import { benchSweeper } from './sweeper.ts';
import { benchMerkle } from './merkle.ts';
import { benchAnchor } from './anchor.ts';
import { benchVerify } from './verify.ts';
import { benchTiles } from './tiles.ts';
import { benchMcp } from './mcp.ts';
import { benchAnalytics } from './analytics.ts';
import { benchSse } from './sse.ts';
import { benchMixed } from './mixed.ts';
import { benchIngest } from './ingest.ts';
import { benchRedisClient } from './redis-client.ts';
import { benchRetention } from './retention.ts';
import { benchRedisLatency } from './redis-latency.ts';
import { RedisServer } from '../chaos/redis-server.ts';

/** What a benchmark gets: the shared service (started on first use), and a way to stop it to have the machine alone. */
interface BenchContext {
  service(): Promise<BenchService>;
  stopService(): Promise<void>;
}
type Bench = (ctx: BenchContext) => Promise<Record<string, number>>;

// The agent wager cap (1 USDC a day by default) would stop the MCP agents within a second.
const SERVICE_ENV = { AGENT_MAX_WAGERED: '1000000000' };
// Nothing listens there: the worker's shipper and archiver find ClickHouse down and ship nothing.
const NO_CLICKHOUSE = 'http://127.0.0.1:9';

const BENCHES: Record<string, Bench> = {
  dice: async ({ service, stopService }) => {
    const svc = await service();
    const figures = await benchDice(svc);
    figures['dice.peakRssMb'] = Math.round(svc.peakRssMb());
    figures['dice.peakRssMb.main'] = Math.round(svc.peakRssMb('main'));
    // The same load at 64 players on a fresh service that ships nothing (alone on the machine): the difference is
    // what analytics ingestion costs each bet. It plays as long first, unmeasured, as the shipping service played
    // before its 64-player level (1 and 16 players), so both are measured warm.
    await stopService();
    console.error('bench: dice without shipping…');
    const off = await startBenchService({ ...SERVICE_ENV, CLICKHOUSE_URL: NO_CLICKHOUSE });
    let noShipping: Record<string, number>;
    try {
      noShipping = await benchDice(off, { levels: [64], name: 'dice.noShipping', lag: false, warmupMs: 16_000 });
    } finally {
      await off.stop();
    }
    const echo = await benchEcho();
    const diceReqPerSec = figures['dice.settledPerSec']! * 3;
    return {
      ...figures,
      ...noShipping,
      ...analyticsCost(figures, noShipping),
      ...echo,
      'dice.ratioToEcho': Math.round((diceReqPerSec / echo['echo.reqPerSec']!) * 1000) / 1000,
    };
  },
  sweeper: async ({ service }) => benchSweeper(await service()),
  merkle: async () => benchMerkle(),
  anchor: async ({ service }) => benchAnchor(await service()),
  verify: async () => benchVerify(),
  tiles: async () => benchTiles(),
  mcp: async ({ service }) => benchMcp(await service()),
  // The live stream's delivery is part of the analytics goals (issue 11); `sse` runs it alone.
  analytics: async ({ service }) => ({ ...(await benchAnalytics()), ...(await benchSse(await service())) }),
  sse: async ({ service }) => benchSse(await service()),
  'redis-client': async () => benchRedisClient(),
  retention: async () => benchRetention(),
  // Two services of its own (Redis behind a delaying proxy, then direct), each alone on the machine.
  latency: async ({ stopService }) => {
    await stopService();
    return benchRedisLatency(SERVICE_ENV);
  },
  // Two services of its own, one after the other, each alone on the machine.
  ingest: async ({ stopService }) => {
    await stopService();
    return benchIngest(SERVICE_ENV);
  },
  // Its own service: preloaded plays and the answer cache off.
  mixed: async ({ stopService }) => {
    await stopService();
    return benchMixed(SERVICE_ENV);
  },
};

/**
 * The benchmarks' own redis-server, without persistence like the machine's default one: the Redis CPU figures then
 * count the benchmark alone, whatever else uses the machine's Redis. `BENCH_REDIS_URL` names a Redis to use instead.
 */
async function benchRedis(): Promise<RedisServer | null> {
  if (process.env.BENCH_REDIS_URL) {
    process.env.REDIS_URL = process.env.BENCH_REDIS_URL;
    return null;
  }
  const server = new RedisServer({ dir: mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-redis-')), args: ['--appendonly', 'no'] });
  await server.start();
  process.env.REDIS_URL = server.url;
  return server;
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : Object.keys(BENCHES);
  for (const n of names) if (!BENCHES[n]) throw new Error(`unknown benchmark ${n} (have: ${Object.keys(BENCHES).join(', ')})`);
  let running: BenchService | null = null;
  let peakRssMb = 0;
  const ctx: BenchContext = {
    service: async () => (running ??= await startBenchService(SERVICE_ENV)),
    stopService: async () => {
      const svc = running;
      running = null;
      if (!svc) return;
      peakRssMb = Math.max(peakRssMb, svc.peakRssMb());
      await svc.stop();
    },
  };
  const figures: Record<string, number> = {};
  const redis = await benchRedis();
  try {
    for (const name of names) {
      console.error(`bench: ${name}…`);
      Object.assign(figures, await BENCHES[name]!(ctx));
    }
  } finally {
    await ctx.stopService();
    if (redis) {
      await redis.kill();
      rmSync(redis.options.dir, { recursive: true, force: true });
    }
  }
  if (peakRssMb > 0) figures['service.peakRssMb'] = Math.round(peakRssMb);
  const width = Math.max(...Object.keys(figures).map((k) => k.length));
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(width)}  ${v}`);
  const file = new URL('./results.json', import.meta.url);
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
  writeFileSync(file, `${JSON.stringify({ ...previous, ...figures }, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
