#!lua flags=allow-oom
--- args: ...
-- stat: adds to rolling counters (common.lua's stat_incr: per-minute, per-hour and lifetime
-- buckets in stats:{name}, the name listed in stats:names). Flagged allow-oom: it writes a few
-- bounded fields, and a request such as a stop must not fail at maxmemory for its counter.
-- Arguments: pairs (name, n).  Returns the number of counters touched.
local touched = 0
for i = A_REST, #ARGV - 1, 2 do
  local n = tonumber(ARGV[i + 1])
  if n and n ~= 0 then
    stat_incr(ARGV[i], n)
    touched = touched + 1
  end
end
return touched
