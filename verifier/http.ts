// Public reads over HTTP: the service's API (JSON) and the chain's JSON-RPC, with clear errors.

export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Base URL of the API, always ending in `/api`, whichever form the user typed. */
export function normalizeApiUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/api') ? trimmed : `${trimmed}/api`;
}

export class ApiClient {
  constructor(readonly base: string) {}

  /**
   * GETs `path` (relative to /api) as JSON.
   * @throws {FetchError} on a network failure or a non-2xx status (with the envelope's message)
   */
  async get<T>(path: string): Promise<T> {
    const url = `${this.base}${path}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' } });
    } catch (err) {
      throw new FetchError(`cannot reach ${url}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new FetchError(`${url} did not return JSON (status ${res.status})`, res.status);
    }
    if (!res.ok) {
      const message = (body as { error?: { message?: string } } | null)?.error?.message ?? `status ${res.status}`;
      throw new FetchError(`${url}: ${message}`, res.status);
    }
    return body as T;
  }

  /** Like {@link get}, but null on 404. */
  async find<T>(path: string): Promise<T | null> {
    try {
      return await this.get<T>(path);
    } catch (err) {
      if (err instanceof FetchError && err.status === 404) return null;
      throw err;
    }
  }
}

/** A minimal Solana JSON-RPC client: plain JSON numbers, exactly what the verifier core reads. */
export class RpcClient {
  #id = 0;
  constructor(readonly url: string) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
      });
    } catch (err) {
      throw new FetchError(`cannot reach the RPC ${this.url}: ${(err as Error).message}`);
    }
    const body = (await res.json().catch(() => null)) as { result?: T; error?: { message?: string } } | null;
    if (!body) throw new FetchError(`the RPC ${this.url} returned no JSON (status ${res.status})`, res.status);
    if (body.error) throw new FetchError(`RPC ${method}: ${body.error.message ?? 'error'}`);
    return body.result as T;
  }
}
