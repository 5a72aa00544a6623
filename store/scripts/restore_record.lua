-- Ledger recovery: an archived journal entry written again as it was, when its effects cannot be rebuilt (they are
-- named to the operator instead). What is public and known stays whole: a play's bet-log entry and receipt, its RNG
-- index used (never given out twice) and disclosed, its commitment used, the wallet's bet nonce.
-- KEYS: journal, seq, betLog, receipt, rng, player, commitments
-- Fields (store/script-fields.ts RestoreRecordFields): replay (the entries), and what stays whole, each optional:
--       logItem, receiptBody, entryJson, rngChainHead, rngIndex, disclosed, betNonce, commitment
local r = fields()
replay_journal(r.replay, KEYS[1], KEYS[2])
local rngChain = nil
if r.rngChainHead and r.rngChainHead ~= '' then
  rngChain = rng_claim(KEYS[5], r.rngChainHead, tonumber(r.rngIndex), true)
  if rngChain and r.disclosed and num(r.disclosed) > num(redis.call('HGET', KEYS[5], 'disclosed')) then
    if redis.call('HGET', KEYS[5], 'chainId') == rngChain then redis.call('HSET', KEYS[5], 'disclosed', r.disclosed) end
  end
end
if r.betNonce and num(r.betNonce) + 1 > num(redis.call('HGET', KEYS[6], 'nonce')) then redis.call('HSET', KEYS[6], 'nonce', num(r.betNonce) + 1) end
if r.commitment and r.commitment ~= '' then redis.call('SADD', KEYS[7], r.commitment) end
if r.logItem and r.logItem ~= '' then
  redis.call('RPUSH', KEYS[3], r.logItem)
  redis.call('HSET', KEYS[4], 'body', r.receiptBody, 'entry', r.entryJson)
end
if replayed then
  for _ = 1, #replayed do journal(KEYS[1], KEYS[2], '', '', '') end
end
local rngOk = '1'
if r.rngChainHead and r.rngChainHead ~= '' and not rngChain then rngOk = '0' end
return {'ok', rngOk}
