#!lua
--- args: worker max lease_ms ip?
-- take: a worker leases the next URL of each of its due domains (work.lua take_urls).
-- Returns {lease members, next due time or -1, positions of the last URLs of their hosts}.
local r = take_urls(A.worker, tonumber(A.max), tonumber(A.lease_ms), A.ip or 'local')
tally_flush()
return r
