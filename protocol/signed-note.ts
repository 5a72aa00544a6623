/**
 * C2SP signed notes with Ed25519 keys (c2sp.org/signed-note): a UTF-8 text ending in a newline, a blank
 * line, then lines `— <key name> base64(keyID ‖ signature)`. The key ID is the first four bytes of
 * `SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)`. Signatures by unknown keys are ignored, as the spec asks,
 * so witnesses can add cosignatures.
 * @module
 */
import { ed25519Sign, ed25519Verify, sha256 } from './crypto.ts';
import { bytesEqual, concatBytes, fromBase64, toBase64, utf8 } from './encoding.ts';

const ED25519_TYPE = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';
/** Upper bound on a note's size and signature count: notes come from untrusted servers. */
export const MAX_NOTE_BYTES = 64 * 1024;
export const MAX_NOTE_SIGNATURES = 64;

/** A verifier key: a name and its Ed25519 public key. */
export interface NoteKey {
  name: string;
  publicKey: Uint8Array;
}

/** A key name must be non-empty, with no Unicode space and no `+`. */
export const isKeyName = (name: unknown): name is string => typeof name === 'string' && name.length > 0 && !/[\s+]/u.test(name);

/**
 * The 4-byte key ID of an Ed25519 note key.
 * @example noteKeyId('example.com/log', publicKey) // Uint8Array(4)
 */
export function noteKeyId(name: string, publicKey: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8(name), new Uint8Array([0x0a, ED25519_TYPE]), publicKey)).slice(0, 4);
}

/**
 * The verifier key string `<name>+<hex key ID>+<base64(0x01 ‖ public key)>`, as note tools print it.
 * @example verifierKeyString({ name: 'example.com/log', publicKey })
 */
export function verifierKeyString(key: NoteKey): string {
  const id = Array.from(noteKeyId(key.name, key.publicKey), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${key.name}+${id}+${toBase64(concatBytes(new Uint8Array([ED25519_TYPE]), key.publicKey))}`;
}

/**
 * Signs a note text with an Ed25519 seed.
 * @throws {TypeError} when the text is not a valid note text or the name is not a valid key name
 * @example signNote('origin\n1\nAAAA…=\n', 'origin', seed)
 */
export function signNote(text: string, name: string, seed: Uint8Array, publicKey: Uint8Array): string {
  assertNoteText(text);
  if (!isKeyName(name)) throw new TypeError('invalid key name');
  const signature = ed25519Sign(utf8(text), seed);
  return `${text}\n${SIGNATURE_PREFIX}${name} ${toBase64(concatBytes(noteKeyId(name, publicKey), signature))}\n`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f]/;

function assertNoteText(text: string): void {
  if (!text.endsWith('\n')) throw new TypeError('a note text ends with a newline');
  // Control characters other than newline are forbidden; a lone CR would change what a reader sees.
  if (CONTROL_CHARACTERS.test(text)) throw new TypeError('a note text has no control characters other than newline');
}

export type NoteResult = { ok: true; text: string; signers: string[] } | { ok: false; reason: string };

/**
 * Opens a signed note with the trusted `keys`: every signature by a known key must verify, and at least
 * one must. Nothing throws.
 * @example openNote(body, [{ name: origin, publicKey }])
 */
export function openNote(note: unknown, keys: readonly NoteKey[]): NoteResult {
  if (typeof note !== 'string') return { ok: false, reason: 'the note is not text' };
  if (note.length > MAX_NOTE_BYTES) return { ok: false, reason: 'the note is too large' };
  if (CONTROL_CHARACTERS.test(note)) return { ok: false, reason: 'the note has control characters' };
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) return { ok: false, reason: 'the note has no signature block' };
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) return { ok: false, reason: 'the note has too many signatures' };
  const signers: string[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return { ok: false, reason: 'a signature line does not start with an em dash' };
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.lastIndexOf(' ');
    const name = rest.slice(0, space);
    if (space <= 0 || !isKeyName(name)) return { ok: false, reason: 'a signature line has no valid key name' };
    let blob: Uint8Array;
    try {
      blob = fromBase64(rest.slice(space + 1));
    } catch {
      return { ok: false, reason: 'a signature is not base64' };
    }
    if (blob.length < 5) return { ok: false, reason: 'a signature is too short' };
    const key = keys.find((k) => k.name === name && bytesEqual(noteKeyId(k.name, k.publicKey), blob.subarray(0, 4)));
    if (!key) continue;
    if (blob.length !== 68 || !ed25519Verify(blob.subarray(4), utf8(text), key.publicKey)) {
      return { ok: false, reason: `the signature by ${name} does not verify` };
    }
    signers.push(name);
  }
  if (!signers.length) return { ok: false, reason: 'no signature by a trusted key' };
  return { ok: true, text, signers };
}
