// The page's reads of the public API: JSON bodies, the contract's error envelope, and "route not there yet".

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * GETs `path` under `/api` as JSON.
 * @throws {ApiError} on a network failure (status 0) or a non-2xx answer, with the envelope's code and message
 */
export async function getJson<T>(path: string, init: { signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api${path}`, { headers: { accept: 'application/json' }, ...init });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(`The service cannot be reached (${(err as Error).message})`, 0);
  }
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) {
    throw new ApiError(body?.error?.message ?? `The service answered ${res.status}`, res.status, body?.error?.code);
  }
  return body as T;
}

/** True when the error says the route itself does not exist (as opposed to a missing resource). */
export const isMissingRoute = (err: unknown): boolean => err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND';

/**
 * Like {@link getJson}, but null when the service has no such route: the analytics routes arrive later than
 * the pages, and the dashboard shows what it can without them.
 */
export async function probe<T>(path: string, init: { signal?: AbortSignal } = {}): Promise<T | null> {
  try {
    return await getJson<T>(path, init);
  } catch (err) {
    if (isMissingRoute(err)) return null;
    throw err;
  }
}
