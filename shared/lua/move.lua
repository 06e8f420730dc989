#!lua
--- args: from to n
-- move: rebalancing. Gives up to n of worker `from`'s hosts to worker `to`: only hosts with
-- nothing in flight (not busy), each with its ready time (so the delay since the last hit still
-- holds) and its queued count. The queues themselves stay (q:{crawlid}:{host} belong to no
-- worker). Hosts with queued URLs go first.
-- Arguments: from, to, n.  Returns the moved hosts.
local from, to, n = A.from, A.to, tonumber(A.n)
if not redis.call('ZSCORE', K('workers'), to) or not redis.call('ZSCORE', K('workers'), from) then
  return {}
end
-- The first n movable hosts with work in SMEMBERS' order, then the first idle ones. The scan
-- stops at the n-th host with work, and checks an idle host only while fewer than n are found:
-- called every second, it would otherwise make two calls per host the worker holds.
local hosts = redis.call('SMEMBERS', K('wdoms', from))
local with_work, idle = {}, {}
local k_busy = K('busy', from)
for _, host in ipairs(hosts) do
  if #with_work >= n then
    break
  end
  if redis.call('EXISTS', K('hjobs', host)) == 1 then
    if redis.call('SISMEMBER', k_busy, host) == 0 then
      with_work[#with_work + 1] = host
    end
  elseif #idle < n and redis.call('SISMEMBER', k_busy, host) == 0 then
    idle[#idle + 1] = host
  end
end
local moved = {}
local function move(host)
  local count = host_backlog(host)
  local due = redis.call('ZSCORE', K('ready', from), host)
  redis.call('ZREM', K('ready', from), host)
  if due then
    redis.call('ZADD', K('ready', to), due, host)
  elseif count > 0 then
    redis.call('ZADD', K('ready', to), NOW, host)
  end
  redis.call('SREM', K('wdoms', from), host)
  redis.call('SADD', K('wdoms', to), host)
  redis.call('HSET', K('owner'), host, to)
  if count > 0 then
    redis.call('HINCRBY', K('worker', from), 'queued', -count)
    redis.call('HINCRBY', K('worker', to), 'queued', count)
  end
  moved[#moved + 1] = host
end
for _, host in ipairs(with_work) do
  if #moved >= n then break end
  move(host)
end
for _, host in ipairs(idle) do
  if #moved >= n then break end
  move(host)
end
return moved
