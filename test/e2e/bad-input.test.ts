// Every route of the OpenAPI document, fed hostile input by fast-check: always the error envelope with a known
// code and a 4xx, never a 500, and never a partial write (the books still balance).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../schemas/errors.ts';
import {
  answerProblem,
  anyValueOf,
  bodyFor,
  nearMissOf,
  operations as listOperations,
  paramsFor,
  queryFor,
  sendOperation,
  type Operation,
} from '../helpers/openapi-fuzz.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player } from '../helpers/player.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { emptySnapshot } from '../helpers/sse.ts';

let svc: TestService;
let player: Player;
/** Every wallet with money in the ledger, for the books. */
const players: Player[] = [];

beforeAll(async () => {
  // The activity stream starts with a snapshot; its content is not what this test looks at.
  svc = await startTestService({ RATE_LIMIT_MAX: '1000000' }, undefined, undefined, { activitySnapshot: emptySnapshot });
  player = await new Player(svc.api, svc.rpcUrl).onboard(50);
  players.push(player);
});
afterAll(async () => svc?.cleanup());

const operations = () => listOperations(svc.api);
const send = (op: Operation, body: unknown, query: Record<string, string>, params: Record<string, string>) =>
  sendOperation(svc.api, player.token, op, body, query, params);

describe('hostile input on every route', () => {
  it('lists the routes to try', async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(20);
    expect(ops.filter((o) => o.method === 'POST' && o.body.length).length).toBeGreaterThan(10);
  });

  it('answers with a 4xx envelope and a known code, or a 200, and never a 500', { timeout: 180_000 }, async () => {
    const ops = await operations();
    const nearMiss = nearMissOf([player.session.publicKey, player.address, player.session.publicKey.toLowerCase()]);
    const anyValue = anyValueOf(nearMiss);
    for (const op of ops) {
      // The faucet mints on request; feeding it values would only test the chain's limits, already covered.
      if (op.path === '/api/dev/faucet') continue;
      await fc.assert(
        fc.asyncProperty(bodyFor(op, anyValue), queryFor(op, nearMiss), paramsFor(op, nearMiss), async (body, query, params) => {
          const res = await send(op, body, query as Record<string, string>, params as Record<string, string>);
          const where = `${op.method} ${res.url} ${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 300)}`;
          expect(answerProblem(res), where).toBeNull();
        }),
        { numRuns: 100 },
      );
    }
  });

  it("valid bodies with one or two fields broken reach each handler's own checks, and still never a 500", { timeout: 180_000 }, async () => {
    // The raw fuzzing above may have withdrawn this wallet's balance (withdraw is a route too): play from a fresh one.
    player = await new Player(svc.api, svc.rpcUrl).onboard(50);
    players.push(player);
    const nearMiss = nearMissOf([player.session.publicKey, player.address]);
    const anyValue = anyValueOf(nearMiss);
    const dice = await player.prepareDice();
    const committed = await player.prepareDice();
    const commit = await player.commitDice(committed.res.body);
    const ticket = (await player.openTicket('easy', 1)).body.ticket.id as string;
    const choice = await player.prepareChoice(ticket, 0, 1);
    const seeds: Record<string, Record<string, unknown>> = {
      '/protocol/v1/dice/prepare': { commitment: dice.commitment, sessionPubkey: player.session.publicKey, direction: 'under', target: 50, wager: 1 },
      '/protocol/v1/dice/commit': { ...dice.res.body, sessionSignature: player.signHash(dice.res.body.betPayloadHash) },
      '/protocol/v1/dice/reveal': {
        betPayloadHash: committed.res.body.betPayloadHash,
        clientSeedRaw: committed.clientSeedRaw,
        sessionSignature: player.signText(commit.body.ack.revealMessage),
      },
      '/protocol/v1/dice/recovery-seed': { betPayloadHash: committed.res.body.betPayloadHash, clientSeedRaw: committed.clientSeedRaw },
      '/protocol/v1/sweeper/ticket': { mode: 'hard', sessionPubkey: player.session.publicKey, wager: 1 },
      '/protocol/v1/sweeper/choice/prepare': {
        ticketId: ticket,
        commitment: choice.commitment,
        sessionPubkey: player.session.publicKey,
        row: 0,
        choiceColumn: 1,
      },
      '/protocol/v1/sweeper/cashout/prepare': { ticketId: ticket, commitment: choice.commitment, sessionPubkey: player.session.publicKey },
      '/protocol/v1/sweeper/commit': { ...choice.res.body, sessionSignature: player.signHash(choice.res.body.betPayloadHash) },
      '/protocol/v1/player/setup-transaction': { amount: 1, sessionPubkey: player.session.publicKey },
      '/protocol/v1/player/revoke-session-key-transaction': { sessionPubkey: player.session.publicKey },
    };
    const codes = new Set<string>();
    for (const [path, seed] of Object.entries(seeds)) {
      const keys = Object.keys(seed);
      const broken = fc
        .array(fc.tuple(fc.constantFrom(...keys), fc.option(anyValue, { nil: undefined, freq: 5 })), { minLength: 1, maxLength: 2 })
        .map((edits) => {
          const body: Record<string, unknown> = structuredClone(seed);
          for (const [key, value] of edits) {
            if (value === undefined) delete body[key];
            else body[key] = value;
          }
          return body;
        });
      await fc.assert(
        fc.asyncProperty(broken, async (body) => {
          const res = await send({ method: 'POST', path: `/api${path}`, body: keys, query: [], params: [] }, body, {}, {});
          const where = `POST ${path} ${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          const parsed = JSON.parse(res.text);
          if (res.status >= 400) {
            expect(ERROR_STATUS[parsed.error.code as keyof typeof ERROR_STATUS], where).toBe(res.status);
            codes.add(parsed.error.code);
          }
        }),
        { numRuns: 60 },
      );
    }
    // The handlers' own rejections were reached, not only the schema's.
    for (const code of ['INVALID_REQUEST', 'INVALID_BET_AMOUNT', 'GAME_INPUT_REJECTED', 'INVALID_SESSION_SIGNATURE']) expect(codes).toContain(code);
  });

  it('refuses a valid body that also carries a __proto__ or constructor.prototype key', async () => {
    // Handlers copy request bodies with Object.assign, which would set such a key's prototype rather than copy it:
    // the parser must refuse the body before any handler sees it.
    const url = `${svc.api}/protocol/v1/dice/prepare`;
    const prepare = (extra: string) => {
      const body = JSON.stringify({
        commitment: player.newSeed().commitment,
        sessionPubkey: player.session.publicKey,
        direction: 'under',
        target: 50,
        wager: 1,
      });
      return fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${player.token}`, 'content-type': 'application/json' },
        body: `{${extra}${body.slice(1)}`,
      });
    };
    expect((await prepare('')).status).toBe(200);
    for (const extra of ['"__proto__":{"polluted":true},', '"constructor":{"prototype":{"polluted":true}},']) {
      const res = await prepare(extra);
      const code = ((await res.json()) as { error?: { code?: string } }).error?.code;
      expect({ extra, status: res.status, code }).toEqual({ extra, status: 400, code: 'INVALID_REQUEST' });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('left the books balanced: nothing was half-written', async () => {
    // A fuzzed body may have been a valid withdrawal: balanced once the keeper has paid it.
    await keeperAtRest(svc);
    await expectConserved(svc, players);
  });
});
