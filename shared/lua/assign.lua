#!lua
--- args: ...
-- assign: the scheduler's dispatch step. Moves records from the jobs' frontiers (seeds:{crawlid})
-- into their job's queue on their host (q:{crawlid}:{host}), gives orphaned hosts (their owner
-- was reaped) a new owner, and drops the records it refused, atomically, so nothing is lost if
-- the scheduler dies.
-- Arguments: nw, nw x worker, nj, then per job: crawlid, n, n x (record, host, code),
--       then no, no x (host, worker index).
-- code: the index (1..nw) of the worker the scheduler picked for a host with no owner, or the
-- reason the record is dropped. A job's n records are the head of its frontier as the
-- scheduler read it (window.lua), in order; when they still are, their scores come from one
-- ZRANGE and they leave in one ZREMRANGEBYRANK, else each is looked up (new records may have
-- come in front meanwhile). A record no longer in its frontier (already handled), or whose host
-- would go to a worker that is gone, is skipped.
-- A host keeps its recorded owner while that worker lives (its politeness state is there).
-- Per worker, `queued` (its backlog) and `dispatched` (all URLs ever handed to it) grow by what
-- it got, once per worker rather than once per URL, and each such worker is nudged on
-- wake:{worker}. Lookups are cached for the call: a worker's
-- liveness, a host's owner, a job's place in a host's turns, a host made ready.
local i = A_REST
local nw = tonumber(ARGV[i])
local workers = {}
for j = 1, nw do
  workers[j] = ARGV[i + j]
end
i = i + nw + 1
local assigned, dropped, granted = 0, 0, 0
local queued, dispatched = {}, {}
local k_workers, k_owner, k_orphans = K('workers'), K('owner'), K('orphans')

local alive = {}
local function lives(w)
  local a = alive[w]
  if a == nil then
    a = redis.call('ZSCORE', k_workers, w) ~= false
    alive[w] = a
  end
  return a
end

-- The host's owner: its recorded one while that worker lives, else w (when w lives), recorded
-- by claim. Read only: a record found already handled changes nothing.
local owners = {}
local function owner_of(host, w)
  local o = owners[host]
  if o then
    return o, false
  end
  o = redis.call('HGET', k_owner, host)
  if o and lives(o) then
    owners[host] = o
    return o, false
  end
  if w and lives(w) then
    return w, true
  end
  return nil, false
end

-- Records w as the host's owner. w takes the host with its politeness state: an orphaned host
-- brings its queues and next allowed time.
local function claim(host, w)
  owners[host] = w
  redis.call('HSET', k_owner, host, w)
  redis.call('SADD', K('wdoms', w), host)
  local due = redis.call('ZSCORE', k_orphans, host)
  if due then
    redis.call('ZREM', k_orphans, host)
    local n = host_backlog(host)
    if n > 0 then
      queued[w] = (queued[w] or 0) + n
      redis.call('ZADD', K('ready', w), math.max(tonumber(due), NOW), host)
      granted = granted + 1
    end
  end
end

-- Puts a host with new work into its owner's ready set (unless a fetch is in flight), once.
local readied = {}
local function make_ready(host, o)
  if not readied[host] then
    readied[host] = true
    if redis.call('SISMEMBER', K('busy', o), host) == 0 then
      redis.call('ZADD', K('ready', o), 'NX', NOW, host)
    end
  end
end

-- A job's queue on a host: a new queue brings the job into the host's turns (host_push), and
-- the host into its owner's ready set. A queue that exists already needs neither: its job is in
-- the host's turns, and an owned host with work is in its owner's ready or busy set (take lets
-- a host go only once nothing is queued on it).
local function push(crawlid, host, score, member, o, new)
  local q = P .. 'q:' .. crawlid .. ':' .. host
  if redis.call('EXISTS', q) == 1 then
    redis.call('ZADD', q, score, member)
    if new then
      make_ready(host, o)
    end
  else
    host_push(crawlid, host, score, member)
    make_ready(host, o)
  end
end

local nj = tonumber(ARGV[i])
i = i + 1
for _ = 1, nj do
  local crawlid, n = ARGV[i], tonumber(ARGV[i + 1])
  i = i + 2
  local seeds = K('seeds', crawlid)
  local head = n > 0 and redis.call('ZRANGE', seeds, 0, n - 1, 'WITHSCORES') or {}
  local in_order = true
  local handled = {}
  local reasons = {}
  local jdropped = 0
  for r = 1, n do
    local member, host, code = ARGV[i], ARGV[i + 1], ARGV[i + 2]
    i = i + 3
    local score
    if in_order and head[2 * r - 1] == member then
      score = head[2 * r]
    else
      in_order = false
      score = redis.call('ZSCORE', seeds, member)
    end
    if score then
      local wi = tonumber(code)
      if wi then
        local o, new = owner_of(host, workers[wi])
        if o then
          if new then
            claim(host, o)
          end
          push(crawlid, host, score, member, o, new)
          queued[o] = (queued[o] or 0) + 1
          dispatched[o] = (dispatched[o] or 0) + 1
          assigned = assigned + 1
          handled[#handled + 1] = member
        end
      else
        reasons[code] = (reasons[code] or 0) + 1
        jdropped = jdropped + 1
        handled[#handled + 1] = member
      end
    end
  end
  if in_order and #handled == n then
    if n > 0 then
      redis.call('ZREMRANGEBYRANK', seeds, 0, n - 1)
    end
  else
    for s = 1, #handled, 1000 do
      redis.call('ZREM', seeds, unpack(handled, s, math.min(s + 999, #handled)))
    end
  end
  if jdropped > 0 then
    for why, c in pairs(reasons) do
      redis.call('HINCRBY', K('stats', 'dropped'), why, c)
    end
    if redis.call('EXISTS', K('job', crawlid)) == 1 then
      redis.call('HINCRBY', K('job', crawlid), 'dropped', jdropped)
      job_pending(crawlid, 0 - jdropped)
    end
    dropped = dropped + jdropped
  end
  if redis.call('EXISTS', seeds) == 0 then
    redis.call('SREM', K('frontier'), crawlid)
  end
end
local no = tonumber(ARGV[i])
i = i + 1
for _ = 1, no do
  local host, w = ARGV[i], workers[tonumber(ARGV[i + 1])]
  i = i + 2
  if redis.call('ZSCORE', k_orphans, host) then
    if redis.call('EXISTS', K('hjobs', host)) == 0 then
      redis.call('ZREM', k_orphans, host) -- its queues emptied meanwhile (a stopped job)
    else
      local o, new = owner_of(host, w)
      if new then
        claim(host, o)
      end
    end
  end
end
for w, c in pairs(queued) do
  redis.call('HINCRBY', K('worker', w), 'queued', c)
end
for w, c in pairs(dispatched) do
  redis.call('HINCRBY', K('worker', w), 'dispatched', c)
end
-- A nudge to each worker that got work, so it takes now rather than at its next poll (wake.h).
for w in pairs(queued) do
  redis.pcall('PUBLISH', K('wake', w), '1')
end
return {assigned, dropped, granted}
