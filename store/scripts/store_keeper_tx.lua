-- Stores a keeper job's signed transaction before it is sent (design §3), as a compare-and-set on the signature
-- stored before: a keeper that raced another, or read a stale record, stores nothing and starts over. `signatures`
-- keeps every signature ever stored for the job: the durable record the keeper checks for a payment already made.
-- KEYS: job (a withdrawal or an LP job)
-- ARGV: expectedSignature ('' when none was stored), signature, wire, lastValidBlockHeight
local h = redis.call('HMGET', KEYS[1], 'status', 'signature', 'signatures')
if not h[1] then return {'err', 'not_found'} end
if h[1] == 'finalized' or h[1] == 'done' or h[1] == 'returned' then return {'err', 'done'} end
-- An LP job is built only from the numbers fixed in the ledger.
if h[1] == 'queued' then return {'err', 'not_fixed'} end
if (h[2] or '') ~= ARGV[1] then return {'err', 'stale'} end
local signatures = h[3] or ''
if signatures ~= '' then signatures = signatures .. ',' end
redis.call('HSET', KEYS[1], 'status', 'sent', 'signature', ARGV[2], 'wire', ARGV[3], 'lastValidBlockHeight', ARGV[4],
  'signatures', signatures .. ARGV[2])
return {'ok'}
