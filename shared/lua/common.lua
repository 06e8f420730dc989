-- common.lua: prepended to every script at build time (Redis 7.0 scripts cannot share code).
-- Every script takes ARGV[1] = key prefix (e.g. "rc:") and ARGV[2] = now in ms.
local P = ARGV[1]
local NOW = tonumber(ARGV[2])
-- A key: the prefix, then the parts joined by ':'. Up to three parts without a table (K runs some
-- twenty times a page, and every table is garbage for Redis' Lua to collect).
local function K(a, b, c, d, ...)
  if b == nil then
    return P .. a
  elseif c == nil then
    return P .. a .. ':' .. b
  elseif d == nil then
    return P .. a .. ':' .. b .. ':' .. c
  end
  return P .. table.concat({a, b, c, d, ...}, ':')
end

-- Frontier order: higher priority first, then shallower first (breadth-first, so a page is
-- usually reached by its shortest path), then FIFO within the job. In the frontier the first two
-- are the bucket a record is in (below) and FIFO is the order of its list; in a host queue the
-- score says all three: the bucket's base plus the job's own sequence (its hash's `seq`, mod
-- 2^32, taken when the record enters the queue), so that jobs of one priority and depth
-- interleave there. 1000 priorities x 2^40 stays inside a double's 53 bits.
local PRIO_SCALE = 1099511627776 -- 2^40
local DEPTH_SCALE = 4294967296 -- 2^32

-- The bucket of (priority, depth), clamped: its name "priority:depth" and its base score.
local function seed_bucket(priority, depth)
  local p = tonumber(priority) or 0
  if p < 0 then p = 0 elseif p > 1000 then p = 1000 end
  local d = tonumber(depth) or 0
  if d < 0 then d = 0 elseif d > 255 then d = 255 end
  return p .. ':' .. d, (1000 - p) * PRIO_SCALE + d * DEPTH_SCALE
end

-- n numbers of the job's sequence; returns the first. A job hash that vanished (Redis lost its
-- data) is not brought back by a counter.
local function seq_take(crawlid, n)
  local jk = K('job', crawlid)
  local last = redis.call('EXISTS', jk) == 1 and redis.call('HINCRBY', jk, 'seq', n) or redis.call('INCRBY', K('seq'), n)
  return last - n + 1
end

local function seed_score(crawlid, priority, depth)
  local _, base = seed_bucket(priority, depth)
  return base + (seq_take(crawlid, 1) % DEPTH_SCALE)
end

-- Frontier records (shared/record.h): a plain one is "crawlid depth priority attempt url", one
-- with anything more is JSON. rec_decode reads both into a table with the JSON's fields;
-- rec_encode writes the compact form when the table holds nothing more.
local REC_PLAIN = {url = true, crawlid = true, depth = true, priority = true, attempt = true}
-- A record read from its job's frontier may omit its crawlid (record.h): crawlid fills it in.
local function rec_decode(m, crawlid)
  if string.byte(m, 1) == 123 then -- '{'
    local rec = cjson.decode(m)
    if rec.crawlid == nil then
      rec.crawlid = crawlid
    end
    return rec
  end
  local c, d, p, a, u = string.match(m, '^(%S+) (%-?%d+) (%-?%d+) (%-?%d+) (.+)$')
  if not c and crawlid then
    c = crawlid
    d, p, a, u = string.match(m, '^(%-?%d+) (%-?%d+) (%-?%d+) (.+)$')
  end
  if not u then
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

-- The frontier is per job, and within a job per bucket (priority, depth): the list
-- seeds:{crawlid}:{priority}:{depth}, FIFO, and the zset seedb:{crawlid} of its non-empty
-- buckets scored by their base (seed_bucket), so the job's order is its buckets in score order,
-- each from its head. A list costs about its members' bytes (a zset per job cost a skiplist node
-- and a dict entry more per URL), and a compact member leaves out the crawlid its key implies
-- (record.h); frontier_full puts it back. seeds:{crawlid} itself is the zset of an older
-- version (score: seed_score, members with their crawlid): nothing writes it any more, and it
-- is read first, as the job's front bucket, until it has drained. `frontier` lists the jobs
-- whose frontier holds anything, so that the scheduler reads a window of each job and no job's
-- backlog sits in front of another's. A script that adds to a job's frontier calls
-- frontier_note once (assign and stop take the job out again when its frontier empties); it
-- returns 1 when the job's frontier was empty.
local function frontier_note(crawlid)
  return redis.call('SADD', K('frontier'), crawlid)
