-- wrk script: one guarded create of a NEW key per request, against Metasrv or etcd.
--
-- Environment (set by scripts/bench/compare-etcd):
--   BENCH_TARGET     metasrv | etcd
--   BENCH_LABEL      the name printed on the RESULT line
--   BENCH_PHASE      a tag unique to this run, so keys never repeat across runs on one store
--   BENCH_VALUE_B64  the value written (base64), the same for both systems
--   BENCH_GUARD_B64  etcd only: base64 of the lease key (election/leader)
--   BENCH_LEASE_B64  etcd only: base64 of the lease value the txn compares against
--
-- Metasrv: POST /v1/kv/cas {"key":K,"expected":null,"value":V}. The node turns it into one
-- guarded mutation checked atomically against its exact lease bytes (the fenced path).
-- etcd: POST /v3/kv/txn comparing the value of election/leader for equality and, on success,
-- putting K (the request body of /work/shared/reference/etcd-baseline.md).
--
-- Every response is checked for a 2xx status; every 16th 2xx body is checked for the success
-- marker ("applied":true / "succeeded":true). done() prints one RESULT line:
--   RESULT label req_per_s p50_ms p99_ms requests non2xx connect_err read_err write_err status_err timeouts sampled bad_samples

local target = os.getenv("BENCH_TARGET") or "metasrv"
local label = os.getenv("BENCH_LABEL") or target
local phase = os.getenv("BENCH_PHASE") or "p"
local value_b64 = os.getenv("BENCH_VALUE_B64") or "dmFsdWU="
local guard_b64 = os.getenv("BENCH_GUARD_B64") or ""
local lease_b64 = os.getenv("BENCH_LEASE_B64") or ""

local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
local b64 = bench.b64
bench.label = label


-- Thread state.
local counter = 0
local prefix

function init(args)
  prefix = "bench/" .. phase .. "/" .. tostring(tid) .. "/"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  if target == "etcd" then
    wrk.path = "/v3/kv/txn"
    bench.expect = '"succeeded":true'
  else
    wrk.path = "/v1/kv/cas"
    bench.expect = '"applied":true'
  end
end

function request()
  counter = counter + 1
  local key = prefix .. counter
  local body
  if target == "etcd" then
    body = '{"compare":[{"key":"' .. guard_b64 .. '","target":"VALUE","result":"EQUAL","value":"' .. lease_b64
        .. '"}],"success":[{"request_put":{"key":"' .. b64(key) .. '","value":"' .. value_b64 .. '"}}]}'
  else
    body = '{"key":"' .. key .. '","expected":null,"value":"' .. value_b64 .. '"}'
  end
  return wrk.format(nil, nil, nil, body)
end
