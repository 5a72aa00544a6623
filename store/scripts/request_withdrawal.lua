-- Requests a withdrawal: moves the amount from the player's balance to pending withdrawals (NAV is unchanged) and
-- records it for the keeper. Idempotent on the client's Idempotency-Key: a repeat answers the first withdrawal.
-- KEYS: player, idempotency, withdrawal, playerWithdrawals, open, house, journal, seq
-- ARGV: id, wallet, amount, at, atMs, alias, notAfterMs, replayJson (ledger recovery: the archived journal entry, '' otherwise)
-- Run after notAfterMs (Redis clock), when its client was already told 503, it does nothing.
replay_journal(ARGV[8], KEYS[7], KEYS[8])
local existing = redis.call('GET', KEYS[2])
if existing then return {'existing', existing} end
if too_late(ARGV[7]) then return {'err', 'late'} end
local amount = ARGV[3]
local balance = redis.call('HGET', KEYS[1], 'balance')
if num(amount) > num(balance) then return {'err', 'insufficient_balance', balance or '0'} end
redis.call('HINCRBY', KEYS[1], 'balance', neg(amount))
redis.call('HINCRBY', KEYS[1], 'pendingWithdrawals', amount)
redis.call('HINCRBY', KEYS[6], 'balances', neg(amount))
redis.call('HINCRBY', KEYS[6], 'pendingWithdrawals', amount)
redis.call('HSET', KEYS[3], 'id', ARGV[1], 'wallet', ARGV[2], 'alias', ARGV[6], 'amount', amount, 'status', 'pending',
  'createdAt', ARGV[4], 'createdAtMs', ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[5], ARGV[1])
redis.call('SET', KEYS[2], ARGV[1])
journal(KEYS[7], KEYS[8], 'withdrawal_requested', ARGV[4], cjson.encode({ player = ARGV[6], id = ARGV[1], amount = amount }))
return {'ok', ARGV[1]}
