// Reading the bet log as C2SP tiles: entry bundles with their receipt bundles (256 entries a request),
// the compact range at a tile boundary from hash tiles, and the first tile settled since a time.
import { CompactRange } from '../protocol/compact-range.ts';
import {
  TILE_WIDTH,
  decodeEntryBundle,
  encodeTileIndex,
  entryBundlePath,
  frontierOf,
  splitTile,
  subtreeRootFromSpan,
  tilePath,
  tileSpanOf,
} from '../protocol/tlog-tiles.ts';
import { type ApiClient, type BodyBuffer, FetchError } from './http.ts';
import type { ReadProblem } from './inspect-bundle.ts';

const PREFIX = '/protocol/v1/bet-log/';

const problemOf = (err: unknown): ReadProblem => ({
  error: (err as Error).message,
  withheld: err instanceof FetchError && err.status !== undefined && err.status < 500,
});

/**
 * The tile of entries `[index·256, index·256 + width)`: its entry bundle and its receipt bundle (JSON, left
 * undecoded for the worker thread that inspects it); for each, why it could not be read: withheld (the
 * service answered it does not have it) or unreachable.
 */
export async function readBundle(
  api: ApiClient,
  index: number,
  width: number,
  into?: BodyBuffer,
): Promise<{ entries: Uint8Array | ReadProblem; receipts: Uint8Array | ReadProblem }> {
  const [entries, receipts] = await Promise.all([
    api.bytes(`${PREFIX}${entryBundlePath(index, width)}`, undefined, undefined, into).catch(problemOf),
    api.bytes(`${PREFIX}receipts/${encodeTileIndex(index)}${width === TILE_WIDTH ? '' : `.p/${width}`}`, undefined, '*/*', into).catch(problemOf),
  ]);
  return { entries, receipts };
}

/**
 * The compact range `[0, size)` from hash tiles of a tree of `treeSize` leaves. Nothing here is trusted:
 * an audit that extends the range checks every later root against the chain, which proves these hashes.
 */
export async function rangeFromTiles(api: ApiClient, size: number, treeSize: number): Promise<CompactRange> {
  const roots: Uint8Array[] = [];
  const cache = new Map<string, Uint8Array[]>();
  for (const subtree of frontierOf(size)) {
    const { tile, offset, count } = tileSpanOf(subtree, treeSize);
    const path = tilePath(tile);
    let hashes = cache.get(path);
    if (!hashes) {
      hashes = splitTile(await api.bytes(`${PREFIX}${path}`, 8192), tile.width);
      cache.set(path, hashes);
    }
    roots.push(subtreeRootFromSpan(hashes.slice(offset, offset + count)));
  }
  return CompactRange.fromRoots(size, roots);
}

/** `settledAt` of the first entry of entry bundle `index` (in a tree of `size`), or NaN. */
async function firstSettledAt(api: ApiClient, index: number, size: number): Promise<number> {
  const width = Math.min(TILE_WIDTH, size - index * TILE_WIDTH);
  const [first] = decodeEntryBundle(await api.bytes(`${PREFIX}${entryBundlePath(index, width)}`), width);
  try {
    return Date.parse((JSON.parse(new TextDecoder().decode(first)) as { settledAt?: string }).settledAt ?? '');
  } catch {
    return NaN;
  }
}

/**
 * A tile boundary at or before the first entry settled at or after `sinceMs` (entries are appended as
 * they settle, so nearly in time order; one tile earlier absorbs the disorder).
 */
export async function firstTileSince(api: ApiClient, sinceMs: number, size: number): Promise<number> {
  let lo = 0;
  let hi = Math.ceil(size / TILE_WIDTH);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = await firstSettledAt(api, mid, size);
    if (Number.isFinite(at) && at < sinceMs) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo - 1) * TILE_WIDTH;
}
