// Transparency reads for verifiers: bet-log tiles and entry bundles (C2SP tlog-tiles), receipt bundles,
// signed checkpoints, the trust root's key history, and the on-chain pointer to a session key's setup.
import type { Address } from '../protocol/address.ts';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { parseBetLogItem } from './anchor-tree.ts';
import { HASH_LENGTH } from '../protocol/merkle.ts';
import {
  TILE_HEIGHT,
  TILE_WIDTH,
  encodeEntryBundle,
  encodeTileIndex,
  entryBundlePath,
  nodesAtTileLevel,
  tilePath,
  type ParsedTilePath,
} from '../protocol/tlog-tiles.ts';
import { TileFiles } from './tile-files.ts';
import { canonicalize } from '../protocol/jcs.ts';
import { utf8 } from '../protocol/encoding.ts';
import type { TrustRootKey, TrustRootRole } from '../protocol/trust-root.ts';
import { pipelineReplies } from './redis.ts';
import type { ArchivedReceiptText, ReceiptArchive } from './retention.ts';

/** Where a session key's latest setup or revocation sits on-chain, as the indexer applied it. */
export interface SessionKeyPointer {
  betPayloadHash: string;
  sessionPubkey: string;
  signature: string;
  slot: number;
}

/** A tile's bytes and whether it is full (then they never change). */
export interface StoredTile {
  bytes: Uint8Array;
  full: boolean;
  /** Gives the bytes' pooled buffer back once they are sent (see TileFiles.lease); a no-op for computed bytes. */
  release(): void;
}

/** A receipt bundle's bytes (JSON), with `release` as in {@link StoredTile}. */
export interface StoredBundle {
  bytes: Uint8Array | string;
  release(): void;
}

const nothingToRelease = (): void => {};

/** A stored receipt's body (the bytes Redis holds) and its filled anchor (JSON text). */
export interface ReceiptFields {
  body: Buffer;
  anchor: string;
}

/** Receipt fields the caller already holds (undefined where it holds none), in the order of the ids asked for. */
export type KeptReceiptFields = (receiptIds: readonly string[]) => (ReceiptFields | undefined)[];

/** The stored entry texts (the bytes Redis holds) the caller already holds, as {@link KeptReceiptFields}. */
export type KeptEntries = (receiptIds: readonly string[]) => (Uint8Array | undefined)[];

export class TransparencyStore {
  readonly #files: TileFiles | null;

