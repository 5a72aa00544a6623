-- The keeper cannot pay a withdrawal without paying rent for the wallet's token account (it no longer exists, or it
-- is frozen), and none of the withdrawal's transactions can land any more: its amount goes back from pending
-- withdrawals to the balance (NAV is unchanged) and the journal says why. A compare-and-set on the stored signature,
-- as store_keeper_tx: a keeper that read a record another one has since moved on returns nothing.
-- KEYS: withdrawal, player, house, open, walletOpen, journal, seq
-- ARGV[1]: JSON { expectedSignature ('' when none was stored), reason, at }
-- ARGV[2]: replayJson (ledger recovery: the archived journal entry, '' otherwise)
local a = cjson.decode(ARGV[1])
replay_journal(ARGV[2], KEYS[6], KEYS[7])
local w = redis.call('HMGET', KEYS[1], 'id', 'amount', 'status', 'alias', 'signature')
if not w[1] then return {'err', 'not_found'} end
if w[3] == 'finalized' or w[3] == 'returned' then return {'err', 'done'} end
if (w[5] or '') ~= a.expectedSignature then return {'err', 'stale'} end
local amount = w[2]
redis.call('HINCRBY', KEYS[2], 'pendingWithdrawals', neg(amount))
redis.call('HINCRBY', KEYS[2], 'balance', amount)
redis.call('HINCRBY', KEYS[3], 'pendingWithdrawals', neg(amount))
redis.call('HINCRBY', KEYS[3], 'balances', amount)
redis.call('HSET', KEYS[1], 'status', 'returned', 'returnedAt', a.at, 'returnReason', a.reason)
redis.call('HDEL', KEYS[1], 'wire')
redis.call('ZREM', KEYS[4], w[1])
redis.call('ZREM', KEYS[5], w[1])
journal(KEYS[6], KEYS[7], 'withdrawal_returned', a.at, cjson.encode({ player = w[4], id = w[1], amount = amount, reason = a.reason }))
return {'ok'}
