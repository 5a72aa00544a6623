// Sweeper on Protocol V1 as a player sees it. Outcomes are forced the way only a test can: it reads the
// operator's chain to predict the next index's value, then picks a column (or seed) that gives the wanted result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { sweeperMineColumn, sweeperPayout, type SweeperMode } from '../../protocol/sweeper.ts';
import { verifyAck } from '../../protocol/ack.ts';
import { betLogLeafHex } from '../../protocol/receipt.ts';
import { settleDueBets } from '../../games/deadlines.ts';
import { books, expectKeptLiabilities } from '../helpers/conservation.ts';

let svc: TestService;
let config: Record<string, string>;
const players: Player[] = [];

beforeAll(async () => {
  svc = await startTestService();
  config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
});
afterAll(async () => {
  await svc?.cleanup();
});

async function newPlayer(deposit = 100): Promise<Player> {
  const p = await new Player(svc.api, svc.rpcUrl).onboard(deposit);
  players.push(p);
  return p;
}

/** The value the next commit will get; valid while no one else commits in between. */
async function nextRngValue(): Promise<string> {
  const [chainId, next] = await svc.wiring.redis.hmget(svc.wiring.keys.rng(), 'chainId', 'next');
  return svc.wiring.rngChains.get(Number(chainId)).valueHex(Number(next));
}

/** Prepares a choice turn whose revealed mine will (safe = true) or will not miss the chosen column. */
async function forcedChoice(player: Player, ticketId: string, row: number, mode: SweeperMode, safe: boolean) {
  const s = await nextRngValue();
  for (let attempt = 0; attempt < 64; attempt++) {
    const column = attempt % 2;
    const p = await player.prepareChoice(ticketId, row, column);
    expect(p.res.status).toBe(200);
    const mine = sweeperMineColumn({ rngValueHex: s, clientSeedRaw: p.clientSeedRaw, betPayloadHash: p.res.body.betPayloadHash, mode });
    if ((mine !== column) === safe) return p;
  }
  throw new Error('could not force the outcome');
}

async function playTurn(player: Player, prepared: Awaited<ReturnType<Player['prepareChoice']>>) {
  const c = await player.commitSweeper(prepared.res.body);
  expect(c.status, JSON.stringify(c.body)).toBe(200);
  const r = await player.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, c.body.ack.revealMessage);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { commit: c.body, reveal: r.body };
}

const betLogLength = () => svc.wiring.redis.llen(svc.wiring.keys.betLog());

