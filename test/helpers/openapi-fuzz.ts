// Hostile requests generated from the service's OpenAPI document with fast-check; shared by the bad-input
// end-to-end test and the fault suite's fuzz round.
import fc from 'fast-check';
import { ERROR_CODES, ERROR_STATUS } from '../../schemas/errors.ts';

export interface Operation {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body: string[];
  query: string[];
  params: string[];
}

/** Every operation of `/api/docs/json` but the docs themselves. `api` ends in `/api`. */
export async function operations(api: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${api}/docs/json`)).json()) as {
    paths: Record<
      string,
      Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content: Record<string, { schema: { properties?: object } }> } }>
    >;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path.startsWith('/api/docs')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        body: Object.keys(op.requestBody?.content['application/json']?.schema.properties ?? {}),
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        params: params.filter((p) => p.in === 'path').map((p) => p.name),
      });
    }
  }
  return ops;
}

// Values that look almost right, and real keys of the player, are the ones that reach deepest into a handler.
export const nearMissOf = (known: string[]) =>
  fc.oneof(
    fc.constantFrom(...known),
    fc.constantFrom(
      '',
      ' ',
      '0',
      '-1',
      '1e309',
      '-1e309',
      '9007199254740993',
      '1.5',
      '0x10',
      'NaN',
      'null',
      'true',
      '{}',
      '[]',
      '\u0000',
      '💣',
      'a'.repeat(600),
      'easy',
      'under',
      'over',
    ),
    fc.stringMatching(/^[0-9a-f]{64}$/),
    fc.stringMatching(/^[0-9a-fA-F]{0,70}$/),
    fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{30,46}$/),
    fc.string(),
  );
export const anyValueOf = (nearMiss: fc.Arbitrary<string>) =>
  fc.oneof(
    nearMiss,
    fc.constantFrom(0, -0, -1, 1, 0.1234567, 1e21, Number.MAX_SAFE_INTEGER, -1e-7, 99.99, 10_000, null, true, false),
    fc.double(),
    fc.integer(),
    fc.array(fc.jsonValue(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
  );

export function bodyFor(op: Operation, anyValue: fc.Arbitrary<unknown>) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record(Object.fromEntries(op.body.map((k) => [k, anyValue])), { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
}

/** The query and path-parameter arbitraries of an operation. */
export const queryFor = (op: Operation, nearMiss: fc.Arbitrary<string>) =>
  fc.record(Object.fromEntries(op.query.map((k) => [k, nearMiss])), { requiredKeys: [] });
export const paramsFor = (op: Operation, nearMiss: fc.Arbitrary<string>) =>
  fc.record(Object.fromEntries(op.params.map((k) => [k, nearMiss.filter((s) => s.length > 0)])));

/** Codes that say the server, not the request, is at fault. */
export const SERVER_CODES = new Set(['INTERNAL', 'SERVICE_UNAVAILABLE']);

export interface FuzzAnswer {
  status: number;
  type: string;
  text: string;
  url: string;
}

/** Sends one generated request; `api` ends in `/api`. */
export async function sendOperation(
  api: string,
  token: string,
  op: Operation,
  body: unknown,
  query: Record<string, string>,
  params: Record<string, string>,
): Promise<FuzzAnswer> {
  let path = op.path;
  for (const [k, v] of Object.entries(params)) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const qs = new URLSearchParams(query).toString();
  const url = `${api.replace(/\/api$/, '')}${path}${qs ? `?${qs}` : ''}`;
  const res = await fetch(url, {
    method: op.method,
    headers: { authorization: `Bearer ${token}`, ...(op.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(op.method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
  const type = res.headers.get('content-type') ?? '';
  // An event stream never ends: its answer is its status and head.
  if (type.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, type, text: '', url };
  }
  const text = await res.text();
  return { status: res.status, type, text, url };
}

/** What is wrong with an answer to hostile input, or null: a 4xx envelope with a known code and its status, or a 2xx. */
export function answerProblem(res: FuzzAnswer): string | null {
  if (res.status >= 500) return `status ${res.status}`;
  // Some answers are not JSON by design (a signed checkpoint is text, a tile is bytes); every error is.
  if (res.status < 400) return null;
  if (!/^application\/json/.test(res.type)) return `content-type ${res.type}`;
  let parsed: { error?: { code?: unknown; message?: unknown } };
  try {
    parsed = JSON.parse(res.text);
  } catch {
    return 'body is not JSON';
  }
  // A 402 also carries x402's offer at the top level (contract, "REST envelope").
  const keys = res.status === 402 ? 'accepts,error,resource,x402Version' : 'error';
  if (Object.keys(parsed).sort().join() !== keys) return 'error body is not the envelope';
  const code = parsed.error?.code;
  if (typeof code !== 'string' || !(ERROR_CODES as readonly string[]).includes(code)) return `unknown code ${String(code)}`;
  if (SERVER_CODES.has(code)) return `server code ${code}`;
  if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== res.status) return `code ${code} with status ${res.status}`;
  if (typeof parsed.error?.message !== 'string') return 'no message';
  return null;
}
