#!lua
--- args: max
-- refresh: navigation pages whose refresh time has come go back into the frontier (the
-- scheduler runs this every second). Pages of a job that no longer runs are dropped.
-- Arguments: max.  Returns {moved, dropped}.
local due = redis.call('ZRANGEBYSCORE', K('refresh'), '-inf', NOW, 'LIMIT', 0, tonumber(A.max))
local moved, dropped = 0, 0
for _, member in ipairs(due) do
  redis.call('ZREM', K('refresh'), member)
  local rec = rec_decode(member)
  local jk = K('job', rec.crawlid)
  if redis.call('HGET', jk, 'state') == 'running' then
    frontier_add(rec.crawlid, rec.priority, rec.depth, member)
    redis.call('HINCRBY', jk, 'refreshed', 1)
    moved = moved + 1
  else
    if redis.call('EXISTS', jk) == 1 then
      job_pending(rec.crawlid, -1)
    end
    dropped = dropped + 1
  end
end
return {moved, dropped}
