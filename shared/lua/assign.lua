#!lua
--- args: ...
-- assign: the scheduler's dispatch step. Moves records from the jobs' frontiers (common.lua:
-- a list per bucket, seeds:{crawlid}:{priority}:{depth}) into their job's queue on their host
-- (q:{crawlid}:{host}), with their crawlid back, gives orphaned hosts (their owner was reaped) a
-- new owner, and drops the records it refused, atomically, so nothing is lost if the scheduler
-- dies.
-- Arguments: nw, nw x worker, nj, then per job: crawlid, n, n x (record, host, code),
--       then no, no x (host, worker index).
-- code: the index (1..nw) of the worker the scheduler picked for a host with no owner, or the
-- reason the record is dropped. A job's n records are the head of its frontier as the
-- scheduler read it (window.lua), in order; match finds which still are. A record no longer
-- there (already handled), or whose host would go to a worker that is gone, is skipped.
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
-- by claim. Read only: a record found already handled changes nothing. A host with no owner
-- recorded at all is in `unowned`: nothing of it is in flight (take lets a host go only when it
-- is idle, reap drops its worker's busy set), so make_ready need not ask.
local owners, unowned = {}, {}
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
  unowned[host] = not o
  if w and lives(w) then
    return w, true
  end
  return nil, false
end

-- Records w as the host's owner. w takes the host with its politeness state: an orphaned host
-- brings its queues and next allowed time. Whether there are orphans at all is asked once.
-- A host that had no owner at all and is no orphan has nothing queued (a host loses its owner
-- only once its queues are empty, or to reap, which makes it an orphan if they are not): it is
-- in `blank` until its first queue is made, which then needs no look at what exists (push).
local any_orphans
local blank = {}
local function claim(host, w)
  owners[host] = w
  redis.call('HSET', k_owner, host, w)
  redis.call('SADD', K('wdoms', w), host)
  if any_orphans == nil then
    any_orphans = redis.call('EXISTS', k_orphans) == 1
  end
  local due = any_orphans and redis.call('ZSCORE', k_orphans, host)
  blank[host] = unowned[host] and not due
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
    if unowned[host] or redis.call('SISMEMBER', K('busy', o), host) == 0 then
      redis.call('ZADD', K('ready', o), 'NX', NOW, host)
    end
  end
end

-- A job's queue on a host: a new queue brings the job into the host's turns (host_push), and
-- the host into its owner's ready set. A queue that exists already needs neither: its job is in
-- the host's turns, and an owned host with work is in its owner's ready or busy set (take lets
-- a host go only once nothing is queued on it).
local queues = {} -- queues known to exist in this call: one EXISTS per queue, not per record
local function push(crawlid, host, score, member, o, new)
  local q = P .. 'q:' .. crawlid .. ':' .. host
  if blank[host] then
    -- A new host's first queue: the job is its only one, at pass 0 (host_push would find that
    -- out with an EXISTS and a ZRANGE, two of the dozen calls a one-page host costs here).
    blank[host] = nil
    redis.call('ZADD', q, score, member)
    redis.call('ZADD', K('hjobs', host), 0, crawlid)
    redis.call('SADD', K('jq', crawlid), host)
    queues[q] = true
    make_ready(host, o)
  elseif queues[q] or redis.call('EXISTS', q) == 1 then
    queues[q] = true
    redis.call('ZADD', q, score, member)
    if new then
      make_ready(host, o)
    end
  else
    host_push(crawlid, host, score, member, true)
    queues[q] = true
    make_ready(host, o)
  end
end

-- Matches a job's records as window.lua read them (members, in order) with its frontier's head
-- now, bucket by bucket: nothing but assign takes from a head, so they are still there in the
-- same order, unless a stop purged them (nothing matches) or another scheduler took them
-- first (its successor is at the head). A bucket may have grown at its tail, and a new bucket
-- may have come in front (a lost URL requeued, a new seed): neither matches, and the next bucket
-- is tried from the same record. Returns per record its bucket and host-queue score (nil: no
-- longer in the frontier, skipped), and per bucket how many of its head matched.
local function match(crawlid, members)
  local n, c = #members, 1
  local from, score, taken = {}, {}, {}
  for _, b in ipairs(n > 0 and frontier_buckets(crawlid) or {}) do
    if c > n then
      break
    end
    local got = b[2] and redis.call('LRANGE', b[1], 0, n - c) or redis.call('ZRANGE', b[1], 0, n - c, 'WITHSCORES')
    local step = b[2] and 1 or 2
    local m = 0
    while c <= n and got[m * step + 1] == members[c] do
      from[c] = b
      score[c] = step == 2 and got[m * 2 + 2] or nil
      m = m + 1
      c = c + 1
    end
    taken[#taken + 1] = {b, m}
  end
  -- A list's records enter their host queue with the job's next sequence numbers, in order.
  local seq = c > 1 and seq_take(crawlid, c - 1) or 0
  for r = 1, c - 1 do
    if not score[r] then
      score[r] = from[r][3] + ((seq + r - 1) % DEPTH_SCALE)
    end
  end
  return from, score, taken
end

-- Takes what matched off each bucket's head, but for the records left unhandled (their host's
-- worker is gone), which go back in front, in order. A bucket left empty leaves the index.
local function take_matched(crawlid, members, taken, handled)
  local c = 1
  for _, t in ipairs(taken) do
    local b, m = t[1], t[2]
    if m > 0 and not b[2] then -- the legacy zset: by member
      local gone = {}
      for r = c, c + m - 1 do
        if handled[r] then
          gone[#gone + 1] = members[r]
        end
      end
      for s = 1, #gone, 1000 do
        redis.call('ZREM', b[1], unpack(gone, s, math.min(s + 999, #gone)))
      end
    elseif m > 0 then
      redis.call('LTRIM', b[1], m, -1)
      local back = {}
      for r = c + m - 1, c, -1 do
        if not handled[r] then
          back[#back + 1] = members[r]
        end
      end
      if #back > 0 then
        redis.call('LPUSH', b[1], unpack(back))
      elseif redis.call('EXISTS', b[1]) == 0 then
        redis.call('ZREM', K('seedb', crawlid), b[2])
      end
    end
    c = c + m
  end
end

local nj = tonumber(ARGV[i])
i = i + 1
for _ = 1, nj do
  local crawlid, n = ARGV[i], tonumber(ARGV[i + 1])
  i = i + 2
  local members = {}
  for r = 1, n do
    members[r] = ARGV[i + 3 * (r - 1)]
  end
  local from, score, taken = match(crawlid, members)
  local handled = {}
  local reasons = {}
  local jdropped = 0
  for r = 1, n do
    local member, host, code = ARGV[i], ARGV[i + 1], ARGV[i + 2]
    i = i + 3
    local b = from[r]
    if b then
      local wi = tonumber(code)
      if wi then
        local o, new = owner_of(host, workers[wi])
        if o then
          if new then
            claim(host, o)
          end
          -- a list's member is without its crawlid; the legacy zset's (no bucket name) has it
          push(crawlid, host, score[r], b[2] and frontier_full(crawlid, member) or member, o, new)
          queued[o] = (queued[o] or 0) + 1
          dispatched[o] = (dispatched[o] or 0) + 1
          assigned = assigned + 1
          handled[r] = true
        end
      else
        reasons[code] = (reasons[code] or 0) + 1
        jdropped = jdropped + 1
        handled[r] = true
      end
    end
  end
  take_matched(crawlid, members, taken, handled)
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
  if redis.call('EXISTS', K('seedb', crawlid)) == 0 and redis.call('EXISTS', K('seeds', crawlid)) == 0 then
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
