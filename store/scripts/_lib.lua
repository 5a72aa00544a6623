-- Shared helpers, prepended to every ledger script. Amounts stay decimal strings for HINCRBY:
-- Lua numbers are doubles, so they are only compared, never written back.
-- Ledger recovery (`npm run ledger -- recover`) runs a script again for an event the archive holds: journal() then
-- appends the archived entries, with their own stream ids, seqs and text, instead of new ones. nil otherwise.
local replayed = nil

-- A script's named fields (store/scripts.ts packs them from a typed object): ARGV holds name, value, name, value...
-- Every value is a string, as ARGV always was (amounts stay decimal strings); a field left out is nil. Pairs rather
-- than one JSON text: the documents a script stores verbatim (receipts, bet-log entries) then cross as they are,
-- where cjson.decode would rescan every byte of them on each call.
local function fields()
  local f = {}
  for i = 1, #ARGV, 2 do f[ARGV[i]] = ARGV[i + 1] end
  return f
end

-- Orders two stream ids (`ms-seq`): true when a comes after b.
local function stream_id_after(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if not am or not bm then return false end
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end

-- Takes the archived entries to replay (a script's `replay` field: JSON list of {id, seq, type, at, data}; nil or ''
-- for none). Called before any write: they must continue the stream (its newest entry's seq and id; the counter when
-- it is empty), or the script stops with an error, having written nothing. The counter may be ahead: a recovery that
-- stopped fenced it.
local function replay_journal(entriesJson, streamKey, seqKey)
  if entriesJson == nil or entriesJson == '' then return end
  local entries = cjson.decode(entriesJson)
  local seq = tonumber(redis.call('GET', seqKey) or '0')
  local lastId = '0-0'
  local last = redis.call('XREVRANGE', streamKey, '+', '-', 'COUNT', 1)[1]
  if last then
    lastId = last[1]
    for i = 1, #last[2], 2 do
      if last[2][i] == 'seq' then seq = tonumber(last[2][i + 1]) end
    end
  end
  for _, e in ipairs(entries) do
    if tonumber(e.seq) ~= seq + 1 then error({err = 'REPLAY journal entry seq ' .. e.seq .. ' does not follow the journal at ' .. seq}) end
    if not stream_id_after(e.id, lastId) then error({err = 'REPLAY journal entry ' .. e.id .. ' does not follow the stream at ' .. lastId}) end
    seq = seq + 1
    lastId = e.id
  end
  replayed = entries
end

-- Appends one journal event and returns its seq.
local function journal(streamKey, seqKey, eventType, at, data)
  if replayed then
    local e = table.remove(replayed, 1)
    -- The recovery passes exactly the entries the script journals; it checks that before calling.
    if not e then error({err = 'REPLAY the script journals more events than were passed'}) end
    redis.call('XADD', streamKey, e.id, 'seq', e.seq, 'type', e.type, 'at', e.at, 'data', e.data)
    if tonumber(e.seq) > tonumber(redis.call('GET', seqKey) or '0') then redis.call('SET', seqKey, e.seq) end
    return tonumber(e.seq)
  end
  local seq = redis.call('INCR', seqKey)
  redis.call('XADD', streamKey, '*', 'seq', seq, 'type', eventType, 'at', at, 'data', data)
  return seq
end

local function neg(amount)
  if amount == '0' then return '0' end
  if string.sub(amount, 1, 1) == '-' then return string.sub(amount, 2) end
  return '-' .. amount
end

-- floor(x * bps / 10000), exact for 0 <= x < 2^53.
local function fraction(x, bps)
  local q = math.floor(x / 10000)
  local r = x - q * 10000
  if r < 0 then q = q - 1; r = r + 10000 elseif r >= 10000 then q = q + 1; r = r - 10000 end
  return q * bps + math.floor(r * bps / 10000)
end

local function num(value)
  return tonumber(value or '0') or 0
end

-- NAV = vault - total_locked (design §3): what the vault owes to players and depositors, payouts banked on open
-- tickets included. Open exposure is not owed to anyone and is not in it; it is returned beside NAV for the limits.
local function house_nav(houseKey)
  local h = redis.call('HMGET', houseKey, 'vault', 'balances', 'staked', 'banked', 'pendingWithdrawals', 'unattributed', 'lpPending', 'lpPayable', 'exposure')
  local nav = num(h[1]) - num(h[2]) - num(h[3]) - num(h[4]) - num(h[5]) - num(h[6]) - num(h[7]) - num(h[8])
  return nav, num(h[9])
end

-- Re-checks the house limits for a new stake (headroom: what its worst case adds to the house's open exposure, which
-- a ticket open checks and does not reserve); returns nil or an error reply, then NAV and the open exposure it read.
local function check_limits(houseKey, wager, maxPayout, headroom, maxExposureBps, maxPayoutBps, maxBetBps)
  local nav, exposure = house_nav(houseKey)
  if nav <= 0 then return {'err', 'house_closed', '0'}, nav end
  local maxBet = fraction(nav, maxBetBps)
  if wager > maxBet then return {'err', 'max_bet', string.format('%.0f', maxBet)}, nav end
  local maxPayoutLimit = fraction(nav, maxPayoutBps)
  if maxPayout > maxPayoutLimit then return {'err', 'max_payout', string.format('%.0f', maxPayoutLimit)}, nav end
  local maxExposure = fraction(nav, maxExposureBps)
  if headroom > 0 and exposure + headroom > maxExposure then return {'err', 'max_exposure', string.format('%.0f', maxExposure)}, nav end
  return nil, nav, exposure
end

-- The exposure a Sweeper turn reserves: within the house's maxExposure while NAV is positive. Returns as
-- check_limits does.
local function check_turn_exposure(houseKey, reserve, maxExposureBps)
  local nav, exposure = house_nav(houseKey)
  if nav <= 0 then return {'err', 'house_closed', '0'}, nav end
  local maxExposure = fraction(nav, maxExposureBps)
  if exposure + reserve > maxExposure then return {'err', 'max_exposure', string.format('%.0f', maxExposure)}, nav end
  return nil, nav, exposure
end

-- A wallet holds at most its share of maxExposure (design §10), so a few wallets cannot take all of it.
-- walletExposure: the wallet's open exposure, as the caller read it in this script.
local function check_wallet_exposure(walletExposure, reserve, nav, maxExposureBps, walletBps)
  local limit = fraction(fraction(nav, maxExposureBps), walletBps)
  if num(walletExposure) + reserve > limit then
    return {'err', 'wallet_exposure', string.format('%.0f', limit)}
  end
  return nil
end

-- Stores a per-wallet record (a prepared bet) and keeps at most `cap` of that kind per wallet: past the cap the oldest
-- is void at once (issue 16). The wallet's list is in creation order and never longer than the cap; a record saved
-- again moves to the end.
local function save_capped(recordKey, listKey, id, record, ttlMs, cap, recordKeyPrefix)
  redis.call('SET', recordKey, record, 'PX', ttlMs)
  redis.call('LREM', listKey, 0, id)
  local length = redis.call('RPUSH', listKey, id)
  while length > cap do
    redis.call('DEL', recordKeyPrefix .. redis.call('LPOP', listKey))
    length = length - 1
  end
  redis.call('PEXPIRE', listKey, ttlMs)
end

-- Gives out the next RNG index, moving to the next committed chain when this one is used up.
local function next_rng_index(rngKey)
  local r = redis.call('HMGET', rngKey, 'chainId', 'head', 'length', 'next', 'nextChainId', 'nextHead', 'nextLength')
  if not r[1] then return nil end
  local index = num(r[4])
  if index > num(r[3]) then
    if not r[5] then return nil end
    redis.call('HSET', rngKey, 'chainId', r[5], 'head', r[6], 'length', r[7], 'next', '1', 'disclosed', '0')
    redis.call('HDEL', rngKey, 'nextChainId', 'nextHead', 'nextLength')
    r[1] = r[5]; r[2] = r[6]; index = 1
  end
  redis.call('HSET', rngKey, 'next', index + 1)
  return index, r[1], r[2]
end

-- Adds to a wallet's liability (balance + staked + pending withdrawals) in the hash a commit copies at its instant
-- (anchor_snapshot.lua), which reading every player there held Redis about 5.5 µs a wallet. The player key is
-- <prefix>:{<wallet>}:player, and the ledger runs on one Redis primary, so the hash's key is derived here.
local function add_liability(playerKey, amount)
  local prefix, wallet = string.match(playerKey, '^(.*):{(.+)}:player$')
  -- '-' is the key of no wallet (store/keys.ts NO_WALLET), which has no leaf.
  if wallet == '-' then return end
  redis.call('HINCRBY', prefix .. ':liabilities', wallet, amount)
end

-- Moves a stake from the balance into play, for the player and the house.
local function lock_stake(playerKey, houseKey, stake)
  redis.call('HINCRBY', playerKey, 'balance', neg(stake))
  redis.call('HINCRBY', playerKey, 'staked', stake)
  redis.call('HINCRBY', houseKey, 'balances', neg(stake))
  redis.call('HINCRBY', houseKey, 'staked', stake)
end

-- Adds (or, with a negative amount, releases) open exposure for the player and the house.
local function add_exposure(playerKey, houseKey, amount)
  if amount == '0' or amount == '' or amount == nil then return end
  redis.call('HINCRBY', playerKey, 'exposure', amount)
  redis.call('HINCRBY', houseKey, 'exposure', amount)
end

-- Releases a settled stake, credits the payout, and books the play for both sides.
local function settle_stake(playerKey, houseKey, stake, payout, houseNet, won)
  redis.call('HINCRBY', playerKey, 'staked', neg(stake))
  redis.call('HINCRBY', playerKey, 'balance', payout)
  add_liability(playerKey, neg(stake))
  add_liability(playerKey, payout)
  redis.call('HINCRBY', playerKey, 'wagered', stake)
  redis.call('HINCRBY', playerKey, 'paidOut', payout)
  redis.call('HINCRBY', playerKey, 'plays', 1)
  if won then redis.call('HINCRBY', playerKey, 'wins', 1) end
  redis.call('HINCRBY', houseKey, 'staked', neg(stake))
  redis.call('HINCRBY', houseKey, 'balances', payout)
  redis.call('HINCRBY', houseKey, 'gameNet', houseNet)
  redis.call('HINCRBY', houseKey, 'volume', stake)
  redis.call('HINCRBY', houseKey, 'paidOut', payout)
  redis.call('HINCRBY', houseKey, 'plays', 1)
end

-- The agent's rolling window (design §9): the stakes of MCP plays committed in the last windowMs, each a zset
-- member `<id>:<stake>` scored by its commit time, with their total kept beside them, so that a check costs only
-- the entries leaving the window. Returns the total still in it.
local function agent_wagered(windowKey, totalKey, nowMs, windowMs)
  local cutoff = nowMs - windowMs
  local expired = redis.call('ZRANGEBYSCORE', windowKey, '-inf', cutoff)
  if #expired > 0 then
    local sum = 0
    for _, member in ipairs(expired) do sum = sum + num(string.match(member, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', windowKey, '-inf', cutoff)
    redis.call('DECRBY', totalKey, string.format('%.0f', sum))
  end
  return num(redis.call('GET', totalKey))
end

-- Refuses a new MCP stake that would take the window over maxWagered; nil when it fits.
local function agent_cap(windowKey, totalKey, nowMs, windowMs, maxWagered, stake)
  local wagered = agent_wagered(windowKey, totalKey, nowMs, windowMs)
  if wagered + num(stake) > maxWagered then return {'err', 'agent_wager_limit', string.format('%.0f', wagered)} end
  return nil
end

-- Books an MCP stake in the window; both keys live as long as their newest entry.
local function agent_record(windowKey, totalKey, nowMs, windowMs, id, stake)
  redis.call('ZADD', windowKey, nowMs, id .. ':' .. stake)
  redis.call('INCRBY', totalKey, stake)
  redis.call('PEXPIRE', windowKey, windowMs)
  redis.call('PEXPIRE', totalKey, windowMs)
end

-- A request path's script that Redis runs after the API stopped waiting for it (Redis hung, or the command was
-- re-sent on reconnect) must do nothing: its client was answered 503 and must not find it done later.
-- `notAfterMs` is in Redis's clock (unix ms); '0' or '' means no limit.
local function too_late(notAfterMs)
  local limit = tonumber(notAfterMs or '0') or 0
  if limit <= 0 then return false end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > limit
end

-- Ledger recovery: the chain an archived RNG index was given from — the current one, or the next one (the cursor
-- rolled over after the backup, as next_rng_index does). With `apply` it moves the cursor past the index. Returns
-- the chain id, or nil when the head is neither.
local function rng_claim(rngKey, head, index, apply)
  local r = redis.call('HMGET', rngKey, 'chainId', 'head', 'length', 'next', 'nextChainId', 'nextHead', 'nextLength')
  if r[2] == head then
    if apply and index >= num(r[4]) then redis.call('HSET', rngKey, 'next', index + 1) end
    return r[1]
  end
  if r[6] and r[6] == head then
    if apply then
      redis.call('HSET', rngKey, 'chainId', r[5], 'head', r[6], 'length', r[7], 'next', index + 1, 'disclosed', '0')
      redis.call('HDEL', rngKey, 'nextChainId', 'nextHead', 'nextLength')
    end
    return r[5]
  end
  return nil
end
