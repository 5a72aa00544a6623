-- Settles one revealed Sweeper turn; when it ends the ticket, also releases the stake, pays out, and writes
-- the bet-log entry and the receipt. Idempotent on the turn's betPayloadHash.
-- KEYS: player, bet, ticket, activeTicket, house, journal, seq, pending, deadlines, betLog, receipt, rng, recent
-- ARGV: betPayloadHash, wallet, settlementJson, rowsWon, status, turnsJson, endedAt, payout, houseNet,
--       receiptJson, betLogItem, turnEventJson, ticketEventJson, recentJson, disclosedIndex, settledAt, outcome,
--       playsChannel, playJson
local hash, wallet = ARGV[1], ARGV[2]
local function player_reply(kind, settlement)
  local pl = redis.call('HMGET', KEYS[1], 'balance', 'staked', 'exposure', 'nonce')
  return {kind, settlement, pl[1] or '0', pl[2] or '0', pl[3] or '0', pl[4] or '0'}
end
local b = redis.call('HMGET', KEYS[2], 'wallet', 'state', 'settlement', 'rngChainId')
if not b[1] or b[1] ~= wallet then return {'err', 'not_found'} end
if b[2] == 'settled' then return player_reply('dup', b[3]) end
local t = redis.call('HMGET', KEYS[3], 'pendingTurn', 'wager', 'exposureDelta', 'status')
if t[1] ~= hash or t[4] ~= 'running' then return {'err', 'ticket_state'} end

redis.call('HSET', KEYS[2], 'state', 'settled', 'settlement', ARGV[3])
redis.call('SREM', KEYS[8], hash)
redis.call('ZREM', KEYS[9], hash)
redis.call('HSET', KEYS[3], 'pendingTurn', '', 'rowsWon', ARGV[4], 'status', ARGV[5], 'turns', ARGV[6])
local disclosed = tonumber(ARGV[15])
if disclosed > 0 then
  local r = redis.call('HMGET', KEYS[12], 'chainId', 'disclosed')
  if r[1] == b[4] and disclosed > num(r[2]) then redis.call('HSET', KEYS[12], 'disclosed', ARGV[15]) end
end
journal(KEYS[6], KEYS[7], 'sweeper_turn_settled', ARGV[16], ARGV[12])

if ARGV[5] ~= 'running' then
  local wager, exposureDelta, payout = t[2], t[3], ARGV[8]
  redis.call('HSET', KEYS[3], 'endedAt', ARGV[7], 'payout', payout, 'outcome', ARGV[17])
  redis.call('DEL', KEYS[4])
  settle_stake(KEYS[1], KEYS[5], wager, exposureDelta, payout, ARGV[9], num(payout) > 0)
  redis.call('RPUSH', KEYS[10], ARGV[11])
  redis.call('HSET', KEYS[11], 'body', ARGV[10])
  redis.call('LPUSH', KEYS[13], ARGV[14])
  redis.call('LTRIM', KEYS[13], 0, 49)
  journal(KEYS[6], KEYS[7], 'ticket_settled', ARGV[16], ARGV[13])
  redis.call('PUBLISH', ARGV[18], ARGV[19])
end
return player_reply('ok', ARGV[3])
