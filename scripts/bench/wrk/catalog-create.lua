-- wrk script: one create-table per request (a NEW table name every time), against Metasrv or etcd.
--
-- The catalog's DDL write (issue 12, "Speed and scale"): register a new table and move the
-- catalog's directory generation in the same all-or-nothing, fsynced step.
--
-- Environment (set by scripts/bench/compare-etcd):
--   BENCH_TARGET        metasrv | etcd
--   BENCH_LABEL         the name printed on the RESULT line
--   BENCH_PHASE         a tag unique to this run; its trailing digits make table names unique
--                       across runs on one store (the same width for both systems, so both
--                       write keys and registrations of the same size)
--   BENCH_THREADS       wrk's thread count (-t), to split the namespaces between threads
--   BENCH_NS_PREFIX     namespaces are <prefix>000, <prefix>001, ... (pre-created on Metasrv)
--   BENCH_NS_COUNT      how many; each wrk thread rotates over its own share, request by request
--   BENCH_COLUMNS       Metasrv: the "columns" array of the request, e.g. ["id:i64","name:utf8"]
--   BENCH_COLUMNS_JSON  etcd: the same columns as a registration lists them,
--                       e.g. [{"name":"id","type":"i64"},{"name":"name","type":"utf8"}]
--   BENCH_CATALOG_ROOT  etcd: Metasrv's --catalog-root, the head of every location
--   BENCH_GUARD_B64     etcd only: base64 of the lease key (election/leader)
--   BENCH_LEASE_B64     etcd only: base64 of the lease value the txn compares against
--
-- Per request, T = wrk thread id, N = the thread's request counter, NS = the thread's next
-- namespace (rotating), NAME = t<run tag>-<T>-<N>:
--
-- Metasrv: POST /v1/namespaces/NS/tables {"name":NAME,"columns":BENCH_COLUMNS}
--   One fenced transaction on the node: the namespace record checked on its exact bytes and
--   rewritten with its table count + 1, tbl/NS/NAME created (must be absent) with the
--   registration, __lake_internal/catalog-directory-generation rewritten with a new UUIDv7, all
--   guarded by the node's exact lease record; acknowledged after the WAL fsync. (Before it, the
--   node reads the namespace record: the transaction's condition.)
-- etcd: POST /v3/kv/txn
--   {"compare":[{lease key VALUE EQUAL lease bytes},{tbl/NS/NAME CREATE EQUAL create_revision 0}],
--    "success":[{"request_put":{tbl/NS/NAME: registration}},
--               {"request_put":{__lake_internal/catalog-directory-generation: a UUIDv7-shaped id}}]}
--   The registration is the JSON Metasrv writes, byte for byte in shape and size:
--   {"location":"<root>/NS/NAME/<id>","engine":"lance","current_version":0,"incarnation_id":"<id>",
--    "columns":BENCH_COLUMNS_JSON} (compare-etcd checks it against Metasrv's reply).
-- Rotating over many namespaces matters to Metasrv only: creates in ONE namespace are
-- serialised by its record (each rewrites it on its exact bytes), see docs/benchmarks.md.
--
-- Every response is checked for a 2xx status; every 16th 2xx body is checked for the success
-- marker (Metasrv "incarnation_id" in the returned registration; etcd "succeeded":true).
-- done() prints one RESULT line:
--   RESULT label req_per_s p50_ms p99_ms requests non2xx connect_err read_err write_err status_err timeouts sampled bad_samples

local target = os.getenv("BENCH_TARGET") or "metasrv"
local label = os.getenv("BENCH_LABEL") or target
local phase = os.getenv("BENCH_PHASE") or "p0"
local nthreads = tonumber(os.getenv("BENCH_THREADS") or "1")
local ns_prefix = os.getenv("BENCH_NS_PREFIX") or "c"
local ns_count = tonumber(os.getenv("BENCH_NS_COUNT") or "1")
local columns = os.getenv("BENCH_COLUMNS") or '["id:i64"]'
local columns_json = os.getenv("BENCH_COLUMNS_JSON") or '[{"name":"id","type":"i64"}]'
local root = os.getenv("BENCH_CATALOG_ROOT") or "s3://lake-bench/tables"
local guard_b64 = os.getenv("BENCH_GUARD_B64") or ""
local lease_b64 = os.getenv("BENCH_LEASE_B64") or ""
local GENERATION = "__lake_internal/catalog-directory-generation"

local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
local b64 = bench.b64
bench.label = label


-- Thread state.
local counter = 0
local namespaces = {}  -- this thread's share of the namespaces
local tag
local head, mid       -- etcd body around the per-request parts

-- A UUIDv7-shaped id (36 characters, like the ones Metasrv writes): ms time, thread, counter.
local function uuid(n)
  local ms = os.time() * 1000
  return string.format("%08x-%04x-7%03x-%04x-%012x", math.floor(ms / 65536) % 4294967296, ms % 65536,
      n % 4096, 32768 + tid % 16384, n)
end

function init(args)
  -- Fixed width: the run tag's trailing digits, zero-padded to 10.
  tag = string.format("%010d", (tonumber(phase:match("(%d+)$") or "0") or 0) % 10000000000)
  local share = math.max(1, math.floor(ns_count / nthreads))
  for i = 0, share - 1 do
    namespaces[#namespaces + 1] = ns_prefix .. string.format("%03d", (tid * share + i) % ns_count)
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  if target == "etcd" then
    wrk.path = "/v3/kv/txn"
    bench.expect = '"succeeded":true'
    head = '{"compare":[{"key":"' .. guard_b64 .. '","target":"VALUE","result":"EQUAL","value":"' .. lease_b64
        .. '"},{"key":"'
    mid = '","target":"CREATE","result":"EQUAL","create_revision":"0"}],"success":[{"request_put":{"key":"'
  else
    bench.expect = '"incarnation_id"'
  end
end

function request()
  counter = counter + 1
  local ns = namespaces[counter % #namespaces + 1]
  local name = "t" .. tag .. "-" .. tid .. "-" .. counter
  if target == "etcd" then
    local id = uuid(counter)
    local reg = '{"location":"' .. root .. "/" .. ns .. "/" .. name .. "/" .. id
        .. '","engine":"lance","current_version":0,"incarnation_id":"' .. id .. '","columns":' .. columns_json .. "}"
    local k = b64("tbl/" .. ns .. "/" .. name)
    local body = head .. k .. mid .. k .. '","value":"' .. b64(reg) .. '"}},{"request_put":{"key":"' .. b64(GENERATION)
        .. '","value":"' .. b64(uuid(counter + 1)) .. '"}}]}'
    return wrk.format(nil, nil, nil, body)
  end
  return wrk.format(nil, "/v1/namespaces/" .. ns .. "/tables", nil,
      '{"name":"' .. name .. '","columns":' .. columns .. "}")
end
