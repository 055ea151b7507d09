-- wrk script: one 4-operation transaction per request, against Metasrv or etcd.
--
-- The shape of a metadata change that touches several keys (issue 11, "Speed"): create a NEW
-- record (must be absent), put an index entry and a generation key beside it (no condition),
-- and check that the catalog the record belongs to exists (no write). All or nothing.
--
-- Environment (set by scripts/bench/compare-etcd):
--   BENCH_TARGET       metasrv | etcd
--   BENCH_LABEL        the name printed on the RESULT line
--   BENCH_PHASE        a tag unique to this run, so keys never repeat across runs on one store
--   BENCH_VALUE_B64    the value of all three puts (base64), the same for both systems
--   BENCH_CATALOG_KEY  the key checked to exist; compare-etcd creates it on both systems first
--   BENCH_GUARD_B64    etcd only: base64 of the lease key (election/leader)
--   BENCH_LEASE_B64    etcd only: base64 of the lease value the txn compares against
--
-- Keys per request, T = wrk thread id, N = the thread's request counter:
--   bench/<phase>/<T>/<N>        created: a new key per request
--   idx/<phase>/<T>/<N mod 2>  put: an index entry, rotating between two keys per thread
--   gen/<phase>/<T>            put: the thread's generation key, overwritten every request
--   <catalog key>              checked: exists
--
-- Metasrv: POST /v1/txn
--   {"ops":[{"key":tbl,"expected":null,"value":V},{"key":idx,"value":V},{"key":gen,"value":V},
--           {"key":catalog,"exists":true}]}
-- The node adds its exact lease record as the guard, checked in the same atomic step.
-- etcd: POST /v3/kv/txn
--   {"compare":[{lease key VALUE EQUAL lease bytes},{tbl CREATE EQUAL create_revision 0},
--               {catalog VERSION GREATER version 0}],
--    "success":[{"request_put":tbl},{"request_put":idx},{"request_put":gen}]}
-- CREATE revision 0 is etcd's "absent", VERSION > 0 its "exists"; the lease compare is what
-- Metasrv's implicit guard does. (etcd's JSON gateway ignores unknown fields, so a misspelt
-- compare field would silently compare against 0: compare-etcd probes every compare first.)
--
-- Every response is checked for a 2xx status; every 16th 2xx body is checked for the success
-- marker ("applied":true / "succeeded":true). done() prints one RESULT line:
--   RESULT label req_per_s p50_ms p99_ms requests non2xx connect_err read_err write_err status_err timeouts sampled bad_samples

local target = os.getenv("BENCH_TARGET") or "metasrv"
local label = os.getenv("BENCH_LABEL") or target
local phase = os.getenv("BENCH_PHASE") or "p"
local value_b64 = os.getenv("BENCH_VALUE_B64") or "dmFsdWU="
local catalog = os.getenv("BENCH_CATALOG_KEY") or "catalog/bench"
local guard_b64 = os.getenv("BENCH_GUARD_B64") or ""
local lease_b64 = os.getenv("BENCH_LEASE_B64") or ""

local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
local b64 = bench.b64
bench.label = label


-- Thread state. The fixed parts of each body are built once in init(); per request only the
-- new key (and, for etcd, its base64) and the index slot change.
local counter = 0
local prefix
local idx = {}        -- the two index keys (Metasrv: plain; etcd: base64)
local head, mid, tail1, tail -- the body around the per-request parts

function init(args)
  local t = tostring(tid)
  prefix = "bench/" .. phase .. "/" .. t .. "/"
  local idx_keys = { "idx/" .. phase .. "/" .. t .. "/0", "idx/" .. phase .. "/" .. t .. "/1" }
  local gen = "gen/" .. phase .. "/" .. t
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  if target == "etcd" then
    wrk.path = "/v3/kv/txn"
    bench.expect = '"succeeded":true'
    idx = { b64(idx_keys[1]), b64(idx_keys[2]) }
    -- body = head .. b64(new) .. mid .. b64(new) .. tail1 .. idx .. tail
    head = '{"compare":[{"key":"' .. guard_b64 .. '","target":"VALUE","result":"EQUAL","value":"' .. lease_b64
        .. '"},{"key":"'
    mid = '","target":"CREATE","result":"EQUAL","create_revision":"0"},{"key":"' .. b64(catalog)
        .. '","target":"VERSION","result":"GREATER","version":"0"}],"success":[{"request_put":{"key":"'
    tail1 = '","value":"' .. value_b64 .. '"}},{"request_put":{"key":"'
    tail = '","value":"' .. value_b64 .. '"}},{"request_put":{"key":"' .. b64(gen) .. '","value":"' .. value_b64
        .. '"}}]}'
  else
    wrk.path = "/v1/txn"
    bench.expect = '"applied":true'
    idx = idx_keys
    -- body = head .. new .. mid .. idx .. tail
    head = '{"ops":[{"key":"'
    mid = '","expected":null,"value":"' .. value_b64 .. '"},{"key":"'
    tail = '","value":"' .. value_b64 .. '"},{"key":"' .. gen .. '","value":"' .. value_b64
        .. '"},{"key":"' .. catalog .. '","exists":true}]}'
  end
end

function request()
  counter = counter + 1
  local key = prefix .. counter
  local slot = idx[counter % 2 + 1]
  local body
  if target == "etcd" then
    local k = b64(key)
    body = head .. k .. mid .. k .. tail1 .. slot .. tail
  else
    body = head .. key .. mid .. slot .. tail
  end
  return wrk.format(nil, nil, nil, body)
end
