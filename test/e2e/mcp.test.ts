// The MCP surface as an agent uses it: the SDK's own client over Streamable HTTP against a running service, the
// wallet's service-held agent key authorized by the normal setup transaction, the agent limits and their envelopes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { runCli } from '../../verifier/cli.ts';
import { betPayloadHashOf } from '../../protocol/bet-payload.ts';
import { commitmentOf } from '../../protocol/commitment.ts';
import { verifyAck } from '../../protocol/ack.ts';
import { settleDice } from '../../protocol/dice.ts';
import { verifyRngLink } from '../../protocol/rng-chain.ts';
import { parseAmount } from '../../protocol/money.ts';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';

const TOOLS = ['get_arcade_state', 'play_dice', 'sweeper_open', 'sweeper_choose', 'sweeper_cashout', 'get_receipt', 'get_house', 'top_up'];

let svc: TestService;
let config: Record<string, any>;
const clients: Client[] = [];

async function connect(token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

type Result = CallToolResult & { structuredContent: any };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> =>
  (await client.callTool({ name, arguments: args })) as Result;

/** A player whose agent key is authorized with the normal setup transaction, and an MCP client with its token. */
async function agentPlayer(deposit = 20): Promise<{ player: Player; agent: Client; agentKey: string }> {
  const player = await new Player(svc.api, svc.rpcUrl).onboard(deposit);
  const key = await player.get('/protocol/v1/player/agent-key');
  expect(key.status).toBe(200);
  await player.setup(0, key.body.sessionPubkey);
  return { player, agent: await connect(player.token), agentKey: key.body.sessionPubkey };
}

async function waitAnchored(): Promise<void> {
  const { redis, keys } = svc.wiring;
  for (let i = 0; i < 300; i++) {
    const [size, state] = await Promise.all([redis.llen(keys.betLog()), redis.hmget(keys.anchor(), 'committedSize', 'filled')]);
    if (size > 0 && Number(state[0]) === size && Number(state[1]) === size) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the bet log was not anchored in time');
}

const seedHex = (byte: number) => byte.toString(16).padStart(2, '0').repeat(32);

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', MANIFEST_MAX_DELAY_MS: '100' });
  config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await svc?.cleanup();
});

describe('/api/mcp authentication', () => {
  it('answers 401 WALLET_SESSION_REQUIRED without a token or with a bad one, and the SDK client cannot connect', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    for (const token of [undefined, 'not-a-token']) {
      const res = await fetch(`${svc.api}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.code).toBe('WALLET_SESSION_REQUIRED');
      await expect(connect(token)).rejects.toThrow(/401|WALLET_SESSION_REQUIRED/);
    }
  });

  it('serves only POST: GET and DELETE are 405 for a signed-in wallet', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.faucet(10);
    await player.login();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${svc.api}/mcp`, { method, headers: { authorization: `Bearer ${player.token}`, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
    }
  });
});

describe('the agent key', () => {
  it('is made on first read, stays the same, is sealed at rest, and is authorized by the normal setup transaction', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(10);
    expect((await http('GET', `${svc.api}/protocol/v1/player/agent-key`)).status).toBe(401);
    const first = await player.get('/protocol/v1/player/agent-key');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ sessionPubkey: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), authorized: false, status: 'not_authorized' });
    expect((await player.get('/protocol/v1/player/agent-key')).body.sessionPubkey).toBe(first.body.sessionPubkey);
    // The stored record holds the public key and a ciphertext, never the seed in the clear.
    const stored = JSON.parse((await svc.wiring.redis.get(svc.wiring.keys.agentKey(player.address)))!);
    expect(Object.keys(stored).sort()).toEqual(['iv', 'seed', 'sessionPubkey', 'tag', 'v']);
    expect(stored.sessionPubkey).toBe(first.body.sessionPubkey);
    await player.setup(0, first.body.sessionPubkey);
    expect((await player.get('/protocol/v1/player/agent-key')).body).toMatchObject({
      sessionPubkey: first.body.sessionPubkey,
      authorized: true,
      status: 'active',
    });
  });

  it('unauthorized, then revoked: plays get a clear SESSION_KEY_NOT_AUTHORIZED tool error and the state says what to do', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(10);
    const agent = await connect(player.token);
    const state = await call(agent, 'get_arcade_state');
    expect(state.isError).toBeFalsy();
    const key = state.structuredContent.agentKey;
    expect(key).toMatchObject({ authorized: false, status: 'not_authorized' });
    expect(key.howToAuthorize.steps[0]).toEqual({
      method: 'POST',
      path: '/api/protocol/v1/player/setup-transaction',
      body: { amount: 0, sessionPubkey: key.sessionPubkey },
    });
    expect(state.structuredContent.nextSteps.join(' ')).toContain(key.sessionPubkey);

    const refused = await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error).toMatchObject({ code: 'SESSION_KEY_NOT_AUTHORIZED', details: { status: 'not_authorized' } });
    expect(refused.structuredContent.error.message).toContain(key.sessionPubkey);
    const ticket = await call(agent, 'sweeper_open', { betAmount: 0.01, mode: 'easy' });
    expect(ticket.structuredContent.error.code).toBe('SESSION_KEY_NOT_AUTHORIZED');

    await player.setup(0, key.sessionPubkey);
    expect((await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' })).isError).toBeFalsy();

    const revoke = await player.post('/protocol/v1/player/revoke-session-key-transaction', { sessionPubkey: key.sessionPubkey });
    await player.signAndSend(revoke.body.transaction);
    await player.post('/protocol/v1/player/sync');
    const revoked = await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' });
    expect(revoked.isError).toBe(true);
    expect(revoked.structuredContent.error).toMatchObject({ code: 'SESSION_KEY_NOT_AUTHORIZED', details: { status: 'revoked' } });
    expect(revoked.structuredContent.error.message).toMatch(/revoked/);
    expect((await call(agent, 'get_arcade_state')).structuredContent.agentKey.status).toBe('revoked');
  });
});

