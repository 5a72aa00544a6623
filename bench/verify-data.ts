// Writes honest dice settlements straight into a bench service's ledger, as its settle script would: each
// bet signed by a real player's session key (authorized on-chain), acked with the service's ack key, its
// RNG index taken from the live chain cursor, its receipt built by protocol/. The worker anchors them.
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { Keys } from '../store/keys.ts';
import { Aliases } from '../operator/aliases.ts';
import { loadSecret } from '../operator/keys.ts';
import { RngChains } from '../operator/rng-chains.ts';
import { signAck } from '../protocol/ack.ts';
import { betPayloadHashOf, type DiceBetPayload } from '../protocol/bet-payload.ts';
import { buildDiceSettlement } from '../protocol/dice-receipt.ts';
import { signBytes, signText } from '../protocol/signatures.ts';
import { fromHex } from '../protocol/encoding.ts';
import type { Keypair } from '../test/helpers/player.ts';

export interface SyntheticPlayer {
  wallet: string;
  session: Keypair;
}

/** Appends `count` settled dice bets to the log of the service whose data dir and prefix are given. */
export async function appendDiceBets(redis: Redis, dataDir: string, prefix: string, players: readonly SyntheticPlayer[], count: number): Promise<void> {
  const keys = new Keys(prefix);
  const keysDir = path.join(dataDir, 'keys');
  const ackSeed = Uint8Array.from(JSON.parse(readFileSync(path.join(keysDir, 'ack.json'), 'utf8')) as number[]).slice(0, 32);
  const aliases = new Aliases(loadSecret(keysDir, 'alias', false));
  const chains = new RngChains(path.join(keysDir, 'rng'));
  // Reserve the indices at once, as commits would one by one.
  const next = await redis.hincrby(keys.rng(), 'next', count);
  const [chainId, head] = await redis.hmget(keys.rng(), 'chainId', 'head');
  const chain = chains.get(Number(chainId));
  const first = next - count;
  const now = Date.now();
  const BATCH = 1000;
  for (let start = 0; start < count; start += BATCH) {
    const multi = redis.multi();
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const player = players[i % players.length]!;
      const clientSeedRaw = randomBytes(32).toString('hex');
      const payload: DiceBetPayload = {
        protocol: 'pfws/v1',
        game: 'dice',
        player: aliases.of(player.wallet),
        sessionPubkey: player.session.publicKey,
        betNonce: 1_000_000 + first + i,
        wager: '1000000',
        params: { direction: i % 2 ? 'over' : 'under', targetBps: 2000 + (i % 50) * 100 },
        commitment: createHash('sha256').update(Buffer.from(clientSeedRaw, 'hex')).digest('hex'),
        expiresAt: new Date(now + 300_000).toISOString(),
      };
      const hash = betPayloadHashOf(payload);
      const index = first + i;
      const ack = signAck(
        {
          betPayloadHash: hash,
          betNonce: payload.betNonce,
          rngIndex: index,
          rngChainHead: head!,
          committedAt: new Date(now).toISOString(),
          revealDeadline: new Date(now + 86_400_000).toISOString(),
        },
        ackSeed,
      );
      const settled = buildDiceSettlement({
        betPayload: payload,
        betPayloadHash: hash,
        commitSignature: signBytes(fromHex(hash), player.session.seed),
        ack,
        reveal: { clientSeedRaw, revealSignature: signText(ack.revealMessage, player.session.seed), via: 'reveal' },
        rngReveal: chain.valueHex(index),
        settledAt: new Date(now + 1).toISOString(),
        source: 'api',
      });
      multi.hset(keys.bet(hash), 'wallet', player.wallet, 'sessionPubkey', player.session.publicKey, 'state', 'settled');
      multi.hset(keys.receipt(settled.receiptId), 'body', JSON.stringify(settled.receipt), 'entry', settled.betLogEntryJcs);
      multi.rpush(keys.betLog(), `${settled.betLogEntryHash}:${settled.receiptId}`);
    }
    await multi.exec();
  }
  // Every one of them was revealed to its player.
  await redis.hset(keys.rng(), 'disclosed', String(next - 1));
}
