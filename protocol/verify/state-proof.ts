// Verifies a player's proof of liabilities: their salted leaf is in the sum tree committed on-chain.
import { bytesEqual, fromBase58, fromHex, isHex, toHex } from '../encoding.ts';
import { decodeStateProof, stateLeafId, verifyStateProof, type StateProof } from '../state-tree.ts';
import { commitMemosOf, type RpcTransaction } from './chain.ts';
import { Checks, type Report } from './report.ts';
import { isRecord } from './turn.ts';

/**
 * Checks a `GET /api/protocol/v1/player/state-proof` response for `wallet` against the commit
 * transaction it names (fetched by the caller from the chain).
 * @example verifyStateProofResponse(body, wallet, await getTransaction(body.commitSignature), operatorPublicKey)
 */
export function verifyStateProofResponse(response: unknown, wallet: string, commitTx: RpcTransaction | null | undefined, operatorPublicKey: string): Report {
  const checks = new Checks();
  const subject = `state proof of ${wallet}`;
  if (!isRecord(response)) {
    checks.fail('state-proof', 'the response is not an object');
    return checks.report(subject);
  }
  let proof: StateProof;
  try {
    proof = decodeStateProof(response.proof);
  } catch (err) {
    checks.fail('state-proof', `the proof is malformed: ${(err as Error).message}`);
    return checks.report(subject);
  }
  let walletBytes: Uint8Array | null = null;
  try {
    walletBytes = fromBase58(wallet, 32);
  } catch {
    walletBytes = null;
  }
  const salt = response.salt;
  checks.add(
    'leaf-id',
    walletBytes !== null && isHex(salt, 32) && bytesEqual(stateLeafId(walletBytes, fromHex(salt)), proof.id),
    'the leaf id is not sha256(wallet ‖ salt)',
  );
  // The leaf the response shows must be the one the proof proves: a copied liability is no proof.
  const leaf = isRecord(response.leaf) ? response.leaf : null;
  checks.add(
    'leaf',
    leaf !== null && leaf.id === toHex(proof.id) && leaf.liability === proof.liability.toString(),
    `the response shows leaf ${JSON.stringify(response.leaf)}, the proof proves { id: ${toHex(proof.id)}, liability: ${proof.liability} }`,
  );
  const memo = commitMemosOf(commitTx, operatorPublicKey).find((m) => m.memo.entryCount === response.entryCount);
  if (!memo) {
    checks.fail('on-chain-commit', `no commit of size ${String(response.entryCount)} by the anchor key in transaction ${String(response.commitSignature)}`);
    return checks.report(subject);
  }
  checks.add('state-root', memo.memo.stateRoot === response.stateRoot, 'the proof names a state root other than the on-chain one');
  checks.add(
    'total-liabilities',
    response.totalLiabilities === memo.memo.totalLiabilities.toString(),
    `the response shows totalLiabilities ${JSON.stringify(response.totalLiabilities)}, the on-chain commit ${memo.memo.totalLiabilities}`,
  );
  checks.add('sum-proof', verifyStateProof(Object.assign({}, proof, { root: fromHex(memo.memo.stateRoot), total: memo.memo.totalLiabilities })));
  return checks.report(subject);
}
