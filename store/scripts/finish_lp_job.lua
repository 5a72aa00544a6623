-- An LP job's keeper transaction landed (at the ledger's commitment). A redemption's payout leaves lpPayable and the
-- vault together (NAV unchanged); a mint moves no USDC. Idempotent.
-- KEYS: job, house, lpOpen, journal, seq
-- ARGV: jobId, signature, at, replayJson (ledger recovery: the archived journal entry, '' otherwise)
replay_journal(ARGV[4], KEYS[4], KEYS[5])
local j = redis.call('HMGET', KEYS[1], 'kind', 'status', 'value', 'alias', 'shares', 'amount')
if not j[1] then return {'err', 'not_found'} end
if j[2] == 'done' then return {'dup'} end
if j[2] ~= 'fixed' and j[2] ~= 'sent' then return {'err', 'not_fixed'} end
if j[1] == 'redeem' then
  redis.call('HINCRBY', KEYS[2], 'lpPayable', neg(j[3]))
  redis.call('HINCRBY', KEYS[2], 'vault', neg(j[3]))
  journal(KEYS[4], KEYS[5], 'lp_redeem_paid', ARGV[3], cjson.encode({ player = j[4], jobId = ARGV[1], shares = j[5], value = j[3], signature = ARGV[2] }))
else
  journal(KEYS[4], KEYS[5], 'lp_mint_confirmed', ARGV[3], cjson.encode({ player = j[4], jobId = ARGV[1], shares = j[5], amount = j[6], signature = ARGV[2] }))
end
redis.call('HSET', KEYS[1], 'status', 'done', 'signature', ARGV[2], 'doneAt', ARGV[3])
redis.call('HDEL', KEYS[1], 'wire')
redis.call('ZREM', KEYS[3], ARGV[1])
return {'ok'}
