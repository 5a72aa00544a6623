// Looks up each session key's authorization on-chain. The API gives only a pointer (the transaction of the
// key's latest setup or revoke memo); the wallet that memo names and signs is then read from the chain,
// and its own history decides. A wallet's history is read once per run, and resumed by a monitor.
import { keyEventsOf, sortKeyEvents, type KeyEvent, type SessionKeyLookup } from '../protocol/verify/session-key.ts';
import type { VerifierContext } from './context.ts';
import { FetchError } from './http.ts';

/** What a monitor keeps per wallet: its key memos so far and where its history was read to. */
export interface WalletState {
  newest: string | null;
  events: KeyEvent[];
}

interface Pointer {
  sessionPubkey?: unknown;
  signature?: unknown;
}

const PARALLEL = 4;

export class SessionKeyResolver {
  readonly #lookups = new Map<string, SessionKeyLookup>();
  readonly #wallets = new Map<string, Promise<WalletState>>();
  readonly wallets: Map<string, WalletState>;

  constructor(
    private readonly ctx: VerifierContext,
    saved: Record<string, WalletState> = {},
  ) {
    this.wallets = new Map(Object.entries(saved));
  }

  lookup = (sessionPubkey: string): SessionKeyLookup | undefined => this.#lookups.get(sessionPubkey);

  /** Resolves every key not resolved yet (each named with one bet it committed). */
  async resolve(keys: readonly { sessionPubkey: string; betPayloadHash: string }[]): Promise<void> {
    const todo = keys.filter((k) => !this.#lookups.has(k.sessionPubkey));
    if (!todo.length) return;
    this.ctx.progress.start('session keys', todo.length);
    let done = 0;
    for (let i = 0; i < todo.length; i += PARALLEL) {
      await Promise.all(
        todo.slice(i, i + PARALLEL).map(async (k) => {
          this.#lookups.set(k.sessionPubkey, await this.#resolveOne(k.sessionPubkey, k.betPayloadHash));
          this.ctx.progress.update(++done);
        }),
      );
    }
    this.ctx.progress.finish();
  }

  async #resolveOne(sessionPubkey: string, betPayloadHash: string): Promise<SessionKeyLookup> {
    let pointer: Pointer | null;
    try {
      pointer = await this.ctx.api.find<Pointer>(`/protocol/v1/session-keys/by-bet/${betPayloadHash}`, 64 * 1024);
    } catch (err) {
      return { status: 'unavailable', reason: `the pointer to the setup of ${sessionPubkey} cannot be read: ${(err as Error).message}` };
    }
    if (!pointer || typeof pointer.signature !== 'string') {
      return { status: 'unavailable', reason: `the service gives no pointer to the on-chain setup of ${sessionPubkey}` };
    }
    if (pointer.sessionPubkey !== sessionPubkey)
      return { status: 'missing', reason: `the service points at key ${String(pointer.sessionPubkey)} for a bet by ${sessionPubkey}` };
    let pointed: KeyEvent[];
    try {
      const tx = await this.ctx.chain.transaction(pointer.signature);
      if (!tx) return { status: 'missing', reason: `the setup the service points at (${pointer.signature}) is not on-chain` };
      pointed = keyEventsOf(tx, sessionPubkey);
    } catch (err) {
      return { status: 'unavailable', reason: `the chain cannot be read: ${(err as Error).message}` };
    }
    const wallet = pointed[0]?.wallet;
    if (!wallet)
      return {
        status: 'missing',
        reason: `transaction ${pointer.signature} carries no setup or revoke memo of ${sessionPubkey} signed by the wallet it names`,
      };
    let state: WalletState;
    try {
      state = await this.#wallet(wallet);
    } catch (err) {
      return { status: 'unavailable', reason: err instanceof FetchError ? err.message : `the history of ${wallet} cannot be read: ${(err as Error).message}` };
    }
    const events = sortKeyEvents([...pointed, ...state.events.filter((e) => e.sessionPubkey === sessionPubkey)]);
    return { status: 'found', history: { wallet, sessionPubkey, events } };
  }

  // Every session-key memo of the wallet, read once per run (and from where a monitor stopped).
  #wallet(wallet: string): Promise<WalletState> {
    let p = this.#wallets.get(wallet);
    if (!p) {
      const saved = this.wallets.get(wallet);
      p = this.ctx.chain.keyEvents(wallet, undefined, saved?.newest ?? undefined).then(({ events, newest }) => {
        const state = { newest: newest ?? saved?.newest ?? null, events: [...(saved?.events ?? []), ...events] };
        this.wallets.set(wallet, state);
        return state;
      });
      p.catch(() => this.#wallets.delete(wallet));
      this.#wallets.set(wallet, p);
    }
    return p;
  }
}
