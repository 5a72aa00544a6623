// The CPU-heavy half of a bulk audit, for one tile: the entry bundle's leaves, and each receipt inspected
// (signatures, rebuild, inclusion). It runs in a worker thread, or inline; input and output are plain data.
// The result is packed for the trip back: what repeats from receipt to receipt (a passing receipt's list
// of checks, the commit its anchor names) is sent once per tile, so copying it costs little on either side.
import { TILE_WIDTH, decodeEntryBundle } from '../protocol/tlog-tiles.ts';
import { leafHashHex } from '../protocol/merkle.ts';
import { keyAt, type TrustRootKey } from '../protocol/trust-root.ts';
import { NodeMemo } from '../protocol/verify/proofs.ts';
import type { Check } from '../protocol/verify/report.ts';
import type { CheckName } from '../protocol/verify/check-names.ts';
import { inspectReceipt, type ReceiptInspection } from '../protocol/verify/receipt.ts';
import type { AnchorClaim } from '../protocol/verify/anchor.ts';
import { ApiClient, type BodyBuffer } from './http.ts';
import { readBundle } from './tiles.ts';

export interface ReadProblem {
  error: string;
  withheld: boolean;
}

/** A tile to read from the API and inspect: what a worker thread is handed. */
export interface TileTask {
  /** The API's base URL. */
  api: string;
  /** First entry index of the tile. */
  start: number;
  width: number;
  /** First entry to inspect (`start` unless the audit resumes inside this tile). */
  from: number;
  ackKeys: TrustRootKey[];
}

export interface BundleTask {
  /** First entry index of the tile. */
  start: number;
  width: number;
  /** First entry to inspect (`start` unless the audit resumes inside this tile). */
  from: number;
  /** The entry bundle, or why it could not be read. */
  entries: Uint8Array | ReadProblem;
  /** The receipt bundle (JSON, UTF-8), or why it could not be read. */
  receipts: Uint8Array | ReadProblem;
  ackKeys: TrustRootKey[];
}

/** An inspection with its shared parts replaced by indices into the tile's tables. */
type PackedInspection = [
  /** null: `receipt <receiptId>`. */
  subject: string | null,
  receiptId: string | null,
  checks: number,
  /** true: the entry's own leaf, as an honest receipt's is. */
  leafHex: string | null | true,
  anchor: number,
  betLogIndex: number,
  /** [check, head, index, value] repeated. */
  rngLinks: (string | number)[],
  /** [head, index] repeated. */
  rngUses: (string | number)[],
  /** [check, sessionPubkey, betPayloadHash, committedAt] repeated. */
  sessionKeys: string[],
];

export interface BundleResult {
  start: number;
  /** Leaf hash of each entry from `from` on; null when the bundle could not be read. */
  leaves: string[] | null;
  /** One packed inspection per entry from `from` on (null: no receipt); null when the receipts could not be read. */
  packed: (PackedInspection | null)[] | null;
  checkLists: Check[][];
  anchors: SharedAnchor[];
  problem: { reason: string; withheld: boolean } | null;
}

const decoder = new TextDecoder();

/** Interns values by a key: each distinct one is stored once, and referred to by its index. */
class Table<T> {
  readonly list: T[] = [];
  readonly #index = new Map<string, number>();
  of(key: string, value: () => T): number {
    let i = this.#index.get(key);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(value());
      this.#index.set(key, i);
    }
    return i;
  }
}

const sameChecks = (a: readonly Check[], b: readonly Check[]): boolean =>
  a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.status === b[i]!.status && c.reason === b[i]!.reason);

type SharedAnchor = Omit<AnchorClaim, 'betLogIndex'>;

const sameAnchor = (a: SharedAnchor, b: SharedAnchor): boolean =>
  a.entryCount === b.entryCount &&
  a.betLogRoot === b.betLogRoot &&
  a.stateRoot === b.stateRoot &&
  a.commitAccount === b.commitAccount &&
  a.commitSignature === b.commitSignature;

