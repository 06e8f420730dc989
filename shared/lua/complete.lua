#!lua
--- args: worker lease host next_ms outcome reason status items items_dropped refresh_at revisit k n denied away ...
-- complete: one call per fetched page (work.lua complete_page says what it does and returns).
-- Arguments: worker, then the page's (lease member, host, next_ms, outcome, ..., k, n, denied),
-- then n x (link record, k bloom hash values), then denied more of them: links robots.txt
-- forbids, then away x (shard, link record, k bloom hash values): links of hosts another shard
-- holds (work.lua). step.lua sends many of these in one call.
local r = complete_page(A.worker, A, A_REST)
hosts_flush(A.worker)
tally_flush()
return r
