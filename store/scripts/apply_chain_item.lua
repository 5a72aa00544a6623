-- Applies one on-chain fact (deposit, x402 top-up, key authorization or revocation, unattributed inflow, LP deposit or
-- redemption request) exactly once. An LP deposit or redemption also queues its keeper job (FIFO).
-- KEYS: applied, player, sessionKeys, house, journal, seq, wallets, lpJob, lpQueue
-- Fields (store/script-fields.ts): itemKey, kind, amount, sessionPubkey, slot, signature, at, alias, wallet, jobId, shares,
--       replay (ledger recovery: the archived journal entry of this item, absent otherwise)
local f = fields()
replay_journal(f.replay, KEYS[5], KEYS[6])
if redis.call('SADD', KEYS[1], f.itemKey) == 0 then return 0 end
local kind, amount, at, alias = f.kind, f.amount, f.at, f.alias
if kind == 'deposit' or kind == 'x402-deposit' then
  redis.call('HINCRBY', KEYS[2], 'balance', amount)
  redis.call('HINCRBY', KEYS[2], 'deposited', amount)
  add_liability(KEYS[2], amount)
  redis.call('HSETNX', KEYS[2], 'alias', alias)
  redis.call('SADD', KEYS[7], f.wallet)
  redis.call('HINCRBY', KEYS[4], 'vault', amount)
  redis.call('HINCRBY', KEYS[4], 'balances', amount)
  if kind == 'deposit' then
    journal(KEYS[5], KEYS[6], 'deposit_credited', at, cjson.encode({ player = alias, amount = amount }))
  else
    journal(KEYS[5], KEYS[6], 'deposit_credited', at, cjson.encode({ player = alias, amount = amount, source = 'x402', paymentId = f.signature }))
  end
elseif kind == 'setup' or kind == 'revoke' then
  local slot = tonumber(f.slot)
  local current = redis.call('HGET', KEYS[3], f.sessionPubkey)
  if current then
    current = cjson.decode(current)
    -- An older memo seen late never overrides a newer one. Within one slot the order of transactions is
    -- not known here (the vault and the wallet are tailed apart), so a revocation wins the tie.
    local currentSlot = tonumber(current.slot)
    if currentSlot > slot or (currentSlot == slot and current.status == 'revoked' and kind == 'setup') then return 1 end
  end
  local status = 'active'
  if kind == 'revoke' then status = 'revoked' end
  redis.call('HSET', KEYS[3], f.sessionPubkey, cjson.encode({ status = status, slot = slot, signature = f.signature, at = at }))
  redis.call('HSETNX', KEYS[2], 'alias', alias)
  redis.call('SADD', KEYS[7], f.wallet)
  -- Every wallet the ledger knows has a leaf, as it had when each commit read them all.
  add_liability(KEYS[2], '0')
  local eventType = 'session_key_authorized'
  if kind == 'revoke' then eventType = 'session_key_revoked' end
  journal(KEYS[5], KEYS[6], eventType, at, cjson.encode({ player = alias, sessionPubkey = f.sessionPubkey }))
elseif kind == 'unattributed' then
  redis.call('HINCRBY', KEYS[4], 'vault', amount)
  redis.call('HINCRBY', KEYS[4], 'unattributed', amount)
  journal(KEYS[5], KEYS[6], 'unattributed_received', at, cjson.encode({ amount = amount, signature = f.signature }))
elseif kind == 'lp-deposit' then
  redis.call('HINCRBY', KEYS[4], 'vault', amount)
  redis.call('HINCRBY', KEYS[4], 'lpPending', amount)
  redis.call('HSET', KEYS[8], 'id', f.jobId, 'kind', 'mint', 'wallet', f.wallet, 'alias', alias, 'amount', amount, 'status', 'queued',
    'sourceSignature', f.signature, 'createdAt', at)
  redis.call('RPUSH', KEYS[9], f.jobId)
  journal(KEYS[5], KEYS[6], 'lp_deposit_received', at, cjson.encode({ player = alias, amount = amount, jobId = f.jobId }))
elseif kind == 'lp-redeem' then
  -- The shares now sit in the keeper's LP account; nothing is valued until the request reaches the head of the queue.
  redis.call('HSET', KEYS[8], 'id', f.jobId, 'kind', 'redeem', 'wallet', f.wallet, 'alias', alias, 'shares', f.shares, 'status', 'queued',
    'sourceSignature', f.signature, 'createdAt', at)
  redis.call('RPUSH', KEYS[9], f.jobId)
  journal(KEYS[5], KEYS[6], 'lp_redeem_received', at, cjson.encode({ player = alias, shares = f.shares, jobId = f.jobId }))
elseif kind == 'house' then
  redis.call('HINCRBY', KEYS[4], 'vault', amount)
  redis.call('HINCRBY', KEYS[4], 'capital', amount)
  journal(KEYS[5], KEYS[6], 'house_funded', at, cjson.encode({ amount = amount, signature = f.signature }))
else
  return redis.error_reply('unknown chain item kind ' .. kind)
end
return 1
