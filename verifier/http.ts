// Public reads over HTTP: the audited API (JSON, bytes, text) and the chain's JSON-RPC. Bodies are bounded
// before they are read, transient failures are retried, and every failure says whether it is the
// service withholding data (404) or something that could not be reached.

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
const TIMEOUT_MS = 60_000;
/** Largest body read from the API: a receipt bundle of 256 Sweeper tickets fits easily. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Gives the bytes a body of a declared length is read into (a buffer the caller reuses), instead of a new one. */
export type BodyBuffer = (length: number) => Uint8Array;

async function readBounded(res: Response, url: string, max: number, into?: BodyBuffer): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) throw new FetchError(`${url}: the body of ${declared} bytes is over the ${max}-byte limit`);
  if (!res.body) return new Uint8Array(0);
  // A declared length of an uncompressed body is held to (fetch fails on a body of another length): read in
  // one piece. A compressed one may inflate past it, so it is counted as it streams.
  const encoding = res.headers.get('content-encoding');
  if (Number.isSafeInteger(declared) && (!encoding || encoding === 'identity')) {
    if (!into) return new Uint8Array(await res.arrayBuffer());
    // A megabyte freshly allocated per tile costs more in page faults than reading it does.
    const out = into(declared);
    let at = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (at + chunk.length > declared) throw new FetchError(`${url}: the body runs past its declared ${declared} bytes`);
      out.set(chunk, at);
      at += chunk.length;
    }
    if (at !== declared) throw new FetchError(`${url}: the body ends before its declared ${declared} bytes`);
    return out;
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
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

/** GET with retries on network errors and 5xx/429; a 4xx other than 429 is final. */
async function getWithRetry(url: string, accept: string, max: number, into?: BodyBuffer): Promise<{ status: number; body: Uint8Array; contentType: string }> {
  let last: unknown;
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    if (attempt) await sleep(250 * 2 ** attempt);
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept, 'accept-encoding': 'gzip, identity' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      last = new FetchError(`cannot reach ${url}: ${(err as Error).message}`);
      continue;
    }
    const body = await readBounded(res, url, max, into);
    if (res.status >= 500 || res.status === 429) {
      last = new FetchError(`${url}: status ${res.status}`, res.status);
      continue;
    }
    return { status: res.status, body, contentType: res.headers.get('content-type') ?? '' };
  }
  throw last;
}

const decoder = new TextDecoder();

export class ApiClient {
  /** Requests made, for progress and the benchmark. */
  requests = 0;
  constructor(readonly base: string) {}

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
  async get<T>(path: string, max = MAX_BODY_BYTES): Promise<T> {
    const url = this.#url(path);
    this.requests++;
    const res = await getWithRetry(url, 'application/json', max);
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
    const res = await getWithRetry(url, accept, max, into);
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
  constructor(readonly url: string) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      if (attempt) await sleep(250 * 2 ** attempt);
      this.calls++;
      let res: Response;
      try {
        res = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        last = new FetchError(`cannot reach the RPC ${this.url}: ${(err as Error).message}`);
        continue;
      }
      if (res.status >= 500 || res.status === 429) {
        last = new FetchError(`the RPC ${this.url} answered ${res.status}`, res.status);
        continue;
      }
      const body = (await res.json().catch(() => null)) as { result?: T; error?: { message?: string } } | null;
      if (!body) throw new FetchError(`the RPC ${this.url} returned no JSON (status ${res.status})`, res.status);
      if (body.error) throw new FetchError(`RPC ${method}: ${body.error.message ?? 'error'}`);
      return body.result as T;
    }
    throw last;
  }
}
