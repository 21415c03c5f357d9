#!/usr/bin/env bash
# A newcomer's first hour, as CI checks it: clone this repository into an empty directory with nothing
# beside it, and run the README's two commands there (`npm ci && npm test`, then `npm ci && npm start`
# answering the README's first example). Usage: scripts/first-hour.sh [vitest JSON report path]
# Runs with whatever `node` is first on PATH; .ci/run puts the primary Node version there.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
report="${1:-}"
work="$(mktemp -d)"
gateway=""
cleanup() {
  [ -n "$gateway" ] && kill -- -"$gateway" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$src" "$work/permits"
cd "$work/permits"
echo "first hour: $(git log -1 --format='%h %s' | cut -c1-80) in $work/permits (node $(node --version))"

# 1. npm ci && npm test
npm ci --no-audit --no-fund
if [ -n "$report" ]; then npm test -- --reporter=default --reporter=json --outputFile="$report"; else npm test; fi

# 2. npm ci && npm start, then the README's first example. PORT picks a free port (8080 may be taken here).
npm ci --no-audit --no-fund >/dev/null
port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
set -m
PORT="$port" npm start >"$work/start.log" 2>&1 &
gateway=$!
set +m
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done
answer="$(curl -sS -w '\n%{http_code}' "http://127.0.0.1:$port/api/v1/determine" -d '{"state":"NM","activity":"construction","acres":3}')" || true
status="${answer##*$'\n'}"
if [ "$status" != "200" ] || ! grep -q '"coverage"' <<<"$answer"; then
  echo "first hour: npm start did not answer the README's example (HTTP $status)" >&2
  tail -n 40 "$work/start.log" >&2
  exit 1
fi
echo "first hour: npm start answered the README's example with 200"
