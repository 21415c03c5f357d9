// Lua run by Redis: each call is one EVALSHA, atomic on the server, so any number of gateway
// and service replicas share exact counts. Time is an argument (the service's Clock), not Redis
// TIME, so tests can set it; in production every replica's clock must be NTP-synced, since a
// replica running ahead would count its entries into the future.

/**
 * Decide (ARGV[3] = "1") or peek ("0") over every window of a policy.
 * KEYS[1..n]: one per window (ZSET log for the sliding minute, counter for fixed windows),
 * KEYS[n+1]: a sequence counter making sliding-log members unique.
 * ARGV: now, cost, commit, then 4 per window: kind ("s" | "f"), limit, span ms, end ms
 * (fixed: window end; its TTL is end - now plus a margin).
 * Returns {allowed, used_1, reset_1, retry_1, used_2, ...}: phase 1 checks every window, phase 2
 * counts in all of them only when all passed, so a refused request consumes nothing.
 */
export const DECIDE_LUA = `
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local commit = ARGV[3] == '1'
local n = #KEYS - 1
local kind, limit, span, wend, used, retry = {}, {}, {}, {}, {}, {}
local ok = true
for i = 1, n do
  local b = 3 + (i - 1) * 4
  kind[i] = ARGV[b + 1]
  limit[i] = tonumber(ARGV[b + 2])
  span[i] = tonumber(ARGV[b + 3])
  wend[i] = tonumber(ARGV[b + 4])
  retry[i] = 0
  if kind[i] == 's' then
    -- An entry at t counts while t > now - span.
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - span[i])
    used[i] = redis.call('ZCARD', KEYS[i])
    if used[i] + cost > limit[i] then
      ok = false
      local idx = used[i] + cost - limit[i] - 1
      if idx < used[i] then
        local e = redis.call('ZRANGE', KEYS[i], idx, idx, 'WITHSCORES')
        retry[i] = tonumber(e[2]) + span[i]
      else
        retry[i] = now + span[i]
      end
    end
  else
    used[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
    if used[i] + cost > limit[i] then
      ok = false
      retry[i] = wend[i]
    end
  end
end
if ok and commit then
  local seq = nil
  local maxspan = 0
  for i = 1, n do
    if kind[i] == 's' then
      if not seq then seq = redis.call('INCRBY', KEYS[n + 1], cost) - cost end
      for j = 1, cost do
        redis.call('ZADD', KEYS[i], now, now .. ':' .. (seq + j))
      end
      redis.call('PEXPIRE', KEYS[i], span[i])
      if span[i] > maxspan then maxspan = span[i] end
      used[i] = used[i] + cost
    else
      used[i] = redis.call('INCRBY', KEYS[i], cost)
      -- A minute past the window end, so a slightly-behind replica still sees the count.
      redis.call('PEXPIRE', KEYS[i], math.max(wend[i] - now, 0) + 60000)
    end
  end
  if seq then redis.call('PEXPIRE', KEYS[n + 1], maxspan) end
end
local out = { ok and 1 or 0 }
for i = 1, n do
  local reset = wend[i]
  if kind[i] == 's' then
    local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    if first[2] then reset = tonumber(first[2]) + span[i] else reset = now + span[i] end
  end
  out[#out + 1] = used[i]
  out[#out + 1] = reset
  out[#out + 1] = retry[i]
end
return out
`;

/**
 * Refund: take ARGV[1] units back out of each fixed counter in KEYS, never below zero; an absent
 * (expired) counter stays absent.
 */
export const REFUND_LUA = `
local cost = tonumber(ARGV[1])
for i = 1, #KEYS do
  local used = tonumber(redis.call('GET', KEYS[i]) or '-1')
  if used > 0 then redis.call('DECRBY', KEYS[i], math.min(used, cost)) end
end
return 0
`;

/**
 * Begin: claim with SET NX PX; when a record exists, decide from it. A record whose expiry (in
 * the service clock's time) has passed counts as absent, so expiry follows the injected clock.
 * KEYS[1]: record. ARGV: now, fingerprint, claim JSON, claim TTL ms.
 * Returns {"claimed"} | {"replay", record} | {"in_flight"} | {"mismatch"}.
 */
export const BEGIN_LUA = `
if redis.call('SET', KEYS[1], ARGV[3], 'NX', 'PX', ARGV[4]) then return {'claimed'} end
local cur = redis.call('GET', KEYS[1])
local rec = cjson.decode(cur)
if tonumber(rec.exp) <= tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
  return {'claimed'}
end
if rec.fp ~= ARGV[2] then return {'mismatch'} end
if rec.st == 'done' then return {'replay', cur} end
return {'in_flight'}
`;

/**
 * Complete: store the response unless another request's claim or a stored response holds the key.
 * KEYS[1]: record. ARGV: now, fingerprint, record JSON, TTL ms. Returns 1 when stored.
 */
export const COMPLETE_LUA = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local rec = cjson.decode(cur)
  if tonumber(rec.exp) > tonumber(ARGV[1]) and (rec.fp ~= ARGV[2] or rec.st == 'done') then return 0 end
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1
`;

/** Release: delete a live claim; a completed record stays. KEYS[1]: record. ARGV: now. */
export const RELEASE_LUA = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local rec = cjson.decode(cur)
if rec.st == 'claimed' and tonumber(rec.exp) > tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`;
