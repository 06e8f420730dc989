#!lua flags=allow-oom
--- args: worker mode ...
-- hb: a worker's heartbeat, and its registration fence. Flagged allow-oom: a worker must keep
-- beating while Redis is at maxmemory (it takes no new work then), or the scheduler would reap
-- live workers; it writes a few bytes in place.
-- Arguments: worker, mode ("register" or "beat"), then field/value pairs for worker:{w}.
-- Returns 1, or 0 when a "beat" finds the worker gone from the table: it was reaped (its
-- leases went back to the frontier, or Redis lost its data), nothing is written, and the
-- worker must drop what it holds and register again under a new id.
local w, mode = A.worker, A.mode
if mode == 'beat' and not redis.call('ZSCORE', K('workers'), w) then
  return 0
end
redis.call('ZADD', K('workers'), NOW, w)
local fields = {}
for i = A_REST, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
if #fields > 0 then
  redis.call('HSET', K('worker', w), unpack(fields))
end
return 1
