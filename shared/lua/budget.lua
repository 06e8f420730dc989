#!lua flags=allow-oom
--- args: crawlid shard shards total allowance used want
-- budget: shard 0's pool of a sharded job's max_pages (ARCHITECTURE.md "Shards"). Each shard's
-- leading scheduler asks it for its job's allowance (its job hash's max_pages, which take
-- enforces) and says what it used (started); budget:{crawlid} keeps the job's total and, per
-- shard I, the allowance given (sI) and the use last said (uI). A shard's allowance is only
-- raised here before it is raised there, and lowered there before here, so the allowances
-- summed never pass the total. allow-oom: a few fields, and a job's end waits on them.
-- Arguments: the job, this shard's number, the shard count, the job's total max_pages (made
-- here by the first shard to ask), the shard's allowance there now (lower than sI: it gave
-- some back, or a grant was lost on the way: the pool has it again), its started, the pages
-- it wants more (0: it only says).
-- Grants near the end are small (a share of what is left over 2 x shards), so one shard does
-- not sit on what another starves for.
-- Returns {its allowance (give it to the shard's job hash), 1 when the budget is gone for
-- good, else 0, the answer's number}. The number (vI: one more than the shard's last, or NOW
-- when that is more, so a pool lost and made again still counts up) orders the answers:
-- allow.lua applies none older than one it applied, so a stalled former leader cannot set
-- an old allowance over a newer one. Gone: a shard wants more, nothing is left, and no shard (itself included)
-- holds allowance it did not say it used (a said use is never more than the real one, but for
-- a page released untried: that shard takes it again within its allowance). Gone stays gone
-- (the hash's gone): a shard told so says no more, so later asks could not see its use.
local key = K('budget', A.crawlid)
local me = tonumber(A.shard)
local allowance, used, want = tonumber(A.allowance), tonumber(A.used), tonumber(A.want)
redis.call('HSETNX', key, 'total', tonumber(A.total))
local h = redis.call('HGETALL', key)
local was_gone = false
local total, mine, given, unused = 0, 0, 0, 0
local s, u = {}, {}
for i = 1, #h, 2 do
  local f, v = h[i], tonumber(h[i + 1])
  if f == 'total' then
    total = v
  elseif f == 'gone' then
    was_gone = true
  elseif string.sub(f, 1, 1) == 's' then
    s[tonumber(string.sub(f, 2))] = v
  elseif string.sub(f, 1, 1) == 'u' then
    u[tonumber(string.sub(f, 2))] = v
  end
end
for i, v in pairs(s) do
  if i == me then
    mine = v
  else
    given = given + v
    unused = unused + math.max(0, v - (u[i] or 0))
  end
end
if allowance < mine then
  mine = allowance
end
local left = total - given - mine
local grant = 0
if want > 0 and left > 0 and not was_gone then
  grant = math.min(want, left, math.max(1, math.ceil(left / (2 * tonumber(A.shards)))))
end
mine = mine + grant
local seq = math.max((tonumber(redis.call('HGET', key, 'v' .. me)) or 0) + 1, NOW)
redis.call('HSET', key, 's' .. me, mine, 'u' .. me, used, 'v' .. me, seq)
-- Lives as long as the job may: refreshed by every ask (a job fetches through asks).
redis.call('PEXPIRE', key, 30 * 86400 * 1000)
local gone = was_gone or (want > 0 and grant == 0 and left <= 0 and unused + math.max(0, mine - used) == 0)
if gone and not was_gone then
  redis.call('HSET', key, 'gone', 1)
end
return {mine, gone and 1 or 0, seq}
