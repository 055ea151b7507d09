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

-- Main state: keep the thread handles so done() can collect their counters.
local threads = {}
local created = 0
function setup(thread)
  thread:set("tid", created)
  created = created + 1
  threads[#threads + 1] = thread
end

-- Thread state.
local counter = 0
local ok = 0
local expect
local prefix
non2xx = 0
sampled = 0
bad = 0

function init(args)
  prefix = "bench/" .. phase .. "/" .. tostring(tid) .. "/"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  if target == "etcd" then
    wrk.path = "/v3/kv/txn"
    expect = '"succeeded":true'
  else
    wrk.path = "/v1/kv/cas"
    expect = '"applied":true'
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
