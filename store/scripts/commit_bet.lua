-- Commits a prepared bet: re-checks nonce, key, commitment, balance and limits, locks the stake,
-- assigns the RNG index and records the pending bet, all at once. Idempotent on betPayloadHash.
-- A Dice bet reserves its worst case (payout - stake) as exposure; a Sweeper turn reserves only its own increment (what
-- the ticket would be owed if the row clears, minus what it is owed now), its stake being locked at ticket open. Each is
-- checked against maxExposure and the wallet's share of it (design §10). While the house's open exposure, this bet's
-- included, is above scarceExposureBps of maxExposure, the bet gets the short reveal deadline instead: holding scarce
-- exposure then costs its holder the house edge on the stakes that hold it every few minutes, not once a day.
-- An MCP stake also counts against the wallet's agent window, checked and booked here (design §9).
-- A wallet holds at most maxUnrevealed committed bets awaiting their reveal (a Sweeper turn, one per ticket,
-- is not counted). Run after notAfterMs (Redis clock), when its client was already told 503, it does nothing.
-- Replies {'ok' or 'dup', betNonce, rngIndex, rngChainHead, committedAt, revealDeadline, state}; 'ok' goes on with the
-- stored bet's game, payload, wager, stake, maxPayout, sessionPubkey, commitment, rngChainId, revealDeadlineMs,
-- ticketId, turn and source.
-- KEYS: player, sessionKeys, prepared, bet, commitments, house, rng, journal, seq, pending, deadlines, ticket,
--       agentWagers, agentWagered, walletPrepared
-- Fields (store/script-fields.ts): hash (betPayloadHash), wallet, nowMs, committedAt, revealDeadlineMs, revealDeadline,
--       maxExposureBps, maxPayoutBps, maxBetBps, sessionSignature, agentMaxWagered, agentWindowMs,
--       maxUnrevealed, notAfterMs, maxWalletExposureBps, shortRevealDeadlineMs, shortRevealDeadline, scarceExposureBps
local f = fields()
local hash, wallet = f.hash, f.wallet
local existing = redis.call('HMGET', KEYS[4], 'wallet', 'betNonce', 'rngIndex', 'rngChainHead', 'committedAt', 'revealDeadline', 'state')
if existing[1] then
  if existing[1] ~= wallet then return {'err', 'not_found'} end
  return {'dup', existing[2], existing[3], existing[4], existing[5], existing[6], existing[7]}
end
if too_late(f.notAfterMs) then return {'err', 'late'} end
local raw = redis.call('GET', KEYS[3])
if not raw then return {'err', 'not_prepared'} end
local prep = cjson.decode(raw)
local p = { prep.wallet, prep.payload, prep.wager, prep.maxPayout, prep.exposureDelta, prep.sessionPubkey,
  prep.commitment, prep.betNonce, prep.expiresAtMs, prep.game, prep.ticketId, prep.turn }
if p[1] ~= wallet then return {'err', 'not_prepared'} end
if num(p[9]) < num(f.nowMs) then return {'err', 'expired'} end
local keyState = redis.call('HGET', KEYS[2], p[6])
if not keyState or cjson.decode(keyState).status ~= 'active' then return {'err', 'session_key'} end

local ticketId = p[11]
local isTurn = ticketId and ticketId ~= ''
if isTurn then
  -- A Sweeper turn: the ticket must be waiting for exactly this turn.
  local t = redis.call('HMGET', KEYS[12], 'wallet', 'status', 'pendingTurn', 'rowsWon')
  if t[1] ~= wallet or t[2] ~= 'running' then return {'err', 'ticket_not_running'} end
  if t[3] and t[3] ~= '' then return {'err', 'turn_pending'} end
  local payload = cjson.decode(p[2])
  if payload.params.turn == 'choice' and tonumber(payload.params.row) ~= num(t[4]) then return {'err', 'row_order'} end
  if payload.params.turn == 'cashout' and num(t[4]) < 1 then return {'err', 'cashout_zero'} end
end
local player = redis.call('HMGET', KEYS[1], 'balance', 'nonce', 'alias', 'exposure')
if num(p[8]) ~= num(player[2]) then return {'err', 'stale_nonce'} end
if redis.call('SISMEMBER', KEYS[5], p[7]) == 1 then return {'err', 'commitment_used'} end
if not isTurn and redis.call('SCARD', KEYS[10]) >= num(f.maxUnrevealed) then return {'err', 'unrevealed_limit'} end

