#!lua flags=no-writes
--- args: ...
-- window: the scheduler's read of the frontier, one window per job: the first n records of
-- the job's frontier (common.lua's frontier_head) for each (crawlid, n) asked (the scheduler sizes n by the job's priority), so
-- that every job with URLs waiting is dispatched each round, whatever another's backlog.
-- Members as stored (compact ones without their crawlid): assign.lua matches them against the
-- frontier's head again.
-- A job whose seed list is still going in (hold_until ahead, submit.lua) gives an empty window.
-- Arguments: pairs (crawlid, n).  Returns one array of records per pair.
local out = {}
for i = A_REST, #ARGV - 1, 2 do
  local held = tonumber(redis.call('HGET', K('job', ARGV[i]), 'hold_until'))
  out[#out + 1] = (held and held > NOW) and {} or frontier_head(ARGV[i], tonumber(ARGV[i + 1]))
end
return out
