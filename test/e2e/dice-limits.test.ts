// House limits as fractions of NAV, checked at prepare and again atomically at commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';

let svc: TestService;

beforeAll(async () => {
  // NAV 10,000: maxBet 50, maxPayout 100, maxExposure 1,000 (10%, below the 25% default, so a few bets fill it).
  // One whale's open bets use up the exposure budget: more than MAX_UNREVEALED_BETS_PER_WALLET's default allows, and
  // with no per-wallet share (test/e2e/exposure-attacks.test.ts covers that share).
  svc = await startTestService({
    DEV_HOUSE_CAPITAL: '10000',
    MAX_EXPOSURE_BPS: '1000',
    MAX_UNREVEALED_BETS_PER_WALLET: '100',
    MAX_WALLET_EXPOSURE_BPS: '10000',
  });
});
afterAll(async () => {
  await svc?.cleanup();
});

describe('house limits', () => {
  it('rejects a wager over maxBet and a possible payout over maxPayout, and re-checks at commit', async () => {
    const house = (await http('GET', `${svc.api}/house`)).body.house;
    expect(house.maxBet).toBe(50);
    expect(house.maxPayout).toBe(100);
    const player = await new Player(svc.api, svc.rpcUrl).onboard(500);
    const overBet = await player.prepareDice({ wager: 51, target: 90 });
    expect(overBet.res.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(overBet.res.body.error.message).toMatch(/maxBet/);
    const overPayout = await player.prepareDice({ wager: 20, target: 10 });
    expect(overPayout.res.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(overPayout.res.body.error.message).toMatch(/maxPayout/);

    // Prepared within limits; by commit time other open bets have used up the exposure budget
    // (each: wager 1 at a 2% chance, so payout 49.5 and exposure 48.5).
    const ok = await player.prepareDice({ wager: 1, target: 2 });
    expect(ok.res.status).toBe(200);
    const whale = await new Player(svc.api, svc.rpcUrl).onboard(100);
    let committed = 0;
    for (let i = 0; i < 40; i++) {
      const p = await whale.prepareDice({ wager: 1, target: 2 });
      if (p.res.status !== 200) break;
      if ((await whale.commitDice(p.res.body)).status !== 200) break;
      committed++;
    }
    expect(committed).toBeGreaterThan(10);
    expect(committed).toBeLessThan(40);
    const late = await player.commitDice(ok.res.body);
    expect(late.status).toBe(400);
    expect(late.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(late.body.error.message).toMatch(/maxExposure/);
    const status = (await player.get('/protocol/v1/player/status')).body;
    expect(status.balance).toBe(500);
    expect(status.nonces.bet).toBe(0);
  });
});
