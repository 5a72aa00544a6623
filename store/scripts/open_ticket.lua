-- Opens a Sweeper ticket: one active ticket per wallet; locks the stake. The full-board payout must fit maxPayout and
-- the headroom under maxExposure (design §4), but none of it is reserved: only a turn in flight holds exposure, its own
-- increment (commit_bet), so an idle ticket holds none (design §10).
-- The ticket joins the idle index (design §10), scored by its last activity. An MCP ticket's stake counts
-- against the wallet's agent window at open (design §9).
-- KEYS: player, sessionKeys, activeTicket, ticket, house, journal, seq, idleTickets, agentWagers, agentWagered
-- Fields (store/script-fields.ts): wallet, ticketId, mode, wager, fullPayout, headroom, sessionPubkey, createdAt, serverSeedHash,
--       maxExposureBps, maxPayoutBps, maxBetBps, source, nowMs, agentMaxWagered, agentWindowMs, notAfterMs
-- Run again for the same ticket id (a re-send after a lost reply) it answers as the first run did; run after
-- notAfterMs (Redis clock), when its client was already told 503, it does nothing.
local f = fields()
local wallet, ticketId, wager, headroom = f.wallet, f.ticketId, f.wager, f.headroom
local active = redis.call('GET', KEYS[3])
if active == ticketId then return {'ok', redis.call('HGET', KEYS[4], 'nonce') or '0'} end
if active then return {'err', 'ticket_active', active} end
if too_late(f.notAfterMs) then return {'err', 'late'} end
local keyState = redis.call('HGET', KEYS[2], f.sessionPubkey)
if not keyState or cjson.decode(keyState).status ~= 'active' then return {'err', 'session_key'} end
local player = redis.call('HMGET', KEYS[1], 'balance', 'nonce', 'alias')
if num(wager) > num(player[1]) then return {'err', 'insufficient_balance', player[1] or '0'} end
local limitError = check_limits(KEYS[5], num(wager), num(f.fullPayout), num(headroom), num(f.maxExposureBps), num(f.maxPayoutBps), num(f.maxBetBps))
if limitError then return limitError end
local agentStake = f.source == 'mcp'
if agentStake then
  local capError = agent_cap(KEYS[9], KEYS[10], num(f.nowMs), num(f.agentWindowMs), num(f.agentMaxWagered), wager)
  if capError then return capError end
end

redis.call('SET', KEYS[3], ticketId)
redis.call('HSET', KEYS[4], 'wallet', wallet, 'status', 'running', 'mode', f.mode, 'wager', wager, 'fullPayout', f.fullPayout,
  'banked', '0', 'rowsWon', '0', 'pendingTurn', '', 'createdAt', f.createdAt, 'nonce', player[2] or '0',
  'serverSeedHash', f.serverSeedHash, 'turns', '[]', 'source', f.source, 'activeAtMs', f.nowMs)
redis.call('ZADD', KEYS[8], f.nowMs, ticketId)
lock_stake(KEYS[1], KEYS[5], wager)
if agentStake then agent_record(KEYS[9], KEYS[10], f.nowMs, num(f.agentWindowMs), ticketId, wager) end
journal(KEYS[6], KEYS[7], 'ticket_opened', f.createdAt, cjson.encode({ game = 'sweeper', player = player[3], ticketId = ticketId, mode = f.mode, wager = wager }))
return {'ok', player[2] or '0'}
