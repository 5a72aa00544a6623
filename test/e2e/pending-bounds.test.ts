// Pending state per wallet is bounded (issue 16): prepared bets (the oldest expires first) and committed bets awaiting
// their reveal (one more is GAME_INPUT_REJECTED). Sign-in challenges keep no state at all (issue 21, foundation.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../store/keys.ts';
import { Player } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let keys: Keys;
const CAPS = { MAX_PREPARED_BETS_PER_WALLET: 3, MAX_UNREVEALED_BETS_PER_WALLET: 2 };

beforeAll(async () => {
  svc = await startTestService(Object.fromEntries(Object.entries(CAPS).map(([k, v]) => [k, String(v)])));
  keys = new Keys(svc.config.REDIS_PREFIX);
});
afterAll(async () => svc?.cleanup());

describe('prepared bets per wallet', () => {
  it('past MAX_PREPARED_BETS_PER_WALLET the oldest expires at once; the newest commits', async () => {
    const p = await new Player(svc.api, svc.rpcUrl).onboard(20);
    const prepared = [];
    for (let i = 0; i <= CAPS.MAX_PREPARED_BETS_PER_WALLET; i++) prepared.push(await p.prepareDice({ wager: 0.01 }));
    expect(await svc.wiring.redis.llen(keys.preparedBets(p.address))).toBe(CAPS.MAX_PREPARED_BETS_PER_WALLET);
    const oldest = await p.commitDice(prepared[0]!.res.body);
    expect(oldest.status).toBe(400);
    expect(oldest.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'not_prepared' } });
    const newest = await p.commitDice(prepared[CAPS.MAX_PREPARED_BETS_PER_WALLET]!.res.body);
    expect(newest.status).toBe(200);
    // A committed bet leaves the wallet's prepared list.
    expect(await svc.wiring.redis.lrange(keys.preparedBets(p.address), 0, -1)).not.toContain(newest.body.ack.betPayloadHash);
  });
});

describe('unrevealed commits per wallet', () => {
  it('one commit past MAX_UNREVEALED_BETS_PER_WALLET is GAME_INPUT_REJECTED (unrevealed_limit); a reveal makes room', async () => {
    const p = await new Player(svc.api, svc.rpcUrl).onboard(20);
    const committed = [];
    for (let i = 0; i < CAPS.MAX_UNREVEALED_BETS_PER_WALLET; i++) {
      const prepared = await p.prepareDice({ wager: 0.01 });
      const res = await p.commitDice(prepared.res.body);
      expect(res.status).toBe(200);
      committed.push({ ...prepared, ack: res.body.ack });
    }
    const one = await p.prepareDice({ wager: 0.01 });
    const refused = await p.commitDice(one.res.body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'unrevealed_limit' } });
    // Nothing was locked for it.
    expect((await p.get('/protocol/v1/player/status')).body.balance).toBeCloseTo(20 - 0.01 * CAPS.MAX_UNREVEALED_BETS_PER_WALLET, 6);
    const first = committed[0]!;
    expect((await p.revealDice(first.ack.betPayloadHash, first.clientSeedRaw, first.ack.revealMessage)).status).toBe(200);
    const again = await p.prepareDice({ wager: 0.01 });
    expect((await p.commitDice(again.res.body)).status).toBe(200);
  });
});
