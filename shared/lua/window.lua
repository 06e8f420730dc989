#!lua flags=no-writes
--- args: ...
-- window: the scheduler's read of the frontier, one window per job: the first n records of
-- seeds:{crawlid} for each (crawlid, n) asked (the scheduler sizes n by the job's priority), so
-- that every job with URLs waiting is dispatched each round, whatever another's backlog.
-- Members only: assign.lua reads their scores itself.
-- Arguments: pairs (crawlid, n).  Returns one array of records per pair.
local out = {}
for i = A_REST, #ARGV - 1, 2 do
  out[#out + 1] = redis.call('ZRANGE', K('seeds', ARGV[i]), 0, tonumber(ARGV[i + 1]) - 1)
end
return out
