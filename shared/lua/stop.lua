#!lua flags=allow-oom
-- stop: a job takes no new URLs; its queued URLs are purged from the frontier and from every
-- worker's queues; pages in flight finish normally (their links are not followed).
-- ARGV: prefix, now, crawlid, state ("stopped" or "expired").  Returns {purged, pending}.
local crawlid, state = ARGV[3], ARGV[4]
local jk = K('job', crawlid)
if redis.call('EXISTS', jk) == 0 then
  return {-1, 0}
end
redis.call('HSET', jk, 'state', state, 'stopped_ms', NOW)
job_retire(crawlid)
local function mine(member)
  local ok, rec = pcall(cjson.decode, member)
  return ok and type(rec) == 'table' and rec.crawlid == crawlid
end
local purged = 0
for _, m in ipairs(redis.call('ZRANGE', K('seeds'), 0, -1)) do
  if mine(m) then
    redis.call('ZREM', K('seeds'), m)
    purged = purged + 1
  end
end
for _, w in ipairs(redis.call('ZRANGE', K('workers'), 0, -1)) do
  for _, host in ipairs(redis.call('SMEMBERS', K('wdoms', w))) do
    local q = K('q', w, host)
    for _, m in ipairs(redis.call('ZRANGE', q, 0, -1)) do
      if mine(m) then
        redis.call('ZREM', q, m)
        redis.call('HINCRBY', K('worker', w), 'queued', -1)
        purged = purged + 1
      end
    end
  end
end
for _, m in ipairs(redis.call('ZRANGE', K('refresh'), 0, -1)) do
  if mine(m) then
    redis.call('ZREM', K('refresh'), m)
    purged = purged + 1
  end
end
redis.call('HINCRBY', jk, 'purged', purged)
-- 0 - purged, not -purged: Lua's -0 reaches Redis as "-0", which HINCRBY refuses.
local left = redis.call('HINCRBY', jk, 'pending', 0 - purged)
return {purged, left}
