-- work.lua: a worker's three calls as functions, prepended after common.lua (embed.py --lib),
-- so that complete.lua, take.lua and hb.lua (one each) and step.lua (a heartbeat, many
-- completes and a take in one call) run the same code.

-- Counters of a call's pages, added up and written once by tally_flush at its end: a script
-- runs whole, so nobody sees the difference, and a step of many pages sends a few HINCRBYs
-- instead of some ten per page. Only counters no script reads back while it runs.
local TALLY = {hash = {}, stat = {}, trim = {}}
-- The hosts a call's completes hand back, written once (hosts_flush) rather than two calls a
-- page: freed from busy:{w} (idle) and due again in ready:{w} (ready: score, host pairs).
local BACK = {idle = {}, ready = {}}

-- What a call reads once however many pages it carries (a script's locals are new each call,
-- so nothing here outlives it): a job's fields (job_get), the jobs whose frontier this call
-- listed already, and whether any blacklist or domain rate exists at all (take_urls looks them
-- up per domain label otherwise: seven calls a URL on a fleet that has neither).
local JOB = {}
-- How long a host waits whose turn is a sharded job's URL over its allowance (take_urls).
local BUDGET_WAIT_MS = 500
local NOTED = {}
local ANY = {}

local function tally_hash(key, field, n)
  local h = TALLY.hash[key]
  if not h then
    h = {}
    TALLY.hash[key] = h
  end
  h[field] = (h[field] or 0) + n
end

