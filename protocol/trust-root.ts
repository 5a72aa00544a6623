/**
 * The trust root (design §11): the chain objects and operator keys a verifier pins once and never again
 * takes from the API it audits. `GET /api/protocol/v1/trust-root` serves it; a verifier pins it on first
 * use (or is given a file) and fails loudly when a later run sees a different one.
 * @module
 */
import { jcsSha256Hex } from './jcs.ts';

export const TRUST_ROOT_VERSION = 1;

export type TrustRootRole = 'ack' | 'anchor' | 'keeper';
export const TRUST_ROOT_ROLES: readonly TrustRootRole[] = ['ack', 'anchor', 'keeper'];

/** One operator key and the time from which it signs. */
export interface TrustRootKey {
  publicKey: string;
  validFrom: string;
}

export interface TrustRoot {
  version: number;
  protocol: 'pfws/v1';
  cluster: string;
  /** The cluster's genesis hash: an RPC of another cluster is refused. */
  genesisHash: string;
  usdcMint: string;
  /** The vault: the keeper key's USDC associated token account. */
  vaultTokenAccount: string;
  lpMint: string;
  memoProgram: string;
  /** The bet log's checkpoint origin, also the note key name of its signatures. */
  checkpointOrigin: string;
  /** Every key per role, oldest first; a key signs from its `validFrom` until the next one's. */
  keys: Record<TrustRootRole, TrustRootKey[]>;
}

const B58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates an untrusted trust-root document and returns it with exactly the known fields.
 * @throws {TypeError} naming the first field that is missing or malformed
 * @example parseTrustRoot(JSON.parse(readFileSync(file, 'utf8')))
 */
export function parseTrustRoot(json: unknown): TrustRoot {
  if (!isRecord(json)) throw new TypeError('the trust root is not an object');
  const str = (name: string, re?: RegExp): string => {
    const v = json[name];
    if (typeof v !== 'string' || v.length === 0 || v.length > 256 || (re && !re.test(v))) throw new TypeError(`trust root: ${name} is missing or malformed`);
    return v;
  };
  if (json.version !== TRUST_ROOT_VERSION) throw new TypeError(`trust root: version ${String(json.version)} is not ${TRUST_ROOT_VERSION}`);
  if (json.protocol !== 'pfws/v1') throw new TypeError('trust root: protocol is not pfws/v1');
  if (!isRecord(json.keys)) throw new TypeError('trust root: keys is missing');
  const keys = {} as Record<TrustRootRole, TrustRootKey[]>;
  for (const role of TRUST_ROOT_ROLES) {
    const list = json.keys[role];
    if (!Array.isArray(list) || list.length === 0 || list.length > 64) throw new TypeError(`trust root: keys.${role} must list 1…64 keys`);
    keys[role] = list.map((k, i) => {
      if (
        !isRecord(k) ||
        typeof k.publicKey !== 'string' ||
        !B58.test(k.publicKey) ||
        typeof k.validFrom !== 'string' ||
        !Number.isFinite(Date.parse(k.validFrom))
      ) {
        throw new TypeError(`trust root: keys.${role}[${i}] needs a base58 publicKey and an ISO validFrom`);
      }
      return { publicKey: k.publicKey, validFrom: k.validFrom };
    });
    for (let i = 1; i < keys[role].length; i++) {
      if (Date.parse(keys[role][i]!.validFrom) < Date.parse(keys[role][i - 1]!.validFrom)) throw new TypeError(`trust root: keys.${role} are not oldest first`);
    }
  }
  return {
    version: TRUST_ROOT_VERSION,
    protocol: 'pfws/v1',
    cluster: str('cluster', /^[a-z-]{1,32}$/),
    genesisHash: str('genesisHash', B58),
    usdcMint: str('usdcMint', B58),
    vaultTokenAccount: str('vaultTokenAccount', B58),
    lpMint: str('lpMint', B58),
    memoProgram: str('memoProgram', B58),
    checkpointOrigin: str('checkpointOrigin', /^[^\s+]+$/u),
    keys,
  };
}

/** sha256 of the trust root's canonical JSON, hex: what a user compares out of band. */
export const trustRootFingerprint = (root: TrustRoot): string => jcsSha256Hex(root);

/**
 * The fields in which two trust roots differ (empty when they are the same).
 * @example trustRootDifferences(pinned, served) // ['keys.anchor', 'vaultTokenAccount']
 */
export function trustRootDifferences(a: TrustRoot, b: TrustRoot): string[] {
  const out: string[] = [];
  for (const field of [
    'version',
    'protocol',
    'cluster',
    'genesisHash',
    'usdcMint',
    'vaultTokenAccount',
    'lpMint',
    'memoProgram',
    'checkpointOrigin',
  ] as const) {
    if (a[field] !== b[field]) out.push(field);
  }
  for (const role of TRUST_ROOT_ROLES) if (jcsSha256Hex(a.keys[role]) !== jcsSha256Hex(b.keys[role])) out.push(`keys.${role}`);
  return out;
}

/**
 * The key of `role` that signed at `at` (ISO time or ms): the newest whose validFrom is not later; the
 * oldest key when `at` precedes them all (a time the operator claims is never a reason to switch keys).
 */
export function keyAt(root: TrustRoot, role: TrustRootRole, at: string | number): string {
  const t = typeof at === 'number' ? at : Date.parse(at);
  const list = root.keys[role];
  let key = list[0] as TrustRootKey;
  for (const k of list) if (Number.isFinite(t) && Date.parse(k.validFrom) <= t) key = k;
  return key.publicKey;
}

/** Every public key of a role, oldest first. */
export const keysOf = (root: TrustRoot, role: TrustRootRole): string[] => root.keys[role].map((k) => k.publicKey);
