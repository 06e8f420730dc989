#!lua flags=allow-oom
--- args: target n
-- forward: the scheduler has put the first n lines of this shard's outbox for shard target
-- (out:{target}, work.lua outbox_push) into that shard (submit.lua there: its bloom, frontier
-- and pending); this takes them off and counts them off each job's pending here. So a job's
-- pending summed over its shards rose there before it falls here, and never passes 0 while
-- links travel. Only the shard's leading scheduler takes from an outbox's head (workers append
-- at its tail), so the first n lines are the ones it forwarded. allow-oom: it frees memory.
-- Returns the lines left in the outbox.
local key = K('out', A.target)
local lines = redis.call('LRANGE', key, 0, tonumber(A.n) - 1)
redis.call('LTRIM', key, #lines, -1)
local by = {}
for _, line in ipairs(lines) do
  local crawlid = string.match(line, '^([^\t]*)\t') or ''
  by[crawlid] = (by[crawlid] or 0) + 1
end
for crawlid, c in pairs(by) do
  if redis.call('EXISTS', K('job', crawlid)) == 1 then
    job_pending(crawlid, 0 - c)
  end
end
return redis.call('LLEN', key)
