-- common.lua: prepended to every script at build time (Redis 7.0 scripts cannot share code).
-- Every script takes ARGV[1] = key prefix (e.g. "rc:") and ARGV[2] = now in ms.
local P = ARGV[1]
local NOW = tonumber(ARGV[2])
local function K(...)
  return P .. table.concat({...}, ':')
end

-- Frontier order: higher priority first, then shallower first (breadth-first, so a page is
-- usually reached by its shortest path), then FIFO within the job: the job's own sequence
-- (its hash's `seq`, mod 2^32), so that jobs of one priority and depth interleave and a new
-- job's first URLs do not wait behind another job's whole backlog in the frontier.
-- 1000 priorities x 2^40 stays inside a double's 53 bits.
local PRIO_SCALE = 1099511627776 -- 2^40
local DEPTH_SCALE = 4294967296 -- 2^32
local function seed_score(crawlid, priority, depth)
  local p = tonumber(priority) or 0
  if p < 0 then p = 0 elseif p > 1000 then p = 1000 end
  local d = tonumber(depth) or 0
  if d < 0 then d = 0 elseif d > 255 then d = 255 end
  local jk = K('job', crawlid)
  -- A job hash that vanished (Redis lost its data) is not brought back by a counter.
  local seq = redis.call('EXISTS', jk) == 1 and redis.call('HINCRBY', jk, 'seq', 1) or redis.call('INCR', K('seq'))
  return (1000 - p) * PRIO_SCALE + d * DEPTH_SCALE + (seq % DEPTH_SCALE)
end

-- Frontier records (shared/record.h): a plain one is "crawlid depth priority attempt url", one
-- with anything more is JSON. rec_decode reads both into a table with the JSON's fields;
-- rec_encode writes the compact form when the table holds nothing more.
local REC_PLAIN = {url = true, crawlid = true, depth = true, priority = true, attempt = true}
local function rec_decode(m)
  if string.byte(m, 1) == 123 then -- '{'
    return cjson.decode(m)
  end
  local c, d, p, a, u = string.match(m, '^(%S+) (%-?%d+) (%-?%d+) (%-?%d+) (.+)$')
  if not c then
    error('not a frontier record: ' .. string.sub(m, 1, 80))
  end
  return {crawlid = c, depth = tonumber(d), priority = tonumber(p), attempt = tonumber(a), url = u}
end

local function rec_encode(rec)
  for k, v in pairs(rec) do
    if not REC_PLAIN[k] and v ~= false and v ~= cjson.null then
      return cjson.encode(rec)
    end
  end
  return string.format('%s %d %d %d %s', rec.crawlid, tonumber(rec.depth) or 0, tonumber(rec.priority) or 0,
    tonumber(rec.attempt) or 0, rec.url)
end

-- The frontier is per job: seeds:{crawlid} (score: seed_score), and `frontier` lists the jobs
-- whose seeds:{crawlid} holds anything, so that the scheduler reads a window of each job and
-- no job's backlog sits in front of another's. A script that adds to a job's frontier calls
-- frontier_note once (assign and stop take the job out again when its frontier empties).
local function frontier_note(crawlid)
  redis.call('SADD', K('frontier'), crawlid)
end

local function frontier_add(crawlid, score, member)
  redis.call('ZADD', K('seeds', crawlid), score, member)
  frontier_note(crawlid)
end

-- Queues are per job and per host: q:{crawlid}:{host} (score: seed_score). The host's
-- politeness state (owner, next allowed time in ready:{w}, in flight in busy:{w}) is kept once,
-- on its owner, whatever the jobs. A host's jobs take turns by stride scheduling: hjobs:{host}
-- holds crawlid -> pass; take serves the job with the lowest pass and adds 1/priority to it, so
-- while both have work a job of priority 2 gets twice the turns of one of priority 1. A job
-- joining a host starts at the host's lowest pass: it saved no credit while away, and waits
-- behind no backlog. jq:{crawlid} lists the hosts where the job has a queue (stop, stats).
local function host_push(crawlid, host, score, member)
  redis.call('ZADD', K('q', crawlid, host), score, member)
  local hj = K('hjobs', host)
  if not redis.call('ZSCORE', hj, crawlid) then
    local low = redis.call('ZRANGE', hj, 0, 0, 'WITHSCORES')
    redis.call('ZADD', hj, tonumber(low[2]) or 0, crawlid)
    redis.call('SADD', K('jq', crawlid), host)
  end
end

-- A job leaves a host's turns once its queue there is empty.
local function host_leave(crawlid, host)
  redis.call('ZREM', K('hjobs', host), crawlid)
  redis.call('SREM', K('jq', crawlid), host)
end

-- URLs queued on a host, all jobs together.
local function host_backlog(host)
  local n = 0
  for _, c in ipairs(redis.call('ZRANGE', K('hjobs', host), 0, -1)) do
    n = n + redis.call('ZCARD', K('q', c, host))
  end
  return n
end

-- A finished job's working keys (bloom, digests, navigation times, host counters) expire after
-- the retention: conf:retention seconds (default a day; 0 keeps them). The job hash stays, for
-- reports. Without this a one-URL job kept its 4 MB bloom for ever. submit.lua persists them
-- again when a finished job is extended.
local function job_keys(crawlid)
  local bloom = redis.call('HGET', K('job', crawlid), 'bloom') or ''
  local shards = tonumber(string.match(bloom, '^[^:]*:[^:]*:([^:]*)')) or 1
  local keys = {K('digest', crawlid), K('jobhosts', crawlid)}
  for s = 0, shards - 1 do
    keys[#keys + 1] = K('bloom', crawlid, s)
  end
  return keys
end

local function job_retire(crawlid)
  local secs = tonumber(redis.call('GET', K('conf', 'retention')) or 86400) or 86400
  if secs <= 0 then
    return
  end
  for _, key in ipairs(job_keys(crawlid)) do
    redis.call('PEXPIRE', key, secs * 1000)
  end
end

-- The job's pending counter: +1 when a URL enters the frontier, -1 when it is done for good.
-- A running job whose counter reaches 0 is finished: nothing queued, nothing in flight.
local function job_pending(crawlid, delta)
  local jk = K('job', crawlid)
  local left = redis.call('HINCRBY', jk, 'pending', delta)
  if delta < 0 and left <= 0 and redis.call('HGET', jk, 'state') == 'running' then
    redis.call('HSET', jk, 'state', 'done', 'finished_ms', NOW)
    job_retire(crawlid)
  end
  return left
end

-- Bloom check-and-set: ARGV[i..i+2k-1] hold k (shard, bit) pairs computed by the client
-- (xxh3 double hashing). SETBIT returns the old bit, so one call both checks and sets.
-- New when any bit was clear.
local function bloom_add(crawlid, i, k)
  local new = false
  for j = 0, k - 1 do
    local key = K('bloom', crawlid, ARGV[i + 2 * j])
    if redis.call('SETBIT', key, ARGV[i + 2 * j + 1], 1) == 0 then
      new = true
    end
  end
  return new
end

-- A URL whose fetch was lost (lease expired, worker died or was reaped) goes back to the
-- frontier marked redeliver (a sink may hold it already: the next store looks its _id up).
-- A lost lease is the worker's misfortune, not the URL's, so it does not use one of the URL's
-- fetch attempts: it counts in `lost`, and only a URL lost max_attempts x 4 times (a page that
-- keeps killing its workers) goes to `failed`. Returns 1 when requeued.
local function requeue_or_fail(member, max_attempts, reason)
  local rec = rec_decode(member)
  rec.lost = (tonumber(rec.lost) or 0) + 1
  rec.redeliver = true
  if rec.lost >= max_attempts * 4 then
    redis.call('ZADD', K('failed'), NOW,
      cjson.encode({url = rec.url, crawlid = rec.crawlid, reason = reason, attempts = rec.lost}))
    local jk = K('job', rec.crawlid)
    redis.call('HINCRBY', jk, 'failed', 1)
    job_pending(rec.crawlid, -1)
    return 0
  end
  frontier_add(rec.crawlid, seed_score(rec.crawlid, rec.priority, rec.depth), rec_encode(rec))
  return 1
end

-- Lease members are "host<TAB>record".
local function split_lease(lm)
  local tab = string.find(lm, '\t', 1, true)
  return string.sub(lm, 1, tab - 1), string.sub(lm, tab + 1)
end

-- Rolling counters: hash stats:{name} with per-minute fields "m:<minute>" (kept a day),
-- per-hour fields "h:<hour>" (kept 8 days) and "total". A reader sums the buckets inside a
-- window: minutes for windows up to a day, hours beyond. Names are listed in stats:names.
local function stat_incr(name, n)
  local key = K('stats', name)
  local minute = math.floor(NOW / 60000)
  local hour = math.floor(NOW / 3600000)
  redis.call('HINCRBY', key, 'm:' .. minute, n)
  redis.call('HINCRBY', key, 'h:' .. hour, n)
  redis.call('HINCRBY', key, 'total', n)
  redis.call('HDEL', key, 'm:' .. (minute - 1441), 'h:' .. (hour - 193))
  redis.call('SADD', K('stats', 'names'), name)
end
