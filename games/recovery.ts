// Recovery seeds: stored after the ack exists, served back only for a committed bet of the same wallet.
import { ApiError, gameRejected } from '../schemas/errors.ts';
import { isHex } from '../protocol/encoding.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import type { Services } from '../services.ts';
import { ackOf } from './bet-flow.ts';

export async function storeRecoverySeed(services: Services, wallet: string, betPayloadHash: string, clientSeedRaw: string) {
  const bet = await services.bets.bet(betPayloadHash);
  if (!bet || bet.wallet !== wallet) {
    throw gameRejected('Recovery seeds are accepted only after the commit ack exists for this wallet\'s bet', 'not_committed');
  }
  if (!verifyCommitment(clientSeedRaw, bet.commitment)) throw gameRejected('clientSeedRaw does not match the bet\'s commitment', 'commitment_mismatch');
  await services.bets.saveRecoverySeed(betPayloadHash, clientSeedRaw);
  return { betPayloadHash, stored: true, state: bet.state };
}

export async function fetchRecoverySeed(services: Services, wallet: string, betPayloadHash: string) {
  if (!isHex(betPayloadHash, 32)) throw new ApiError('INVALID_REQUEST', 'betPayloadHash must be 32 bytes of lowercase hex');
  const bet = await services.bets.bet(betPayloadHash);
  if (!bet || bet.wallet !== wallet) throw new ApiError('NOT_FOUND', 'No committed bet with this betPayloadHash for this wallet');
  const clientSeedRaw = await services.bets.recoverySeed(betPayloadHash);
  if (!clientSeedRaw) throw new ApiError('NOT_FOUND', 'No recovery seed was stored for this bet');
  return { betPayloadHash, clientSeedRaw, state: bet.state, ack: ackOf(services, bet) };
}
