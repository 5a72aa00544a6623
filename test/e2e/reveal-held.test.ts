// A reveal in the process that took the commit settles the bet the commit script stored and returned, without reading
// it back (issue 25); a reveal in another process reads it. Either way it is the same bet, settled once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BetLifecycle } from '../../games/lifecycle.ts';
import type { Hex32 } from '../../protocol/hex32.ts';
import type { BetRecord, BetStore } from '../../store/bets.ts';
import { Player, http } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let bets: BetStore;
let read: (hash: Hex32) => Promise<BetRecord | null>;
/** Bets read through the service's store, and the bets its commits returned, by hash. */
const reads: string[] = [];
const committed = new Map<string, BetRecord>();

beforeAll(async () => {
  svc = await startTestService();
  bets = svc.wiring.lifecycle.deps.bets;
  read = bets.bet.bind(bets);
  bets.bet = async (hash) => {
    reads.push(hash);
    return read(hash);
  };
  const commit = bets.commit.bind(bets);
  bets.commit = async (...args) => {
    const result = await commit(...args);
    if (result.kind === 'ok') committed.set(args[0], result.bet);
    return result;
  };
});
afterAll(async () => {
  await svc?.cleanup();
});

const player = async () => new Player(svc.api, svc.rpcUrl).onboard(100);

describe('a reveal after a commit in the same process', () => {
  it('settles a Dice bet without reading it back, and what the commit returned is the bet as stored', async () => {
    const p = await player();
    const prepared = await p.prepareDice({ wager: 1 });
    const commit = await p.commitDice(prepared.res.body);
    expect(commit.status).toBe(200);
    const hash = prepared.res.body.betPayloadHash as Hex32;
    expect(committed.get(hash)).toEqual(await read(hash));

    reads.length = 0;
    const reveal = await p.revealDice(hash, prepared.clientSeedRaw, commit.body.ack.revealMessage);
    expect(reveal.status).toBe(200);
    expect(reads).toEqual([]);
    expect((await read(hash))?.state).toBe('settled');
    const receipt = await http('GET', `${svc.api}/receipts/${reveal.body.receiptId}`);
    expect(receipt.body.receipt.proof).toMatchObject({ ackHash: commit.body.ack.ackHash, rngIndex: commit.body.ack.rngIndex });
    expect(receipt.body.receipt.verifierPayload.betPayload).toEqual(prepared.res.body.betPayload);
  });

  it('settles a Sweeper turn the same way', async () => {
    const p = await player();
    const open = await p.openTicket('easy', 1);
    expect(open.status).toBe(200);
    const prepared = await p.prepareChoice(open.body.ticket.id, 0, 0);
    const commit = await p.commitSweeper(prepared.res.body);
    expect(commit.status).toBe(200);
    const hash = prepared.res.body.betPayloadHash as Hex32;
    expect(committed.get(hash)).toMatchObject({ ticketId: open.body.ticket.id, game: 'sweeper' });
    expect(committed.get(hash)).toEqual(await read(hash));

    reads.length = 0;
    const reveal = await p.revealSweeper(hash, prepared.clientSeedRaw, commit.body.ack.revealMessage);
    expect(reveal.status).toBe(200);
    expect(reads).toEqual([]);
  });

  it("reads the bet in another process, and answers a bet settled there with that process's settlement", async () => {
    const p = await player();
    const prepared = await p.prepareDice({ wager: 1 });
    const commit = await p.commitDice(prepared.res.body);
    const hash = prepared.res.body.betPayloadHash as Hex32;
    const sessionSignature = p.signText(commit.body.ack.revealMessage);

    reads.length = 0;
    const elsewhere = await new BetLifecycle(svc.wiring.lifecycle.deps).reveal('dice', p.address, hash, prepared.clientSeedRaw, sessionSignature);
    expect(reads).toEqual([hash]);

    // This process still holds the bet as committed: the settle script finds it settled and this reveal answers that.
    const here = await p.revealDice(hash, prepared.clientSeedRaw, commit.body.ack.revealMessage);
    expect(here.status).toBe(200);
    expect(here.body.receiptId).toBe(elsewhere.receiptId);
    expect(here.body.payout).toBe(elsewhere.payout);
    expect((await p.get('/protocol/v1/dice/session')).body.balance).toBe(here.body.player.balance);
  });

  it("does not answer another wallet's reveal of a bet it holds", async () => {
    const [owner, other] = await Promise.all([player(), player()]);
    const prepared = await owner.prepareDice({ wager: 1 });
    const commit = await owner.commitDice(prepared.res.body);
    const hash = prepared.res.body.betPayloadHash;
    const res = await other.post('/protocol/v1/dice/reveal', {
      betPayloadHash: hash,
      clientSeedRaw: prepared.clientSeedRaw,
      sessionSignature: owner.signText(commit.body.ack.revealMessage),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'not_found' } });
    expect((await read(hash))?.state).toBe('committed');
  });
});