describe('the agent key on REST', () => {
  it('is refused on every REST play route with agent_key_rest_forbidden, nothing moves, and MCP keeps playing with it', async () => {
    const { player, agent, agentKey } = await agentPlayer(10);
    const forbidden = (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'agent_key_rest_forbidden' } });
      expect(res.body.error.message).toMatch(/MCP/);
    };
    const before = await svc.wiring.stores.bets.playerTotals(player.address);
    forbidden((await player.prepareDice({ wager: 0.01, sessionPubkey: agentKey })).res);
    forbidden(await player.post('/protocol/v1/sweeper/ticket', { mode: 'hard', sessionPubkey: agentKey, wager: 1 }));
    // A ticket the agent opened: REST turns with its key are refused too.
    const opened = await call(agent, 'sweeper_open', { betAmount: 0.01, mode: 'easy' });
    expect(opened.isError).toBeFalsy();
    const ticketId = opened.structuredContent.ticket.id;
    const seed = player.newSeed();
    forbidden(
      await player.post('/protocol/v1/sweeper/choice/prepare', { ticketId, commitment: seed.commitment, sessionPubkey: agentKey, row: 0, choiceColumn: 0 }),
    );
    forbidden(await player.post('/protocol/v1/sweeper/cashout/prepare', { ticketId, commitment: seed.commitment, sessionPubkey: agentKey }));
    // A payload the agent prepared and its key signed, sent to the REST commit instead.
    const key = await svc.wiring.agentKeys.key(player.address);
    const agentSeed = seedHex(0xa7);
    const prepared = await svc.wiring.lifecycle.prepare(
      'dice',
      player.address,
      { commitment: commitmentOf(agentSeed), sessionPubkey: agentKey, wager: 0.02, target: 50, direction: 'under' },
      'mcp',
    );
    const afterOpen = await svc.wiring.stores.bets.playerTotals(player.address);
    expect(afterOpen.staked - before.staked).toBe(parseAmount(0.01));
    forbidden(await player.post('/protocol/v1/dice/commit', { ...prepared, sessionSignature: key.signHash(prepared.betPayloadHash) }));
    expect(await svc.wiring.stores.bets.playerTotals(player.address)).toEqual(afterOpen);
    // Through MCP the same key plays on, and the wallet's own key plays over REST.
    expect((await call(agent, 'sweeper_cashout', {})).structuredContent.error.code).toBe('GAME_INPUT_REJECTED');
    expect((await call(agent, 'sweeper_choose', { column: 0 })).isError).toBeFalsy();
    expect((await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' })).isError).toBeFalsy();
    expect((await player.playDice({ wager: 0.05, target: 50 })).reveal.receiptId).toMatch(/^dice_/);
  });
});

