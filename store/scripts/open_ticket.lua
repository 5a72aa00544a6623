-- Opens a Sweeper ticket: one active ticket per wallet; locks the stake. The full-board payout must fit maxPayout and
-- the headroom under maxExposure (design §4), but none of it is reserved: only a turn in flight holds exposure, its own
-- increment (commit_bet), so an idle ticket holds none (design §10).
-- The ticket joins the idle index (design §10), scored by its last activity. An MCP ticket's stake counts
-- against the wallet's agent window at open (design §9).
-- KEYS: player, sessionKeys, activeTicket, ticket, house, journal, seq, idleTickets, agentWagers, agentWagered
-- ARGV: wallet, ticketId, mode, wager, fullPayout, headroom, sessionPubkey, createdAt, serverSeedHash,
--       maxExposureBps, maxPayoutBps, maxBetBps, source, nowMs, agentMaxWagered, agentWindowMs, notAfterMs
-- Run again for the same ticket id (a re-send after a lost reply) it answers as the first run did; run after
-- notAfterMs (Redis clock), when its client was already told 503, it does nothing.
local wallet, ticketId, wager, headroom = ARGV[1], ARGV[2], ARGV[4], ARGV[6]
local active = redis.call('GET', KEYS[3])
if active == ticketId then return {'ok', redis.call('HGET', KEYS[4], 'nonce') or '0'} end
if active then return {'err', 'ticket_active', active} end
if too_late(ARGV[17]) then return {'err', 'late'} end
local keyState = redis.call('HGET', KEYS[2], ARGV[7])
if not keyState or cjson.decode(keyState).status ~= 'active' then return {'err', 'session_key'} end
local player = redis.call('HMGET', KEYS[1], 'balance', 'nonce', 'alias')
if num(wager) > num(player[1]) then return {'err', 'insufficient_balance', player[1] or '0'} end
local limitError = check_limits(KEYS[5], num(wager), num(ARGV[5]), num(headroom), num(ARGV[10]), num(ARGV[11]), num(ARGV[12]))
if limitError then return limitError end
local agentStake = ARGV[13] == 'mcp'
if agentStake then
  local capError = agent_cap(KEYS[9], KEYS[10], num(ARGV[14]), num(ARGV[16]), num(ARGV[15]), wager)
  if capError then return capError end
end

redis.call('SET', KEYS[3], ticketId)
redis.call('HSET', KEYS[4], 'wallet', wallet, 'status', 'running', 'mode', ARGV[3], 'wager', wager, 'fullPayout', ARGV[5],
  'banked', '0', 'rowsWon', '0', 'pendingTurn', '', 'createdAt', ARGV[8], 'nonce', player[2] or '0',
  'serverSeedHash', ARGV[9], 'turns', '[]', 'source', ARGV[13], 'activeAtMs', ARGV[14])
redis.call('ZADD', KEYS[8], ARGV[14], ticketId)
lock_stake(KEYS[1], KEYS[5], wager)
if agentStake then agent_record(KEYS[9], KEYS[10], ARGV[14], num(ARGV[16]), ticketId, wager) end
journal(KEYS[6], KEYS[7], 'ticket_opened', ARGV[8], cjson.encode({ game = 'sweeper', player = player[3], ticketId = ticketId, mode = ARGV[3], wager = wager }))
return {'ok', player[2] or '0'}
