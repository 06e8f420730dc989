#!lua
--- args: worker lease host next_ms outcome reason status items items_dropped refresh_at revisit k n ...
-- complete: one call per fetched page. Acks the lease, schedules the domain's next fetch,
-- pushes the page's new links through the bloom into the frontier and updates the job.
-- Arguments: worker, lease member, host, next_ms, outcome, reason, status (HTTP
--       status, 0 for none), items stored, items dropped, refresh_at (ms; > 0: a navigation
--       page to fetch again then), revisit (JSON {etag, lm, digest, at} the refresh record keeps
--       for a conditional GET and the unchanged check, or ""), k, n,
--       then n x (link record, k bloom hash values).
-- Outcomes: done (stored), fail (stored with an error, and listed in failed), retry (back to
-- the job's queue on the host with one more attempt), release (back untouched: the worker could not try),
-- requeue (like release, but a sink may already hold it: marked redeliver so the next store
-- looks for its _id first), denied (robots.txt forbids it: never fetched, not stored), skipped
-- (some job fetched it within the job's skip_recent_hours: not fetched, not stored).
-- Returns {1, links added, pending} or {-1} when the lease was lost (reaped): then nothing
-- changes and the caller drops its result, the URL having gone back to the frontier.
local w, lm, host, next_ms = A.worker, A.lease, A.host, A.next_ms
local outcome, reason, status = A.outcome, A.reason, A.status
local items, items_dropped = tonumber(A.items), tonumber(A.items_dropped)
local refresh_at = tonumber(A.refresh_at)
local revisit = A.revisit
local k, n = tonumber(A.k), tonumber(A.n)
if redis.call('ZREM', K('lease', w), lm) == 0 then
  return {-1, 0, 0}
end
redis.call('SREM', K('busy', w), host)
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
    if redis.call('HEXISTS', K('jobhosts', crawlid), host) == 1 then
      redis.call('HINCRBY', K('jobhosts', crawlid), host, -1)
    end
  end
  host_push(crawlid, host, seed_score(crawlid, rec.priority, rec.depth), rec_encode(rec))
  redis.call('HINCRBY', K('worker', w), 'queued', 1)
end
-- The domain keeps its next allowed time even with an empty queue; take drops it once due.
redis.call('ZADD', K('ready', w), next_ms, host)
local added = 0
if n > 0 and redis.call('HGET', jk, 'state') == 'running' then
  local i = A_REST
  local child_depth = (tonumber(rec.depth) or 0) + 1
  for _ = 1, n do
    if bloom_add(crawlid, i + 1, k) then
      redis.call('ZADD', K('seeds', crawlid), seed_score(crawlid, rec.priority, child_depth), ARGV[i])
      added = added + 1
    end
    i = i + 1 + k
  end
  bloom_close()
  -- Count the new links before the page itself leaves, so pending never touches 0 early.
  if added > 0 then
    frontier_note(crawlid)
    redis.call('HINCRBY', jk, 'pending', added)
    -- The job's frontier was empty, so the scheduler may be asleep until its tick: nudge it.
    if redis.call('ZCARD', K('seeds', crawlid)) == added then
      redis.pcall('PUBLISH', K('wake', 'sched'), '1')
    end
  end
end
local minute = math.floor(NOW / 60000)
redis.call('HINCRBY', K('wstat', w), minute, 1)
redis.call('HDEL', K('wstat', w), minute - 60)
if outcome == 'done' or outcome == 'fail' then
  local spider = redis.call('HGET', jk, 'spiderid') or 'link'
  stat_incr('pages:' .. spider .. ':' .. status, 1)
end
local left
if back then
  left = tonumber(redis.call('HGET', jk, 'pending'))
elseif outcome == 'denied' then
  redis.call('HINCRBY', jk, 'robots_denied', 1)
  left = job_pending(crawlid, -1)
elseif outcome == 'skipped' then
  redis.call('HINCRBY', jk, 'recent_skipped', 1)
  left = job_pending(crawlid, -1)
else
  redis.call('HINCRBY', jk, 'fetched', 1)
  if items > 0 then
    redis.call('HINCRBY', jk, 'items', items)
  end
  if items_dropped > 0 then
    redis.call('HINCRBY', jk, 'items_dropped', items_dropped)
  end
  if refresh_at > 0 and outcome == 'done' and redis.call('HGET', jk, 'state') == 'running' then
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
  left = job_pending(crawlid, -1)
end
return {1, added, left}
