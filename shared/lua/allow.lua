#!lua flags=allow-oom
--- args: crawlid allowance used gone seq
-- allow: the allowance shard 0's pool (budget.lua) gave this shard's part of a job becomes its
-- max_pages, which take enforces; gone 1: the job's budget is gone for good, and take drops
-- what it held over the allowance rather than keep it (work.lua take_urls). A job no longer
-- here is left alone. used: the started the pool was told with it (budgets.lua lists a done
-- job again when its started moved since: the pool must know what it used, or another shard
-- would wait for allowance this one never frees). allow-oom: a few fields, and a job's end at maxmemory waits on them.
-- seq: the answer's number (budget.lua): one not above the last applied (budget_seq) is an
-- old answer arriving late (a stalled former leader's) and changes nothing.
-- Returns 1, 0 when there is no such job, 2 for an old answer.
local jk = K('job', A.crawlid)
if redis.call('EXISTS', jk) == 0 then
  return 0
end
local seq = tonumber(A.seq)
if seq <= (tonumber(redis.call('HGET', jk, 'budget_seq')) or 0) then
  return 2
end
redis.call('HSET', jk, 'max_pages', tonumber(A.allowance), 'budget_told', tonumber(A.allowance), 'budget_used',
  tonumber(A.used), 'budget_seq', seq)
if A.gone == '1' then
  redis.call('HSET', jk, 'budget_gone', 1)
  redis.call('SREM', K('budgets'), A.crawlid)
end
return 1
