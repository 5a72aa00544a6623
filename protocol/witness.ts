/**
 * Witness cosignatures of the bet log's checkpoint (c2sp.org/tlog-cosignature, c2sp.org/tlog-witness): a
 * witness vkey `<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 public key)>`, the cosignature/v1 message it signs,
 * and the count of witnesses whose cosignature line on a note verifies. Pure; parses hostile input defensively.
 * @module
 */
import { ed25519Sign, ed25519Verify, sha256 } from './crypto.ts';
import { bytesEqual, concatBytes, fromBase64, toBase64, u64be, utf8 } from './encoding.ts';
import { isKeyName } from './signed-note.ts';

/** The signature type of a cosignature/v1 key (c2sp.org/tlog-cosignature). */
export const COSIGNATURE_V1 = 0x04;
const SIGNATURE_PREFIX = '\u2014 ';

export interface WitnessKey {
  name: string;
  publicKey: Uint8Array;
  /** The 4-byte key ID: SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4]. */
  keyId: Uint8Array;
}

export const witnessKeyId = (name: string, publicKey: Uint8Array): Uint8Array =>
  sha256(concatBytes(utf8(name), new Uint8Array([0x0a, COSIGNATURE_V1]), publicKey)).slice(0, 4);

/**
 * Parses a witness verifier key.
 * @throws {TypeError} when it is not `<name>+<8 hex>+<base64(0x04 ‖ 32 bytes)>` with a matching key ID
 */
export function parseWitnessKey(vkey: string): WitnessKey {
  // The key's base64 may itself hold `+`: the name ends at the first one, the ID is the next 8 characters.
  const m = /^([^+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(vkey);
  if (!m || !isKeyName(m[1])) throw new TypeError('a witness key is <name>+<hex key ID>+<base64 key>');
  const [, name, id, encoded] = m as unknown as [string, string, string, string];
  let key: Uint8Array;
  try {
    key = fromBase64(encoded, 33);
  } catch {
    throw new TypeError('a witness key ends in base64 of 33 bytes');
  }
  if (key[0] !== COSIGNATURE_V1) throw new TypeError('a witness key is a cosignature/v1 (0x04) Ed25519 key');
  const publicKey = key.slice(1);
  const keyId = witnessKeyId(name, publicKey);
  if (Array.from(keyId, (b) => b.toString(16).padStart(2, '0')).join('') !== id) throw new TypeError('the witness key ID does not match its name and key');
  return { name, publicKey, keyId };
}

/** The vkey string of a witness key. */
export const witnessKeyString = (name: string, publicKey: Uint8Array): string =>
  `${name}+${Array.from(witnessKeyId(name, publicKey), (b) => b.toString(16).padStart(2, '0')).join('')}+${toBase64(concatBytes(new Uint8Array([COSIGNATURE_V1]), publicKey))}`;

/** What a witness signs: `cosignature/v1`, `time <seconds>`, then the checkpoint's note text. */
export const cosignatureMessage = (checkpointText: string, timestamp: bigint): Uint8Array => utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);

/** A witness's cosignature line for a checkpoint text (what an add-checkpoint answer holds). */
export function cosignatureLine(checkpointText: string, name: string, seed: Uint8Array, publicKey: Uint8Array, timestamp: bigint): string {
  const signature = ed25519Sign(cosignatureMessage(checkpointText, timestamp), seed);
  return `${SIGNATURE_PREFIX}${name} ${toBase64(concatBytes(witnessKeyId(name, publicKey), u64be(timestamp), signature))}`;
}

/** Whether `line` is a cosignature/v1 of `checkpointText` by `witness`. */
export function verifyCosignatureLine(line: string, checkpointText: string, witness: WitnessKey): boolean {
  if (!line.startsWith(`${SIGNATURE_PREFIX}${witness.name} `)) return false;
  let blob: Uint8Array;
  try {
    blob = fromBase64(line.slice(SIGNATURE_PREFIX.length + witness.name.length + 1));
  } catch {
    return false;
  }
  if (blob.length !== 4 + 8 + 64 || !bytesEqual(blob.subarray(0, 4), witness.keyId)) return false;
  let timestamp = 0n;
  for (const b of blob.subarray(4, 12)) timestamp = (timestamp << 8n) | BigInt(b);
  return ed25519Verify(blob.subarray(12), cosignatureMessage(checkpointText, timestamp), witness.publicKey);
}

/**
 * The witnesses (by name) whose cosignature on the signed checkpoint `note` verifies. Lines by other keys are
 * ignored, as signed notes ask.
 */
export function cosigningWitnesses(note: string, witnesses: readonly WitnessKey[]): string[] {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return [];
  const text = note.slice(0, split + 1);
  const lines = note
    .slice(split + 2)
    .split('\n')
    .slice(0, 64);
  return witnesses.filter((w) => lines.some((line) => verifyCosignatureLine(line, text, w))).map((w) => w.name);
}
