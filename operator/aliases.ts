// Short public aliases: a keyed hash of the wallet, so public data never shows the address
// and nobody without the operator secret can test which alias belongs to a wallet.
import { createHmac } from 'node:crypto';
import { toBase58 } from '../protocol/encoding.ts';

export class Aliases {
  readonly #secret: Uint8Array;
  readonly #cache = new Map<string, string>();

  constructor(secret: Uint8Array) {
    this.#secret = secret;
  }

  of(wallet: string): string {
    let alias = this.#cache.get(wallet);
    if (!alias) {
      const digest = createHmac('sha256', this.#secret).update(`pfws:alias:${wallet}`).digest();
      alias = `p_${toBase58(digest.subarray(0, 8))}`;
      if (this.#cache.size > 100_000) this.#cache.clear();
      this.#cache.set(wallet, alias);
    }
    return alias;
  }
}
