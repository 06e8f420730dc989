#!lua
-- assign: the scheduler's dispatch step. Moves frontier records into their job's queue on their
-- host (q:{crawlid}:{host}), gives orphaned hosts (their owner was reaped) a new owner, and
-- drops the records it refused, atomically, so nothing is lost if the scheduler dies.
-- ARGV: prefix, now, na, nd, no, then na x (record, score, crawlid, host, worker),
--       then nd x (record, reason), then no x (host, worker).
-- A host keeps its recorded owner while that worker lives (its politeness state is there); the
-- worker named is the scheduler's choice for a host with none. A record no longer in seeds
-- (already handled), or whose host would go to a worker that is gone, is skipped.
-- Per worker, `queued` (its backlog) and `dispatched` (all URLs ever handed to it) grow by what
-- it got, once per worker rather than once per URL; each such worker is nudged on wake:{worker}.
local na, nd, no = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local i = 6
local assigned, dropped, granted = 0, 0, 0
local queued, dispatched = {}, {}

-- The host's owner: its recorded one while that worker lives, else W when W lives. W takes the
-- host with its politeness state: an orphaned host brings its queues and next allowed time.
local function owner_of(host, w)
  local o = redis.call('HGET', K('owner'), host)
  if o and redis.call('ZSCORE', K('workers'), o) then
    return o
  end
  if not redis.call('ZSCORE', K('workers'), w) then
    return nil
  end
  redis.call('HSET', K('owner'), host, w)
  redis.call('SADD', K('wdoms', w), host)
  local due = redis.call('ZSCORE', K('orphans'), host)
  if due then
    redis.call('ZREM', K('orphans'), host)
    local n = host_backlog(host)
    if n > 0 then
      queued[w] = (queued[w] or 0) + n
      redis.call('ZADD', K('ready', w), math.max(tonumber(due), NOW), host)
      granted = granted + 1
    end
  end
  return w
end

for _ = 1, na do
  local member, score, crawlid, host, w = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  i = i + 5
  local o = redis.call('ZSCORE', K('seeds'), member) and owner_of(host, w)
  if o then
    redis.call('ZREM', K('seeds'), member)
    host_push(crawlid, host, score, member)
    if redis.call('SISMEMBER', K('busy', o), host) == 0 then
      redis.call('ZADD', K('ready', o), 'NX', NOW, host)
    end
    queued[o] = (queued[o] or 0) + 1
    dispatched[o] = (dispatched[o] or 0) + 1
    assigned = assigned + 1
  end
end
for _ = 1, nd do
  local member, reason = ARGV[i], ARGV[i + 1]
  i = i + 2
  if redis.call('ZREM', K('seeds'), member) == 1 then
    local ok, rec = pcall(cjson.decode, member)
    redis.call('HINCRBY', K('stats', 'dropped'), reason, 1)
    if ok and type(rec) == 'table' and rec.crawlid then
      local jk = K('job', rec.crawlid)
      if redis.call('EXISTS', jk) == 1 then
        redis.call('HINCRBY', jk, 'dropped', 1)
        job_pending(rec.crawlid, -1)
      end
    end
    dropped = dropped + 1
  end
end
for _ = 1, no do
  local host, w = ARGV[i], ARGV[i + 1]
  i = i + 2
  if redis.call('ZSCORE', K('orphans'), host) then
    if redis.call('EXISTS', K('hjobs', host)) == 0 then
      redis.call('ZREM', K('orphans'), host) -- its queues emptied meanwhile (a stopped job)
    else
      owner_of(host, w)
    end
  end
end
for w, n in pairs(queued) do
  redis.call('HINCRBY', K('worker', w), 'queued', n)
end
for w, n in pairs(dispatched) do
  redis.call('HINCRBY', K('worker', w), 'dispatched', n)
end
-- A nudge to each worker that got work, so it takes now rather than at its next poll (wake.h).
for w in pairs(queued) do
  redis.pcall('PUBLISH', K('wake', w), '1')
end
return {assigned, dropped, granted}
