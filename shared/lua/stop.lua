#!lua flags=allow-oom
--- args: crawlid state
-- stop: a job takes no new URLs; its queued URLs are purged from the frontier and from its
-- per-host queues; pages in flight finish normally (their links are not followed).
-- Arguments: crawlid, state ("stopped" or "expired").  Returns {purged, pending}.
local crawlid, state = A.crawlid, A.state
local jk = K('job', crawlid)
if redis.call('EXISTS', jk) == 0 then
  return {-1, 0}
end
redis.call('HSET', jk, 'state', state, 'stopped_ms', NOW)
job_retire(crawlid)
local function mine(member)
  local ok, rec = pcall(rec_decode, member)
  return ok and type(rec) == 'table' and rec.crawlid == crawlid
end
-- Its frontier is its own keys (a list per bucket): gone in a few steps, whatever its size.
local purged = frontier_clear(crawlid)
redis.call('SREM', K('frontier'), crawlid)
-- Its queues: one per host it has work on (jq:{crawlid}), each counted off its host's owner.
for _, host in ipairs(redis.call('SMEMBERS', K('jq', crawlid))) do
  local q = K('q', crawlid, host)
  local n = redis.call('ZCARD', q)
  redis.call('DEL', q)
  redis.call('ZREM', K('hjobs', host), crawlid)
  local o = redis.call('HGET', K('owner'), host)
  if o and n > 0 then
    redis.call('HINCRBY', K('worker', o), 'queued', 0 - n)
  end
  purged = purged + n
end
redis.call('DEL', K('jq', crawlid))
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
