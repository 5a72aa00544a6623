// The trust root a verifier pins (design §11): the chain objects and every operator key with when it was first
// published, so a verifier never has to take them from the API it audits again.
import type { ChainSetup } from '../chain/genesis.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { checkpointOrigin } from '../protocol/checkpoint.ts';
import { MEMO_PROGRAM_ID } from '../protocol/memo.ts';
import { fromBase58 } from '../protocol/encoding.ts';
import { verifierKeyString } from '../protocol/signed-note.ts';
import { TRUST_ROOT_VERSION, type TrustRoot } from '../protocol/trust-root.ts';
import type { TransparencyStore } from '../store/transparency.ts';
import type { Base58Key } from '../protocol/address.ts';

export interface TrustRootDeps {
  store: TransparencyStore;
  rpc: SolanaRpc;
  setup: ChainSetup;
  cluster: string;
  ackPublicKey: Base58Key;
  anchorPublicKey: Base58Key;
  publicBaseUrl: string | undefined;
  clock: () => Date;
}

export class TrustRoots {
  #genesisHash: Promise<string> | null = null;

  constructor(readonly deps: TrustRootDeps) {}

  /** The cluster's genesis hash, read once (and again after a failed read). */
  #genesis(): Promise<string> {
    this.#genesisHash ??= this.deps.rpc
      .getGenesisHash()
      .send()
      .then(String)
      .catch((err: unknown) => {
        this.#genesisHash = null;
        throw err;
      });
    return this.#genesisHash;
  }

  /**
   * Publishes today's keys (a key's first publication is its `validFrom`) and returns the document, with the
   * checkpoint's signed-note verifier keys (derived, so outside what a verifier pins).
   */
  async current(): Promise<TrustRoot & { checkpointVerifierKeys: string[] }> {
    const { deps } = this;
    const { setup } = deps;
    const origin = checkpointOrigin(deps.publicBaseUrl);
    const keys = await deps.store.publishKeys(
      { ack: deps.ackPublicKey, anchor: deps.anchorPublicKey, keeper: setup.vaultAuthority },
      deps.clock().toISOString(),
    );
    return {
      version: TRUST_ROOT_VERSION,
      protocol: 'pfws/v1',
      cluster: deps.cluster,
      genesisHash: await this.#genesis(),
      usdcMint: setup.usdcMint,
      vaultTokenAccount: setup.vaultTokenAccount,
      lpMint: setup.lpMint,
      memoProgram: MEMO_PROGRAM_ID,
      checkpointOrigin: origin,
      checkpointVerifierKeys: keys.anchor.map((k) => verifierKeyString({ name: origin, publicKey: fromBase58(k.publicKey, 32) })),
      keys,
    };
  }
}
