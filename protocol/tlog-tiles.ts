/**
 * C2SP tlog-tiles for the bet log: tile paths, which tiles a tree size has, entry bundles, and the
 * Merkle hashes a verifier rebuilds from tiles (c2sp.org/tlog-tiles; tiles of height 8, 256 hashes).
 *
 * The tile at level `L`, index `N` holds the tree's node hashes at tree height `8L`, indices
 * `N·256 … N·256+W-1`; a full tile is 256 hashes (8,192 bytes) and the rightmost tile of a level is
 * partial (`.p/<W>`). An entry bundle holds the same span's entries, each prefixed by its length as a
 * big-endian uint16. Everything here is pure and parses hostile input defensively.
 * @module
 */
import { HASH_LENGTH, isHash, nodeHash, rootFromLeafHashes } from './merkle.ts';

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** Highest tile level: a tree of up to 2^63 leaves (C2SP allows 0–63). */
export const MAX_TILE_LEVEL = 63;
/** Longest entry a bundle can carry (its length prefix is a uint16). */
export const MAX_ENTRY_BYTES = 0xffff;

/** One tile: `level` is a tile level (tree height `8·level`), `index` its position, `width` its hash count. */
export interface TileRef {
  level: number;
  index: number;
  /** 1…256; 256 is a full tile. */
  width: number;
}

/**
 * Encodes a tile index as C2SP path elements: zero-padded groups of three digits, all but the last
 * prefixed with `x`.
 * @example encodeTileIndex(1234067) // 'x001/x234/067'
 */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError('tile index must be a non-negative safe integer');
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

/**
 * Parses C2SP index path elements back to an index; null unless every element is canonical
 * (`x` + 3 digits, then 3 digits, no superfluous leading group).
 * @example decodeTileIndex(['x001', 'x234', '067']) // 1234067
 */
export function decodeTileIndex(elements: readonly string[]): number | null {
  if (elements.length < 1 || elements.length > 6) return null;
  let n = 0;
  for (let i = 0; i < elements.length; i++) {
    const last = i === elements.length - 1;
    const m = (last ? /^(\d{3})$/ : /^x(\d{3})$/).exec(elements[i] as string);
    if (!m) return null;
    if (i === 0 && elements.length > 1 && m[1] === '000') return null;
    n = n * 1000 + Number(m[1]);
  }
  return Number.isSafeInteger(n) ? n : null;
}

const widthSuffix = (width: number): string => {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new RangeError('tile width must be 1…256');
  return width === TILE_WIDTH ? '' : `.p/${width}`;
};

/**
 * Path of a hash tile below the log prefix.
 * @example tilePath({ level: 0, index: 1234067, width: 256 }) // 'tile/0/x001/x234/067'
 */
export function tilePath(tile: TileRef): string {
  if (!Number.isInteger(tile.level) || tile.level < 0 || tile.level > MAX_TILE_LEVEL) throw new RangeError('tile level must be 0…63');
  return `tile/${tile.level}/${encodeTileIndex(tile.index)}${widthSuffix(tile.width)}`;
}

/**
 * Path of an entry bundle below the log prefix.
 * @example entryBundlePath(2, 17) // 'tile/entries/002.p/17'
 */
export const entryBundlePath = (index: number, width: number): string => `tile/entries/${encodeTileIndex(index)}${widthSuffix(width)}`;

/** A tile path after `tile/` parsed: `level` is null for an entry bundle. */
export interface ParsedTilePath {
  level: number | null;
  index: number;
  /** 256 for a full tile. */
  width: number;
}

/**
 * Parses what follows `tile/` in a tile or entry-bundle path; null when it is not canonical.
 * @example parseTilePath('0/x001/002.p/5') // { level: 0, index: 1002, width: 5 }
 * @example parseTilePath('entries/007') // { level: null, index: 7, width: 256 }
 */
export function parseTilePath(rest: string): ParsedTilePath | null {
  if (rest.length > 64) return null;
  const parts = rest.split('/');
  let width = TILE_WIDTH;
  if (parts.length >= 3 && parts[parts.length - 2]!.endsWith('.p')) {
    const w = parts.pop() as string;
    if (!/^[1-9]\d{0,2}$/.test(w) || Number(w) > TILE_WIDTH - 1) return null;
    width = Number(w);
    const last = parts.pop() as string;
    parts.push(last.slice(0, -2));
  }
  const head = parts.shift();
  let level: number | null;
  if (head === 'entries') level = null;
  else if (head !== undefined && /^(0|[1-9]\d?)$/.test(head) && Number(head) <= MAX_TILE_LEVEL) level = Number(head);
  else return null;
  const index = decodeTileIndex(parts);
  return index === null ? null : { level, index, width };
}

/** Number of hashes a tree of `size` leaves stores at tile level `level` (tree height 8·level). */
export function nodesAtTileLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/**
 * The tile at (`level`, `index`) as it stands in a tree of `size` leaves: full, partial, or null when
 * the tree has no hash there yet (empty tiles are never served).
 */
