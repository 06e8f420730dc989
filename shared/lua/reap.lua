#!lua flags=allow-oom
--- args: worker max_attempts
-- reap: a worker that died (or left) gives everything back. Its hosts lose their owner; those
-- with queued URLs (their queues are per job and per host, not per worker: they stay where they
-- are) become orphans with their next allowed time, and the scheduler gives each a new owner
-- (assign.lua). Its in-flight URLs return to the frontier with one more `lost` (or fail).
-- Arguments: worker, max_attempts.  Returns {queued URLs orphaned, leases moved}.
local w, maxa = A.worker, tonumber(A.max_attempts)
local moved = 0
for _, host in ipairs(redis.call('SMEMBERS', K('wdoms', w))) do
  if redis.call('HGET', K('owner'), host) == w then
    redis.call('HDEL', K('owner'), host)
    local n = host_backlog(host)
    if n > 0 then
      local due = tonumber(redis.call('ZSCORE', K('ready', w), host)) or NOW
      redis.call('ZADD', K('orphans'), math.max(due, NOW), host)
      moved = moved + n
    end
  end
end
local leases = redis.call('ZRANGE', K('lease', w), 0, -1)
for _, lm in ipairs(leases) do
  local _, member = split_lease(lm)
  requeue_or_fail(member, maxa, 'worker lost')
end
redis.call('DEL', K('wdoms', w), K('ready', w), K('busy', w), K('lease', w), K('worker', w), K('wstat', w))
redis.call('ZREM', K('workers'), w)
redis.call('SREM', K('draining'), w) -- a drain ends with the worker
return {moved, #leases}
