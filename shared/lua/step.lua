#!lua
--- args: worker hb hb_n take_max lease_ms ip n ...
-- step: a worker's round trip, one call for many pages: a heartbeat (optional), n completes,
-- then a take (optional), each exactly what hb.lua, complete.lua and take.lua do (work.lua).
-- Arguments:
--   worker
--   hb        "" (no heartbeat), "register" or "beat" (hb.lua's mode)
--   hb_n      how many of the tail's first arguments are the heartbeat's field/value pairs
--   take_max  how many URLs to take, 0 = no take
--   lease_ms, ip  take.lua's
--   n         how many completes follow
-- then the tail: hb_n heartbeat fields and values, then n groups, each complete.lua's
-- arguments after worker (lease host next_ms outcome reason status items items_dropped
-- refresh_at revisit k n denied away: the C side's RC_COMPLETE_* positions minus one, the worker given
-- once above), followed by that group's (n + denied) x (link record, k bloom hash values).
-- Returns {hb, completes, take}: hb is 1, 0 (reaped: the take is skipped, every complete finds
-- its lease gone) or -1 (none asked); completes holds one result per group in order, each
-- {1, links added, pending, denied links new} or {-1, 0, 0} (lease lost: that page's result is dropped); take
-- is take.lua's {lease members, next due time, last} ({} when none was asked).
-- Not allow-oom: at maxmemory the whole call is refused up front and nothing of it happens, so
-- the worker holds every complete of it and sends its heartbeat alone (hb.lua is allow-oom).
local w = A.worker
local hb_n, take_max, n = tonumber(A.hb_n), tonumber(A.take_max), tonumber(A.n)
local i = A_REST
local beat = -1
if A.hb ~= '' then
  beat = heartbeat(w, A.hb, i, i + hb_n - 1)
end
i = i + hb_n
local names = ARGS_OF.complete -- names[1] is worker, given once above
local done = {}
for c = 1, n do
  local a = {}
  for j = 2, #names do
    a[names[j]] = ARGV[i + j - 2]
  end
  local links = i + #names - 1
  done[c] = complete_page(w, a, links)
  i = links + (tonumber(a.n) + tonumber(a.denied)) * (1 + tonumber(a.k)) + tonumber(a.away) * (2 + tonumber(a.k))
end
hosts_flush(w) -- the hosts the completes freed, before the take looks for due ones
local took = {}
if take_max > 0 then
  took = beat == 0 and {{}, '-1', {}} or take_urls(w, take_max, tonumber(A.lease_ms), A.ip)
end
tally_flush()
return {beat, done, took}
