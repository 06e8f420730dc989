#!lua flags=no-writes,allow-stale
--- args: crawlid?
-- frontier: how many records wait in the frontier, all jobs together (the sum of the jobs'
-- frontiers, for gauges and status), or one job's when a crawlid is given.
-- Arguments: an optional crawlid.  Returns the count.
if A.crawlid and A.crawlid ~= '' then
  return frontier_count(A.crawlid)
end
local n = 0
for _, c in ipairs(redis.call('SMEMBERS', K('frontier'))) do
  n = n + frontier_count(c)
end
return n
