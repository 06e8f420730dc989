#!lua flags=allow-oom
--- args: worker mode
-- drain: an operator drains a worker (it takes no new URLs, take.lua; the scheduler moves its
-- hosts to other workers and gives it no new ones) or undoes that. allow-oom: it writes one
-- set member, and draining is what an operator may do to relieve a fleet at its limits.
-- Arguments: worker, mode ('on', 'off' or 'show').
-- Returns {live (1/0), draining (1/0), hosts owned, hosts with queued URLs, URLs in flight,
-- URLs queued on its hosts}. 'on' for a worker that is not live changes nothing (live 0).
local w, mode = A.worker, A.mode
local live = redis.call('ZSCORE', K('workers'), w) and 1 or 0
if mode == 'on' and live == 1 then
  redis.call('SADD', K('draining'), w)
elseif mode == 'off' then
  redis.call('SREM', K('draining'), w)
end
local hosts = redis.call('SMEMBERS', K('wdoms', w))
local backlog = 0
for _, host in ipairs(hosts) do
  if redis.call('EXISTS', K('hjobs', host)) == 1 then
    backlog = backlog + 1
  end
end
return {live, redis.call('SISMEMBER', K('draining'), w), #hosts, backlog, redis.call('ZCARD', K('lease', w)),
  tonumber(redis.call('HGET', K('worker', w), 'queued')) or 0}
