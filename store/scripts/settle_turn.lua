-- Settles one committed turn exactly once: releases the exposure the turn reserved, and moves the payout banked on
-- its play to what the play is now owed above its stake (design §3: a liability, in total_locked). A turn that ends
-- its play (every Dice bet; the Sweeper turn that busts, clears, cashes out or forfeits the ticket) also releases the
-- play's stake, credits the payout, appends the bet-log entry and writes the receipt. Idempotent on the turn's
-- betPayloadHash.
-- A play that spans turns (a Sweeper ticket) keeps its state on its own hash: the ledger's fields (status, banked,
-- pendingTurn, activeAtMs, and at the end endedAt, payout, outcome, closedBy) and the game's own, passed as
-- `state.<name>` fields and written as they are, whatever the game.
-- With an empty hash it closes an idle play instead (design §10), through the same writes: the play must be
-- running, with no turn in flight, and last active at or before the cutoff.
-- KEYS: player, bet, play (the ticket), activePlay (the wallet's active ticket), house, journal, seq, pending,
--       deadlines, betLog, receipt, rng, recent, idlePlays
-- Fields (store/script-fields.ts SettleTurnFields):
--   hash ('' to close an idle play), wallet, settlement, settledAt, settledAtMs, disclosedIndex ('0' for none),
--   turnEventType, turnEventJson (absent for none),
--   playId, playStatus, playBanked, playOutcome, state.<name>... (present when the turn belongs to a play that spans
--   turns; playBanked is what the play is owed above its stake after this turn, '0' when it ends),
--   idleCutoffMs, closedBy (an idle close),
--   ended ('1' when the turn ends its play), then payout, houseNet, won ('1' or '0'), receiptJson, entryJson (the
--   bet-log entry's JCS text, kept beside the receipt body for entry bundles), betLogItem, endEventType, endEventJson,
--   recentJson, livePlayJson (the public play of design §8, absent for none), playsChannel,
--   replay (ledger recovery: the archived journal entries this settlement wrote)
local playerKey, betKey, playKey, activePlayKey, houseKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local journalKey, seqKey, pendingKey, deadlinesKey = KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local betLogKey, receiptKey, rngKey, recentKey, idleKey = KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[14]
local f = fields()
local hash, wallet = f.hash, f.wallet
replay_journal(f.replay, journalKey, seqKey)
local idle = hash == ''
-- The player's totals after it, and the seq of the play's settle event when this turn ended it.
local function player_reply(kind, settlement, endSeq)
  local pl = redis.call('HMGET', playerKey, 'balance', 'staked', 'exposure', 'nonce')
  return {kind, settlement, pl[1] or '0', pl[2] or '0', pl[3] or '0', pl[4] or '0', endSeq}
end
local inPlay = f.playStatus ~= nil
local stake, turnExposure, rngChainId
-- A ticket opened before turns reserved their own exposure holds its full board until it ends.
local playExposure, banked = '0', '0'
if idle then
  if not inPlay then return {'err', 'not_found'} end
else
  local b = redis.call('HMGET', betKey, 'wallet', 'state', 'settlement', 'rngChainId', 'stake', 'exposureDelta')
  if not b[1] or b[1] ~= wallet then return {'err', 'not_found'} end
  if b[2] == 'settled' then return player_reply('dup', b[3]) end
  stake, turnExposure, rngChainId = b[5], b[6] or '0', b[4]
end
if inPlay then
  local t = redis.call('HMGET', playKey, 'pendingTurn', 'wager', 'exposureDelta', 'status', 'wallet', 'activeAtMs', 'banked')
  if idle then
    if t[5] ~= wallet then return {'err', 'not_found'} end
    if t[4] ~= 'running' then return {'err', 'ticket_not_running'} end
    if t[1] and t[1] ~= '' then
      -- A turn in flight follows the reveal-deadline rule; its settlement puts the play back among the idle ones.
      redis.call('ZREM', idleKey, f.playId)
      return {'err', 'turn_pending'}
    end
    if num(t[6]) > num(f.idleCutoffMs) then return {'err', 'not_idle'} end
  elseif t[1] ~= hash or t[4] ~= 'running' then
    return {'err', 'ticket_state'}
  end
  stake, playExposure, banked = t[2], t[3] or '0', t[7] or '0'
end

if not idle then
  redis.call('HSET', betKey, 'state', 'settled', 'settlement', f.settlement)
  redis.call('SREM', pendingKey, hash)
  redis.call('ZREM', deadlinesKey, hash)
  add_exposure(playerKey, houseKey, neg(turnExposure))
end
if inPlay then
  if banked ~= f.playBanked then
    redis.call('HINCRBY', houseKey, 'banked', neg(banked))
    redis.call('HINCRBY', houseKey, 'banked', f.playBanked)
  end
  local write = {'pendingTurn', '', 'status', f.playStatus, 'banked', f.playBanked}
  for i = 1, #ARGV, 2 do
    local name = string.match(ARGV[i], '^state%.(.+)$')
    if name then
      write[#write + 1] = name
      write[#write + 1] = ARGV[i + 1]
    end
  end
  if f.playStatus == 'running' then
    write[#write + 1] = 'activeAtMs'
    write[#write + 1] = f.settledAtMs
    redis.call('ZADD', idleKey, f.settledAtMs, f.playId)
  else
    redis.call('ZREM', idleKey, f.playId)
  end
  redis.call('HSET', playKey, unpack(write))
end
local disclosed = tonumber(f.disclosedIndex)
if disclosed > 0 then
  local r = redis.call('HMGET', rngKey, 'chainId', 'disclosed')
  if r[1] == rngChainId and disclosed > num(r[2]) then redis.call('HSET', rngKey, 'disclosed', f.disclosedIndex) end
end
if f.turnEventType and f.turnEventType ~= '' then journal(journalKey, seqKey, f.turnEventType, f.settledAt, f.turnEventJson) end

local endSeq = nil
if f.ended == '1' then
  if inPlay then
    redis.call('HSET', playKey, 'endedAt', f.settledAt, 'payout', f.payout, 'outcome', f.playOutcome)
    if f.closedBy and f.closedBy ~= '' then redis.call('HSET', playKey, 'closedBy', f.closedBy) end
    redis.call('DEL', activePlayKey)
  end
  add_exposure(playerKey, houseKey, neg(playExposure))
  settle_stake(playerKey, houseKey, stake, f.payout, f.houseNet, f.won == '1')
  redis.call('RPUSH', betLogKey, f.betLogItem)
  redis.call('HSET', receiptKey, 'body', f.receiptJson, 'entry', f.entryJson)
  -- Readers take at most the newest 50; trimming only past 64 spares most settlements a command.
  if redis.call('LPUSH', recentKey, f.recentJson) > 64 then redis.call('LTRIM', recentKey, 0, 49) end
  local seq = journal(journalKey, seqKey, f.endEventType, f.settledAt, f.endEventJson)
  endSeq = string.format('%d', seq)
  -- Live feeds get the play with the seq of its settle event, so a client can resume from the journal.
  if f.livePlayJson and f.livePlayJson ~= '' then
    redis.call('PUBLISH', f.playsChannel, '{"seq":' .. string.format('%d', seq) .. ',"play":' .. f.livePlayJson .. '}')
  end
end
return player_reply('ok', f.settlement, endSeq)