describe('an agent session', () => {
  let agent: Client;
  let player: Player;
  let agentKey: string;
  let diceReceipt: string;
  let sweeperReceipt: string;

  beforeAll(async () => {
    ({ agent, player, agentKey } = await agentPlayer(20));
  }, 60_000);

  it('lists the tools, each with a description and an input schema', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
    }
    const dice = tools.find((t) => t.name === 'play_dice')!;
    expect(Object.keys(dice.inputSchema.properties ?? {}).sort()).toEqual(['betAmount', 'clientSeed', 'direction', 'target']);
    expect(dice.inputSchema.required).toEqual(expect.arrayContaining(['betAmount', 'target', 'direction']));
    expect((dice.inputSchema.properties as any).direction.enum).toEqual(['under', 'over']);
  });

  it('reads the state: balance, the authorized key, no ticket, the limits and what to do next', async () => {
    const state = await call(agent, 'get_arcade_state');
    expect(state.isError).toBeFalsy();
    expect(state.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Balance 20 USDC') });
    expect(state.structuredContent).toMatchObject({
      balance: 20,
      agentKey: { sessionPubkey: agentKey, authorized: true, status: 'active' },
      activeTicket: null,
      recentPlays: [],
      limits: { maxBet: 0.05, maxWagered: 1, wagered: 0, remaining: 1, windowMs: 86_400_000, resetsAt: null },
    });
    expect(state.structuredContent.nextSteps.join(' ')).toMatch(/play_dice/);
  });

  it('plays Dice with its own client seed and gets everything it needs to verify the play itself', async () => {
    const clientSeed = seedHex(0xa7);
    const r = await call(agent, 'play_dice', { betAmount: 0.05, target: 49.5, direction: 'over', clientSeed });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    const s = r.structuredContent;
    diceReceipt = s.receiptId;
    expect(s).toMatchObject({ game: 'dice', source: 'mcp', betAmount: 0.05, receiptId: expect.stringMatching(/^dice_[0-9a-f]{32}$/) });
    expect(r.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(s.receiptId) });
    const p = s.proof;
    expect(p.clientSeed).toBe(clientSeed);
    expect(p.commitment).toBe(commitmentOf(clientSeed));
    expect(p.sessionPubkey).toBe(agentKey);
    expect(betPayloadHashOf(p.betPayload)).toBe(p.betPayloadHash);
    expect(p.betPayload).toMatchObject({ game: 'dice', commitment: p.commitment, sessionPubkey: agentKey, wager: '50000' });
    expect(verifyAck(p.ack, config.ackPublicKey)).toEqual({ ok: true });
    expect(p.ack.rngIndex).toBe(p.rngIndex);
    expect(verifyRngLink(p.rngReveal, p.rngIndex, p.rngChainHead, 0)).toBe(true);
    const outcome = settleDice({
      rngValueHex: p.rngReveal,
      clientSeedRaw: clientSeed,
      betPayloadHash: p.betPayloadHash,
      direction: 'over',
      targetBps: 4950,
      wagerMicro: 50_000n,
    });
    expect(s.outcome).toMatchObject({ roll: outcome.roll, won: outcome.won, payoutMicro: outcome.payout.toString() });
    expect(s.balance).toBeCloseTo(20 - 0.05 + Number(outcome.payout) / 1e6, 6);
    expect(s.limits).toMatchObject({ wagered: 0.05, remaining: 0.95, resetsAt: expect.any(String) });
  });

  it('opens a Sweeper ticket, makes choices and cashes out', async () => {
    let cashed: Result | null = null;
    for (let attempt = 0; attempt < 20 && !cashed; attempt++) {
      const open = await call(agent, 'sweeper_open', { betAmount: 0.02, mode: 'easy' });
      expect(open.isError, JSON.stringify(open.structuredContent)).toBeFalsy();
      expect(open.structuredContent.ticket).toMatchObject({ status: 'running', mode: 'easy', betAmount: 0.02, rowsWon: 0, columns: 4 });
      const state = await call(agent, 'get_arcade_state');
      expect(state.structuredContent.activeTicket.id).toBe(open.structuredContent.ticket.id);
      expect(state.structuredContent.nextSteps.join(' ')).toMatch(/sweeper_choose/);
      const clientSeed = seedHex(attempt + 1);
      const choice = await call(agent, 'sweeper_choose', { column: attempt % 4, clientSeed });
      expect(choice.isError, JSON.stringify(choice.structuredContent)).toBeFalsy();
      expect(choice.structuredContent.turn).toMatchObject({ kind: 'choice', row: 0, choiceColumn: attempt % 4 });
      expect(choice.structuredContent.proof).toMatchObject({ clientSeed, commitment: commitmentOf(clientSeed), sessionPubkey: agentKey });
      if (!choice.structuredContent.turn.safe) {
        expect(choice.structuredContent.ticket).toMatchObject({ status: 'settled', outcome: 'busted' });
        expect(choice.structuredContent.receiptId).toMatch(/^sweeper_/);
        continue;
      }
      expect(choice.structuredContent.ticket).toMatchObject({ status: 'running', rowsWon: 1 });
      cashed = await call(agent, 'sweeper_cashout');
    }
    expect(cashed, 'no safe first row in 20 tickets').not.toBeNull();
    expect(cashed!.isError, JSON.stringify(cashed!.structuredContent)).toBeFalsy();
    expect(cashed!.structuredContent.ticket).toMatchObject({ status: 'settled', outcome: 'cashed_out', rowsWon: 1 });
    expect(cashed!.structuredContent.turn.kind).toBe('cashout');
    sweeperReceipt = cashed!.structuredContent.receiptId;
    expect(sweeperReceipt).toMatch(/^sweeper_t_/);
    const again = await call(agent, 'sweeper_cashout');
    expect(again.structuredContent.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'no_active_ticket' } });
  });

  it('reads its receipts (source mcp) and the house, and sees its plays in the state', async () => {
    for (const id of [diceReceipt, sweeperReceipt]) {
      const r = await call(agent, 'get_receipt', { id });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.receipt).toMatchObject({ id, source: 'mcp' });
      expect((await http('GET', `${svc.api}/receipts/${id}`)).body.receipt.source).toBe('mcp');
    }
    const missing = await call(agent, 'get_receipt', { id: 'dice_nope' });
    expect(missing).toMatchObject({ isError: true, structuredContent: { error: { code: 'RECEIPT_NOT_FOUND' } } });
    const house = await call(agent, 'get_house');
    expect(house.structuredContent.house).toMatchObject({ strategy: 'cash', maxBet: expect.any(Number), totalValue: expect.any(Number) });
    const state = (await call(agent, 'get_arcade_state')).structuredContent;
    expect(state.recentPlays[0]).toMatchObject({ game: 'sweeper', receiptId: sweeperReceipt, source: 'mcp' });
    expect(state.recentPlays.find((p: any) => p.receiptId === diceReceipt)).toMatchObject({ game: 'dice', source: 'mcp' });
  });

  it('records source mcp in the journal events the analytics read', async () => {
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?limit=1000`)).body.events as { type: string; data: any }[];
    const dice = events.find((e) => e.type === 'bet_settled' && e.data.receiptId === diceReceipt);
    const ticket = events.find((e) => e.type === 'ticket_settled' && e.data.receiptId === sweeperReceipt);
    expect(dice?.data.source).toBe('mcp');
    expect(ticket?.data.source).toBe('mcp');
  });

  it("the agent's receipts verify with the independent verifier", async () => {
    await waitAnchored();
    for (const id of [diceReceipt, sweeperReceipt]) {
      let out = '';
      const code = await runCli(['receipt', id, '--api', svc.api, '--json'], {
        out: (t) => (out += t),
        err: () => {},
        env: { PFWS_VERIFY_HOME: path.join(svc.dataDir, 'pfws-verify') },
        tty: false,
      });
      expect(code, out).toBe(0);
    }
    const anchored = (await call(agent, 'get_receipt', { id: diceReceipt })).structuredContent.receipt;
    expect(anchored.anchor.status).toBe('committed');
  });

  it("with another wallet's token an agent sees and plays only that wallet", async () => {
    const other = await agentPlayer(5);
    const mine = (await call(agent, 'get_arcade_state')).structuredContent;
    const theirs = (await call(other.agent, 'get_arcade_state')).structuredContent;
    expect(theirs.agentKey.sessionPubkey).not.toBe(mine.agentKey.sessionPubkey);
    expect(theirs.balance).toBe(5);
    expect(theirs.recentPlays).toEqual([]);
    const open = await call(agent, 'sweeper_open', { betAmount: 0.01, mode: 'hard' });
    expect(open.isError).toBeFalsy();
    // The other wallet has no ticket of its own: it cannot touch this one.
    expect((await call(other.agent, 'sweeper_cashout')).structuredContent.error.details.reason).toBe('no_active_ticket');
    expect((await call(other.agent, 'sweeper_choose', { column: 0 })).structuredContent.error.details.reason).toBe('no_active_ticket');
    expect((await call(agent, 'get_arcade_state')).structuredContent.activeTicket.id).toBe(open.structuredContent.ticket.id);
    expect(player.address).not.toBe(other.player.address);
  });
});

describe('agent limits', () => {
  it('betAmount 0.06 gets the exact 400 envelope, and nothing is staked', async () => {
    const { agent } = await agentPlayer(5);
    for (const [tool, args] of [
      ['play_dice', { betAmount: 0.06, target: 50, direction: 'under' }],
      ['sweeper_open', { betAmount: '0.06', mode: 'easy' }],
    ] as const) {
      const r = await call(agent, tool, args);
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual({
        error: 'Agent bet exceeds 0.05 USDC.',
        status: 400,
        limits: { maxBet: 0.05, maxWagered: 1, wagered: 0, remaining: 1, windowMs: 86_400_000, resetsAt: null },
      });
      expect(r.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Agent bet exceeds 0.05 USDC.') });
    }
    expect((await call(agent, 'get_arcade_state')).structuredContent.balance).toBe(5);
  });

  it('bad amounts and seeds get the REST envelope inside structuredContent', async () => {
    const { agent } = await agentPlayer(5);
    for (const betAmount of [0, -1, 0.0000001, 'abc']) {
      const r = await call(agent, 'play_dice', { betAmount, target: 50, direction: 'under' });
      expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'INVALID_BET_AMOUNT' } } });
    }
    const badSeed = await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under', clientSeed: 'xyz' });
    expect(badSeed.structuredContent.error.code).toBe('INVALID_REQUEST');
    const badTarget = await call(agent, 'play_dice', { betAmount: 0.01, target: 99.5, direction: 'under' });
    expect(badTarget.structuredContent.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'bad_params' } });
    const badDirection = await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'sideways' });
    expect(badDirection.structuredContent.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'bad_params' } });
    const badMode = await call(agent, 'sweeper_open', { betAmount: 0.01, mode: 'impossible' });
    expect(badMode.structuredContent.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'bad_mode' } });
    // A JSON type the schema does not take is refused by the MCP layer itself, as a tool error.
    const wrongType = await call(agent, 'play_dice', { betAmount: 0.01, target: 'fifty', direction: 'under' });
    expect(wrongType.isError).toBe(true);
    expect((await call(agent, 'get_arcade_state')).structuredContent.balance).toBe(5);
  });

  it('crossing maxWagered gets the 429 envelope with limits.wagered, and the window rolls over', async () => {
    const started = await agentPlayer(5);
    let agent = started.agent;
    // Bearer tokens live as long as the window (24 h): past it, the agent signs in again on the moved clock.
    const signInAgain = async () => {
      await started.player.login();
      agent = await connect(started.player.token);
    };
    for (let i = 0; i < 20; i++) {
      const r = await call(agent, 'play_dice', { betAmount: 0.05, target: 50, direction: 'under' });
      expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    }
    const before = (await call(agent, 'get_arcade_state')).structuredContent;
    expect(before.limits).toMatchObject({ wagered: 1, remaining: 0 });
    for (const [tool, args] of [
      ['play_dice', { betAmount: 0.01, target: 50, direction: 'under' }],
      ['sweeper_open', { betAmount: 0.01, mode: 'easy' }],
    ] as const) {
      const r = await call(agent, tool, args);
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual({ error: 'Agent wager limit reached.', status: 429, limits: before.limits });
    }
    expect((await call(agent, 'get_arcade_state')).structuredContent.balance).toBe(before.balance);
    expect(before.nextSteps.join(' ')).toMatch(/limit is reached/);
    // Shortly before the oldest stake leaves the window nothing fits; once it has left, a stake fits again.
    const resetsAt = Date.parse(before.limits.resetsAt);
    try {
      svc.clock.offsetMs = resetsAt - 2_000 - Date.now();
      await signInAgain();
      expect((await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' })).structuredContent.status).toBe(429);
      svc.clock.offsetMs = resetsAt - Date.now();
      const after = await call(agent, 'play_dice', { betAmount: 0.05, target: 50, direction: 'under' });
      expect(after.isError, JSON.stringify(after.structuredContent)).toBeFalsy();
      expect(after.structuredContent.limits.wagered).toBeLessThanOrEqual(1);
      expect(Date.parse(after.structuredContent.limits.resetsAt)).toBeGreaterThan(resetsAt);
      svc.clock.offsetMs = 24 * 3_600_000 + 60_000;
      const state = (await call(agent, 'get_arcade_state')).structuredContent;
      expect(state.limits).toMatchObject({ wagered: 0.05, remaining: 0.95 });
    } finally {
      svc.clock.offsetMs = 0;
    }
  });

  it('20 parallel play_dice calls near the cap never take the window over it', async () => {
    const { agent, player } = await agentPlayer(5);
    for (let i = 0; i < 16; i++) expect((await call(agent, 'play_dice', { betAmount: 0.05, target: 50, direction: 'under' })).isError).toBeFalsy();
    const results = await Promise.all(Array.from({ length: 20 }, () => call(agent, 'play_dice', { betAmount: 0.03, target: 50, direction: 'over' })));
    const ok = results.filter((r) => !r.isError);
    const capped = results.filter((r) => r.structuredContent.status === 429);
    expect(
      ok.length + capped.length,
      JSON.stringify(results.filter((r) => r.isError && r.structuredContent.status !== 429).map((r) => r.structuredContent)),
    ).toBe(20);
    expect(ok).toHaveLength(6);
    const limits = (await call(agent, 'get_arcade_state')).structuredContent.limits;
    expect(limits.wagered).toBe(0.98);
    expect(limits.wagered).toBeLessThanOrEqual(limits.maxWagered);
    const status = (await player.get('/protocol/v1/player/status')).body;
    expect(status.totals.wagered).toBe(0.98);
    expect(status.totals.plays).toBe(22);
  });

  it('the cap is checked atomically with the commit, not only before prepare', async () => {
    const { player, agentKey } = await agentPlayer(5);
    const { lifecycle } = svc.wiring;
    const key = await svc.wiring.agentKeys.key(player.address);
    expect(key.sessionPubkey).toBe(agentKey);
    for (let i = 0; i < 19; i++) await svc.wiring.api!.agents.playDice(player.address, { betAmount: 0.05, target: 50, direction: 'under' });
    // A bet prepared while 0.05 of the cap remains ...
    const seed = seedHex(0x5e);
    const prepared = await lifecycle.prepare(
      'dice',
      player.address,
      { commitment: commitmentOf(seed), sessionPubkey: agentKey, wager: 0.05, target: 50, direction: 'under' },
      'mcp',
    );
    // ... then a ticket takes that room (a ticket open does not advance the bet nonce) ...
    await svc.wiring.api!.agents.openTicket(player.address, { betAmount: 0.05, mode: 'easy' });
    // ... so the commit script refuses it, and nothing moves.
    const totals = await svc.wiring.stores.bets.playerTotals(player.address);
    await expect(
      lifecycle.commit('dice', player.address, { ...prepared, sessionSignature: key.signHash(prepared.betPayloadHash) }, 'mcp'),
    ).rejects.toMatchObject({
      code: 'GAME_INPUT_REJECTED',
      details: { reason: 'agent_wager_limit', wageredMicro: '1000000' },
    });
    expect(await svc.wiring.stores.bets.playerTotals(player.address)).toEqual(totals);
    // A REST play of the same wallet (its own key, source api) is not an agent play: the cap does not apply to it.
    expect((await player.playDice({ wager: 0.06, target: 50 })).reveal.receiptId).toMatch(/^dice_/);
  });
});

describe('a play cut short', () => {
  it('committed but never revealed, is revealed with its stored seed by the next play, not forfeited', async () => {
    const { player, agent, agentKey } = await agentPlayer(5);
    const { lifecycle } = svc.wiring;
    const key = await svc.wiring.agentKeys.key(player.address);
    // The service stopped after the commit and the recovery seed, before the reveal.
    const seed = seedHex(0xc3);
    const prepared = await lifecycle.prepare(
      'dice',
      player.address,
      { commitment: commitmentOf(seed), sessionPubkey: agentKey, wager: 0.02, target: 50, direction: 'under' },
      'mcp',
    );
    await lifecycle.commit('dice', player.address, { ...prepared, sessionSignature: key.signHash(prepared.betPayloadHash) }, 'mcp');
    await lifecycle.storeRecoverySeed(player.address, prepared.betPayloadHash, seed);
    const receiptId = `dice_${prepared.betPayloadHash.slice(0, 32)}`;
    // A play right after leaves a turn that may still be in flight alone ...
    expect((await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' })).isError).toBeFalsy();
    expect((await call(agent, 'get_receipt', { id: receiptId })).structuredContent.error.code).toBe('RECEIPT_NOT_FOUND');
    // ... and once it is clearly cut short, the next play reveals it first.
    try {
      svc.clock.offsetMs = 60_000;
      expect((await call(agent, 'play_dice', { betAmount: 0.01, target: 50, direction: 'under' })).isError).toBeFalsy();
    } finally {
      svc.clock.offsetMs = 0;
    }
    const receipt = (await call(agent, 'get_receipt', { id: receiptId })).structuredContent.receipt;
    expect(receipt).toMatchObject({ source: 'mcp', status: expect.stringMatching(/^(won|lost)$/), input: { clientSeedRaw: seed } });
    expect((await svc.wiring.stores.bets.pendingBets(player.address)).length).toBe(0);
  });
});

describe('top_up', () => {
  it('without a payment returns the 402 envelope with accepts and x402Version in structuredContent', async () => {
    const { agent, player } = await agentPlayer(5);
    const r = await call(agent, 'top_up', { amount: 2.5 });
    expect(r.isError).toBe(true);
    const s = r.structuredContent;
    expect(s.error.code).toBe('X402_PAYMENT_REQUIRED');
    expect(s.x402Version).toBe(2);
    expect(s.accepts).toHaveLength(1);
    expect(s.accepts[0]).toMatchObject({ scheme: 'exact', amount: parseAmount(2.5).toString(), asset: config.usdcMint, payTo: config.vaultAuthority });
    expect(s.accepts[0].extra.memo).toMatch(new RegExp(`^pfws:v1:x402:${player.address}:[0-9a-f]{32}$`));
    const bad = await call(agent, 'top_up', { amount: -1 });
    expect(bad.structuredContent.error.code).toBe('INVALID_BET_AMOUNT');
  });

  it('below MIN_TOP_UP_USDC gets the REST envelope INVALID_BET_AMOUNT with details.minimum, with or without a payment', async () => {
    const { agent, player } = await agentPlayer(5);
    for (const args of [{ amount: 0.5 }, { amount: '0.000001' }, { amount: 0.5, payment: 'any payload' }]) {
      const r = await call(agent, 'top_up', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.structuredContent).toEqual({
        error: { code: 'INVALID_BET_AMOUNT', message: expect.stringMatching(/at least 1 USDC/), details: { minimum: 1 } },
      });
    }
    expect((await player.get('/protocol/v1/player/status')).body.balance).toBe(5);
  });

  it('with a valid x402 payment credits once; the same payment again is refused and credits nothing', async () => {
    const { agent, player } = await agentPlayer(5);
    const offer = (await call(agent, 'top_up', { amount: 2 })).structuredContent;
    // What an agent's x402 wallet does with the offer: pay accepts[0] (our dev USDC must be allowed explicitly).
    const network = offer.accepts[0].network;
    const client = new x402Client().register(network, new ExactSvmScheme(player.signer, { rpcUrl: svc.rpcUrl }));
    client.setSpendControls({ allowedAssets: [{ network, asset: config.usdcMint }] });
    const payment = await client.createPaymentPayload({ x402Version: offer.x402Version, accepts: offer.accepts, resource: offer.resource });
    const paid = await call(agent, 'top_up', { amount: 2, payment });
    expect(paid.isError, JSON.stringify(paid.structuredContent)).toBeFalsy();
    expect(paid.structuredContent.payment).toMatchObject({ id: expect.any(String), amount: 2 });
    expect(paid.structuredContent.balance).toBe(7);
    const again = await call(agent, 'top_up', { amount: 2, payment });
    expect(again.isError).toBe(true);
    expect(again.structuredContent.error.code).toBe('X402_PAYMENT_VERIFICATION_FAILED');
    expect((await call(agent, 'get_arcade_state')).structuredContent.balance).toBe(7);
  });
});
