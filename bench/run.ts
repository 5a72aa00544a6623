// `npm run bench [-- name ...]`: runs the benchmarks against a service started here, prints a table and
// merges the figures into bench/results.json. Figure names are stable so runs compare over time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { startBenchService, type BenchService } from './service.ts';
import { benchDice } from './dice.ts';
import { benchEcho } from './echo.ts';
import { benchSweeper } from './sweeper.ts';
import { benchMerkle } from './merkle.ts';
import { benchAnchor } from './anchor.ts';
import { benchVerify } from './verify.ts';
import { benchMcp } from './mcp.ts';
import { benchAnalytics } from './analytics.ts';
import { benchSse } from './sse.ts';

type Bench = (service: () => Promise<BenchService>) => Promise<Record<string, number>>;

const BENCHES: Record<string, Bench> = {
  dice: async (service) => {
    const svc = await service();
    const figures = await benchDice(svc);
    figures['dice.peakRssMb'] = Math.round(svc.peakRssMb());
    const echo = await benchEcho();
    const diceReqPerSec = figures['dice.settledPerSec']! * 3;
    return { ...figures, ...echo, 'dice.ratioToEcho': Math.round((diceReqPerSec / echo['echo.reqPerSec']!) * 1000) / 1000 };
  },
  sweeper: async (service) => benchSweeper(await service()),
  merkle: async () => benchMerkle(),
  anchor: async (service) => benchAnchor(await service()),
  verify: async () => benchVerify(),
  mcp: async (service) => benchMcp(await service()),
  // The live stream's delivery is part of the analytics goals (issue 11); `sse` runs it alone.
  analytics: async (service) => ({ ...(await benchAnalytics()), ...(await benchSse(await service())) }),
  sse: async (service) => benchSse(await service()),
};

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : Object.keys(BENCHES);
  for (const n of names) if (!BENCHES[n]) throw new Error(`unknown benchmark ${n} (have: ${Object.keys(BENCHES).join(', ')})`);
  let running: BenchService | null = null;
  // The agent wager cap (1 USDC a day by default) would stop the MCP agents within a second.
  const service = async () => (running ??= await startBenchService({ AGENT_MAX_WAGERED: '1000000000' }));
  const figures: Record<string, number> = {};
  try {
    for (const name of names) {
      console.error(`bench: ${name}…`);
      Object.assign(figures, await BENCHES[name]!(service));
    }
    if (running) figures['service.peakRssMb'] = Math.round((running as BenchService).peakRssMb());
  } finally {
    await (running as BenchService | null)?.stop();
  }
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
