#!lua flags=allow-oom
--- args: worker mode ...
-- hb: a worker's heartbeat, and its registration fence (work.lua heartbeat). Flagged
-- allow-oom: a worker must keep beating while Redis is at maxmemory (it takes no new work
-- then), or the scheduler would reap live workers; it writes a few bytes in place.
-- Arguments: worker, mode ("register" or "beat"), then field/value pairs for worker:{w}.
-- Returns 1, or 0 when a "beat" finds the worker reaped (register again under a new id).
return heartbeat(A.worker, A.mode, A_REST, #ARGV)
