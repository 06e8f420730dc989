#!lua flags=no-writes,allow-stale
-- frontier: how many records wait in the frontier, all jobs together (the sum of the jobs'
-- seeds:{crawlid}, for gauges and status), or one job's when a crawlid is given.
-- ARGV: prefix, now[, crawlid].  Returns the count.
if ARGV[3] and ARGV[3] ~= '' then
  return redis.call('ZCARD', K('seeds', ARGV[3]))
end
local n = 0
for _, c in ipairs(redis.call('SMEMBERS', K('frontier'))) do
  n = n + redis.call('ZCARD', K('seeds', c))
end
return n
