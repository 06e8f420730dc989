-- take: a worker leases the next URL of each of its domains that may be fetched now.
-- ARGV: prefix, now, worker, max, lease_ms.  Returns {lease members, next due time or -1}.
-- A taken domain leaves ready:{w} and enters busy:{w}, so it is never fetched twice at once;
-- complete puts it back with its next allowed time.
local w, maxn, lease_ms = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local ready = K('ready', w)
local hosts = redis.call('ZRANGEBYSCORE', ready, '-inf', NOW, 'LIMIT', 0, maxn)
local out = {}
for _, host in ipairs(hosts) do
  local q = K('q', w, host)
  while true do
    local popped = redis.call('ZPOPMIN', q)
    if #popped == 0 then
      redis.call('ZREM', ready, host)
      break
    end
    local member = popped[1]
    redis.call('HINCRBY', K('worker', w), 'queued', -1)
    local rec = cjson.decode(member)
    local jk = K('job', rec.crawlid)
    local st = redis.call('HMGET', jk, 'state', 'max_pages', 'started')
    local first = (tonumber(rec.attempt) or 0) == 0
    local ok = st[1] == 'running'
    local cap = tonumber(st[2]) or 0
    if ok and first and cap > 0 and (tonumber(st[3]) or 0) >= cap then
      ok = false -- max_pages reached: the page is dropped, never fetched
    end
    if ok then
      if first then
        redis.call('HINCRBY', jk, 'started', 1)
      end
      local lm = host .. '\t' .. member
      redis.call('ZADD', K('lease', w), NOW + lease_ms, lm)
      redis.call('ZREM', ready, host)
      redis.call('SADD', K('busy', w), host)
      out[#out + 1] = lm
      break
    elseif st[1] then
      redis.call('HINCRBY', jk, 'dropped', 1)
      job_pending(rec.crawlid, -1)
    end
  end
end
local nxt = redis.call('ZRANGE', ready, 0, 0, 'WITHSCORES')
return {out, nxt[2] or '-1'}