describe('full games', () => {
  it('a mine on the first row ends the ticket at 0, with one receipt and one bet-log entry', async () => {
    const player = await newPlayer(20);
    const open = await player.openTicket('medium', 2);
    expect(open.status).toBe(200);
    expect(open.body.ticket).toMatchObject({
      status: 'running',
      mode: 'medium',
      betAmount: 2,
      rowsWon: 0,
      payout: 0,
      choices: [],
      serverSeedHash: config.rngChainHead,
    });
    // resultColumns and endedAt appear as rows are revealed and the ticket ends (contract), not at open.
    expect(open.body.ticket).not.toHaveProperty('resultColumns');
    expect(open.body.ticket).not.toHaveProperty('endedAt');
    expect(open.body.player.balance).toBe(18);
    const ticketId = open.body.ticket.id;
    const logBefore = await betLogLength();
    const { commit, reveal } = await playTurn(player, await forcedChoice(player, ticketId, 0, 'medium', false));
    expect(verifyAck(commit.ack, config.ackPublicKey!)).toEqual({ ok: true });
    expect(reveal.turn.safe).toBe(false);
    expect(reveal.ticket).toMatchObject({ status: 'settled', outcome: 'busted', rowsWon: 0, payout: 0, resultColumns: [reveal.turn.mineColumn] });
    expect(reveal.ticket.endedAt).toBeTruthy();
    expect(reveal.player.balance).toBe(18);
    expect(await betLogLength()).toBe(logBefore + 1);
    const receipt = (await http('GET', `${svc.api}/receipts/${reveal.receiptId}`)).body.receipt;
    expect(receipt).toMatchObject({ game: 'sweeper', gameId: 'sweeper:protocol-v1', status: 'lost', payout: 0, betAmount: 2, source: 'api' });
    expect(receipt.player).not.toBe(player.address);
    expect(receipt.verifierPayload.turns).toHaveLength(1);
    expect(receipt.anchor.betLogEntryHash).toBe(betLogLeafHex(receipt.verifierPayload.betLogEntry));
    const session = (await player.get('/protocol/v1/sweeper/session')).body;
    expect(session.activeTicket).toBeNull();
    expect(session.recentTickets[0]).toMatchObject({ ticketId, outcome: 'busted' });
  });

  it('a cashout after three rows pays floor(wager × multiplier(3) / 10_000)', async () => {
    const player = await newPlayer(20);
    const open = await player.openTicket('hard', 3);
    const ticketId = open.body.ticket.id;
    for (let row = 0; row < 3; row++) {
      const { reveal } = await playTurn(player, await forcedChoice(player, ticketId, row, 'hard', true));
      expect(reveal.ticket).toMatchObject({ status: 'running', rowsWon: row + 1 });
      expect(reveal.ticket.resultColumns).toHaveLength(row + 1);
      expect(reveal.receiptId).toBeNull();
    }
    const expected = sweeperPayout(3_000_000n, 'hard', 3);
    const cash = await player.prepareCashout(ticketId);
    expect(cash.res.status).toBe(200);
    const { reveal } = await playTurn(player, cash);
    expect(reveal.ticket).toMatchObject({ status: 'settled', outcome: 'cashed_out', rowsWon: 3, payout: Number(expected) / 1e6 });
    expect(reveal.player.balance).toBe(Number(17_000_000n + expected) / 1e6);
    const receipt = (await http('GET', `${svc.api}/receipts/${reveal.receiptId}`)).body.receipt;
    expect(receipt).toMatchObject({ status: 'won', payout: 23.76 });
    expect(receipt.verifierPayload.turns).toHaveLength(4);
    expect(receipt.result).toMatchObject({ outcome: 'cashed_out', rowsWon: 3, multiplierBps: 79_200 });
  });

  it('clearing row 8 ends the ticket at the full-board payout', async () => {
    const player = await newPlayer(20);
    const open = await player.openTicket('easy', 1);
    const ticketId = open.body.ticket.id;
    let last: any;
    for (let row = 0; row < 8; row++) last = (await playTurn(player, await forcedChoice(player, ticketId, row, 'easy', true))).reveal;
    expect(last.ticket).toMatchObject({ status: 'settled', outcome: 'cleared', rowsWon: 8, payout: 9.8888 });
    expect(last.ticket.resultColumns).toHaveLength(8);
    expect(last.player.balance).toBe(Number(19_000_000n + 9_888_800n) / 1e6);
    expect((await http('GET', `${svc.api}/receipts/${last.receiptId}`)).body.receipt.status).toBe('won');
  });
});

