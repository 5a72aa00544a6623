// The live play feed through the real service: real bets publish their public play with the seq of the settle
// event, the same play a replay from the journal rebuilds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player } from '../helpers/player.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { journalRowOf } from '../../analytics/journal-rows.ts';
import { playOfJournalRow } from '../../analytics/shapes.ts';

let svc: TestService;
let player: Player;

beforeAll(async () => {
  svc = await startTestService();
  player = await new Player(svc.api, svc.rpcUrl).onboard(50);
}, 120_000);
afterAll(async () => {
  await svc?.cleanup();
});

/** Waits for a condition, polling. */
async function until<T>(what: string, get: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const PLAY_KEYS = ['receiptId', 'game', 'player', 'source', 'betAmount', 'payout', 'profit', 'won', 'settledAt'].sort();

describe('the plays channel', () => {
  let sub: Redis;
  const messages: { seq: number; play: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    sub = createRedis(svc.config.REDIS_URL);
    sub.on('message', (_channel: string, text: string) => messages.push(JSON.parse(text)));
    await sub.subscribe(svc.wiring.keys.playsChannel());
  });
  afterAll(async () => {
    await sub?.quit();
  });

  it('carries each settled play in the public shape, with the seq of its settle event in the journal', async () => {
    const dice = await player.playDice({ wager: 2, target: 50 });
    const ticket = await player.openTicket('easy', 1);
    const id = ticket.body.ticket.id as string;
    const cashout = await player.prepareChoice(id, 0, 0);
    const c = await player.commitSweeper(cashout.res.body);
    const r = await player.revealSweeper(cashout.res.body.betPayloadHash, cashout.clientSeedRaw, c.body.ack.revealMessage);
    if (r.body.ticket.status === 'running') {
      const out = await player.prepareCashout(id);
      const oc = await player.commitSweeper(out.res.body);
      await player.revealSweeper(out.res.body.betPayloadHash, out.clientSeedRaw, oc.body.ack.revealMessage);
    }
    await until('both plays published', () => messages.length >= 2);
    expect(messages).toHaveLength(2);
    const [m1, m2] = messages as [(typeof messages)[0], (typeof messages)[0]];
    expect(m1.play).toMatchObject({ receiptId: dice.reveal.receiptId, game: 'dice', source: 'api', betAmount: 2 });
    expect(m2.play).toMatchObject({ receiptId: `sweeper_${id}`, game: 'sweeper', source: 'api', betAmount: 1 });
    const entries = await svc.wiring.redis.xrange(svc.wiring.keys.journal(), '-', '+');
    for (const m of messages) {
      expect(Object.keys(m.play).sort()).toEqual(PLAY_KEYS);
      expect(m.play.profit).toBeCloseTo((m.play.payout as number) - (m.play.betAmount as number), 6);
      expect(m.play.player).toMatch(/^p_/);
      expect(JSON.stringify(m)).not.toContain(player.address);
      // The seq is the settle event's, and a replay from the journal rebuilds the very same play.
      const entry = entries.map(([eid, fields]) => journalRowOf(eid, fields)).find((row) => row?.seq === m.seq);
      expect(entry?.type).toMatch(/^(bet|ticket)_settled$/);
      expect(playOfJournalRow(entry!)).toEqual(m.play);
    }
    expect(m2.seq).toBeGreaterThan(m1.seq);
  }, 60_000);
});
