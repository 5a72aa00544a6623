// Idle Sweeper tickets (design §10), as a user on localnet with the service's clock moved forward: a ticket with no
// turn in flight for TICKET_IDLE_MS is closed by the deadline worker, expired with its stake back at 0 rows, cashed
// out at 2 rows; the receipt says `closedBy: 'idle'` and verifies with pfws-verify; a turn in flight is never closed.
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectVerifiedAll } from '../helpers/verify-all.ts';
import { Player, http } from '../helpers/player.ts';
import { expectConserved } from '../helpers/conservation.ts';
import { closeIdleTickets } from '../../games/deadlines.ts';
import { sweeperMineColumn, sweeperPayout } from '../../protocol/sweeper.ts';
import { runCli } from '../../verifier/cli.ts';

const IDLE_MS = 15 * 60_000;
let svc: TestService;
const players: Player[] = [];

async function onboard(deposit: number): Promise<Player> {
  const p = await new Player(svc.api, svc.rpcUrl).onboard(deposit);
  players.push(p);
  return p;
}

async function turn(p: Player, prepared: Awaited<ReturnType<Player['prepareChoice']>>) {
  const c = await p.commitSweeper(prepared.res.body);
  expect(c.status, JSON.stringify(c.body)).toBe(200);
  const r = await p.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, c.body.ack.revealMessage);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** A safe choice for `row`, found by knowing the next RNG value (a test of the closing, not of luck). */
async function safeChoice(p: Player, ticketId: string, row: number) {
  const [chainId, next] = await svc.wiring.redis.hmget(svc.wiring.keys.rng(), 'chainId', 'next');
  const s = svc.wiring.rngChains.get(Number(chainId)).valueHex(Number(next));
  for (let attempt = 0; attempt < 64; attempt++) {
    const prepared = await p.prepareChoice(ticketId, row, attempt % 4);
    const mine = sweeperMineColumn({ rngValueHex: s, clientSeedRaw: prepared.clientSeedRaw, betPayloadHash: prepared.res.body.betPayloadHash, mode: 'easy' });
    if (mine !== attempt % 4) return prepared;
  }
  throw new Error('no safe column found');
}

const ticketOf = async (p: Player, id: string) => (await p.get(`/protocol/v1/sweeper/ticket/${id}`)).body.ticket;
const receipt = async (id: string) => (await http('GET', `${svc.api}/receipts/${id}`)).body.receipt;

/** Moves the clock past the idle time and waits for the deadline worker to close the ticket. */
async function idleOut(p: Player, ticketId: string) {
  svc.clock.offsetMs = IDLE_MS + 1_000;
  await vi.waitFor(async () => expect((await ticketOf(p, ticketId)).status).toBe('settled'), { timeout: 15_000, interval: 100 });
  return ticketOf(p, ticketId);
}

async function verifyCli(receiptId: string): Promise<{ code: number; out: string }> {
  await vi.waitFor(async () => expect((await receipt(receiptId)).anchor.status).toBe('committed'), { timeout: 20_000, interval: 100 });
  let out = '';
  const code = await runCli(['receipt', receiptId, '--api', svc.api, '--verbose'], {
    out: (t) => (out += `${t}\n`),
    err: (t) => (out += `${t}\n`),
    env: { PFWS_VERIFY_HOME: path.join(svc.dataDir, 'pfws-verify') },
    tty: false,
  });
  return { code, out };
}

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', MANIFEST_MAX_DELAY_MS: '100' });
}, 60_000);

afterAll(async () => {
  await svc?.cleanup();
});

afterEach(async () => {
  if (!svc) return;
  svc.clock.offsetMs = 0;
  await expectConserved(svc, players);
});

