-- Everything prepare checks, read at one instant: the session key, whether the commitment was used, the player's
-- balance, nonce and open exposure, and the house totals behind the limits. With a prepared bet (`id`) it also stores
-- it, as save_capped.lua does, when the bet carries the wallet's nonce and passes what its commit will check (the key,
-- the commitment, the balance, and the house's and the wallet's limits): prepare then takes one call when its process
-- knew the nonce. Otherwise it writes nothing, and prepare stores the bet after its own checks.
-- KEYS: sessionKeys, commitments, player, house, record, walletList
-- Fields (store/script-fields.ts PrepareBetFields): sessionPubkey, commitment; for a save: nonce, id, record, ttlMs, cap,
--   recordKeyPrefix, locks ('stake' or 'play'), wager, maxPayout, exposure, maxExposureBps, maxPayoutBps, maxBetBps,
--   maxWalletExposureBps
-- Replies status, used, balance, nonce, the house's vault, balances, staked, exposure, pendingWithdrawals,
-- unattributed, lpPending, lpPayable and banked, the wallet's exposure, then 1 when it stored the bet and 0 when not.
local f = fields()
local key = redis.call('HGET', KEYS[1], f.sessionPubkey)
local status = ''
if key then status = cjson.decode(key).status end
local used = redis.call('SISMEMBER', KEYS[2], f.commitment)
local player = redis.call('HMGET', KEYS[3], 'balance', 'nonce', 'exposure')
local house = redis.call('HMGET', KEYS[4], 'vault', 'balances', 'staked', 'exposure', 'pendingWithdrawals', 'unattributed', 'lpPending', 'lpPayable', 'banked')

local function fits()
  if not f.id or status ~= 'active' or used == 1 or num(f.nonce) ~= num(player[2]) then return false end
  local exposure = num(f.exposure)
  if f.locks == 'play' and exposure == 0 then return true end
  local limitError, nav
  if f.locks == 'stake' then
    local wager, maxPayout = num(f.wager), num(f.maxPayout)
    if wager > num(player[1]) then return false end
    limitError, nav = check_limits(KEYS[4], wager, maxPayout, maxPayout - wager, num(f.maxExposureBps), num(f.maxPayoutBps), num(f.maxBetBps))
  else
    limitError, nav = check_turn_exposure(KEYS[4], exposure, num(f.maxExposureBps))
  end
  if limitError then return false end
  return exposure <= 0 or not check_wallet_exposure(player[3], exposure, nav, num(f.maxExposureBps), num(f.maxWalletExposureBps))
end

local saved = 0
if fits() then
  save_capped(KEYS[5], KEYS[6], f.id, f.record, f.ttlMs, num(f.cap), f.recordKeyPrefix)
  saved = 1
end
return {status, used, player[1] or '0', player[2] or '0', house[1] or '0', house[2] or '0', house[3] or '0', house[4] or '0',
  house[5] or '0', house[6] or '0', house[7] or '0', house[8] or '0', house[9] or '0', player[3] or '0', saved}
