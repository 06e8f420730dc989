#!lua
-- assign: the scheduler's dispatch step. Moves frontier records into workers' domain queues
-- and drops the ones it refused, atomically, so nothing is lost if the scheduler dies.
-- ARGV: prefix, now, na, nd, then na x (record, score, worker, host), then nd x (record, reason).
-- A record no longer in seeds (already handled) or aimed at a worker that is gone is skipped.
-- Per worker, `queued` (its backlog) and `dispatched` (all URLs ever handed to it) grow by what
-- it got, once per worker rather than once per URL.
local na, nd = tonumber(ARGV[3]), tonumber(ARGV[4])
local i = 5
local assigned, dropped = 0, 0
local per = {}
for _ = 1, na do
  local member, score, w, host = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  i = i + 4
  if redis.call('ZSCORE', K('workers'), w) and redis.call('ZREM', K('seeds'), member) == 1 then
    redis.call('ZADD', K('q', w, host), score, member)
    redis.call('SADD', K('wdoms', w), host)
    redis.call('HSET', K('owner'), host, w)
    if redis.call('SISMEMBER', K('busy', w), host) == 0 then
      redis.call('ZADD', K('ready', w), 'NX', NOW, host)
    end
    per[w] = (per[w] or 0) + 1
    assigned = assigned + 1
  end
end
for w, n in pairs(per) do
  redis.call('HINCRBY', K('worker', w), 'queued', n)
  redis.call('HINCRBY', K('worker', w), 'dispatched', n)
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
return {assigned, dropped}
