-- Settles a committed dice bet: releases stake and exposure, credits the payout, appends the bet-log
-- entry and the receipt, and journals it. Idempotent: a settled bet returns its stored settlement.
-- KEYS: player, bet, house, journal, seq, pending, deadlines, betLog, receipt, rng, recent
-- ARGV: betPayloadHash, wallet, payout, houseNet, settlementJson, receiptJson, betLogItem, settledAt,
--       disclosedIndex, eventJson, recentJson, won, playsChannel, playJson
local hash, wallet, payout = ARGV[1], ARGV[2], ARGV[3]
local b = redis.call('HMGET', KEYS[2], 'wallet', 'state', 'settlement', 'stake', 'exposureDelta', 'rngChainId')
if not b[1] or b[1] ~= wallet then return {'err', 'not_found'} end
if b[2] == 'settled' then
  local pl = redis.call('HMGET', KEYS[1], 'balance', 'staked', 'exposure', 'nonce')
  return {'dup', b[3], pl[1] or '0', pl[2] or '0', pl[3] or '0', pl[4] or '0'}
end

settle_stake(KEYS[1], KEYS[3], b[4], b[5], payout, ARGV[4], ARGV[12] == '1')

redis.call('RPUSH', KEYS[8], ARGV[7])
redis.call('HSET', KEYS[9], 'body', ARGV[6])
redis.call('HSET', KEYS[2], 'state', 'settled', 'settlement', ARGV[5])
redis.call('SREM', KEYS[6], hash)
redis.call('ZREM', KEYS[7], hash)
local disclosed = tonumber(ARGV[9])
if disclosed > 0 then
  local r = redis.call('HMGET', KEYS[10], 'chainId', 'disclosed')
  if r[1] == b[6] and disclosed > num(r[2]) then redis.call('HSET', KEYS[10], 'disclosed', ARGV[9]) end
end
redis.call('LPUSH', KEYS[11], ARGV[11])
redis.call('LTRIM', KEYS[11], 0, 49)
journal(KEYS[4], KEYS[5], 'bet_settled', ARGV[8], ARGV[10])
redis.call('PUBLISH', ARGV[13], ARGV[14])
local pl = redis.call('HMGET', KEYS[1], 'balance', 'staked', 'exposure', 'nonce')
return {'ok', ARGV[5], pl[1] or '0', pl[2] or '0', pl[3] or '0', pl[4] or '0'}
