// The API document: valid OpenAPI 3.1; every field typed and described, `required` marked; every route with
// examples that validate against their own schemas; "Try it out" with those examples gets a real answer (never a
// validation error); and real responses of a played Dice bet and Sweeper ticket, the money flows, an idle ticket and
// the verifiers' reads hold to the documented schemas and media types, with no undocumented field.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Schema;
}

let svc: TestService;
let doc: Schema;
let ops: Operation[];
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '200', MANIFEST_MAX_DELAY_MS: '200' });
  doc = (await http('GET', `${svc.api}/docs/openapi.json`)).body;
  ops = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(async () => {
  await svc?.cleanup();
});

const name = (o: Operation) => `${o.method} ${o.path}`;
const bodyOf = (o: Operation) => o.op.requestBody?.content?.['application/json'] as Schema | undefined;
const responseOf = (o: Operation, status: number | string) => o.op.responses?.[String(status)]?.content?.['application/json'] as Schema | undefined;
const examplesOf = (media: Schema | undefined): unknown[] =>
  media
    ? [...('example' in media ? [media.example] : []), ...Object.values((media.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value)]
    : [];
/** The documented media of an answer: by its status and content type (JSON unless the route says otherwise). */
const mediaOf = (o: Operation, status: number, type: string) => o.op.responses?.[String(status)]?.content?.[type.split(';')[0]!.trim()] as Schema | undefined;

interface Answer {
  status: number;
  type: string;
  /** Parsed JSON, the text of a text answer, or the bytes of anything else. */
  body: any;
}
/** A request as Swagger's "Try it out" (or any client) sends it; the answer as its media type says. */
async function send(method: string, url: string, opts: { body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const type = res.headers.get('content-type') ?? '';
  // A stream never ends: its answer is its first event.
  if (type.startsWith('text/event-stream')) return { status: res.status, type, body: await firstEvents(res, 1) };
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const body = /json/.test(type) ? (text ? JSON.parse(text) : undefined) : /^text\//.test(type) ? text : bytes;
  return { status: res.status, type, body };
}
/** The text of a Server-Sent Events answer up to its `count`th event (comments skipped); the stream is then closed. */
async function firstEvents(res: Response, count: number, until?: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (parseEvents(text).length < count || (until && !until(text))) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

interface StreamEvent {
  id: string;
  event: string;
  data: unknown;
}
/** The complete events of a Server-Sent Events text, as EventSource reads them. */
const parseEvents = (text: string): StreamEvent[] =>
  text
    .split('\n\n')
    .slice(0, -1)
    .map((block) => block.split('\n').filter((line) => !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      return { id: field('id') ?? '', event: field('event') ?? 'message', data: JSON.parse(field('data') ?? 'null') };
    });

/** What is wrong with the events of a stream against the documented events (held strictly to their schemas). */
function streamProblems(o: Operation, text: string): string[] {
  const events = mediaOf(o, 200, 'text/event-stream')?.['x-pfws-events'] as Record<string, { schema: Schema }> | undefined;
  if (!events) return ['no documented events'];
  return parseEvents(text).flatMap((e) => {
    const documentedEvent = events[e.event];
    if (!documentedEvent) return [`event ${e.event} is not documented`];
    if (!/^(0|[1-9][0-9]*)$/.test(e.id)) return [`event ${e.event}: id ${e.id} is not a seq`];
    return check(strict(documentedEvent.schema), e.data).map((m) => `event ${e.event}: ${m}`);
  });
}

/** What is wrong with an answer against the documented media (JSON and text are checked against the schema). */
function answerProblems(o: Operation, answer: Answer, strictOk = true): string[] {
  const media = mediaOf(o, answer.status, answer.type);
  if (!media)
    return [
      `answered ${answer.status} ${answer.type}, which is not documented: ${answer.body instanceof Uint8Array ? '(bytes)' : JSON.stringify(answer.body)}`,
    ];
  if (answer.body instanceof Uint8Array) return media.schema?.type === 'string' ? [] : ['bytes documented as something else'];
  if (answer.type.startsWith('text/event-stream')) return streamProblems(o, answer.body);
  return check(answer.status === 200 && strictOk ? strict(media.schema) : media.schema, answer.body).map((e) => `${answer.status}: ${e}`);
}

const check = (schema: Schema, value: unknown) => {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
};

/** Every property, item and branch of a schema with where it is. */
function* nodes(schema: Schema, where: string): Generator<[string, Schema]> {
  if (!schema || typeof schema !== 'object') return;
  for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    yield [`${where}.${key}`, prop];
    yield* nodes(prop, `${where}.${key}`);
  }
  if (schema.items) yield* nodes(schema.items, `${where}[]`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') yield* nodes(schema.additionalProperties, `${where}{}`);
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const branches = (schema[k] ?? []) as Schema[];
    for (let i = 0; i < branches.length; i++) yield* nodes(branches[i]!, `${where}|${i}`);
  }
}

const typed = (s: Schema): boolean =>
  s.type !== undefined || s.const !== undefined || s.enum !== undefined || ['anyOf', 'oneOf', 'allOf'].some((k) => Array.isArray(s[k]) && s[k].every(typed));

/** A copy that refuses any property it does not document. */
function strict(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(strict);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'examples' || k === 'example' ? v : strict(v)]));
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

