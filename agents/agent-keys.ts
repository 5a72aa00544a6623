/**
 * The agent session key of design §9: an agent cannot sign, so the service holds one Ed25519 session key per
 * wallet for it. The seed is sealed at rest with AES-256-GCM (node:crypto) under a key kept in KEYS_DIR, bound to
 * its wallet and public key; it is opened only in this process, to sign that wallet's MCP plays.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ed25519PublicKey } from '../protocol/crypto.ts';
import { fromBase64, fromHex, toBase58, toBase64, utf8 } from '../protocol/encoding.ts';
import { signBytes, signText } from '../protocol/signatures.ts';
import type { AgentStore } from '../store/agents.ts';
import type { LedgerStore } from '../store/ledger.ts';
import type { Address, Base58Key } from '../protocol/address.ts';

const SEALED_VERSION = 1;
/** Decrypted keys kept in memory: a wallet's key never changes once made, so a cached one is never stale. */
const CACHE_SIZE = 10_000;

/** A wallet's agent key, able to sign what the lifecycle asks a session key to sign. */
export interface AgentKey {
  sessionPubkey: Base58Key;
  /** The commit signature: Ed25519 over the 32 raw bytes of betPayloadHash, base64. */
  signHash(betPayloadHashHex: string): string;
  /** The reveal signature: Ed25519 over the UTF-8 bytes of `ack.revealMessage`, base64. */
  signText(text: string): string;
}

/** Whether the wallet's setup memo authorized the agent key, and what the wallet owner does about it. */
export interface AgentKeyStatus {
  sessionPubkey: Base58Key;
  authorized: boolean;
  /** `not_authorized` until a setup memo names the key; `revoked` after a revoke memo (a later setup re-authorizes it). */
  status: 'not_authorized' | 'active' | 'revoked';
}

interface Sealed {
  v: number;
  sessionPubkey: Base58Key;
  iv: string;
  tag: string;
  seed: string;
}

export interface AgentKeysDeps {
  store: AgentStore;
  ledger: Pick<LedgerStore, 'sessionKey'>;
  /** The 32-byte AES-256-GCM key (`KEYS_DIR/agent.secret`); null on hosts that serve no agent (not an API host). */
  sealingKey: Uint8Array | null;
}

/** The additional data a sealed seed is bound to, so a sealed key copied to another wallet does not open. */
const aadOf = (wallet: string, sessionPubkey: string) => utf8(`pfws:agent-key:v${SEALED_VERSION}:${wallet}:${sessionPubkey}`);

export class AgentKeys {
  readonly #cache = new Map<Address, AgentKey>();
  /** Public keys read without opening the seed; like the keys themselves, never stale once made. */
  readonly #publicKeys = new Map<Address, Base58Key>();

  readonly #sealingKey: Uint8Array | null;

  constructor(readonly deps: AgentKeysDeps) {
    if (deps.sealingKey && deps.sealingKey.length !== 32) throw new Error('the agent sealing key must be 32 bytes (AES-256-GCM)');
    this.#sealingKey = deps.sealingKey;
  }

  get #key(): Uint8Array {
    if (!this.#sealingKey) throw new Error('the agent sealing key (KEYS_DIR/agent.secret) is not on this host');
    return this.#sealingKey;
  }

  /** The wallet's agent key, made and stored (sealed) on first use. */
  async key(wallet: Address): Promise<AgentKey> {
    const cached = this.#cache.get(wallet);
    if (cached) return cached;
    const sealed = (await this.deps.store.sealedKey(wallet)) ?? (await this.deps.store.saveSealedKey(wallet, this.#seal(wallet, randomBytes(32))));
    const key = this.#open(wallet, sealed);
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value as Address);
    this.#cache.set(wallet, key);
    return key;
  }

  /**
   * The public key of the wallet's agent key, or null before one is made; never makes one. A key exists before its
   * public key is shown to anyone, so a request naming it always finds it.
   */
  async publicKeyOf(wallet: Address): Promise<Base58Key | null> {
    const known = this.#cache.get(wallet)?.sessionPubkey ?? this.#publicKeys.get(wallet);
    if (known) return known;
    const sealed = await this.deps.store.sealedKey(wallet);
    if (sealed === null) return null;
    const { sessionPubkey } = JSON.parse(sealed) as Sealed;
    if (this.#publicKeys.size >= CACHE_SIZE) this.#publicKeys.delete(this.#publicKeys.keys().next().value as Address);
    this.#publicKeys.set(wallet, sessionPubkey);
    return sessionPubkey;
  }

  /** The agent key's public key and whether the wallet authorized it on-chain; makes the key on first call. */
  async status(wallet: Address): Promise<AgentKeyStatus> {
    const { sessionPubkey } = await this.key(wallet);
    const state = await this.deps.ledger.sessionKey(wallet, sessionPubkey);
    const status = state === null ? 'not_authorized' : state.status;
    return { sessionPubkey, authorized: status === 'active', status };
  }

  #seal(wallet: Address, seed: Uint8Array): string {
    const sessionPubkey = toBase58(ed25519PublicKey(seed)) as Base58Key;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(aadOf(wallet, sessionPubkey));
    const ciphertext = Buffer.concat([cipher.update(seed), cipher.final()]);
    const sealed: Sealed = { v: SEALED_VERSION, sessionPubkey, iv: toBase64(iv), tag: toBase64(cipher.getAuthTag()), seed: toBase64(ciphertext) };
    return JSON.stringify(sealed);
  }

  /** @throws when the record was not sealed for this wallet under this service's key, or was altered */
  #open(wallet: Address, text: string): AgentKey {
    const sealed = JSON.parse(text) as Sealed;
    if (sealed.v !== SEALED_VERSION) throw new Error(`agent key of ${wallet}: unknown sealed format ${String(sealed.v)}`);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, fromBase64(sealed.iv, 12));
    decipher.setAAD(aadOf(wallet, sealed.sessionPubkey));
    decipher.setAuthTag(fromBase64(sealed.tag, 16));
    const seed = new Uint8Array(Buffer.concat([decipher.update(fromBase64(sealed.seed, 32)), decipher.final()]));
    if (toBase58(ed25519PublicKey(seed)) !== sealed.sessionPubkey) throw new Error(`agent key of ${wallet}: the seed does not match its public key`);
    return {
      sessionPubkey: sealed.sessionPubkey,
      signHash: (hex) => signBytes(fromHex(hex, 32), seed),
      signText: (message) => signText(message, seed),
    };
  }
}
