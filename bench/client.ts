// A load-generating player: keep-alive HTTP, native Ed25519 signing, real prepare → commit → reveal.
import { createHash, randomBytes } from 'node:crypto';
import sodium from 'sodium-native';
import { Pool } from 'undici';
import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  signTransaction,
} from '@solana/kit';
import { base58 } from '@scure/base';

class Key {
  readonly seed = randomBytes(32);
  readonly publicBytes = Buffer.alloc(32);
  readonly secret = Buffer.alloc(64);
  readonly publicKey: string;
  constructor() {
    sodium.crypto_sign_seed_keypair(this.publicBytes, this.secret, this.seed);
    this.publicKey = base58.encode(this.publicBytes);
  }
  sign = (data: Buffer) => {
    const signature = Buffer.alloc(64);
    sodium.crypto_sign_detached(signature, data, this.secret);
    return signature.toString('base64');
  };
}

export class Timer {
  readonly samples: Record<string, number[]> = {};
  add(step: string, ms: number) {
    const list = this.samples[step] ?? [];
    list.push(ms);
    this.samples[step] = list;
  }
  percentile(step: string, p: number): number {
    const s = [...(this.samples[step] ?? [])].sort((a, b) => a - b);
    return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
  }
}

export class BenchPlayer {
  readonly wallet = new Key();
  readonly session = new Key();
  token = '';

  constructor(
    readonly pool: Pool,
    readonly apiPath: string,
    readonly rpcUrl: string,
  ) {}

  async call<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await this.pool.request({
      method,
      path: `${this.apiPath}${path}`,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as T };
  }

  async must<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await this.call<T>(method, path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Signs the wallet in: a fresh bearer token. */
  async signIn(): Promise<void> {
    const challenge = await this.must('GET', `/wallet/challenge?wallet=${this.wallet.publicKey}`);
    const session = await this.must('POST', '/wallet/session', {
      walletAddress: this.wallet.publicKey,
      message: challenge.message,
      signature: this.wallet.sign(Buffer.from(challenge.message)),
    });
    this.token = session.token;
  }

  async onboard(deposit: number): Promise<void> {
    await this.must('POST', '/dev/faucet', { wallet: this.wallet.publicKey, usdc: deposit, sol: 1 });
    await this.signIn();
    const built = await this.must('POST', '/protocol/v1/player/setup-transaction', { amount: deposit, sessionPubkey: this.session.publicKey });
    const signer = await createKeyPairSignerFromBytes(new Uint8Array(Buffer.concat([this.wallet.seed, this.wallet.publicBytes])));
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction));
    const signed = await signTransaction([signer.keyPair], tx);
    const rpc = createSolanaRpc(this.rpcUrl);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    for (let i = 0; i < 100; i++) {
      // A sync may answer 503 while the chain RPC or Redis is slow (a loaded machine, a failover): it reads again.
      const synced = await this.call<any>('POST', '/protocol/v1/player/sync');
      if (synced.status !== 200 && synced.status !== 503) throw new Error(`/protocol/v1/player/sync: ${synced.status} ${JSON.stringify(synced.body)}`);
      if (synced.status === 200 && synced.body.status.balance >= deposit) return;
      await new Promise((r) => setTimeout(r, synced.status === 503 ? 500 : 50));
    }
    throw new Error('deposit not credited');
  }

  seed() {
    const clientSeedRaw = randomBytes(32);
    return { clientSeedRaw: clientSeedRaw.toString('hex'), commitment: createHash('sha256').update(clientSeedRaw).digest('hex') };
  }

  private async step<T>(timer: Timer, name: string, path: string, body: unknown): Promise<T> {
    const t0 = performance.now();
    const out = await this.must<T>('POST', path, body);
    timer.add(name, performance.now() - t0);
    return out;
  }

  /** One complete dice bet; returns the reveal response. */
  async diceBet(timer: Timer): Promise<{ receiptId: string; betLogEntry: { settledAt: string } }> {
    const { clientSeedRaw, commitment } = this.seed();
    const prepared = await this.step<any>(timer, 'prepare', '/protocol/v1/dice/prepare', {
      commitment,
      sessionPubkey: this.session.publicKey,
      direction: 'under',
      target: 49.5,
      wager: 0.01,
    });
    const commit = await this.step<any>(timer, 'commit', '/protocol/v1/dice/commit', {
      ...prepared,
      sessionSignature: this.session.sign(Buffer.from(prepared.betPayloadHash, 'hex')),
    });
    return this.step(timer, 'reveal', '/protocol/v1/dice/reveal', {
      betPayloadHash: prepared.betPayloadHash,
      clientSeedRaw,
      sessionSignature: this.session.sign(Buffer.from(commit.ack.revealMessage)),
    });
  }

  private async turn(timer: Timer, prepPath: string, body: Record<string, unknown>): Promise<any> {
    const { clientSeedRaw, commitment } = this.seed();
    const prepared = await this.step<any>(timer, 'prepare', prepPath, { ...body, commitment, sessionPubkey: this.session.publicKey });
    const commit = await this.step<any>(timer, 'commit', '/protocol/v1/sweeper/commit', {
      ...prepared,
      sessionSignature: this.session.sign(Buffer.from(prepared.betPayloadHash, 'hex')),
    });
    return this.step<any>(timer, 'reveal', '/protocol/v1/sweeper/reveal', {
      betPayloadHash: prepared.betPayloadHash,
      clientSeedRaw,
      sessionSignature: this.session.sign(Buffer.from(commit.ack.revealMessage)),
    });
  }

  /** One complete Sweeper ticket of random length; returns the number of turns played. */
  async sweeperTicket(timer: Timer): Promise<number> {
    const open = await this.step<any>(timer, 'ticket', '/protocol/v1/sweeper/ticket', { mode: 'easy', sessionPubkey: this.session.publicKey, wager: 0.01 });
    const ticketId = open.ticket.id;
    const length = 1 + Math.floor(Math.random() * 8);
    let turns = 0;
    for (let row = 0; row < length; row++) {
      turns++;
      const r = await this.turn(timer, '/protocol/v1/sweeper/choice/prepare', { ticketId, row, choiceColumn: Math.floor(Math.random() * 4) });
      if (r.ticket.status !== 'running') return turns;
    }
    await this.turn(timer, '/protocol/v1/sweeper/cashout/prepare', { ticketId });
    return turns + 1;
  }
}