end

-- A full record (one with its crawlid) as stored in its job's frontier: compact without it, or
-- JSON, so that a list holds nothing else and frontier_full needs no pattern (a third of
-- assign's time per record). A compact record of another job (never, in practice) becomes
-- JSON, which keeps its crawlid.
local function frontier_member(crawlid, m)
  if string.byte(m, 1) == 123 then
    return m
  end
  local n = #crawlid
  if string.byte(m, n + 1) == 32 and string.sub(m, 1, n) == crawlid then
    return string.sub(m, n + 2)
  end
  local ok, rec = pcall(rec_decode, m)
  return ok and cjson.encode(rec) or m
end

-- A member read from one of the job's lists, whole again: what goes to a host queue.
local function frontier_full(crawlid, m)
  if string.byte(m, 1) == 123 then
    return m
  end
  return crawlid .. ' ' .. m
end

-- Appends full records (a table) to the bucket (priority, depth) of the job's frontier.
local function frontier_append(crawlid, priority, depth, records)
  local b, base = seed_bucket(priority, depth)
  local key = K('seeds', crawlid, b)
  local len = 0
  for s = 1, #records, 1000 do
    local part = {}
    for j = s, math.min(s + 999, #records) do
      part[#part + 1] = frontier_member(crawlid, records[j])
    end
    len = redis.call('RPUSH', key, unpack(part))
  end
  if len > 0 and len == #records then -- the bucket was empty: list it
    redis.call('ZADD', K('seedb', crawlid), base, b)
  end
end

local function frontier_add(crawlid, priority, depth, record)
  frontier_append(crawlid, priority, depth, {record})
  frontier_note(crawlid)
end

-- The job's frontier keys: the legacy zset, then each bucket's list in order, with their
-- bucket names and base scores ({key, name, base}; the legacy one has none).
local function frontier_buckets(crawlid)
  local out = {}
  local legacy = K('seeds', crawlid)
  if redis.call('EXISTS', legacy) == 1 then
    out[1] = {legacy}
  end
  local bs = redis.call('ZRANGE', K('seedb', crawlid), 0, -1, 'WITHSCORES')
  for j = 1, #bs, 2 do
    out[#out + 1] = {K('seeds', crawlid, bs[j]), bs[j], tonumber(bs[j + 1])}
  end
  return out
end

-- The first n members of the job's frontier, in order.
local function frontier_head(crawlid, n)
  local out = {}
  if n <= 0 then
    return out
  end
  for _, b in ipairs(frontier_buckets(crawlid)) do
    local got = b[2] and redis.call('LRANGE', b[1], 0, n - #out - 1) or redis.call('ZRANGE', b[1], 0, n - #out - 1)
    for _, m in ipairs(got) do
      out[#out + 1] = m
    end
    if #out >= n then
      break
    end
  end
  return out
end

-- How many records wait in the job's frontier.
local function frontier_count(crawlid)
  local n = 0
  for _, b in ipairs(frontier_buckets(crawlid)) do
    n = n + (b[2] and redis.call('LLEN', b[1]) or redis.call('ZCARD', b[1]))
  end
  return n
end

-- Deletes the job's frontier; returns how many records it held.
local function frontier_clear(crawlid)
  local n = 0
  local keys = {K('seedb', crawlid)}
  for _, b in ipairs(frontier_buckets(crawlid)) do
    n = n + (b[2] and redis.call('LLEN', b[1]) or redis.call('ZCARD', b[1]))
    keys[#keys + 1] = b[1]
  end
  for s = 1, #keys, 1000 do
    redis.call('DEL', unpack(keys, s, math.min(s + 999, #keys)))
  end
  return n
end

-- Queues are per job and per host: q:{crawlid}:{host} (score: seed_score). The host's
-- politeness state (owner, next allowed time in ready:{w}, in flight in busy:{w}) is kept once,
-- on its owner, whatever the jobs. A host's jobs take turns by stride scheduling: hjobs:{host}
-- holds crawlid -> pass; take serves the job with the lowest pass and adds 1/priority to it, so
-- while both have work a job of priority 2 gets twice the turns of one of priority 1. A job
-- joining a host starts at the host's lowest pass: it saved no credit while away, and waits
-- behind no backlog. jq:{crawlid} lists the hosts where the job has a queue (stop, stats).
-- fresh: the job had no queue on the host, so is probably not in its turns either: the lowest
-- pass is read first, which on a host without jobs (a new host, the common case) also says the
-- job is not there; otherwise membership first (one read when it is there).
local function host_push(crawlid, host, score, member, fresh)
  redis.call('ZADD', K('q', crawlid, host), score, member)
  local hj = K('hjobs', host)
  local low
  if fresh then
    low = redis.call('ZRANGE', hj, 0, 0, 'WITHSCORES')
    if low[1] == crawlid or (low[1] and redis.call('ZSCORE', hj, crawlid)) then
      return
    end
  elseif redis.call('ZSCORE', hj, crawlid) then
    return
  else
    low = redis.call('ZRANGE', hj, 0, 0, 'WITHSCORES')
  end
  redis.call('ZADD', hj, tonumber(low[2]) or 0, crawlid)
  redis.call('SADD', K('jq', crawlid), host)
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

-- A finished job's working keys (bloom, digests, navigation times, host counters, hosts whose
-- robots.txt could not be read) expire after
-- the retention: conf:retention seconds (default a day; 0 keeps them). The job hash stays, for
-- reports. submit.lua persists them
-- again when a finished job is extended.
local function job_keys(crawlid)
  local filters = tonumber(redis.call('HGET', K('job', crawlid), 'bloom_filters')) or 1
  local keys = {K('digest', crawlid), K('jobhosts', crawlid), K('robotsdown', crawlid)}
  for s = 0, filters - 1 do
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

-- The job's URL filter: a scalable bloom filter (shared/sbloom.h, which holds the same
-- arithmetic in C: keep them equal). Filter i is the bitmap bloom:{crawlid}:{i}; the job hash
-- keeps the params ('bloom' = "sbf:mg0:fp:groups:mg1"), how many filters there are
-- ('bloom_filters', absent = 1) and how many URLs the newest holds ('bloom_count'). A URL is
-- present when all its bits are set in some filter; a new one goes into the newest, and when
-- that one holds its capacity the next starts at half the error rate: filter 1 has mg1 bits a
-- group (at least 65,536: fewer filters to read a new URL in), each later one twice the last.
-- The state is read once per script call and written back by bloom_close.
local BLOOM = {}
local BLOOM_MAX_K = 16
local BLOOM_MAX_BITS = 4294967296 -- 2^32: one Redis string

local function bloom_open(crawlid)
  local st = BLOOM[crawlid]
  if st then
    return st
  end
  local v = redis.call('HMGET', K('job', crawlid), 'bloom', 'bloom_filters', 'bloom_count')
  local mg0, fp, groups, mg1 = string.match(v[1] or '', '^sbf:(%d+):([^:]+):(%d+):(%d+)$')
  if not mg0 then -- a job made by an older version: no mg1, plain doubling
    mg0, fp, groups = string.match(v[1] or '', '^sbf:(%d+):([^:]+):(%d+)$')
  end
  -- A job hash without params (Redis lost it) gets the defaults (RC_BLOOM_DEFAULT_FP's 1e-9)
  -- rather than an error halfway through a script that has already written.
  st = {crawlid = crawlid, mg0 = tonumber(mg0) or 1024, fp = tonumber(fp) or 1e-9, groups = tonumber(groups) or 1,
    n = tonumber(v[2]) or 1, count = tonumber(v[3]) or 0, f = {}, dirty = false}
  st.mgmax = BLOOM_MAX_BITS
  while st.mgmax * st.groups > BLOOM_MAX_BITS do
    st.mgmax = st.mgmax / 2
  end
  st.mg1 = tonumber(mg1) or math.min(st.mg0 * 2, st.mgmax)
  if not mg0 then
    st.mg1 = math.min(65536, st.mgmax) -- RC_SBLOOM_JUMP_BITS, as rc_sbloom_params_for
  end
  BLOOM[crawlid] = st
  return st
end

-- Filter i (from 0): bits per group, hashes per group, capacity, key. rc_sbloom_filter_at.
local function bloom_filter(st, i)
  local f = st.f[i]
  if f then
    return f
  end
  local mg = st.mg0
  if i > 0 then
    mg = st.mg1
  end
  for _ = 2, i do
    if mg >= st.mgmax then break end
    mg = mg * 2
  end
  if mg > st.mgmax then mg = st.mgmax end
  local fp = st.fp / 2 ^ (i + 1)
  local kt = math.ceil(math.log(1 / fp) / math.log(2))
  if kt > BLOOM_MAX_K then kt = BLOOM_MAX_K end
  local k = math.floor(kt / st.groups)
  if k < 1 then k = 1 end
  if k > math.floor(BLOOM_MAX_K / st.groups) then k = math.floor(BLOOM_MAX_K / st.groups) end
  local cap = math.floor(-mg / k * math.log(1 - fp ^ (1 / (k * st.groups))))
  if cap < 1 then cap = 1 end
  f = {mg = mg, k = k, cap = cap, key = K('bloom', st.crawlid, i)}
  st.f[i] = f
  return f
end

-- BITFIELD arguments setting the URL's bits in filter f: h[0..] hold the URL's hash values,
-- BLOOM_MAX_K / groups per group (32 bits each); position = the value modulo the group's size.
-- rc_sbloom_positions. One table per filter and call, made at its full size (BLOOM_MAX_K
-- operations at most) and reused by every URL of the call: only the offsets change; unpack
-- passes the filter's own count of them.
local function bloom_bits(st, f, h)
  local args = f.args
  if not args then
    args = {'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1',
      'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1',
      'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1',
      'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1', 'SET', 'u1', '', '1'}
    f.args = args
  end
  local n = 3
  local per = math.floor(BLOOM_MAX_K / st.groups)
  for g = 0, st.groups - 1 do
    local base = g * f.mg
    for j = 0, f.k - 1 do
      args[n] = string.format('%d', base + h[g * per + j] % f.mg)
      n = n + 4
    end
  end
  return args, n - 3
end

-- Whether the URL (hash values h[0..]) is in older filter f: GETBIT by GETBIT, stopping at the
-- first clear bit (about two reads in a full filter, half its bits set).
local function bloom_has(st, f, h)
  local per = math.floor(BLOOM_MAX_K / st.groups)
  for g = 0, st.groups - 1 do
    local base = g * f.mg
    for j = 0, f.k - 1 do
      if redis.call('GETBIT', f.key, string.format('%d', base + h[g * per + j] % f.mg)) == 0 then
        return false
      end
    end
  end
  return true
end

-- The URL's hash values h[0..] from ARGV[i..]: k = 1 is rc_sbloom_hex's one text (8 hex
-- digits a value: a substring and a strtoul each, and one argument, not sixteen); k > 1 is the
-- older form, one decimal argument a value (a strtod each). A text of the wrong length or not
-- hex is an error, never bits set at made-up offsets.
local function bloom_hashes(st, i, k)
  local h = {}
  local per = math.floor(BLOOM_MAX_K / st.groups)
  if k == 1 then
    local s = ARGV[i]
    local n = per * st.groups
    if #s ~= 8 * n then
      error('bloom: hash text of ' .. #s .. ' characters, not ' .. 8 * n)
    end
    local sub = string.sub
    for j = 0, n - 1 do
      local v = tonumber(sub(s, 8 * j + 1, 8 * j + 8), 16)
      if not v then
        error('bloom: hash text is not hex: ' .. sub(s, 8 * j + 1, 8 * j + 8))
      end
      h[j] = v
    end
    return h
  end
  for j = 0, BLOOM_MAX_K - 1 do
    h[j] = tonumber(ARGV[i + j])
  end
  return h
end

-- Check-and-set of the URL whose hash values are at ARGV[i..] (k arguments: bloom_hashes).
-- Older filters are only read (newest first: it holds the most URLs); the newest is set by one
-- BITFIELD that returns the old bits. New when a bit was clear everywhere. The values are read
-- once per URL, not once per filter, and the bits' offsets go to Redis as
-- integers written by string.format: Redis 7.0 writes a Lua number argument with "%.17g", and
-- strtod and printf's float formatting were a sixth of its time in a crawl.
local function bloom_add(crawlid, i, k)
  local st = bloom_open(crawlid)
  local h = bloom_hashes(st, i, k)
  for fi = st.n - 2, 0, -1 do
    if bloom_has(st, bloom_filter(st, fi), h) then
      return false
    end
  end
  local f = bloom_filter(st, st.n - 1)
  if st.count == 0 and not f.made then
    -- A filter's first URL: create its bitmap at full length in one allocation (a bitmap grown
    -- bit by bit gets Redis' greedy string growth, up to twice the memory).
    if redis.call('EXISTS', f.key) == 0 then
      redis.call('SETBIT', f.key, f.mg * st.groups - 1, 0)
    end
    f.made = true
  end
  local new = false
  local args, nargs = bloom_bits(st, f, h)
  for _, x in ipairs(redis.call('BITFIELD', f.key, unpack(args, 1, nargs))) do
    if x == 0 then
      new = true
      break
    end
  end
  if new then
    st.count = st.count + 1
    st.dirty = true
    if st.count >= f.cap then
      st.n = st.n + 1
      st.count = 0
    end
  end
  return new
end

-- Writes back what bloom_add changed (once per script call).
local function bloom_close()
  for crawlid, st in pairs(BLOOM) do
    if st.dirty then
      redis.call('HSET', K('job', crawlid), 'bloom_filters', st.n, 'bloom_count', st.count)
      st.dirty = false
    end
  end
end

-- The n records at ARGV[i..], each followed by its k bloom hash values, that the job's bloom
-- finds new go into its frontier, in the bucket bucket_of(record) returns (priority, depth),
-- one RPUSH per bucket. Returns how many went in. submit (seeds) and complete (a page's links)
-- both push this way; the caller writes the bloom back (bloom_close) once, after its last push.
local function frontier_push_new(crawlid, i, n, k, bucket_of)
  local added = 0
  local order, lists = {}, {}
  for _ = 1, n do
    local member = ARGV[i]
    if bloom_add(crawlid, i + 1, k) then
      local p, d = bucket_of(member)
      local b = seed_bucket(p, d)
      local l = lists[b]
      if not l then
        l = {p = p, d = d}
        lists[b] = l
        order[#order + 1] = b
      end
      l[#l + 1] = member
      added = added + 1
    end
    i = i + 1 + k
  end
  for _, b in ipairs(order) do
    local l = lists[b]
    frontier_append(crawlid, l.p, l.d, l)
  end
  return added
end

-- The n URLs at ARGV[i..] (each a record and its k hash values) go into the job's bloom only,
-- not into its frontier (links robots.txt forbids: complete_page). Returns how many were new.
-- The caller writes the bloom back (bloom_close).
local function bloom_note_new(crawlid, i, n, k)
  local fresh = 0
  for _ = 1, n do
    if bloom_add(crawlid, i + 1, k) then
      fresh = fresh + 1
    end
    i = i + 1 + k
  end
  return fresh
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
  frontier_add(rec.crawlid, rec.priority, rec.depth, rec_encode(rec))
  return 1
end

-- Lease members are "host<TAB>record".
local function split_lease(lm)
  local tab = string.find(lm, '\t', 1, true)
  return string.sub(lm, 1, tab - 1), string.sub(lm, tab + 1)
end

-- A rolling hash's buckets that fell out of its window, all at once, when it holds more fields
-- than LIVE (what the window can hold): a bucket is otherwise dropped by the first count of the
-- minute it ends in, and a counter idle then (a fleet between jobs) left it behind for good.
-- STALE(field) says whether a field is one. HLEN is O(1); the sweep comes once per idle spell.
local function buckets_sweep(key, live, stale)
  if redis.call('HLEN', key) <= live then
    return
  end
  local old = {}
  for _, f in ipairs(redis.call('HKEYS', key)) do
    if stale(f) then
      old[#old + 1] = f
    end
  end
  for s = 1, #old, 1000 do -- unpack's stack
    redis.call('HDEL', key, unpack(old, s, math.min(s + 999, #old)))
  end
end

-- Rolling counters: hash stats:{name} with per-minute fields "m:<minute>" (kept a day),
-- per-hour fields "h:<hour>" (kept 8 days) and "total". A reader sums the buckets inside a
-- window: minutes for windows up to a day, hours beyond. Names are listed in stats:names.
-- The buckets that fell out of the windows are dropped, and the name listed, by the first count
-- of each minute (the one whose HINCRBY made its field): later ones in that minute would only
-- repeat it, two calls of five.
local STAT_MINUTES, STAT_HOURS = 1441, 193
local function stat_incr(name, n)
  local key = K('stats', name)
  local minute = math.floor(NOW / 60000)
  local hour = math.floor(NOW / 3600000)
  local first = redis.call('HINCRBY', key, 'm:' .. minute, n) == n
  redis.call('HINCRBY', key, 'h:' .. hour, n)
  redis.call('HINCRBY', key, 'total', n)
  if first then
    redis.call('HDEL', key, 'm:' .. (minute - STAT_MINUTES), 'h:' .. (hour - STAT_HOURS))
    redis.call('SADD', K('stats', 'names'), name)
    buckets_sweep(key, STAT_MINUTES + STAT_HOURS + 1, function(f)
      local t, at = string.match(f, '^([mh]):(%-?%d+)$')
      at = tonumber(at)
      return at ~= nil and at <= (t == 'm' and minute - STAT_MINUTES or hour - STAT_HOURS)
    end)
  end
end
