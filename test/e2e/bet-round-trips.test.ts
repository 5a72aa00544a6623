// The Redis calls a bet's steps make in the process that took the wallet's previous step (issue 25). A reveal settles
// the bet its commit script returned, without reading it back; a prepare that knows the wallet's nonce stores the bet in
// the same call as its read. In another process, or with the nonce moved on, each reads first: the same bet either way.
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
/** Prepare's calls: each read, with whether it stored the bet, and each store after a read. */
const prepares: string[] = [];

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
  const view = bets.prepareView.bind(bets);
  bets.prepareView = async (...args) => {
    const result = await view(...args);
    prepares.push(args[3] ? `view+save:${result.saved}` : 'view');
    return result;
  };
  const save = bets.savePrepared.bind(bets);
  bets.savePrepared = async (...args) => {
    prepares.push('save');
    return save(...args);
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

describe('a prepare', () => {
  it("stores the bet in the same call as its read once the process knows the wallet's nonce", async () => {
    const p = await player();
    prepares.length = 0;
    const first = await p.playDice({ wager: 1 });
    expect(first.prepared.betPayload.betNonce).toBe(0);
    expect(prepares).toEqual(['view', 'save']);

    prepares.length = 0;
    const second = await p.playDice({ wager: 1 });
    expect(second.prepared.betPayload.betNonce).toBe(1);
    expect(prepares).toEqual(['view+save:true']);
    // A second prepare before any commit carries the same nonce, and is stored in one call too.
    prepares.length = 0;
    const a = await p.prepareDice({ wager: 1 });
    const b = await p.prepareDice({ wager: 1 });
    expect([a.res.body.betPayload.betNonce, b.res.body.betPayload.betNonce]).toEqual([2, 2]);
    expect(prepares).toEqual(['view+save:true', 'view+save:true']);
    expect((await p.commitDice(b.res.body)).status).toBe(200);
    expect((await p.commitDice(a.res.body)).body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'stale_nonce' } });
  });

  it('reads, then stores the bet with the nonce it read, when the nonce moved on in another process', async () => {
    const p = await player();
    await p.playDice({ wager: 1 });
    // Another process takes the wallet's next bet: this one still expects nonce 1.
    const elsewhere = new BetLifecycle(svc.wiring.lifecycle.deps);
    const seed = p.newSeed();
    const other = await elsewhere.prepare(
      'dice',
      p.address,
      { commitment: seed.commitment, sessionPubkey: p.session.publicKey, direction: 'under', target: 50, wager: 1 },
      'api',
    );
    expect(other.betPayload.betNonce).toBe(1);
    await elsewhere.commit('dice', p.address, { ...other, sessionSignature: p.signHash(other.betPayloadHash) }, 'api');

    prepares.length = 0;
    const next = await p.playDice({ wager: 1 });
    expect(next.prepared.betPayload.betNonce).toBe(2);
    expect(prepares).toEqual(['view+save:false', 'save']);
  });

  it('stores nothing when its checks refuse the bet, nonce known or not', async () => {
    const p = await player();
    const played = await p.playDice({ wager: 1 });
    const kept = await p.prepareDice({ wager: 1 });
    const listed = () => bets.redis.lrange(bets.keys.preparedBets(p.address), 0, -1);
    const before = await listed();
    prepares.length = 0;
    const overBalance = await p.prepareDice({ wager: 5_000 });
    expect(overBalance.res.body.error.details).toMatchObject({ reason: 'insufficient_balance' });
    const reused = await p.prepareDice({ wager: 1, commitment: played.prepared.betPayload.commitment });
    expect(reused.res.body.error.details).toMatchObject({ reason: 'commitment_used' });
    expect(prepares).toEqual(['view+save:false', 'view+save:false']);
    const elsewhere = new BetLifecycle(svc.wiring.lifecycle.deps);
    const input = { commitment: p.newSeed().commitment, sessionPubkey: p.session.publicKey, direction: 'under', target: 50, wager: 5_000 };
    await expect(elsewhere.prepare('dice', p.address, input, 'api')).rejects.toMatchObject({ details: { reason: 'insufficient_balance' } });
    expect(prepares).toEqual(['view+save:false', 'view+save:false', 'view']);
    expect(await listed()).toEqual(before);
    expect((await p.commitDice(kept.res.body)).status).toBe(200);
  });
});
