// A player as an outside client: its own keys, the public HTTP API and a stock @solana/kit RPC client.
import { randomBytes } from 'node:crypto';
import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  getBase64Encoder,
  signTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64 } from '@scure/base';
import { createHash } from 'node:crypto';
import { address, type Address } from '../../protocol/address.ts';

export interface Keypair {
  seed: Uint8Array;
  publicKey: string;
}

export function newKeypair(): Keypair {
  const seed = new Uint8Array(randomBytes(32));
  return { seed, publicKey: base58.encode(ed25519.getPublicKey(seed)) };
}

export const sign = (seed: Uint8Array, message: Uint8Array): string => base64.encode(ed25519.sign(message, seed));

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function http<T = any>(method: string, url: string, body?: unknown, token?: string): Promise<HttpResult<T>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as T) : (undefined as T), headers: res.headers };
}

export class Player {
  readonly wallet: Keypair = newKeypair();
  readonly session: Keypair = newKeypair();
  token = '';
  signer!: KeyPairSigner;

  constructor(
    readonly api: string,
    readonly rpcUrl: string,
  ) {}

  get address(): Address {
    return address(this.wallet.publicKey);
  }

  async init(): Promise<this> {
    const bytes = new Uint8Array(64);
    bytes.set(this.wallet.seed);
    bytes.set(ed25519.getPublicKey(this.wallet.seed), 32);
    this.signer = await createKeyPairSignerFromBytes(bytes);
    return this;
  }

  get<T = any>(path: string) {
    return http<T>('GET', `${this.api}${path}`, undefined, this.token);
  }

  post<T = any>(path: string, body: unknown = {}) {
    return http<T>('POST', `${this.api}${path}`, body, this.token);
  }

  async faucet(usdc = 1000, sol = 1): Promise<void> {
    const res = await http('POST', `${this.api}/dev/faucet`, { wallet: this.address, usdc, sol });
    if (res.status !== 200) throw new Error(`faucet: ${JSON.stringify(res.body)}`);
  }

  async login(): Promise<void> {
    const challenge = await http('GET', `${this.api}/wallet/challenge?wallet=${this.address}`);
    const message = challenge.body.message as string;
    const res = await http('POST', `${this.api}/wallet/session`, {
      walletAddress: this.address,
      message,
      signature: sign(this.wallet.seed, new TextEncoder().encode(message)),
    });
    if (res.status !== 200) throw new Error(`login: ${JSON.stringify(res.body)}`);
    this.token = res.body.token;
  }

