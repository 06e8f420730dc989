#!lua flags=allow-oom
--- args: owner ttl_ms
-- lock: the scheduler's leader lease. Takes the lock when free, renews it when held by us.
-- Arguments: owner id, ttl_ms.  Returns 1 when we hold it, 0 when another does.
local key, id, ttl = K('lock', 'scheduler'), A.owner, A.ttl_ms
local cur = redis.call('GET', key)
if cur == id then
  redis.call('PEXPIRE', key, ttl)
  return 1
end
if not cur then
  redis.call('SET', key, id, 'PX', ttl)
  return 1
end
return 0
