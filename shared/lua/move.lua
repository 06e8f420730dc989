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
-- The first n movable hosts with work in SSCAN's order, then the first idle ones. The scan
-- stops at the n-th host with work, and checks an idle host only while fewer than n are found:
-- called every second, it would otherwise make two calls per host the worker holds. SSCAN, not
-- SMEMBERS: a worker may own every host of a crawl of 100,000 (the scheduler hands out hosts as
-- fast as their seeds come), and SMEMBERS copied them all into the script every second (~14 ms
-- at 50,000), however few were moved. SSCAN may return a host twice: `seen` keeps one.
local with_work, idle, seen = {}, {}, {}
local k_busy, k_wdoms = K('busy', from), K('wdoms', from)
local cursor = '0'
repeat
  local page = redis.call('SSCAN', k_wdoms, cursor, 'COUNT', math.max(2 * n, 64))
  cursor = page[1]
  for _, host in ipairs(page[2]) do
    if #with_work >= n then
      break
    end
    if not seen[host] then
      seen[host] = true
      if redis.call('EXISTS', K('hjobs', host)) == 1 then
        if redis.call('SISMEMBER', k_busy, host) == 0 then
          with_work[#with_work + 1] = host
        end
      elseif #idle < n and redis.call('SISMEMBER', k_busy, host) == 0 then
        idle[#idle + 1] = host
      end
    end
  end
until cursor == '0' or #with_work >= n
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
