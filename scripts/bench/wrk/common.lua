-- What every wrk script of the benchmarks shares: base64, the per-thread counters, the response
-- checks and the RESULT line. A script loads it with
--   local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
-- sets bench.label once and bench.expect (the success marker) in init(), and defines init() and
-- request() itself. wrk runs each thread's copy of the script in its own Lua state, so this file's
-- state is per thread, except in the main state, which runs setup() and done().
--
-- Every response is checked for a 2xx status; every 16th 2xx body for bench.expect. done() prints:
--   RESULT label req_per_s p50_ms p99_ms requests non2xx connect_err read_err write_err status_err timeouts sampled bad_samples

local bench = { label = "bench", expect = nil }

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
function bench.b64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local v = a * 65536 + (b or 0) * 256 + (c or 0)
    local c1 = math.floor(v / 262144) % 64
    local c2 = math.floor(v / 4096) % 64
    local c3 = math.floor(v / 64) % 64
    local c4 = v % 64
    out[#out + 1] = B64:sub(c1 + 1, c1 + 1) .. B64:sub(c2 + 1, c2 + 1)
        .. (b and B64:sub(c3 + 1, c3 + 1) or "=") .. (c and B64:sub(c4 + 1, c4 + 1) or "=")
  end
  return table.concat(out)
end

-- Main state: keep the thread handles so done() can collect their counters.
local threads = {}
local created = 0
function setup(thread)
  thread:set("tid", created)
  created = created + 1
  threads[#threads + 1] = thread
end

-- Thread state: globals, so that done() can read them with thread:get().
local ok = 0
non2xx = 0
sampled = 0
bad = 0

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    return
  end
  ok = ok + 1
  if ok % 16 == 1 then
    sampled = sampled + 1
    if not string.find(body, bench.expect, 1, true) then bad = bad + 1 end
  end
end

function done(summary, latency, requests)
  local n2, s, b = 0, 0, 0
  for _, t in ipairs(threads) do
    n2 = n2 + t:get("non2xx")
    s = s + t:get("sampled")
    b = b + t:get("bad")
  end
  local e = summary.errors
  io.write(string.format("RESULT %s %.1f %.3f %.3f %d %d %d %d %d %d %d %d %d\n",
      bench.label, summary.requests / (summary.duration / 1e6),
      latency:percentile(50) / 1000, latency:percentile(99) / 1000,
      summary.requests, n2, e.connect, e.read, e.write, e.status, e.timeout, s, b))
end

return bench