  /**
   * @param tilesDir where full tiles are kept as files (TILES_DIR); without it every tile is computed.
   * @param archive where the receipts of plays Redis no longer holds are read (store/retention.ts), to compute a tile
   * this host has no file of.
   */
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    tilesDir?: string,
    private readonly archive: ReceiptArchive | null = null,
  ) {
    this.#files = tilesDir ? new TileFiles(tilesDir) : null;
  }

  /**
   * A hash tile or entry bundle of the committed tree, null when it has none there yet. A full tile is read
   * from its file; one not written yet (the worker has not reached it, or this host does not share its
   * TILES_DIR) is computed, then stored. A partial tile is always computed.
   */
  async tile(tile: ParsedTilePath): Promise<StoredTile | null> {
    const full = tile.width === TILE_WIDTH;
    const relative = tile.level === null ? entryBundlePath(tile.index, tile.width) : tilePath({ level: tile.level, index: tile.index, width: tile.width });
    if (full && this.#files) {
      // A file exists only for a tile of a committed tree, and the log never forks: no size check is needed.
      const stored = await this.#files.lease(relative);
      if (stored) return Object.assign(stored, { full });
    }
    const size = await this.committedSize();
    const bytes = await this.#computeTile(tile, size);
    // Storing is a cache: a host that cannot write there (read-only, full) still serves the computed bytes.
    if (bytes && full && this.#files) await this.#files.write(relative, bytes).catch(() => undefined);
    return bytes && { bytes, full, release: nothingToRelease };
  }

  /**
   * The log size below which every entry bundle and receipt bundle is a file here (full ones only, so a multiple of
   * 256): what may leave Redis (store/retention.ts). 0 without TILES_DIR.
   */
  async writtenSize(): Promise<number> {
    const files = this.#files;
    if (!files) return 0;
    const [tiles, receipts] = await Promise.all([files.writtenSize('tiles'), files.writtenSize('receipts')]);
    return Math.floor(Math.min(tiles, receipts) / TILE_WIDTH) * TILE_WIDTH;
  }

  #computeTile(tile: ParsedTilePath, size: number): Promise<Uint8Array | null> {
    return tile.level === null ? this.entryBundle(tile.index, tile.width, size) : this.hashTile(tile.level, tile.index, tile.width, size);
  }

  /**
   * Writes every full tile (hashes on every level, and entry bundles) that a committed tree of `size` completes
   * and an earlier call did not write. The worker calls it once a commit is anchored, with the entry texts it read
   * with the receipt bodies (`kept`), which are not read again.
   * @returns how many tile files were written
   */
  async writeFullTiles(size: number, kept?: KeptEntries): Promise<number> {
    const files = this.#files;
    if (!files) return 0;
    const from = await files.writtenSize();
    if (size <= from) return 0;
    let written = 0;
    // Several tiles a round trip: a catch-up (a new TILES_DIR, a restored host) writes a whole log at once.
    const BATCH = 16;
    for (let index = Math.floor(from / TILE_WIDTH); index < Math.floor(size / TILE_WIDTH); index += BATCH) {
      const count = Math.min(BATCH, Math.floor(size / TILE_WIDTH) - index);
      const texts = await this.#entryTexts(index * TILE_WIDTH, count * TILE_WIDTH, kept);
      for (let k = 0; k < count; k++) {
        const bundle = encodeEntryBundle(texts.slice(k * TILE_WIDTH, (k + 1) * TILE_WIDTH).map(entryBytes));
        await files.write(entryBundlePath(index + k, TILE_WIDTH), bundle);
        written++;
      }
    }
    for (let level = 0; nodesAtTileLevel(size, level) >= TILE_WIDTH; level++) {
      const end = Math.floor(nodesAtTileLevel(size, level) / TILE_WIDTH);
      for (let index = Math.floor(nodesAtTileLevel(from, level) / TILE_WIDTH); index < end; index += BATCH) {
        const count = Math.min(BATCH, end - index);
        const hashes = await this.hashTile(level, index, count * TILE_WIDTH, size);
        if (!hashes) throw new Error(`a committed tree of ${size} entries lacks level-${level} tiles ${index}…${index + count - 1}`);
        for (let k = 0; k < count; k++) {
          const bytes = hashes.subarray(k * TILE_WIDTH * HASH_LENGTH, (k + 1) * TILE_WIDTH * HASH_LENGTH);
          await files.write(tilePath({ level, index: index + k, width: TILE_WIDTH }), bytes);
          written++;
        }
      }
    }
    await files.setWrittenSize(size);
    return written;
  }

  /** The size of the latest commit: tiles are served for the committed tree only. */
  async committedSize(): Promise<number> {
    return Number((await this.redis.hget(this.keys.anchor(), 'committedSize')) ?? 0);
  }

  /**
   * Hash tile (`level`, `index`) with `width` hashes, or null when a tree of `treeSize` has fewer there.
   * Tile level L holds the tree's nodes at height 8L, which the worker persists level by level.
   */
  async hashTile(level: number, index: number, width: number, treeSize: number): Promise<Uint8Array | null> {
    const start = index * TILE_WIDTH;
    if (start + width > nodesAtTileLevel(treeSize, level)) return null;
    const bytes = await this.redis.getrangeBuffer(this.keys.betLogNodes(level * TILE_HEIGHT), start * HASH_LENGTH, (start + width) * HASH_LENGTH - 1);
    if (!bytes || bytes.length !== width * HASH_LENGTH) throw new Error(`bet-log tree level ${level * TILE_HEIGHT} lacks nodes ${start}…${start + width - 1}`);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /** The receipt ids of entries `[index·256, index·256 + width)`; null past `treeSize`. */
  async #ids(index: number, width: number, treeSize: number): Promise<string[] | null> {
    const start = index * TILE_WIDTH;
    if (start + width > treeSize) return null;
    const items = await this.redis.lrange(this.keys.betLog(), start, start + width - 1);
    if (items.length !== width) throw new Error(`the bet log holds fewer than ${start + width} entries`);
    return items.map((item, i) => parseBetLogItem(item, start + i).receiptId);
  }

  /**
   * Fields of the receipts of these entries (`[entry index, receipt id]`), in order; a receipt without
   * `fields[0]` (its body) is a broken log.
   */
  async #fields(entries: readonly [number, string][], fields: readonly ('body' | 'anchor')[]): Promise<(string | null)[][]> {
    const pipeline = this.redis.pipeline();
    for (const [, id] of entries) pipeline.hmget(this.keys.receipt(id), ...fields);
    const replies = (await pipelineReplies(pipeline)) as (string | null)[][];
    const dropped = entries.flatMap(([, id], i) => (replies[i]?.[0] ? [] : [id]));
    const archived = dropped.length > 0 && this.archive ? await this.#archived(dropped) : null;
    return entries.map(([index, id], i) => {
      const row = archived?.get(id);
      const values = row ? fields.map((f) => row[f]) : (replies[i] ?? []);
      if (!values[0]) throw new Error(`bet-log entry ${index} names receipt ${id}, which is not stored`);
      return values;
    });
  }

  /** The archived texts of receipts Redis no longer holds, by id. */
  async #archived(ids: readonly string[]): Promise<Map<string, ArchivedReceiptText>> {
    const out = new Map<string, ArchivedReceiptText>();
    for (let i = 0; i < ids.length; i += TILE_WIDTH) {
      const rows = await this.archive!.archivedReceipts({ receiptIds: ids.slice(i, i + TILE_WIDTH) });
      for (const row of rows) out.set(row.receiptId, row);
    }
    return out;
  }

  /**
   * The stored receipts of entries `[index·256, index·256 + width)`: body and filled anchor, as JSON text (or the body's
   * bytes, where `kept` holds them). What `kept` holds is not read from Redis.
   */
  async #stored(index: number, width: number, treeSize: number, kept?: KeptReceiptFields): Promise<({ id: string } & StoredReceipt)[] | null> {
    const ids = await this.#ids(index, width, treeSize);
    if (!ids) return null;
    const held = kept?.(ids) ?? [];
    const missing = ids.flatMap((id, i): [number, string][] => (held[i] === undefined ? [[index * TILE_WIDTH + i, id]] : []));
    const values = missing.length > 0 ? await this.#fields(missing, ['body', 'anchor']) : [];
    let next = 0;
    return ids.map((id, i) => {
      const fields = held[i];
      if (fields) return { id, body: fields.body, anchor: fields.anchor };
      const [body, anchor] = values[next++]!;
      return { id, body: body!, anchor: anchor ?? null };
    });
  }

  /** Receipts of entries `[index·256, index·256 + width)`, in log order (null past `treeSize`). */
  async receiptBundle(index: number, width: number, treeSize: number): Promise<Record<string, unknown>[] | null> {
    const stored = await this.#stored(index, width, treeSize);
    return stored?.map((r) => JSON.parse(receiptJson(r.body, r.anchor)) as Record<string, unknown>) ?? null;
  }

  /** The same as JSON text, `{"receipts":[…]}`, without parsing each receipt (a bulk read's hot path). */
  async receiptBundleJson(index: number, width: number, treeSize: number): Promise<string | null> {
    const stored = await this.#stored(index, width, treeSize);
    return stored ? bundleJson(stored) : null;
  }

  /**
   * The bytes of receipt bundle `index` (`width` receipts) of the committed tree, null when it has none there
   * yet. A full bundle whose anchors are all filled never changes: it is read from its file (TILES_DIR,
   * `receipts/<N>`), or built and then stored. Any other is built from the stored receipts on each request.
   */
  async receiptBundleBytes(index: number, width: number): Promise<StoredBundle | null> {
    const files = width === TILE_WIDTH ? this.#files : null;
    const relative = receiptBundlePath(index);
    if (files) {
      // A file exists only for a bundle of a committed tree whose anchors were filled: no size check is needed.
      const stored = await files.lease(relative);
      if (stored) return stored;
    }
    const stored = await this.#stored(index, width, await this.committedSize());
    if (!stored) return null;
    const json = bundleJson(stored);
    // Storing is a cache: a host that cannot write there still serves the built bundle.
    if (files && stored.every((r) => r.anchor !== null)) await files.write(relative, Buffer.from(json)).catch(() => undefined);
    return { bytes: json, release: nothingToRelease };
  }

  /**
   * Writes every full receipt bundle whose receipts all have their anchors filled (entries below `filledSize`,
   * which the worker's fill cursor gives) and that an earlier call did not write. The receipts `kept` holds (the
   * worker's: the bodies its check read, the anchors its fill wrote) are not read again: 6 kB a receipt.
   * @returns how many bundle files were written
   */
  async writeReceiptBundles(filledSize: number, kept?: KeptReceiptFields): Promise<number> {
    const files = this.#files;
    if (!files) return 0;
    const from = await files.writtenSize('receipts');
    const end = Math.floor(filledSize / TILE_WIDTH);
    let written = 0;
    let index = Math.floor(from / TILE_WIDTH);
    for (; index < end; index++) {
      const stored = await this.#stored(index, TILE_WIDTH, filledSize, kept);
      // The fill cursor said these are filled; a bundle that is not (yet) waits for a later call.
      if (!stored?.every((r) => r.anchor !== null)) break;
      await files.writeBuilt(receiptBundlePath(index), (allocate) => bundleBytes(stored, allocate));
      written++;
    }
    if (index * TILE_WIDTH > from) await files.setWrittenSize(index * TILE_WIDTH, 'receipts');
    return written;
  }

  /**
   * Entry bundle `index`: each entry's canonical JSON (its leaf data), as settlement stored it beside the
   * receipt; rebuilt from the receipt body only for receipts stored before that (a 4.9 kB read and a JCS
   * each, against the 0.7 kB stored text).
   */
  async entryBundle(index: number, width: number, treeSize: number): Promise<Uint8Array | null> {
    const start = index * TILE_WIDTH;
    if (start + width > treeSize) return null;
    return encodeEntryBundle((await this.#entryTexts(start, width)).map(entryBytes));
  }

  /**
   * The canonical JSON of entries `[start, start + count)`, which the log must hold: as text, or as the bytes `kept`
   * holds, which are not read again.
   */
  async #entryTexts(start: number, count: number, kept?: KeptEntries): Promise<(string | Uint8Array)[]> {
    const items = await this.redis.lrange(this.keys.betLog(), start, start + count - 1);
    if (items.length !== count) throw new Error(`the bet log holds fewer than ${start + count} entries`);
    const ids = items.map((item, i) => parseBetLogItem(item, start + i).receiptId);
    const entries: (string | Uint8Array | null)[] = kept?.(ids).map((e) => e ?? null) ?? ids.map(() => null);
    const unread = entries.flatMap((e, i) => (e === null ? [i] : []));
    if (unread.length > 0) {
      const pipeline = this.redis.pipeline();
      for (const i of unread) pipeline.hget(this.keys.receipt(ids[i] as string), 'entry');
      (await pipelineReplies(pipeline)).forEach((value, j) => {
        entries[unread[j] as number] = typeof value === 'string' && value !== '' ? value : null;
      });
    }
    const missing = entries.flatMap((e, i) => (e === null ? [i] : []));
    if (missing.length) {
      const bodies = await this.#fields(
        missing.map((i) => [start + i, ids[i]!]),
        ['body'],
      );
      missing.forEach((i, k) => {
        entries[i] = canonicalize(entryOf(bodies[k]![0]!));
      });
    }
    return entries as (string | Uint8Array)[];
  }

  /** Stores a signed checkpoint of `size` (idempotent: one size has one root, and Ed25519 is deterministic). */
  async saveCheckpoint(size: number, note: string): Promise<void> {
    await this.redis.zadd(this.keys.betLogCheckpoints(), size, note);
  }

  /** Keeps a witness's cosignature line of the checkpoint of `size` (a newer one replaces it). */
  async saveCosignature(witness: string, size: number, line: string): Promise<void> {
    await this.redis.hset(this.keys.betLogCosignatures(), witness, JSON.stringify({ size, line }));
  }

  /** Each witness's newest cosigned size and line. */
  async cosignatures(): Promise<Map<string, { size: number; line: string }>> {
    const all = await this.redis.hgetall(this.keys.betLogCosignatures());
    return new Map(Object.entries(all).map(([name, json]) => [name, JSON.parse(json) as { size: number; line: string }]));
  }

  /** The newest signed checkpoint with the cosignature lines witnesses returned for it, after the log's own. */
  async cosignedCheckpoint(): Promise<{ size: number; note: string } | null> {
    const [latest, cosignatures] = await Promise.all([this.latestCheckpoint(), this.cosignatures()]);
    if (!latest) return null;
    const lines = [...cosignatures.values()].filter((c) => c.size === latest.size).map((c) => `${c.line}\n`);
    return { size: latest.size, note: latest.note + lines.join('') };
  }

  /** The newest signed checkpoint and its size. */
  async latestCheckpoint(): Promise<{ size: number; note: string } | null> {
    const [note, score] = await this.redis.zrange(this.keys.betLogCheckpoints(), '-1', '-1', 'WITHSCORES');
    return note === undefined ? null : { size: Number(score), note };
  }

  /**
   * Records that `keys` are published now, keeping the first time each was seen, and returns every key
   * ever published per role, oldest first (a rotated key stays listed).
   */
  async publishKeys(keys: Record<TrustRootRole, string>, nowIso: string): Promise<Record<TrustRootRole, TrustRootKey[]>> {
    const pipeline = this.redis.pipeline();
    for (const [role, publicKey] of Object.entries(keys)) pipeline.hsetnx(this.keys.trustRootKeys(), `${role}:${publicKey}`, nowIso);
    await pipelineReplies(pipeline);
    const all = await this.redis.hgetall(this.keys.trustRootKeys());
    const out: Record<TrustRootRole, TrustRootKey[]> = { ack: [], anchor: [], keeper: [] };
    for (const [field, validFrom] of Object.entries(all)) {
      const [role, publicKey] = field.split(':') as [TrustRootRole, string];
      if (Object.hasOwn(out, role)) out[role].push({ publicKey, validFrom });
    }
    for (const list of Object.values(out)) list.sort((a, b) => Date.parse(a.validFrom) - Date.parse(b.validFrom) || a.publicKey.localeCompare(b.publicKey));
    return out;
  }

  /** The on-chain pointer for the key that committed bet `betPayloadHash`; null when unknown. */
  async sessionKeyPointer(betPayloadHash: string): Promise<SessionKeyPointer | null> {
    let [wallet, sessionPubkey] = await this.redis.hmget(this.keys.bet(betPayloadHash), 'wallet', 'sessionPubkey');
    if (!wallet || !sessionPubkey) {
      // A settled bet whose record left Redis (store/retention.ts) keeps only this.
      const kept = await this.redis.hget(this.keys.betSessionKeys(), betPayloadHash);
      [wallet, sessionPubkey] = kept ? kept.split(':') : [];
    }
    if (!wallet || !sessionPubkey) return null;
    const raw = await this.redis.hget(this.keys.sessionKeys(wallet as Address), sessionPubkey);
    if (!raw) return null;
    const state = JSON.parse(raw) as { signature?: unknown; slot?: unknown };
    if (typeof state.signature !== 'string') return null;
    return { betPayloadHash, sessionPubkey, signature: state.signature, slot: Number(state.slot) };
  }
}

