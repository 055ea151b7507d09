-- wrk script: Iceberg REST requests against pre-created tables <prefix>/v1/namespaces/NS/tables/t000..t<N-1>,
-- for Metasrv (prefix /iceberg) and Iceberg's reference server (prefix empty) alike.
--
-- Environment (set by scripts/bench/compare-iceberg-reference):
--   BENCH_LABEL   the name printed on the RESULT line
--   BENCH_MODE    load (GET the table) | commit (POST a set-properties update: a new metadata file each)
--                 | list (GET the namespace's table listing) | sign (POST BENCH_SIGN_BODY to the table's sign route)
--   BENCH_DELEGATION  an X-Iceberg-Access-Delegation header to send (optional: vended-credentials, remote-signing)
--   BENCH_SIGN_BODY   sign mode: the RemoteSignRequest JSON posted; "TABLE" in it is replaced by the table's name
--   BENCH_TOKEN   a bearer token to send (optional)
--   BENCH_PREFIX  the REST base path ("/iceberg" for Metasrv, "" for the reference server)
--   BENCH_NS      the namespace holding the tables
--   BENCH_TABLES  how many tables (t000 ...)
--
-- A thread picks a random table per request. Every response is checked for a 2xx status; every
-- 16th 2xx body for "metadata-location". done() prints the RESULT line of common.lua.

local bench = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "") .. "common.lua")
bench.label = os.getenv("BENCH_LABEL") or "iceberg"
local mode = os.getenv("BENCH_MODE") or "load"
local prefix = os.getenv("BENCH_PREFIX") or ""
local ns = os.getenv("BENCH_NS") or "bench"
local tables = tonumber(os.getenv("BENCH_TABLES") or "200")
local token = os.getenv("BENCH_TOKEN")
local headers = {}
if token and token ~= "" then headers["Authorization"] = "Bearer " .. token end
local delegation = os.getenv("BENCH_DELEGATION")
if delegation and delegation ~= "" then headers["X-Iceberg-Access-Delegation"] = delegation end
local signBody = os.getenv("BENCH_SIGN_BODY") or ""
local names = {}

local paths = {}
local counter = 0

function init(args)
  bench.expect = mode == "list" and '"identifiers"' or mode == "sign" and '"Authorization"' or '"metadata-location"'
  for i = 0, tables - 1 do
    names[#names + 1] = string.format("t%03d", i)
    paths[#paths + 1] = prefix .. "/v1/namespaces/" .. ns .. "/tables/" .. names[#names]
  end
  math.randomseed(os.time() * 1000 + tid)
end

function request()
  counter = counter + 1
  local i = math.random(#paths)
  local path = paths[i]
  if mode == "sign" then
    local h = { ["Content-Type"] = "application/json" }
    if headers["Authorization"] then h["Authorization"] = headers["Authorization"] end
    return wrk.format("POST", path .. "/sign", h, (signBody:gsub("TABLE", names[i])))
  end
  if mode == "commit" then
    local h = { ["Content-Type"] = "application/json" }
    if headers["Authorization"] then h["Authorization"] = headers["Authorization"] end
    return wrk.format("POST", path, h,
        '{"requirements":[],"updates":[{"action":"set-properties","updates":{"bench.n":"' .. tid .. "-" .. counter .. '"}}]}')
  end
  if mode == "list" then return wrk.format("GET", prefix .. "/v1/namespaces/" .. ns .. "/tables", headers) end
  return wrk.format("GET", path, headers)
end
