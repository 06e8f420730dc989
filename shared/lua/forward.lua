#!lua flags=allow-oom
--- args: target n first last
-- forward: the scheduler has put the first n lines of this shard's outbox for shard target
-- (out:{target}, work.lua outbox_push) into that shard (submit.lua there: its bloom, frontier
-- and pending); this takes them off and counts them off each job's pending here. So a job's
-- pending summed over its shards rose there before it falls here, and never passes 0 while
-- links travel. Workers append at an outbox's tail; only the shard's leading scheduler takes
-- from its head, and first and last (the lines it read at 1 and n) make sure: a scheduler that
-- lost the lead while it forwarded (stalled past the lock's lease) finds other lines there and
-- takes nothing, rather than lines nobody forwarded. allow-oom: it frees memory.
-- Returns the lines left in the outbox, or -1 (nothing taken) when the head is not first..last.
local key = K('out', A.target)
local lines = redis.call('LRANGE', key, 0, tonumber(A.n) - 1)
if #lines == 0 or lines[1] ~= A.first or lines[#lines] ~= A.last then
  return -1
end
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
