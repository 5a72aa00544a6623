-- Ledger recovery: the writes of commit_bet.lua for a bet the archive shows committed after the backup, without its
-- checks (they held when it was first committed; the archive's receipt holds the signed payload and the ack).
-- Locks the stake, books the nonce, the commitment and the RNG index, records the pending bet, and writes the
-- archived bet_committed entry again. Does nothing for a bet the ledger holds.
-- KEYS: player, bet, commitments, house, rng, journal, seq, pending, deadlines, ticket, agentWagers, agentWagered
-- Fields (store/script-fields.ts RestoreCommitFields): hash, wallet, game, payload, wager, stake, maxPayout, exposureDelta, sessionPubkey, commitment, betNonce,
--       rngIndex, rngChainHead, committedAt, committedAtMs, revealDeadline, revealDeadlineMs, ticketId, turn,
--       commitSignature, source, agentWindowMs, replay (the bet_committed entry)
local b = fields()
if redis.call('EXISTS', KEYS[2]) == 1 then return {'dup'} end
replay_journal(b.replay, KEYS[6], KEYS[7])
local index = tonumber(b.rngIndex)
if not rng_claim(KEYS[5], b.rngChainHead, index, false) then return {'err', 'rng_chain'} end
local chainId = rng_claim(KEYS[5], b.rngChainHead, index, true)

if b.stake ~= '0' then lock_stake(KEYS[1], KEYS[4], b.stake) end
add_exposure(KEYS[1], KEYS[4], b.exposureDelta)
if b.source == 'mcp' and b.stake ~= '0' and num(b.agentWindowMs) > 0 then
  agent_record(KEYS[11], KEYS[12], b.committedAtMs, num(b.agentWindowMs), b.hash, b.stake)
end
if num(b.betNonce) + 1 > num(redis.call('HGET', KEYS[1], 'nonce')) then redis.call('HSET', KEYS[1], 'nonce', num(b.betNonce) + 1) end
redis.call('SADD', KEYS[3], b.commitment)
redis.call('HSET', KEYS[2], 'wallet', b.wallet, 'state', 'committed', 'game', b.game, 'payload', b.payload, 'wager', b.wager,
  'stake', b.stake, 'maxPayout', b.maxPayout, 'exposureDelta', b.exposureDelta, 'sessionPubkey', b.sessionPubkey, 'commitment', b.commitment,
  'betNonce', b.betNonce, 'rngIndex', b.rngIndex, 'rngChainId', chainId, 'rngChainHead', b.rngChainHead,
  'committedAt', b.committedAt, 'revealDeadline', b.revealDeadline, 'revealDeadlineMs', b.revealDeadlineMs, 'ticketId', b.ticketId,
  'turn', b.turn, 'commitSignature', b.commitSignature, 'source', b.source)
if b.ticketId ~= '' then redis.call('HSET', KEYS[10], 'pendingTurn', b.hash) end
redis.call('SADD', KEYS[8], b.hash)
redis.call('ZADD', KEYS[9], b.revealDeadlineMs, b.hash)
journal(KEYS[6], KEYS[7], 'bet_committed', b.committedAt, '')
return {'ok'}