export function poolFor(api: string, connections: number): { pool: Pool; apiPath: string } {
  const url = new URL(api);
  return { pool: new Pool(url.origin, { connections, pipelining: 1 }), apiPath: url.pathname };
}

/**
 * Starts `task` `rate` times a second for `durationMs`, each on a player not busy with one already (a start that finds
 * none counts as `behind`), and waits for the last to finish.
 */
export async function runAtRate<P>(
  players: readonly P[],
  rate: number,
  durationMs: number,
  task: (player: P) => Promise<unknown>,
): Promise<{ done: number; errors: number; behind: number }> {
  const free = [...players];
  const stats = { done: 0, errors: 0, behind: 0 };
  const inFlight = new Set<Promise<void>>();
  const t0 = performance.now();
  let started = 0;
  while (performance.now() - t0 < durationMs) {
    const due = Math.floor(((performance.now() - t0) * rate) / 1000);
    while (started < due) {
      started++;
      const p = free.pop();
      if (!p) {
        stats.behind++;
        continue;
      }
      const tracked: Promise<void> = task(p)
        .then(
          () => {
            stats.done++;
          },
          (err) => {
            if (stats.errors++ < 5) console.error(String(err));
          },
        )
        .finally(() => {
          free.push(p);
          inFlight.delete(tracked);
        });
      inFlight.add(tracked);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(inFlight);
  return stats;
}

/** Runs `task` in `concurrency` loops for `durationMs`; returns completions. */
export async function runFor(
  concurrency: number,
  durationMs: number,
  task: (worker: number) => Promise<number | undefined>,
): Promise<{ done: number; units: number; elapsedMs: number; errors: number }> {
  const end = performance.now() + durationMs;
  const t0 = performance.now();
  let done = 0;
  let units = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < end) {
        try {
          const n = await task(worker);
          done++;
          units += typeof n === 'number' ? n : 1;
        } catch (err) {
          errors++;
          if (errors < 5) console.error(String(err));
        }
      }
    }),
  );
  return { done, units, elapsedMs: performance.now() - t0, errors };
}
