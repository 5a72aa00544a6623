// Public reads over HTTP: the audited API (JSON, bytes, text) and the chain's JSON-RPC. Bodies are bounded
// before they are read, transient failures are retried, and every failure says whether it is the
// service withholding data (404) or something that could not be reached.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }

  /** The server answered that the resource does not exist (as opposed to an outage). */
  get notFound(): boolean {
    return this.status === 404;
  }
}

/** Base URL of the API, always ending in `/api`, whichever form the user typed. */
export function normalizeApiUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/api') ? trimmed : `${trimmed}/api`;
}

const RETRIES = 3;
/**
 * How long in all a request waits on servers that ask it to come back (503 or 429 with `Retry-After`): the service
 * sheds old-receipt and journal reads past its archive budget that way, and public RPC nodes rate-limit so.
 */
export const PATIENCE_MS = 120_000;
/** A `Retry-After` longer than this is a failure, not a wait. */
const MAX_RETRY_AFTER_MS = 30_000;
/** A `Retry-After` of 0 still waits this long, so a busy server is not asked again at once. */
const MIN_RETRY_AFTER_MS = 100;
const TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 5;
/** Largest body read from the API: a receipt bundle of 256 Sweeper tickets fits easily. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Gives the bytes a body of a declared length is read into (a buffer the caller reuses), instead of a new one. */
export type BodyBuffer = (length: number) => Uint8Array;

// node:http rather than fetch: fetch loads undici on first use, and each request costs about three times the CPU
// (in a fresh process, 20 small GETs took 150-195 ms against 31-37; then 1.5 against 0.5 ms a request). A monitor
// poll is a fresh process that makes a few dozen requests, and an audit's worker threads make hundreds.
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/** A body the server sent within `max` bytes; in the buffer `into` gives when its length is declared and it is not compressed. */
async function readBounded(res: IncomingMessage, url: string, max: number, into?: BodyBuffer): Promise<Uint8Array> {
  const declared = Number(res.headers['content-length'] ?? NaN);
  if (declared > max) throw new FetchError(`${url}: the body of ${declared} bytes is over the ${max}-byte limit`);
  const encoding = res.headers['content-encoding'];
  if (encoding && encoding !== 'identity' && encoding !== 'gzip')
    throw new FetchError(`${url}: the body is in the ${encoding} encoding, which was not asked for`);
  if (!encoding || encoding === 'identity') {
    if (Number.isSafeInteger(declared) && into) {
      // A megabyte freshly allocated per tile costs more in page faults than reading it does.
      const out = into(declared);
      let at = 0;
      for await (const chunk of res as AsyncIterable<Buffer>) {
        if (at + chunk.length > declared) throw new FetchError(`${url}: the body runs past its declared ${declared} bytes`);
        out.set(chunk, at);
        at += chunk.length;
      }
      if (at !== declared) throw new FetchError(`${url}: the body ends before its declared ${declared} bytes`);
      return out;
    }
  }
  // A compressed body may inflate past its declared length: counted as it streams.
  const stream: AsyncIterable<Buffer> = encoding === 'gzip' ? pipeline(res, createGunzip(), () => {}) : res;
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += chunk.length;
    if (length > max) throw new FetchError(`${url}: the body is over the ${max}-byte limit`);
    chunks.push(chunk);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

interface Exchange {
  status: number;
  contentType: string;
  body: Uint8Array;
  retryAfter: string | undefined;
}

/** The wait a `Retry-After` asks for (delay-seconds or an HTTP date), in ms; null when it names none. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/**
 * One request and its bounded body, redirects followed (a POST only on 307 and 308, which keep it a POST).
 * @throws {FetchError} when the body breaks a bound (final); any other error is the network's (worth a retry)
 */
function exchange(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  max: number,
  into?: BodyBuffer,
  redirects = MAX_REDIRECTS,
): Promise<Exchange> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : null;
  if (!send) return Promise.reject(new FetchError(`${url}: only http and https URLs can be read`));
  return new Promise<Exchange>((resolve, reject) => {
    // Asks for what readBounded decodes, and nothing else.
    const headers = { ...init.headers, 'accept-encoding': 'gzip, identity' };
    const req = send(target, { method: init.method, headers, agent: agents[target.protocol as 'http:' | 'https:'] }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location && redirects > 0 && (init.method === 'GET' || status === 307 || status === 308)) {
        clearTimeout(timer);
        res.resume();
        resolve(exchange(new URL(location, target).href, init, max, into, redirects - 1));
        return;
      }
      readBounded(res, url, max, into).then(
        (body) => {
          clearTimeout(timer);
          resolve({ status, contentType: res.headers['content-type'] ?? '', body, retryAfter: res.headers['retry-after'] });
        },
        (err: unknown) => {
          clearTimeout(timer);
          res.destroy();
          reject(err);
        },
      );
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(init.body);
  });
}

/**
 * A request with retries on network errors and 5xx/429; any other status is final. A 503 or 429 that names its
 * `Retry-After` is waited out as asked, within `patienceMs` in all, without spending a retry.
 */
