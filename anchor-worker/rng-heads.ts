// Commits operator RNG chain heads on-chain (memo signed by the anchor key alone) and rolls chains over.
import type { Logger } from 'pino';
import { memoInstruction } from '../chain/memo.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { sendAndConfirm } from '../chain/send.ts';
import type { OperatorKey } from '../operator/keys.ts';
import type { RngChains } from '../operator/rng-chains.ts';
import { rngHeadMemo } from '../protocol/memo.ts';
import type { CommittedChain, RngStore } from '../store/rng.ts';

export interface RngHeadDeps {
  rng: RngStore;
  chains: RngChains;
  rpc: SolanaRpc;
  anchorKey: OperatorKey;
  logger: Logger;
  /** Indices per chain (RNG_CHAIN_LENGTH). */
  chainLength: number;
  /** Commit the next head when this many indices remain (RNG_ROLLOVER_MARGIN). */
  rolloverMargin: number;
}

async function commitNewChain(deps: RngHeadDeps): Promise<CommittedChain> {
  const { chains, anchorKey } = deps;
  // A fresh id every time: an index of an earlier chain is never handed out again, even if Redis lost the cursor.
  const chainId = Math.max(0, ...chains.ids()) + 1;
  const chain = await chains.create(chainId, deps.chainLength);
  const signature = await sendAndConfirm(deps.rpc, anchorKey.signer, [memoInstruction(rngHeadMemo(chainId, chain.headHex), [anchorKey.signer])]);
  deps.logger.info({ chainId, head: chain.headHex, signature }, 'rng: chain head committed on-chain');
  return { chainId, head: chain.headHex, length: chain.length, signature };
}

/** Makes sure a committed chain is current, and that the next one is committed before it runs out. */
export async function ensureRngChains(deps: RngHeadDeps): Promise<void> {
  const cursor = await deps.rng.cursor();
  if (!cursor) {
    await deps.rng.setCurrent(await commitNewChain(deps));
    return;
  }
  const remaining = cursor.length - cursor.next + 1;
  if (cursor.nextChainId === null && remaining <= deps.rolloverMargin) {
    await deps.rng.setNext(await commitNewChain(deps), cursor.chainId);
  }
}