local function hosts_flush(w)
  for s = 1, #BACK.idle, 1000 do -- unpack's stack
    redis.call('SREM', K('busy', w), unpack(BACK.idle, s, math.min(s + 999, #BACK.idle)))
  end
  for s = 1, #BACK.ready, 1000 do
    redis.call('ZADD', K('ready', w), unpack(BACK.ready, s, math.min(s + 999, #BACK.ready)))
  end
  BACK = {idle = {}, ready = {}}
end

local function tally_flush()
  local made = {} -- hashes where this call made a field: a new minute, time to trim
  for key, h in pairs(TALLY.hash) do
    for field, n in pairs(h) do
      if redis.call('HINCRBY', key, field, n) == n then
        made[key] = true
      end
    end
  end
  for key, field in pairs(TALLY.trim) do
    if made[key] then
      redis.call('HDEL', key, field)
      buckets_sweep(key, 60, function(f) -- wstat's minutes: field - 60 and older have gone
        local at = tonumber(f)
        return at ~= nil and at <= field
      end)
    end
  end
  for name, n in pairs(TALLY.stat) do
    stat_incr(name, n)
  end
  TALLY = {hash = {}, stat = {}, trim = {}}
  bloom_close()
end

-- The job's fields a call needs, read once: state, max_pages, started (kept current by this
-- call's own takes and releases), domain_max_pages, spiderid, and in a sharded keyspace whether
-- max_pages is an allowance that may still grow (budget, not budget_gone: submit.lua). A job
-- no longer there reads as {state = nil}.
local function job_get(crawlid)
  local j = JOB[crawlid]
  if not j then
    local st = redis.call('HMGET', K('job', crawlid), 'state', 'max_pages', 'started', 'domain_max_pages', 'spiderid',
      'budget', 'budget_gone')
    j = {state = st[1], cap = tonumber(st[2]) or 0, started = tonumber(st[3]) or 0, dcap = tonumber(st[4]) or 0,
      spider = st[5] or 'link', budget = st[6] and 1 or 0, grows = st[6] ~= false and not st[7]}
    JOB[crawlid] = j
  end
  return j
end

-- job_pending, and a job it may have finished is read again.
local function job_settle(crawlid, delta)
  local left = job_pending(crawlid, delta)
  if left <= 0 then
    JOB[crawlid] = nil
  end
  return left
end

-- frontier_note once per call and job: 1 when this call found the job's frontier empty.
local function frontier_noted(crawlid)
  if NOTED[crawlid] then
    return 0
  end
  NOTED[crawlid] = true
  return frontier_note(crawlid)
end

-- Whether the set or hash at key holds anything, asked once per call.
local function any(key, cmd)
  if ANY[key] == nil then
    ANY[key] = redis.call(cmd, K(key)) > 0
  end
  return ANY[key]
end

-- The worker lets an idle host go (nothing queued, its delay over), so ownership does not grow
-- with every host ever seen; its next URL may go to any worker, safely, since the delay since
-- its last hit is already over.
local function let_go(w, host)
  redis.call('SREM', K('wdoms', w), host)
  if redis.call('HGET', K('owner'), host) == w then
    redis.call('HDEL', K('owner'), host)
  end
end

-- outbox_push(crawlid, i, n, k): n links of hosts other shards hold, from ARGV[i] on, each
-- (shard, record, k hash values), appended to this shard's outbox for that shard
-- (out:{shard}) as one line "crawlid TAB record TAB hash ..." for the scheduler to forward
-- (ARCHITECTURE.md "Shards"). They skip this shard's bloom: their own shard's decides. Returns n.
local function outbox_push(crawlid, i, n, k)
  local by = {}
  for j = 0, n - 1 do
    local p = i + j * (2 + k)
    local line = {crawlid, ARGV[p + 1]}
    for h = 1, k do
      line[#line + 1] = ARGV[p + 1 + h]
    end
    local t = ARGV[p]
    by[t] = by[t] or {}
    by[t][#by[t] + 1] = table.concat(line, '\t')
  end
  for t, lines in pairs(by) do
    for s = 1, #lines, 1000 do -- unpack's stack: a page may carry thousands of links
      redis.call('RPUSH', K('out', t), unpack(lines, s, math.min(s + 999, #lines)))
    end
  end
  return n
end

-- complete_page(w, a, rest): a holds complete.lua's named arguments (lease, host, ...), rest
-- the ARGV index of its first link. Acks the lease, schedules the domain's next fetch,
-- pushes the page's new links through the bloom into the frontier and updates the job.
-- Arguments (a's fields): lease member, host, next_ms, outcome, reason, status (HTTP
--       status, 0 for none), items stored, items dropped, refresh_at (ms; > 0: a navigation
--       page to fetch again then), revisit (JSON {etag, lm, digest, at} the refresh record keeps
--       for a conditional GET and the unchanged check, or ""), k, n, denied, away,
--       then from ARGV[rest] n x (link record, k bloom hash values), then denied more: links
--       the worker found robots.txt forbids (it holds their site's rules). They never enter
--       the frontier: each new one (by the bloom, so once per job) counts in robots_denied, as
--       if taken and denied, and in robots_denied_links; a queue, a lease and a complete less;
--       then away more, each (shard, link record, k hash values): links another shard holds
--       (a sharded keyspace), for outbox_push.
-- Outcomes: done (stored), fail (stored with an error, and listed in failed), retry (back to
-- the job's queue on the host with one more attempt), release (back untouched: the worker could not try),
-- requeue (like release, but a sink may already hold it: marked redeliver so the next store
-- looks for its _id first), denied (robots.txt forbids it: never fetched, not stored; reason
-- "robots.txt", else why robots.txt could not be read, counted in robots_unreachable), skipped
-- (some job fetched it within the job's skip_recent_hours: not fetched, not stored).
-- Returns {1, links added, pending, denied links new} or {-1} when the lease was lost (reaped): then nothing
-- changes and the caller drops its result, the URL having gone back to the frontier.
-- The caller runs hosts_flush (before anything reads busy or ready: a take) and tally_flush
-- after its last complete. A page's new links and its own end
-- are one change of pending (+added - 1), so pending never touches 0 while links are added.
local function complete_page(w, a, rest)
  local lm, host, next_ms = a.lease, a.host, a.next_ms
  local outcome, reason, status = a.outcome, a.reason, a.status
  local items, items_dropped = tonumber(a.items), tonumber(a.items_dropped)
  local refresh_at = tonumber(a.refresh_at)
  local revisit = a.revisit
  local k, n, denied = tonumber(a.k), tonumber(a.n), tonumber(a.denied)
  if redis.call('ZREM', K('lease', w), lm) == 0 then
    return {-1, 0, 0}
  end
  BACK.idle[#BACK.idle + 1] = host
  local _, member = split_lease(lm)
  local rec = rec_decode(member)
  local crawlid = rec.crawlid
  local jk = K('job', crawlid)
  local back = outcome == 'retry' or outcome == 'release' or outcome == 'requeue'
  if back then
    if outcome == 'requeue' then
      rec.redeliver = true
    end
    if outcome == 'retry' then
      rec.attempt = (tonumber(rec.attempt) or 0) + 1
      redis.call('HINCRBY', jk, 'retries', 1)
    elseif (tonumber(rec.attempt) or 0) == 0 and not rec.lost then
      -- released untried: take counted it as started (and against the host's cap); it will be
      -- counted again when taken again
      redis.call('HINCRBY', jk, 'started', -1)
      if JOB[crawlid] then
        JOB[crawlid].started = JOB[crawlid].started - 1
      end
      if redis.call('HEXISTS', K('jobhosts', crawlid), host) == 1 then
        redis.call('HINCRBY', K('jobhosts', crawlid), host, -1)
      end
    end
    host_push(crawlid, host, seed_score(crawlid, rec.priority, rec.depth), rec_encode(rec))
    redis.call('HINCRBY', K('worker', w), 'queued', 1)
  end
  -- The domain keeps its next allowed time even with an empty queue; take drops it once due. A
  -- host with no delay and nothing queued is dropped here: it would be due at once, but behind
  -- every host already waiting in ready (a crawl of one page per host held them all there, its
  -- owner's sets twice as large, each dropped by a take in a slot a lease could have had).
  if not back and tonumber(next_ms) <= NOW and redis.call('EXISTS', K('hjobs', host)) == 0 then
    let_go(w, host)
  else
    BACK.ready[#BACK.ready + 1] = next_ms
    BACK.ready[#BACK.ready + 1] = host
  end
  local added, refused = 0, 0
  local away = tonumber(a.away)
  local running = (n > 0 or denied > 0 or away > 0) and job_get(crawlid).state == 'running'
  if denied > 0 and running then
    refused = bloom_note_new(crawlid, rest + n * (1 + k), denied, k)
    if refused > 0 then
      tally_hash(jk, 'robots_denied', refused)
      tally_hash(jk, 'robots_denied_links', refused)
    end
  end
  if n > 0 and running then
    local child_depth = (tonumber(rec.depth) or 0) + 1
    added = frontier_push_new(crawlid, rest, n, k, function()
      return rec.priority, child_depth
    end)
    if added > 0 then
      -- The job's frontier was empty, so the scheduler may be asleep until its tick: nudge it.
      if frontier_noted(crawlid) == 1 then
        redis.pcall('PUBLISH', K('wake', 'sched'), '1')
      end
    end
  end
  -- Links of other shards wait in this shard's outbox, counted in pending here until the
  -- scheduler has put them into their shard (forward.lua): the job's summed pending never
  -- reaches 0 while they travel.
  local sent = running and away > 0 and outbox_push(crawlid, rest + (n + denied) * (1 + k), away, k) or 0
  local grow = added + sent
  local minute = math.floor(NOW / 60000)
  local wk = K('wstat', w)
  tally_hash(wk, minute, 1)
  TALLY.trim[wk] = minute - 60
  if outcome == 'done' or outcome == 'fail' then
    local name = 'pages:' .. job_get(crawlid).spider .. ':' .. status
    TALLY.stat[name] = (TALLY.stat[name] or 0) + 1
  end
  local left
  if back then
    left = grow > 0 and redis.call('HINCRBY', jk, 'pending', grow) or tonumber(redis.call('HGET', jk, 'pending'))
  elseif outcome == 'denied' and reason ~= 'robots.txt' then
    -- robots.txt could not be read (unreachable, 5xx): the site is off limits for a while
    -- (RFC 9309), which the user must not mistake for "disallowed"; the reason is kept by host.
    redis.call('HINCRBY', jk, 'robots_unreachable', 1)
    redis.call('HSET', K('robotsdown', crawlid), host, reason)
    left = job_settle(crawlid, grow - 1)
  elseif outcome == 'denied' then
    redis.call('HINCRBY', jk, 'robots_denied', 1)
    left = job_settle(crawlid, grow - 1)
  elseif outcome == 'skipped' then
    redis.call('HINCRBY', jk, 'recent_skipped', 1)
    left = job_settle(crawlid, grow - 1)
  else
    tally_hash(jk, 'fetched', 1)
    if items > 0 then
      redis.call('HINCRBY', jk, 'items', items)
    end
    if items_dropped > 0 then
      redis.call('HINCRBY', jk, 'items_dropped', items_dropped)
    end
    if refresh_at > 0 and outcome == 'done' and job_get(crawlid).state == 'running' then
      -- A navigation page comes back (Octopus design): its next visit waits in refresh, counted
      -- in pending, so a refreshing job runs until it is stopped or expires.
      local visit = {url = rec.url, crawlid = crawlid, depth = rec.depth, priority = rec.priority,
        attempt = 0, cb = rec.cb, refresh = true, sitemap = rec.sitemap}
      if revisit ~= '' then
        -- Conditional GET: the page's validators (and text digest) ride in its refresh record,
        -- which lives exactly as long as the page is refreshed.
        local v = cjson.decode(revisit)
        visit.etag, visit.lm, visit.digest, visit.at = v.etag, v.lm, v.digest, v.at
      end
      local again = cjson.encode(visit)
      redis.call('ZADD', K('refresh'), refresh_at, again)
      redis.call('HINCRBY', jk, 'pending', 1)
    end
    if outcome == 'fail' then
      redis.call('HINCRBY', jk, 'errors', 1)
      redis.call('HINCRBY', jk, 'failed', 1)
      redis.call('ZADD', K('failed'), NOW,
        cjson.encode({url = rec.url, crawlid = crawlid, reason = reason, attempts = (tonumber(rec.attempt) or 0) + 1}))
    end
    left = job_settle(crawlid, grow - 1)
  end
  return {1, added, left, refused}
end

-- The rate for a host: its own, a parent domain's, or the default "*". Scrapy Cluster's
-- {"hits","window","scale"}: hits * scale requests per window seconds.
local function rate_for(host)
  if not any('domainconf', 'HLEN') then
    return nil, nil
  end
  local name = string.gsub(host, ':%d+$', '')
  while true do
    local conf = redis.call('HGET', K('domainconf'), name)
    if conf then
      return name, conf
    end
    local dot = string.find(name, '.', 1, true)
    if not dot then
      break
    end
    name = string.sub(name, dot + 1)
  end
  local conf = redis.call('HGET', K('domainconf'), '*')
  if conf then
    return '*', conf
  end
  return nil, nil
end

-- A blacklisted host (or parent domain): what is already queued for it is dropped here, so a
-- blacklist-update takes effect at once, not only for URLs dispatched after it.
local function blacklisted(host)
  if not any('blacklist', 'SCARD') then
    return false
  end
  local name = string.gsub(host, ':%d+$', '')
  while name do
    if redis.call('SISMEMBER', K('blacklist'), name) == 1 then
      return true
    end
    local dot = string.find(name, '.', 1, true)
    name = dot and string.sub(name, dot + 1) or nil
  end
  return false
end

-- Sliding-window check of one log; returns 0 when there is room, else when there will be.
local function window_wait(key, hits, window_ms)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', NOW - window_ms)
  if redis.call('ZCARD', key) < hits then
    return 0
  end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window_ms
end

-- Returns 0 when the host may be fetched now (ip: the worker's, for its own log) (and records the hit), else the time it may.
local function throttle(host, spider, ip)
  local domain, conf = rate_for(host)
  if not conf then
    return 0
  end
  local ok, c = pcall(cjson.decode, conf)
  if not ok or type(c) ~= 'table' then
    return 0
  end
  local hits = math.floor((tonumber(c.hits) or 0) * (tonumber(c.scale) or 1))
  local window_ms = (tonumber(c.window) or 0) * 1000
  if window_ms <= 0 then
    return 0
  end
  if hits < 1 then
    return NOW + window_ms -- a zero rate parks the domain
  end
  local d = domain == '*' and string.gsub(host, ':%d+$', '') or domain
  local k1, k2 = K('throttle', spider, d), K('throttle', ip, d)
  local wait = math.max(window_wait(k1, hits, window_ms), window_wait(k2, hits, window_ms))
  if wait > 0 then
    return wait
  end
  local member = NOW .. ':' .. redis.call('INCR', K('seq'))
  redis.call('ZADD', k1, NOW, member)
  redis.call('ZADD', k2, NOW, member)
  redis.call('PEXPIRE', k1, window_ms + 1000)
  redis.call('PEXPIRE', k2, window_ms + 1000)
  return 0
end

-- The head of the job whose turn it is on the host: crawlid, queue key, record, whether the
-- host has other jobs and whether the queue holds more than this record; nil when the host
-- has nothing queued. An empty queue (its job left) leaves the turns on the way. Two of each
-- are read so that take needs no EXISTS after its ZREM, nor a turn's ZINCRBY on a host one job
-- has to itself (a job joining starts at the lowest pass: the same whatever the lone one's).
local function next_turn(host)
  local hj = K('hjobs', host)
  while true do
    local turn = redis.call('ZRANGE', hj, 0, 1)
    if #turn == 0 then
      return nil
    end
    local q = K('q', turn[1], host)
    local head = redis.call('ZRANGE', q, 0, 1)
    if #head > 0 then
      return turn[1], q, head[1], #turn > 1, #head > 1
    end
    host_leave(turn[1], host)
  end
end

-- The leases of a take (members "host<TAB>record") and their hosts, out of ready:{w} and into
-- busy:{w}: three calls for the whole take rather than three a URL (a redis.call costs more
-- than the Lua around it). Nothing the take reads meanwhile is in these keys.
local function lease_all(w, members, hosts, lease_ms)
  local until_ms = string.format('%d', NOW + lease_ms)
  for s = 1, #members, 500 do -- unpack's stack
    local scored = {}
    for j = s, math.min(s + 499, #members) do
      scored[#scored + 1] = until_ms
      scored[#scored + 1] = members[j]
    end
    redis.call('ZADD', K('lease', w), unpack(scored))
    redis.call('ZREM', K('ready', w), unpack(hosts, s, math.min(s + 499, #hosts)))
    redis.call('SADD', K('busy', w), unpack(hosts, s, math.min(s + 499, #hosts)))
  end
end

-- take_urls(w, maxn, lease_ms, ip): a worker leases the next URL of each of its domains that may be fetched now: from the
-- queue of the host's job whose turn it is (common.lua: stride scheduling by priority).
-- Returns {lease members, next due time or -1, last}; nothing while the worker is draining.
-- last lists the positions (1-based) of the members that were the last URL queued on their
-- host: the worker need not keep their connection for a next request (worker/fetch.h
-- last_on_host).
-- A taken domain leaves ready:{w} and enters busy:{w}, so it is never fetched twice at once;
-- complete puts it back with its next allowed time. Shared throttles (thesis 4.2.2): when
-- domainconf has a rate for the host (or a parent domain, or "*"), a sliding-window log per
-- spider x domain and per worker ip x domain is checked and recorded here, atomically; a host
-- over its rate waits in ready:{w} until its window has room.
local function take_urls(w, maxn, lease_ms, ip)
  -- A worker an operator drains (draining, drain.lua) takes nothing new: it finishes what it
  -- holds while the scheduler gives its hosts to other workers.
  if redis.call('SISMEMBER', K('draining'), w) == 1 then
    return {{}, '-1', {}}
  end
  local ready = K('ready', w)
  local hosts = redis.call('ZRANGEBYSCORE', ready, '-inf', NOW, 'LIMIT', 0, maxn)
  local out, last, taken = {}, {}, {}
  for _, host in ipairs(hosts) do
    while true do
      local crawlid, q, member, shared, more = next_turn(host)
      if not crawlid then
        -- Nothing queued and its delay has passed: let go.
        redis.call('ZREM', ready, host)
        let_go(w, host)
        break
      end
      local rec = rec_decode(member)
      local jk = K('job', crawlid)
      local job = job_get(crawlid)
      local first = (tonumber(rec.attempt) or 0) == 0 and not rec.lost -- a lost lease was counted when first taken
      local ok = job.state == 'running'
      local why = 'stopped'
      if ok and first and (job.cap > 0 or job.budget > 0) and job.started >= job.cap then
        if job.grows then
          -- A sharded job's allowance may still grow (its scheduler asks shard 0): the URL
          -- stays queued, the host due again in a while, like a throttled one.
          redis.call('ZADD', ready, NOW + BUDGET_WAIT_MS, host)
          break
        end
        ok, why = false, 'max_pages' -- the job's page cap: dropped, never fetched
      end
      if ok and blacklisted(host) then
        ok, why = false, 'blacklist'
      end
      local dcap = job.dcap
      if ok and first and dcap > 0 and (tonumber(redis.call('HGET', K('jobhosts', crawlid), host)) or 0) >= dcap then
        ok, why = false, 'domain_max_pages'
      end
      if ok then
        local wait = throttle(host, job.spider, ip)
        if wait > 0 then
          redis.call('ZADD', ready, wait, host) -- stays queued; due when its window has room
          break
        end
      end
      redis.call('ZREM', q, member)
      tally_hash(K('worker', w), 'queued', -1)
      if not more then
        host_leave(crawlid, host)
      elseif ok and shared then
        local p = tonumber(rec.priority) or 1
        redis.call('ZINCRBY', K('hjobs', host), 1 / (p >= 1 and p or 1), crawlid) -- its turn is taken
      end
      if ok then
        if first then
          tally_hash(jk, 'started', 1)
          job.started = job.started + 1
          if dcap > 0 then
            redis.call('HINCRBY', K('jobhosts', crawlid), host, 1)
          end
        end
        out[#out + 1] = host .. '\t' .. member
        taken[#taken + 1] = host
        if not more and not shared then
          last[#last + 1] = #out
        end
        break
      elseif job.state then
        redis.call('HINCRBY', jk, 'dropped', 1)
        redis.call('HINCRBY', K('stats', 'dropped'), why, 1)
        job_settle(crawlid, -1)
      end
    end
  end
  lease_all(w, out, taken, lease_ms)
  local nxt = redis.call('ZRANGE', ready, 0, 0, 'WITHSCORES')
  return {out, nxt[2] or '-1', last}
end

-- heartbeat(w, mode, first, last): a worker's heartbeat, and its registration fence. Flagged allow-oom: a worker must keep
-- beating while Redis is at maxmemory (it takes no new work then), or the scheduler would reap
-- live workers; it writes a few bytes in place.
-- mode is "register" or "beat"; ARGV[first..last] are field/value pairs for worker:{w}.
-- Returns 1, or 0 when a "beat" finds the worker gone from the table: it was reaped (its
-- leases went back to the frontier, or Redis lost its data), nothing is written, and the
-- worker must drop what it holds and register again under a new id.
local function heartbeat(w, mode, first, last)
  if mode == 'beat' and not redis.call('ZSCORE', K('workers'), w) then
    return 0
  end
  if redis.call('ZADD', K('workers'), NOW, w) == 1 and mode == 'register' then
    -- a new worker: the scheduler looks at its workers now, not at its next refresh
    redis.pcall('PUBLISH', K('wake', 'sched'), '1')
  end
  local fields = {}
  for i = first, last do
    fields[#fields + 1] = ARGV[i]
  end
  if #fields > 0 then
    redis.call('HSET', K('worker', w), unpack(fields))
  end
  return 1
end
