#!lua flags=allow-oom
--- args: low
-- budgets: this shard's jobs whose max_pages allowance its leading scheduler must settle with
-- shard 0's pool (budget.lua; ARCHITECTURE.md "Shards"): those submit.lua made with a budget
-- shared over the shards (listed in budgets) that run with started within low of their
-- allowance (they want more), and those done with allowance they did not use (given back here
-- first: it is lowered to started now, and the pool told next) or whose allowance or started
-- the pool was not told yet (allow.lua keeps what it was told).
-- A job stopped, expired, gone, or whose budget is gone for good leaves the list. allow-oom:
-- it writes a few fields, and a job's end at maxmemory waits on them.
-- Returns n x (crawlid, total, allowance, started, 1 when it wants more else 0).
local low = tonumber(A.low)
local out = {}
for _, crawlid in ipairs(redis.call('SMEMBERS', K('budgets'))) do
  local jk = K('job', crawlid)
  local v = redis.call('HMGET', jk, 'state', 'budget', 'max_pages', 'started', 'budget_told', 'budget_gone',
    'budget_used')
  local state, total, allow, started = v[1], tonumber(v[2]) or 0, tonumber(v[3]) or 0, tonumber(v[4]) or 0
  if state ~= 'running' and state ~= 'done' or total <= 0 or v[6] then
    redis.call('SREM', K('budgets'), crawlid)
  elseif state == 'running' and started + low >= allow then
    out[#out + 1] = {crawlid, total, allow, started, 1}
  elseif state == 'done' and (allow > started or tonumber(v[5]) ~= allow or tonumber(v[7]) ~= started) then
    if allow > started then
      allow = math.max(started, 0)
      redis.call('HSET', jk, 'max_pages', allow)
    end
    out[#out + 1] = {crawlid, total, allow, started, 0}
  end
end
return out
