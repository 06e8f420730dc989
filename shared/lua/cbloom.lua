-- cbloom: a counting bloom filter, so that a URL can be taken out of the dedup set again.
-- Meant for navigation pages (issue 4, point 4): a navigation page is refetched after its
-- refresh period to find new links, so when the period runs out its URL is removed and the next
-- link to it is admitted as new. Data pages stay in the plain bloom (bits, never removed).
-- NOT WIRED INTO THE CRAWLER YET: it is not in shared/meson.build's lua_sources. Like the other
-- scripts it expects common.lua in front of it (for K); tests/bench/bench_bloom.c loads it that
-- way and checks that removal works.
--
-- Layout: keys cbloom:{crawlid}:{shard}, Redis strings of 4-bit counters read and written with
-- BITFIELD u4 at offset #counter, so a key holds at most 2^30 counters (512 MiB). The client
-- computes the positions exactly as for the plain bloom (rc_bloom_positions with the counter
-- count as m and at most 2^30 counters per shard): 4 times the memory of the plain filter for
-- the same false-positive rate.
-- Counters saturate at 15 and then stay 15 for ever (their true count is lost): with k at the
-- optimum a counter passes 15 with probability about 1e-15 per counter, so in practice never.
--
-- ARGV: prefix, now, crawlid, op, k (positions per URL), n, then n x (k x (shard, counter)).
-- op:
--   add     check-and-add: a URL is new when one of its counters is 0; only then its counters
--           go up by one. Returns '1' for new, '0' for already present.
--   remove  a URL that tests present has its counters go down by one (saturated ones stay).
--           Returns '1' for removed, '0' for absent (nothing changes). Remove only URLs whose
--           add returned '1', once: a URL add called present (a false positive) was never
--           counted, and removing it takes counts from other URLs, which can then test absent
--           (the benchmark saw 10 such false negatives in 90,000 before it kept to this rule).
--           The crawler keeps to it naturally: it removes a navigation page it fetched, and it
--           fetched it because add called it new.
--   check   read only. Returns '1' for present, '0' for absent.
-- The reply is a string of n characters, one per URL, in order.
local crawlid, op = ARGV[3], ARGV[4]
local k, n = tonumber(ARGV[5]), tonumber(ARGV[6])
if op ~= 'add' and op ~= 'remove' and op ~= 'check' then
  return redis.error_reply('cbloom: op must be add, remove or check')
end

-- The URL's counters at ARGV[i..i+2k-1], grouped by shard (one BITFIELD call per shard).
local function counters(i)
  local shards, by = {}, {}
  for j = 0, k - 1 do
    local s = ARGV[i + 2 * j]
    local list = by[s]
    if not list then
      list = {}
      by[s] = list
      shards[#shards + 1] = s
    end
    list[#list + 1] = '#' .. ARGV[i + 2 * j + 1]
  end
  return shards, by
end

-- Current values, per shard in the order of by[shard]; and the smallest of them.
local function read(shards, by)
  local vals, min = {}, 15
  for _, s in ipairs(shards) do
    local args = {}
    for _, off in ipairs(by[s]) do
      args[#args + 1] = 'GET'
      args[#args + 1] = 'u4'
      args[#args + 1] = off
    end
    local v = redis.call('BITFIELD', K('cbloom', crawlid, s), unpack(args))
    for _, x in ipairs(v) do
      if x < min then min = x end
    end
    vals[s] = v
  end
  return vals, min
end

-- Adds delta to every counter, skipping saturated ones (15) when going down. A counter listed
-- twice for one URL moves twice, on add and on remove alike.
local function bump(shards, by, vals, delta)
  for _, s in ipairs(shards) do
    local args = {'OVERFLOW', 'SAT'}
    local v = vals[s]
    for j, off in ipairs(by[s]) do
      if delta > 0 or v[j] < 15 then
        args[#args + 1] = 'INCRBY'
        args[#args + 1] = 'u4'
        args[#args + 1] = off
        args[#args + 1] = delta
      end
    end
    if #args > 2 then
      redis.call('BITFIELD', K('cbloom', crawlid, s), unpack(args))
    end
  end
end

local out = {}
local i = 7
for u = 1, n do
  local shards, by = counters(i)
  local vals, min = read(shards, by)
  local present = min > 0
  if op == 'add' then
    if not present then bump(shards, by, vals, 1) end
    out[u] = present and '0' or '1'
  elseif op == 'remove' then
    if present then bump(shards, by, vals, -1) end
    out[u] = present and '1' or '0'
  else
    out[u] = present and '1' or '0'
  end
  i = i + 2 * k
end
return table.concat(out)
