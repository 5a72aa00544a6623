// Holding scarce exposure costs its holder (design §10): while the house's open exposure is above
// SCARCE_EXPOSURE_BPS of maxExposure, a new bet gets the short reveal deadline in its signed ack, so whoever holds
// the budget must settle and recommit (paying the house edge) every few minutes, not once a day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAck, type Ack } from '../../protocol/ack.ts';
import { settleDueBets } from '../../games/deadlines.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';

const DAY_MS = 24 * 3_600_000;
const SHORT_MS = 300_000;
let svc: TestService;

beforeAll(async () => {
  // NAV 10,000: maxExposure 1,000, scarce above 10% of it (100). Each bet below (wager 1 at a 2% chance) holds 48.5.
  svc = await startTestService({
    DEV_HOUSE_CAPITAL: '10000',
    MAX_EXPOSURE_BPS: '1000',
    MAX_WALLET_EXPOSURE_BPS: '10000',
    SCARCE_EXPOSURE_BPS: '1000',
    SCARCE_REVEAL_DEADLINE_MS: String(SHORT_MS),
  });
});
afterAll(async () => {
  await svc?.cleanup();
});

const lifetime = (ack: Ack) => Date.parse(ack.revealDeadline) - Date.parse(ack.committedAt);

describe('the reveal deadline while exposure is scarce', () => {
  it('is 24 h while exposure is plentiful and short once it is scarce, signed in the ack; due bets settle at it', async () => {
    const config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
    const holder = await new Player(svc.api, svc.rpcUrl).onboard(50);
    const acks: Ack[] = [];
    const pending: { hash: string; seed: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await holder.prepareDice({ wager: 1, target: 2 });
      expect(p.res.status).toBe(200);
      const c = await holder.commitDice(p.res.body);
      expect(c.status).toBe(200);
      acks.push(c.body.ack as Ack);
      pending.push({ hash: p.res.body.betPayloadHash, seed: p.clientSeedRaw });
      await holder.post('/protocol/v1/dice/recovery-seed', { betPayloadHash: p.res.body.betPayloadHash, clientSeedRaw: p.clientSeedRaw });
    }
    // 48.5 and 97 are within 10% of maxExposure; 145.5 and 194 are not.
    expect(acks.map(lifetime)).toEqual([DAY_MS, DAY_MS, SHORT_MS, SHORT_MS]);
    for (const ack of acks) expect(verifyAck(ack, config.ackPublicKey)).toEqual({ ok: true });

    // A bystander's small bet while exposure is scarce gets the short deadline too: the rule is the house's state,
    // not who holds it. Revealing at once, as clients do, it settles as ever.
    const bystander = await new Player(svc.api, svc.rpcUrl).onboard(5);
    const played = await bystander.playDice({ wager: 1, target: 50, direction: 'under' });
    expect(lifetime(played.commit.ack as Ack)).toBe(SHORT_MS);
    expect(['won', 'lost']).toContain(played.reveal.outcome.status);

    // Just past the short deadline the two scarce bets settle with their stored seeds; the 24 h ones stay open.
    svc.clock.offsetMs = SHORT_MS + 1_000;
    try {
      await settleDueBets(svc.wiring.worker!.deadlines);
    } finally {
      svc.clock.offsetMs = 0;
    }
    const statusOf = async (hash: string) => (await http('GET', `${svc.api}/receipts/dice_${hash.slice(0, 32)}`)).status;
    expect(await Promise.all(pending.map((p) => statusOf(p.hash)))).toEqual([404, 404, 200, 200]);
    const session = (await holder.get('/protocol/v1/dice/session')).body;
    expect(session.pendingBets.map((b: { betPayloadHash: string }) => b.betPayloadHash)).toEqual(pending.slice(0, 2).map((p) => p.hash));
  });
});
