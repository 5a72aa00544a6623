// GET /api/protocol/v1/config (design §5): where clients and verifiers start.
import { Type } from 'typebox';
import { Base58Address, Hex32 } from './common.ts';

export const ProtocolConfig = Type.Object({
  cluster: Type.String(),
  rpcUrl: Type.String(),
  usdcMint: Base58Address,
  vaultAuthority: Base58Address,
  vaultTokenAccount: Base58Address,
  operatorPublicKey: { ...Base58Address, description: 'the anchor key: signs manifests and the rng-head and commit memos' },
  ackPublicKey: { ...Base58Address, description: 'signs bet acks' },
  memoProgram: Base58Address,
  lpMint: Base58Address,
  rngChainHead: Type.Union([Hex32, Type.Null()]),
  explorerBaseUrl: Type.String(),
});