  /** Signs a base64 unsigned transaction from the API and sends it through the RPC. */
  async signAndSend(transactionB64: string): Promise<string> {
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(transactionB64));
    const signed = await signTransaction([this.signer.keyPair], tx);
    const wire = getBase64EncodedWireTransaction(signed);
    const rpc = createSolanaRpc(this.rpcUrl);
    const signature = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    for (let i = 0; i < 100; i++) {
      const { value } = await rpc.getSignatureStatuses([signature]).send();
      if (value[0]?.confirmationStatus) {
        if (value[0].err) throw new Error(`transaction failed: ${JSON.stringify(value[0].err)}`);
        return signature;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('transaction not confirmed');
  }

  /** Setup with an optional deposit, then sync; `sessionPubkey` (default: this player's session key) is authorized. */
  async setup(amount = 100, sessionPubkey = this.session.publicKey): Promise<void> {
    const built = await this.post('/protocol/v1/player/setup-transaction', { amount, sessionPubkey });
    if (built.status !== 200) throw new Error(`setup: ${JSON.stringify(built.body)}`);
    await this.signAndSend(built.body.transaction);
    const synced = await this.post('/protocol/v1/player/sync');
    if (synced.status !== 200) throw new Error(`sync: ${JSON.stringify(synced.body)}`);
  }

  /** A full start: faucet, login, setup with a deposit. */
  async onboard(deposit = 100): Promise<this> {
    await this.init();
    await this.faucet(Math.max(deposit * 2, 10));
    await this.login();
    await this.setup(deposit);
    return this;
  }

  newSeed(): { clientSeedRaw: string; commitment: string } {
    const clientSeedRaw = randomBytes(32).toString('hex');
    return { clientSeedRaw, commitment: createHash('sha256').update(Buffer.from(clientSeedRaw, 'hex')).digest('hex') };
  }

  signHash(hashHex: string, key: Keypair = this.session): string {
    return sign(key.seed, Buffer.from(hashHex, 'hex'));
  }

  signText(text: string, key: Keypair = this.session): string {
    return sign(key.seed, new TextEncoder().encode(text));
  }

  async prepareDice(opts: { wager?: unknown; target?: unknown; direction?: unknown; commitment?: string; sessionPubkey?: string } = {}) {
    const seed = this.newSeed();
    const res = await this.post('/protocol/v1/dice/prepare', {
      commitment: opts.commitment ?? seed.commitment,
      sessionPubkey: opts.sessionPubkey ?? this.session.publicKey,
      direction: 'direction' in opts ? opts.direction : 'under',
      target: 'target' in opts ? opts.target : 50,
      wager: 'wager' in opts ? opts.wager : 1,
    });
    return { ...seed, res };
  }

  async commitDice(prepared: { betPayload: unknown; betPayloadHash: string; diceParams: unknown }, key: Keypair = this.session) {
    return this.post('/protocol/v1/dice/commit', { ...prepared, sessionSignature: this.signHash(prepared.betPayloadHash, key) });
  }

  async revealDice(betPayloadHash: string, clientSeedRaw: string, revealMessage: string, key: Keypair = this.session) {
    return this.post('/protocol/v1/dice/reveal', { betPayloadHash, clientSeedRaw, sessionSignature: this.signText(revealMessage, key) });
  }

  /** prepare → commit → reveal; throws on any non-200. */
  async playDice(opts: { wager?: number; target?: number; direction?: 'under' | 'over' } = {}) {
    const p = await this.prepareDice(opts);
    if (p.res.status !== 200) throw new Error(`prepare: ${JSON.stringify(p.res.body)}`);
    const c = await this.commitDice(p.res.body);
    if (c.status !== 200) throw new Error(`commit: ${JSON.stringify(c.body)}`);
    const r = await this.revealDice(p.res.body.betPayloadHash, p.clientSeedRaw, c.body.ack.revealMessage);
    if (r.status !== 200) throw new Error(`reveal: ${JSON.stringify(r.body)}`);
    return { prepared: p.res.body, commit: c.body, reveal: r.body, clientSeedRaw: p.clientSeedRaw };
  }

  openTicket(mode: unknown = 'easy', wager: unknown = 1) {
    return this.post('/protocol/v1/sweeper/ticket', { mode, sessionPubkey: this.session.publicKey, wager });
  }

  async prepareChoice(ticketId: string, row: unknown, choiceColumn: unknown) {
    const seed = this.newSeed();
    const res = await this.post('/protocol/v1/sweeper/choice/prepare', {
      ticketId,
      commitment: seed.commitment,
      sessionPubkey: this.session.publicKey,
      row,
      choiceColumn,
    });
    return { ...seed, res };
  }

  async prepareCashout(ticketId: string) {
    const seed = this.newSeed();
    const res = await this.post('/protocol/v1/sweeper/cashout/prepare', { ticketId, commitment: seed.commitment, sessionPubkey: this.session.publicKey });
    return { ...seed, res };
  }

  commitSweeper(prepared: { betPayload: unknown; betPayloadHash: string; sweeperParams: unknown }, key: Keypair = this.session) {
    return this.post('/protocol/v1/sweeper/commit', { ...prepared, sessionSignature: this.signHash(prepared.betPayloadHash, key) });
  }

  revealSweeper(betPayloadHash: string, clientSeedRaw: string, revealMessage: string, key: Keypair = this.session) {
    return this.post('/protocol/v1/sweeper/reveal', { betPayloadHash, clientSeedRaw, sessionSignature: this.signText(revealMessage, key) });
  }
}
