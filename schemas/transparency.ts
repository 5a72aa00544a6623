// Transparency reads for independent verifiers (design §11): the trust root, receipt bundles and
// session-key pointers. Tiles, entry bundles and checkpoints are binary or text and follow C2SP.
import { Type } from 'typebox';
import { Base58Address, Hex32 } from './common.ts';

const Key = Type.Object({ publicKey: Base58Address, validFrom: Type.String({ description: 'ISO 8601: the key signs from then on' }) });

export const TrustRootResponse = Type.Object(
  {
    version: Type.Integer({ description: 'format version, 1' }),
    protocol: Type.Literal('pfws/v1'),
    cluster: Type.String(),
    genesisHash: { ...Base58Address, description: "the cluster's genesis hash; a verifier refuses an RPC of another cluster" },
    usdcMint: Base58Address,
    vaultTokenAccount: { ...Base58Address, description: "the vault: the keeper key's USDC associated token account" },
    lpMint: Base58Address,
    memoProgram: Base58Address,
    checkpointOrigin: Type.String({ description: 'origin line and note key name of the bet-log checkpoint' }),
    keys: Type.Object({
      ack: Type.Array(Key, { description: 'signs bet acks' }),
      anchor: Type.Array(Key, { description: 'signs manifests, checkpoints and the rng-head and commit memos' }),
      keeper: Type.Array(Key, { description: 'vault authority' }),
    }),
  },
  { description: 'Pin this once; a verifier never takes these from the API again' },
);

export const ReceiptBundleResponse = Type.Object({
  receipts: Type.Array(Type.Unknown(), { description: "the receipts of the entry bundle's entries, in log order" }),
});

export const SessionKeyPointerParams = Type.Object({ betPayloadHash: Hex32 });

export const SessionKeyPointerResponse = Type.Object(
  {
    betPayloadHash: Hex32,
    sessionPubkey: Base58Address,
    signature: Type.String({ description: 'the transaction of the latest setup or revoke memo the service applied for this key' }),
    slot: Type.Integer(),
  },
  { description: "A pointer only: the verifier reads the wallet and the key's history from the chain" },
);