describe('the document', () => {
  it('is OpenAPI 3.1, valid, and served at /api/docs/openapi.json and /api/docs/json alike', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect((await http('GET', `${svc.api}/docs/json`)).body).toEqual(doc);
    expect(ops.length).toBeGreaterThan(25);
  });

  it('types and describes every field of every request and response', () => {
    const problems: string[] = [];
    for (const o of ops) {
      for (const p of o.op.parameters ?? []) {
        if (!p.description) problems.push(`${name(o)} ${p.in} ${p.name}: no description`);
        if (!typed(p.schema ?? {})) problems.push(`${name(o)} ${p.in} ${p.name}: untyped`);
      }
      const media = [['body', bodyOf(o)], ...Object.keys(o.op.responses ?? {}).map((status) => [status, responseOf(o, status)])] as [
        string,
        Schema | undefined,
      ][];
      for (const [part, m] of media) {
        if (!m) continue;
        for (const [where, s] of nodes(m.schema, `${name(o)} ${part}`)) {
          if (!s.description) problems.push(`${where}: no description`);
          if (!typed(s)) problems.push(`${where}: untyped`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents the events of the activity stream: typed, described, with examples that validate', () => {
    const o = ops.find((x) => name(x) === 'GET /api/activity/stream')!;
    const media = mediaOf(o, 200, 'text/event-stream')!;
    const events = media['x-pfws-events'] as Record<string, { description: string; schema: Schema }>;
    expect(Object.keys(events).sort()).toEqual(['play', 'snapshot']);
    const problems: string[] = [];
    for (const [event, { description, schema }] of Object.entries(events)) {
      if (!description) problems.push(`${event}: no description`);
      for (const [where, node] of nodes(schema, event)) {
        if (!node.description) problems.push(`${where}: no description`);
        if (!typed(node)) problems.push(`${where}: untyped`);
      }
      if (!schema.examples?.length) problems.push(`${event}: no example`);
      for (const example of schema.examples ?? []) for (const e of check(strict(schema), example)) problems.push(`${event} example: ${e}`);
    }
    expect(problems).toEqual([]);
    // The example stream is made of documented events, a snapshot first.
    expect(parseEvents(media.example).map((e) => e.event)).toEqual(['snapshot', 'play']);
    expect(streamProblems(o, media.example)).toEqual([]);
    expect(Object.keys(o.op.responses)).toEqual(expect.arrayContaining(['200', '400', '503']));
  });

  it('marks required fields', () => {
    const status = responseOf(ops.find((o) => o.path === '/api/protocol/v1/player/status')!, 200)!.schema;
    expect(status.required).toEqual(expect.arrayContaining(['walletAddress', 'balance', 'nonces', 'sessionKeys']));
    const prepare = bodyOf(ops.find((o) => o.path === '/api/protocol/v1/dice/prepare')!)!.schema;
    expect(prepare.required).toEqual(['commitment', 'sessionPubkey']);
    const ticket = responseOf(ops.find((o) => o.path === '/api/protocol/v1/sweeper/ticket/{ticketId}')!, 200)!.schema.properties.ticket;
    expect(ticket.required).not.toContain('endedAt');
    expect(ticket.required).toContain('rowsWon');
  });

  it('every route has examples, and each validates against its own schema', () => {
    const problems: string[] = [];
    for (const o of ops) {
      for (const p of o.op.parameters ?? []) {
        if (p.example === undefined) problems.push(`${name(o)} ${p.in} ${p.name}: no example`);
        else for (const e of check(p.schema, p.example)) problems.push(`${name(o)} ${p.in} ${p.name}: ${e}`);
      }
      // JSON and text answers show an example; bytes (tiles) are described only.
      const answers = Object.entries((o.op.responses?.['200']?.content ?? {}) as Record<string, Schema>).filter(
        ([type]) => type === 'application/json' || type.startsWith('text/'),
      );
      const media = [['body', bodyOf(o)], ...answers.map(([type, m]) => [type === 'application/json' ? '200' : `200 ${type}`, m])] as [
        string,
        Schema | undefined,
      ][];
      for (const [part, m] of media) {
        if (!m) continue;
        const examples = examplesOf(m);
        if (!examples.length) problems.push(`${name(o)} ${part}: no example`);
        // Response examples are held to the strict schema: an example shows no undocumented field either.
        for (const example of examples)
          for (const e of check(part === 'body' ? m.schema : strict(m.schema), example)) problems.push(`${name(o)} ${part}: ${e}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('"Try it out" with the shown examples', () => {
  it('gets a real answer from every route, never a validation error, in a documented shape', async () => {
    // A signed-in wallet, as a Swagger user who authorized with their token; it has not set up a session key.
    const user = await new Player(svc.api, svc.rpcUrl).init();
    await user.login();
    // Signing out revokes the token it is sent with: it gets a token of its own.
    const leaving = await new Player(svc.api, svc.rpcUrl).init();
    await leaving.login();
    const base = svc.api.replace(/\/api$/, '');
    const problems: string[] = [];
    const statuses: Record<string, number> = {};
    const answers: Record<string, Answer> = {};
    for (const o of ops) {
      let path = o.path;
      const query = new URLSearchParams();
      // Swagger UI fills every parameter with its example, headers included (payment-signature, Idempotency-Key).
      const headers: Record<string, string> = {};
      for (const p of o.op.parameters ?? []) {
        if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
        if (p.in === 'query') query.set(p.name, String(p.example));
        if (p.in === 'header') headers[p.name] = String(p.example);
      }
      const body = bodyOf(o) ? examplesOf(bodyOf(o))[0] : undefined;
      const bearer = o.op.security?.length ? (name(o) === 'DELETE /api/wallet/session' ? leaving.token : user.token) : undefined;
      const res = await send(o.method, `${base}${path}${query.size ? `?${query}` : ''}`, { body, token: bearer, headers });
      statuses[name(o)] = res.status;
      answers[name(o)] = res;
      for (const e of answerProblems(o, res)) problems.push(`${name(o)}: ${e}`);
      const code = res.body?.error?.code;
      if (code === 'INVALID_REQUEST' || code === 'WALLET_SESSION_REQUIRED' || res.status >= 500)
        problems.push(`${name(o)}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(problems).toEqual([]);
    // The public reads answer with data.
    for (const route of [
      'GET /api/protocol/v1/config',
      'GET /api/house',
      'GET /api/wallet/challenge',
      'GET /api/protocol/v1/bet-log/commits',
      'GET /api/protocol/v1/journal/events',
      'GET /api/protocol/v1/trust-root',
      'GET /api/activity',
      'GET /api/rankings',
      'GET /api/stats',
    ]) {
      expect(statuses[route], route).toBe(200);
    }
    expect(statuses['GET /api/protocol/v1/player/status']).toBe(200);
    expect(statuses['POST /api/wallet/session']).toBe(401);
    expect(statuses['DELETE /api/wallet/session']).toBe(200);
    // The signed-in wallet's own reads and its unsigned LP deposit answer with data.
    for (const route of ['GET /api/protocol/v1/player/agent-key', 'GET /api/house/position', 'POST /api/protocol/v1/house/lp-deposit-transaction']) {
      expect(statuses[route], route).toBe(200);
    }
    // The example payment paid the example deployment: refused, with a fresh offer to pay here instead.
    const topUp = answers['POST /api/protocol/v1/player/x402-deposit']!;
    expect(topUp.status).toBe(402);
    expect(topUp.body.error.code).toBe('X402_PAYMENT_VERIFICATION_FAILED');
    expect(topUp.body.accepts).toHaveLength(1);
    // A wallet with no balance or shares is told so, with the reason.
    expect(answers['POST /api/protocol/v1/player/withdraw']!.body.error).toMatchObject({
      code: 'GAME_INPUT_REJECTED',
      details: { reason: 'insufficient_balance' },
    });
    expect(answers['POST /api/protocol/v1/house/lp-redeem-transaction']!.body.error).toMatchObject({
      code: 'GAME_INPUT_REJECTED',
      details: { reason: 'insufficient_shares' },
    });
    // Nothing is committed on a fresh deployment yet, and the example bet is another deployment's: NOT_FOUND, not a schema error.
    for (const route of [
      'GET /api/protocol/v1/bet-log/checkpoint',
      'GET /api/protocol/v1/bet-log/tile/{*}',
      'GET /api/protocol/v1/bet-log/receipts/{*}',
      'GET /api/protocol/v1/session-keys/by-bet/{betPayloadHash}',
    ]) {
      expect(answers[route]!.body.error?.code, route).toBe('NOT_FOUND');
    }
  });
});

describe('real responses', () => {
  it('of a Dice bet, a Sweeper ticket, the money flows, an idle ticket, receipts, the bet log, its tiles and the journal hold to the documented schemas', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(50);
    const responses: [string, Answer][] = [];
    const record = (method: string, path: string, status: number, body: unknown) =>
      responses.push([`${method} /api${path.split('?')[0]}`, { status, type: 'application/json', body }]);
    const get = async (path: string) => {
      const res = await player.get(path);
      record('GET', path, res.status, res.body);
      return res;
    };
    /** Any answer, JSON or not, as it came; `route` names the documented path when the request's has parameters. */
    const raw = async (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; route?: string } = {}) => {
      const res = await send(method, `${svc.api}${path}`, { body: opts.body, token: player.token, headers: opts.headers });
      responses.push([opts.route ? `${method} ${opts.route}` : `${method} /api${path.split('?')[0]}`, res]);
      return res;
    };
    const until = async (what: string, done: () => Promise<boolean>) => {
      for (let i = 0; !(await done()); i++) {
        if (i > 300) throw new Error(`${what}: never`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    // The live stream, read while playing: its snapshot, then the Dice play and the ticket.
    const live = await fetch(`${svc.api}/activity/stream`);
    const liveEvents = firstEvents(live, 3).then((text) => {
      responses.push(['GET /api/activity/stream', { status: live.status, type: live.headers.get('content-type') ?? '', body: text }]);
      return parseEvents(text);
    });
    const dice = await player.playDice({ wager: 1, target: 50 });
    record('POST', '/protocol/v1/dice/prepare', 200, dice.prepared);
    record('POST', '/protocol/v1/dice/commit', 200, dice.commit);
    record('POST', '/protocol/v1/dice/reveal', 200, dice.reveal);
    const open = await player.prepareDice({ wager: 1 });
    const committed = await player.commitDice(open.res.body);
    const stored = await player.post('/protocol/v1/dice/recovery-seed', { betPayloadHash: open.res.body.betPayloadHash, clientSeedRaw: open.clientSeedRaw });
    record('POST', '/protocol/v1/dice/recovery-seed', stored.status, stored.body);
    await get(`/protocol/v1/dice/recovery-seed?betPayloadHash=${open.res.body.betPayloadHash}`);
    await get('/protocol/v1/dice/session');
    await player.revealDice(open.res.body.betPayloadHash, open.clientSeedRaw, committed.body.ack.revealMessage);

    const ticket = await player.openTicket('hard', 1);
    record('POST', '/protocol/v1/sweeper/ticket', ticket.status, ticket.body);
    const id = ticket.body.ticket.id as string;
    let ended = false;
    for (let row = 0; row < 8 && !ended; row++) {
      const choice = await player.prepareChoice(id, row, 0);
      record('POST', '/protocol/v1/sweeper/choice/prepare', choice.res.status, choice.res.body);
      const commit = await player.commitSweeper(choice.res.body);
      record('POST', '/protocol/v1/sweeper/commit', commit.status, commit.body);
      const reveal = await player.revealSweeper(choice.res.body.betPayloadHash, choice.clientSeedRaw, commit.body.ack.revealMessage);
      record('POST', '/protocol/v1/sweeper/reveal', reveal.status, reveal.body);
      ended = reveal.body.ticket.status !== 'running';
      if (!ended && row === 1) {
        const cashout = await player.prepareCashout(id);
        record('POST', '/protocol/v1/sweeper/cashout/prepare', cashout.res.status, cashout.res.body);
        const c = await player.commitSweeper(cashout.res.body);
        const r = await player.revealSweeper(cashout.res.body.betPayloadHash, cashout.clientSeedRaw, c.body.ack.revealMessage);
        record('POST', '/protocol/v1/sweeper/reveal', r.status, r.body);
        ended = true;
      }
    }
    await get(`/protocol/v1/sweeper/ticket/${id}`);
    expect((await liveEvents).map((e) => e.event)).toEqual(['snapshot', 'play', 'play']);

    // Money: a withdrawal (status lists it once the keeper paid it), an x402 offer, an LP deposit; the agent key.
    const withdrawal = await raw('POST', '/protocol/v1/player/withdraw', { body: { amount: 5 }, headers: { 'idempotency-key': `openapi-${id}` } });
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(200);
    await until('the withdrawal finalized', async () => (await player.get('/protocol/v1/player/status')).body.withdrawals[0]?.status === 'finalized');
    const offer = await raw('POST', '/protocol/v1/player/x402-deposit', { body: { amount: 2.5 } });
    expect(offer.status).toBe(402);
    await raw('POST', '/protocol/v1/house/lp-deposit-transaction', { body: { amount: 10 } });
    await get('/house/position');
    await get('/protocol/v1/player/agent-key');

    // A ticket left idle: closed by the deadline worker with its stake back (design §10).
    const idle = await player.openTicket('easy', 1);
    const idleId = idle.body.ticket.id as string;
    svc.clock.offsetMs = svc.config.TICKET_IDLE_MS + 1_000;
    await until('the idle ticket closed', async () => (await player.get(`/protocol/v1/sweeper/ticket/${idleId}`)).body.ticket.status === 'settled');
    const idleTicket = await get(`/protocol/v1/sweeper/ticket/${idleId}`);
    expect(idleTicket.body.ticket).toMatchObject({ outcome: 'expired', closedBy: 'idle' });

    await get('/protocol/v1/sweeper/session');
    await get('/protocol/v1/player/status');
    await svc.worker!.anchoring.flush();
    await until('anchored', async () => (await player.get(`/receipts/sweeper_${idleId}`)).body.receipt?.anchor?.status === 'committed');
    await get(`/receipts/${dice.reveal.receiptId}`);
    await get(`/receipts/sweeper_${id}`);
    const idleReceipt = await get(`/receipts/sweeper_${idleId}`);
    expect(idleReceipt.body.receipt).toMatchObject({ status: 'expired', closedBy: 'idle' });
    const commits = await get('/protocol/v1/bet-log/commits');
    await get('/protocol/v1/bet-log/entries');
    await get('/protocol/v1/journal/events?limit=100');
    await get('/protocol/v1/player/state-proof');

    // What verifiers read: the trust root, the signed checkpoint (text), tiles (bytes), receipt bundles, key pointers.
    const size = commits.body.committedSize as number;
    const width = Math.min(size, 256);
    await raw('GET', '/protocol/v1/trust-root');
    const checkpoint = await raw('GET', '/protocol/v1/bet-log/checkpoint');
    expect(checkpoint.body.split('\n')[1]).toBe(String(size));
    const tile = await raw('GET', `/protocol/v1/bet-log/tile/0/000.p/${width}`, { route: '/api/protocol/v1/bet-log/tile/{*}' });
    expect(tile.body.length).toBe(32 * width);
    await raw('GET', `/protocol/v1/bet-log/tile/entries/000.p/${width}`, { route: '/api/protocol/v1/bet-log/tile/{*}' });
    const bundle = await raw('GET', `/protocol/v1/bet-log/receipts/000.p/${width}`, { route: '/api/protocol/v1/bet-log/receipts/{*}' });
    expect(bundle.body.receipts.map((r: { id: string }) => r.id)).toContain(`sweeper_${idleId}`);
    await raw('GET', `/protocol/v1/session-keys/by-bet/${dice.reveal.betPayloadHash}`, { route: '/api/protocol/v1/session-keys/by-bet/{betPayloadHash}' });

    // Public analytics once the plays are shipped: activity, rankings and stats of every element shape.
    await until('the plays in analytics', async () => (await player.get('/activity?limit=100')).body.latestPlays?.length >= 3);
    await get('/activity?limit=100');
    await get('/rankings?metric=wagered');
    await get('/stats?period=year');

    const problems: string[] = [];
    for (const [route, answer] of responses) {
      const o = ops.find((x) => name(x) === route.replace(/\/(sweeper_[^/]+|dice_[^/]+)$/, '/{id}').replace(/ticket\/t_[^/]+$/, 'ticket/{ticketId}'));
      if (!o) {
        problems.push(`${route}: not in the document`);
        continue;
      }
      // Every answer but the x402 offer is a success; each is held to its documented media, strictly.
      expect(answer.status, `${route} ${JSON.stringify(answer.body)}`).toBe(route.endsWith('x402-deposit') ? 402 : 200);
      for (const e of answerProblems(o, answer)) problems.push(`${route}: ${e}`);
      if (answer.status !== 200) for (const e of check(strict(mediaOf(o, answer.status, answer.type)!.schema), answer.body)) problems.push(`${route}: ${e}`);
    }
    expect(problems).toEqual([]);
  });
});
