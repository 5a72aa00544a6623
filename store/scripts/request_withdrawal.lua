-- Requests a withdrawal: moves the amount from the player's balance to pending withdrawals (NAV is unchanged) and
-- records it for the keeper. Idempotent on the client's Idempotency-Key: a repeat with the same amount answers the
-- first withdrawal; with another amount it is refused and nothing moves.
-- The keeper works through the open set in score order. A wallet's withdrawal is scored at least fairShareMs after
-- the wallet's newest one still open, so a wallet's backlog queues behind other wallets' newer requests instead of
-- ahead of them (fair queueing: each wallet's open withdrawals are spread over time, one per fairShareMs).
-- KEYS: player, idempotency, withdrawal, playerWithdrawals, walletOpen, open, house, journal, seq
-- ARGV[1]: JSON { id, wallet, amount, at, atMs, alias, notAfterMs, maxPending, fairShareMs }; amounts and ms are
-- decimal strings, so no double ever rounds them. ARGV[2]: replayJson (ledger recovery: the archived journal entry,
-- '' otherwise).
-- Run after notAfterMs (Redis clock), when its client was already told 503, it does nothing.
local a = cjson.decode(ARGV[1])
replay_journal(ARGV[2], KEYS[8], KEYS[9])
local existing = redis.call('GET', KEYS[2])
if existing then
  -- `<id> <amount>`; a record written before amounts were kept holds the id alone and answers as before.
  local id, amount = string.match(existing, '^(%S+) (%d+)$')
  if not id then return {'existing', existing} end
  if amount ~= a.amount then return {'err', 'idempotency_key_reused', id, amount} end
  return {'existing', id}
end
if too_late(a.notAfterMs) then return {'err', 'late'} end
local amount = a.amount
local balance = redis.call('HGET', KEYS[1], 'balance')
if num(amount) > num(balance) then return {'err', 'insufficient_balance', balance or '0'} end
local open = redis.call('ZCARD', KEYS[5])
if num(a.maxPending) > 0 and open >= num(a.maxPending) then return {'err', 'pending_withdrawal_limit', tostring(open)} end
local score = num(a.atMs)
local newest = redis.call('ZREVRANGE', KEYS[5], 0, 0, 'WITHSCORES')
if newest[2] and num(newest[2]) + num(a.fairShareMs) > score then score = num(newest[2]) + num(a.fairShareMs) end
score = string.format('%.0f', score)
redis.call('HINCRBY', KEYS[1], 'balance', neg(amount))
redis.call('HINCRBY', KEYS[1], 'pendingWithdrawals', amount)
redis.call('HINCRBY', KEYS[7], 'balances', neg(amount))
redis.call('HINCRBY', KEYS[7], 'pendingWithdrawals', amount)
redis.call('HSET', KEYS[3], 'id', a.id, 'wallet', a.wallet, 'alias', a.alias, 'amount', amount, 'status', 'pending',
  'createdAt', a.at, 'createdAtMs', a.atMs)
redis.call('ZADD', KEYS[4], a.atMs, a.id)
redis.call('ZADD', KEYS[5], score, a.id)
redis.call('ZADD', KEYS[6], score, a.id)
redis.call('SET', KEYS[2], a.id .. ' ' .. amount)
journal(KEYS[8], KEYS[9], 'withdrawal_requested', a.at, cjson.encode({ player = a.alias, id = a.id, amount = amount }))
return {'ok', a.id}
