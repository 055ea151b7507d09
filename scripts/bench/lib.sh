# Shell functions the benchmark scripts share. Source it after setting NAME (the script's name,
# for log lines) and ROOT (the repository):  . "$ROOT/scripts/bench/lib.sh"

log() { echo "$NAME: $*" >&2; }
die() { log "$*"; exit 1; }

# stop_pid PID: SIGTERM, wait up to 5 s, then SIGKILL; only a process the script started.
stop_pid() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# need_ports PORT...: dies naming the first port already in use on 127.0.0.1.
need_ports() {
  local p
  for p in "$@"; do port_free "$p" || die "port $p on 127.0.0.1 is in use"; done
}

# need_tools PACKAGE:COMMAND...: installs the Debian packages whose commands are missing.
need_tools() {
  local missing=() t
  for t in "$@"; do command -v "${t#*:}" >/dev/null || missing+=("${t%%:*}"); done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} (Debian)"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  fi
  command -v curl >/dev/null || die "curl is needed"
}

# need_jar JAR: builds the fat jar when it is missing or older than the sources.
need_jar() {
  if [ ! -f "$1" ] || [ -n "$(cd "$ROOT" && find src pom.xml conf -newer "$1" -print -quit 2>/dev/null)" ]; then
    log "building $1"
    (cd "$ROOT" && mvn -B -ntp -q package -DskipTests >&2)
  fi
}

# wait_up URL PID LOG [SECONDS]: waits until URL answers 2xx; dies (showing LOG) if PID exits first.
wait_up() {
  local url=$1 pid=$2 logf=$3 tries=$(( ${4:-60} * 10 ))
  for _ in $(seq "$tries"); do
    curl -fsS "$url" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$logf" >&2; die "process $pid exited before $url answered"; }
    sleep 0.1
  done
  cat "$logf" >&2; die "$url did not answer within ${4:-60} s"
}

# checked_result WRK_OUTPUT: the RESULT line (common.lua) of one wrk run; dies unless every
# response was 2xx, without socket errors or timeouts, and every sampled body was as expected.
checked_result() {
  local line
  line=$(grep '^RESULT ' <<<"$1") || die "wrk printed no RESULT line: $1"
  # RESULT label rps p50 p99 requests non2xx connect read write status timeout sampled bad
  read -r _ label _ _ _ _ non2xx c r w s t sampled bad <<<"$line"
  if [ "$non2xx" != 0 ] || [ "$c" != 0 ] || [ "$r" != 0 ] || [ "$w" != 0 ] || [ "$s" != 0 ] || [ "$t" != 0 ] \
      || [ "$bad" != 0 ] || [ "$sampled" = 0 ]; then
    die "$label had failures: $line"
  fi
  echo "$line"
}
