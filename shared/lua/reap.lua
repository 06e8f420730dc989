#!lua flags=allow-oom
-- reap: a worker that died (or left) gives everything back. Its queued URLs return to the
-- frontier with their scores; its in-flight URLs return with one more attempt (or fail).
-- ARGV: prefix, now, worker, max_attempts.  Returns {queued moved, leases moved}.
local w, maxa = ARGV[3], tonumber(ARGV[4])
local moved = 0
for _, host in ipairs(redis.call('SMEMBERS', K('wdoms', w))) do
  local q = K('q', w, host)
  local items = redis.call('ZRANGE', q, 0, -1, 'WITHSCORES')
  for j = 1, #items, 2 do
    redis.call('ZADD', K('seeds'), items[j + 1], items[j])
    moved = moved + 1
  end
  redis.call('DEL', q)
  if redis.call('HGET', K('owner'), host) == w then
    redis.call('HDEL', K('owner'), host)
  end
end
local leases = redis.call('ZRANGE', K('lease', w), 0, -1)
for _, lm in ipairs(leases) do
  local _, member = split_lease(lm)
  requeue_or_fail(member, maxa, 'worker lost')
end
redis.call('DEL', K('wdoms', w), K('ready', w), K('busy', w), K('lease', w), K('worker', w), K('wstat', w))
redis.call('ZREM', K('workers'), w)
return {moved, #leases}
