#!lua
--- args: crawlid spec max_pages bloom hold k n ...
-- submit: create (or extend) a job and put its seeds in the frontier, through the bloom.
-- Arguments: crawlid, spec, max_pages, bloom params ("sbf:mg0:fp:groups:mg1", used when the
--       job is new), hold, k, n, then n x (record, k bloom hash values).
-- hold: empty, nothing; a number of ms, the job's frontier is not dispatched for that long
--       (hold_until, which window.lua reads), set or renewed by each call of a seed list that
--       goes in over many calls, so that no seed is first met as a link of an earlier seed's
--       page, at depth 1 (its own links then cut by maxdepth); "0", the hold ends and the
--       scheduler is woken. A submitter that dies holding the job frees it by that time.
-- Idempotent: a redelivered request finds its seeds in the bloom and adds nothing.
local crawlid, spec, max_pages, bloom = A.crawlid, A.spec, A.max_pages, A.bloom
local k, n = tonumber(A.k), tonumber(A.n)
local jk = K('job', crawlid)
local state = redis.call('HGET', jk, 'state')
if state == 'stopped' or state == 'expired' then
  return {-1, state}
end
if not state then
  redis.call('HSET', jk, 'spec', spec, 'state', 'running', 'created_ms', NOW, 'max_pages', max_pages, 'bloom', bloom,
    'pending', 0, 'started', 0, 'fetched', 0, 'errors', 0, 'failed', 0, 'dropped', 0, 'retries', 0)
  redis.call('SADD', K('jobs'), crawlid)
  local ok, sp = pcall(cjson.decode, spec)
  local spec_t = (ok and type(sp) == 'table') and sp or {}
  redis.call('HSET', jk, 'spiderid', spec_t.spiderid or 'link', 'appid', spec_t.appid or '',
    'domain_max_pages', tonumber(spec_t.domain_max_pages) or 0)
  -- A sharded keyspace (its prefix carries a shard's tag, shared/shard.c): max_pages is the
  -- whole job's, a budget in shard 0 (budget.lua) that this shard's leading scheduler draws its
  -- part of the job's allowance from (budgets.lua, allow.lua); take holds what is over it.
  local total = tonumber(max_pages) or 0
  if total > 0 and string.find(P, '{s%d+%.%d+}') then
    redis.call('HSET', jk, 'max_pages', 0, 'budget', total)
    redis.call('SADD', K('budgets'), crawlid)
  end
end
local hold = tonumber(A.hold)
if hold and hold > 0 then
  redis.call('HSET', jk, 'hold_until', NOW + hold)
elseif hold then
  redis.call('HDEL', jk, 'hold_until')
  redis.pcall('PUBLISH', K('wake', 'sched'), '1')
end
local added = frontier_push_new(crawlid, A_REST, n, k, function(member)
  local rec = rec_decode(member)
  return rec.priority, rec.depth
end)
bloom_close()
if added > 0 then
  frontier_note(crawlid)
  redis.call('HINCRBY', jk, 'pending', added)
  -- Only this raises a job's pending from 0: a sharded job is over when two reads of every
  -- shard in turn find it 0 and this count unchanged (ARCHITECTURE.md "Shards").
  redis.call('HINCRBY', jk, 'arrived', added)
  if redis.call('HGET', jk, 'state') == 'done' then
    for _, key in ipairs(job_keys(crawlid)) do
      redis.call('PERSIST', key) -- extended after it finished: its keys live again
    end
  end
  redis.call('HSET', jk, 'state', 'running')
  redis.pcall('PUBLISH', K('wake', 'sched'), '1') -- the scheduler dispatches now, not at its tick
end
local pending = tonumber(redis.call('HGET', jk, 'pending'))
if pending <= 0 and redis.call('HGET', jk, 'state') == 'running' then
  redis.call('HSET', jk, 'state', 'done', 'finished_ms', NOW)
  job_retire(crawlid)
end
return {added, pending}