describe('an idle Sweeper ticket', () => {
  it('at 0 rows: expires with its stake returned, closedBy idle, and its receipt verifies', async () => {
    const p = await onboard(50);
    const open = await p.openTicket('easy', 2);
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    const ticketId = open.body.ticket.id as string;
    // An open ticket holds its stake, and no exposure until a turn is in flight.
    expect((await p.get('/protocol/v1/player/status')).body).toMatchObject({ balance: 48, stakedInPlay: 2, exposure: 0 });
    expect((await svc.wiring.stores.ledger.house()).exposure).toBe(0n);

    // Not yet idle: nothing closes.
    svc.clock.offsetMs = IDLE_MS - 60_000;
    expect(await closeIdleTickets(svc.wiring.worker!.deadlines)).toBe(0);
    expect((await ticketOf(p, ticketId)).status).toBe('running');

    const ticket = await idleOut(p, ticketId);
    expect(ticket).toMatchObject({ status: 'settled', outcome: 'expired', closedBy: 'idle', rowsWon: 0, payout: 2, resultColumns: [] });
    expect(Date.parse(ticket.endedAt)).toBeGreaterThan(Date.now() + IDLE_MS);
    expect((await p.get('/protocol/v1/player/status')).body).toMatchObject({ balance: 50, stakedInPlay: 0, exposure: 0 });
    expect((await p.get('/protocol/v1/sweeper/session')).body.activeTicket).toBeNull();
    expect((await svc.wiring.stores.ledger.house()).exposure).toBe(0n);

    const r = await receipt(`sweeper_${ticketId}`);
    expect(r).toMatchObject({ status: 'expired', closedBy: 'idle', betAmount: 2, payout: 2, profit: 0, result: { outcome: 'expired', rowsWon: 0 } });
    expect(r.verifierPayload).toMatchObject({
      closedBy: 'idle',
      turns: [],
      betLogEntry: { closedBy: 'idle', outcome: 'expired', status: 'expired', payout: '2000000' },
    });
    const verified = await verifyCli(r.id);
    expect(verified.out).toMatch(/PASS {2}receipt sweeper_/);
    expect(verified.code).toBe(0);
  });

  it('at 2 rows: is cashed out at the current payout, closedBy idle, and its receipt verifies', async () => {
    const p = await onboard(50);
    const open = await p.openTicket('easy', 1);
    const ticketId = open.body.ticket.id as string;
    await turn(p, await safeChoice(p, ticketId, 0));
    const second = await turn(p, await safeChoice(p, ticketId, 1));
    expect(second.ticket).toMatchObject({ status: 'running', rowsWon: 2 });

    const ticket = await idleOut(p, ticketId);
    const payout = sweeperPayout(1_000_000n, 'easy', 2);
    expect(ticket).toMatchObject({ status: 'settled', outcome: 'cashed_out', closedBy: 'idle', rowsWon: 2, payout: Number(payout) / 1e6 });
    expect((await p.get('/protocol/v1/player/status')).body).toMatchObject({ balance: 49 + Number(payout) / 1e6, stakedInPlay: 0, exposure: 0 });

    const r = await receipt(`sweeper_${ticketId}`);
    expect(r).toMatchObject({ status: 'won', closedBy: 'idle', payout: Number(payout) / 1e6, result: { outcome: 'cashed_out', rowsWon: 2 } });
    expect(r.verifierPayload.turns).toHaveLength(2);
    expect(r.verifierPayload.betLogEntry).toMatchObject({ closedBy: 'idle', outcome: 'cashed_out', status: 'won' });
    const verified = await verifyCli(r.id);
    expect(verified.out).toContain('✓ closed-by');
    expect(verified.code).toBe(0);
  });

  it('is never closed with a turn in flight; it becomes idle again from that turn’s reveal', async () => {
    const p = await onboard(50);
    const ticketId = (await p.openTicket('easy', 1)).body.ticket.id as string;
    const prepared = await safeChoice(p, ticketId, 0);
    const committed = await p.commitSweeper(prepared.res.body);
    expect(committed.status).toBe(200);
    // The turn in flight holds its own increment: what row 1 would pay over the stake.
    expect((await svc.wiring.stores.ledger.player(p.address)).exposure).toBe(sweeperPayout(1_000_000n, 'easy', 1) - 1_000_000n);

    svc.clock.offsetMs = IDLE_MS + 1_000;
    expect(await closeIdleTickets(svc.wiring.worker!.deadlines)).toBe(0);
    expect((await ticketOf(p, ticketId)).status).toBe('running');
    expect(await svc.wiring.redis.zscore(svc.wiring.keys.idleTickets(), ticketId)).toBeNull();

    // The reveal (late, but within its deadline) settles the turn: idle time counts again from now.
    const revealed = await p.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, committed.body.ack.revealMessage);
    expect(revealed.body.ticket).toMatchObject({ status: 'running', rowsWon: 1 });
    // Idle again, it holds no exposure; the row it won is owed (banked), so it is in NAV's liabilities.
    const house = await svc.wiring.stores.ledger.house();
    expect([house.exposure, house.banked]).toEqual([0n, sweeperPayout(1_000_000n, 'easy', 1) - 1_000_000n]);
    expect(Number(await svc.wiring.redis.zscore(svc.wiring.keys.idleTickets(), ticketId))).toBeGreaterThan(Date.now() + IDLE_MS);
    expect(await closeIdleTickets(svc.wiring.worker!.deadlines)).toBe(0);
    svc.clock.offsetMs = 2 * IDLE_MS + 2_000;
    await vi.waitFor(async () => expect(await ticketOf(p, ticketId)).toMatchObject({ status: 'settled', outcome: 'cashed_out', closedBy: 'idle' }), {
      timeout: 15_000,
      interval: 100,
    });
  });

  it('leaves a history `pfws-verify all` passes', async () => {
    const { redis, keys } = svc.wiring;
    await vi.waitFor(
      async () => {
        const [size, state] = await Promise.all([redis.llen(keys.betLog()), redis.hmget(keys.anchor(), 'committedSize', 'filled')]);
        expect([Number(state[0]), Number(state[1])]).toEqual([size, size]);
      },
      { timeout: 20_000, interval: 100 },
    );
    // The idle closes were checked among the log's entries (one summary report for the whole log).
    expect(await expectVerifiedAll(svc)).toContain('closed-by');
  });

  it('keeps the default maxExposure at 25% of NAV', async () => {
    const house = (await http('GET', `${svc.api}/house`)).body.house;
    expect(house.maxExposure).toBe(Math.floor(house.totalValue * 0.25 * 1e6) / 1e6);
  });
});