local stake = p[3]
local exposureDelta = p[5] or '0'
-- NAV and the house's open exposure as the limit check read them: this script moves stakes only between locked
-- totals, so NAV stays, and the exposure grows by exactly exposureDelta.
local nav, houseExposure
if isTurn then
  -- The stake was locked when the ticket opened.
  stake = '0'
  if num(exposureDelta) > 0 then
    local limitError
    limitError, nav, houseExposure = check_turn_exposure(KEYS[6], num(exposureDelta), num(f.maxExposureBps))
    if limitError then return limitError end
    local walletError = check_wallet_exposure(player[4], num(exposureDelta), nav, num(f.maxExposureBps), num(f.maxWalletExposureBps))
    if walletError then return walletError end
  end
else
  if num(stake) > num(player[1]) then return {'err', 'insufficient_balance', player[1] or '0'} end
  local limitError
  limitError, nav, houseExposure = check_limits(KEYS[6], num(stake), num(p[4]), num(exposureDelta), num(f.maxExposureBps), num(f.maxPayoutBps), num(f.maxBetBps))
  if limitError then return limitError end
  if num(exposureDelta) > 0 then
    local walletError = check_wallet_exposure(player[4], num(exposureDelta), nav, num(f.maxExposureBps), num(f.maxWalletExposureBps))
    if walletError then return walletError end
  end
end
local agentStake = prep.source == 'mcp' and stake ~= '0'
if agentStake then
  local capError = agent_cap(KEYS[13], KEYS[14], num(f.nowMs), num(f.agentWindowMs), num(f.agentMaxWagered), stake)
  if capError then return capError end
end

local rngIndex, chainId, chainHead = next_rng_index(KEYS[7])
if not rngIndex then return {'err', 'rng_exhausted'} end

if stake ~= '0' then lock_stake(KEYS[1], KEYS[6], stake) end
add_exposure(KEYS[1], KEYS[6], exposureDelta)
local deadlineMs, deadline = f.revealDeadlineMs, f.revealDeadline
if f.shortRevealDeadlineMs and f.shortRevealDeadlineMs ~= '' and num(exposureDelta) > 0 then
  local exposure = houseExposure + num(exposureDelta)
  if exposure > fraction(fraction(nav, num(f.maxExposureBps)), num(f.scarceExposureBps)) then deadlineMs, deadline = f.shortRevealDeadlineMs, f.shortRevealDeadline end
end
if agentStake then agent_record(KEYS[13], KEYS[14], f.nowMs, num(f.agentWindowMs), hash, stake) end
redis.call('HINCRBY', KEYS[1], 'nonce', 1)
redis.call('SADD', KEYS[5], p[7])
redis.call('HSET', KEYS[4], 'wallet', wallet, 'state', 'committed', 'game', p[10], 'payload', p[2], 'wager', p[3],
  'stake', stake, 'maxPayout', p[4], 'exposureDelta', exposureDelta, 'sessionPubkey', p[6], 'commitment', p[7],
  'betNonce', p[8], 'rngIndex', rngIndex, 'rngChainId', chainId, 'rngChainHead', chainHead,
  'committedAt', f.committedAt, 'revealDeadline', deadline, 'revealDeadlineMs', deadlineMs, 'ticketId', ticketId or '',
  'turn', p[12] or '', 'commitSignature', f.sessionSignature, 'source', prep.source or 'api')
if isTurn then redis.call('HSET', KEYS[12], 'pendingTurn', hash) end
redis.call('DEL', KEYS[3])
redis.call('LREM', KEYS[15], 0, hash)
redis.call('SADD', KEYS[10], hash)
redis.call('ZADD', KEYS[11], deadlineMs, hash)
journal(KEYS[8], KEYS[9], 'bet_committed', f.committedAt, cjson.encode({
  game = p[10], player = player[3], betPayloadHash = hash, betNonce = tonumber(p[8]), rngIndex = rngIndex,
  rngChainHead = chainHead, wager = p[3], ticketId = ticketId }))
-- The bet as stored, so the process that took the commit can reveal it without reading it back.
return {'ok', p[8], tostring(rngIndex), chainHead, f.committedAt, deadline, 'committed', p[10], p[2], p[3], stake, p[4],
  p[6], p[7], tostring(chainId), tostring(deadlineMs), ticketId or '', p[12] or '', prep.source or 'api'}