export function tileInTree(size: number, level: number, index: number): TileRef | null {
  const count = nodesAtTileLevel(size, level);
  const start = index * TILE_WIDTH;
  if (!Number.isSafeInteger(start) || start >= count) return null;
  return { level, index, width: Math.min(TILE_WIDTH, count - start) };
}

/**
 * Every tile of a tree of `size` leaves, level by level (a monitor's or mirror's full download).
 * @example tilesOfTree(70_000).length // 273 + 1 + 1 + 1 + 1 = 277
 */
export function tilesOfTree(size: number): TileRef[] {
  const out: TileRef[] = [];
  for (let level = 0; nodesAtTileLevel(size, level) > 0; level++) {
    const count = nodesAtTileLevel(size, level);
    for (let index = 0; index * TILE_WIDTH < count; index++) out.push(tileInTree(size, level, index) as TileRef);
  }
  return out;
}

/**
 * Splits a tile's bytes into its hashes.
 * @throws {RangeError} when the body is not exactly `width` hashes
 */
export function splitTile(bytes: Uint8Array, width: number): Uint8Array[] {
  if (bytes.length !== width * HASH_LENGTH) throw new RangeError(`a tile of width ${width} is ${width * HASH_LENGTH} bytes, got ${bytes.length}`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < width; i++) out.push(bytes.subarray(i * HASH_LENGTH, (i + 1) * HASH_LENGTH));
  return out;
}

/**
 * Encodes entries as an entry bundle: each entry as a big-endian uint16 length, then its bytes.
 * @throws {RangeError} when an entry is longer than 65,535 bytes or there are more than 256
 */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  if (entries.length > TILE_WIDTH) throw new RangeError('an entry bundle holds at most 256 entries');
  let length = 0;
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new RangeError(`an entry of ${e.length} bytes does not fit a uint16 length`);
    length += 2 + e.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const e of entries) {
    out[at] = e.length >>> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/**
 * Decodes an entry bundle of exactly `width` entries.
 * @throws {RangeError} when a length runs past the end, or the count is not `width`
 */
export function decodeEntryBundle(bytes: Uint8Array, width: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (out.length >= width) throw new RangeError(`the bundle holds more than ${width} entries`);
    if (at + 2 > bytes.length) throw new RangeError('the bundle ends inside a length prefix');
    const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + length > bytes.length) throw new RangeError('an entry runs past the end of the bundle');
    out.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  if (out.length !== width) throw new RangeError(`the bundle holds ${out.length} entries, expected ${width}`);
  return out;
}

/** One perfect subtree a verifier needs from tiles: `2^height` leaves from leaf `start`. */
export interface SubtreeRef {
  height: number;
  /** First leaf index; a multiple of 2^height. */
  start: number;
}

/**
 * The perfect subtrees whose roots, left to right, are the compact range `[0, size)` (one per set bit
 * of `size`, largest first).
 * @example frontierOf(13) // heights 3, 2, 0 from leaves 0, 8, 12
 */
export function frontierOf(size: number): SubtreeRef[] {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('size must be a non-negative safe integer');
  const out: SubtreeRef[] = [];
  let start = 0;
  for (let height = 52; height >= 0; height--) {
    const width = 2 ** height;
    if (Math.floor(size / width) % 2 === 1) {
      out.push({ height, start });
      start += width;
    }
  }
  return out;
}

/**
 * The tile and the span of its hashes that hold a perfect subtree: its root is the Merkle hash of those
 * `2^(height - 8·level)` consecutive hashes. The tile is taken as it stands in a tree of `size` leaves.
 */
export function tileSpanOf(subtree: SubtreeRef, size: number): { tile: TileRef; offset: number; count: number } {
  const level = Math.floor(subtree.height / TILE_HEIGHT);
  const count = 2 ** (subtree.height - level * TILE_HEIGHT);
  const first = subtree.start / TILE_WIDTH ** level;
  const tile = tileInTree(size, level, Math.floor(first / TILE_WIDTH));
  if (!tile) throw new RangeError(`a tree of ${size} leaves has no tile for the subtree at ${subtree.start}`);
  return { tile, offset: first % TILE_WIDTH, count };
}

/**
 * The root of a perfect subtree from the hashes of its tile span (a power-of-two count of hashes).
 * @throws {TypeError} when a hash is not 32 bytes
 */
export function subtreeRootFromSpan(hashes: readonly Uint8Array[]): Uint8Array {
  for (const h of hashes) if (!isHash(h)) throw new TypeError('tile hashes must be 32 bytes');
  return hashes.length === 1 ? (hashes[0] as Uint8Array).slice() : rootFromLeafHashes(hashes);
}

/**
 * The hash a tile contributes to the level above: the Merkle hash of its 256 hashes.
 * @throws {RangeError} for a partial tile (C2SP: never hashed into the level above)
 */
export function tileRoot(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length !== TILE_WIDTH) throw new RangeError('only a full tile is hashed into the level above');
  let row = hashes.slice();
  while (row.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < row.length; i += 2) next.push(nodeHash(row[i] as Uint8Array, row[i + 1] as Uint8Array));
    row = next;
  }
  return (row[0] as Uint8Array).slice();
}
