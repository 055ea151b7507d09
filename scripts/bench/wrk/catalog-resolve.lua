-- wrk script: one resolve of a pre-created table per request, rotating over all of them, against
-- Metasrv or etcd; for Metasrv also a list-tables page (BENCH_MODE=list).
--
-- Environment (set by scripts/bench/compare-etcd and scripts/bench/catalog-scale):
--   BENCH_TARGET       metasrv | etcd
--   BENCH_LABEL        the name printed on the RESULT line
--   BENCH_MODE         resolve (default) | list (Metasrv only)
--   BENCH_NS_PREFIX    namespaces are <prefix>000, <prefix>001, ...
--   BENCH_NS_COUNT     how many namespaces hold the tables
--   BENCH_TABLE_PREFIX tables are <prefix>000, <prefix>001, ... in every namespace
--   BENCH_TABLE_COUNT  how many tables per namespace
--   BENCH_LIST_LIMIT   list mode: the page size (default 100)
--
-- Request i of a thread (threads start at different offsets) names namespace i mod NS_COUNT and
-- table (i div NS_COUNT) mod TABLE_COUNT, so every table is read in turn.
--
-- resolve, Metasrv: GET /v1/namespaces/NS/tables/NAME -> {"namespace","name","registration":{...}}
--   (a read of tbl/NS/NAME from the node's store, the registration parsed and rendered).
-- resolve, etcd: POST /v3/kv/range {"key":base64("tbl/NS/NAME")} -> the registration as stored
--   (etcd's default linearizable read).
-- list, Metasrv: GET /v1/namespaces/NS/tables?limit=L -> {"names":[...],"continuation"}
--   (the namespace record read, then one page of tbl/NS/ scanned).
--
-- Every response is checked for a 2xx status; every 16th 2xx body is checked for the success
-- marker (resolve: Metasrv "incarnation_id", etcd "count":"1"; list: a non-empty "names").
-- done() prints one RESULT line:
--   RESULT label req_per_s p50_ms p99_ms requests non2xx connect_err read_err write_err status_err timeouts sampled bad_samples

local target = os.getenv("BENCH_TARGET") or "metasrv"
local label = os.getenv("BENCH_LABEL") or target
local mode = os.getenv("BENCH_MODE") or "resolve"
local ns_prefix = os.getenv("BENCH_NS_PREFIX") or "c"
local ns_count = tonumber(os.getenv("BENCH_NS_COUNT") or "1")
local table_prefix = os.getenv("BENCH_TABLE_PREFIX") or "r"
local table_count = tonumber(os.getenv("BENCH_TABLE_COUNT") or "100")
local list_limit = os.getenv("BENCH_LIST_LIMIT") or "100"

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64(s)
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

local threads = {}
local created = 0
function setup(thread)
  thread:set("tid", created)
  created = created + 1
  threads[#threads + 1] = thread
end

-- Thread state: every request this thread can send, built once.
local counter = 0
local ok = 0
local expect
local reqs = {}
non2xx = 0
sampled = 0
bad = 0

function init(args)
  local n = (mode == "list") and ns_count or ns_count * table_count
  for i = 0, n - 1 do
    local ns = ns_prefix .. string.format("%03d", i % ns_count)
    local name = table_prefix .. string.format("%03d", math.floor(i / ns_count) % table_count)
    if mode == "list" then
      reqs[#reqs + 1] = wrk.format("GET", "/v1/namespaces/" .. ns .. "/tables?limit=" .. list_limit)
    elseif target == "etcd" then
      reqs[#reqs + 1] = wrk.format("POST", "/v3/kv/range", { ["Content-Type"] = "application/json" },
          '{"key":"' .. b64("tbl/" .. ns .. "/" .. name) .. '"}')
    else
      reqs[#reqs + 1] = wrk.format("GET", "/v1/namespaces/" .. ns .. "/tables/" .. name)
    end
  end
  -- Threads start apart so they do not read the same key at the same moment.
  counter = math.floor(#reqs * tid / 7)
  if mode == "list" then expect = '"names":["'
  elseif target == "etcd" then expect = '"count":"1"'
  else expect = '"incarnation_id"' end
end

function request()
  counter = counter + 1
  return reqs[counter % #reqs + 1]
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    return
  end
  ok = ok + 1
  if ok % 16 == 1 then
    sampled = sampled + 1
    if not string.find(body, expect, 1, true) then bad = bad + 1 end
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
      label, summary.requests / (summary.duration / 1e6),
      latency:percentile(50) / 1000, latency:percentile(99) / 1000,
      summary.requests, n2, e.connect, e.read, e.write, e.status, e.timeout, s, b))
end
