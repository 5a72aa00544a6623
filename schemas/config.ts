// GET /api/protocol/v1/config (design §5): where clients and verifiers start.
import { Type } from 'typebox';
import { Base58Address, Hex32, Nullable } from './common.ts';
import * as EX from './examples.ts';

export const ProtocolConfig = Type.Object(
  {
    cluster: Type.String({ description: 'localnet, devnet, testnet or mainnet-beta' }),
    rpcUrl: Type.String({ description: 'the Solana JSON-RPC URL to read the chain and send transactions to' }),
    usdcMint: { ...Base58Address, description: 'the USDC mint' },
    vaultAuthority: { ...Base58Address, description: 'the keeper key: owner of the vault' },
    vaultTokenAccount: { ...Base58Address, description: 'the vault: USDC associated token account of vaultAuthority' },
    operatorPublicKey: { ...Base58Address, description: 'the anchor key: signs manifests and the rng-head and commit memos' },
    ackPublicKey: { ...Base58Address, description: 'signs bet acks' },
    memoProgram: { ...Base58Address, description: 'the Memo v2 program' },
    lpMint: { ...Base58Address, description: 'the LP share mint' },
    rngChainHead: Nullable(Hex32, 'head of the current operator RNG chain; null before the first is committed'),
    explorerBaseUrl: Type.String({ description: 'block explorer used in links' }),
  },
  { description: 'The chain objects and operator keys', examples: [EX.config] },
);