async function withRetry(
  url: string,
  init: Parameters<typeof exchange>[1],
  max: number,
  into?: BodyBuffer,
  what = url,
  patienceMs = PATIENCE_MS,
): Promise<Exchange> {
  let last: unknown;
  let waited = 0;
  for (let attempt = 0; attempt < RETRIES; ) {
    let res: Exchange;
    try {
      res = await exchange(url, init, max, into);
    } catch (err) {
      if (err instanceof FetchError) throw err;
      last = new FetchError(`cannot reach ${what}: ${(err as Error).message}`);
      if (++attempt < RETRIES) await sleep(250 * 2 ** attempt);
      continue;
    }
    if (res.status >= 500 || res.status === 429) {
      last = new FetchError(`${what}: status ${res.status}`, res.status);
      const asked = res.status === 503 || res.status === 429 ? retryAfterMs(res.retryAfter) : null;
      const wait = asked === null ? null : Math.max(asked, MIN_RETRY_AFTER_MS);
      if (wait !== null && wait <= MAX_RETRY_AFTER_MS && waited + wait <= patienceMs) {
        waited += wait;
        await sleep(wait);
        continue;
      }
      if (++attempt < RETRIES) await sleep(250 * 2 ** attempt);
      continue;
    }
    return res;
  }
  throw last;
}

const getWithRetry = (
  url: string,
  accept: string,
  max: number,
  patienceMs: number,
  into?: BodyBuffer,
  headers: Record<string, string> = {},
): Promise<Exchange> => withRetry(url, { method: 'GET', headers: { ...headers, accept } }, max, into, url, patienceMs);

const decoder = new TextDecoder();

export class ApiClient {
  /** Requests made, for progress and the benchmark. */
  requests = 0;
  constructor(
    readonly base: string,
    /** How long in all a request waits on `Retry-After`. */
    readonly patienceMs = PATIENCE_MS,
  ) {}

  #url(path: string): string {
    return `${this.base}${path}`;
  }

  #fail(url: string, status: number, body: Uint8Array): never {
    let message = `status ${status}`;
    try {
      message = (JSON.parse(decoder.decode(body)) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // not the envelope: keep the status
    }
    throw new FetchError(`${url}: ${message}`, status);
  }

  /**
   * GETs `path` (relative to /api) as JSON.
   * @throws {FetchError} on a network failure or a non-2xx status (with the envelope's message)
   */
  async get<T>(path: string, max = MAX_BODY_BYTES, headers: Record<string, string> = {}): Promise<T> {
    const url = this.#url(path);
    this.requests++;
    const res = await getWithRetry(url, 'application/json', max, this.patienceMs, undefined, headers);
    if (res.status < 200 || res.status >= 300) this.#fail(url, res.status, res.body);
    try {
      return JSON.parse(decoder.decode(res.body)) as T;
    } catch {
      throw new FetchError(`${url} did not return JSON (status ${res.status})`, res.status);
    }
  }

  /** GETs `path` as raw text. */
  async text(path: string, max = MAX_BODY_BYTES): Promise<string> {
    return decoder.decode(await this.bytes(path, max, '*/*'));
  }

  /**
   * GETs `path` as bytes, in a buffer of their own (which can be handed to a worker thread), or, when the
   * body's length is declared, in the one `into` gives.
   */
  async bytes(path: string, max = MAX_BODY_BYTES, accept = 'application/octet-stream', into?: BodyBuffer): Promise<Uint8Array> {
    const url = this.#url(path);
    this.requests++;
    const res = await getWithRetry(url, accept, max, this.patienceMs, into);
    if (res.status < 200 || res.status >= 300) this.#fail(url, res.status, res.body);
    return res.body;
  }

  /** Like {@link get}, but null on 404. */
  async find<T>(path: string, max = MAX_BODY_BYTES): Promise<T | null> {
    try {
      return await this.get<T>(path, max);
    } catch (err) {
      if (err instanceof FetchError && err.notFound) return null;
      throw err;
    }
  }
}

/** A minimal Solana JSON-RPC client: plain JSON numbers, exactly what the verifier core reads. */
export class RpcClient {
  #id = 0;
  calls = 0;
  constructor(
    readonly url: string,
    /** How long in all a call waits on `Retry-After` (public RPC nodes rate-limit with 429). */
    readonly patienceMs = PATIENCE_MS,
  ) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    this.calls++;
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params });
    const res = await withRetry(
      this.url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body },
      MAX_BODY_BYTES,
      undefined,
      `the RPC ${this.url}`,
      this.patienceMs,
    );
    type Answer = { result?: T; error?: { message?: string } };
    let answer: Answer | null;
    try {
      answer = JSON.parse(decoder.decode(res.body)) as Answer | null;
    } catch {
      answer = null;
    }
    if (!answer || typeof answer !== 'object') throw new FetchError(`the RPC ${this.url} returned no JSON (status ${res.status})`, res.status);
    if (answer.error) throw new FetchError(`RPC ${method}: ${answer.error.message ?? 'error'}`);
    return answer.result as T;
  }
}
