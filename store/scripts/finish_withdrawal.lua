-- A withdrawal landed on-chain (at the ledger's commitment): its amount leaves pending withdrawals and the vault
-- together, so NAV is unchanged. Idempotent. A withdrawal returned to the balance is never finished: the keeper
-- returns one only when none of its transactions can land.
-- KEYS: withdrawal, player, house, open, walletOpen, journal, seq
-- ARGV: signature, at, replayJson (ledger recovery: the archived journal entry, '' otherwise)
replay_journal(ARGV[3], KEYS[6], KEYS[7])
local w = redis.call('HMGET', KEYS[1], 'id', 'amount', 'status', 'alias')
if not w[1] then return {'err', 'not_found'} end
if w[3] == 'finalized' then return {'dup'} end
if w[3] == 'returned' then return {'err', 'returned'} end
local amount = w[2]
redis.call('HINCRBY', KEYS[2], 'pendingWithdrawals', neg(amount))
add_liability(KEYS[2], neg(amount))
redis.call('HINCRBY', KEYS[3], 'pendingWithdrawals', neg(amount))
redis.call('HINCRBY', KEYS[3], 'vault', neg(amount))
redis.call('HSET', KEYS[1], 'status', 'finalized', 'signature', ARGV[1], 'finalizedAt', ARGV[2])
redis.call('HDEL', KEYS[1], 'wire')
redis.call('ZREM', KEYS[4], w[1])
redis.call('ZREM', KEYS[5], w[1])
journal(KEYS[6], KEYS[7], 'withdrawal_paid', ARGV[2], cjson.encode({ player = w[4], id = w[1], amount = amount, signature = ARGV[1] }))
return {'ok'}