describe('rejections change nothing', () => {
  async function snapshot(player: Player) {
    const status = (await player.get('/protocol/v1/player/status')).body;
    const session = (await player.get('/protocol/v1/sweeper/session')).body;
    return {
      balance: status.balance,
      nonce: status.nonces.bet,
      staked: status.stakedInPlay,
      active: session.activeTicket?.id ?? null,
      rows: session.activeTicket?.rowsWon ?? null,
    };
  }

  it('rejects bad tickets', async () => {
    const player = await newPlayer(50);
    const before = await snapshot(player);
    for (const wager of [0, -2, 'x', 1.0000001]) expect((await player.openTicket('easy', wager)).body.error.code).toBe('INVALID_BET_AMOUNT');
    for (const mode of ['impossible', 5, null]) expect((await player.openTicket(mode, 1)).body.error.code).toBe('GAME_INPUT_REJECTED');
    const overBalance = await player.openTicket('easy', 51);
    expect(overBalance.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(overBalance.body.error.message).toMatch(/balance/);
    const overPayout = await player.openTicket('hard', 40);
    expect(overPayout.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(overPayout.body.error.message).toMatch(/maxPayout/);
    expect(await snapshot(player)).toEqual(before);
  });

  it('rejects out-of-order choices, foreign tickets, early and ticketless cashouts, and commits while a turn is pending', async () => {
    const player = await newPlayer(50);
    const other = await newPlayer(50);
    const none = await player.prepareCashout('t_missing');
    expect(none.res.body.error.code).toBe('GAME_INPUT_REJECTED');
    const open = await player.openTicket('easy', 1);
    const ticketId = open.body.ticket.id;
    const second = await player.openTicket('easy', 1);
    expect(second.body.error.code).toBe('GAME_INPUT_REJECTED');
    const before = await snapshot(player);

    for (const [row, col] of [
      [1, 0],
      [0, 4],
      [0, -1],
      [0, 1.5],
      ['0', 0],
    ] as const) {
      const p = await player.prepareChoice(ticketId, row, col);
      expect(p.res.body.error.code, `${row}/${col}`).toBe('GAME_INPUT_REJECTED');
    }
    expect((await other.prepareChoice(ticketId, 0, 0)).res.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect((await other.prepareCashout(ticketId)).res.body.error.code).toBe('GAME_INPUT_REJECTED');
    const early = await player.prepareCashout(ticketId);
    expect(early.res.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(early.res.body.error.message).toMatch(/at least one cleared row/);
    expect(await snapshot(player)).toEqual(before);

    // Clear one row, then prepare a choice and a cashout together; commit the choice and try the cashout.
    await playTurn(player, await forcedChoice(player, ticketId, 0, 'easy', true));
    const choice = await player.prepareChoice(ticketId, 1, 0);
    const cashout = await player.prepareCashout(ticketId);
    expect(choice.res.status).toBe(200);
    expect(cashout.res.status).toBe(200);
    const c = await player.commitSweeper(choice.res.body);
    expect(c.status).toBe(200);
    const mid = await snapshot(player);
    const blocked = await player.commitSweeper(cashout.res.body);
    expect(blocked.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(blocked.body.error.message).toMatch(/awaits its reveal/);
    const blockedPrepare = await player.prepareChoice(ticketId, 1, 1);
    expect(blockedPrepare.res.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect(await snapshot(player)).toEqual(mid);
    // Another wallet cannot commit this wallet's turn.
    const fresh = await player.prepareCashout(ticketId);
    expect(fresh.res.body.error.code).toBe('GAME_INPUT_REJECTED');
    await player.revealSweeper(choice.res.body.betPayloadHash, choice.clientSeedRaw, c.body.ack.revealMessage);
  });
});

describe('idempotency, concurrency and recovery', () => {
  it('two tickets opened at once: exactly one opens', async () => {
    const player = await newPlayer(10);
    const results = await Promise.all([player.openTicket('easy', 1), player.openTicket('medium', 1), player.openTicket('hard', 1)]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('GAME_INPUT_REJECTED');
    const status = (await player.get('/protocol/v1/player/status')).body;
    expect(status.balance).toBe(9);
    expect(status.stakedInPlay).toBe(1);
  });

  it('replayed commits and reveals resolve the same turn', async () => {
    const player = await newPlayer(10);
    const ticketId = (await player.openTicket('medium', 1)).body.ticket.id;
    const p = await player.prepareChoice(ticketId, 0, 2);
    const commits = await Promise.all(Array.from({ length: 5 }, () => player.commitSweeper(p.res.body)));
    expect(new Set(commits.map((c) => c.body.ack?.ackHash)).size).toBe(1);
    const msg = commits[0]!.body.ack.revealMessage;
    const reveals = await Promise.all(Array.from({ length: 5 }, () => player.revealSweeper(p.res.body.betPayloadHash, p.clientSeedRaw, msg)));
    for (const r of reveals) expect(r.status).toBe(200);
    expect(new Set(reveals.map((r) => JSON.stringify(r.body.turn))).size).toBe(1);
    const status = (await player.get('/protocol/v1/player/status')).body;
    expect(status.nonces.bet).toBe(1);
  });

  it('a committed, unrevealed turn is recovered from the session read and the seed store', async () => {
    const player = await newPlayer(10);
    const ticketId = (await player.openTicket('easy', 1)).body.ticket.id;
    const p = await player.prepareChoice(ticketId, 0, 1);
    const c = await player.commitSweeper(p.res.body);
    expect((await player.post('/protocol/v1/dice/recovery-seed', { betPayloadHash: p.res.body.betPayloadHash, clientSeedRaw: p.clientSeedRaw })).status).toBe(
      200,
    );
    const session = (await player.get('/protocol/v1/sweeper/session')).body;
    expect(session.activeTicket.pendingTurn).toMatchObject({ status: 'awaiting_reveal', betPayloadHash: p.res.body.betPayloadHash });
    expect(session.activeTicket.pendingTurn.ack.ackHash).toBe(c.body.ack.ackHash);
    const seed = (await player.get(`/protocol/v1/sweeper/recovery-seed?betPayloadHash=${p.res.body.betPayloadHash}`)).body;
    const r = await player.revealSweeper(p.res.body.betPayloadHash, seed.clientSeedRaw, session.activeTicket.pendingTurn.ack.revealMessage);
    expect(r.status).toBe(200);
    expect((await player.get('/protocol/v1/player/status')).body.nonces.bet).toBe(1);
  });

  it('an unrevealed turn busts the ticket at its deadline', async () => {
    const player = await newPlayer(10);
    const ticketId = (await player.openTicket('hard', 2)).body.ticket.id;
    await playTurn(player, await forcedChoice(player, ticketId, 0, 'hard', true));
    const p = await player.prepareCashout(ticketId);
    await player.commitSweeper(p.res.body);
    svc.clock.offsetMs = 24 * 3_600_000 + 1_000;
    try {
      await settleDueBets(svc.wiring.worker!.deadlines);
    } finally {
      svc.clock.offsetMs = 0;
    }
    const ticket = (await player.get(`/protocol/v1/sweeper/ticket/${ticketId}`)).body.ticket;
    expect(ticket).toMatchObject({ status: 'settled', outcome: 'forfeited', payout: 0 });
    const status = (await player.get('/protocol/v1/player/status')).body;
    expect(status.balance).toBe(8);
    expect(status.stakedInPlay).toBe(0);
  });
});

describe('conservation', () => {
  it('the stake is reserved while the ticket is open; vault = liabilities + banked payouts + NAV across random games', async () => {
    const group = await Promise.all([newPlayer(30), newPlayer(30), newPlayer(30)]);
    const modes: SweeperMode[] = ['easy', 'medium', 'hard'];
    const playsBefore = (await svc.wiring.stores.ledger.house()).plays;
    let ended = 0;
    for (let game = 0; game < 6; game++) {
      const player = group[game % 3]!;
      // Each player's first ticket ends; some second tickets stay open, so stakes and banked payouts are owed.
      const last = game >= group.length;
      const mode = modes[game % 3]!;
      const open = await player.openTicket(mode, 1);
      // Every ticket must open: a failure here is a bug, never noise to skip.
      expect(open.status, JSON.stringify(open.body)).toBe(200);
      expect((await player.get('/protocol/v1/player/status')).body.stakedInPlay).toBe(1);
      const ticketId = open.body.ticket.id;
      const length = 1 + Math.floor(Math.random() * 4);
      let running = true;
      for (let row = 0; row < length && running; row++) {
        const p = await player.prepareChoice(ticketId, row, Math.floor(Math.random() * 2));
        running = (await playTurn(player, p)).reveal.ticket.status === 'running';
      }
      if (running && (!last || game % 2 === 0)) {
        await playTurn(player, await player.prepareCashout(ticketId));
        running = false;
      }
      if (!running) ended++;
    }
    expect((await svc.wiring.stores.ledger.house()).plays - playsBefore).toBe(BigInt(ended));
    expect(ended).toBeGreaterThanOrEqual(3);
    await expectKeptLiabilities(svc);
    const b = await books(svc, players);
    expect(b.vault).toBe(b.liabilities + b.banked + b.nav + b.unattributed);
    expect(b.serviceNav).toBe(b.nav);
    // No turn is in flight: open tickets hold no exposure, only what they are owed.
    expect(b.exposure).toBe(0n);
  });
});
