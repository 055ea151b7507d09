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

local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
local b64 = bench.b64
bench.label = label


-- Thread state: every request this thread can send, built once.
local counter = 0
local reqs = {}

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
  if mode == "list" then bench.expect = '"names":["'
  elseif target == "etcd" then bench.expect = '"count":"1"'
  else bench.expect = '"incarnation_id"' end
end

function request()
  counter = counter + 1
  return reqs[counter % #reqs + 1]
end