const entryBytes = (text: string | Uint8Array): Uint8Array => (typeof text === 'string' ? utf8(text) : text);

/** Where full receipt bundle `index` is kept under TILES_DIR: the layout of its URL under `bet-log/`. */
const receiptBundlePath = (index: number): string => `receipts/${encodeTileIndex(index)}`;

/** A stored receipt: its body as text or as the bytes Redis sent, and its filled anchor (JSON text) or null. */
type StoredReceipt = { body: string | Buffer; anchor: string | null };

export const bundleJson = (stored: readonly StoredReceipt[]): string => `{"receipts":[${stored.map((r) => receiptJson(r.body, r.anchor)).join(',')}]}`;

/**
 * The UTF-8 bytes of {@link bundleJson}, written piece by piece into one buffer: the bundle's text as one string (about
 * 1.2 MB for 256 receipts, a large object for the collector) and its copy into a buffer cost 2.2 ms a bundle, this 0.8.
 * @param allocate gives a buffer of at least the bytes' size, which they are written at the start of
 */
export function bundleBytes(stored: readonly StoredReceipt[], allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const pieces: (string | Buffer)[] = ['{"receipts":['];
  stored.forEach((r, i) => {
    if (i > 0) pieces.push(',');
    receiptParts(r.body, r.anchor, pieces);
  });
  pieces.push(']}');
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  const bytes = allocate(length).subarray(0, length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? bytes.write(piece, at) : piece.copy(bytes, at);
  return bytes;
}

/**
 * A stored receipt with its filled anchor, as JSON text. The body is the receipt as written at settlement
 * (protocol/receipt.ts: the pending anchor, then createdAt, last); the anchor is spliced in place of the
 * pending one, and any body of another shape is parsed and rebuilt instead.
 */
export function receiptJson(body: string | Buffer, anchor: string | null): string {
  const parts: (string | Buffer)[] = [];
  receiptParts(typeof body === 'string' ? body : body.toString('utf8'), anchor, parts);
  return parts.join('');
}

const PENDING_ANCHOR = ',"anchor":{"status":"pending_commit"';
const CREATED_AT_TAIL_RE = /^,"createdAt":"[^"]*"\}$/;

