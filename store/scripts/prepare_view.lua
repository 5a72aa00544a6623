-- Everything prepare checks, read at one instant: the session key, whether the commitment was used,
-- the player's balance, nonce and open exposure, and the house totals behind the limits. Writes nothing.
-- KEYS: sessionKeys, commitments, player, house
-- ARGV: sessionPubkey, commitment
local key = redis.call('HGET', KEYS[1], ARGV[1])
local status = ''
if key then status = cjson.decode(key).status end
local used = redis.call('SISMEMBER', KEYS[2], ARGV[2])
local player = redis.call('HMGET', KEYS[3], 'balance', 'nonce', 'exposure')
local house = redis.call('HMGET', KEYS[4], 'vault', 'balances', 'staked', 'exposure', 'pendingWithdrawals', 'unattributed', 'lpPending', 'lpPayable', 'banked')
return {status, used, player[1] or '0', player[2] or '0', house[1] or '0', house[2] or '0', house[3] or '0', house[4] or '0',
  house[5] or '0', house[6] or '0', house[7] or '0', house[8] or '0', house[9] or '0', player[3] or '0'}
