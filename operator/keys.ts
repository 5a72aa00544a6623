// Operator keys, one per role (design §3), stored as Solana CLI keypair files (64-byte JSON arrays).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { ed25519PublicKey } from '../protocol/crypto.ts';
import { concatBytes, toBase58 } from '../protocol/encoding.ts';
import { isBase58Key, type Base58Key } from '../protocol/address.ts';

export const OPERATOR_ROLES = ['ack', 'anchor', 'keeper'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number] | 'faucet' | 'x402';

export interface OperatorKey {
  /** 32-byte Ed25519 seed, used by the protocol's signers. */
  seed: Uint8Array;
  publicKey: Base58Key;
  signer: KeyPairSigner;
}

function keypairBytes(seed: Uint8Array): Uint8Array {
  return concatBytes(seed, ed25519PublicKey(seed));
}

async function fromBytes(bytes: Uint8Array, file: string): Promise<OperatorKey> {
  if (bytes.length !== 64) throw new Error(`${file} is not a 64-byte keypair`);
  const seed = bytes.slice(0, 32);
  if (toBase58(ed25519PublicKey(seed)) !== toBase58(bytes.slice(32))) throw new Error(`${file}: public key does not match`);
  return { seed, publicKey: toBase58(bytes.slice(32)) as Base58Key, signer: await createKeyPairSignerFromBytes(bytes) };
}

/** A key whose secret lives on another host: using the secret fails loudly, the public key works. */
function publicOnly(role: OperatorRole, publicKey: Base58Key): OperatorKey {
  const missing = (): never => {
    throw new Error(`the ${role} key's secret is not on this host (only ${role}.pub in KEYS_DIR)`);
  };
  return {
    publicKey,
    get seed() {
      return missing();
    },
    get signer() {
      return missing();
    },
  };
}

/**
 * Loads `<dir>/<role>.json` (a keypair), or `<dir>/<role>.pub` (base58 public key only) on hosts that must
 * not hold that secret; creates the keypair when `create` is set (localnet only).
 * @throws when neither file exists and may not be created, or a file is malformed
 */
export async function loadOperatorKey(dir: string, role: OperatorRole, create: boolean): Promise<OperatorKey> {
  const file = path.join(dir, `${role}.json`);
  const pub = path.join(dir, `${role}.pub`);
  if (!existsSync(file) && existsSync(pub)) {
    const publicKey = readFileSync(pub, 'utf8').trim();
    if (!isBase58Key(publicKey)) throw new Error(`${pub} must hold a base58 public key of 32 bytes`);
    return publicOnly(role, publicKey);
  }
  if (!existsSync(file)) {
    if (!create) throw new Error(`operator key ${file} (or ${role}.pub) is missing (set KEYS_DIR)`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(Array.from(keypairBytes(randomBytes(32)))), { mode: 0o600 });
  }
  const bytes = Uint8Array.from(JSON.parse(readFileSync(file, 'utf8')) as number[]);
  return fromBytes(bytes, file);
}

/** A 32-byte service secret (aliases, state-tree salts), created on first use. */
export function loadSecret(dir: string, name: string, create: boolean): Uint8Array {
  const file = path.join(dir, `${name}.secret`);
  if (!existsSync(file)) {
    if (!create) throw new Error(`secret ${file} is missing (set KEYS_DIR)`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  const bytes = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  if (bytes.length !== 32) throw new Error(`${file} must hold 32 bytes of hex`);
  return new Uint8Array(bytes);
}

export interface OperatorKeys {
  ack: OperatorKey;
  anchor: OperatorKey;
  keeper: OperatorKey;
}

export async function loadOperatorKeys(dir: string, create: boolean): Promise<OperatorKeys> {
  const [ack, anchor, keeper] = await Promise.all(OPERATOR_ROLES.map((role) => loadOperatorKey(dir, role, create)));
  return { ack: ack!, anchor: anchor!, keeper: keeper! };
}