/**
 * Pushes the pieces of a receipt's JSON with its anchor onto `out`: slices of the body as it came, text or bytes (the
 * markers are ASCII, so they sit at the same places in either).
 */
function receiptParts(body: string | Buffer, anchor: string | null, out: (string | Buffer)[]): void {
  if (!anchor) {
    out.push(body);
    return;
  }
  const at = body.lastIndexOf(PENDING_ANCHOR);
  const end = at < 0 ? -1 : body.indexOf('}', at) + 1;
  if (end > 0) {
    const [head, tail] = typeof body === 'string' ? [body.slice(0, at), body.slice(end)] : [body.subarray(0, at), body.subarray(end)];
    if (CREATED_AT_TAIL_RE.test(tail.toString())) {
      out.push(head, ',"anchor":', anchor, tail);
      return;
    }
  }
  const receipt = JSON.parse(body.toString()) as Record<string, unknown>;
  receipt.anchor = JSON.parse(anchor);
  out.push(JSON.stringify(receipt));
}

/** The bet-log entry of a stored receipt body: only that object is parsed when it can be found. */
export function entryOf(body: string): unknown {
  const key = '"betLogEntry":{';
  const at = body.indexOf(key);
  if (at >= 0) {
    let depth = 0;
    let inString = false;
    for (let i = at + key.length - 1; i < body.length; i++) {
      const c = body.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return JSON.parse(body.slice(at + key.length - 1, i + 1));
    }
  }
  return (JSON.parse(body) as { verifierPayload?: { betLogEntry?: unknown } }).verifierPayload?.betLogEntry;
}
