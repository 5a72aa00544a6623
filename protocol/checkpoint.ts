/**
 * The bet log's C2SP tlog-checkpoint: `<origin>\n<tree size>\n<base64 root>\n`, signed as a signed note by
 * the anchor key under the key name `<origin>` (c2sp.org/tlog-checkpoint), so standard witnesses can
 * cosign it. The worker signs one per commit; verifiers compare it with the roots they rebuild.
 * @module
 */
import { HASH_LENGTH } from './merkle.ts';
import { fromBase58, fromBase64, fromHex, toBase64, toHex } from './encoding.ts';
import { isKeyName, openNote, signNote } from './signed-note.ts';

export interface Checkpoint {
  origin: string;
  size: number;
  /** Root hash, lowercase hex (as the commit memo writes it). */
  rootHex: string;
}

/**
 * The checkpoint origin of a deployment: its public URL without the scheme, then the log's path. The
 * port is left out so the log keeps its identity when it moves port.
 * @example checkpointOrigin('https://pfws.example/') // 'pfws.example/api/protocol/v1/bet-log'
 */
export function checkpointOrigin(publicBaseUrl: string | undefined): string {
  let host = 'localhost';
  if (publicBaseUrl) {
    const url = new URL(publicBaseUrl);
    host = `${url.hostname}${url.pathname.replace(/\/+$/, '')}`;
  }
  return `${host}/api/protocol/v1/bet-log`;
}

/** The note text of a checkpoint. */
export function checkpointText(c: Checkpoint): string {
  if (!isKeyName(c.origin)) throw new TypeError('the origin must be a valid key name');
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new RangeError('size must be a non-negative integer');
  return `${c.origin}\n${c.size}\n${toBase64(fromHex(c.rootHex, HASH_LENGTH))}\n`;
}

/**
 * Signs a checkpoint with the anchor key (32-byte seed and base58 public key).
 * @example signCheckpoint({ origin, size: 5, rootHex }, anchor.seed, anchor.publicKey)
 */
export function signCheckpoint(c: Checkpoint, seed: Uint8Array, publicKeyB58: string): string {
  return signNote(checkpointText(c), c.origin, seed, fromBase58(publicKeyB58, 32));
}

export type CheckpointResult = { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string };

/**
 * Verifies a signed checkpoint of `origin` by the anchor key and parses it. Nothing throws.
 * @example openCheckpoint(body, trustRoot.checkpointOrigin, anchorPublicKey)
 */
export function openCheckpoint(note: unknown, origin: string, anchorPublicKeyB58: string): CheckpointResult {
  let publicKey: Uint8Array;
  try {
    publicKey = fromBase58(anchorPublicKeyB58, 32);
  } catch {
    return { ok: false, reason: 'the anchor key is not base58' };
  }
  const opened = openNote(note, [{ name: origin, publicKey }]);
  if (!opened.ok) return opened;
  const lines = opened.text.slice(0, -1).split('\n');
  if (lines.length < 3) return { ok: false, reason: 'a checkpoint has at least three lines' };
  const [first, sizeLine, rootLine] = lines as [string, string, string];
  if (first !== origin) return { ok: false, reason: `the checkpoint is for ${JSON.stringify(first)}, not ${origin}` };
  if (!/^(0|[1-9]\d{0,15})$/.test(sizeLine) || !Number.isSafeInteger(Number(sizeLine))) return { ok: false, reason: 'the tree size is not a decimal integer' };
  let root: Uint8Array;
  try {
    root = fromBase64(rootLine, HASH_LENGTH);
  } catch {
    return { ok: false, reason: 'the root is not 32 bytes of base64' };
  }
  return { ok: true, checkpoint: { origin, size: Number(sizeLine), rootHex: toHex(root) } };
}
