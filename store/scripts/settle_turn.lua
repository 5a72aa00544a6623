-- Settles one committed turn exactly once: releases the exposure the turn reserved, and moves the payout banked on
-- its ticket to what the ticket is now owed above its stake (design §3: a liability, in total_locked). A turn that
-- ends its play (every Dice bet; the Sweeper turn that busts, clears, cashes out or forfeits the ticket) also releases
-- the play's stake, credits the payout, appends the bet-log entry and writes the receipt. Idempotent on the turn's
-- betPayloadHash.
-- With an empty betPayloadHash it closes an idle Sweeper ticket instead (design §10), through the same writes: the
-- ticket must be running, with no turn in flight, and last active at or before the cutoff.
-- KEYS: player, bet, ticket, activeTicket, house, journal, seq, pending, deadlines, betLog, receipt, rng, recent, idleTickets
-- ARGV: 1 betPayloadHash ('' to close an idle ticket), 2 wallet, 3 settlementJson, 4 settledAt, 5 disclosedIndex,
--       6 turnEventType ('' for none), 7 turnEventJson, 8 inTicket ('1' when the play is a ticket), 9 rowsWon,
--       10 ticketStatus, 11 turnsJson, 12 ended ('1' or '0'), 13 payout, 14 houseNet, 15 won ('1' or '0'),
--       16 receiptJson, 17 betLogItem, 18 endEventType, 19 endEventJson, 20 recentJson, 21 outcome, 22 playsChannel,
--       23 playJson (the public play of design §8, '' for none), 24 settledAtMs, 25 ticketId, 26 idleCutoffMs, 27 closedBy ('' or 'idle'),
--       28 entryJson (the bet-log entry's JCS text, kept beside the receipt body for entry bundles),
--       29 banked (what the ticket is owed above its stake after this turn; '0' when it ends)
--       30 replayJson (ledger recovery: the archived journal entries this settlement wrote, '' otherwise)
local hash, wallet = ARGV[1], ARGV[2]
replay_journal(ARGV[30], KEYS[6], KEYS[7])
local idle = hash == ''
local function player_reply(kind, settlement)
  local pl = redis.call('HMGET', KEYS[1], 'balance', 'staked', 'exposure', 'nonce')
  return {kind, settlement, pl[1] or '0', pl[2] or '0', pl[3] or '0', pl[4] or '0'}
end
local inTicket = ARGV[8] == '1'
local stake, turnExposure, rngChainId
-- A ticket opened before turns reserved their own exposure holds its full board until it ends.
local ticketExposure, banked = '0', '0'
if idle then
  if not inTicket then return {'err', 'not_found'} end
else
  local b = redis.call('HMGET', KEYS[2], 'wallet', 'state', 'settlement', 'rngChainId', 'stake', 'exposureDelta')
  if not b[1] or b[1] ~= wallet then return {'err', 'not_found'} end
  if b[2] == 'settled' then return player_reply('dup', b[3]) end
  stake, turnExposure, rngChainId = b[5], b[6] or '0', b[4]
end
if inTicket then
  local t = redis.call('HMGET', KEYS[3], 'pendingTurn', 'wager', 'exposureDelta', 'status', 'wallet', 'activeAtMs', 'banked')
  if idle then
    if t[5] ~= wallet then return {'err', 'not_found'} end
    if t[4] ~= 'running' then return {'err', 'ticket_not_running'} end
    if t[1] and t[1] ~= '' then
      -- A turn in flight follows the reveal-deadline rule; its settlement puts the ticket back among the idle ones.
      redis.call('ZREM', KEYS[14], ARGV[25])
      return {'err', 'turn_pending'}
    end
    if num(t[6]) > num(ARGV[26]) then return {'err', 'not_idle'} end
  elseif t[1] ~= hash or t[4] ~= 'running' then
    return {'err', 'ticket_state'}
  end
  stake, ticketExposure, banked = t[2], t[3] or '0', t[7] or '0'
end

if not idle then
  redis.call('HSET', KEYS[2], 'state', 'settled', 'settlement', ARGV[3])
  redis.call('SREM', KEYS[8], hash)
  redis.call('ZREM', KEYS[9], hash)
  add_exposure(KEYS[1], KEYS[5], neg(turnExposure))
end
if inTicket then
  if banked ~= ARGV[29] then
    redis.call('HINCRBY', KEYS[5], 'banked', neg(banked))
    redis.call('HINCRBY', KEYS[5], 'banked', ARGV[29])
  end
  redis.call('HSET', KEYS[3], 'pendingTurn', '', 'rowsWon', ARGV[9], 'status', ARGV[10], 'turns', ARGV[11], 'banked', ARGV[29])
  if ARGV[10] == 'running' then
    redis.call('HSET', KEYS[3], 'activeAtMs', ARGV[24])
    redis.call('ZADD', KEYS[14], ARGV[24], ARGV[25])
  else
    redis.call('ZREM', KEYS[14], ARGV[25])
  end
end
local disclosed = tonumber(ARGV[5])
if disclosed > 0 then
  local r = redis.call('HMGET', KEYS[12], 'chainId', 'disclosed')
  if r[1] == rngChainId and disclosed > num(r[2]) then redis.call('HSET', KEYS[12], 'disclosed', ARGV[5]) end
end
if ARGV[6] ~= '' then journal(KEYS[6], KEYS[7], ARGV[6], ARGV[4], ARGV[7]) end

if ARGV[12] == '1' then
  if inTicket then
    redis.call('HSET', KEYS[3], 'endedAt', ARGV[4], 'payout', ARGV[13], 'outcome', ARGV[21])
    if ARGV[27] ~= '' then redis.call('HSET', KEYS[3], 'closedBy', ARGV[27]) end
    redis.call('DEL', KEYS[4])
  end
  add_exposure(KEYS[1], KEYS[5], neg(ticketExposure))
  settle_stake(KEYS[1], KEYS[5], stake, ARGV[13], ARGV[14], ARGV[15] == '1')
  redis.call('RPUSH', KEYS[10], ARGV[17])
  redis.call('HSET', KEYS[11], 'body', ARGV[16], 'entry', ARGV[28])
  redis.call('LPUSH', KEYS[13], ARGV[20])
  redis.call('LTRIM', KEYS[13], 0, 49)
  local seq = journal(KEYS[6], KEYS[7], ARGV[18], ARGV[4], ARGV[19])
  -- Live feeds get the play with the seq of its settle event, so a client can resume from the journal.
  if ARGV[23] ~= '' then
    redis.call('PUBLISH', ARGV[22], '{"seq":' .. string.format('%d', seq) .. ',"play":' .. ARGV[23] .. '}')
  end
end
return player_reply('ok', ARGV[3])
