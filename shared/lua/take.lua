#!lua
--- args: worker max lease_ms ip?
-- take: a worker leases the next URL of each of its domains that may be fetched now: from the
-- queue of the host's job whose turn it is (common.lua: stride scheduling by priority).
-- Arguments: worker, max, lease_ms, worker ip.
-- Returns {lease members, next due time or -1}; nothing while the worker is draining.
-- A taken domain leaves ready:{w} and enters busy:{w}, so it is never fetched twice at once;
-- complete puts it back with its next allowed time. Shared throttles (thesis 4.2.2): when
-- domainconf has a rate for the host (or a parent domain, or "*"), a sliding-window log per
-- spider x domain and per worker ip x domain is checked and recorded here, atomically; a host
-- over its rate waits in ready:{w} until its window has room.
local w, maxn, lease_ms, ip = A.worker, tonumber(A.max), tonumber(A.lease_ms), A.ip or 'local'
-- A worker an operator drains (draining, drain.lua) takes nothing new: it finishes what it
-- holds while the scheduler gives its hosts to other workers.
if redis.call('SISMEMBER', K('draining'), w) == 1 then
  return {{}, '-1'}
end
local ready = K('ready', w)
local hosts = redis.call('ZRANGEBYSCORE', ready, '-inf', NOW, 'LIMIT', 0, maxn)
local out = {}

-- The rate for a host: its own, a parent domain's, or the default "*". Scrapy Cluster's
-- {"hits","window","scale"}: hits * scale requests per window seconds.
local function rate_for(host)
  local name = string.gsub(host, ':%d+$', '')
  while true do
    local conf = redis.call('HGET', K('domainconf'), name)
    if conf then
      return name, conf
    end
    local dot = string.find(name, '.', 1, true)
    if not dot then
      break
    end
    name = string.sub(name, dot + 1)
  end
  local conf = redis.call('HGET', K('domainconf'), '*')
  if conf then
    return '*', conf
  end
  return nil, nil
end

-- A blacklisted host (or parent domain): what is already queued for it is dropped here, so a
-- blacklist-update takes effect at once, not only for URLs dispatched after it.
local function blacklisted(host)
  local name = string.gsub(host, ':%d+$', '')
  while name do
    if redis.call('SISMEMBER', K('blacklist'), name) == 1 then
      return true
    end
    local dot = string.find(name, '.', 1, true)
    name = dot and string.sub(name, dot + 1) or nil
  end
  return false
end

-- Sliding-window check of one log; returns 0 when there is room, else when there will be.
local function window_wait(key, hits, window_ms)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', NOW - window_ms)
  if redis.call('ZCARD', key) < hits then
    return 0
  end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window_ms
end

-- Returns 0 when the host may be fetched now (and records the hit), else the time it may.
local function throttle(host, spider)
  local domain, conf = rate_for(host)
  if not conf then
    return 0
  end
  local ok, c = pcall(cjson.decode, conf)
  if not ok or type(c) ~= 'table' then
    return 0
  end
  local hits = math.floor((tonumber(c.hits) or 0) * (tonumber(c.scale) or 1))
  local window_ms = (tonumber(c.window) or 0) * 1000
  if window_ms <= 0 then
    return 0
  end
  if hits < 1 then
    return NOW + window_ms -- a zero rate parks the domain
  end
  local d = domain == '*' and string.gsub(host, ':%d+$', '') or domain
  local k1, k2 = K('throttle', spider, d), K('throttle', ip, d)
  local wait = math.max(window_wait(k1, hits, window_ms), window_wait(k2, hits, window_ms))
  if wait > 0 then
    return wait
  end
  local member = NOW .. ':' .. redis.call('INCR', K('seq'))
  redis.call('ZADD', k1, NOW, member)
  redis.call('ZADD', k2, NOW, member)
  redis.call('PEXPIRE', k1, window_ms + 1000)
  redis.call('PEXPIRE', k2, window_ms + 1000)
  return 0
end

-- The head of the job whose turn it is on the host: {crawlid, queue key, record} or nil when
-- the host has nothing queued. An empty queue (its job left) leaves the turns on the way.
local function next_turn(host)
  local hj = K('hjobs', host)
  while true do
    local turn = redis.call('ZRANGE', hj, 0, 0)
    if #turn == 0 then
      return nil
    end
    local q = K('q', turn[1], host)
    local head = redis.call('ZRANGE', q, 0, 0)
    if #head > 0 then
      return turn[1], q, head[1]
    end
    host_leave(turn[1], host)
  end
end

for _, host in ipairs(hosts) do
  while true do
    local crawlid, q, member = next_turn(host)
    if not crawlid then
      -- Nothing queued and its delay has passed: the worker lets the host go, so ownership
      -- does not grow with every host ever seen; its next URL may go to any worker, safely,
      -- since the delay since its last hit is already over.
      redis.call('ZREM', ready, host)
      redis.call('SREM', K('wdoms', w), host)
      if redis.call('HGET', K('owner'), host) == w then
        redis.call('HDEL', K('owner'), host)
      end
      break
    end
    local rec = rec_decode(member)
    local jk = K('job', crawlid)
    local st = redis.call('HMGET', jk, 'state', 'max_pages', 'started', 'domain_max_pages', 'spiderid')
    local first = (tonumber(rec.attempt) or 0) == 0 and not rec.lost -- a lost lease was counted when first taken
    local ok = st[1] == 'running'
    local cap = tonumber(st[2]) or 0
    local why = 'stopped'
    if ok and first and cap > 0 and (tonumber(st[3]) or 0) >= cap then
      ok, why = false, 'max_pages' -- the job's page cap: dropped, never fetched
    end
    if ok and blacklisted(host) then
      ok, why = false, 'blacklist'
    end
    local dcap = tonumber(st[4]) or 0
    if ok and first and dcap > 0 and (tonumber(redis.call('HGET', K('jobhosts', crawlid), host)) or 0) >= dcap then
      ok, why = false, 'domain_max_pages'
    end
    if ok then
      local wait = throttle(host, st[5] or 'link')
      if wait > 0 then
        redis.call('ZADD', ready, wait, host) -- stays queued; due when its window has room
        break
      end
    end
    redis.call('ZREM', q, member)
    redis.call('HINCRBY', K('worker', w), 'queued', -1)
    if redis.call('EXISTS', q) == 0 then
      host_leave(crawlid, host)
    elseif ok then
      local p = tonumber(rec.priority) or 1
      redis.call('ZINCRBY', K('hjobs', host), 1 / (p >= 1 and p or 1), crawlid) -- its turn is taken
    end
    if ok then
      if first then
        redis.call('HINCRBY', jk, 'started', 1)
        if dcap > 0 then
          redis.call('HINCRBY', K('jobhosts', crawlid), host, 1)
        end
      end
      local lm = host .. '\t' .. member
      redis.call('ZADD', K('lease', w), NOW + lease_ms, lm)
      redis.call('ZREM', ready, host)
      redis.call('SADD', K('busy', w), host)
      out[#out + 1] = lm
      break
    elseif st[1] then
      redis.call('HINCRBY', jk, 'dropped', 1)
      redis.call('HINCRBY', K('stats', 'dropped'), why, 1)
      job_pending(crawlid, -1)
    end
  end
end
local nxt = redis.call('ZRANGE', ready, 0, 0, 'WITHSCORES')
return {out, nxt[2] or '-1'}
