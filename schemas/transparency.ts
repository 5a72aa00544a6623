// Transparency reads for independent verifiers (design §11): the trust root, receipt bundles, session-key
// pointers, and the C2SP answers: the signed checkpoint (text) and tiles and entry bundles (bytes).
import { Type } from 'typebox';
import { Base58Address, documented, Hex32, Timestamp } from './common.ts';
import { Receipt } from './receipt.ts';
import * as EX from './examples.ts';

const Key = Type.Object(
  {
    publicKey: { ...Base58Address, description: 'the Ed25519 public key' },
    validFrom: { ...Timestamp, description: 'the key signs from then on (its first publication), until the next key of its role' },
  },
  { description: 'one operator key' },
);

export const TrustRootResponse = Type.Object(
  {
    version: Type.Integer({ description: 'format version, 1' }),
    protocol: Type.Literal('pfws/v1', { description: 'the protocol' }),
    cluster: Type.String({ description: 'localnet, devnet, testnet or mainnet-beta' }),
    genesisHash: { ...Base58Address, description: "the cluster's genesis hash; a verifier refuses an RPC of another cluster" },
    usdcMint: { ...Base58Address, description: 'the USDC mint' },
    vaultTokenAccount: { ...Base58Address, description: "the vault: the keeper key's USDC associated token account" },
    lpMint: { ...Base58Address, description: 'the LP share mint' },
    memoProgram: { ...Base58Address, description: 'the Memo v2 program every pfws:v1 memo goes through' },
    checkpointOrigin: Type.String({ description: 'origin line and note key name of the bet-log checkpoint' }),
    checkpointVerifierKeys: Type.Array(Type.String({ pattern: '^[^\\s+]+\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]{44}$' }), {
      description:
        "the checkpoint's signed-note verifier keys, <origin>+<hex key ID>+<base64(0x01 ‖ anchor public key)>, one per anchor key, oldest first: what a witness operator configures (derived from checkpointOrigin and keys.anchor, so not part of what a verifier pins)",
    }),
    keys: Type.Object(
      {
        ack: Type.Array(Key, { description: 'signs bet acks' }),
        anchor: Type.Array(Key, { description: 'signs manifests, checkpoints and the rng-head and commit memos' }),
        keeper: Type.Array(Key, { description: 'vault authority' }),
      },
      { description: 'every operator key ever published, per role, oldest first' },
    ),
  },
  { description: 'Pin this once; a verifier never takes these from the API again', examples: [EX.trustRoot] },
);

const BUNDLE_PATH = 'C2SP tlog-tiles index <N> (groups of 3 digits, x-prefixed but the last: 000, x001/234), then .p/<W> for a partial bundle of W entries';

/** `tile/*`: a hash tile or an entry bundle; the path is parsed by the handler (a bad one is NOT_FOUND). */
export const TilePath = Type.Object({
  '*': Type.String({
    maxLength: 64,
    description: `<L>/<N>[.p/<W>]: the hash tile at level L (height 8: 256 hashes of 32 bytes), or entries/<N>[.p/<W>]: an entry bundle; ${BUNDLE_PATH}`,
    examples: [EX.hashTilePath],
  }),
});

export const ReceiptBundlePath = Type.Object({
  '*': Type.String({ maxLength: 64, description: `<N>[.p/<W>]: the receipts of entry bundle N; ${BUNDLE_PATH}`, examples: [EX.receiptBundlePath] }),
});

/** The checkpoint is text, sent as stored; the schema only documents it. */
export const CheckpointNote = {
  description: 'The latest signed checkpoint',
  content: {
    'text/plain': {
      schema: Type.String({
        pattern: '^[^\\n]+\\n(0|[1-9][0-9]*)\\n[A-Za-z0-9+/]{43}=\\n\\n(— [^ \\n]+ [A-Za-z0-9+/]+={0,2}\\n)+$',
        description:
          'a C2SP tlog-checkpoint (origin, tree size, base64 RFC 6962 root, one per line) as a C2SP signed note: a blank line, then "— <origin> base64(key ID ‖ Ed25519 signature)" by the anchor key of the trust root',
      }),
      example: EX.checkpoint,
    },
  },
};

/** Tiles are bytes, sent as stored (cached as immutable); the schema only documents them. */
/** A conditional GET whose If-None-Match names the current ETag: no body. */
export const NotModified = { description: 'Not modified: If-None-Match names the ETag of the current bytes' };

export const TileBytes = {
  description: 'The tile',
  content: {
    'application/octet-stream': {
      schema: Type.String({
        contentMediaType: 'application/octet-stream',
        description:
          "a hash tile: W (or 256) 32-byte hashes, left to right; an entry bundle: W (or 256) entries, each a 2-byte big-endian length then the entry's canonical JSON (its leaf is sha256(0x00 ‖ entry))",
      }),
    },
  },
};

export const ReceiptBundleResponse = Type.Object(
  {
    receipts: Type.Array(documented(Type.Unknown({ description: 'a receipt, as stored' }), Receipt), {
      description: "the receipts of the entry bundle's entries, in log order, with their anchors",
    }),
  },
  { description: 'The receipts of an entry bundle (sent as stored: each receipt has its fields in the order it was written)', examples: [EX.receiptBundle] },
);

export const SessionKeyPointerParams = Type.Object({
  betPayloadHash: { ...Hex32, description: 'a committed bet', examples: [EX.sessionKeyPointer.betPayloadHash] },
});

export const SessionKeyPointerResponse = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the bet' },
    sessionPubkey: { ...Base58Address, description: 'the session key that committed it' },
    signature: Type.String({ description: 'the transaction of the latest setup or revoke memo the service applied for this key' }),
    slot: Type.Integer({ description: 'the slot of that transaction' }),
  },
  { description: "A pointer only: the verifier reads the wallet and the key's history from the chain", examples: [EX.sessionKeyPointer] },
);
