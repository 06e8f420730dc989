# scripts/testweb.sh - sourced by the demo and benchmark scripts: starts the project's test web
# server on a free 127.0.0.1 port in a work directory and stops it (by pid) when the script exits.
#   WORK=$(mktemp -d ...); . scripts/testweb.sh; testweb_start --sites 8 ...   -> sets PORT
# shellcheck shell=bash

WEB_PID=""

testweb_cleanup() {
  if [ -n "$WEB_PID" ] && kill -0 "$WEB_PID" 2>/dev/null; then
    kill "$WEB_PID" && wait "$WEB_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap testweb_cleanup EXIT

testweb_start() {
  build/tests/testweb --port 0 --max-seconds 900 "$@" >"$WORK/web.out" 2>"$WORK/web.err" &
  WEB_PID=$!
  for _ in $(seq 1200); do # up to 60 s: 100,000 sites take a while on a loaded machine
    grep -q '^PORT ' "$WORK/web.out" 2>/dev/null && break
    kill -0 "$WEB_PID" 2>/dev/null || break
    sleep 0.05
  done
  PORT=$(awk '/^PORT /{print $2; exit}' "$WORK/web.out")
  [ -n "$PORT" ] || { echo "the test web server did not start: $(cat "$WORK/web.err")" >&2; exit 1; }
}
