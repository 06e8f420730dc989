#!lua flags=allow-oom
--- args: worker max_attempts
-- expire: leases of a live worker that passed their deadline (a hung fetch) go back to the
-- frontier with one more attempt; the domain is released so it can be fetched again.
-- Arguments: worker, max_attempts.  Returns the number of leases expired.
local w, maxa = A.worker, tonumber(A.max_attempts)
local lk = K('lease', w)
local due = redis.call('ZRANGEBYSCORE', lk, '-inf', NOW)
for _, lm in ipairs(due) do
  local host, member = split_lease(lm)
  redis.call('ZREM', lk, lm)
  redis.call('SREM', K('busy', w), host)
  if redis.call('EXISTS', K('hjobs', host)) == 1 then
    redis.call('ZADD', K('ready', w), 'NX', NOW, host)
  end
  requeue_or_fail(member, maxa, 'lease expired')
end
return #due