/** Packs inspections one after another; most receipts have the very checks and commit of the one before. */
function packer(checkLists: Table<Check[]>, anchors: Table<SharedAnchor>): (x: ReceiptInspection, leafHex: string | undefined) => PackedInspection {
  let lastChecks: { list: Check[]; index: number } | null = null;
  let lastAnchor: { shared: SharedAnchor; index: number } | null = null;
  return (x, leafHex) => {
    let checks: number;
    if (lastChecks && sameChecks(x.checks, lastChecks.list)) checks = lastChecks.index;
    else {
      let key = '';
      for (const c of x.checks) key += `${c.name}\u0000${c.status}\u0000${c.reason ?? ''}\u0001`;
      checks = checkLists.of(key, () => x.checks);
      lastChecks = { list: x.checks, index: checks };
    }
    let anchor = -1;
    if (x.anchor) {
      const { betLogIndex: _, ...shared } = x.anchor;
      if (lastAnchor && sameAnchor(shared, lastAnchor.shared)) anchor = lastAnchor.index;
      else {
        anchor = anchors.of(JSON.stringify(shared), () => shared);
        lastAnchor = { shared, index: anchor };
      }
    }
    return pack(x, checks, anchor, leafHex);
  };
}

const subjectOf = (receiptId: string | null): string => `receipt ${receiptId ?? '?'}`;

function pack(x: ReceiptInspection, checks: number, anchor: number, leafHex: string | undefined): PackedInspection {
  return [
    x.subject === subjectOf(x.receiptId) ? null : x.subject,
    x.receiptId,
    checks,
    x.leafHex !== null && x.leafHex === leafHex ? true : x.leafHex,
    anchor,
    x.anchor?.betLogIndex ?? -1,
    flat(x.rngLinks, (l, out) => out.push(l.check, l.head, l.index, l.value)),
    flat(x.rngUses, (u, out) => out.push(u.head, u.index)),
    flat(x.sessionKeys, (k, out) => out.push(k.check, k.sessionPubkey, k.betPayloadHash, k.committedAt)),
  ];
}

// What flatMap does, without an array per item (three lists a receipt).
function flat<T, V>(items: readonly T[], put: (item: T, out: V[]) => void): V[] {
  const out: V[] = [];
  for (const item of items) put(item, out);
  return out;
}

/**
 * The inspection of entry `i` (counted from `from`) of a result, rebuilt. Its `checks` list is shared with
 * other receipts of the tile: read it, never change it.
 */
export function unpackInspection(result: BundleResult, i: number): ReceiptInspection | null {
  const p = result.packed?.[i];
  if (!p) return null;
  const [subject, receiptId, checks, leafHex, anchor, betLogIndex, links, uses, keys] = p;
  const rngLinks: ReceiptInspection['rngLinks'] = [];
  for (let k = 0; k < links.length; k += 4)
    rngLinks.push({ check: links[k] as CheckName, head: links[k + 1] as string, index: links[k + 2] as number, value: links[k + 3] as string });
  const rngUses: ReceiptInspection['rngUses'] = [];
  for (let k = 0; k < uses.length; k += 2) rngUses.push({ head: uses[k] as string, index: uses[k + 1] as number });
  const sessionKeys: ReceiptInspection['sessionKeys'] = [];
  for (let k = 0; k < keys.length; k += 4)
    sessionKeys.push({
      check: keys[k] as CheckName,
      sessionPubkey: keys[k + 1] as string,
      betPayloadHash: keys[k + 2] as string,
      committedAt: keys[k + 3] as string,
    });
  return {
    subject: subject ?? subjectOf(receiptId),
    receiptId,
    checks: result.checkLists[checks] as Check[],
    leafHex: leafHex === true ? (result.leaves?.[i] as string) : leafHex,
    rngLinks,
    rngUses,
    sessionKeys,
    anchor: anchor < 0 ? null : Object.assign({}, result.anchors[anchor] as SharedAnchor, { betLogIndex }),
  };
}

const PREFIX = Buffer.from('{"receipts":[');
const SUFFIX = Buffer.from(']}');
const SEPARATOR = Buffer.from('},{');

/**
 * The receipts of a bundle laid out as the service writes it (`{"receipts":[…]}`, compact), each as its own
 * JSON text, split where one receipt object ends and the next begins; null for any other layout. A split
 * inside a string or a nested value leaves a text that is not one JSON value, so its parse throws: when
 * every text parses, they are exactly the array's items. Each text is decoded only when it is parsed, and
 * dropped after: a tile's megabyte of strings held at once would be copied by every young-generation
 * collection while the tile is checked.
 */
function receiptTexts(bytes: Uint8Array, width: number): ((i: number) => string) | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = buf.length - SUFFIX.length;
  if (end < PREFIX.length || !buf.subarray(0, PREFIX.length).equals(PREFIX) || !buf.subarray(end).equals(SUFFIX)) return null;
  // Text i is bytes [bounds[i], bounds[i + 1] - 1): each stop is followed by one comma, or is the end.
  const bounds = new Int32Array(width + 1);
  let at = PREFIX.length;
  for (let i = 0; i < width; i++) {
    bounds[i] = at;
    const split = buf.indexOf(SEPARATOR, at);
    const stop = split < 0 || split >= end ? end : split + 1;
    if ((stop === end) !== (i === width - 1)) return null;
    at = stop + 1;
  }
  bounds[width] = at;
  return (i) => buf.toString('utf8', bounds[i] as number, (bounds[i + 1] as number) - 1);
}

