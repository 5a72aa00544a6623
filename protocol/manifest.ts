/**
 * Journal manifests (design §4): signed, chained checkpoints over the public journal.
 *
 * - A public event is `{ id, seq, type, at, data }`; its leaf is `sha256(0x00 ‖ JCS(event))`.
 * - `eventRoot` is the RFC 6962 root of the covered events' leaves, in journal order.
 * - `manifestHash` = sha256(JCS(manifest without `manifestHash` and `signature`)), lowercase hex.
 * - `signature` is the anchor key's Ed25519 signature (base64) over the UTF-8 bytes of
 *   `pfws:v1:manifest:<manifestHash>`.
 * - The first manifest names 64 zeros as `previousManifestHash`.
 * @module
 */
import { canonicalize, jcsSha256Hex } from './jcs.ts';
import { leafHashOfText, rootFromLeafHashes } from './merkle.ts';
import { isHex } from './encoding.ts';
import { toHex32, type Hex32 } from './hex32.ts';
import { manifestMessage, signText, verifyTextSignature } from './signatures.ts';

/** Format version carried in every manifest. */
export const MANIFEST_VERSION = 1;

/** The predecessor of the first manifest, and the manifest hash in a commit memo before any manifest. */
export const NO_MANIFEST_HASH = '0'.repeat(64);

/** A public journal event as served by `GET /api/protocol/v1/journal/events`. */
export interface JournalEvent {
  id: string;
  seq: number;
  type: string;
  at: string;
  data: unknown;
}

/** The hashed part of a manifest. */
export interface ManifestBody {
  version: number;
  eventCount: number;
  eventRoot: string;
  firstEventId: string;
  lastEventId: string;
  previousManifestHash: string;
  operatorPublicKey: string;
  createdAt: string;
}

/** A signed manifest, exactly the contract's fields. */
export interface Manifest extends ManifestBody {
  manifestHash: string;
  signature: string;
}

/**
 * RFC 6962 leaf hash of one public event, hex.
 * @throws {TypeError} when the event has no canonical JSON form
 * @example eventLeafHex({ id: '1-0', seq: 1, type: 'bet_settled', at: '…', data: {} })
 */
export const eventLeafHex = (event: JournalEvent): Hex32 => toHex32(eventLeaf(event));

const eventLeaf = (event: JournalEvent): Uint8Array => leafHashOfText(canonicalize(publicEvent(event)));

/** Only the five public fields are hashed, whatever else a source attached. */
const publicEvent = (e: JournalEvent): JournalEvent => ({ id: e.id, seq: e.seq, type: e.type, at: e.at, data: e.data });

/**
 * RFC 6962 root over the events' leaves, hex (the empty root for none).
 * @throws {TypeError} when an event has no canonical JSON form
 * @example eventRootHex(events)
 */
export const eventRootHex = (events: readonly JournalEvent[]): Hex32 => toHex32(rootFromLeafHashes(events.map(eventLeaf)));

/** The hashed fields of a manifest, in a fresh object (extra properties dropped). */
export function manifestBodyOf(m: ManifestBody): ManifestBody {
  const { version, eventCount, eventRoot, firstEventId, lastEventId, previousManifestHash, operatorPublicKey, createdAt } = m;
  return { version, eventCount, eventRoot, firstEventId, lastEventId, previousManifestHash, operatorPublicKey, createdAt };
}

/**
 * `manifestHash`: sha256 of the JCS of the body, hex.
 * @example manifestHashOf(body) // 64 hex chars
 */
export const manifestHashOf = (body: ManifestBody): Hex32 => jcsSha256Hex(manifestBodyOf(body));

/**
 * Builds the unsigned body over `events`, which must be non-empty and in journal order.
 * @throws {RangeError} when `events` is empty
 * @example buildManifestBody(events, NO_MANIFEST_HASH, anchorPublicKey, now.toISOString())
 */
export function buildManifestBody(events: readonly JournalEvent[], previousManifestHash: string, operatorPublicKey: string, createdAt: string): ManifestBody {
  const first = events[0];
  const last = events[events.length - 1];
  if (!first || !last) throw new RangeError('a manifest covers at least one event');
  return {
    version: MANIFEST_VERSION,
    eventCount: events.length,
    eventRoot: eventRootHex(events),
    firstEventId: first.id,
    lastEventId: last.id,
    previousManifestHash,
    operatorPublicKey,
    createdAt,
  };
}

/**
 * Hashes and signs a body with the anchor key's 32-byte seed. Ed25519 is deterministic, so signing
 * the same body twice yields the same manifest.
 * @example signManifest(body, operator.anchor.seed)
 */
export function signManifest(body: ManifestBody, anchorSeed: Uint8Array): Manifest {
  const clean = manifestBodyOf(body);
  const manifestHash = manifestHashOf(clean);
  return Object.assign(clean, { manifestHash, signature: signText(manifestMessage(manifestHash), anchorSeed) });
}

export type ManifestCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks a manifest's form, hash and signature against the published anchor key. Nothing throws.
 * @example verifyManifest(manifest, config.operatorPublicKey) // { ok: true }
 */
export function verifyManifest(manifest: unknown, operatorPublicKey: string): ManifestCheck {
  const shape = manifestShapeError(manifest);
  if (shape) return { ok: false, reason: shape };
  const m = manifest as Manifest;
  if (m.version !== MANIFEST_VERSION) return { ok: false, reason: `unsupported manifest version ${m.version}` };
  if (m.operatorPublicKey !== operatorPublicKey) return { ok: false, reason: 'operatorPublicKey is not the published anchor key' };
  let hash: string;
  try {
    hash = manifestHashOf(m);
  } catch {
    return { ok: false, reason: 'manifest has no canonical JSON form' };
  }
  if (hash !== m.manifestHash) return { ok: false, reason: 'manifestHash is not sha256 of the JCS of the manifest body' };
  if (!verifyTextSignature(m.signature, manifestMessage(hash), operatorPublicKey)) {
    return { ok: false, reason: 'signature does not verify under the anchor key' };
  }
  return { ok: true };
}

function manifestShapeError(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'manifest is not an object';
  const m = value as Record<string, unknown>;
  const ints = ['version', 'eventCount'] as const;
  for (const k of ints) if (typeof m[k] !== 'number' || !Number.isSafeInteger(m[k]) || (m[k] as number) < 0) return `${k} is not a non-negative integer`;
  const hashes = ['eventRoot', 'previousManifestHash', 'manifestHash'] as const;
  for (const k of hashes) if (!isHex(m[k], 32)) return `${k} is not 32 bytes of lowercase hex`;
  const strings = ['firstEventId', 'lastEventId', 'operatorPublicKey', 'signature', 'createdAt'] as const;
  for (const k of strings) if (typeof m[k] !== 'string') return `${k} is not a string`;
  return null;
}
