#!lua flags=no-writes,allow-stale
--- args: top cap
-- hosts: the busiest hosts for `redcrawl status`, read in one call. For every live worker, every
-- host in its ready set (queued, with the time it may next be fetched) or busy set (a fetch in
-- flight): its queues' length (all jobs), and its state. Read-only (no-writes: also runs at maxmemory).
-- Arguments: top (hosts returned), cap (hosts examined at most, so a huge fleet costs a
-- bounded time).
-- Returns {hosts examined, total backlog, then per host: host, worker, backlog, state, due_ms,
-- rate}, largest backlog first; state is fetching | due | waiting | parked; rate is the
-- domain's configured "hits/window" (itself, a parent domain or "*"), or "".
local top, cap = tonumber(A.top), tonumber(A.cap)
local rows, seen, total = {}, 0, 0
local function rate_of(host)
  local d = host
  while d do
    local conf = redis.call('HGET', K('domainconf'), d)
    if conf then
      local ok, c = pcall(cjson.decode, conf)
      if ok and type(c) == 'table' then
        return tostring(c.hits) .. '/' .. tostring(c.window) .. 's'
      end
    end
    d = string.match(d, '^[^.]*%.(.+)$')
  end
  local any = redis.call('HGET', K('domainconf'), '*')
  if any then
    local ok, c = pcall(cjson.decode, any)
    if ok and type(c) == 'table' then return tostring(c.hits) .. '/' .. tostring(c.window) .. 's' end
  end
  return ''
end
for _, w in ipairs(redis.call('ZRANGE', K('workers'), 0, -1)) do
  local busy = {}
  for _, h in ipairs(redis.call('SMEMBERS', K('busy', w))) do busy[h] = true end
  local ready = redis.call('ZRANGE', K('ready', w), 0, -1, 'WITHSCORES')
  local hosts = {}
  for i = 1, #ready, 2 do hosts[ready[i]] = tonumber(ready[i + 1]) end
  for h in pairs(busy) do if not hosts[h] then hosts[h] = 0 end end
  for h, due in pairs(hosts) do
    if seen >= cap then break end
    seen = seen + 1
    local n = host_backlog(h)
    total = total + n
    local state = 'due'
    if busy[h] then
      state = 'fetching'
    elseif due > NOW then
      state = 'waiting'
    end
    local parked = tonumber(redis.call('ZSCORE', K('parked'), h) or '0')
    if parked > NOW and not busy[h] then
      state = 'parked'
      due = parked
    end
    rows[#rows + 1] = {h, w, n, state, due}
  end
end
table.sort(rows, function(a, b)
  if a[3] ~= b[3] then return a[3] > b[3] end
  return a[1] < b[1]
end)
local out = {seen, total}
for i = 1, math.min(top, #rows) do
  local r = rows[i]
  out[#out + 1] = r[1]
  out[#out + 1] = r[2]
  out[#out + 1] = r[3]
  out[#out + 1] = r[4]
  out[#out + 1] = tostring(math.floor(r[5]))
  out[#out + 1] = rate_of(r[1])
end
return out