export function inspectBundle(task: BundleTask): BundleResult {
  const out: BundleResult = { start: task.start, leaves: null, packed: null, checkLists: [], anchors: [], problem: null };
  const skip = task.from - task.start;
  const count = task.width - skip;
  if (task.entries instanceof Uint8Array) {
    try {
      out.leaves = decodeEntryBundle(task.entries, task.width)
        .slice(skip)
        .map((e) => leafHashHex(e));
    } catch (err) {
      out.problem = { reason: `the entry bundle is malformed: ${(err as Error).message}`, withheld: true };
      return out;
    }
  } else {
    out.problem = { reason: task.entries.error, withheld: task.entries.withheld };
    return out;
  }
  if (!(task.receipts instanceof Uint8Array)) {
    out.problem = { reason: task.receipts.error, withheld: task.receipts.withheld };
    out.packed = Array.from({ length: count }, () => null);
    return out;
  }
  // Ack keys come from the pinned trust root: a receipt can never choose the key its ack is checked with.
  const ackRoot = { keys: { ack: task.ackKeys, anchor: [], keeper: [] } } as unknown as Parameters<typeof keyAt>[0];
  // With one ack key, keyAt gives it for every time: it is handed as is, with no date parsed per entry.
  const only = task.ackKeys.length === 1 ? (task.ackKeys[0] as TrustRootKey).publicKey : null;
  const ctx = { ackPublicKey: only ?? ((at: string) => keyAt(ackRoot, 'ack', at)) };
  const inspectAll = (receiptAt: (i: number) => unknown): void => {
    const memo = new NodeMemo();
    const checkLists = new Table<Check[]>();
    const anchors = new Table<SharedAnchor>();
    const packNext = packer(checkLists, anchors);
    out.packed = Array.from({ length: count }, (_, i) => packNext(inspectReceipt(receiptAt(skip + i), ctx, { bulk: true, memo }), out.leaves?.[i]));
    out.checkLists = checkLists.list;
    out.anchors = anchors.list;
  };
  const text = receiptTexts(task.receipts, task.width);
  if (text) {
    try {
      // The receipts before `from` are not inspected, but must parse like the rest (the bundle is one document).
      for (let i = 0; i < skip; i++) JSON.parse(text(i));
      inspectAll((i) => JSON.parse(text(i)));
      return out;
    } catch {
      // not the items of one JSON array after all: the whole document decides below
    }
  }
  let receipts: unknown;
  try {
    receipts = (JSON.parse(decoder.decode(task.receipts)) as { receipts?: unknown }).receipts;
  } catch {
    receipts = null;
  }
  const list = Array.isArray(receipts) && receipts.length === task.width ? receipts : null;
  if (list) inspectAll((i) => list[i]);
  else {
    out.packed = Array.from({ length: count }, () => null);
    out.checkLists = [];
    out.anchors = [];
    out.problem = { reason: `the receipt bundle does not hold ${task.width} receipts`, withheld: true };
  }
  return out;
}

// Buffers bodies are read into, kept for the next tile: a thread reads a tile's megabyte about once a millisecond.
const spare: Uint8Array[] = [];
const clients = new Map<string, ApiClient>();

/** Reads a tile's entry and receipt bundles and inspects them (on a worker thread, or inline with `api`). */
export async function inspectTile(task: TileTask, api?: ApiClient): Promise<BundleResult> {
  let client = api ?? clients.get(task.api);
  if (!client) {
    client = new ApiClient(task.api);
    clients.set(task.api, client);
  }
  const taken: Uint8Array[] = [];
  const into: BodyBuffer = (length) => {
    const at = spare.findIndex((b) => b.length >= length);
    const buffer = at < 0 ? new Uint8Array(Math.max(Math.ceil(length * 1.25), 64 * 1024)) : (spare.splice(at, 1)[0] as Uint8Array);
    taken.push(buffer);
    return buffer.subarray(0, length);
  };
  try {
    const bundles = await readBundle(client, task.start / TILE_WIDTH, task.width, into);
    return inspectBundle({ ...task, ...bundles });
  } finally {
    spare.push(...taken);
  }
}
