// `play_dice` through MCP as agents call it: the SDK's own client over Streamable HTTP, one wallet per agent with its
// agent key authorized by the normal setup transaction, 16 agents calling at once.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  signTransaction,
} from '@solana/kit';
import { Timer, runFor, type BenchPlayer } from './client.ts';
import { Redis } from 'ioredis';
import { cpuSample, onboardPlayers } from './dice.ts';
import type { BenchService } from './service.ts';

/** Authorizes the wallet's agent key with a setup transaction of the wallet (no deposit), as its owner would. */
async function authorizeAgentKey(player: BenchPlayer): Promise<void> {
  const { sessionPubkey } = await player.must('GET', '/protocol/v1/player/agent-key');
  const built = await player.must('POST', '/protocol/v1/player/setup-transaction', { amount: 0, sessionPubkey });
  const signer = await createKeyPairSignerFromBytes(new Uint8Array(Buffer.concat([player.wallet.seed, player.wallet.publicBytes])));
  const signed = await signTransaction([signer.keyPair], getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction)));
  await createSolanaRpc(player.rpcUrl).sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  for (let i = 0; i < 100; i++) {
    if ((await player.must('GET', '/protocol/v1/player/agent-key')).authorized) return;
    await player.must('POST', '/protocol/v1/player/sync');
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the agent key was not authorized');
}

async function agentClient(service: BenchService, token: string): Promise<Client> {
  const client = new Client({ name: 'pfws-bench-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.api}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** Needs a service whose AGENT_MAX_WAGERED lets each agent wager for the whole run (bench/run.ts sets it). */
export async function benchMcp(service: BenchService, agents = 16, durationMs = 8_000): Promise<Record<string, number>> {
  const players = await onboardPlayers(service, agents, 1_000);
  for (let i = 0; i < players.length; i += 8) await Promise.all(players.slice(i, i + 8).map(authorizeAgentKey));
  const clients = await Promise.all(players.map((p) => agentClient(service, p.token)));
  const timer = new Timer();
  const play = async (worker: number) => {
    const t0 = performance.now();
    const result = await clients[worker]!.callTool({ name: 'play_dice', arguments: { betAmount: 0.01, target: 49.5, direction: 'under' } });
    if (result.isError) throw new Error(`play_dice: ${JSON.stringify(result.structuredContent)}`);
    timer.add('play_dice', performance.now() - t0);
    return undefined;
  };
  // Warm the path (schemas, JIT) before measuring.
  await runFor(agents, 1_000, play);
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const before = await cpuSample(service, redis);
  const run = await runFor(agents, durationMs, play);
  const after = await cpuSample(service, redis);
  await redis.quit();
  await Promise.all(clients.map((c) => c.close()));
  const round2 = (x: number) => Math.round(x * 100) / 100;
  // CPU per play, as dice.cpuUsPerBet.* splits it: less sensitive than the rate to a machine shared with other work.
  const perPlay = (ms: number) => (run.done ? Math.round((ms * 1000) / run.done) : 0);
  return {
    [`mcp.playDicePerSec.${agents}`]: Math.round((run.done / run.elapsedMs) * 1000),
    [`mcp.p50PlayDiceMs.${agents}`]: round2(timer.percentile('play_dice', 50)),
    [`mcp.p99PlayDiceMs.${agents}`]: round2(timer.percentile('play_dice', 99)),
    'mcp.cpuUsPerPlay.api': perPlay(after.service.api - before.service.api),
    'mcp.cpuUsPerPlay.main': perPlay(after.service.main - before.service.main),
    'mcp.cpuUsPerPlay.redis': perPlay(after.redisMs - before.redisMs),
    'mcp.cpuUsPerPlay.client': perPlay(after.clientMs - before.clientMs),
    ...(run.errors ? { [`mcp.errors.${agents}`]: run.errors } : {}),
  };
}
