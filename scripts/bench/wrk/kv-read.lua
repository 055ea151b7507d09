-- wrk script: one read of a pre-written key per request, rotating over all of them, against
-- Metasrv or etcd.
--
-- Environment (set by scripts/bench/cluster):
--   BENCH_TARGET     metasrv | etcd
--   BENCH_LABEL      the name printed on the RESULT line
--   BENCH_KEY_PREFIX keys are <prefix>0, <prefix>1, ... (default "bench/read/")
--   BENCH_KEY_COUNT  how many keys were written (default 100)
--
-- Metasrv: GET /v1/kv/<key> -> {"key","value"} (a strongly consistent read of the node's store;
--   on a remote node of the RocksDB store-host topology, one bus round trip to the host).
-- etcd: POST /v3/kv/range {"key":base64(key)} -> the stored value (etcd's default linearizable
--   read; on a follower, a read-index round with the leader).
--
-- Every response is checked for a 2xx status; every 16th 2xx body for the success marker
-- (Metasrv "value", etcd "count":"1"). done() prints one RESULT line (common.lua).

local target = os.getenv("BENCH_TARGET") or "metasrv"
local key_prefix = os.getenv("BENCH_KEY_PREFIX") or "bench/read/"
local key_count = tonumber(os.getenv("BENCH_KEY_COUNT") or "100")

local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
bench.label = os.getenv("BENCH_LABEL") or target

-- Thread state: every request this thread sends, built once; threads start at different offsets.
local counter = 0
local reqs = {}

function init(args)
  for i = 0, key_count - 1 do
    local key = key_prefix .. i
    if target == "etcd" then
      reqs[#reqs + 1] = wrk.format("POST", "/v3/kv/range", { ["Content-Type"] = "application/json" },
          '{"key":"' .. bench.b64(key) .. '"}')
    else
      reqs[#reqs + 1] = wrk.format("GET", "/v1/kv/" .. key)
    end
  end
  counter = (tid or 0) * 37
  bench.expect = (target == "etcd") and '"count":"1"' or '"value"'
end

function request()
  counter = counter + 1
  return reqs[(counter % #reqs) + 1]
end
