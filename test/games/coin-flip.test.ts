// A third game defined only under test/ (coin-flip.ts) plays prepare → commit → reveal → receipt through the one
// lifecycle and the ledger's real scripts, with no edit to games/, store/ or any Lua file; the service never serves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BetLifecycle } from '../../games/lifecycle.ts';
import { verifyAck, type Ack } from '../../protocol/ack.ts';
import { betLogLeafHexOfJson } from '../../protocol/receipt.ts';
import { verifyRngLink } from '../../protocol/rng-chain.ts';
import { Player, http } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { COIN_FLIP, CoinFlipGame, coinFlipReceiptId, landedSide } from './coin-flip.ts';

let svc: TestService;
let config: Record<string, string>;
let lifecycle: BetLifecycle;

beforeAll(async () => {
  svc = await startTestService();
  config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
  const deps = svc.wiring.lifecycle.deps;
  // The registry is data: the service's games plus one more entry.
  lifecycle = new BetLifecycle({
    ...deps,
    observer: undefined,
    games: { ...deps.games, [COIN_FLIP]: new CoinFlipGame({ bets: deps.bets, receipts: svc.wiring.receipts }) },
  });
});
afterAll(async () => {
  await svc?.cleanup();
});

async function flip(player: Player, call: 'heads' | 'tails', wager: number) {
  const { clientSeedRaw, commitment } = player.newSeed();
  const sessionPubkey = player.session.publicKey;
  const prepared = await lifecycle.prepare(COIN_FLIP, player.address, { commitment, sessionPubkey, wager, call }, 'api');
  const commit = await lifecycle.commit(
    COIN_FLIP,
    player.address,
    { betPayload: prepared.betPayload, betPayloadHash: prepared.betPayloadHash, sessionSignature: player.signHash(prepared.betPayloadHash) },
    'api',
  );
  const ack = commit.ack as Ack;
  const reveal = await lifecycle.reveal(COIN_FLIP, player.address, prepared.betPayloadHash, clientSeedRaw, player.signText(ack.revealMessage));
  return { prepared, commit, ack, reveal, clientSeedRaw };
}

describe('a coin flip plugged in through the game registry', () => {
  it('plays prepare → commit → reveal → receipt on the real ledger scripts, and settles once', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(100);
    const { prepared, commit, ack, reveal, clientSeedRaw } = await flip(player, 'heads', 2);
    expect(prepared.betPayload).toMatchObject({ game: 'coinflip', wager: '2000000', params: { call: 'heads' }, betNonce: 0 });
    expect(commit.status).toBe('awaiting_reveal');
    expect(verifyAck(ack, config.ackPublicKey!)).toEqual({ ok: true });

    const receiptId = coinFlipReceiptId(prepared.betPayloadHash);
    const receipt = (await svc.wiring.receipts.read(receiptId)) as Record<string, any>;
    expect(verifyRngLink(receipt.rngReveal, ack.rngIndex, config.rngChainHead!, 0)).toBe(true);
    const landed = landedSide(receipt.rngReveal, clientSeedRaw, prepared.betPayloadHash);
    const payout = landed === 'heads' ? 3_920_000n : 0n;
    expect(reveal).toMatchObject({ receiptId, call: 'heads', landed, status: landed === 'heads' ? 'won' : 'lost', payout: payout.toString() });
    expect(reveal.player).toMatchObject({ balance: Number(100_000_000n - 2_000_000n + payout) / 1e6, exposure: 0, stakedInPlay: 0, nonce: 1 });

    // settle_turn.lua wrote the bet-log item, the receipt with its entry, and the settle event.
    const { redis, keys } = svc.wiring;
    const items = await redis.lrange(keys.betLog(), 0, -1);
    const stored = await redis.hget(keys.receipt(receiptId), 'entry');
    expect(items).toContain(`${betLogLeafHexOfJson(stored!)}:${receiptId}`);
    const [last] = await redis.xrevrange(keys.journal(), '+', '-', 'COUNT', 1);
    expect(last![1]).toEqual(expect.arrayContaining(['type', 'coinflip_settled']));

    // A re-sent reveal answers the stored reply and moves nothing.
    const again = await lifecycle.reveal(COIN_FLIP, player.address, prepared.betPayloadHash, clientSeedRaw, player.signText(ack.revealMessage));
    expect(again).toEqual(reveal);
    expect(await redis.llen(keys.betLog())).toBe(items.length);
  });

  it('stays out of the service: no route and no word of it in the OpenAPI document', async () => {
    const openapi = await http('GET', `${svc.api}/docs/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(JSON.stringify(openapi.body)).toContain('/protocol/v1/dice/prepare');
    expect(JSON.stringify(openapi.body)).not.toMatch(/coin ?flip/i);
    // The service's own games answer at their routes (401 without a token); the coin flip has none.
    expect((await http('POST', `${svc.api}/protocol/v1/dice/prepare`, {})).status).toBe(401);
    expect((await http('POST', `${svc.api}/protocol/v1/coinflip/prepare`, {})).status).toBe(404);
  });
});
